#include "collect/ncu/canonical.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <vector>

namespace kprof::ncu {

namespace {

constexpr double kSectorBytes = 32;  // L1/L2 sector size on every NVIDIA GPU ncu supports

class Deriver {
 public:
  explicit Deriver(const KernelLaunch& k) : k_(k) {}

  std::optional<double> metric(const std::string& name) const {
    auto it = k_.metrics.find(name);
    if (it == k_.metrics.end() || !it->second.numeric) return std::nullopt;
    return it->second.value;
  }
  std::optional<double> label(const std::string& section, const std::string& name) const {
    for (const auto& s : k_.sections)
      if (s.section == section && s.name == name && s.value) return s.value;
    return std::nullopt;
  }
  const KernelLaunch& launch() const { return k_; }

  // First metric of `names` present → field; else the details-page label, if given.
  void first_of(std::optional<double>& field, const char* field_name, std::initializer_list<const char*> names,
                const char* section = nullptr, const char* lbl = nullptr) {
    for (const char* n : names)
      if (auto v = metric(n)) { set(field, field_name, *v, n); return; }
    if (section)
      if (auto v = label(section, lbl)) set(field, field_name, *v, fmt::format("details: {} / {}", section, lbl));
  }

  void set(std::optional<double>& field, const char* field_name, double v, const std::string& from) {
    field = v;
    out.provenance[field_name] = from;
  }

  CanonicalMetrics out;

