#include "analyze/diagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

namespace kprof::analyze {

namespace {

double val(const std::optional<double>& v) { return v.value_or(0); }

std::string pct(double fraction) { return fmt::format("{:.0f}%", fraction * 100.0); }

struct Rules {
  const CanonicalMetrics& m;
  const GroupFacts& g;
  const DeclaredWork& declared;
  const DeviceSpec* spec;
  const std::optional<RooflinePlacement>& roof;
  double headroom;  // 0..1
  const Thresholds& t;
  std::vector<Cause> out;

  double p(const char* key) const { return t.param(std::string("diagnosis.") + key); }
  double busy() const { return t.param("classify.busy_pct"); }

  // The busiest of the SM and memory units (Nsight Compute's speed-of-light pair), in %.
  double sol_max() const { return std::max(val(m.sm_throughput_pct), val(m.memory_throughput_pct)); }
  // Busiest memory unit seen, in %.
  double memory_max() const {
    return std::max({val(m.memory_throughput_pct), val(m.l1_throughput_pct), val(m.l2_throughput_pct),
                     val(m.dram_throughput_pct)});
  }
  bool latency_bound() const {
    return (m.sm_throughput_pct || m.memory_throughput_pct) && sol_max() < busy();
  }

  void add(std::string id, std::string label, std::string evidence, std::string remedy, double gain, bool specific,
           std::string trigger) {
    Cause c;
    c.trigger = std::move(trigger);
    c.id = std::move(id);
    c.label = std::move(label);
    c.evidence = std::move(evidence);
    c.remedy = std::move(remedy);
    c.gain_pct = std::clamp(gain, 0.0, 1.0) * 100.0;
    c.specific = specific;
    out.push_back(std::move(c));
  }
  bool has(const std::string& id) const {
    return std::any_of(out.begin(), out.end(), [&](const Cause& c) { return c.id == id; });
  }

  // ---- specific causes --------------------------------------------------------------------------------------

  bool launch_bound = false;

  void launch_overhead() {
    if (!g.median_ns || *g.median_ns >= p("launch_bound_max_us") * 1e3) return;
    std::optional<double> idle;
    if (g.span_ns && g.gpu_idle_ns && *g.span_ns > 0) idle = *g.gpu_idle_ns / *g.span_ns;
    if (g.launches >= p("launch_bound_min_launches") && idle && *idle >= p("launch_bound_idle_share")) {
      launch_bound = true;
      add("launch_overhead", "launch overhead (tiny kernels)",
          fmt::format("{} launches of {:.1f} us each; the GPU runs no kernel for {} of the {:.2f} ms they span",
                      g.launches, *g.median_ns * 1e-3, pct(*idle), *g.span_ns * 1e-6),
          "launch_overhead", *idle, true,
          fmt::format("launches={}, median={:.1f}us, gpu_idle={}", g.launches, *g.median_ns * 1e-3, pct(*idle)));
      return;
    }
    // A kernel of a few microseconds: its launch costs about as much as its work, and its counters (a handful of
    // blocks, a few thousand cycles) say little about throughput.
    if (*g.median_ns < p("tiny_kernel_us") * 1e3) {
      launch_bound = true;
      add("launch_overhead", "tiny kernel (launch cost comparable to its work)",
          fmt::format("{:.1f} us per launch{}", *g.median_ns * 1e-3,
                      idle ? fmt::format("; the GPU idles {} of the span of its {} launches", pct(*idle), g.launches)
                           : std::string()),
          "launch_overhead", idle.value_or(0), true, fmt::format("median={:.1f}us", *g.median_ns * 1e-3));
    }
  }

  void atomics() {
    double atom = val(m.global_atomic_requests);
    if (atom <= 0) return;
    double all = atom + val(m.global_load_requests) + val(m.global_store_requests);
    double share = atom / all;
    if (share < p("atomic_request_share") || !latency_bound()) return;
    // A kernel that loads through TMA issues no LSU loads: a few flag atomics are then all of its LSU requests.
    // Contention needs atomics to be a real part of the L2 traffic (cuBLAS's batched GEMM on the H200: 0.2%).
    if (m.l2_bytes && *m.l2_bytes > 0 && atom / (*m.l2_bytes / 32.0) < p("atomic_l2_sector_share")) return;
    add("atomic_contention", "atomic contention",
        fmt::format("{} of global memory requests are atomics ({:.3g} requests) while SM {:.1f}% and memory {:.1f}% "
                    "stay low: the atomics serialise on a few addresses",
                    pct(share), atom, val(m.sm_throughput_pct), val(m.memory_throughput_pct)),
        "atomics", headroom, true, fmt::format("atomic_requests={}, sm_throughput={:.1f}%", pct(share), val(m.sm_throughput_pct)));
  }

