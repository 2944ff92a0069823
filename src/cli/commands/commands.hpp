// One function per kprof subcommand. app.cpp parses the command line into these option structs.
#pragma once
#include <string>
#include <vector>

#include "model/params.hpp"

namespace kprof::cli {

struct CommonOptions {
  std::string devices_file;     // extra devices.json (user entries override shipped ones)
  std::string thresholds_file;  // thresholds.toml overriding the shipped thresholds
  bool json = false;            // print JSON instead of the Markdown contract
  bool quiet = false;
};

struct AnalyzeOptions {
  CommonOptions common;
  std::vector<std::string> inputs;  // ncu CSV files, or an artifact directory
  std::string kernel;               // default: the profiled process name
  std::string version = "-";
  std::string baseline;             // artifact directory or profile.json to compare with
  std::string out_root = "out/profiles";  // artifacts go to <out_root>/<mode>/<kernel>/<params>/<timestamp>/
  std::string out_dir;              // exact artifact directory (overrides out_root layout)
  ProblemParams params;
  bool devlog = false;              // also append a devlog entry
  std::string docs_dir = "docs/kernels";
  bool write = true;
};

struct CompareOptions {
  CommonOptions common;
  std::string baseline, current;
};

struct DevlogOptions {
  CommonOptions common;
  std::string artifact;
  std::string docs_dir = "docs/kernels";
};

struct DevicesOptions {
  CommonOptions common;
  std::string show;
};

int cmd_analyze(const AnalyzeOptions&);
int cmd_compare(const CompareOptions&);
int cmd_devlog(const DevlogOptions&);
int cmd_devices(const DevicesOptions&);

}  // namespace kprof::cli
