#include "collect/trace/trace_assembly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include "collect/trace/demangle.hpp"
#include "collect/trace/nvtx_attribution.hpp"
#include "util/errors.hpp"

namespace kprof {

using namespace trace_format;

namespace {

class Strings {
 public:
  Strings(const RawTrace& raw, Trace& out) : raw_(raw), out_(out) {}

  StringId id(StringRef ref) {
    if (ref == kNoString) return kNoName;
    if (auto it = ids_.find(ref); it != ids_.end()) return it->second;
    StringId id = add(std::string(text(ref)));
    ids_.emplace(ref, id);
    return id;
  }
  std::string_view text(StringRef ref) const {
    if (ref == kNoString) return {};
    if (ref >= raw_.strings.size())
      throw ParseError(raw_.source, 0, "string reference " + std::to_string(ref) + " outside the strings section (" +
                                           std::to_string(raw_.strings.size()) + " bytes)");
    const char* p = raw_.strings.data() + ref;
    std::size_t n = raw_.strings.find('\0', ref);
    if (n == std::string::npos) throw ParseError(raw_.source, 0, "unterminated string in the strings section");
    return std::string_view(p, n - ref);
  }
  StringId add(std::string s) {
    if (s.empty()) return kNoName;
    if (auto it = by_text_.find(s); it != by_text_.end()) return it->second;
    auto id = static_cast<StringId>(out_.strings.size());
    out_.strings.push_back(s);
    by_text_.emplace(std::move(s), id);
    return id;
  }

 private:
  const RawTrace& raw_;
  Trace& out_;
  std::unordered_map<StringRef, StringId> ids_;
  std::unordered_map<std::string, StringId> by_text_;
};

struct KernelNames {
  StringId name, mangled, function;
};

}  // namespace

void compute_nvtx_nesting(std::vector<TraceNvtxRange>& ranges) {
  // Group push/pop candidates by thread, ordered by (start asc, end desc) so a parent precedes its children.
  std::vector<int> order;
  order.reserve(ranges.size());
  for (int i = 0; i < static_cast<int>(ranges.size()); ++i) {
    ranges[i].depth = 0;
    ranges[i].parent = -1;
    if (ranges[i].push_pop) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const auto &x = ranges[a], &y = ranges[b];
    if (x.process != y.process) return x.process < y.process;
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.end_ns > y.end_ns;
  });
  std::vector<int> stack;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& r = ranges[order[k]];
    if (k == 0 || ranges[order[k - 1]].thread != r.thread || ranges[order[k - 1]].process != r.process) stack.clear();
    while (!stack.empty() && ranges[stack.back()].end_ns <= r.start_ns) stack.pop_back();
    if (!stack.empty() && r.end_ns > ranges[stack.back()].end_ns) {
      r.push_pop = false;  // crosses its would-be parent: a start/end range, not push/pop
      continue;
    }
    r.parent = stack.empty() ? -1 : stack.back();
    r.depth = static_cast<int>(stack.size());
    stack.push_back(order[k]);
  }
}

namespace {

// The header's facts (process, flags, CUPTI errors) and the reader's notes.
void assemble_info(RawTrace& raw, Strings& strings, Trace& t) {
  const FileHeader& h = raw.header;
  t.info.format = raw.format;
  t.info.source = raw.source;
  t.info.dropped_records = h.dropped_records;
  t.info.pid = h.pid;
  t.info.api_traced = (h.flags & kFlagApiTraced) || !raw.api_calls.empty();
  t.info.nvtx_traced = (h.flags & kFlagNvtxTraced) || !raw.markers.empty();
  t.info.interrupted = (h.flags & kFlagInterrupted) != 0;
  t.info.process_name = std::string(strings.text(h.process_name));
  if (h.errors != kNoString) {
    std::string_view all = strings.text(h.errors);
    for (std::size_t b = 0; b <= all.size();) {
      std::size_t e = all.find('\n', b);
      if (e == std::string_view::npos) e = all.size();
      if (e > b) t.info.errors.emplace_back(all.substr(b, e - b));
      b = e + 1;
    }
  }
  if (h.cupti_error_count > t.info.errors.size())
    t.info.errors.push_back("(" + std::to_string(h.cupti_error_count - t.info.errors.size()) + " more CUPTI errors)");
  t.info.warnings = std::move(raw.warnings);
}

// Absolute CUPTI timestamps → ns after the earliest record (0 means "unknown" in CUPTI and stays 0), keeping the
// latest relative end seen.
class Clock {
 public:
  explicit Clock(const RawTrace& raw) {
    base_ = std::numeric_limits<std::uint64_t>::max();
    auto see = [&](std::uint64_t ts) {
      if (ts != 0 && ts < base_) base_ = ts;
    };
    for (const auto& r : raw.kernels) see(r.start);
    for (const auto& r : raw.memcpys) see(r.start);
    for (const auto& r : raw.memsets) see(r.start);
    for (const auto& r : raw.syncs) see(r.start);
    for (const auto& r : raw.api_calls) see(r.start);
    for (const auto& r : raw.markers) see(r.timestamp);
    for (const auto& r : raw.graphs) see(r.start);
    for (const auto& r : raw.overheads) see(r.start);
    if (base_ == std::numeric_limits<std::uint64_t>::max()) base_ = 0;
  }
  std::uint64_t base() const { return base_; }
  std::int64_t end() const { return end_; }
  std::int64_t rel(std::uint64_t ts) {
    std::int64_t v = ts == 0 ? 0 : static_cast<std::int64_t>(ts - base_);
    end_ = std::max(end_, v);
    return v;
  }
  // The shared start/end/device/context/stream/correlation of a kernel, copy, memset or graph record.
  template <typename Raw>
  TraceSpan span(const Raw& r) {
    const Span s = span_of(r);
    TraceSpan out;
    out.start_ns = rel(s.start);
    out.end_ns = rel(s.end);
    out.device = s.device;
    out.context = s.context;
    out.stream = s.stream;
    out.correlation = s.correlation;
    return out;
  }