  void bank_conflicts() {
    auto share = m.bank_conflict_share();
    if (!share || *share < p("bank_conflict_share")) return;
    double l1 = val(m.l1_throughput_pct) / 100.0;
    // Replayed wavefronts cost time only where warps wait on shared memory: in the MIO queue (mio_throttle) or for
    // a shared load's result (short_scoreboard, which also covers special-function results: an upper bound). With
    // those stalls measured, the share of time at stake is the smaller of the L1/shared unit's busy share and
    // theirs: cuFFT's and CUB's select kernels on the H200 had 33-43% conflicts with the unit half busy but
    // 12-17% of stalls on shared memory, and were bound elsewhere.
    double at_stake = std::min(1.0, l1);
    std::string waits;
    if (auto wait = m.shared_wait_share()) {
      at_stake = std::min(at_stake, *wait);
      waits = fmt::format(", warps waiting on shared memory in {} of stalls", pct(*wait));
    }
    add("smem_bank_conflicts", "shared-memory bank conflicts",
        fmt::format("{} of shared-memory wavefronts are bank conflicts (L1/shared unit {:.1f}% busy{})", pct(*share),
                    l1 * 100.0, waits),
        "smem_conflicts", *share * at_stake, true, fmt::format("bank_conflicts={} of wavefronts", pct(*share)));
  }

  void access_pattern() {
    auto ld = m.load_sectors_per_request(), st = m.store_sectors_per_request();
    double spr = std::max(val(ld), val(st));
    if (spr <= 0) return;
    bool is_load = val(ld) >= val(st);
    const char* what = is_load ? "load" : "store";
    double l1_hit = val(m.l1_hit_pct), l2_hit = val(m.l2_hit_pct);
    double memory_share = std::min(1.0, memory_max() / busy());
    // Sectors beyond `ideal` per request, over all global sectors: the share of the traffic that is waste.
    auto excess_share = [&](double ideal) {
      double excess = std::max(0.0, val(m.global_load_sectors) - ideal * val(m.global_load_requests)) +
                      std::max(0.0, val(m.global_store_sectors) - ideal * val(m.global_store_requests));
      double all = val(m.global_load_sectors) + val(m.global_store_sectors);
      return all > 0 ? excess / all : 0.0;
    };
    // Strided access re-uses the sectors it fetched (the same thread or its neighbours read the rest of them
    // later: L1 or L2 hits); random gathers do not.
    bool reused = l1_hit >= p("uncoalesced_l1_hit_min_pct") || l2_hit >= p("uncoalesced_l2_hit_min_pct");
    if (spr >= p("uncoalesced_sectors_per_request") && (reused || (!m.l1_hit_pct && !m.l2_hit_pct))) {
      add("uncoalesced_global", std::string("uncoalesced global ") + what + "s",
          fmt::format("{:.1f} sectors per global {} request (a coalesced warp access needs at most 16), L1 hit "
                      "{:.0f}%, L2 hit {:.0f}%: neighbouring threads touch addresses far apart",
                      spr, what, l1_hit, l2_hit),
          "coalesce", excess_share(16.0) * memory_share, true,
          fmt::format("sectors_per_{}_request={:.1f}, l1_hit={:.0f}%", what, spr, l1_hit));
      return;
    }
    bool scattered = spr >= p("uncoalesced_sectors_per_request") ||
                     (spr >= p("scattered_sectors_per_request") && m.l2_hit_pct &&
                      l2_hit < p("scattered_l2_hit_max_pct") && val(m.dram_measured_pct) < p("dram_bound_pct"));
    if (scattered)
      add("scattered_access", "scattered global accesses (gathers)",
          fmt::format("{:.1f} sectors per global {} request with L1 hit {:.0f}% and L2 hit {:.0f}%: each small access "
                      "pulls a whole sector that nothing else uses",
                      spr, what, l1_hit, l2_hit),
          "locality", excess_share(4.0) * memory_share, true,
          fmt::format("sectors_per_{}_request={:.1f}, l2_hit={:.0f}%", what, spr, l2_hit));
  }

  void local_memory() {
    double lb = val(m.local_memory_bytes);
    if (lb <= 0) return;
    double through_l1 = std::max(val(m.l1_bytes), lb);
    double share = lb / through_l1;
    if (share < p("local_traffic_share")) return;
    bool spills = val(m.spill_requests) > 0;
    double memory_share = std::min(1.0, memory_max() / 100.0);
    add("local_memory", spills ? "register spills to local memory" : "local memory (spills or per-thread arrays)",
        fmt::format("{:.3g} B of local-memory traffic, {} of the bytes through L1{}", lb, pct(share),
                    spills ? fmt::format(" ({:.3g} spill requests)", val(m.spill_requests)) : ""),
        "local_memory", share * memory_share, true, fmt::format("local_memory_bytes={:.3g} B ({} of L1 bytes)", lb, pct(share)));
  }

