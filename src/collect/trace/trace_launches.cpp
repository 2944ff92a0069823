#include "collect/trace/trace_launches.hpp"

#include <algorithm>

#include "collect/nvtx_path.hpp"
#include "collect/trace/nvtx_attribution.hpp"

namespace kprof {

std::vector<KernelLaunch> kernel_launches(const Trace& trace) {
  std::vector<KernelLaunch> out;
  out.reserve(trace.kernels.size());
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const auto& k = trace.kernels[i];
    KernelLaunch l;
    l.id = static_cast<int>(i);
    l.name = trace.str(k.name);
    l.function = trace.str(k.function);
    l.mangled = trace.str(k.mangled);
    if (const std::vector<int> chain = nvtx_chain(trace, k); !chain.empty()) {
      std::vector<bool> in_default;
      for (int r : chain) {
        l.nvtx_stack.push_back(trace.str(trace.nvtx[r].name));
        in_default.push_back(in_default_domain(trace, r));
      }
      if (int i = stage_range_index(in_default); i >= 0) l.nvtx_range = l.nvtx_stack[i];
    }
    l.stream = k.stream;
    l.context = k.context;
    l.device = static_cast<int>(k.device);
    l.launch.grid = k.grid;
    l.launch.block = k.block;
    l.launch.registers_per_thread = k.registers;
    l.launch.shared_mem_static_bytes = k.smem_static;
    l.launch.shared_mem_dynamic_bytes = k.smem_dynamic;
    l.duration_ns = static_cast<double>(k.duration_ns());
    l.start_ns = static_cast<double>(k.start_ns);
    l.graph_id = k.graph_id;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace kprof
