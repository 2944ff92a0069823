#include "analyze/timeline.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace kprof::analyze {

namespace {

// One interval endpoint. Ends sort before starts at the same instant, so back-to-back work is not "overlap".
struct Edge {
  std::int64_t t;
  std::int8_t delta;    // +1 start, -1 end
  std::uint8_t is_copy;
  bool operator<(const Edge& o) const { return t != o.t ? t < o.t : delta < o.delta; }
};

struct Interval {
  std::int64_t start, end;
};

double union_length(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  double total = 0;
  std::int64_t cur_s = 0, cur_e = -1;
  bool open = false;
  for (const auto& i : v) {
    if (!open || i.start > cur_e) {
      if (open) total += static_cast<double>(cur_e - cur_s);
      cur_s = i.start, cur_e = i.end, open = true;
    } else {
      cur_e = std::max(cur_e, i.end);
    }
  }
  if (open) total += static_cast<double>(cur_e - cur_s);
  return total;
}

OverlapSummary sweep(const Trace& trace, const TimelineOptions& options, TimelineSummary& out) {
  std::vector<Edge> edges;
  edges.reserve(2 * trace.gpu_activity_count());
  auto add = [&](std::int64_t s, std::int64_t e, bool copy) {
    if (e < s) return;
    edges.push_back({s, +1, static_cast<std::uint8_t>(copy)});
    edges.push_back({e, -1, static_cast<std::uint8_t>(copy)});
  };
  for (const auto& k : trace.kernels) add(k.start_ns, k.end_ns, false);
  for (const auto& m : trace.memcpys) add(m.start_ns, m.end_ns, true);
  for (const auto& m : trace.memsets) add(m.start_ns, m.end_ns, true);
  OverlapSummary o;
  if (edges.empty()) return o;
  std::sort(edges.begin(), edges.end());
  o.span_ns = static_cast<double>(edges.back().t - edges.front().t);
  int kernels = 0, copies = 0;
  double weighted = 0;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    (e.is_copy ? copies : kernels) += e.delta;
    o.max_concurrency = std::max(o.max_concurrency, kernels + copies);
    bool last_at_t = i + 1 == edges.size() || edges[i + 1].t != e.t;
    if (last_at_t && options.max_steps) {
      if (out.steps.size() < options.max_steps) out.steps.push_back({e.t, kernels, copies});
      else out.steps_truncated = true;
    }
    if (i + 1 == edges.size()) break;
    double dt = static_cast<double>(edges[i + 1].t - e.t);
    if (dt <= 0) continue;
    int running = kernels + copies;
    if (running >= 1) o.busy_ns += dt, weighted += dt * running;
    if (running >= 2) o.overlap_ns += dt;
    if (kernels >= 2) o.kernel_kernel_ns += dt;
    if (kernels >= 1 && copies >= 1) o.copy_kernel_ns += dt;
  }
  o.idle_ns = o.span_ns - o.busy_ns;
  if (o.busy_ns > 0) {
    o.overlap_pct = 100.0 * o.overlap_ns / o.busy_ns;
    o.kernel_kernel_pct = 100.0 * o.kernel_kernel_ns / o.busy_ns;
    o.copy_kernel_pct = 100.0 * o.copy_kernel_ns / o.busy_ns;
    o.mean_concurrency = weighted / o.busy_ns;
  }
  return o;
}

}  // namespace

TimelineSummary analyze_timeline(const Trace& trace, const TimelineOptions& options) {
  TimelineSummary out;
  out.overlap = sweep(trace, options, out);

  // Per stream: intervals for the busy union, kernels (already sorted by start) for gaps.
  struct Acc {
    StreamTimeline st;
    std::vector<Interval> intervals;
    std::vector<double> gaps;
    std::int64_t last_kernel_end = -1;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Acc> streams;
  std::vector<double> all_gaps;
  all_gaps.reserve(trace.kernels.size());
  for (const auto& k : trace.kernels) {
    auto& a = streams[{k.device, k.stream}];
    ++a.st.kernels;
    a.intervals.push_back({k.start_ns, k.end_ns});
    if (a.last_kernel_end >= 0) {
      double gap = static_cast<double>(std::max<std::int64_t>(0, k.start_ns - a.last_kernel_end));
      a.gaps.push_back(gap);
      all_gaps.push_back(gap);
    }
    a.last_kernel_end = std::max(a.last_kernel_end, k.end_ns);
  }
  for (const auto& m : trace.memcpys) {
    auto& a = streams[{m.device, m.stream}];
    ++a.st.memcpys;
    a.intervals.push_back({m.start_ns, m.end_ns});
  }
  for (const auto& m : trace.memsets) {
    auto& a = streams[{m.device, m.stream}];
    ++a.st.memsets;
    a.intervals.push_back({m.start_ns, m.end_ns});
  }
  for (auto& [key, a] : streams) {
    a.st.device = key.first;
    a.st.stream = key.second;
    a.st.busy_ns = union_length(a.intervals);
    a.st.busy_pct = out.overlap.span_ns > 0 ? 100.0 * a.st.busy_ns / out.overlap.span_ns : 0;
    a.st.kernel_gap_ns = SampleStats::of(std::move(a.gaps));
    out.streams.push_back(std::move(a.st));
  }
  out.kernel_gap_ns = SampleStats::of(std::move(all_gaps));

  // Host launch overhead through correlation ids.
  const auto api_by_corr = api_calls_by_correlation(trace);
  std::vector<double> to_start, api_dur;
  for (const auto& k : trace.kernels) {
    if (k.graph_id) {
      ++out.launch.graph_kernels;
      continue;
    }
    auto it = k.correlation ? api_by_corr.find(k.correlation) : api_by_corr.end();
    if (it == api_by_corr.end()) continue;
    const auto& api = trace.api_calls[it->second];
    to_start.push_back(static_cast<double>(k.start_ns - api.start_ns));
    api_dur.push_back(static_cast<double>(api.end_ns - api.start_ns));
  }
  out.launch.matched = to_start.size();
  out.launch.api_to_start_ns = SampleStats::of(std::move(to_start));
  out.launch.api_duration_ns = SampleStats::of(std::move(api_dur));

  if (options.keep_launch_order) {
    out.launch_order.resize(trace.kernels.size());
    std::iota(out.launch_order.begin(), out.launch_order.end(), 0u);  // Trace::kernels is sorted by start
  }
  return out;
}

}  // namespace kprof::analyze
