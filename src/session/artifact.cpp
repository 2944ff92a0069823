#include "session/artifact.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <set>
#include <vector>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include "analyze/compare.hpp"
#include "collect/stage_grouping.hpp"
#include "session/outputs.hpp"
#include "util/errors.hpp"
#include "util/hash.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  if (out.empty()) return "unnamed";
  // A file name holds at most 255 bytes, and kprof adds to this one (".md", "_sass.csv", a staging prefix): a longer
  // name keeps its head and ends in a hash of the whole, so two long names that share the head stay apart and the
  // same name always maps to the same file.
  constexpr std::size_t kMax = 200;
  if (out.size() > kMax) {
    out = fmt::format("{}-{:016x}", out.substr(0, kMax - 17), fnv1a(s));
  }
  return out;
}

fs::path artifact_dir(const ProfileRun& run, const std::string& root, const std::string& exact,
                      const std::string& timestamp) {
  if (!exact.empty()) return exact;
  std::string stamp = timestamp.empty() ? run.timestamp : timestamp;  // ISO → 20261130-123456
  std::string compact;
  for (char c : stamp)
    if (std::isdigit(static_cast<unsigned char>(c))) compact += c;
  if (compact.size() >= 14) compact = compact.substr(0, 8) + "-" + compact.substr(8, 6);
  else compact = utc_timestamp_dir();
    return fs::path(root) / std::string(mode_name(run.mode)) / safe_name(run.kernel.empty() ? "unnamed" : run.kernel) /
         safe_name(run.params.dir_name()) / compact;
}

namespace {

// rename(2) that never replaces: false when `to` is taken (EEXIST/ENOTEMPTY), CannotWrite on any other failure.
bool rename_noreplace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  int err = errno;
  if (err == EEXIST || err == ENOTEMPTY) return false;
  if (err == EINVAL || err == ENOSYS) {  // a file system without RENAME_NOREPLACE: check, then rename
    std::error_code ec;
    if (fs::exists(to, ec)) return false;
    if (::rename(from.c_str(), to.c_str()) == 0) return true;
    err = errno;
  }
  throw CannotWrite(to, std::strerror(err));
}

// Renames `from` to `base`, else `base`-2, -3, ... (`suffix` after the number): the first name not taken.
fs::path rename_unique(const fs::path& from, const fs::path& base, const std::string& suffix) {
  for (int n = 1; n < 10000; ++n) {
    fs::path cand = base;
    if (n > 1) cand += "-" + std::to_string(n);
    cand += suffix;
    if (rename_noreplace(from, cand)) return cand;
  }
  throw CannotWrite(base, "10000 artifacts with this name already exist");
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) throw CannotWrite(to, std::strerror(errno));
}

// Staging directories (".NAME.partial-<pid>-<n>", marked) in `parent` whose process is gone (killed, crashed: no
// destructor ran) are removed. A live process's, or anything unmarked, stays.
void remove_stale_stages(const fs::path& parent) {
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    const auto at = n.rfind(".partial-");
    if (n.empty() || n[0] != '.' || at == std::string::npos) continue;
    const std::string rest = n.substr(at + 9);  // "<pid>-<n>"
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.find_first_not_of("0123456789-") != std::string::npos) continue;
    long pid = 0;
    try {
      pid = std::stol(rest.substr(0, dash));
    } catch (...) {
      continue;
    }
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
    std::error_code e2;
    if (it->is_symlink(e2) || !it->is_directory(e2) || !fs::exists(it->path() / kPartialMarker, e2)) continue;
    fs::remove_all(it->path(), e2);
  }
}

fs::path without_trailing_slash(fs::path p) {
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

}  // namespace

