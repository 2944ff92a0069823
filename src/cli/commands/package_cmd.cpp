// kprof <package> [<version>] and kprof list: the bundled kernel packages (session/package.hpp), run by
// kprof-kernels.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "plan/plan_json.hpp"
#include "session/kernels_binary.hpp"
#include "session/package.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_list(const ListOptions& o) {
  auto pkgs = session::list_packages(session::find_kernels_binary());
  if (o.common.print.json) std::cout << plan::packages_to_json(pkgs);
  else std::cout << plan::render_package_list(pkgs);
  return kExitOk;
}

int cmd_package(const session::PackageSpec& spec, const PrintOptions& print) {
  session::PackageSpec resolved = spec;
  try {
    resolved.kernels = session::find_kernels_binary(spec.kernels);
  } catch (const Error& e) {
    throw Error(std::string("not a kprof subcommand, and ") + e.what() +
                    ". Subcommands: analyze, run, compare, devlog, devices, clock, peaks, list, bench",
                e.exit_code());
  }
  session::PackageOutcome r;
  try {
    r = session::package_and_publish(resolved);
  } catch (const session::UnknownPackageError& e) {
    std::cerr << "kprof: unknown subcommand or package '" << e.package() << "'. Packages:\n"
              << e.packages()
              << "Subcommands: analyze, run, compare, devlog, devices, clock, peaks, list, bench (kprof --help)\n";
    return kExitUsage;
  }
  return print_outcome(r.outcome, print);
}

}  // namespace kprof::cli
