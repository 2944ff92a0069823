#include "session/artifact.hpp"

#include <cctype>

#include "render/contract_markdown.hpp"
#include "render/json_output.hpp"
#include "render/report_markdown.hpp"
#include "render/roofline_chart.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out.empty() ? "unnamed" : out;
}

fs::path artifact_dir(const ProfileRun& run, const std::string& root, const std::string& exact) {
  if (!exact.empty()) return exact;
  std::string stamp = run.timestamp;  // ISO → 20261130-123456
  std::string compact;
  for (char c : stamp)
    if (std::isdigit(static_cast<unsigned char>(c))) compact += c;
  if (compact.size() >= 14) compact = compact.substr(0, 8) + "-" + compact.substr(8, 6);
  else compact = utc_timestamp_dir();
  std::string mode = run.mode.empty() ? "analyze" : run.mode;
  return fs::path(root) / safe_name(mode) / safe_name(run.kernel.empty() ? "unnamed" : run.kernel) /
         safe_name(run.params.dir_name()) / compact;
}

namespace {
bool has_sections(const ProfileRun& run) {
  for (const auto& s : run.stages)
    for (const auto& k : s.kernels)
      for (const auto& l : k.launches)
        if (!l.sections.empty() || !l.rules.empty()) return true;
  return false;
}
}  // namespace

void write_artifact(const fs::path& dir, const ProfileRun& run, const Comparison* vs_baseline,
                    const std::map<std::string, std::string>& extra_files, const ProfileRun* baseline,
                    const std::string& contract_extra) {
  fs::create_directories(dir);
  // Extra files (raw inputs, traces) first: if rendering fails later, what was measured is already on disk.
  for (const auto& [name, content] : extra_files) write_file_atomic(dir / name, content);
  write_file_atomic(dir / "params.json", json(run.params).dump(2) + "\n");
  write_file_atomic(dir / "profile.json", json(run).dump(1) + "\n");
  write_file_atomic(dir / "contract.md", render::render_contract(run, vs_baseline) + contract_extra);
  write_file_atomic(dir / "contract.json", render::render_contract_json(run, vs_baseline));
  auto chart = render::roofline_chart_for(run, baseline);
  if (!chart.points.empty()) write_file_atomic(dir / "roofline.svg", render::render_roofline_svg(chart));
  write_file_atomic(dir / "report.md", render::render_report(run, vs_baseline) + contract_extra);
  if (has_sections(run)) write_file_atomic(dir / "report-verbose.md", render::render_report_verbose(run, vs_baseline));
}

ProfileRun load_artifact(const fs::path& dir_or_file) {
  fs::path p = fs::is_directory(dir_or_file) ? dir_or_file / "profile.json" : dir_or_file;
  if (!fs::exists(p)) throw Error(p.string() + ": not a kprof artifact (no profile.json)", kExitBadInput);
  std::string text = read_file(p);
  try {
    auto j = json::parse(text);
    auto schema = j.value("schema", std::string());
    if (schema.rfind("kprof.profile/", 0) != 0)
      throw ParseError(p.string(), 0, "not a kprof profile (schema '" + schema + "')");
    return j.get<ProfileRun>();
  } catch (const json::exception& e) {
    throw ParseError(p.string(), 0, std::string("malformed profile.json: ") + e.what());
  }
}

}  // namespace kprof::session
