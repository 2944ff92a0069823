// The artifact directory: out/profiles/<mode>/<kernel>/<params>/<timestamp>/ with params.json, profile.json,
// contract.md, report.md (and report-verbose.md, source/, trace files per mode). Writes are atomic per file.
#pragma once
#include <filesystem>
#include <map>
#include <string>

#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::session {

// Where a run's artifacts go: `exact` when given, else <root>/<mode>/<kernel>/<params>/<timestamp>/.
std::filesystem::path artifact_dir(const ProfileRun& run, const std::string& root, const std::string& exact);

// Filesystem-safe form of a name ("my kernel/v2" → "my_kernel_v2").
std::string safe_name(const std::string& s);

// Writes params.json, profile.json, contract.md, contract.json, report.md (report-verbose.md when the run has
// NCU sections) and any extra files (name → content). Returns the directory.
// `baseline`, when given, also puts its kernels on the roofline chart, joined to the current ones.
// `contract_extra` (Markdown: the nsys timeline's headline) is appended to contract.md and report.md.
void write_artifact(const std::filesystem::path& dir, const ProfileRun& run, const Comparison* vs_baseline,
                    const std::map<std::string, std::string>& extra_files = {}, const ProfileRun* baseline = nullptr,
                    const std::string& contract_extra = {});

// Reads a run back from an artifact directory or a profile.json path.
ProfileRun load_artifact(const std::filesystem::path& dir_or_file);

}  // namespace kprof::session
