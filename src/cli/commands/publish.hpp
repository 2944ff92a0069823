// The end every profiling command shares: analyse the run, compare it with a baseline, write the artifact
// directory, append the devlog entry, print warnings and the output contract.
#pragma once
#include <filesystem>
#include <map>
#include <string>

#include "cli/commands/analysis_context.hpp"
#include "model/profile.hpp"

namespace kprof::cli {

struct PublishOptions {
  const CommonOptions* common = nullptr;
  std::string baseline;                 // artifact directory or profile.json; empty for none
  std::filesystem::path dir;            // artifact directory; empty writes none
  bool devlog = false;
  std::string docs_dir = "docs/kernels";
};

void publish_run(ProfileRun& run, const AnalysisContext& ctx, const PublishOptions& o,
                 const std::map<std::string, std::string>& files = {});

// Appends one entry (with "vs Previous" from the file's last entry) to <docs_dir>/<kernel>.md.
void append_devlog(const ProfileRun& run, const std::string& docs_dir, bool quiet);

}  // namespace kprof::cli
