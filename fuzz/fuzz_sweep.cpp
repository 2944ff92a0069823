// Benchmark sweeps (bench/sweeps.toml style) and command-line points ("m=1024,n=512").
#include "fuzz_support.hpp"
#include "plan/bench_sweep.hpp"
#include "plan/plan_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = kprof::fuzz::as_text(data, size);
  kprof::fuzz::accept_or_reject([&] { (void)kprof::plan::parse_sweep(text, "sweeps.toml"); });
  try {
    kprof::fuzz::accept_or_reject([&] { (void)kprof::plan::parse_point(text); });
  } catch (const kprof::plan::PlanError&) {  // parse_point's documented rejection
  }
  return 0;
}
