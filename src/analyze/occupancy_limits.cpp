#include "analyze/occupancy_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace kprof::analyze {

void fill_occupancy_limits(CanonicalMetrics& m, const SmLimits& lim) {
  if (lim.max_warps <= 0 || !m.block_size || *m.block_size <= 0) return;
  const double warps_per_block = std::ceil(*m.block_size / 32.0);
  auto set = [&](std::optional<double>& field, const char* name, double blocks, const std::string& how) {
    if (field) return;
    field = std::max(0.0, std::floor(blocks));
    m.provenance[name] = how;
  };
  set(m.occupancy_limit_warps, "occupancy_limit_warps", lim.max_warps / warps_per_block,
      fmt::format("{} warps per SM / {:.0f} warps per block", lim.max_warps, warps_per_block));
  if (lim.max_blocks > 0)
    set(m.occupancy_limit_blocks, "occupancy_limit_blocks", lim.max_blocks,
        fmt::format("{} blocks per SM", lim.max_blocks));
  if (m.registers_per_thread && *m.registers_per_thread > 0 && lim.registers > 0) {
    // Registers are allocated per warp, rounded up to the allocation unit; each of the 4 SM sub-partitions holds a
    // quarter of the register file and whole warps.
    const double unit = lim.register_alloc_unit > 0 ? lim.register_alloc_unit : 256;
    const double per_warp = std::ceil(*m.registers_per_thread * 32.0 / unit) * unit;
    const double warps = std::floor(lim.registers / 4.0 / per_warp) * 4.0;
    set(m.occupancy_limit_registers, "occupancy_limit_registers", std::floor(warps / warps_per_block),
        fmt::format("{:.0f} registers per thread ({:.0f} per warp) of {} per SM", *m.registers_per_thread, per_warp,
                    lim.registers));
  }
  if (const auto blocks = shared_mem_blocks_at_full_carveout(m, lim))
    set(m.occupancy_limit_shared_mem, "occupancy_limit_shared_mem", *blocks,
        fmt::format("{:.0f} B shared memory per block (+{} B reserved) of {} B per SM", *m.shared_mem_per_block_bytes,
                    lim.shared_mem_reserved_per_block, lim.shared_mem_bytes));
}

std::optional<double> shared_mem_blocks_at_full_carveout(const CanonicalMetrics& m, const SmLimits& lim) {
  if (!m.shared_mem_per_block_bytes || lim.shared_mem_bytes <= 0) return std::nullopt;
  const double unit = lim.shared_mem_alloc_unit > 0 ? lim.shared_mem_alloc_unit : 128;
  const double per_block =
      std::ceil((*m.shared_mem_per_block_bytes + static_cast<double>(lim.shared_mem_reserved_per_block)) / unit) * unit;
  return std::max(0.0, std::floor(per_block > 0 ? static_cast<double>(lim.shared_mem_bytes) / per_block
                                                : static_cast<double>(lim.max_blocks)));
}

}  // namespace kprof::analyze
