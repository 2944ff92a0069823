#include "collect/trace/nvtx_attribution.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace kprof {

NvtxIndex::NvtxIndex(const Trace& trace) : trace_(trace) {
  std::unordered_map<std::uint64_t, std::size_t> slot;
  for (int i = 0; i < static_cast<int>(trace.nvtx.size()); ++i) {
    const auto& r = trace.nvtx[i];
    if (!r.push_pop) continue;
    std::uint64_t key = (std::uint64_t{r.process} << 32) | r.thread;
    auto [it, fresh] = slot.emplace(key, threads_.size());
    if (fresh) threads_.push_back({r.process, r.thread, {}});
    threads_[it->second].by_start.push_back(i);  // trace.nvtx is sorted by start already
  }
}

int NvtxIndex::innermost_in(const ThreadRanges& tr, std::int64_t t) const {
  // The last range starting at or before t; any range enclosing t is it or one of its ancestors, because
  // push/pop ranges on a thread nest. Walk up until one still covers t.
  auto it = std::upper_bound(tr.by_start.begin(), tr.by_start.end(), t,
                             [&](std::int64_t v, int idx) { return v < trace_.nvtx[idx].start_ns; });
  if (it == tr.by_start.begin()) return -1;
  int r = *std::prev(it);
  while (r >= 0 && trace_.nvtx[r].end_ns < t) r = trace_.nvtx[r].parent;
  return r;
}

int NvtxIndex::innermost(std::uint32_t process, std::uint32_t thread, std::int64_t t) const {
  for (const auto& tr : threads_)
    if (tr.thread == thread && (tr.process == process || process == 0 || tr.process == 0)) return innermost_in(tr, t);
  return -1;
}

int NvtxIndex::innermost_any_thread(std::int64_t t) const {
  int best = -1;
  for (const auto& tr : threads_) {
    int r = innermost_in(tr, t);
    if (r < 0) continue;
    if (best < 0 || trace_.nvtx[r].depth > trace_.nvtx[best].depth ||
        (trace_.nvtx[r].depth == trace_.nvtx[best].depth && trace_.nvtx[r].start_ns > trace_.nvtx[best].start_ns))
      best = r;
  }
  return best;
}

int NvtxIndex::innermost_default_elsewhere(std::uint32_t process, std::uint32_t thread, std::int64_t t) const {
  int best = -1;
  for (const auto& tr : threads_) {
    if (tr.thread == thread || !(tr.process == process || process == 0 || tr.process == 0)) continue;
    int r = innermost_in(tr, t);
    while (r >= 0 && !in_default_domain(trace_, r)) r = trace_.nvtx[r].parent;
    if (r < 0) continue;
    if (best < 0 || trace_.nvtx[r].depth > trace_.nvtx[best].depth ||
        (trace_.nvtx[r].depth == trace_.nvtx[best].depth && trace_.nvtx[r].start_ns > trace_.nvtx[best].start_ns))
      best = r;
  }
  return best;
}

void attribute_kernels_to_nvtx(Trace& trace) {
  if (trace.nvtx.empty()) return;
  NvtxIndex index(trace);
  const auto api_by_corr = api_calls_by_correlation(trace);
  // Each kernel's launching call (index into trace.api_calls), -1 when the trace has none.
  std::vector<int> call(trace.kernels.size(), -1);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    auto& k = trace.kernels[i];
    k.nvtx_adopted = -1;
    auto it = k.correlation ? api_by_corr.find(k.correlation) : api_by_corr.end();
    if (it != api_by_corr.end()) {
      call[i] = static_cast<int>(it->second);
      const auto& api = trace.api_calls[it->second];
      k.nvtx_range = index.innermost(api.process, api.thread, api.start_ns);
      bool own_default = false;
      for (int r = k.nvtx_range; r >= 0 && !own_default; r = trace.nvtx[r].parent)
        own_default = in_default_domain(trace, r);
      if (!own_default) k.nvtx_adopted = index.innermost_default_elsewhere(api.process, api.thread, api.start_ns);
    } else {
      k.nvtx_range = index.innermost_any_thread(k.start_ns);
    }
  }
  // The thread that holds the range must be waiting, as the caller of backward() is: a thread that launches kernels
  // of its own while another thread's launches fall in its range runs beside it (a prefetching or logging thread),
  // and those launches stay outside. Per (launching thread, range): the span of its launches there; any launch of
  // the range's own thread inside that span revokes the adoption.
  std::map<std::pair<std::uint32_t, int>, std::pair<std::int64_t, std::int64_t>> spans;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i)
    if (trace.kernels[i].nvtx_adopted >= 0) {
      const auto& api = trace.api_calls[static_cast<std::size_t>(call[i])];
      auto [it, fresh] = spans.try_emplace({api.thread, trace.kernels[i].nvtx_adopted}, api.start_ns, api.start_ns);
      if (!fresh) it->second = {std::min(it->second.first, api.start_ns), std::max(it->second.second, api.start_ns)};
    }
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::int64_t>> launches_of;  // (process, thread)
  if (!spans.empty())
    for (std::size_t i = 0; i < trace.kernels.size(); ++i)
      if (call[i] >= 0) {
        const auto& api = trace.api_calls[static_cast<std::size_t>(call[i])];
        launches_of[{api.process, api.thread}].push_back(api.start_ns);
      }
  for (auto& [who, starts] : launches_of) std::sort(starts.begin(), starts.end());
  std::set<std::pair<std::uint32_t, int>> revoked;
  for (const auto& [key, span] : spans) {
    const auto& range = trace.nvtx[static_cast<std::size_t>(key.second)];
    auto it = launches_of.find({range.process, range.thread});
    if (it == launches_of.end()) continue;
    auto first = std::lower_bound(it->second.begin(), it->second.end(), span.first);
    if (first != it->second.end() && *first <= span.second) revoked.insert(key);
  }
  std::size_t adopted = 0;
  std::set<std::uint32_t> adopting_threads;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    auto& k = trace.kernels[i];
    if (k.nvtx_adopted < 0) continue;
    const std::uint32_t thread = trace.api_calls[static_cast<std::size_t>(call[i])].thread;
    if (revoked.count({thread, k.nvtx_adopted})) {
      k.nvtx_adopted = -1;
      continue;
    }
    ++adopted;
    adopting_threads.insert(thread);
  }
  if (adopted) {
    trace.info.nvtx_adoption =
        std::to_string(adopted) + " kernels launched from " + std::to_string(adopting_threads.size()) +
        " thread(s) outside any NVTX range of their own were placed in the range another thread of the process had "
        "open, and was waiting in, at their launch (as PyTorch's autograd thread runs the kernels of a backward() "
        "called inside a range)";
    trace.info.warnings.push_back(trace.info.nvtx_adoption);
  }
}

std::vector<std::string> nvtx_stack(const Trace& trace, int range) {
  std::vector<std::string> out;
  for (int r = range; r >= 0 && r < static_cast<int>(trace.nvtx.size()); r = trace.nvtx[r].parent)
    out.push_back(trace.str(trace.nvtx[r].name));
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace kprof
