// The per-launch columns every ncu CSV page that lists launches starts with (ID, Kernel Name, Block Size,
// NVTX, ...), located by name in a header row and read into KernelLaunch fields.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace kprof::ncu {

// Column index by header name; -1 when absent.
struct LaunchColumns {
  int id = -1, pid = -1, process = -1, host = -1, kernel = -1, context = -1, stream = -1, block = -1, grid = -1,
      device = -1, cc = -1, nvtx_push_pop = -1, nvtx_start_stop = -1;

  static LaunchColumns locate(const std::vector<std::string>& header);
  bool has_launch_identity() const { return id >= 0 && kernel >= 0; }
  // Number of header columns these cover (the rest are metrics).
  bool is_launch_column(int index) const;
};

// What a row says about its process/device, beyond the KernelLaunch.
struct LaunchContext {
  std::string process_name;
  long pid = -1;
  std::string compute_capability;  // "9.0"
  long line = 0;                   // the row's line (the first row of the launch on a details page)
  std::uint64_t row_digest = 0;    // raw page: a hash of the whole row, to tell a repeated row from a different one
};

// Fills id, name, function, context, stream, device, launch.grid/block and NVTX fields from one row.
// Throws ParseError(file, line) when the ID is not an integer.
KernelLaunch read_launch(const LaunchColumns& cols, const std::vector<std::string>& row, const std::string& file,
                         long line, LaunchContext* ctx = nullptr);

// "(256, 1, 1)" → {256,1,1}; nullopt when malformed.
std::optional<std::array<int, 3>> parse_dim3(const std::string& text);

// NVTX push/pop cell: `756  "<default domain>:stage_copy:none:none:none:none:none:none" ` → {"stage_copy"}.
// Nested ranges appear as several quoted entries, outermost first (innermost last). Each entry is
// `Domain:Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`; the six trailing attribute fields are split off
// from the right so a range name containing ':' survives. Returns range names, outermost first.
std::vector<std::string> parse_nvtx_ranges(const std::string& cell, std::vector<bool>* in_default_domain = nullptr);


}  // namespace kprof::ncu

namespace kprof::ncu {

// Launches read from one page of one file, in order of first appearance.
struct LaunchPage {
  std::string file;
  std::vector<KernelLaunch> launches;
  std::vector<LaunchContext> contexts;  // parallel to launches
  std::vector<std::string> profiler_messages;  // ==PROF== / ==WARNING== / ==ERROR== lines, as printed
  std::vector<std::string> program_output;     // other non-CSV lines: the first kKeptOutputLines of them
  static constexpr std::size_t kKeptOutputLines = 1000;
  std::vector<std::string> warnings;           // implausible values left out (collect/ncu/value_checks.hpp)
};

// Copies launch facts that ncu also reports as metrics (duration, registers, shared memory, grid/block when the
// columns were absent) into the KernelLaunch fields. Idempotent.
void fill_launch_fields_from_metrics(KernelLaunch& k);

}  // namespace kprof::ncu