ArtifactStage::ArtifactStage(fs::path final_dir, bool exact, bool replace)
    : final_(without_trailing_slash(std::move(final_dir))), exact_(exact), replace_(replace) {
  std::error_code ec;
  if (exact_ && fs::exists(final_, ec)) {
    if (!fs::is_directory(final_, ec)) throw CannotWrite(final_, "it exists and is not a directory");
    if (!fs::is_empty(final_, ec)) {
      if (!fs::exists(final_ / "profile.json", ec) && !fs::exists(final_ / kPartialMarker, ec))
        throw Error("--out " + final_.string() + ": the directory exists and is not a kprof artifact (no "
                    "profile.json); choose an empty or new directory", kExitUsage);
      if (!replace_)
        throw Error("--out " + final_.string() + ": an artifact is already there; add --replace to replace it",
                    kExitUsage);
    }
  }
  fs::path parent = final_.has_parent_path() ? final_.parent_path() : fs::path(".");
  ensure_dir(parent);
  remove_stale_stages(parent);
  static int serial = 0;  // two stages of one process (the C++ API) never share a name
  staging_ = parent / ("." + final_.filename().string() + ".partial-" + std::to_string(::getpid()) + "-" +
                       std::to_string(++serial));
  fs::remove_all(staging_, ec);
  ensure_dir(staging_);
  write_file_atomic(staging_ / kPartialMarker, "kprof: partial artifact (pid " + std::to_string(::getpid()) +
                                                   ", started " + utc_timestamp() + "), to become " +
                                                   final_.string() + " when complete\n");
}

ArtifactStage::~ArtifactStage() {
  if (done_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

fs::path ArtifactStage::commit() {
  std::error_code ec;
  fs::remove(staging_ / kPartialMarker, ec);
  done_ = true;
  try {
    if (!exact_) return final_ = rename_unique(staging_, final_, "");
    // An empty --out directory (made by the user) is taken; anything else in the way was checked when the stage
    // was made, and another run may have committed there since: never replaced without --replace.
    if (fs::is_directory(final_, ec) && fs::is_empty(final_, ec)) fs::remove(final_, ec);
    if (rename_noreplace(staging_, final_)) return final_;
    if (!replace_)
      throw Error("--out " + final_.string() + ": another run wrote an artifact there while this one ran; add "
                  "--replace to replace it",
                  kExitUsage);
    // --replace: one renameat2(RENAME_EXCHANGE) swaps the new artifact in and the old one out (the name is never
    // missing, and two replacing runs never interleave), then the old one, now at the staging name, is removed.
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(staging_, ec);
      return final_;
    }
    if (errno != EINVAL && errno != ENOSYS) throw CannotWrite(final_, std::strerror(errno));
    // A file system without RENAME_EXCHANGE: the old artifact is renamed away whole, then removed.
    fs::path old = final_.parent_path() / ("." + final_.filename().string() + ".old-" + std::to_string(::getpid()));
    fs::remove_all(old, ec);
    rename_or_throw(final_, old);
    rename_or_throw(staging_, final_);
    fs::remove_all(old, ec);
    return final_;
  } catch (...) {
    fs::remove_all(staging_, ec);
    throw;
  }
}

fs::path ArtifactStage::keep_partial(const std::string& why) {
  write_file_atomic(staging_ / kPartialMarker, "kprof: partial artifact: " + why + "\n");
  done_ = true;
  return rename_unique(staging_, final_, ".interrupted");
}

namespace {
// True when `name` (an ExtraFiles key) stays below the artifact: relative, and no ".." climbs out.
bool inside_artifact(const fs::path& name) {
  const fs::path n = name.lexically_normal();
  if (n.empty() || n.has_root_path() || n == ".") return false;
  for (const auto& part : n)
    if (part == "..") return false;
  return true;
}
}  // namespace

std::string ExtraFile::text() const { return from.empty() ? content : read_file(from); }

ExtraFiles source_files(const fs::path& dir) {
  // What write_artifact writes from profile.json every time: derived, so written again. The mode outputs (timeline,
  // CSVs, trace.json, timing.md, source pages) are carried too: a re-analysis writes them again over these when it
  // has their raw input (the trace, ncu's source page), and keeps the old ones when it has not (an artifact whose
  // trace was packed away), rather than losing them.
  static const std::set<std::string> derived = derived_outputs();
  // What is copied never leaves the artifact: a link (to a file or a folder, inside or out) is skipped, not followed,
  // and each name is the file's path below `dir` taken lexically (fs::relative resolved links: a link's target
  // outside named a copy "../../x", written outside the new artifact).
  ExtraFiles files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_symlink() || !e.is_regular_file()) continue;
    fs::path rel = e.path().lexically_relative(dir);
    if (!inside_artifact(rel)) continue;
    if (derived.count(rel.generic_string())) continue;
    files[rel.generic_string()] = ExtraFile::copy_of(e.path());
  }
  return files;
}

