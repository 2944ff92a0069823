#include "collect/cupti/counters_json.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

#include "collect/counters/counters_format.hpp"
#include "util/atomic_file.hpp"

namespace kprof::cupti {

using nlohmann::json;
namespace key = counters_format::key;

namespace {

json kernel_json(const KernelRecord& r) {
  json k{{key::mangled, r.mangled}, {key::invocation, r.invocation}, {key::order, r.order},
         {key::context, r.context_uid}, {key::kernel_device, r.device},
         {key::grid, {r.grid[0], r.grid[1], r.grid[2]}}, {key::block, {r.block[0], r.block[1], r.block[2]}},
         {key::shared_mem_dynamic, r.smem_dynamic}, {key::nvtx, r.nvtx}, {key::values, r.values},
         {key::ranges_in_image, r.ranges}, {key::ranges_dropped, r.dropped}, {key::replay_wall_ms, r.wall_ms},
         {key::api, r.api}};
  if (!r.phases_ms.empty()) {
    json phases = json::object();
    for (const auto& [phase, ms] : r.phases_ms) phases[phase] = ms;
    k[key::phases_ms] = std::move(phases);
  }
  if (r.has_stream) k[key::stream] = r.stream;
  if (r.has_function) {
    k[key::registers] = r.registers;
    k[key::shared_mem_static] = r.smem_static;
    k[key::local_bytes_per_thread] = r.local_bytes;
    k[key::max_blocks_per_sm] = r.max_blocks_per_sm;
    k[key::theoretical_occupancy_pct] = r.theoretical_occupancy_pct;
    k[key::waves_per_sm] = r.waves_per_sm;
  }
  if (!r.non_finite.empty()) k[key::non_finite] = r.non_finite;
  if (!r.error.empty()) k[key::error] = r.error;
  return k;
}

}  // namespace

void write_counters_file(const std::string& path, const CounterFileSummary& s, const std::deque<KernelRecord>& records,
                         bool interrupted) {
  try {
    json kernels = json::array();
    for (const auto& r : records) kernels.push_back(kernel_json(r));
    json setup_steps = json::object();
    for (const auto& [step, ms] : s.setup_steps) setup_steps[step] = ms;
    std::string process;
    if (std::ifstream comm("/proc/self/comm"); comm) std::getline(comm, process);
    std::uint32_t version = 0;
    cuptiGetVersion(&version);
    json doc{{key::schema, counters_format::kSchema},
             {key::pid, ::getpid()},
             {key::process, process},
             {key::cupti_api_version, version},
             {key::chip, s.chip},
             {key::device,
              {{key::device_name, s.device_name}, {key::device_cc, s.compute_capability}, {key::device_sms, s.sm_count}}},
             {key::replay, "kernel"},
             {key::passes, s.passes},
             {key::setup_ms, s.setup_ms},
             {key::setup_steps_ms, setup_steps},
             {key::metrics, s.metrics},
             {key::units, s.units},
             {key::unsupported, s.unsupported},
             {key::launches_seen, s.launches_seen},
             {key::launches_profiled, s.launches_profiled},
             {key::launches_captured, s.launches_captured},
             {key::interrupted, interrupted},
             {key::errors, s.errors},
             {key::error_count, s.error_count},
             {key::kernels, std::move(kernels)}};
    // NVTX messages and the process name are arbitrary bytes: invalid UTF-8 is replaced, not thrown.
    const std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
    // The old "<path>.tmp.<pid>", opened with O_TRUNC, wrote through a link planted at that predictable name.
    std::filesystem::path tmp;
    const int fd = open_temporary_beside(path, tmp);
    if (fd < 0) {
      std::fprintf(stderr, "kprof counters: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
      return;
    }
    bool ok = write_all(fd, text.data(), text.size());
    int err = errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
    if (!ok) {
      ::unlink(tmp.c_str());
      std::fprintf(stderr, "kprof counters: cannot write %s: %s\n", path.c_str(), std::strerror(err));
    }
  } catch (const std::exception& e) {  // never let the profiled program die of the collector
    std::fprintf(stderr, "kprof counters: cannot write %s: %s\n", path.c_str(), e.what());
  }
}

}  // namespace kprof::cupti
