#include "collect/ncu/launch_columns.hpp"

#include "collect/nvtx_path.hpp"

#include <limits>
#include <string_view>

#include "collect/kernel_name.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "collect/ncu/units.hpp"
#include "util/errors.hpp"

namespace kprof::ncu {

namespace {

// An integer cell that fits T; nullopt for anything else (a cast of an out-of-range double is undefined).
template <class T>
std::optional<T> integer_value(std::optional<double> v) {
  if (!v || *v != std::floor(*v) || *v < static_cast<double>(std::numeric_limits<T>::min()) ||
      *v >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::nullopt;
  return static_cast<T>(*v);
}

template <class T>
std::optional<T> integer_cell(const std::string& text) {
  return integer_value<T>(parse_number(text));
}

}  // namespace

LaunchColumns LaunchColumns::locate(const std::vector<std::string>& header) {
  LaunchColumns c;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string& h = header[i];
    auto set = [&](int& slot) { if (slot < 0) slot = i; };
    if (h == "ID") set(c.id);
    else if (h == "Process ID") set(c.pid);
    else if (h == "Process Name") set(c.process);
    else if (h == "Host Name") set(c.host);
    else if (h == "Kernel Name") set(c.kernel);
    else if (h == "Context") set(c.context);
    else if (h == "Stream") set(c.stream);
    else if (h == "Block Size") set(c.block);
    else if (h == "Grid Size") set(c.grid);
    else if (h == "Device") set(c.device);
    else if (h == "CC") set(c.cc);
    else if (h.rfind("thread Domain:Push/Pop_Range", 0) == 0) set(c.nvtx_push_pop);
    else if (h.rfind("Id:Domain:Start/Stop_Range", 0) == 0) set(c.nvtx_start_stop);
  }
  return c;
}

bool LaunchColumns::is_launch_column(int i) const {
  for (int c : {id, pid, process, host, kernel, context, stream, block, grid, device, cc, nvtx_push_pop,
                nvtx_start_stop})
    if (c == i) return true;
  return false;
}

std::optional<std::array<int, 3>> parse_dim3(const std::string& text) {
  std::array<int, 3> d{1, 1, 1};
  std::string t;
  for (char c : text)
    if (c != '(' && c != ')' && c != ' ') t.push_back(c);
  if (t.empty()) return std::nullopt;
  std::size_t start = 0;
  for (int k = 0; k < 3; ++k) {
    std::size_t comma = t.find(',', start);
    std::string part = t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto v = parse_number(part);
    if (!v || *v < 0 || *v > std::numeric_limits<int>::max() || *v != std::floor(*v)) return std::nullopt;
    d[k] = static_cast<int>(*v);
    if (comma == std::string::npos) return d;  // "(66)" and "(66, 1)" fill the rest with 1
    start = comma + 1;
  }
  return std::nullopt;  // more than three components
}

std::vector<std::string> parse_nvtx_ranges(const std::string& cell, std::vector<bool>* in_default_domain) {
  std::vector<std::string> out;
  if (in_default_domain) in_default_domain->clear();
  std::size_t pos = 0;
  while (true) {
    std::size_t q1 = cell.find('"', pos);
    if (q1 == std::string::npos) break;
    std::size_t q2 = cell.find('"', q1 + 1);
    if (q2 == std::string::npos) break;
    std::string entry = cell.substr(q1 + 1, q2 - q1 - 1);
    pos = q2 + 1;
    // The fields as views into the entry (begin offsets; each ends before the next ':'), so that any run of them
    // joined with ':' is one substring of it: every step below is linear in the entry.
    std::vector<std::size_t> begin;
    for (std::size_t s = 0;;) {
      begin.push_back(s);
      std::size_t c = entry.find(':', s);
      if (c == std::string::npos) break;
      s = c + 1;
    }
    const std::size_t n = begin.size();
    const std::string_view view(entry);
    auto end_of = [&](std::size_t i) { return i + 1 < n ? begin[i + 1] - 1 : entry.size(); };
    auto run = [&](std::size_t from, std::size_t to) {  // fields [from, to) joined with ':'
      return view.substr(begin[from], end_of(to - 1) - begin[from]);
    };
    std::string name;
    if (n >= 8) {
      // Domain, the range name, four attribute fields, the message type and the message; the name and the
      // message may hold ':' (CUB's registered "cub::DeviceScan::InclusiveScan" is both). The name is the
      // shortest run followed by a known message type and a message that is "none" or the name itself.
      for (std::size_t k = 1; k + 6 < n; ++k) {
        const std::string_view type = run(k + 5, k + 6);
        if (type != "none" && type != "ASCII" && type != "UNICODE" && type != "REGISTERED") continue;
        const std::string_view candidate = run(1, k + 1), message = run(k + 6, n);
        if (message == "none" || message == candidate) {
          name = std::string(candidate);
          break;
        }
      }
      // Otherwise: the six trailing fields split off from the right.
      if (name.empty()) name = std::string(run(1, n - 6));
    } else if (n >= 2) {
      name = entry.substr(entry.find(':') + 1);
    } else {
      name = entry;
    }
    if (name.empty()) continue;
    out.push_back(name);
    if (in_default_domain) in_default_domain->push_back(n < 2 || run(0, 1) == "<default domain>");
  }
  return out;
}

KernelLaunch read_launch(const LaunchColumns& cols, const std::vector<std::string>& row, const std::string& file,
                         long line, LaunchContext* ctx) {
  auto cell = [&](int i) -> std::string { return i >= 0 && i < static_cast<int>(row.size()) ? row[i] : ""; };
  KernelLaunch k;
  auto id = parse_number(cell(cols.id));
  if (!id || *id < 0 || *id != std::floor(*id))
    throw ParseError(file, line, fmt::format("field \"ID\": launch ID \"{}\" is not a non-negative integer", cell(cols.id)));
  if (*id > std::numeric_limits<int>::max())  // KernelLaunch::id is an int: a wrapped cast went negative
    throw ParseError(file, line, fmt::format("field \"ID\": launch ID \"{}\" is out of range (above {})", cell(cols.id),
                                             std::numeric_limits<int>::max()));
  k.id = static_cast<int>(*id);
  k.name = cell(cols.kernel);
  if (k.name.find_first_not_of(" \t") == std::string::npos)
    throw ParseError(file, line, "field \"Kernel Name\" is empty");
  k.function = function_base_name(k.name);
  if (auto v = integer_cell<std::int64_t>(cell(cols.context))) k.context = *v;
  if (auto v = integer_cell<std::int64_t>(cell(cols.stream))) k.stream = *v;
  if (auto v = integer_cell<int>(cell(cols.device))) k.device = *v;
  if (auto d = parse_dim3(cell(cols.block))) k.launch.block = *d;
  if (auto d = parse_dim3(cell(cols.grid))) k.launch.grid = *d;
  std::vector<bool> in_default;
  k.nvtx_stack = parse_nvtx_ranges(cell(cols.nvtx_push_pop), &in_default);
  if (k.nvtx_stack.empty()) k.nvtx_stack = parse_nvtx_ranges(cell(cols.nvtx_start_stop), &in_default);
  if (int i = stage_range_index(in_default); i >= 0) k.nvtx_range = k.nvtx_stack[i];
  if (ctx) {
    ctx->process_name = cell(cols.process);
    if (auto v = integer_cell<long>(cell(cols.pid))) ctx->pid = *v;
    ctx->compute_capability = cell(cols.cc);
    ctx->line = line;
  }
  return k;
}

}  // namespace kprof::ncu

