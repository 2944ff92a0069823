#include "analyze/event_stats.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace kprof::analyze {

namespace {
std::string range_path(const Trace& t, int r) {
  std::string path;
  for (int p = t.nvtx[r].parent; p >= 0; p = t.nvtx[p].parent)
    path = t.str(t.nvtx[p].name) + (path.empty() ? "" : "/") + path;
  return path.empty() ? t.str(t.nvtx[r].name) : path + "/" + t.str(t.nvtx[r].name);
}
}  // namespace

EventStats compute_event_stats(const Trace& trace) {
  EventStats out;
  // Kernels, keyed by the interned name id (one hash per record, no string compares).
  std::unordered_map<StringId, std::pair<StringId, std::vector<double>>> durations;
  for (const auto& k : trace.kernels) {
    auto& slot = durations[k.name];
    slot.first = k.function;
    slot.second.push_back(static_cast<double>(k.duration_ns()));
  }
  for (auto& [id, fd] : durations) {
    auto& d = fd.second;
    KernelNameStats s;
    s.name = trace.str(id);
    s.function = trace.str(fd.first);
    for (double v : d) s.total_ns += v;
    s.duration_ns = SampleStats::of(std::move(d));
    out.kernels.push_back(std::move(s));
  }
  std::sort(out.kernels.begin(), out.kernels.end(), [](const auto& a, const auto& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });

  // NVTX: GPU span per range instance, propagated from each kernel's range to all its ancestors.
  const std::size_t n = trace.nvtx.size();
  std::vector<std::int64_t> first(n, std::numeric_limits<std::int64_t>::max()), last(n, -1);
  std::vector<std::size_t> count(n, 0);
  std::vector<double> busy(n, 0);
  for (const auto& k : trace.kernels)
    for (int r : nvtx_chain(trace, k)) {
      first[r] = std::min(first[r], k.start_ns);
      last[r] = std::max(last[r], k.end_ns);
      ++count[r];
      busy[r] += static_cast<double>(k.duration_ns());
    }
  struct Acc {
    std::vector<double> host, gpu;
    std::size_t kernels = 0;
    double kernel_time = 0;
  };
  std::vector<std::pair<std::string, std::string>> order;  // (path, name) in first-appearance order
  std::unordered_map<std::string, Acc> acc;
  for (std::size_t r = 0; r < n; ++r) {
    std::string path = trace.nvtx[r].push_pop ? range_path(trace, static_cast<int>(r)) : trace.str(trace.nvtx[r].name);
    auto [it, fresh] = acc.try_emplace(path);
    if (fresh) order.emplace_back(path, trace.str(trace.nvtx[r].name));
    it->second.host.push_back(static_cast<double>(trace.nvtx[r].end_ns - trace.nvtx[r].start_ns));
    if (last[r] >= 0) it->second.gpu.push_back(static_cast<double>(last[r] - first[r]));
    it->second.kernels += count[r];
    it->second.kernel_time += busy[r];
  }
  for (auto& [path, name] : order) {
    auto& a = acc[path];
    NvtxRangeStats s;
    s.name = name;
    s.path = path;
    s.host_span_ns = SampleStats::of(std::move(a.host));
    s.gpu_span_ns = SampleStats::of(std::move(a.gpu));
    s.kernels = a.kernels;
    s.kernel_time_ns = a.kernel_time;
    out.ranges.push_back(std::move(s));
  }
  return out;
}

}  // namespace kprof::analyze
