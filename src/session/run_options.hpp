// The options of the profiling commands, once: each option's name, help, default and what it sets. The command line
// binds its `kprof run` and `kprof <package>` flags from this table (cli/app.cpp), the C API reads the same options
// from a request by their `key` and exports the table with the modes and exit codes (kprof_interface), and the
// Python package reads that export instead of keeping its own list.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "session/run_spec.hpp"

namespace kprof::session {

struct RunOption {
  std::string_view name;       // the flag without its dashes: "counters-min-share"
  std::string_view alias;      // another spelling of the flag ("prof_type", the seed's), or ""
  std::string_view key;        // its key in a C API request and in Python ("counters_min_share")
  std::string_view help;
  bool flag = false;           // takes no value (given = true)
  bool on_run = true;          // offered by `kprof run`
  bool on_package = false;     // offered by `kprof <package>`
  // Parses `value` ("" for a flag) into the spec; a bad value throws Error(kExitUsage) naming the option.
  void (*set)(PackageSpec& spec, const std::string& value) = nullptr;
  // The default a fresh spec has, as text ("" when there is none to show).
  std::string (*default_of)(const PackageSpec& spec) = nullptr;
};

// Every option, in the order --help lists them.
std::span<const RunOption> run_options();
// The option whose name, alias or key this is; nullptr for none.
const RunOption* find_run_option(std::string_view name);

}  // namespace kprof::session
