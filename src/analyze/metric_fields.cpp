#include "analyze/metric_fields.hpp"

#include <map>

namespace kprof::analyze {

namespace {
using Field = std::optional<double> CanonicalMetrics::*;

const std::map<std::string, Field>& fields() {
  static const std::map<std::string, Field> table = {
      {"duration_ns", &CanonicalMetrics::duration_ns},
      {"sm_throughput_pct", &CanonicalMetrics::sm_throughput_pct},
      {"memory_throughput_pct", &CanonicalMetrics::memory_throughput_pct},
      {"dram_throughput_pct", &CanonicalMetrics::dram_throughput_pct},
      {"tensor_pipe_pct", &CanonicalMetrics::tensor_pipe_pct},
      {"achieved_occupancy_pct", &CanonicalMetrics::achieved_occupancy_pct},
      {"theoretical_occupancy_pct", &CanonicalMetrics::theoretical_occupancy_pct},
      {"l2_hit_pct", &CanonicalMetrics::l2_hit_pct},
      {"l1_hit_pct", &CanonicalMetrics::l1_hit_pct},
      {"waves_per_sm", &CanonicalMetrics::waves_per_sm},
      {"dram_bytes", &CanonicalMetrics::dram_bytes},
      {"dram_read_bytes", &CanonicalMetrics::dram_read_bytes},
      {"dram_write_bytes", &CanonicalMetrics::dram_write_bytes},
      {"l2_bytes", &CanonicalMetrics::l2_bytes},
      {"sysmem_bytes", &CanonicalMetrics::sysmem_bytes},
      {"l1_bytes", &CanonicalMetrics::l1_bytes},
      {"local_memory_bytes", &CanonicalMetrics::local_memory_bytes},
      {"local_memory_instructions", &CanonicalMetrics::local_memory_instructions},
      {"spill_requests", &CanonicalMetrics::spill_requests},
      {"flops_fp64", &CanonicalMetrics::flops_fp64},
      {"flops_fp32", &CanonicalMetrics::flops_fp32},
      {"flops_fp16", &CanonicalMetrics::flops_fp16},
      {"flops_tensor", &CanonicalMetrics::flops_tensor},
      {"registers_per_thread", &CanonicalMetrics::registers_per_thread},
      {"shared_mem_per_block_bytes", &CanonicalMetrics::shared_mem_per_block_bytes},
      {"grid_size", &CanonicalMetrics::grid_size},
      {"block_size", &CanonicalMetrics::block_size},
      {"sm_clock_hz", &CanonicalMetrics::sm_clock_hz},
      {"fma_pipe_pct", &CanonicalMetrics::fma_pipe_pct},
      {"fma_pipe_instructions", &CanonicalMetrics::fma_pipe_instructions},
      {"fp16_pipe_instructions", &CanonicalMetrics::fp16_pipe_instructions},
      {"fp32_fusable_pairs", &CanonicalMetrics::fp32_fusable_pairs},
      {"fp32_fma_instructions", &CanonicalMetrics::fp32_fma_instructions},
      {"fma_integer_share", &CanonicalMetrics::fma_integer_share},
      {"alu_pipe_pct", &CanonicalMetrics::alu_pipe_pct},
      {"fp64_pipe_pct", &CanonicalMetrics::fp64_pipe_pct},
      {"xu_pipe_pct", &CanonicalMetrics::xu_pipe_pct},
      {"lsu_pipe_pct", &CanonicalMetrics::lsu_pipe_pct},
      {"issue_active_pct", &CanonicalMetrics::issue_active_pct},
      {"l1_throughput_pct", &CanonicalMetrics::l1_throughput_pct},
      {"l2_throughput_pct", &CanonicalMetrics::l2_throughput_pct},
      {"global_load_sectors", &CanonicalMetrics::global_load_sectors},
      {"global_load_requests", &CanonicalMetrics::global_load_requests},
      {"global_store_sectors", &CanonicalMetrics::global_store_sectors},
      {"global_store_requests", &CanonicalMetrics::global_store_requests},
      {"global_atomic_requests", &CanonicalMetrics::global_atomic_requests},
      {"shared_wavefronts", &CanonicalMetrics::shared_wavefronts},
      {"shared_bank_conflicts", &CanonicalMetrics::shared_bank_conflicts},
      {"threads_per_instruction", &CanonicalMetrics::threads_per_instruction},
      {"occupancy_limit_registers", &CanonicalMetrics::occupancy_limit_registers},
      {"occupancy_limit_shared_mem", &CanonicalMetrics::occupancy_limit_shared_mem},
      {"occupancy_limit_warps", &CanonicalMetrics::occupancy_limit_warps},
      {"occupancy_limit_blocks", &CanonicalMetrics::occupancy_limit_blocks},
      {"dram_measured_pct", &CanonicalMetrics::dram_measured_pct},
      {"l2_measured_pct", &CanonicalMetrics::l2_measured_pct},
  };
  return table;
}
}  // namespace

std::optional<double> metric_field(const CanonicalMetrics& m, const std::string& name) {
  auto it = fields().find(name);
  if (it == fields().end()) return std::nullopt;
  return m.*(it->second);
}

std::optional<double>* metric_field_ptr(CanonicalMetrics& m, const std::string& name) {
  auto it = fields().find(name);
  return it == fields().end() ? nullptr : &(m.*(it->second));
}

bool is_metric_field(const std::string& name) { return fields().count(name) > 0; }

}  // namespace kprof::analyze
