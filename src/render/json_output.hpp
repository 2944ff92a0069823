// JSON output: the model as it serialises, plus a "contract" object with the Markdown contract's fields,
// so agents need not parse Markdown. Pretty-printed (2 spaces); keys sorted, so the order is stable.
#pragma once
#include <string>
#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::render {

std::string render_json(const ProfileRun& run, const Comparison* vs_baseline);

// Only the contract (plus the comparison when given and the run's warnings): what `--json` prints and
// contract.json holds, small enough for an agent to read whole. The model itself is profile.json.
std::string render_contract_json(const ProfileRun& run, const Comparison* vs_baseline);

}  // namespace kprof::render