  void divergence() {
    if (!m.threads_per_instruction) return;
    double tpi = *m.threads_per_instruction;
    if (tpi >= p("divergence_threads")) return;
    double issue = m.issue_active_pct ? *m.issue_active_pct / 100.0 : std::min(1.0, sol_max() / 100.0);
    add("warp_divergence", "warp divergence",
        fmt::format("{:.1f} of 32 threads active per executed instruction", tpi), "divergence",
        (1.0 - tpi / 32.0) * issue, true, fmt::format("threads_per_instruction={:.1f}", tpi));
  }

  void matmul_off_tensor() {
    if (!is_matmul(g, declared, t)) return;
    bool tensor_idle = m.tensor_pipe_pct ? *m.tensor_pipe_pct < 5.0 : val(m.flops_tensor) <= 0;
    if (!tensor_idle) return;
    double scalar_flops = val(m.flops_fp32) + val(m.flops_fp16);
    bool fma_busy = val(m.fma_pipe_pct) >= 20.0;
    if (scalar_flops <= 0 && !fma_busy) return;
    // A name is not matrix math: a depthwise convolution (cuDNN's conv2d_c1_k1_nhwc on the H200: ~4 FLOP per DRAM
    // byte) reduces over 9 taps, not over channels, and has nothing for the tensor cores. Matrix math reuses each
    // byte many times; the FLOPs (or 2 per FMA-pipe thread instruction where FLOPs are not counted) per DRAM
    // byte must reach matmul_min_counted_intensity.
    const double work = scalar_flops > 0 ? scalar_flops : 2.0 * val(m.fma_pipe_instructions);
    if (work > 0 && m.dram_bytes && *m.dram_bytes > 0 && work / *m.dram_bytes < p("matmul_min_counted_intensity"))
      return;
    bool compute_side = val(m.fma_pipe_pct) >= 40.0 || val(m.sm_throughput_pct) >= val(m.memory_throughput_pct);
    // Gain: the same FLOPs at the tensor-core roof for this arithmetic intensity.
    double gain = headroom;
    std::string at;
    if (spec && m.duration_ns && *m.duration_ns > 0) {
      std::string prec = declared.precision == "bf16" || declared.precision == "fp16" ? declared.precision : "tf32";
      if (m.flops_fp16 && val(m.flops_fp16) > val(m.flops_fp32)) prec = "fp16";
      double flops = scalar_flops > 0 ? scalar_flops : val(declared.flops);
      auto peak = spec->peak(prec + "_tflops");
      if (peak && flops > 0) {
        double achieved = flops / (*m.duration_ns * 1e-9) / 1e12;
        double roof = peak->value;
        if (auto bw = spec->peak("dram_gbps"); bw && m.dram_bytes && *m.dram_bytes > 0)
          roof = std::min(roof, flops / *m.dram_bytes * bw->value * 1e9 / 1e12);
        gain = std::clamp(1.0 - achieved / roof, 0.0, 1.0);
        at = fmt::format(" at {:.1f} TFLOP/s against a {} tensor roof of {:.0f}", achieved, prec, roof);
      }
    }
    const std::string fma = m.fma_pipe_pct ? fmt::format(" (FMA pipe {:.0f}% busy)", *m.fma_pipe_pct) : "";
    add("matmul_without_tensor_cores", "matrix multiply without tensor cores",
        fmt::format("a matrix multiply on the CUDA cores{}{} with the tensor pipe idle", fma, at),
        "tensor_cores", compute_side ? gain : std::min(gain, headroom) * 0.5, compute_side,
        m.fma_pipe_pct ? fmt::format("fma_pipe={:.0f}%, tensor_pipe={:.1f}%", *m.fma_pipe_pct, val(m.tensor_pipe_pct))
                       : fmt::format("tensor_pipe={:.1f}%, fp32_flops={:.3g}", val(m.tensor_pipe_pct), scalar_flops));
  }

  void tail() {
    if (!m.waves_per_sm || *m.waves_per_sm < 1.0) return;
    double w = *m.waves_per_sm;
    double full = std::ceil(w - 0.005);
    if (full < 1) return;
    double eff = w / full;
    if (eff >= p("tail_wave_efficiency")) return;
    add("tail_wave", "tail effect (partial last wave)",
        fmt::format("{:.2f} waves: the last wave fills {} of the GPU, which idles during it", w, pct(w - (full - 1))),
        "whole_waves", 1.0 - eff, true, fmt::format("waves_per_sm={:.2f}", w));
  }