void check_complete_artifact(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / kPartialMarker, ec)) {
    std::string why = read_file(dir / kPartialMarker);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    throw Error(dir.string() + ": a partial artifact, not read (" + why + ")", kExitBadInput);
  }
  if (fs::exists(dir / "profile.json", ec) && !fs::exists(dir / "report.md", ec))
    throw Error(dir.string() + ": an incomplete artifact (profile.json but no report.md: the run that wrote it "
                               "stopped before the end), not read",
                kExitBadInput);
}

void write_artifact(const fs::path& dir, const ProfileRun& run, const Comparison* vs_baseline,
                    const ExtraFiles& extra_files, const ProfileRun* baseline, const Contract* contract) {
  ensure_dir(dir);
  // Extra files (raw inputs, traces) first: if rendering fails later, what was measured is already on disk.
  for (const auto& [name, file] : extra_files) {
    if (!inside_artifact(name))
      throw CannotWrite(dir / name, "the name climbs out of the artifact directory (refused)");
    if (file.from.empty()) write_file_atomic(dir / name, file.content);
    else copy_file_atomic(file.from, dir / name);
  }
  const Contract own = contract ? Contract{} : contract_for(run, vs_baseline);
  const OutputSources from{.run = run, .comparison = vs_baseline, .baseline = baseline,
                           .contract = contract ? contract : &own};
  for (const auto& row : output_rows()) {
    if (row.input != OutputInput::run) continue;
    ExtraFiles files;
    row.render(from, files);
    for (const auto& [name, file] : files) write_file_atomic(dir / name, file.content);
  }
}

namespace {
// The path of the value that does not read ("stages[0].kernels[0].launches[3].duration_ns"): nlohmann's type errors
// do not name it. Members and elements are dropped one at a time (they all have defaults) and the walk goes into the
// one whose absence lets the document read. Bounded: a huge profile gets "" rather than a long wait.
std::string bad_field(json doc) {
  int budget = 3000;
  auto reads = [&](const json& j) {
    --budget;
    try {
      (void)j.get<ProfileRun>();
      return true;
    } catch (const json::exception&) {
      return false;
    }
  };
  std::string path;
  json* node = &doc;
  for (bool descended = true; descended && budget > 0;) {
    descended = false;
    if (node->is_object()) {
      std::vector<std::string> keys;
      for (const auto& item : node->items()) keys.push_back(item.key());
      for (const auto& k : keys) {
        if (budget <= 0) break;
        json saved = std::move((*node)[k]);
        node->erase(k);
        bool ok = reads(doc);
        (*node)[k] = std::move(saved);
        if (ok) {
          path += (path.empty() ? "" : ".") + k;
          node = &(*node)[k];
          descended = true;
          break;
        }
      }
    } else if (node->is_array()) {
      for (std::size_t i = 0; i < node->size() && budget > 0; ++i) {
        json saved = (*node)[i];
        node->erase(i);
        bool ok = reads(doc);
        node->insert(node->begin() + static_cast<std::ptrdiff_t>(i), std::move(saved));
        if (ok) {
          path += "[" + std::to_string(i) + "]";
          node = &(*node)[i];
          descended = true;
          break;
        }
      }
    }
  }
  return path;
}
}  // namespace

