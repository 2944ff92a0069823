// Imports the CSV pages Nsight Compute prints (raw, details, source, session, or a live `--csv` run) into one
// ProfileRun: launches of the same run are merged by launch ID across pages, then grouped into stages.
#pragma once
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/source_view.hpp"

namespace kprof::ncu {

enum class PageKind { raw, details, source, session, unknown };
const char* to_string(PageKind k);

struct NcuImport {
  ProfileRun run;
  SourceView source;  // kernels of any source pages given
};

// Reads every file, detects its page kind from its first CSV row and merges. Launches from different processes
// (Process ID) are kept apart and a warning says so. Profiler ==WARNING==/==ERROR== lines become warnings;
// when no launch was imported and the profiler printed ==ERROR== (e.g. ERR_NVGPUCTRPERM), throws kprof::Error
// with that text (exit code kExitNoPermission for counter-permission errors, else kExitBadInput).
// A file with no CSV table or with none of the expected columns → ParseError naming the file.
NcuImport import_ncu(const std::vector<std::string>& paths);

// import_ncu(paths).run
ProfileRun import_ncu_files(const std::vector<std::string>& paths);

}  // namespace kprof::ncu
