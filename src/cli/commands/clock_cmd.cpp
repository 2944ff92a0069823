// kprof clock status|lock|reset: the clock protocol (collect/clock/clock_commands.hpp).
#include <iostream>

#include "cli/commands/commands.hpp"
#include "collect/clock/clock_commands.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_clock(const ClockOptions& o) {
  ClockCommandOptions c;
  c.gpu = o.gpu;
  c.yes = o.yes;
  if (o.sm_mhz > 0) c.sm_mhz = o.sm_mhz;
  if (o.action == "status") return o.json ? clock_status_json(c, std::cout) : clock_status(c, std::cout);
  if (o.action == "lock") return clock_lock(c, std::cout, std::cerr);
  if (o.action == "reset") return clock_reset(c, std::cout, std::cerr);
  throw Error("kprof clock needs one of: status, lock, reset", kExitUsage);
}

}  // namespace kprof::cli