 private:
  const KernelLaunch& k_;
};

// The largest of the metrics present among `names`, when at least `min_found` are.
std::optional<double> max_of(const Deriver& d, std::initializer_list<const char*> names, int min_found) {
  std::optional<double> best;
  int found = 0;
  for (const char* n : names)
    if (auto v = d.metric(n)) best = std::max(best.value_or(*v), *v), ++found;
  if (found < min_found) return std::nullopt;
  return best;
}

// Sum of two metrics when both exist.
std::optional<double> both(const Deriver& d, const char* a, const char* b) {
  auto va = d.metric(a), vb = d.metric(b);
  if (!va || !vb) return std::nullopt;
  return *va + *vb;
}

void derive_flops(Deriver& d, std::optional<double>& field, const char* field_name, char p) {
  const double w_add = p == 'h' ? 2 : 1, w_mul = p == 'h' ? 2 : 1, w_fma = p == 'h' ? 4 : 2;
  const std::string ops[3] = {"add", "mul", "fma"};
  const double weights[3] = {w_add, w_mul, w_fma};
  // 1. Counts.
  for (const char* unit : {"smsp__", "sm__"}) {
    double total = 0;
    std::vector<std::string> used, missing;
    for (int i = 0; i < 3; ++i) {
      std::string name = fmt::format("{}sass_thread_inst_executed_op_{}{}_pred_on.sum", unit, p, ops[i]);
      if (auto v = d.metric(name)) { total += weights[i] * *v; used.push_back(fmt::format("{}*{}", weights[i], name)); }
      else missing.push_back(fmt::format("{}{}", p, ops[i]));
    }
    if (!used.empty()) {
      std::string prov = fmt::format("{}", fmt::join(used, " + "));
      if (!missing.empty()) prov += fmt::format(" ({} not collected)", fmt::join(missing, ", "));
      d.set(field, field_name, total, prov);
      return;
    }
  }
  // Rates per elapsed cycle need the cycle count of the same unit.
  const char* cycles_name = "smsp__cycles_elapsed.avg";
  auto cycles = d.metric(cycles_name);
  if (!cycles) { cycles_name = "sm__cycles_elapsed.avg"; cycles = d.metric(cycles_name); }
  if (!cycles) return;
  // 2. Per-cycle rates.
  {
    double rate = 0;
    std::vector<std::string> used;
    for (int i = 0; i < 3; ++i) {
      std::string name =
          fmt::format("smsp__sass_thread_inst_executed_op_{}{}_pred_on.sum.per_cycle_elapsed", p, ops[i]);
      if (auto v = d.metric(name)) { rate += weights[i] * *v; used.push_back(fmt::format("{}*{}", weights[i], name)); }
    }
    if (!used.empty()) {
      d.set(field, field_name, rate * *cycles, fmt::format("({}) * {}", fmt::join(used, " + "), cycles_name));
      return;
    }
  }
  // 3. ncu's derived rates (weights already applied by ncu).
  {
    double rate = 0;
    std::vector<std::string> used;
    const std::string derived[3] = {fmt::format("derived__smsp__sass_thread_inst_executed_op_{}add_pred_on_x2", p),
                                    fmt::format("derived__smsp__sass_thread_inst_executed_op_{}mul_pred_on_x2", p),
                                    fmt::format("derived__smsp__sass_thread_inst_executed_op_{}fma_pred_on_x{}", p,
                                                p == 'h' ? 4 : 2)};
    for (const auto& name : derived)
      if (auto v = d.metric(name)) { rate += *v; used.push_back(name); }
    if (!used.empty())
      d.set(field, field_name, rate * *cycles, fmt::format("({}) * {}", fmt::join(used, " + "), cycles_name));
  }
}

std::string precision_of(const std::string& stem) {
  for (const char* p : {"bf16", "fp16", "tf32", "fp8", "fp64", "int8", "int4", "int1"})
    if (stem.find(p) != std::string::npos) return p;
  return "";
}

// One family of `<prefix><stem>.sum` tensor-op metrics, summed by precision; stems that extend another stem of the
// family ("fp8_sparsity_on" next to "fp8") are parts of it and are not added twice.
struct TensorFamily {
  std::map<std::string, double> by_precision;
  bool imma = false;  // IMMA's own metrics (integer mma.sync) are among them
};

TensorFamily tensor_family(const Deriver& d, const std::string& prefix) {
  std::vector<std::pair<std::string, double>> members;
  const auto& metrics = d.launch().metrics;
  for (auto it = metrics.lower_bound(prefix); it != metrics.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    const auto& [name, mv] = *it;
    if (!mv.numeric) continue;
    if (name.size() < prefix.size() + 4 || name.compare(name.size() - 4, 4, ".sum") != 0) continue;
    std::string stem = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    if (stem.find('.') != std::string::npos) continue;
    members.emplace_back(stem, mv.value);
  }
  TensorFamily f;
  for (const auto& [stem, v] : members) {
    bool part_of_other = false;
    for (const auto& [other, ov] : members)
      if (other != stem && stem.compare(0, other.size() + 1, other + "_") == 0) part_of_other = true;
    if (part_of_other) continue;
    const std::string p = precision_of(stem);
    f.by_precision[p] += v;
    if (stem.rfind("imma_", 0) == 0) f.imma = true;
  }
  return f;
}

// Tensor FLOPs per precision: the total sm__ops_path_tensor_src_<p>.sum where it was collected, else the sum of that
// precision's per-instruction counters sm__ops_path_tensor_op_<op>_src_<p>….sum (a raw page or a metric list may
// hold either or both). The annotation list asks for the totals: per-instruction counters (HGMMA by precision, dense
// HMMA) took two replay passes fewer on the H200 but cost the corpus 12 ms a kernel more (bench/RESULTS.md §1a⁷).
struct TensorCoverage {
  bool float_totals = false;  // the BF16, FP16 and TF32 totals were collected: no HMMA form is left out
  bool imma = false;          // IMMA (integer mma.sync) was counted: the INT8 total or IMMA's own metrics
};
TensorCoverage derive_tensor(Deriver& d) {
  const TensorFamily src = tensor_family(d, "sm__ops_path_tensor_src_");
  const TensorFamily ops = tensor_family(d, "sm__ops_path_tensor_op_");
  std::map<std::string, double> total = ops.by_precision;
  std::map<std::string, const char*> family;  // precision → the prefix its count came from
  for (const auto& [p, v] : ops.by_precision) family[p] = "sm__ops_path_tensor_op_";
  for (const auto& [p, v] : src.by_precision) total[p] = v, family[p] = "sm__ops_path_tensor_src_";
  const TensorCoverage cover{
      src.by_precision.count("bf16") && src.by_precision.count("fp16") && src.by_precision.count("tf32"),
      src.by_precision.count("int8") > 0 || ops.imma};
  if (total.empty()) return cover;
  double sum = 0, best = 0;
  std::string best_precision;
  std::vector<std::string> used;
  for (const auto& [p, v] : total) {
    sum += v;
    if (v > best) best = v, best_precision = p;
    const std::string from = fmt::format("{}*.sum", family[p]);
    if (std::find(used.begin(), used.end(), from) == used.end()) used.push_back(from);
  }
  d.set(d.out.flops_tensor, "flops_tensor", sum, fmt::format("sum of {}", fmt::join(used, " + ")));
  d.out.tensor_precision = best_precision;
  return cover;
}

}  // namespace

CanonicalMetrics derive_canonical(const KernelLaunch& k) {
  Deriver d(k);
  CanonicalMetrics& c = d.out;
  const char* sol = "GPU Speed Of Light Throughput";
  const char* mwa = "Memory Workload Analysis";

  d.first_of(c.duration_ns, "duration_ns", {"gpu__time_duration.sum"}, sol, "Duration");
  if (!c.duration_ns && k.duration_ns) d.set(c.duration_ns, "duration_ns", *k.duration_ns, "launch duration");
  d.first_of(c.sm_throughput_pct, "sm_throughput_pct", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}, sol,
             "Compute (SM) Throughput");
  if (!c.sm_throughput_pct) {
    // Without sm__throughput (six replay passes on GH100): the busiest of instruction issue and the pipes over
    // elapsed cycles, which sm__throughput takes the max of (with other SM sub-units).
    const char* parts[] = {"smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
                           "idc__request_cycles_active.avg.pct_of_peak_sustained_elapsed"};
    std::optional<double> best;
    int found = 0;
    for (const char* p : parts)
      if (auto v = d.metric(p)) best = std::max(best.value_or(0), *v), ++found;
    if (found >= 3)
      d.set(c.sm_throughput_pct, "sm_throughput_pct", *best,
            d.metric("idc__request_cycles_active.avg.pct_of_peak_sustained_elapsed")
                ? "max(issue active, FMA/ALU/FP64/XU/tensor/LSU pipes, IDC), % of peak over elapsed cycles"
                : "max(issue active, FMA/ALU/FP64/XU/tensor/LSU pipes), % of peak over elapsed cycles");
  }
  d.first_of(c.memory_throughput_pct, "memory_throughput_pct",
             {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}, sol, "Memory Throughput");
  // Without the breakdown metric (the annotation list leaves it out: the three breakdowns cost the CUPTI pass ~70 ms
  // a kernel on the H200, bench/RESULTS.md §1a⁶): the components that set it. On 331 kernels of `ncu --set full` on
  // the H200 (tests/fixtures/h200-corpus) their maximum equals it within 0.5 points. DRAM's must be among them.
  if (!c.memory_throughput_pct && d.metric("dram__cycles_active.avg.pct_of_peak_sustained_elapsed"))
    if (auto v = max_of(d, {"dram__cycles_active.avg.pct_of_peak_sustained_elapsed",
                            "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
                            "l1tex__m_l1tex2xbar_req_cycles_active.avg.pct_of_peak_sustained_elapsed",
                            "l1tex__texin_sm2tex_req_cycles_active.avg.pct_of_peak_sustained_elapsed",
                            "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed",
                            "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed",
                            "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"},
                        5))
      d.set(c.memory_throughput_pct, "memory_throughput_pct", *v,
            "max(DRAM cycles active, L1 data-pipe LSU wavefronts, L1->XBAR and SM->TEX requests, L2 XBAR in/out, L2 tag "
            "requests), % of peak over elapsed cycles: the components of gpu__compute_memory_throughput");
  d.first_of(c.dram_throughput_pct, "dram_throughput_pct",
             {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
              "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
             sol, "DRAM Throughput");
  // Matrix instructions only (HMMA, HGMMA, QGMMA); the plain HMMA-pipe metrics also count HFMA2.MMA (FP16 vector
  // math and register moves the compiler places on that pipe): an FP32-only kernel reads 4-5% there.
  d.first_of(c.tensor_pipe_pct, "tensor_pipe_pct",
             {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
              "sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_active"});
  if (!c.tensor_pipe_pct) {
    d.first_of(c.tensor_pipe_pct, "tensor_pipe_pct",
               {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"});
    c.tensor_pipe_includes_hfma2 = c.tensor_pipe_pct.has_value();
  }
  // Integer matrix instructions (IMMA) run on the tensor pipe but not on the HMMA-type counter: a cuBLAS int8 GEMM
  // that fell back to an SM80 WMMA kernel on the H200 reads 0% there and 13.5% on IMMA.
  if (auto imma = d.metric("sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active");
      imma && *imma > c.tensor_pipe_pct.value_or(0) && !c.tensor_pipe_includes_hfma2) {
    d.set(c.tensor_pipe_pct, "tensor_pipe_pct", *imma,
          "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active (integer matrix instructions)");
    c.tensor_pipe_imma = true;
  }
  d.first_of(c.achieved_occupancy_pct, "achieved_occupancy_pct", {"sm__warps_active.avg.pct_of_peak_sustained_active"},
             "Occupancy", "Achieved Occupancy");
  d.first_of(c.theoretical_occupancy_pct, "theoretical_occupancy_pct", {"sm__maximum_warps_per_active_cycle_pct"},
             "Occupancy", "Theoretical Occupancy");
  d.first_of(c.l2_hit_pct, "l2_hit_pct", {"lts__t_sector_hit_rate.pct"}, mwa, "L2 Hit Rate");
  d.first_of(c.l1_hit_pct, "l1_hit_pct", {"l1tex__t_sector_hit_rate.pct"}, mwa, "L1/TEX Hit Rate");
  d.first_of(c.waves_per_sm, "waves_per_sm", {"launch__waves_per_multiprocessor"}, "Launch Statistics",
             "Waves Per SM");

  d.first_of(c.dram_read_bytes, "dram_read_bytes", {"dram__bytes_read.sum"});
  d.first_of(c.dram_write_bytes, "dram_write_bytes", {"dram__bytes_write.sum"});
  d.first_of(c.dram_bytes, "dram_bytes", {"dram__bytes.sum"});
  if (!c.dram_bytes && c.dram_read_bytes && c.dram_write_bytes)
    d.set(c.dram_bytes, "dram_bytes", *c.dram_read_bytes + *c.dram_write_bytes,
          "dram__bytes_read.sum + dram__bytes_write.sum");
  d.first_of(c.l2_bytes, "l2_bytes", {"lts__t_bytes.sum"});
  if (!c.l2_bytes)
    if (auto s = d.metric("lts__t_sectors.sum")) d.set(c.l2_bytes, "l2_bytes", *s * kSectorBytes, "32*lts__t_sectors.sum");
  // Host memory the SMs touched: annotation's count of all their sysmem sectors, or the full set's misses (the
  // sectors L2 fetched over the host link, nearly all of them: L2 holds little host data).
  for (const char* sectors : {"lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
                              "lts__t_sectors_srcunit_tex_aperture_sysmem_lookup_miss.sum"})
    if (auto s = d.metric(sectors); s && !c.sysmem_bytes)
      d.set(c.sysmem_bytes, "sysmem_bytes", *s * kSectorBytes, std::string("32*") + sectors);
  d.first_of(c.l1_bytes, "l1_bytes", {"l1tex__t_bytes.sum"});
  if (!c.l1_bytes)
    if (auto s = d.metric("l1tex__t_sectors.sum")) d.set(c.l1_bytes, "l1_bytes", *s * kSectorBytes, "32*l1tex__t_sectors.sum");
  if (!c.l1_bytes) {
    // The full set has no L1 total; LSU global + local sectors are the data moved through L1 by loads/stores.
    const char* parts[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                           "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"};
    double sum = 0;
    bool all = true;
    for (const char* p : parts) {
      auto v = d.metric(p);
      all = all && v.has_value();
      if (v) sum += *v;
    }
    if (all) d.set(c.l1_bytes, "l1_bytes", sum * kSectorBytes, "32*l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum");
  }
  if (auto s = both(d, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"))
    d.set(c.local_memory_bytes, "local_memory_bytes", *s * kSectorBytes,
          "32*(l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum + l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum)");
  if (auto s = both(d, "sass__inst_executed_local_loads", "sass__inst_executed_local_stores"))
    d.set(c.local_memory_instructions, "local_memory_instructions", *s,
          "sass__inst_executed_local_loads + sass__inst_executed_local_stores");
  else if (auto s2 = both(d, "smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum"))
    d.set(c.local_memory_instructions, "local_memory_instructions", *s2,
          "smsp__sass_inst_executed_op_local_ld.sum + smsp__sass_inst_executed_op_local_st.sum");
  d.first_of(c.spill_requests, "spill_requests", {"derived__local_spilling_requests"}, mwa,
             "Local Memory Spilling Requests");

  derive_flops(d, c.flops_fp32, "flops_fp32", 'f');
  // FP32 opcode counts, from the counts or from their rates per elapsed cycle (ncu's full set has only the rates).
  auto sass_count = [&](const char* op) -> std::pair<std::optional<double>, std::string> {
    for (const char* unit : {"smsp__", "sm__"}) {
      std::string name = fmt::format("{}sass_thread_inst_executed_op_{}_pred_on.sum", unit, op);
      if (auto v = d.metric(name)) return {v, name};
    }
    std::string rate = fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed", op);
    auto r = d.metric(rate), cycles = d.metric("smsp__cycles_elapsed.avg");
    if (r && cycles) return {*r * *cycles, rate + " * smsp__cycles_elapsed.avg"};
    return {std::nullopt, ""};
  };
  if (auto [add, add_from] = sass_count("fadd"); add)
    if (auto [mul, mul_from] = sass_count("fmul"); mul) {
      d.set(c.fp32_fusable_pairs, "fp32_fusable_pairs", std::min(*add, *mul),
            fmt::format("min({}, {})", add_from, mul_from));
      if (auto [fma, fma_from] = sass_count("ffma"); fma) d.set(c.fp32_fma_instructions, "fp32_fma_instructions", *fma, fma_from);
    }
  derive_flops(d, c.flops_fp64, "flops_fp64", 'd');
  // Without SASS counts (the CUPTI range profiler): FP64-pipe thread instructions, each taken as an FMA. DFMA,
  // DADD and DMUL are what that pipe runs, so this is an upper bound, exact for FMA-only code.
  if (!c.flops_fp64)
    if (auto v = d.metric("sm__thread_inst_executed_pipe_fp64_pred_on.sum"))
      d.set(c.flops_fp64, "flops_fp64", 2.0 * *v, "2*sm__thread_inst_executed_pipe_fp64_pred_on.sum (upper bound: every FP64 instruction counted as an FMA)");
  derive_flops(d, c.flops_fp16, "flops_fp16", 'h');
  const TensorCoverage tensor_cover = derive_tensor(d);

  d.first_of(c.registers_per_thread, "registers_per_thread", {"launch__registers_per_thread"}, "Launch Statistics",
             "Registers Per Thread");
  if (auto s = both(d, "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic"))
    d.set(c.shared_mem_per_block_bytes, "shared_mem_per_block_bytes", *s,
          "launch__shared_mem_per_block_static + launch__shared_mem_per_block_dynamic");
  else if (auto st = d.label("Launch Statistics", "Static Shared Memory Per Block"))
    if (auto dy = d.label("Launch Statistics", "Dynamic Shared Memory Per Block"))
      d.set(c.shared_mem_per_block_bytes, "shared_mem_per_block_bytes", *st + *dy,
            "details: Launch Statistics / Static + Dynamic Shared Memory Per Block");
  d.first_of(c.grid_size, "grid_size", {"launch__grid_size"});
  const auto& g = k.launch.grid;
  if (!c.grid_size && g[0] > 0) d.set(c.grid_size, "grid_size", double(g[0]) * g[1] * g[2], "Grid Size column");
  d.first_of(c.block_size, "block_size", {"launch__block_size"});
  const auto& b = k.launch.block;
  if (!c.block_size && b[0] > 0) d.set(c.block_size, "block_size", double(b[0]) * b[1] * b[2], "Block Size column");
  d.first_of(c.sm_clock_hz, "sm_clock_hz", {"sm__cycles_elapsed.avg.per_second"}, sol, "SM Frequency");
  // A tensor-pipe reading that may include HFMA2.MMA, on a kernel whose tensor FLOP counters read zero, is no
  // matrix math at all.
  if (c.tensor_pipe_includes_hfma2 && c.flops_tensor && *c.flops_tensor == 0 && c.tensor_pipe_pct &&
      *c.tensor_pipe_pct > 0) {
    d.set(c.tensor_pipe_pct, "tensor_pipe_pct", 0.0,
          c.provenance["tensor_pipe_pct"] + " read " + fmt::format("{:.3g}", *c.tensor_pipe_pct) +
              "% but no tensor FLOPs were counted: HFMA2.MMA only, no matrix math");
    c.tensor_pipe_includes_hfma2 = false;
  }
  // Matrix instructions on the tensor pipe with no tensor op counted, where the list leaves their precision out
  // (sparse HMMA or FP16 accumulation when HMMA is counted by precision; IMMA without an INT8 count): absent, not 0.
  if (c.flops_tensor && *c.flops_tensor == 0 && !c.tensor_pipe_includes_hfma2 && c.tensor_pipe_pct &&
      *c.tensor_pipe_pct >= 1.0 && (c.tensor_pipe_imma ? !tensor_cover.imma : !tensor_cover.float_totals)) {
    c.flops_tensor.reset();
    c.provenance["flops_tensor"] = fmt::format(
        "not counted: the tensor pipe read {:.3g}% on matrix instructions of a precision the metric list leaves out "
        "({})", *c.tensor_pipe_pct, c.tensor_pipe_imma ? "INT8 IMMA" : "sparse HMMA or FP16 accumulation");
  }

  // Pipes and issue.
  d.first_of(c.fma_pipe_pct, "fma_pipe_pct",
             {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
              "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"});
  d.first_of(c.fma_pipe_instructions, "fma_pipe_instructions", {"sm__thread_inst_executed_pipe_fma_pred_on.sum"});
  d.first_of(c.fp16_pipe_instructions, "fp16_pipe_instructions", {"sm__thread_inst_executed_pipe_fma_type_fp16_pred_on.sum"});
  // The FMA pipe is two sub-pipes, and its busy share is their average. Both run FP32 and FP16 arithmetic; integer
  // multiply-adds (IMAD) issue to the heavy one only, so index arithmetic can saturate it at half the pipe's
  // reading (a 64-bit div/mod kernel on the H200: sm__pipe_fma_cycles_active 35.4%, fmaheavy 70.7%, lite idle).
  // The integer share s of the pipe's work comes from the sub-pipes (FP work splits evenly over both, so
  // integer = heavy - lite) or, without them, from the instruction counts (what is neither an FP32 FLOP nor FP16 is
  // integer: a lower bound, since an FFMA is two FLOPs). On that even split the heavy sub-pipe reads (1 + s) times
  // the average; where integer work is most of the pipe's (s > 1/2) the heavy reading is the pipe's.
  if (c.fma_pipe_pct) {
    auto heavy = d.metric("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed");
    auto fma_elapsed = d.metric("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed");
    const char* basis = "elapsed";
    if (auto heavy_active = d.metric("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active")) {
      heavy = heavy_active;  // the same ratio over active cycles, beside the pipe's own active reading
      fma_elapsed = c.fma_pipe_pct;
      basis = "active";
    }
    if (heavy && fma_elapsed && *fma_elapsed > 0 && *heavy > 0) {
      const double lite = std::max(0.0, 2.0 * *fma_elapsed - *heavy);
      d.set(c.fma_integer_share, "fma_integer_share", std::clamp((*heavy - lite) / (*heavy + lite), 0.0, 1.0),
            fmt::format("(fmaheavy - fmalite) / (fmaheavy + fmalite), fmalite = 2 x sm__pipe_fma_cycles_active - "
                        "fmaheavy (over {} cycles)", basis));
      if (*c.fma_integer_share > 0.5 && *heavy > *fma_elapsed)
        d.set(c.fma_pipe_pct, "fma_pipe_pct", std::min(100.0, *c.fma_pipe_pct * *heavy / *fma_elapsed),
              fmt::format("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active scaled by fmaheavy / fma (over "
                          "{} cycles): the heavy sub-pipe, which the integer multiply-adds use alone", basis));
    } else if (c.fma_pipe_instructions && *c.fma_pipe_instructions > 0 && c.flops_fp32) {
      const double fp = std::min(*c.fma_pipe_instructions, *c.flops_fp32 + c.fp16_pipe_instructions.value_or(0));
      d.set(c.fma_integer_share, "fma_integer_share", 1.0 - fp / *c.fma_pipe_instructions,
            "1 - (FP32 FLOPs + FP16 FMA-pipe instructions) / FMA-pipe thread instructions (a lower bound)");
      if (*c.fma_integer_share > 0.5)
        d.set(c.fma_pipe_pct, "fma_pipe_pct", std::min(100.0, *c.fma_pipe_pct * (1.0 + *c.fma_integer_share)),
              fmt::format("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active x (1 + {:.2f}): the heavy "
                          "sub-pipe, which carries the integer share of the FMA pipe's work alone",
                          *c.fma_integer_share));
    }
  }
  d.first_of(c.alu_pipe_pct, "alu_pipe_pct",
             {"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
              "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"});
  d.first_of(c.fp64_pipe_pct, "fp64_pipe_pct",
             {"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
              "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active"});
  // FP64 matrix instructions (DMMA) run on the tensor datapath, not on the FP64 pipe Nsight Compute names: a cuBLAS
  // DGEMM on the H200 reads 0.05% there and 97.7% on DMMA. Both are FP64 work: the busier one is the FP64 pipe.
  if (auto dmma = d.metric("sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active");
      dmma && *dmma > c.fp64_pipe_pct.value_or(0))
    d.set(c.fp64_pipe_pct, "fp64_pipe_pct", *dmma,
          "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active (FP64 matrix instructions, busier "
          "than the FP64 vector pipe)");
  d.first_of(c.xu_pipe_pct, "xu_pipe_pct", {"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"});
  d.first_of(c.lsu_pipe_pct, "lsu_pipe_pct", {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"});
  d.first_of(c.issue_active_pct, "issue_active_pct",
             {"smsp__issue_active.avg.pct_of_peak_sustained_active", "sm__issue_active.avg.pct_of_peak_sustained_active"});
  d.first_of(c.l1_throughput_pct, "l1_throughput_pct", {"l1tex__throughput.avg.pct_of_peak_sustained_active"});
  // Without the breakdown: the components that set it. On the 331 kernels above the maximum of their elapsed forms
  // equals l1tex__throughput's elapsed form (within 0.2 points), and scaled by the SMs' elapsed/active cycles its
  // active form within 3.5; the active forms, which the annotation list asks for, read within 0.8 of it on the 25
  // corpus kernels through CUPTI (examples/h200/logs/session-2026-12-03e/components-table.txt).
  if (!c.l1_throughput_pct) {
    if (auto v = max_of(d, {"l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active",
                            "l1tex__m_l1tex2xbar_req_cycles_active.avg.pct_of_peak_sustained_active",
                            "l1tex__texin_sm2tex_req_cycles_active.avg.pct_of_peak_sustained_active"},
                        2))
      d.set(c.l1_throughput_pct, "l1_throughput_pct", *v,
            "max(L1 data-pipe LSU wavefronts, L1->XBAR requests, SM->TEX requests), % of peak over active cycles: "
            "the components of l1tex__throughput");
    else if (auto e = max_of(d, {"l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
                                 "l1tex__m_l1tex2xbar_req_cycles_active.avg.pct_of_peak_sustained_elapsed",
                                 "l1tex__texin_sm2tex_req_cycles_active.avg.pct_of_peak_sustained_elapsed"},
                             2)) {
      auto active = d.metric("sm__cycles_active.avg"), elapsed = d.metric("sm__cycles_elapsed.avg");
      if (active && elapsed && *active > 0)
        d.set(c.l1_throughput_pct, "l1_throughput_pct", *e * *elapsed / *active,
              "max(L1 data-pipe LSU wavefronts, L1->XBAR requests, SM->TEX requests) over elapsed cycles x "
              "sm__cycles_elapsed.avg / sm__cycles_active.avg: the components of l1tex__throughput");
    }
  }
  // L2: its sector, data-bank, tag and XBAR components, in every mode where they were collected (the annotation
  // list and `--set full` both have them), so that annotation and ncu mode read the same quantity. lts__throughput
  // also counts a component no ncu page shows, which follows DRAM traffic: on DRAM-streaming kernels it reads ~90%
  // where these read ~55% (on the 331 kernels: 10.8 points lower on average, more than 15 points lower on 102).
  // That part is DRAM's load, which the DRAM reading carries; what is left is L2's own. The ncu-mode scores of every
  // held-out set are the same either way (bench/RESULTS.md §1a⁶). Without three components, lts__throughput.
  if (auto v = max_of(d, {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
                          "lts__d_sectors.avg.pct_of_peak_sustained_elapsed",
                          "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed",
                          "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed",
                          "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"},
                      3))
    d.set(c.l2_throughput_pct, "l2_throughput_pct", *v,
          "max(L2 sectors, data-bank sectors, tag requests, XBAR in/out), % of peak over elapsed cycles");
  if (!c.l2_throughput_pct)
    d.first_of(c.l2_throughput_pct, "l2_throughput_pct", {"lts__throughput.avg.pct_of_peak_sustained_elapsed"});
  d.first_of(c.idc_pct, "idc_pct", {"idc__request_cycles_active.avg.pct_of_peak_sustained_elapsed"});

  // Access patterns.
  d.first_of(c.global_load_sectors, "global_load_sectors", {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"});
  d.first_of(c.global_load_requests, "global_load_requests", {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"});
  d.first_of(c.global_store_sectors, "global_store_sectors", {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"});
  d.first_of(c.global_store_requests, "global_store_requests", {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"});
  if (auto s = both(d, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"))
    d.set(c.global_atomic_requests, "global_atomic_requests", *s,
          "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum + l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
  if (auto s = both(d, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"))
    d.set(c.shared_wavefronts, "shared_wavefronts", *s,
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum + l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
  if (auto s = both(d, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"))
    d.set(c.shared_bank_conflicts, "shared_bank_conflicts", *s,
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
  // Shared atomics: Nsight Compute's own count, or (the CUPTI range profiler has only the total) all shared
  // wavefronts less the loads' and stores'.
  d.first_of(c.shared_atomic_instructions, "shared_atomic_instructions", {"smsp__inst_executed_op_shared_atom.sum"});
  d.first_of(c.shared_atomic_wavefronts, "shared_atomic_wavefronts",
             {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"});
  if (!c.shared_atomic_wavefronts)
    if (auto all = d.metric("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"); all && c.shared_wavefronts)
      d.set(c.shared_atomic_wavefronts, "shared_atomic_wavefronts", std::max(0.0, *all - *c.shared_wavefronts),
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum - (op_ld + op_st wavefronts)");
  d.first_of(c.threads_per_instruction, "threads_per_instruction", {"smsp__thread_inst_executed_per_inst_executed.ratio"});
  d.first_of(c.global_load_bytes_per_sector, "global_load_bytes_per_sector",
             {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"});
  d.first_of(c.global_store_bytes_per_sector, "global_store_bytes_per_sector",
             {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"});
  if (auto active = d.metric("sm__cycles_active.avg"))
    if (auto elapsed = d.metric("sm__cycles_elapsed.avg"); elapsed && *elapsed > 0)
      d.set(c.sm_active_pct, "sm_active_pct", std::min(100.0, *active / *elapsed * 100.0),
            "sm__cycles_active.avg / sm__cycles_elapsed.avg");
  // Without SM active cycles (the annotation list): instruction issue over elapsed cycles against over the
  // sub-partitions' active cycles is the share of the time they were active. That is the SMs' share only where
  // every sub-partition has warps (at least 8 warps per SM on average: achieved occupancy 12.5%; with 2 warps the
  // sub-partitions read half the SMs' 99.9%), or where each block has a warp for every sub-partition (128 threads:
  // the warps of a block go to the four sub-partitions in turn), and where issue is busy enough (5%) for the ratio to
  // mean something.
  const auto block = d.metric("launch__block_size");
  if (!c.sm_active_pct && ((c.achieved_occupancy_pct && *c.achieved_occupancy_pct >= 12.5) || (block && *block >= 128)))
    if (auto over_elapsed = d.metric("smsp__issue_active.avg.pct_of_peak_sustained_elapsed"))
      if (auto over_active = d.metric("smsp__issue_active.avg.pct_of_peak_sustained_active"); over_active && *over_active >= 5.0)
        d.set(c.sm_active_pct, "sm_active_pct", std::min(100.0, *over_elapsed / *over_active * 100.0),
              "smsp__issue_active over elapsed / over active cycles");
  {
    const std::string prefix = "smsp__average_warps_issue_stalled_", suffix = "_per_issue_active.ratio";
    const auto& metrics = k.metrics;
    for (auto it = metrics.lower_bound(prefix); it != metrics.end() && it->first.compare(0, prefix.size(), prefix) == 0;
         ++it) {
      const std::string& name = it->first;
      if (!it->second.numeric || name.size() <= prefix.size() + suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      c.stalls[name.substr(prefix.size(), name.size() - prefix.size() - suffix.size())] = it->second.value;
    }
    if (!c.stalls.empty()) c.provenance["stalls"] = prefix + "<reason>" + suffix;
  }
  d.first_of(c.occupancy_limit_registers, "occupancy_limit_registers", {"launch__occupancy_limit_registers"});
  d.first_of(c.occupancy_limit_shared_mem, "occupancy_limit_shared_mem", {"launch__occupancy_limit_shared_mem"});
  d.first_of(c.occupancy_limit_warps, "occupancy_limit_warps", {"launch__occupancy_limit_warps"});
  d.first_of(c.occupancy_limit_blocks, "occupancy_limit_blocks", {"launch__occupancy_limit_blocks"});

  const std::pair<const char*, const std::optional<double>*> fields[] = {
      {"duration_ns", &c.duration_ns}, {"sm_throughput_pct", &c.sm_throughput_pct},
      {"memory_throughput_pct", &c.memory_throughput_pct}, {"dram_throughput_pct", &c.dram_throughput_pct},
      {"tensor_pipe_pct", &c.tensor_pipe_pct}, {"achieved_occupancy_pct", &c.achieved_occupancy_pct},
      {"theoretical_occupancy_pct", &c.theoretical_occupancy_pct}, {"l2_hit_pct", &c.l2_hit_pct},
      {"l1_hit_pct", &c.l1_hit_pct}, {"waves_per_sm", &c.waves_per_sm}, {"dram_bytes", &c.dram_bytes},
      {"dram_read_bytes", &c.dram_read_bytes}, {"dram_write_bytes", &c.dram_write_bytes}, {"l2_bytes", &c.l2_bytes},
      {"l1_bytes", &c.l1_bytes}, {"local_memory_bytes", &c.local_memory_bytes},
      {"local_memory_instructions", &c.local_memory_instructions}, {"spill_requests", &c.spill_requests},
      {"flops_fp64", &c.flops_fp64}, {"flops_fp32", &c.flops_fp32}, {"flops_fp16", &c.flops_fp16},
      {"flops_tensor", &c.flops_tensor}, {"registers_per_thread", &c.registers_per_thread},
      {"shared_mem_per_block_bytes", &c.shared_mem_per_block_bytes}, {"grid_size", &c.grid_size},
      {"block_size", &c.block_size}, {"sm_clock_hz", &c.sm_clock_hz}};
  for (const auto& [name, f] : fields)
    if (!f->has_value()) c.unavailable.push_back(name);
  return c;
}

}  // namespace kprof::ncu
