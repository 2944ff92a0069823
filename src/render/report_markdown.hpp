// report.md for annotation and ncu modes: run header, the contract, then one section per kernel group
// (launch, durations, metric interpretation, roofline, opportunities, NCU rules) and the unavailable metrics.
#pragma once
#include <string>
#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::render {

std::string render_report(const ProfileRun& run, const Comparison* vs_baseline);
// The report plus every SectionMetric of every launch (grouped by section) and every rule with its full text.
std::string render_report_verbose(const ProfileRun& run, const Comparison* vs_baseline);

}  // namespace kprof::render