  void small_grid() {
    if (launch_bound || has("atomic_contention")) return;
    double blocks = val(m.grid_size);
    int sms = spec ? spec->sm_count : 0;
    if (blocks > 0 && sms > 0 && blocks < sms) {
      add("grid_too_small", "grid too small (idle SMs)",
          fmt::format("{:.0f} blocks for {} SMs: {} of the SMs get no work", blocks, sms, pct(1.0 - blocks / sms)),
          "grid_fill", 1.0 - blocks / sms, true, fmt::format("blocks={:.0f}, sms={}", blocks, sms));
      return;
    }
    if (m.waves_per_sm && *m.waves_per_sm < 1.0 && latency_bound()) {
      double w = *m.waves_per_sm;
      add("grid_too_small", "grid too small (under one wave)",
          fmt::format("{:.2f} waves: the grid fills {} of the GPU's block slots while SM and memory stay under "
                      "{:.0f}%",
                      w, pct(w), busy()),
          "grid_fill", (1.0 - w) * (1.0 - sol_max() / 100.0), true, fmt::format("waves_per_sm={:.2f}", w));
    }
  }

  void occupancy() {
    if (!m.theoretical_occupancy_pct || *m.theoretical_occupancy_pct > p("occupancy_low_pct") || !latency_bound())
      return;
    if (launch_bound || has("grid_too_small")) return;
    struct Limit {
      const char* id;
      const char* what;
      std::optional<double> blocks;
    };
    Limit limits[] = {{"occupancy_registers", "registers per thread", m.occupancy_limit_registers},
                      {"occupancy_shared_memory", "shared memory per block", m.occupancy_limit_shared_mem},
                      {"occupancy_warps", "threads per block", m.occupancy_limit_warps},
                      {"occupancy_blocks", "the blocks-per-SM limit", m.occupancy_limit_blocks}};
    const Limit* bind = nullptr;
    double others = INFINITY;
    for (const auto& l : limits)
      if (l.blocks && (!bind || *l.blocks < *bind->blocks)) bind = &l;
    if (!bind || *bind->blocks <= 0) return;
    for (const auto& l : limits)
      if (&l != bind && l.blocks) others = std::min(others, *l.blocks);
    double theo = *m.theoretical_occupancy_pct;
    double target = std::isfinite(others) ? std::min(100.0, theo * others / *bind->blocks) : 100.0;
    if (target <= theo) return;
    add(bind->id, fmt::format("occupancy limited by {}", bind->what),
        fmt::format("theoretical occupancy {:.1f}%: {} allow {:.0f} block(s) per SM (without that limit: {:.0f}%), "
                    "and with SM {:.1f}% and memory {:.1f}% the warps mostly wait",
                    theo, bind->what, *bind->blocks, target, val(m.sm_throughput_pct), val(m.memory_throughput_pct)),
        "occupancy", 1.0 - theo / target, true,
        fmt::format("theoretical_occupancy={:.1f}%, {}_limit={:.0f} blocks", theo, std::string(bind->id).substr(10),
                    *bind->blocks));
  }

  // ---- plain bounds -----------------------------------------------------------------------------------------

