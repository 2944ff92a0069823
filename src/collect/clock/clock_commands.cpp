#include "collect/clock/clock_commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "model/json_support.hpp"

#include <cstdlib>
#include <string>
#include <unistd.h>

#include "collect/clock/clock_plan.hpp"
#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof {

bool clock_change_allowed(bool yes) {
  const char* env = std::getenv("KPROF_ALLOW_CLOCK_CHANGE");
  return yes || (env && std::string(env) == "1");
}

namespace {

std::string mhz(const std::optional<int>& v) { return v ? std::to_string(*v) + " MHz" : "n/a"; }

void print_plan(const ClockPlan& plan, std::ostream& out) {
  for (const auto& n : plan.notes) out << "# " << n << "\n";
}

// Runs each command; stops at the first failure. Returns kExitOk or kExitFailure.
int execute(const ClockPlan& plan, std::ostream& out, std::ostream& err) {
  for (const auto& cmd : plan.commands) {
    out << "+ " << shell_command(cmd) << "\n";
    auto r = run_command(cmd);
    if (r.exit_code != 0) {
      err << "kprof: '" << shell_command(cmd) << "' failed (exit " << r.exit_code << "): " << r.out << r.err;
      if (r.exit_code != 0 && (r.out + r.err).find("ermission") != std::string::npos) return kExitNoPermission;
      return kExitFailure;
    }
  }
  return kExitOk;
}

void print_dry_run(const ClockPlan& plan, std::ostream& out) {
  out << "# dry run: clocks unchanged. Re-run with --yes (or KPROF_ALLOW_CLOCK_CHANGE=1) to execute:\n";
  for (const auto& cmd : plan.commands) out << shell_command(cmd) << "\n";
}

}  // namespace

int clock_status(const ClockCommandOptions& o, std::ostream& out) {
  auto s = query_clocks(o.gpu);
  out << "GPU " << s.gpu << ": " << s.name << "\n"
      << "  SM clock        " << mhz(s.sm_mhz) << " (max " << mhz(s.max_sm_mhz) << ", application "
      << mhz(s.app_sm_mhz) << ", default application " << mhz(s.default_app_sm_mhz) << ")\n"
      << "  memory clock    " << mhz(s.mem_mhz) << " (max " << mhz(s.max_mem_mhz) << ", application "
      << mhz(s.app_mem_mhz) << ", default application " << mhz(s.default_app_mem_mhz) << ")\n";
  out << "  event reasons   ";
  if (!s.event_reasons) {
    out << "n/a\n";
  } else {
    auto names = decode_event_reasons(*s.event_reasons);
    if (names.empty()) out << "none";
    out << fmt::format("{}", fmt::join(names, ", ")) << "\n";
  }
  if (auto saved = load_clock_state(o.gpu)) {
    out << "  locked          SM " << mhz(saved->locked_sm_mhz) << " by " << saved->locked_by << " at "
        << saved->timestamp << " (" << clock_state_path(o.gpu).string() << ")\n";
  } else {
    out << "  locked          not by kprof\n";
  }
  return kExitOk;
}

int clock_status_json(const ClockCommandOptions& o, std::ostream& out) {
  auto s = query_clocks(o.gpu);
  auto opt = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json j{{"schema", "kprof.clock-status/1"},
                   {"gpu", s.gpu},
                   {"name", s.name},
                   {"sm_mhz", opt(s.sm_mhz)},
                   {"mem_mhz", opt(s.mem_mhz)},
                   {"max_sm_mhz", opt(s.max_sm_mhz)},
                   {"max_mem_mhz", opt(s.max_mem_mhz)},
                   {"app_sm_mhz", opt(s.app_sm_mhz)},
                   {"app_mem_mhz", opt(s.app_mem_mhz)},
                   {"default_app_sm_mhz", opt(s.default_app_sm_mhz)},
                   {"default_app_mem_mhz", opt(s.default_app_mem_mhz)},
                   {"event_reasons", s.event_reasons ? nlohmann::json(decode_event_reasons(*s.event_reasons))
                                                     : nlohmann::json(nullptr)},
                   {"locked_by_kprof", nullptr}};
  if (auto saved = load_clock_state(o.gpu))
    j["locked_by_kprof"] = {{"sm_mhz", opt(saved->locked_sm_mhz)},
                            {"by", saved->locked_by},
                            {"at", saved->timestamp},
                            {"record", clock_state_path(o.gpu).string()}};
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return kExitOk;
}

int clock_lock(const ClockCommandOptions& o, std::ostream& out, std::ostream& err) {
  const bool allowed = clock_change_allowed(o.yes);
  ClockState s;
  try {
    s = query_clocks(o.gpu);
  } catch (const Error& e) {
    // A dry run prints its commands even where nvidia-smi cannot be asked (a machine without the driver, a CI
    // runner preparing a job): the clock it cannot read is named instead of given.
    if (allowed || e.exit_code() != kExitNoTool) throw;
    s.gpu = o.gpu;
    out << "# " << e.what() << ": the current clocks are unknown here\n";
    if (!o.sm_mhz) {
      const std::string gpu = std::to_string(o.gpu), program = nvidia_smi_program();
      out << "# dry run: clocks unchanged. On the GPU machine, with --yes (or KPROF_ALLOW_CLOCK_CHANGE=1), kprof "
             "would run:\n"
          << shell_command({program, "-i", gpu, "-lgc", "<SM>,<SM>"}) << "\n"
          << "# <SM>: the default application SM clock (" << program << " -i " << gpu
          << " --query-gpu=clocks.default_applications.graphics --format=csv,noheader,nounits), or --sm-mhz; the "
             "memory clock is locked too (-lmc) only on a board with more than one memory clock\n";
      return kExitOk;
    }
  }
  auto plan = plan_lock(s, o.sm_mhz, nvidia_smi_program());
  print_plan(plan, out);
  if (!allowed) {
    print_dry_run(plan, out);
    return kExitOk;
  }
  // Keep the first record when locking twice: it holds the clocks as they were before any lock.
  if (!load_clock_state(o.gpu)) {
    save_clock_state(state_before_lock(s, plan));
  }
  int rc = execute(plan, out, err);
  if (rc == kExitOk) out << "locked GPU " << o.gpu << "; undo with: kprof clock reset --gpu " << o.gpu << " --yes\n";
  return rc;
}

int clock_reset(const ClockCommandOptions& o, std::ostream& out, std::ostream& err) {
  auto saved = load_clock_state(o.gpu);
  auto plan = plan_reset(o.gpu, saved, nvidia_smi_program());
  print_plan(plan, out);
  if (!clock_change_allowed(o.yes)) {
    print_dry_run(plan, out);
    return kExitOk;
  }
  int rc = execute(plan, out, err);
  if (rc == kExitOk) remove_clock_state(o.gpu);
  return rc;
}

}  // namespace kprof
