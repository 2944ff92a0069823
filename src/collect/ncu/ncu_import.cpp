#include "collect/ncu/ncu_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/details_page.hpp"
#include "collect/ncu/raw_page.hpp"
#include "collect/ncu/session_page.hpp"
#include "collect/ncu/source_page.hpp"
#include "collect/ncu/units.hpp"
#include "collect/stage_grouping.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::ncu {

const char* to_string(PageKind k) {
  switch (k) {
    case PageKind::raw: return "raw";
    case PageKind::details: return "details";
    case PageKind::source: return "source";
    case PageKind::session: return "session";
    default: return "unknown";
  }
}

namespace {

PageKind detect(const std::vector<std::string>& f) {
  auto has = [&](const char* name) { return std::find(f.begin(), f.end(), name) != f.end(); };
  if (!f.empty() && (f[0] == "File Path" || f[0] == "Function Name" || f[0] == "Kernel Name")) return PageKind::source;
  if (!f.empty() && (f[0] == "Line No" || f[0] == "Address")) return PageKind::source;
  if (is_session_header(f)) return PageKind::session;
  if (has("ID") && has("Kernel Name")) return has("Metric Name") ? PageKind::details : PageKind::raw;
  return PageKind::unknown;
}

std::string basename(const std::string& p) {
  auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// Adds what `from` knows and `into` does not: metrics by name, sections/rules when `into` has none.
void merge_launch(KernelLaunch& into, KernelLaunch&& from) {
  for (auto& [name, v] : from.metrics) into.metrics.try_emplace(name, std::move(v));
  if (into.sections.empty()) into.sections = std::move(from.sections);
  if (into.rules.empty()) into.rules = std::move(from.rules);
  if (into.nvtx_stack.empty()) { into.nvtx_stack = from.nvtx_stack; into.nvtx_range = from.nvtx_range; }
  if (into.launch.grid[0] == 0) into.launch.grid = from.launch.grid;
  if (into.launch.block[0] == 0) into.launch.block = from.launch.block;
}

constexpr std::size_t kKeptMessages = 100;  // profiler messages kept per file

std::optional<double> metric_of(const std::vector<KernelLaunch>& ls, const char* name) {
  for (const auto& l : ls) {
    auto it = l.metrics.find(name);
    if (it != l.metrics.end() && it->second.numeric) return it->second.value;
  }
  return std::nullopt;
}

std::string text_metric_of(const std::vector<KernelLaunch>& ls, const char* name) {
  for (const auto& l : ls) {
    auto it = l.metrics.find(name);
    if (it != l.metrics.end() && !it->second.text.empty()) return it->second.text;
  }
  return "";
}

}  // namespace

NcuImport import_ncu(const std::vector<std::string>& paths) {
  NcuImport result;
  ProfileRun& run = result.run;
  run.mode = Mode::Import;
  run.timestamp = utc_timestamp();
  run.sources = paths;

  std::vector<KernelLaunch> launches;
  std::vector<CompactMetrics> compact;  // parallel to launches: raw-page metrics not yet in KernelLaunch::metrics
  std::map<std::pair<long, int>, std::size_t> by_pid_id;  // (process id, launch id) → index
  std::vector<std::uint64_t> raw_digest;  // parallel to launches: the raw page row's hash (0: not from a raw page)
  std::vector<std::size_t> file_of;       // parallel to launches: index into paths
  std::size_t repeated = 0;               // launches on the raw pages of two files with the very same row
  std::string repeated_in;
  std::set<long> pids;
  std::vector<std::pair<std::string, std::set<long>>> pids_of_page;  // each launch page's file and processes
  std::string process_name, cc_column;
  std::vector<std::string> profiler_errors;
  std::optional<SessionInfo> session;

  for (const auto& path : paths) {
    // The file is read item by item: a raw page goes straight into a RawPageReader that keeps launch metrics
    // compact (a page of any size in bounded memory); other pages are small and parsed once read.
    CsvStream stream;
    stream.file = path;
    std::optional<RawPageReader> raw;
    bool have_record = false;
    PageKind kind = PageKind::unknown;
    long first_line = 0;
    std::vector<std::string> file_profiler_errors;
    std::size_t file_messages = 0, text_lines = 0;
    stream_csv_file(
        path,
        [&](StreamItem& it) {
          if (it.kind == ItemKind::profiler) {
            // The profiler's own lines, the first kKeptMessages of each kind (an endless stream of them must not
            // grow memory for ever); how many more there were is said once.
            const bool error = it.text.rfind("==ERROR==", 0) == 0;
            if (error && file_profiler_errors.size() < kKeptMessages) file_profiler_errors.push_back(it.text);
            if (it.text.rfind("==PROF==", 0) != 0 && ++file_messages <= kKeptMessages)
              run.warnings.push_back({WarningCode::Ncu, fmt::format("{}: {}", basename(path), it.text)});
          }
          // Text before the table is kept only as far as a page reads it (the program's output is not analysed).
          if (it.kind == ItemKind::text && !have_record && ++text_lines > LaunchPage::kKeptOutputLines) return;
          if (it.kind == ItemKind::record && !have_record) {
            have_record = true;
            kind = detect(it.fields);
            first_line = it.line;
            if (kind == PageKind::raw) {
              raw.emplace(path, /*compact=*/true);
              for (auto& earlier : stream.items) raw->add(earlier);
              stream.items.clear();
            }
          }
          if (raw) raw->add(it);
          else stream.items.push_back(std::move(it));
        },
        &stream.recovered_lines);
    if (file_messages > kKeptMessages)
      run.warnings.push_back({WarningCode::Ncu, fmt::format("{}: {} more messages from the profiler, not shown",
                                                            basename(path), file_messages - kKeptMessages)});
    for (auto& e : file_profiler_errors) profiler_errors.push_back(std::move(e));
    if (!have_record) {
      if (!file_profiler_errors.empty()) continue;  // reported below, with the profiler's own words
      throw ParseError(path, 0, "no Nsight Compute CSV table in this file (was ncu run with --csv?)");
    }
    switch (kind) {
      case PageKind::raw:
      case PageKind::details: {
        LaunchPage page = kind == PageKind::raw ? raw->finish() : parse_details_page(stream);
        std::vector<CompactMetrics> page_compact;
        if (kind == PageKind::raw) page_compact = raw->take_compact();
        page_compact.resize(page.launches.size());
        for (auto& w : page.warnings) run.warnings.push_back({WarningCode::Implausible, std::move(w)});
        {
          // Pages of one run share their processes. A page whose processes none of the earlier pages has comes from
          // another run (the raw page of program A beside the details of program B): merging them would mix two
          // processes' launches as if they were one run's.
          std::set<long> mine;
          for (const auto& c : page.contexts)
            if (c.pid >= 0) mine.insert(c.pid);  // a page without the column says nothing about its process
          for (const auto& page_pids : pids_of_page) {
            const std::string& other = page_pids.first;
            const std::set<long>& theirs = page_pids.second;  // (not a structured binding: clang 14 cannot capture one)
            const bool shared = std::any_of(mine.begin(), mine.end(), [&](long p) { return theirs.count(p) > 0; });
            if (!shared && !mine.empty() && !theirs.empty())
              throw ParseError(path, 0,
                               fmt::format("its launches come from process{} {}, those of {} from {}: the pages come "
                                           "from different runs; analyse each run's pages together",
                                           mine.size() == 1 ? "" : "es", fmt::join(mine, ", "), other,
                                           fmt::join(theirs, ", ")));
          }
          pids_of_page.emplace_back(path, std::move(mine));
        }
        for (std::size_t i = 0; i < page.launches.size(); ++i) {
          const LaunchContext& ctx = page.contexts[i];
          if (process_name.empty()) process_name = basename(ctx.process_name);
          if (cc_column.empty()) cc_column = ctx.compute_capability;
          pids.insert(ctx.pid);
          auto key = std::make_pair(ctx.pid, page.launches[i].id);
          auto found = by_pid_id.find(key);
          const std::uint64_t digest = kind == PageKind::raw ? ctx.row_digest : 0;
          if (found == by_pid_id.end()) {
            by_pid_id.emplace(key, launches.size());
            launches.push_back(std::move(page.launches[i]));
            compact.push_back(std::move(page_compact[i]));
            raw_digest.push_back(digest);
            file_of.push_back(static_cast<std::size_t>(&path - paths.data()));
          } else if (digest != 0 && raw_digest[found->second] != 0) {
            // The launch on the raw pages of two files: the same row is the same export given twice (kept once);
            // another row means two runs whose launch IDs coincide, which must not be merged.
            if (raw_digest[found->second] != digest)
              throw ParseError(path, ctx.line,
                               fmt::format("launch ID {} of process {} is also on the raw page of {} with other "
                                           "values: the two exports come from different runs; analyse each on its "
                                           "own",
                                           key.second, key.first, paths[file_of[found->second]]));
            if (repeated++ == 0) repeated_in = fmt::format("{} repeats {}", path, paths[file_of[found->second]]);
          } else if (launches[found->second].name != page.launches[i].name) {
            throw ParseError(path, 0, fmt::format("launch ID {} is \"{}\" here but \"{}\" in an earlier file: these "
                                                  "pages come from different runs",
                                                  key.second, page.launches[i].name, launches[found->second].name));
          } else {
            // A launch seen on two pages: both sides complete before merging, so the earlier page's values win.
            KernelLaunch& into = launches[found->second];
            compact[found->second].expand_into(into.metrics);
            compact[found->second] = CompactMetrics{};
            page_compact[i].expand_into(page.launches[i].metrics);
            merge_launch(into, std::move(page.launches[i]));
          }
        }
        break;
      }
      case PageKind::source: {
        SourceView v = parse_source_page(stream);
        for (auto& k : v.kernels) result.source.kernels.push_back(std::move(k));
        break;
      }
      case PageKind::session: session = parse_session_page(stream); break;
      case PageKind::unknown:
        throw ParseError(path, first_line,
                         "not an Nsight Compute CSV page: its first row has none of the expected columns "
                         "(\"ID\" + \"Kernel Name\" for raw/details pages, \"File Path\"/\"Kernel Name\" for the "
                         "source page, \"Launch Attribute\"/\"Session Attribute\" for the session page)");
    }
  }

  if (launches.empty() && !profiler_errors.empty()) {
    std::string msg = fmt::format("Nsight Compute reported an error and no kernel was profiled:\n  {}",
                                  fmt::join(profiler_errors, "\n  "));
    bool perm = false;
    for (const auto& e : profiler_errors) perm = perm || e.find("ERR_NVGPUCTRPERM") != std::string::npos;
    if (perm)
      msg += "\nGPU performance counters are restricted to admin users: run as root, or load the driver with "
             "NVreg_RestrictProfilingToAdminUsers=0 (containers also need --cap-add=SYS_ADMIN).";
    throw Error(msg, perm ? kExitNoPermission : kExitBadInput);
  }
  if (repeated > 0)
    run.warnings.push_back({WarningCode::Ncu, fmt::format("{}: {} launch{} given twice, kept once", repeated_in,
                                                          repeated, repeated == 1 ? "" : "es")});
  if (pids.size() > 1)
    run.warnings.push_back({WarningCode::Ncu, fmt::format("launches come from {} processes; launches are merged by "
                                                          "ID only within one process",
                                                          pids.size())});

  for (auto& k : launches) fill_launch_fields_from_metrics(k);
  {
    std::vector<std::size_t> order(launches.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return launches[a].id < launches[b].id; });
    std::vector<KernelLaunch> sorted;
    std::vector<CompactMetrics> sorted_compact;
    sorted.reserve(launches.size());
    sorted_compact.reserve(launches.size());
    for (std::size_t i : order) {
      sorted.push_back(std::move(launches[i]));
      sorted_compact.push_back(std::move(compact[i]));
    }
    launches = std::move(sorted);
    compact = std::move(sorted_compact);
  }

