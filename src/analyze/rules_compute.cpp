// Diagnosis rules on how a kernel uses its pipes: divergent warps, matrix math on the CUDA cores, and tensor math
// that leaves its pipe idle.
#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "analyze/diagnosis_rule.hpp"

namespace kprof::analyze {

namespace {

// True when the kernel's name says it multiplies matrices (data/thresholds.toml diagnosis.matmul_names) or the
// plan declares low-precision matrix work for it.
bool is_matmul(const RuleContext& r) {
  const DeclaredWork& declared = r.declared;
  // A plan that declares low-precision work at a high arithmetic intensity declares matrix math (elementwise and
  // reduction kernels stay under ~10 FLOP/B; a GEMM or attention tile is in the hundreds).
  const bool low_precision = declared.precision == "bf16" || declared.precision == "fp16" ||
                             declared.precision == "tf32" || declared.precision == "fp8";
  if (low_precision && declared.flops && declared.min_bytes && *declared.min_bytes > 0 &&
      *declared.flops / *declared.min_bytes >= r.p("matmul_min_intensity"))
    return true;
  auto it = r.t.texts.find("diagnosis.matmul_names");
  if (it == r.t.texts.end() || it->second.empty()) return false;
  try {
    std::regex re(it->second, std::regex::ECMAScript | std::regex::icase);
    return std::regex_search(r.g.kernel, re) || std::regex_search(r.g.signature, re);
  } catch (const std::regex_error&) {
    return false;
  }
}

}  // namespace

void detect_divergence(RuleContext& r) {
  const auto& m = r.m;
  if (!m.threads_per_instruction) return;
  double tpi = *m.threads_per_instruction;
  // A block smaller than a warp leaves lanes empty by its shape, not by branches (the occupancy rule names it).
  if (auto lanes = sub_warp_block(m); lanes && tpi >= *lanes - 0.5) return;
  if (tpi >= r.p("divergence_threads")) return;
  double issue = m.issue_active_pct ? *m.issue_active_pct / 100.0 : std::min(1.0, r.sol_max() / 100.0);
  r.add(CauseId::warp_divergence, "warp divergence",
        fmt::format("{:.1f} of 32 threads active per executed instruction", tpi), (1.0 - tpi / 32.0) * issue,
        fmt::format("threads_per_instruction={:.1f}", tpi));
}

void detect_matmul_off_tensor(RuleContext& r) {
  const auto& m = r.m;
  if (!is_matmul(r)) return;
  bool tensor_idle = m.tensor_pipe_pct ? *m.tensor_pipe_pct < 5.0 : val(m.flops_tensor) <= 0;
  if (!tensor_idle) return;
  double scalar_flops = val(m.flops_fp32) + val(m.flops_fp16);
  bool fma_busy = val(m.fma_pipe_pct) >= 20.0;
  // (CUPTI counts no FP32 FLOPs: there the FMA pipe's floating-point instructions are the math, 2 FLOPs each, where
  // the pipe's integer share is known. Not where FLOPs were counted and are zero, nor beside FP64 math.)
  const bool fma_counted = !m.flops_fp32 && val(m.flops_fp64) <= 0 && m.fma_integer_share &&
                           val(m.fma_pipe_instructions) > 0 && m.fma_pipe_pct && *m.fma_pipe_pct > 0;
  if (scalar_flops <= 0 && !fma_busy && !fma_counted) return;
  // A matrix multiply on the CUDA cores keeps its FMA pipe busy with floating-point FMAs. Where most of that pipe's
  // work is integer (IMAD: index arithmetic, which the FMA pipe also runs), the kernel is bound by computing
  // addresses, not by math the tensor cores would take: PyTorch's NCHW depthwise 7x7 conv weight gradient on the
  // H200 (FMA pipe 79% busy, 90% of it integer, 1.4 TFLOP/s; the integer-pipe rule names it).
  const double integer_share = std::clamp(m.fma_integer_share.value_or(0.0), 0.0, 1.0);
  if (integer_share > r.p("matmul_max_fma_integer_share")) return;
  // A name is not matrix math: a depthwise convolution (cuDNN's conv2d_c1_k1_nhwc on the H200: ~4 FLOP per DRAM
  // byte) reduces over 9 taps, not over channels, and has nothing for the tensor cores. Matrix math reuses each
  // byte many times; the FLOPs (or 2 per FMA-pipe thread instruction where FLOPs are not counted) per DRAM
  // byte must reach matmul_min_counted_intensity.
  const double work = scalar_flops > 0 ? scalar_flops
                                       : 2.0 * m.fma_pipe_float_instructions().value_or(val(m.fma_pipe_instructions));
  if (work > 0 && m.dram_bytes && *m.dram_bytes > 0 && work / *m.dram_bytes < r.p("matmul_min_counted_intensity"))
    return;
  // The memory side of a scalar matmul is usually its operands re-read through L1/L2; MMA tiles stage those
  // operands in shared memory and registers, so moving bf16/fp16 math to the tensor cores removes that traffic too
  // (mla v1→v2 realised 95% where the halved estimate said 45%). FP32 operands need TF32 for that, a precision
  // change: tiling on the CUDA cores stays the first step there (a naive SGEMM). A DRAM-bound matmul keeps its
  // memory side either way.
  const double dram = r.dram_pct();
  const std::string& prec = r.declared.precision;
  const bool half_operands = prec == "bf16" || prec == "fp16" || prec == "fp8" || val(m.flops_fp16) > val(m.flops_fp32);
  // Nor for a kernel that already stages its operands in shared memory (most of its L1/shared work is shared-memory
  // wavefronts, not global sectors) with DRAM far from its roof: its memory side is its own tiles, read once per FMA,
  // which MMA fragments (one shared load per many multiply-adds) relieve; tiling again on the CUDA cores (register
  // blocking) is the smaller step (set 41's 32x32 shared-tiled QKV matmul and set 33's tiled SGEMM: L1/shared 95%
  // busy, FMA pipe 11%, both labelled blind "use tensor cores").
  const double global_sectors = val(m.global_load_sectors) + val(m.global_store_sectors);
  const bool own_tiles = val(m.shared_wavefronts) - val(m.shared_bank_conflicts) > global_sectors && global_sectors > 0 &&
                         (m.dram_measured_pct || m.dram_throughput_pct) && dram < r.p("dram_bound_pct");
  bool compute_side = val(m.fma_pipe_pct) >= 40.0 || val(m.sm_throughput_pct) >= val(m.memory_throughput_pct) ||
                      (half_operands && dram < r.p("dram_bound_pct")) || own_tiles;
  // Gain: the same FLOPs at the tensor-core roof for this arithmetic intensity.
  double gain = r.headroom;
  std::string at;
  if (r.spec && m.duration_ns && *m.duration_ns > 0) {
    const DeclaredWork& declared = r.declared;
    std::string prec = declared.precision == "bf16" || declared.precision == "fp16" ? declared.precision : "tf32";
    if (m.flops_fp16 && val(m.flops_fp16) > val(m.flops_fp32)) prec = "fp16";
    double flops = scalar_flops > 0 ? scalar_flops : val(declared.flops) > 0 ? val(declared.flops) : fma_counted ? work : 0.0;
    auto peak = r.spec->peak(prec + "_tflops");
    if (peak && flops > 0) {
      double achieved = flops / (*m.duration_ns * 1e-9) / 1e12;
      // A first tensor-core version does not reach the roof: on Hopper, mma.sync/WMMA without asynchronous copies
      // or a pipeline reaches a fraction of it (wgmma with TMA is what gets near). The estimate assumes
      // tensor_port_roof_share of the roof, between the bundled first WMMA ports (gemm v3 and mla v2: 12% and 11% of
      // the measured bf16 roof) and a tuned mma.sync kernel (FlashAttention-2 on an H100, about a third of the
      // dense peak): bench/RESULTS.md §9k.
      const double port = peak->value * r.p("tensor_port_roof_share");
      double roof = port;
      if (auto bw = r.spec->peak("dram_gbps"); bw && m.dram_bytes && *m.dram_bytes > 0)
        roof = std::min(roof, flops / *m.dram_bytes * bw->value * 1e9 / 1e12);
      gain = std::clamp(1.0 - achieved / roof, 0.0, 1.0);
      at = fmt::format(" at {:.1f} TFLOP/s against a {} tensor roof of {:.0f} (a first port reaches {:.0f}{})",
                       achieved, prec, peak->value, port,
                       roof < port ? fmt::format(", the memory roof at this intensity {:.0f}", roof) : std::string());
    }
  }
  const std::string fma = m.fma_pipe_pct ? fmt::format(" (FMA pipe {:.0f}% busy)", *m.fma_pipe_pct) : "";
  Finding& c = r.add(
      CauseId::matmul_without_tensor_cores, "matrix multiply without tensor cores",
      fmt::format("a matrix multiply on the CUDA cores{}{} with the tensor pipe idle", fma, at),
      compute_side ? gain : std::min(gain, r.headroom) * 0.5,
      m.fma_pipe_pct ? fmt::format("fma_pipe={:.0f}%, tensor_pipe={:.1f}%", *m.fma_pipe_pct, val(m.tensor_pipe_pct))
                     : fmt::format("tensor_pipe={:.1f}%, fp32_flops={:.3g}", val(m.tensor_pipe_pct), scalar_flops));
  // On the memory side the tensor cores are advice beside the bound, not the reason for it.
  c.specific = compute_side;
}

// Tensor math whose pipe is mostly idle: operands do not reach the MMA units fast enough.
void detect_tensor_underfed(RuleContext& r) {
  const auto& m = r.m;
  // Matrix math: tensor FLOPs counted, or integer matrix instructions on the pipe (the annotation list counts IMMA
  // cycles but not int8 ops, which cost CUPTI two more replay passes on GH100).
  const bool matrix = val(m.flops_tensor) > 0 || (m.tensor_pipe_imma && val(m.tensor_pipe_pct) > 0);
  // FP64 matrix math (DMMA) is not on the HMMA-type counter the tensor pipe reading uses: its busy share is the FP64
  // pipe's (canonical.cpp, complete_metrics).
  const bool dmma = m.tensor_precision == "fp64";
  const std::optional<double> busy = dmma ? m.fp64_pipe_pct : m.tensor_pipe_pct;
  if (!matrix || !busy) return;
  // Busier than pipe_bound_pct, short of the pipe's roof, one's own kernel whose warps wait mostly at barriers waits
  // on its MMA pipeline (RuleContext::mma_pipeline_waits): underfed, by the distance to the roof (set 42's fp8 Triton
  // GEMM: tensor pipe 64%, barrier 69% of the waiting; both blind labels "underfed"). A library's kernel there is the
  // call's to tune, as its pipe reading says (rules_bounds.cpp).
  const double waiting = r.waiting_total();
  const bool pipeline_waits = r.mma_pipeline_waits() && !r.library_tensor_kernel();
  if (*busy >= r.p("pipe_bound_pct") && !pipeline_waits) return;
  // Left of the ridge the memory roof binds, not the tensor roof: a batched 32x32x32 GEMM (44 FLOP/B on the
  // H200, ridge ~250) or a GEMV keeps the tensor pipe idle by its shape, and feeding it faster gains nothing.
  if (r.roof && r.roof->bound_by == "memory") return;
  const bool library = r.library_tensor_kernel();
  // Whether it issues warpgroup MMAs is known only where the gmma stall reason was counted.
  const auto gmma = m.stalls.find("gmma");
  Finding& f = r.add(CauseId::tensor_underfed, "tensor pipe underfed",
                     fmt::format("tensor math runs with the {} busy {:.1f}% of the time{}",
                                 dmma ? "FP64 pipe (DMMA)" : "tensor pipe", *busy,
                                 !library                 ? ""
                                 : gmma == m.stalls.end() ? " in a library kernel"
                                 : gmma->second > 0       ? " in a library kernel that already issues warpgroup MMAs"
                                                          : " in a library kernel that issues no warpgroup MMA (wgmma)"),
                     pipeline_waits ? std::min(r.headroom, 1.0 - *busy / r.param("classify.saturated_pct"))
                                    : r.headroom,
                     fmt::format("{}={:.1f}%", dmma ? "fp64_pipe" : "tensor_pipe", *busy));
  if (pipeline_waits)
    f.evidence += fmt::format(", its warps waiting at barriers {} of their waiting time (the MMA pipeline's waits)",
                              pct(m.waiting_stalls({"barrier"}) / waiting));
  if (library) f.remedy = RemedyId::library_tuning;
  // An on-chip unit the operands keep busy (the plain bounds gave it this remedy: rules_bounds.cpp) but below
  // saturation names the mechanism, not the bound: the pipe waits on operands that arrive too slowly (a k-loop with
  // no next tile in flight: L1 77% busy, tensor pipe 32%; Triton's 32x32 tiles: L1 70%, L2 65%, tensor pipe 19%;
  // both on the H200, both labelled blind "tensor pipe underfed"). A saturated one is the bound (WMMA fragments loaded
  // from global memory: L1 99.9%). The underfed pipe goes first; both carry the same remedy.
  const Finding mine = f;
  for (std::size_t i = 0; i + 1 < r.out.size(); ++i) {
    const Finding& c = r.out[i];
    const std::optional<double> unit = c.id == CauseId::l1_bandwidth   ? m.l1_throughput_pct
                                       : c.id == CauseId::l2_bandwidth ? m.l2_throughput_pct
                                       : c.id == CauseId::memory_bound ? m.memory_throughput_pct
                                                                       : std::nullopt;
    // The tensor pipe's own bound, where the warps wait on the MMA pipeline, is this finding named by the unit:
    // this one, by its mechanism, stands for both.
    if (pipeline_waits && c.id == CauseId::tensor_pipe && !c.specific) {
      r.out.erase(r.out.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
    if (!c.specific && unit && *unit < r.param("classify.saturated_pct") && c.remedy == mine.remedy &&
        c.gain_pct <= mine.gain_pct) {
      r.out.pop_back();
      r.out.insert(r.out.begin() + static_cast<std::ptrdiff_t>(i), mine);
      break;
    }
  }
}

}  // namespace kprof::analyze