namespace {
// "kprof.profile/N": N = 1 is what this kprof writes and reads. A larger N is a newer kprof's (its fields may mean
// something else); anything else ("/0", "/", "/1x", "/01") is not a kprof profile.
void check_profile_schema(const fs::path& p, const std::string& schema) {
  const std::string prefix = "kprof.profile/";
  const std::string written = ProfileRun{}.schema;
  if (schema == written) return;
  const std::string n = schema.rfind(prefix, 0) == 0 ? schema.substr(prefix.size()) : std::string();
  const bool number = !n.empty() && n.size() <= 9 && n[0] != '0' &&
                      n.find_first_not_of("0123456789") == std::string::npos;
  if (number && std::stol(n) > std::stol(written.substr(prefix.size())))
    throw ParseError(p.string(), 0, "written by a newer kprof (schema '" + schema + "'); this kprof reads '" +
                                        written + "': analyse it with the kprof that wrote it, or upgrade");
  throw ParseError(p.string(), 0, "not a kprof profile (schema '" + schema + "')");
}
}  // namespace

namespace {
// A group holding launches of several kernels (an artifact grouped by function name, before kprof kept
// instantiations apart) cannot be matched one to one with today's groups: said once, so that `compare` and a reader
// know why a stage appears on one side only.
void note_merged_groups(ProfileRun& run) {
  const std::vector<std::string> merged = analyze::merged_groups(run);
  if (merged.empty()) return;
  std::string text = fmt::format("this artifact was grouped by an older kprof, which merged instantiations of one "
                                 "template into one group: {}; re-analyse it from its raw files or profile it again "
                                 "to compare those groups one to one",
                                 fmt::join(merged, ", "));
  for (const auto& w : run.warnings)
    if (w.text == text) return;  // recorded by the re-analysis that wrote this profile.json
  run.warnings.push_back({WarningCode::Other, std::move(text)});
}
}  // namespace

ProfileRun load_artifact(const fs::path& dir_or_file) {
  const bool is_dir = fs::is_directory(input_status(dir_or_file));
  fs::path p = is_dir ? dir_or_file / "profile.json" : dir_or_file;
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  // Named by its profile.json, an artifact is held to the same test as when named by its folder: params.json is
  // the first file every artifact writes, so a folder with it and profile.json but no report.md is one whose run
  // stopped part-way. A lone profile.json elsewhere is read as it is.
  if (is_dir || fs::exists(input_status(dir / kPartialMarker)) ||
      (p.filename() == "profile.json" && fs::exists(input_status(dir / "params.json"))))
    check_complete_artifact(dir);
  if (!fs::exists(input_status(p))) throw Error(p.string() + ": not a kprof artifact (no profile.json)", kExitBadInput);
  std::string text = read_file(p);
  try {
    auto j = json::parse(text);
    const auto found = j.is_object() ? j.find("schema") : j.end();  // not value(): a non-string would throw
    const std::string schema = found != j.end() && found->is_string() ? found->get<std::string>() : std::string();
    check_profile_schema(p, schema);
    try {
      ProfileRun run = j.get<ProfileRun>();
      for (auto& s : run.stages) label_groups(s);  // today's labels, whichever kprof wrote the file
      note_merged_groups(run);
      return run;
    } catch (const json::exception& e) {
      std::string field = bad_field(j);
      throw ParseError(p.string(), 0, "malformed profile.json" + (field.empty() ? "" : " at field " + field) + ": " +
                                          e.what());
    }
  } catch (const json::exception& e) {  // not JSON: nlohmann's message gives line and column
    throw ParseError(p.string(), 0, std::string("malformed profile.json: ") + e.what());
  }
}

}  // namespace kprof::session