namespace kprof::ncu {

namespace {
std::optional<double> numeric(const KernelLaunch& k, const char* name) {
  auto it = k.metrics.find(name);
  if (it == k.metrics.end() || !it->second.numeric) return std::nullopt;
  return it->second.value;
}
std::optional<double> section_value(const KernelLaunch& k, const char* section, const char* name) {
  for (const auto& s : k.sections)
    if (s.section == section && s.name == name) return s.value;
  return std::nullopt;
}
}  // namespace

void fill_launch_fields_from_metrics(KernelLaunch& k) {
  if (auto v = numeric(k, "gpu__time_duration.sum")) k.duration_ns = *v;
  else if (auto s = section_value(k, "GPU Speed Of Light Throughput", "Duration")) k.duration_ns = *s;
  if (auto v = integer_value<int>(numeric(k, "launch__registers_per_thread"))) k.launch.registers_per_thread = *v;
  if (auto v = integer_value<std::int64_t>(numeric(k, "launch__shared_mem_per_block_static")))
    k.launch.shared_mem_static_bytes = *v;
  if (auto v = integer_value<std::int64_t>(numeric(k, "launch__shared_mem_per_block_dynamic")))
    k.launch.shared_mem_dynamic_bytes = *v;
  auto fill_dims = [&](std::array<int, 3>& d, const char* x, const char* y, const char* z) {
    if (d[0] != 0) return;
    auto vx = integer_value<int>(numeric(k, x)), vy = integer_value<int>(numeric(k, y)),
         vz = integer_value<int>(numeric(k, z));
    if (vx) d = {*vx, vy ? *vy : 1, vz ? *vz : 1};
  };
  fill_dims(k.launch.grid, "launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z");
  fill_dims(k.launch.block, "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z");
}

}  // namespace kprof::ncu
