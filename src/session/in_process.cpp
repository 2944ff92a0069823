#include "session/in_process.hpp"

#include "util/errors.hpp"

namespace kprof::session {

bool runs_in_process(Mode mode) { return is_profiling_mode(mode) && mode != Mode::Ncu; }

RunSpec in_process_spec(RunSpec spec) {
  if (!runs_in_process(spec.mode))
    throw Error(std::string(mode_name(spec.mode)) +
                    " mode does not run in-process: Nsight Compute replays kernels from outside the process "
                    "(kprof.profile(mode=\"ncu\") re-runs the script under `kprof run --prof-type=ncu`)",
                kExitUsage);
  if (spec.mode == Mode::Annotation) {
    spec.timing = TimingSource::Counters;
    spec.counters = CounterSource::Cupti;
    spec.counters_min_share_pct = 0;
  }
  return spec;
}

}  // namespace kprof::session
