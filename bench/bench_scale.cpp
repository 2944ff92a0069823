// CPU scale benchmark: analysing large traces and large ncu CSV exports.
//   trace: N kernel launches on 4 streams with one runtime-API record each, written in the tracer's binary format,
//          then read + attributed + analysed (timeline, event stats, stage grouping) as `kprof run` does.
//   ncu:   a raw-page CSV of N launches (data rows of the real H200 export repeated with new IDs), imported.
// Each size runs in a fresh child process so its peak RSS is its own. Times are reported as ratios against the
// smallest size of the same call (the anchor): linear growth shows as ratio ≈ size ratio.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/event_stats.hpp"
#include "analyze/timeline.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/trace_writer.hpp"
#include "util/fs.hpp"

using namespace kprof;
using namespace kprof::analyze;
using namespace kprof::trace_format;
using Clock = std::chrono::steady_clock;

namespace {

std::string make_trace(std::size_t n) {
  TraceBuffer b;
  const std::uint64_t t0 = 1'000'000'000'000ull;
  auto names = std::vector<StringRef>{b.intern("_Z4gemmPfS_i"), b.intern("_Z7softmaxPf"), b.intern("_Z4copyPfS_"),
                                      b.intern("_Z6reducePf")};
  auto launch = b.intern("cudaLaunchKernel");
  std::uint64_t host = t0;
  std::uint64_t stream_free[4] = {t0, t0, t0, t0};
  for (std::size_t i = 0; i < n; ++i) {
    RawApi api{};
    api.start = host;
    api.end = host + 2000;
    api.cbid = 211;
    api.process = 1;
    api.thread = 1;
    api.correlation = static_cast<std::uint32_t>(i + 1);
    api.name = launch;
    b.api_calls.push(api);
    host += 2500;
    int s = static_cast<int>(i % 4);
    RawKernel k{};
    k.start = std::max(stream_free[s], api.end + 3000);
    k.end = k.start + 5000 + (i % 7) * 100;
    stream_free[s] = k.end;
    k.stream = 13 + s;
    k.correlation = api.correlation;
    k.name = names[i % 4];
    k.grid[0] = 132, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
    b.kernels.push(k);
  }
  TraceFileInfo info;
  info.pid = 1;
  info.process_name = "bench";
  info.flags = kFlagApiTraced;
  return b.serialize(info);
}

std::string make_ncu_csv(const std::string& fixture, std::size_t n) {
  std::ifstream in(fixture);
  std::string header, units, line;
  std::getline(in, header);
  std::getline(in, units);
  std::vector<std::string> rows;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '"') rows.push_back(line);
  std::ostringstream out;
  out << header << "\n" << units << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& r = rows[i % rows.size()];
    auto comma = r.find("\",");  // replace the ID cell ("5") with a fresh one
    out << "\"" << i << r.substr(comma) << "\n";
  }
  return out.str();
}

// The input is written by the parent before the child starts, so the child's peak RSS is the analysis alone.
double run_trace(const std::string& path) {
  auto t = Clock::now();
  Trace tr = read_trace(path);
  auto tl = analyze_timeline(tr);
  auto st = compute_event_stats(tr);
  auto stages = group_into_stages(kernel_launches(tr));
  double s = std::chrono::duration<double>(Clock::now() - t).count();
  if (stages.empty() || tl.overlap.busy_ns <= 0 || st.kernels.size() != 4) std::fprintf(stderr, "unexpected result\n");
  return s;
}

double run_ncu(std::size_t n, const std::string& path) {
  auto t = Clock::now();
  ProfileRun run = ncu::import_ncu_files({path});
  double s = std::chrono::duration<double>(Clock::now() - t).count();
  std::size_t launches = 0;
  for (const auto& st : run.stages)
    for (const auto& g : st.kernels) launches += g.duration_ns.count;
  if (launches != n) std::fprintf(stderr, "imported %zu launches, expected %zu\n", launches, n);
  return s;
}

// Runs f in a child; returns {seconds, peak RSS MiB of the child}.
template <class F>
std::pair<double, double> in_child(F f) {
  int fd[2];
  if (pipe(fd) != 0) return {-1, -1};
  pid_t pid = fork();
  if (pid == 0) {
    double s = f();
    struct rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    double mib = ru.ru_maxrss / 1024.0;
    double out[2] = {s, mib};
    if (write(fd[1], out, sizeof out) != sizeof out) _exit(1);
    _exit(0);
  }
  double out[2] = {-1, -1};
  if (read(fd[0], out, sizeof out) != sizeof out) out[0] = -1;
  waitpid(pid, nullptr, 0);
  close(fd[0]);
  close(fd[1]);
  return {out[0], out[1]};
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string fixture = argc > 1 ? argv[1] : std::string(KPROF_SOURCE_DIR) + "/tests/fixtures/h200-probe/full_raw.csv";
  std::printf("| workload | records | seconds | ratio to anchor | size ratio | peak RSS (MiB) |\n|---|---|---|---|---|---|\n");
  double anchor = 0;
  std::size_t anchor_n = 0;
  for (std::size_t n : {125000ul, 250000ul, 500000ul, 1000000ul}) {
    std::string path = dir + "/bench_" + std::to_string(n) + ".kptrace";
    write_file_atomic(path, make_trace(n));
    auto [s, mib] = in_child([&] { return run_trace(path); });
    std::filesystem::remove(path);
    if (!anchor_n) anchor = s, anchor_n = n;
    std::printf("| trace analysis | %zu | %.3f | %.2f | %.2f | %.0f |\n", n, s, s / anchor, double(n) / anchor_n, mib);
    std::fflush(stdout);
  }
  anchor_n = 0;
  for (std::size_t n : {125ul, 250ul, 500ul, 1000ul}) {
    std::string path = dir + "/bench_" + std::to_string(n) + ".csv";
    write_file_atomic(path, make_ncu_csv(fixture, n));
    auto [s, mib] = in_child([&] { return run_ncu(n, path); });
    std::filesystem::remove(path);
    if (!anchor_n) anchor = s, anchor_n = n;
    std::printf("| ncu raw CSV import (full set, 2240 columns) | %zu | %.3f | %.2f | %.2f | %.0f |\n", n, s, s / anchor,
                double(n) / anchor_n, mib);
    std::fflush(stdout);
  }
  return 0;
}