 private:
  std::uint64_t base_ = 0;
  std::int64_t end_ = 0;
};

// Records that end before they start (a corrupt or hand-edited trace) would give negative durations: they are left
// out, and one warning per record kind says how many and which came first.
class BackwardsSpans {
 public:
  template <typename Raw>
  bool skip(const Raw& r, const char* kind) {
    const Span s = span_of(r);
    if (s.end >= s.start) return false;
    auto& e = counts_[kind];
    if (e.first == 0) e.second = fmt::format("start {} ns, end {} ns", s.start, s.end);
    ++e.first;
    return true;
  }
  void warn(Trace& t) const {
    for (const auto& [kind, e] : counts_)
      t.info.warnings.push_back(fmt::format("{} {} record(s) end before they start (negative duration; first: {}); "
                                            "left out",
                                            e.first, kind, e.second));
  }

 private:
  std::map<std::string, std::pair<std::size_t, std::string>> counts_;
};

void assemble_kernels(const RawTrace& raw, Strings& strings, Clock& clock, Trace& t, BackwardsSpans& bad) {
  std::unordered_map<StringRef, KernelNames> kernel_names;
  t.kernels.reserve(raw.kernels.size());
  for (const auto& r : raw.kernels) {
    if (bad.skip(r, "kernel")) continue;
    auto it = kernel_names.find(r.name);
    if (it == kernel_names.end()) {
      std::string mangled(strings.text(r.name));
      std::string pretty = demangle(mangled);
      KernelNames n{strings.add(pretty), strings.add(mangled), strings.add(function_base_name(pretty))};
      it = kernel_names.emplace(r.name, n).first;
    }
    TraceKernel k;
    static_cast<TraceSpan&>(k) = clock.span(r);
    k.name = it->second.name;
    k.mangled = it->second.mangled;
    k.function = it->second.function;
    k.grid = {r.grid[0], r.grid[1], r.grid[2]};
    k.block = {r.block[0], r.block[1], r.block[2]};
    k.registers = r.registers;
    k.smem_static = r.smem_static;
    k.smem_dynamic = r.smem_dynamic;
    k.graph_id = r.graph_id;
    k.graph_node_id = r.graph_node_id;
    t.kernels.push_back(k);
  }
}

void assemble_copies(const RawTrace& raw, Clock& clock, Trace& t, BackwardsSpans& bad) {
  t.memcpys.reserve(raw.memcpys.size());
  for (const auto& r : raw.memcpys) {
    if (bad.skip(r, "memcpy")) continue;
    TraceMemcpy m;
    static_cast<TraceSpan&>(m) = clock.span(r);
    m.kind = r.copy_kind <= 10 ? static_cast<MemcpyKind>(r.copy_kind) : MemcpyKind::unknown;
    m.async = (r.flags & 1u) != 0;  // CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC
    m.pageable = r.src_kind == 1 || r.dst_kind == 1;  // CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
    m.bytes = r.bytes;
    m.graph_id = r.graph_id;
    t.memcpys.push_back(m);
  }
  t.memsets.reserve(raw.memsets.size());
  for (const auto& r : raw.memsets) {
    if (bad.skip(r, "memset")) continue;
    TraceMemset m;
    static_cast<TraceSpan&>(m) = clock.span(r);
    m.bytes = r.bytes;
    m.value = r.value;
    m.graph_id = r.graph_id;
    t.memsets.push_back(m);
  }
}

// Host-side records: synchronisation waits, API calls, graph launches, CUPTI overhead.
void assemble_host(const RawTrace& raw, Strings& strings, Clock& clock, Trace& t) {
  for (const auto& r : raw.syncs) {
    TraceSync s;
    s.type = r.type <= 4 ? static_cast<SyncType>(r.type) : SyncType::unknown;
    s.start_ns = clock.rel(r.start);
    s.end_ns = clock.rel(r.end);
    s.context = r.context;
    s.stream = r.stream == kNoStream ? -1 : static_cast<std::int64_t>(r.stream);
    s.correlation = r.correlation;
    t.syncs.push_back(s);
  }
  t.api_calls.reserve(raw.api_calls.size());
  for (const auto& r : raw.api_calls) {
    TraceApiCall a;
    a.domain = r.domain == kApiDriver ? ApiDomain::driver : ApiDomain::runtime;
    a.cbid = r.cbid;
    a.name = strings.id(r.name);
    a.start_ns = clock.rel(r.start);
    a.end_ns = clock.rel(r.end);
    a.process = r.process;
    a.thread = r.thread;
    a.correlation = r.correlation;
    a.return_value = r.return_value;
    t.api_calls.push_back(a);
  }
  for (const auto& r : raw.graphs) {
    TraceGraphLaunch g;
    static_cast<TraceSpan&>(g) = clock.span(r);
    g.graph_id = r.graph_id;
    t.graph_launches.push_back(g);
  }
  for (const auto& r : raw.overheads) t.overheads.push_back({r.kind, clock.rel(r.start), clock.rel(r.end), r.thread});
}

// NVTX: a start marker and its end marker share an id; sorting by time makes a reused id pair correctly. Ranges
// still open when the trace was written (Ctrl-C, or a missing pop) are closed at the trace end, so this runs after
// every other record has moved the clock's end.
void assemble_nvtx(RawTrace& raw, Strings& strings, Clock& clock, Trace& t) {
  std::stable_sort(raw.markers.begin(), raw.markers.end(),
                   [](const RawMarker& a, const RawMarker& b) { return a.timestamp < b.timestamp; });
  std::unordered_map<std::uint32_t, std::size_t> open;  // id → index of its start marker
  std::size_t unmatched_end = 0;
  auto range_from = [&](const RawMarker& s) {
    TraceNvtxRange r;
    r.name = strings.id(s.name);
    r.domain = strings.id(s.domain);
    r.start_ns = clock.rel(s.timestamp);
    r.process = s.process;
    r.thread = s.thread;
    r.id = s.id;
    return r;
  };
  for (std::size_t i = 0; i < raw.markers.size(); ++i) {
    const auto& m = raw.markers[i];
    if (m.flags & kMarkerStart) {
      open[m.id] = i;
    } else if (m.flags & kMarkerEnd) {
      auto it = open.find(m.id);
      if (it == open.end()) {
        ++unmatched_end;
        continue;
      }
      const auto& s = raw.markers[it->second];
      TraceNvtxRange r = range_from(s);
      r.end_ns = clock.rel(m.timestamp);
      r.push_pop = m.thread == s.thread && m.process == s.process;
      t.nvtx.push_back(r);
      open.erase(it);
    }
  }
  t.info.end_ns = clock.end();
  if (!open.empty()) {
    std::map<std::size_t, std::uint32_t> still_open;  // deterministic order
    for (auto& [id, idx] : open) still_open.emplace(idx, id);
    for (auto& [idx, id] : still_open) {
      TraceNvtxRange r = range_from(raw.markers[idx]);
      r.end_ns = clock.end();
      r.id = id;
      t.nvtx.push_back(r);
    }
    t.info.warnings.push_back(std::to_string(open.size()) + " NVTX range(s) never ended; closed at the trace end");
  }
  if (unmatched_end) t.info.warnings.push_back(std::to_string(unmatched_end) + " NVTX end marker(s) without a start");
}

void sort_by_start(Trace& t) {
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(t.kernels.begin(), t.kernels.end(), by_start);
  std::stable_sort(t.memcpys.begin(), t.memcpys.end(), by_start);
  std::stable_sort(t.memsets.begin(), t.memsets.end(), by_start);
  std::stable_sort(t.syncs.begin(), t.syncs.end(), by_start);
  std::stable_sort(t.api_calls.begin(), t.api_calls.end(), by_start);
  std::stable_sort(t.nvtx.begin(), t.nvtx.end(), by_start);
  std::stable_sort(t.graph_launches.begin(), t.graph_launches.end(), by_start);
  std::stable_sort(t.overheads.begin(), t.overheads.end(), by_start);
}

}  // namespace

Trace assemble_trace(RawTrace raw) {
  Trace t;
  Strings strings(raw, t);
  assemble_info(raw, strings, t);
  Clock clock(raw);
  t.info.base_ns = clock.base();
  BackwardsSpans backwards;
  assemble_kernels(raw, strings, clock, t, backwards);
  assemble_copies(raw, clock, t, backwards);
  backwards.warn(t);
  assemble_host(raw, strings, clock, t);
  assemble_nvtx(raw, strings, clock, t);
  sort_by_start(t);
  compute_nvtx_nesting(t.nvtx);
  attribute_kernels_to_nvtx(t);
  if (t.info.dropped_records)
    t.info.warnings.push_back("CUPTI dropped " + std::to_string(t.info.dropped_records) +
                              " records: the trace is incomplete");
  return t;
}

}  // namespace kprof
