#include "render/chrome_trace.hpp"

#include <fmt/format.h>
#include <iterator>
#include <map>
#include <unordered_map>

namespace kprof::render {

namespace {

constexpr std::int64_t kGpuPidBase = 1000000000;  // GPU d is pid kGpuPidBase + d
constexpr int kOverheadTid = 1;
constexpr int kFirstHostTid = 10;                 // host thread i: API track 10+2i, NVTX track 11+2i

using Buffer = fmt::memory_buffer;

void put_json_string(Buffer& b, std::string_view s) {
  b.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': fmt::format_to(std::back_inserter(b), "\\\""); break;
      case '\\': fmt::format_to(std::back_inserter(b), "\\\\"); break;
      case '\n': fmt::format_to(std::back_inserter(b), "\\n"); break;
      case '\t': fmt::format_to(std::back_inserter(b), "\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) fmt::format_to(std::back_inserter(b), "\\u{:04x}", c);
        else b.push_back(c);
    }
  }
  b.push_back('"');
}

// ns → µs with three decimals, exactly (no floating point).
void put_us(Buffer& b, std::int64_t ns) {
  if (ns < 0) {
    b.push_back('-');
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(b), "{}.{:03}", ns / 1000, ns % 1000);
}

class Writer {
 public:
  explicit Writer(const Trace& t) : t_(t) {
    host_pid_ = t.info.pid ? t.info.pid : 1;
    fmt::format_to(std::back_inserter(b_), "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  }
  // A complete event; `args` is a ready JSON object body without braces (may be empty).
  void complete(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid, std::int64_t start,
                std::int64_t end, std::string_view args) {
    sep();
    fmt::format_to(std::back_inserter(b_), "{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":", cat);
    put_json_string(b_, name);
    fmt::format_to(std::back_inserter(b_), ",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
    put_us(b_, start);
    fmt::format_to(std::back_inserter(b_), ",\"dur\":");
    put_us(b_, end > start ? end - start : 0);
    fmt::format_to(std::back_inserter(b_), ",\"args\":{{{}}}}}", args);
  }
  void flow(char ph, std::uint32_t id, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
    sep();
    fmt::format_to(std::back_inserter(b_), "{{\"ph\":\"{}\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":{},\"pid\":{},"
                   "\"tid\":{},\"ts\":", ph, id, pid, tid);
    put_us(b_, ts);
    if (ph == 'f') fmt::format_to(std::back_inserter(b_), ",\"bp\":\"e\"");
    b_.push_back('}');
  }
  void meta(std::string_view what, std::int64_t pid, std::int64_t tid, std::string_view name) {
    sep();
    fmt::format_to(std::back_inserter(b_), "{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
                   what, pid, tid);
    put_json_string(b_, name);
    fmt::format_to(std::back_inserter(b_), "}}}}");
  }
  std::string finish() {
    fmt::format_to(std::back_inserter(b_), "\n]}}\n");
    return fmt::to_string(b_);
  }
  std::int64_t host_pid() const { return host_pid_; }
  // API/NVTX track of a host thread (assigned in order of appearance).
  std::int64_t host_tid(std::uint32_t thread, bool nvtx) {
    auto [it, fresh] = host_threads_.try_emplace(thread, static_cast<int>(host_threads_.size()));
    if (fresh) {
      meta("thread_name", host_pid_, kFirstHostTid + 2 * it->second, fmt::format("thread {} (CUDA API)", thread));
      meta("thread_name", host_pid_, kFirstHostTid + 2 * it->second + 1, fmt::format("thread {} (NVTX)", thread));
    }
    return kFirstHostTid + 2 * it->second + (nvtx ? 1 : 0);
  }
  void gpu_stream(std::uint32_t device, std::uint32_t stream) {
    if (!gpu_tracks_.emplace((std::uint64_t{device} << 32) | stream, 0).second) return;
    if (devices_.emplace(device, 0).second) meta("process_name", kGpuPidBase + device, 0, fmt::format("GPU {}", device));
    meta("thread_name", kGpuPidBase + device, stream, fmt::format("stream {}", stream));
  }

 private:
  void sep() {
    if (!first_) fmt::format_to(std::back_inserter(b_), ",\n");
    first_ = false;
  }
  const Trace& t_;
  Buffer b_;
  bool first_ = true;
  std::int64_t host_pid_ = 1;
  std::unordered_map<std::uint32_t, int> host_threads_;
  std::unordered_map<std::uint64_t, int> gpu_tracks_;
  std::map<std::uint32_t, int> devices_;
};

}  // namespace

std::string render_chrome_trace(const Trace& t) {
  Writer w(t);
  std::string pname = t.info.process_name.empty() ? "host" : t.info.process_name;
  w.meta("process_name", w.host_pid(), 0, fmt::format("{} (pid {})", pname, t.info.pid));

  const auto api_by_corr = api_calls_by_correlation(t);
  auto arrow = [&](std::uint32_t corr, std::uint32_t device, std::uint32_t stream, std::int64_t start) {
    auto it = corr ? api_by_corr.find(corr) : api_by_corr.end();
    if (it == api_by_corr.end()) return;
    const auto& api = t.api_calls[it->second];
    w.flow('s', corr, w.host_pid(), w.host_tid(api.thread, false), api.start_ns);
    w.flow('f', corr, kGpuPidBase + device, stream, start);
  };

  std::string args;
  for (const auto& a : t.api_calls) {
    args = fmt::format("\"correlation\":{},\"cbid\":{}", a.correlation, a.cbid);
    if (a.return_value) args += fmt::format(",\"return\":{}", a.return_value);
    std::string_view name = t.str(a.name);
    std::string fallback;
    if (name.empty()) name = fallback = fmt::format("{} cbid {}", a.domain == ApiDomain::driver ? "driver" : "runtime", a.cbid);
    w.complete(a.domain == ApiDomain::driver ? "cuda_driver" : "cuda_runtime", name, w.host_pid(),
               w.host_tid(a.thread, false), a.start_ns, a.end_ns, args);
  }
  for (const auto& r : t.nvtx) {
    args = fmt::format("\"depth\":{},\"push_pop\":{}", r.depth, r.push_pop ? "true" : "false");
    w.complete("nvtx", t.str(r.name), w.host_pid(), w.host_tid(r.thread, true), r.start_ns, r.end_ns, args);
  }
  for (const auto& s : t.syncs) {
    auto it = s.correlation ? api_by_corr.find(s.correlation) : api_by_corr.end();
    std::int64_t tid = it != api_by_corr.end() ? w.host_tid(t.api_calls[it->second].thread, false) : kOverheadTid;
    args = fmt::format("\"stream\":{},\"correlation\":{}", s.stream, s.correlation);
    w.complete("sync", sync_type_name(s.type), w.host_pid(), tid, s.start_ns, s.end_ns, args);
  }
  if (!t.overheads.empty()) w.meta("thread_name", w.host_pid(), kOverheadTid, "CUPTI overhead / other");
  for (const auto& o : t.overheads)
    w.complete("overhead", overhead_kind_name(o.kind), w.host_pid(), kOverheadTid, o.start_ns, o.end_ns, "");

  for (const auto& k : t.kernels) {
    w.gpu_stream(k.device, k.stream);
    args = fmt::format("\"grid\":[{},{},{}],\"block\":[{},{},{}],\"registers\":{},\"smem_static\":{},"
                       "\"smem_dynamic\":{},\"correlation\":{}",
                       k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.registers,
                       k.smem_static, k.smem_dynamic, k.correlation);
    if (k.graph_id) args += fmt::format(",\"graph\":{},\"graph_node\":{}", k.graph_id, k.graph_node_id);
    if (const int r = k.nvtx_range >= 0 ? k.nvtx_range : k.nvtx_adopted; r >= 0) {
      fmt::memory_buffer nb;
      put_json_string(nb, t.str(t.nvtx[r].name));
      args += ",\"nvtx\":" + fmt::to_string(nb);
    }
    w.complete("kernel", t.str(k.name), kGpuPidBase + k.device, k.stream, k.start_ns, k.end_ns, args);
    arrow(k.correlation, k.device, k.stream, k.start_ns);
  }
  for (const auto& m : t.memcpys) {
    w.gpu_stream(m.device, m.stream);
    double gbps = m.end_ns > m.start_ns ? static_cast<double>(m.bytes) / static_cast<double>(m.end_ns - m.start_ns) : 0;
    args = fmt::format("\"bytes\":{},\"GB/s\":{:.2f},\"correlation\":{}", m.bytes, gbps, m.correlation);
    w.complete("memcpy", fmt::format("Memcpy {}", memcpy_kind_name(m.kind)), kGpuPidBase + m.device, m.stream,
               m.start_ns, m.end_ns, args);
    arrow(m.correlation, m.device, m.stream, m.start_ns);
  }
  for (const auto& m : t.memsets) {
    w.gpu_stream(m.device, m.stream);
    args = fmt::format("\"bytes\":{},\"value\":{},\"correlation\":{}", m.bytes, m.value, m.correlation);
    w.complete("memset", "Memset", kGpuPidBase + m.device, m.stream, m.start_ns, m.end_ns, args);
    arrow(m.correlation, m.device, m.stream, m.start_ns);
  }
  for (const auto& g : t.graph_launches) {
    w.gpu_stream(g.device, g.stream);
    args = fmt::format("\"graph\":{},\"correlation\":{}", g.graph_id, g.correlation);
    w.complete("graph", fmt::format("CUDA graph {}", g.graph_id), kGpuPidBase + g.device, g.stream, g.start_ns,
               g.end_ns, args);
    arrow(g.correlation, g.device, g.stream, g.start_ns);
  }
  return w.finish();
}

}  // namespace kprof::render