  void bounds() {
    struct Unit {
      const char* id;
      const char* label;
      double pct;
      const char* remedy_below_roof;
      const char* metric;
    };
    std::vector<Unit> units;
    // The FMA pipe runs FP32, FP16 and integer multiply-adds: name it after what dominates its instructions.
    if (m.fma_pipe_pct) {
      const char* id = "fp32_pipe";
      const char* label = "FP32 pipe bound";
      double fma_inst = val(m.fma_pipe_instructions);
      if (val(m.flops_fp16) > val(m.flops_fp32) ||
          (fma_inst > 0 && val(m.fp16_pipe_instructions) > 0.5 * fma_inst)) {
        id = "fp16_pipe";
        label = "FP16 pipe bound";
      } else if (fma_inst > 0 && m.flops_fp32 && *m.flops_fp32 < 0.3 * fma_inst) {
        id = "int_pipe";
        label = "integer pipes bound (IMAD)";
      }
      units.push_back({id, label, *m.fma_pipe_pct, "pipe_throughput", "fma_pipe"});
    }
    if (m.alu_pipe_pct) units.push_back({"int_pipe", "integer pipes bound (ALU)", *m.alu_pipe_pct, "pipe_throughput", "alu_pipe"});
    if (m.fp64_pipe_pct) units.push_back({"fp64_pipe", "FP64 pipe bound", *m.fp64_pipe_pct, "pipe_throughput", "fp64_pipe"});
    if (m.xu_pipe_pct) units.push_back({"sfu_pipe", "special-function pipe bound", *m.xu_pipe_pct, "pipe_throughput", "xu_pipe"});
    if (m.tensor_pipe_pct) units.push_back({"tensor_pipe", "tensor pipe bound", *m.tensor_pipe_pct, "feed_tensor", "tensor_pipe"});
    const Unit* pipe = nullptr;
    for (const auto& u : units)
      if (!pipe || u.pct > pipe->pct) pipe = &u;

    double dram = m.dram_measured_pct ? *m.dram_measured_pct : val(m.dram_throughput_pct);
    double l2 = val(m.l2_throughput_pct), l1 = val(m.l1_throughput_pct);
    const double pipe_pct = pipe ? pipe->pct : 0;
    const double roof_pct = p("at_roof_pct");
    const double pipe_roof = 80.0;  // a pipe's busy-cycle share reads 80-95% at its measured peak

    // DRAM first: a stream that saturates DRAM also keeps L2 and L1 busy.
    if (dram >= p("dram_bound_pct") && dram >= pipe_pct - 10) {
      bool at_roof = dram >= roof_pct;
      add("dram_bandwidth", at_roof ? "DRAM bandwidth at its roof" : "DRAM bandwidth bound",
          fmt::format("DRAM at {:.1f}% of {}", dram, m.dram_measured_pct ? "the measured copy bandwidth" : "peak"),
          at_roof ? "none" : "dram_bandwidth", 1.0 - dram / 100.0, false,
          fmt::format("{}={:.1f}%", m.dram_measured_pct ? "dram_measured" : "dram_throughput", dram));
      return;
    }
    if (pipe && pipe_pct >= p("pipe_bound_pct") && pipe_pct >= std::max(l1, l2) - 10) {
      bool at_roof = pipe_pct >= pipe_roof || (roof && roof->pct_of_roof >= roof_pct);
      add(pipe->id, pipe->label, fmt::format("{} busy {:.1f}% of active cycles", pipe->label, pipe_pct),
          at_roof ? "none" : pipe->remedy_below_roof,
          at_roof ? std::min(headroom, 1.0 - pipe_pct / 100.0) : std::min(headroom, 1.0 - pipe_pct / pipe_roof), false,
          fmt::format("{}={:.1f}%", pipe->metric, pipe_pct));
      return;
    }
    // On-chip bandwidth bounds the kernel when that unit is near its peak and at least about as busy as the SM:
    // an L2 at 62-66% beside SM issue at 73-80% (PyTorch's softmax and layer norm on the H200) is not the limit.
    const double onchip = p("onchip_bound_pct"), sm = val(m.sm_throughput_pct);
    if (l2 >= onchip && l2 >= l1 && l2 >= sm - 10) {
      add("l2_bandwidth", "L2 bandwidth bound",
          fmt::format("L2 busy {:.1f}% with DRAM at {:.1f}%: data is re-read from L2", l2, dram), "onchip_reuse",
          headroom, false, fmt::format("l2_throughput={:.1f}%, dram={:.1f}%", l2, dram));
      return;
    }
    if (l1 >= onchip && l1 >= sm - 10) {
      add("l1_bandwidth", "L1/shared-memory bandwidth bound",
          fmt::format("L1/TEX unit busy {:.1f}% with DRAM at {:.1f}%: operands are re-read through L1", l1, dram),
          "onchip_reuse", headroom, false, fmt::format("l1_throughput={:.1f}%, dram={:.1f}%", l1, dram));
      return;
    }
    if (latency_bound()) {
      double total = m.waiting_stalls();
      const double scoreboard = m.waiting_stalls({"long_scoreboard"});
      // With only a few stall reasons collected, the total comes from Little's law: resident warps per scheduler
      // over instructions issued per cycle is the warps waiting per issued instruction.
      if (m.stalls.size() < 10 && m.achieved_occupancy_pct && m.issue_active_pct && *m.issue_active_pct > 0) {
        const double warps_per_scheduler =
            (spec && spec->sm_limits.max_warps > 0 ? spec->sm_limits.max_warps : 64) / 4.0;
        total = std::max(total, warps_per_scheduler * *m.achieved_occupancy_pct / *m.issue_active_pct - 1.0);
      }
      bool memory_wait = total > 0 && scoreboard / total >= p("latency_stall_share");
      double gain = std::min(headroom, 1.0 - sol_max() / t.param("classify.saturated_pct"));
      if (memory_wait)
        add("memory_latency", "memory latency (too few requests in flight)",
            fmt::format("SM {:.1f}% and memory {:.1f}% with {} of warp stalls waiting on memory (long scoreboard)",
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct), pct(scoreboard / total)),
            "memory_parallelism", gain, false,
            fmt::format("long_scoreboard={} of stalls, sm={:.1f}%, memory={:.1f}%", pct(scoreboard / total),
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct)));
      else
        add("latency", "latency bound",
            fmt::format("SM {:.1f}% and memory {:.1f}% both under {:.0f}%: too little work in flight",
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct), busy()),
            "memory_parallelism", gain, false,
            fmt::format("sm={:.1f}%, memory={:.1f}%", val(m.sm_throughput_pct), val(m.memory_throughput_pct)));
      return;
    }
    if (pipe && pipe_pct >= p("pipe_bound_pct")) {
      add(pipe->id, pipe->label, fmt::format("{} busy {:.1f}% of active cycles", pipe->label, pipe_pct),
          pipe->remedy_below_roof, std::min(headroom, 1.0 - pipe_pct / pipe_roof), false,
          fmt::format("{}={:.1f}%", pipe->metric, pipe_pct));
      return;
    }
    if (m.memory_throughput_pct && val(m.memory_throughput_pct) >= busy())
      add("memory_bound", "memory bound", fmt::format("memory throughput {:.1f}%", val(m.memory_throughput_pct)),
          "onchip_reuse", headroom, false, fmt::format("memory_throughput={:.1f}%", val(m.memory_throughput_pct)));
    else if (m.sm_throughput_pct && val(m.sm_throughput_pct) >= busy()) {
      // No single pipe saturated: instruction issue is the limit; what is left is the idle issue slots.
      double issued = std::max(val(m.issue_active_pct), val(m.sm_throughput_pct));
      add("compute_bound", "compute bound (instruction issue)",
          fmt::format("SM throughput {:.1f}%, issue slots busy {:.1f}%, no pipe above {:.0f}%", val(m.sm_throughput_pct),
                      val(m.issue_active_pct), p("pipe_bound_pct")),
          "pipe_throughput", std::min(headroom, 1.0 - issued / 100.0), false,
          fmt::format("sm_throughput={:.1f}%, issue_active={:.1f}%", val(m.sm_throughput_pct), val(m.issue_active_pct)));
    }
  }

  // Tensor math whose pipe is mostly idle: operands do not reach the MMA units fast enough.
  void tensor_starved() {
    if (val(m.flops_tensor) <= 0 || !m.tensor_pipe_pct || *m.tensor_pipe_pct >= p("pipe_bound_pct")) return;
    // Left of the ridge the memory roof binds, not the tensor roof: a batched 32x32x32 GEMM (44 FLOP/B on the
    // H200, ridge ~250) or a GEMV keeps the tensor pipe idle by its shape, and feeding it faster gains nothing.
    if (roof && roof->bound_by == "memory") return;
    add("tensor_underfed", "tensor pipe underfed",
        fmt::format("tensor math runs with the tensor pipe busy {:.1f}% of the time", *m.tensor_pipe_pct),
        "feed_tensor", headroom, false, fmt::format("tensor_pipe={:.1f}%", *m.tensor_pipe_pct));
  }
};

}  // namespace

