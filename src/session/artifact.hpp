// The artifact directory: out/profiles/<mode>/<kernel>/<params>/<timestamp>/ with params.json, profile.json,
// contract.md, report.md (and report-verbose.md, source/, trace files per mode). Writes are atomic per file.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::session {

// Where a run's artifacts go: `exact` when given, else <root>/<mode>/<kernel>/<params>/<timestamp>/, the time
// being `timestamp` (ISO) when given, else the run's. ArtifactStage::commit adds -2, -3... when it is taken.
std::filesystem::path artifact_dir(const ProfileRun& run, const std::string& root, const std::string& exact,
                                   const std::string& timestamp = "");

// Filesystem-safe form of a name ("my kernel/v2" → "my_kernel_v2").
std::string safe_name(const std::string& s);

// A file an artifact carries besides what write_artifact renders: its content, or a file copied as it is (`from`
// not empty: a raw input, copied by the kernel and never read into memory whole; a 200 MB ncu page read whole
// again only to be written back cost a third of `kprof analyze`).
struct ExtraFile {
  std::string content;
  std::filesystem::path from;
  ExtraFile() = default;
  ExtraFile(std::string text) : content(std::move(text)) {}  // NOLINT: a rendered file is its text
  ExtraFile(const char* text) : content(text) {}             // NOLINT
  static ExtraFile copy_of(std::filesystem::path file) {
    ExtraFile f;
    f.from = std::move(file);
    return f;
  }
  // The file's bytes: its content, or `from` read (tests and small files).
  std::string text() const;
};
using ExtraFiles = std::map<std::string, ExtraFile>;  // relative path → file

struct Contract;  // outputs.hpp

// Writes the extra files (written, or copied from their `from`), then the outputs rendered from the run alone
// (outputs.hpp: params.json, profile.json, contract.md, contract.json, report.md, roofline.svg, report-verbose.md
// when the run has NCU sections). `baseline`, when given, also puts its kernels on the roofline chart, joined to
// the current ones. `contract`: the contract rendered already (publish() returns the same text), with the Markdown
// contract.md and report.md end with; rendered here, without any, when null.
void write_artifact(const std::filesystem::path& dir, const ProfileRun& run, const Comparison* vs_baseline,
                    const ExtraFiles& extra_files = {}, const ProfileRun* baseline = nullptr,
                    const Contract* contract = nullptr);

// Reads a run back from an artifact directory or a profile.json path. A partial directory (a run that is still
// writing, was interrupted or crashed) is refused with exit 3, and so is an incomplete one (no report.md).
ProfileRun load_artifact(const std::filesystem::path& dir_or_file);

// The files of an artifact that kprof does not derive (raw collector output, imported inputs, a package's tiling/,
// timings and logs), as copies of the files: what a re-analysis carries into the new artifact, so that
// replacing an artifact in place (--out DIR --replace) loses nothing but the outputs it writes again.
// The mode outputs (timeline, CSVs, trace.json, source pages) are included: written again over these when the
// re-analysis has their raw input, kept when it has not.
ExtraFiles source_files(const std::filesystem::path& dir);

// Throws Error(kExitBadInput) when `dir` is a partial or incomplete artifact, naming what it is.
void check_complete_artifact(const std::filesystem::path& dir);

// An artifact is all-or-nothing: it is written into a hidden staging directory beside its final place
// (".<name>.partial-<pid>", holding the marker file kPartialMarker) and renamed into place when complete, under
// a name no other run has taken (<stamp>, <stamp>-2, ...; renameat2 RENAME_NOREPLACE). `--out` into an existing
// artifact is refused unless `replace`; replacing swaps the old directory out whole. An interrupted run keeps
// what it measured as <name>.interrupted, the marker still in it; a failed one leaves nothing.
inline constexpr char kPartialMarker[] = ".kprof-partial";

class ArtifactStage {
 public:
  // `final_dir`: where the artifact goes; `exact`: it was named by --out (no other name is taken).
  // Refuses (exit 2) an existing non-empty --out directory unless `replace`, and anything but a kprof artifact even
  // then. Creates the staging directory (exit 9 when it cannot).
  ArtifactStage(std::filesystem::path final_dir, bool exact, bool replace);
  ~ArtifactStage();  // removes the staging directory unless committed or kept
  ArtifactStage(const ArtifactStage&) = delete;
  ArtifactStage& operator=(const ArtifactStage&) = delete;

  const std::filesystem::path& dir() const { return staging_; }          // write here
  const std::filesystem::path& final_dir() const { return final_; }      // the name asked for
  // Renames the staging directory into place; returns where it went.
  std::filesystem::path commit();
  // An interrupted run: the staging directory becomes <final>.interrupted (marker kept, saying why).
  std::filesystem::path keep_partial(const std::string& why);

 private:
  std::filesystem::path final_, staging_;
  bool exact_, replace_, done_ = false;
};

}  // namespace kprof::session