  DeviceInfo& dev = run.device;
  if (session) {
    dev.name = session->device_name;
    dev.compute_capability = session->compute_capability;
    dev.sm_count = session->sm_count;
    run.command = session->profiler_command_line;
    if (process_name.empty() && !session->process_names.empty()) process_name = basename(session->process_names[0]);
  }
  if (dev.name.empty()) dev.name = text_metric_of(launches, "device__attribute_display_name");
  if (dev.compute_capability.empty()) {
    auto major = metric_of(launches, "device__attribute_compute_capability_major");
    auto minor = metric_of(launches, "device__attribute_compute_capability_minor");
    if (major) dev.compute_capability = fmt::format("{}.{}", *major, minor ? *minor : 0);
    else dev.compute_capability = cc_column;
  }
  if (dev.sm_count == 0) {
    auto n = metric_of(launches, "device__attribute_multiprocessor_count");
    if (!n) n = metric_of(launches, "launch__sm_count");
    if (n && *n >= 0 && *n < 1e6) dev.sm_count = static_cast<int>(*n);
  }
  // CUDA reports these device attributes in kHz.
  if (auto khz = metric_of(launches, "device__attribute_clock_rate")) dev.sm_clock_mhz = *khz / 1e3;
  if (auto khz = metric_of(launches, "device__attribute_memory_clock_rate")) dev.memory_clock_mhz = *khz / 1e3;

  run.kernel = process_name;
  // Only the launches the groups keep get their full metrics.
  run.stages = group_into_stages(std::move(launches), [&](std::size_t i, KernelLaunch& l) {
    compact[i].expand_into(l.metrics);
  });
  return result;
}

ProfileRun import_ncu_files(const std::vector<std::string>& paths) { return import_ncu(paths).run; }

}  // namespace kprof::ncu