bool unbounded_by_floor(const std::string& remedy) { return remedy == "tensor_cores" || remedy == "launch_overhead"; }

bool throughput_bound(const std::string& cause) {
  return cause == "dram_bandwidth" || cause == "fp32_pipe" || cause == "fp16_pipe" || cause == "int_pipe" ||
         cause == "fp64_pipe" || cause == "sfu_pipe" || cause == "tensor_pipe";
}

namespace {

// Which plain bounds a specific cause accounts for.
const std::vector<std::string> kEverything = {"latency", "memory_latency", "l1_bandwidth", "l2_bandwidth", "dram_bandwidth",
                                              "memory_bound", "compute_bound", "fp32_pipe", "fp16_pipe", "int_pipe",
                                              "fp64_pipe", "sfu_pipe", "tensor_pipe", "tensor_underfed"};

bool explains(const std::string& specific, const std::string& bound) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"launch_overhead", kEverything},
      {"atomic_contention", {"latency", "memory_latency"}},
      // A tensor pipe left underfed is fed through shared memory and registers from global memory: conflicts on the
      // staged tiles, spilled registers and wasteful loads are why it idles, and the first thing to fix (cuDNN's
      // 7x7 stem conv with 48% conflicted wavefronts, PyTorch's fp32 memory-efficient attention with local memory,
      // both on the H200, ranked "feed the tensor cores" first).
      {"smem_bank_conflicts", {"l1_bandwidth", "memory_bound", "latency", "memory_latency", "tensor_underfed"}},
      {"uncoalesced_global", {"l1_bandwidth", "l2_bandwidth", "dram_bandwidth", "memory_bound", "latency", "memory_latency",
                              "tensor_underfed"}},
      {"scattered_access", {"l1_bandwidth", "l2_bandwidth", "dram_bandwidth", "memory_bound", "latency", "memory_latency",
                            "tensor_underfed"}},
      {"local_memory", {"l1_bandwidth", "l2_bandwidth", "dram_bandwidth", "memory_bound", "latency", "memory_latency",
                        "tensor_underfed"}},
      {"warp_divergence", {"fp32_pipe", "fp16_pipe", "int_pipe", "fp64_pipe", "sfu_pipe", "compute_bound"}},
      {"matmul_without_tensor_cores", {"fp32_pipe", "fp16_pipe", "int_pipe", "l1_bandwidth", "compute_bound"}},
      // A partial last wave idles most SMs for its duration: it lowers the average throughput of whatever unit
      // binds, DRAM as much as a pipe (PyTorch's fused AdamW: 1.21 waves, DRAM at 83% of the copy roof).
      {"tail_wave", {"latency", "memory_latency", "fp32_pipe", "fp16_pipe", "int_pipe", "fp64_pipe", "sfu_pipe",
                     "dram_bandwidth"}},
      // Idle SMs lower every unit's average, the tensor pipe's too: cuDNN's persistent LSTM on 64 of 132 SMs read
      // "tensor pipe underfed" at 24% busy, and filling the GPU is the first step.
      {"grid_too_small", {"latency", "memory_latency", "tensor_underfed"}},
      {"occupancy_registers", {"latency", "memory_latency"}},
      {"occupancy_shared_memory", {"latency", "memory_latency"}},
      {"occupancy_warps", {"latency", "memory_latency"}},
      {"occupancy_blocks", {"latency", "memory_latency"}},
  };
  for (const auto& [s, bounds] : table)
    if (s == specific) return std::find(bounds.begin(), bounds.end(), bound) != bounds.end();
  return false;
}

}  // namespace

