// kprof <package> [<version>] and kprof list: the bundled kernel packages (session/package.hpp), run by
// kprof-kernels.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "plan/plan_json.hpp"
#include "session/kernels_binary.hpp"
#include "session/package.hpp"
#include "session/publish.hpp"
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
  session::PackageResult r;
  try {
    r = session::profile_package(resolved);
  } catch (const session::UnknownPackageError& e) {
    std::cerr << "kprof: unknown subcommand or package '" << e.package() << "'. Packages:\n"
              << e.packages()
              << "Subcommands: analyze, run, compare, devlog, devices, clock, peaks, list, bench (kprof --help)\n";
    return kExitUsage;
  }
  if (!r.profiled) return r.exit_code;  // the check/tune run was interrupted
  if (r.profiled->dry_run) {
    std::string line;
    for (const auto& a : r.check_and_tune) line += (line.empty() ? "" : " ") + a;
    std::cout << "check and tune: " << line << "\n";
    for (const auto& l : r.profiled->dry_run_lines) std::cout << l << "\n";
    return kExitOk;
  }
  auto p = session::publish(*r.profiled, resolved.run.output);
  session::print_published(p, print.json, print.quiet, std::cout, std::cerr);
  if (auto o = r.profiled->outcome(); !o.empty()) std::cerr << o << "\n";
  return r.exit_code;
}

}  // namespace kprof::cli
