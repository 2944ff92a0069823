// The clock recorder: GPU clocks before and after the passes (nvidia-smi), and with --lock-clocks the lock itself.
// It runs no pass and leaves no file: its readings go into Collected.
#include "collect/clock/clock_commands.hpp"
#include "collect/clock/clock_guard.hpp"
#include "collect/clock/clock_state.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "session/collectors/collectors.hpp"

namespace kprof::session {

namespace {

std::optional<ClockState> read_clocks(int gpu, std::vector<std::string>& warnings) {
  try {
    return query_clocks(gpu);
  } catch (const std::exception& e) {
    warnings.push_back(std::string("GPU clocks not recorded: ") + e.what());
    return std::nullopt;
  }
}

// The lock is taken before the first pass and restored on every exit path (return, exception, Ctrl-C, SIGTERM) by
// the guard.
class ClockRecorder : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::Clocks; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    return {ctx.spec.lock_clocks
                ? "clocks: SM clock locked to its default application clock for the run (--lock-clocks), restored "
                  "afterwards; clocks read before and after"
                : "clocks: read before and after the run with nvidia-smi, left as found"};
  }
  void begin(CollectorContext& ctx, Collected& c) override {
    if (ctx.spec.lock_clocks) {
      guard_.emplace(ctx.gpu, true);
      if (ctx.plan.runs_ncu() && ctx.spec.clock_control != "none")
        c.warnings_before.push_back("--lock-clocks with ncu --clock-control " + ctx.spec.clock_control +
                                    ": ncu may override the lock");
    }
    before_ = read_clocks(ctx.gpu, c.warnings_before);
    if (before_) c.gpu_name = before_->name;  // trace-only modes learn the GPU from here
  }
  void end(CollectorContext& ctx, Collected& c) override {
    if (guard_) {
      c.clocks = guard_->finish();
      guard_->restore();
    } else if (auto after = before_ ? read_clocks(ctx.gpu, c.warnings_after) : std::nullopt) {
      ClockRecord rec;
      rec.sm_mhz_before = before_->sm_mhz.value_or(0);
      rec.mem_mhz_before = before_->mem_mhz.value_or(0);
      rec.sm_mhz_after = after->sm_mhz.value_or(0);
      rec.mem_mhz_after = after->mem_mhz.value_or(0);
      if (after->event_reasons) rec.throttle_reasons = decode_event_reasons(*after->event_reasons);
      c.clocks = rec;
    }
  }

 private:
  std::optional<ClockGuard> guard_;
  std::optional<ClockState> before_;
};

}  // namespace

CollectorRow clock_recorder_row() {
  return {.kind = CollectorKind::Clocks,
          .name = "clocks",
          .planned = [](const ModeEntry&, const RunSpec&) { return true; },
          .make = []() -> std::unique_ptr<Collector> { return std::make_unique<ClockRecorder>(); },
          .warnings = WarningCode::Clocks};
}

}  // namespace kprof::session