GroupFacts facts_of(const KernelGroup& g) {
  GroupFacts f;
  f.kernel = g.kernel;
  f.signature = g.signature;
  f.launches = g.duration_ns.count > 0 ? g.duration_ns.count : g.launches.size();
  if (g.duration_ns.count > 0) f.median_ns = g.duration_ns.median;
  else f.median_ns = g.metrics.duration_ns;
  f.span_ns = g.span_ns;
  f.gpu_idle_ns = g.gpu_idle_ns;
  return f;
}

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
  if (m.shared_mem_per_block_bytes && lim.shared_mem_bytes > 0) {
    const double unit = lim.shared_mem_alloc_unit > 0 ? lim.shared_mem_alloc_unit : 128;
    const double per_block =
        std::ceil((*m.shared_mem_per_block_bytes + static_cast<double>(lim.shared_mem_reserved_per_block)) / unit) *
        unit;
    set(m.occupancy_limit_shared_mem, "occupancy_limit_shared_mem",
        per_block > 0 ? static_cast<double>(lim.shared_mem_bytes) / per_block : lim.max_blocks,
        fmt::format("{:.0f} B shared memory per block (+{} B reserved) of {} B per SM", *m.shared_mem_per_block_bytes,
                    lim.shared_mem_reserved_per_block, lim.shared_mem_bytes));
  }
}

std::optional<double> time_floor_s(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec) {
  double floor = 0;
  bool any = false;
  auto bound = [&](std::optional<double> amount, const std::string& key, double scale) {
    auto peak = spec.peak(key);
    if (!amount || *amount <= 0 || !peak || peak->value <= 0) return;
    floor = std::max(floor, *amount / (peak->value * scale));
    any = true;
  };
  // FLOPs per precision at that precision's peak.
  std::string tensor_prec = m.tensor_precision.empty() ? "bf16" : m.tensor_precision;
  bound(m.flops_tensor, tensor_prec + "_tflops", 1e12);
  bound(m.flops_fp32, "fp32_tflops", 1e12);
  bound(m.flops_fp64, "fp64_tflops", 1e12);
  bound(m.flops_fp16, "fp16_vector_tflops", 1e12);
  if (!m.total_flops() && declared.flops) bound(declared.flops, (declared.precision.empty() ? "fp32" : declared.precision) + "_tflops", 1e12);
  bound(m.dram_bytes ? m.dram_bytes : declared.min_bytes, "dram_gbps", 1e9);
  return any ? std::optional<double>(floor) : std::nullopt;
}

bool is_matmul(const GroupFacts& g, const DeclaredWork& declared, const Thresholds& t) {
  // A plan that declares low-precision work at a high arithmetic intensity declares matrix math (elementwise and
  // reduction kernels stay under ~10 FLOP/B; a GEMM or attention tile is in the hundreds).
  const bool low_precision = declared.precision == "bf16" || declared.precision == "fp16" ||
                             declared.precision == "tf32" || declared.precision == "fp8";
  if (low_precision && declared.flops && declared.min_bytes && *declared.min_bytes > 0 &&
      *declared.flops / *declared.min_bytes >= t.param("diagnosis.matmul_min_intensity"))
    return true;
  auto it = t.texts.find("diagnosis.matmul_names");
  if (it == t.texts.end() || it->second.empty()) return false;
  try {
    std::regex re(it->second, std::regex::ECMAScript | std::regex::icase);
    return std::regex_search(g.kernel, re) || std::regex_search(g.signature, re);
  } catch (const std::regex_error&) {
    return false;
  }
}

std::vector<Cause> find_causes(const CanonicalMetrics& m, const GroupFacts& g, const DeclaredWork& declared,
                               const DeviceSpec* spec, const std::optional<RooflinePlacement>& roofline,
                               double headroom, const Thresholds& t) {
  Rules r{m, g, declared, spec, roofline, std::clamp(headroom, 0.0, 1.0), t, {}};
  r.launch_overhead();
  r.atomics();
  r.bank_conflicts();
  r.access_pattern();
  r.local_memory();
  r.divergence();
  r.matmul_off_tensor();
  r.tail();
  r.small_grid();
  r.occupancy();
  r.bounds();
  r.tensor_starved();
  // A kernel bound by one saturated unit (DRAM or a pipe) gains from a specific fix only as far as that unit has
  // room left, unless the specific cause is what keeps the unit busy (explains it): more blocks for a cuBLAS GEMV
  // at the DRAM roof, or fewer bank conflicts in a flash-attention kernel whose tensor pipe is busy 76% of the
  // time (both on the H200), do not let the unit run faster than its peak.
  for (const auto& b : r.out) {
    if (b.specific || !throughput_bound(b.id)) continue;
    for (auto& c : r.out)
      if (c.specific && !unbounded_by_floor(c.remedy) && !explains(c.id, b.id) && c.gain_pct > b.gain_pct) {
        c.gain_pct = b.gain_pct;
        c.evidence += fmt::format("; at most the {:.0f}% headroom left by {}", b.gain_pct, b.label);
      }
    break;
  }
  // A plain bound that a specific cause explains (latency from an occupancy limit, L1 traffic from uncoalesced
  // loads, ...) keeps its name but not a remedy of its own: fixing the specific cause is how to approach that roof.
  const double lead_min = t.param("diagnosis.specific_min_gain_pct");
  for (auto& c : r.out) {
    if (c.specific || c.remedy == "none") continue;
    for (const auto& s : r.out)
      if (s.specific && (s.gain_pct >= lead_min || s.id == "launch_overhead") && explains(s.id, c.id)) {
        c.evidence += "; explained by " + s.label;
        c.remedy = "none";
        break;
      }
  }
  // No estimate may promise more than the distance to the roofline floor, nor more than the documented cap.
  // Two remedies change the roof itself, so the current floor does not bound them: tensor cores (the tensor
  // roof; the rule computes its own bound) and launch overhead (its gain is GPU idle time, outside the kernels).
  const double cap = std::min(t.param("diagnosis.max_gain_pct"), r.headroom * 100.0);
  for (auto& c : r.out)
    c.gain_pct = std::min(c.gain_pct, unbounded_by_floor(c.remedy) ? t.param("diagnosis.max_gain_pct") : cap);
  // A specific cause leads only when its remedy is worth something; otherwise the plain bound explains more.
  const double lead = t.param("diagnosis.specific_min_gain_pct");
  // A specific cause leads only when its remedy is worth something, and never past a saturated unit it does not
  // explain: its gain is bounded by that unit's headroom, which the unit's own remedy has in full (the ALU pipe of
  // PyTorch's argmax at 89% on the H200 was led by bank conflicts worth at most its 11%).
  const Cause* saturated = nullptr;
  for (const auto& c : r.out)
    if (!c.specific && throughput_bound(c.id)) {
      saturated = &c;
      break;
    }
  const std::string saturated_id = saturated ? saturated->id : "";
  auto leads = [&](const Cause& c) {
    if (!c.specific) return false;
    if (c.id == "launch_overhead") return true;
    return c.gain_pct >= lead && (saturated_id.empty() || explains(c.id, saturated_id));
  };
  // When no specific cause leads, the unit that binds the kernel (DRAM or a pipe) names it, even with no
  // headroom left: a GEMV at the DRAM roof is DRAM-bound, not "grid too small" with nothing to gain.
  auto binding = [&](const Cause& c) { return !c.specific && throughput_bound(c.id); };
  std::stable_sort(r.out.begin(), r.out.end(), [&](const Cause& a, const Cause& b) {
    if (leads(a) != leads(b)) return leads(a);
    if (!leads(a) && binding(a) != binding(b)) return binding(a);
    return a.gain_pct > b.gain_pct;
  });
  return r.out;
}

}  // namespace kprof::analyze
