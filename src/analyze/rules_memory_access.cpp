// Diagnosis rules on how a kernel touches memory: atomic contention, shared-memory bank conflicts, uncoalesced or
// scattered global access, and local memory.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "analyze/diagnosis_rule.hpp"

namespace kprof::analyze {

// DRAM bytes per atomic request when atomics are most of a kernel's requests and each brings its own sector from
// DRAM, else nullopt. One address, 32 threads: 130 B per request on the H200; atomicAdd on 16 M scattered addresses:
// 1188 B (a sector per thread). The spread ones wait on DRAM, not on each other: their fix is locality (sort or bin
// the updates, privatise them in shared memory), not fewer conflicts.
std::optional<double> spread_atomics_dram_bytes(const RuleContext& r) {
  const auto& m = r.m;
  const double atom = val(m.global_atomic_requests);
  if (atom <= 0 || !m.dram_bytes) return std::nullopt;
  const double share = atom / (atom + val(m.global_load_requests) + val(m.global_store_requests));
  const double per = *m.dram_bytes / atom;
  if (share < 0.5 || per < r.p("atomic_spread_dram_bytes")) return std::nullopt;
  // The DRAM traffic must be the atomics': their requests are the L2's traffic, a warp's 32 updates at most two
  // sectors each (48 L2 sectors per request for the scattered atomics). A TMA GEMM's flag atomics are all of its
  // LSU requests but 1 in 13 000 of its L2 sectors: its DRAM bytes are the operands'.
  if (!m.l2_bytes || *m.l2_bytes / 32.0 / atom > 64.0) return std::nullopt;
  return per;
}

// Shared-memory atomics that serialise: each ATOMS instruction takes several shared-memory wavefronts (lanes of a
// warp updating addresses in one bank, or one address, replay), and those wavefronts are most of what keeps the
// L1/shared unit busy. Hopper resolves lanes on one address well (1.04 wavefronts per instruction on 2 addresses
// from 1024 threads, diagnosis-facts.md): the count of wavefronts, not the code, says whether they contend.
bool detect_shared_atomic_contention(RuleContext& r) {
  const auto& m = r.m;
  const auto per_inst = m.shared_atomic_wavefronts_per_instruction();
  if (!per_inst) return false;
  const double inst = *m.shared_atomic_instructions;
  const double per = *per_inst;
  const double share = m.shared_atomic_share().value_or(0);
  const double l1 = val(m.l1_throughput_pct) / 100.0;
  if (per < r.p("shared_atomic_wavefronts_per_inst") || share < r.p("shared_atomic_share_min")) return false;
  double at_stake = std::min(1.0, l1);
  if (auto wait = m.shared_wait_share()) at_stake = std::min(at_stake, *wait);
  r.add(CauseId::atomic_contention, "shared-memory atomic contention",
        fmt::format("{:.1f} shared-memory wavefronts per shared atomic instruction ({:.3g} instructions, {} of the "
                    "shared wavefronts) with the L1/shared unit {:.1f}% busy: the lanes' updates replay one after "
                    "another",
                    per, inst, pct(share), l1 * 100.0),
        (1.0 - 1.0 / per) * share * at_stake,
        fmt::format("shared_atomic_wavefronts_per_instruction={:.1f}, l1_throughput={:.1f}%", per, l1 * 100.0));
  return true;
}

// Atomics that are the L2's work: L2 at its bandwidth bound with DRAM below its roof, and the sectors the loads and
// stores account for leave most of L2's traffic to the atomic and reduction requests. They wait neither on DRAM nor
// on one another but on L2's atomic units. Updates whose lanes each touch their own sector (PyTorch's scatter_add
// into 1M float bins on the H200: 54 L2 sectors per RED request, 82% of L2's sectors, L2 95% busy, DRAM 23%) leave
// a warp nothing to merge: bucketing or sorting the updates by destination (or privatising hot bins in shared
// memory) is the fix. Few sectors per request are updates on a few lines: warp aggregation is.
bool detect_l2_atomic_throughput(RuleContext& r) {
  const auto& m = r.m;
  const double atom = val(m.global_atomic_requests);
  if (atom <= 0 || !m.l2_bytes || *m.l2_bytes <= 0) return false;
  const double share = atom / (atom + val(m.global_load_requests) + val(m.global_store_requests));
  const double l2 = val(m.l2_throughput_pct);
  if (share < r.p("atomic_request_share") || l2 < r.p("onchip_bound_pct") || r.dram_pct() >= r.p("dram_bound_pct"))
    return false;
  const double l2_sectors = *m.l2_bytes / 32.0;
  // A kernel whose operands move by TMA (or cp.async.bulk) issues no LSU loads or stores: L2's traffic beyond them
  // is its tiles, not its few flag or split-K atomics (cuDNN's Hopper implicit-GEMM convolution in set 34: 1028
  // atomic requests against 94 M L2 sectors, 91 000 "per request", with L2 90% busy). Atomics that are L2's work
  // make at least atomic_l2_sector_share requests per L2 sector, as for the contention rule below.
  if (atom / l2_sectors < r.p("atomic_l2_sector_share")) return false;
  const double atomic_sectors =
      std::max(0.0, l2_sectors - val(m.global_load_sectors) - val(m.global_store_sectors));
  const double traffic = atomic_sectors / l2_sectors;
  if (traffic < r.p("atomic_l2_traffic_share_min")) return false;
  const double per = atomic_sectors / atom;
  const bool spread = per >= r.p("atomic_l2_spread_sectors");
  // What the fix can save: the atomics' share of L2's traffic, less the sectors a warp's updates would still
  // touch once neighbouring (4, a coalesced 4-byte update) or merged (1).
  const double left = spread ? std::min(1.0, 4.0 / per) : std::min(1.0, 1.0 / per);
  Finding& f = r.add(CauseId::atomic_contention, "atomics saturate L2",
        fmt::format("atomic and reduction requests ({:.3g}, {} of the global requests) make {} of L2's sector traffic "
                    "({:.0f} sectors per request) with L2 {:.1f}% busy and DRAM {:.1f}% of its roof: L2's atomic "
                    "units are the bottleneck",
                    atom, pct(share), pct(traffic), per, l2, r.dram_pct()),
        traffic * (1.0 - left) * std::min(1.0, l2 / 100.0),
        fmt::format("atomic_l2_sectors={}, sectors_per_atomic_request={:.0f}, l2_throughput={:.1f}%", pct(traffic), per,
                    l2));
  if (spread) f.remedy = RemedyId::locality;
  return true;
}

void detect_atomic_contention(RuleContext& r) {
  if (detect_shared_atomic_contention(r)) return;
  if (detect_l2_atomic_throughput(r)) return;
  const auto& m = r.m;
  double atom = val(m.global_atomic_requests);
  if (atom <= 0) return;
  double all = atom + val(m.global_load_requests) + val(m.global_store_requests);
  double share = atom / all;
  if (share < r.p("atomic_request_share") || !r.latency_bound()) return;
  // A kernel that loads through TMA issues no LSU loads: a few flag atomics are then all of its LSU requests.
  // Contention needs atomics to be a real part of the L2 traffic (cuBLAS's batched GEMM on the H200: 0.2%).
  if (m.l2_bytes && *m.l2_bytes > 0 && atom / (*m.l2_bytes / 32.0) < r.p("atomic_l2_sector_share")) return;
  // Contended atomics hit a few lines that stay in L2; atomics spread over many addresses each bring their own
  // sector from DRAM (spread_atomics_dram_bytes): those are scattered accesses (detect_access_pattern), not
  // contention.
  if (spread_atomics_dram_bytes(r)) return;
  // Warps waiting at block barriers or asleep are not waiting on the atomics: with stalls measured, the time at
  // stake is the rest of the waiting (a cooperative grid.sync() spins on one counter with atomics while the block's
  // other warps wait at its __syncthreads: set 38's wavefront, 85% of the waiting at barriers; fewer grid-wide
  // barriers, not fewer atomics, is the change there).
  const double total = r.waiting_total();
  const double elsewhere = total > 0 ? std::clamp(r.waiting_on_other_warps() / total, 0.0, 1.0) : 0.0;
  r.add(CauseId::atomic_contention, "atomic contention",
        fmt::format("{} of global memory requests are atomics ({:.3g} requests) while SM {:.1f}% and memory {:.1f}% "
                    "stay low: the atomics serialise on a few addresses{}",
                    pct(share), atom, val(m.sm_throughput_pct), val(m.memory_throughput_pct),
                    elsewhere >= 0.5 ? fmt::format(" (warps wait at barriers or asleep in {} of their waiting)",
                                                   pct(elsewhere))
                                     : std::string()),
        r.headroom * (1.0 - elsewhere),
        fmt::format("atomic_requests={}, sm_throughput={:.1f}%", pct(share), val(m.sm_throughput_pct)));
}

void detect_bank_conflicts(RuleContext& r) {
  const auto& m = r.m;
  auto share = m.bank_conflict_share();
  if (!share || *share < r.p("bank_conflict_share")) return;
  // Shared atomics that contend (detect_shared_atomic_contention) own the conflicts of the loads beside them: a
  // compare-and-swap loop loads the bin it is about to update, so the loads collide on the same hot banks
  // (PyTorch's 256-bin int64 histogram on the H200: 3.9 wavefronts per ATOMS, 54% of the load wavefronts
  // conflicts). Padding does not spread updates that hit the same bin; fewer colliding updates do.
  // The same test detect_shared_atomic_contention names them by (and opportunities.cpp remaps Nsight Compute's
  // conflict items by).
  if (r.found(CauseId::atomic_contention) &&
      m.shared_atomic_wavefronts_per_instruction().value_or(0) >= r.p("shared_atomic_wavefronts_per_inst") &&
      m.shared_atomic_share().value_or(0) >= r.p("shared_atomic_share_min"))
    return;
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
  Finding& f = r.add(CauseId::smem_bank_conflicts, "shared-memory bank conflicts",
        fmt::format("{} of shared-memory wavefronts are bank conflicts (L1/shared unit {:.1f}% busy{})", pct(*share),
                    l1 * 100.0, waits),
        *share * at_stake, fmt::format("bank_conflicts={} of wavefronts", pct(*share)));
  // Warps that wait mostly elsewhere (global loads, barriers) are not slowed mainly by the replays: the conflicts
  // do not explain a latency-type bound then (cause_ranking.cpp).
  if (auto wait = m.shared_wait_share(); wait && *wait < r.p("latency_stall_share"))
    for (CauseId b : {CauseId::latency, CauseId::memory_latency, CauseId::memory_bound})
      f.does_not_explain.push_back(b);
}

// Partial coalescing without Nsight Compute's bytes-per-sector count (CUPTI's counters, older exports): stores
// cannot be served by reuse, so L1 sending L2 more store sectors than DRAM finally writes means each sector is
// written in pieces by several requests (a stride-2 float store covers half of every sector it touches; L2 merges
// the halves before they reach DRAM). Only where the written footprint is larger than L2 could hold as a working
// set (so the merging is of neighbouring requests, not of an output rewritten in place), the kernel is bound by L2
// rather than DRAM at its roof, and the stores are a real part of the traffic.
void detect_rewritten_store_sectors(RuleContext& r, double spr) {
  const auto& m = r.m;
  if (!m.global_store_sectors || !m.dram_write_bytes || *m.dram_write_bytes < r.p("rewrite_min_dram_write_mb") * 1e6)
    return;
  const double store_bytes = *m.global_store_sectors * 32.0;
  const double times = store_bytes / *m.dram_write_bytes;
  if (times < r.p("store_sector_rewrites_min")) return;
  if (val(m.l2_throughput_pct) < r.p("onchip_bound_pct") || val(m.dram_measured_pct) >= r.p("dram_at_roof_pct"))
    return;
  const double all = val(m.global_load_sectors) + *m.global_store_sectors;
  if (all <= 0) return;
  // The share of all global sectors that merging the pieces in L1 would save; L2 is what they keep busy.
  const double waste = (1.0 - 1.0 / times) * (*m.global_store_sectors / all);
  if (waste < r.p("store_rewrite_waste_min")) return;
  Finding& f = r.add(CauseId::uncoalesced_global, "partially coalesced global stores",
        fmt::format("L1 sends L2 {:.1f}× the store sectors DRAM finally writes ({:.3g} GB against {:.3g} GB, {:.1f} "
                    "sectors per store request), with L2 {:.0f}% busy and DRAM {:.0f}% of its roof: each sector is "
                    "written in pieces by several requests, {} of the global sectors",
                    times, store_bytes / 1e9, *m.dram_write_bytes / 1e9, val(m.store_sectors_per_request()),
                    val(m.l2_throughput_pct), val(m.dram_measured_pct), pct(waste)),
        waste * std::min(1.0, r.memory_max() / r.busy()),
        fmt::format("store_sectors/dram_writes={:.1f}, sectors_per_request={:.1f}", times, spr));
  f.does_not_explain.push_back(CauseId::tensor_underfed);
}

// The same without the bytes-per-sector count where DRAM is the bound: a store that covers part of a sector makes L2
// read the sector from DRAM to merge it, so DRAM reads more than all global and local load sectors could have
// brought (an upper bound on what the loads read from DRAM), by about the bytes written. Only where the stores write
// what DRAM writes and the extra reads are at most store_fill_max fills per written byte (a kernel whose operands
// arrive by TMA reads far more than it writes; one that streams its input with cp.async and stores it back whole
// would read about what it writes, and is not told apart here).
bool detect_store_fills(RuleContext& r) {
  const auto& m = r.m;
  if (!m.global_load_sectors || !m.global_store_sectors || m.global_store_bytes_per_sector || !m.dram_write_bytes ||
      !m.dram_read_bytes || *m.dram_write_bytes < r.p("rewrite_min_dram_write_mb") * 1e6 ||
      r.dram_pct() < r.p("dram_bound_pct"))
    return false;
  if (*m.global_store_sectors * 32.0 < r.p("store_fill_writes_share") * *m.dram_write_bytes) return false;
  const double fills = *m.dram_read_bytes - 32.0 * *m.global_load_sectors - val(m.local_memory_bytes);
  const double per_written = fills / *m.dram_write_bytes;
  if (per_written < r.p("store_fill_min") || per_written > r.p("store_fill_max")) return false;
  const double waste = fills / (*m.dram_read_bytes + *m.dram_write_bytes);
  const double st = val(m.store_sectors_per_request());
  Finding& f = r.add(CauseId::uncoalesced_global, "partially written global store sectors",
        fmt::format("DRAM reads {:.3g} GB, {:.3g} GB more than all {:.3g} M global load sectors could bring, about the "
                    "{:.3g} GB it writes ({:.1f} sectors per store request): each stored sector is partly written and "
                    "filled from DRAM first, {} of the DRAM traffic",
                    *m.dram_read_bytes / 1e9, fills / 1e9, *m.global_load_sectors / 1e6, *m.dram_write_bytes / 1e9,
                    st, pct(waste)),
        waste * std::min(1.0, r.memory_max() / r.busy()),
        fmt::format("dram_fill_reads/dram_writes={:.2f}, store_sectors_per_request={:.1f}", per_written, st));
  f.does_not_explain.push_back(CauseId::tensor_underfed);
  return true;
}

void detect_access_pattern(RuleContext& r) {
  const auto& m = r.m;
  if (auto per = spread_atomics_dram_bytes(r); per && r.latency_bound()) {
    const double atom = val(m.global_atomic_requests);
    r.add(CauseId::scattered_access, "scattered atomics (spread over many addresses)",
          fmt::format("{:.3g} atomic requests, most of the kernel's, each moving {:.0f} B from DRAM (a contended "
                      "atomic moves almost none): the updates are spread over more lines than L2 holds",
                      atom, *per),
          r.headroom, fmt::format("atomic_requests={:.3g}, dram_bytes_per_atomic={:.0f}", atom, *per));
    return;
  }
  auto ld = m.load_sectors_per_request(), st = m.store_sectors_per_request();
  double spr = std::max(val(ld), val(st));
  if (spr <= 0) return;
  // A DRAM-bound kernel that already moves no more than the bytes its work needs (the plan's declared minimum)
  // wastes nothing at DRAM, whatever its sectors per request: the extra sectors hit on chip, and an access-pattern
  // fix cannot make it faster (MLA v4's softmax: 32 sectors per request, 99% of the copy bandwidth, exactly its
  // scores in and probabilities out).
  const double dram_now = r.dram_pct();
  if (dram_now >= r.p("dram_bound_pct") && r.declared.min_bytes && *r.declared.min_bytes > 0 && m.dram_bytes &&
      *m.dram_bytes <= *r.declared.min_bytes * r.param("classify.streaming_bytes_ratio"))
    return;
  // The same without a declaration, when Nsight Compute counted the bytes each sector carries: DRAM moved no more
  // than the loads and stores use. Not where L2 is busier than DRAM and near its own bound: half-used sectors that L2
  // merges before DRAM cost L2 twice the sectors (set 46's NV12 conversion, 16-byte stores at a 32-byte lane stride
  // using 16 bytes a sector: DRAM at 74% of its roof writing only what the stores use, L2 89% busy; both blind labels
  // "uncoalesced stores").
  const bool l2_ahead = val(m.l2_throughput_pct) >= r.p("onchip_bound_pct") && val(m.l2_throughput_pct) > dram_now;
  const auto load_used = m.load_bytes_used(), store_used = m.store_bytes_used();
  if (dram_now >= r.p("dram_bound_pct") && !l2_ahead && m.dram_bytes && *m.dram_bytes > 0 && load_used &&
      store_used && *m.dram_bytes <= (*load_used + *store_used) * r.param("classify.streaming_bytes_ratio"))
    return;
  bool is_load = val(ld) >= val(st);
  const char* what = is_load ? "load" : "store";
  // Without that count (CUPTI's counters), the stores' side of it: at the DRAM roof, with L2 not busier, DRAM writing
  // at most half (merged_store_dram_share) the bytes of the store sectors merged them in L2 (a sector two requests
  // fill halfway each, not one left half unused: a partial sector is written whole), and loads of no more sectors a
  // request than a coalesced access takes: DRAM moves each byte once, and the store pattern costs it nothing (set
  // 48's NDVI tile: 32 sectors a store request, 16 bytes used a sector by Nsight Compute's count; with CUPTI's
  // counters, DRAM at 98% of its roof writing 0.50x the store sectors' bytes: both blind labels DRAM at its roof).
  if (!is_load && !m.global_store_bytes_per_sector && dram_now >= r.p("dram_bound_pct") && !l2_ahead &&
      val(m.global_store_sectors) > 0 && val(m.dram_write_bytes) > 0 &&
      *m.dram_write_bytes <= r.p("merged_store_dram_share") * 32.0 * *m.global_store_sectors && val(ld) <= 16.0)
    return;
  // DRAM's reads per byte of the loads' sectors (0 without both counts), and whether DRAM at its bound read under 2 -
  // strided_dram_per_sector_max of them: each sector came from DRAM once and served its re-fetches on chip.
  const double dram_per_load_sector = val(m.dram_read_bytes) > 0 && val(m.global_load_sectors) > 0
                                          ? *m.dram_read_bytes / (32.0 * *m.global_load_sectors)
                                          : 0.0;
  const bool sectors_read_once = is_load && dram_now >= r.p("dram_bound_pct") && dram_per_load_sector > 0 &&
                                 dram_per_load_sector < 2.0 - r.p("strided_dram_per_sector_max");
  // The same where no count of used bytes exists (annotation's counters): at the DRAM roof, DRAM reading fewer bytes
  // than the loads' sectors (under 2 - strided_dram_per_sector_max of 32 B a sector) fetched each sector once and
  // served its re-fetches on chip, so the bytes the lanes skip in one request are most likely read by other requests
  // (an assumption: two loads of two fields of one 32-byte struct look the same and waste 3/4 of what DRAM moves):
  // DRAM then moves what the work reads and an access-pattern fix leaves its bytes, and its time, as they are (MLA
  // v4's softmax on the H200 with CUPTI's counters: 32 sectors per request, DRAM at 95% of its roof reading 0.5 B per
  // sector byte). Only for loads of more sectors per request than any coalesced access takes; Nsight Compute's count
  // of used bytes, where it exists, decides below instead.
  if (sectors_read_once && val(ld) >= r.p("uncoalesced_sectors_per_request") && !m.global_load_bytes_per_sector)
    return;
  double l1_hit = val(m.l1_hit_pct), l2_hit = val(m.l2_hit_pct);
  double memory_share = std::min(1.0, r.memory_max() / r.busy());
  // Where no memory unit does real work, the wasted sectors cost time only while warps wait on memory (long
  // scoreboard: L1TEX results, global, local and texture; the local/global and texture queues): an access-pattern fix
  // gains at most that share of the waiting. Set 28's FP64 tracer kernel on the H200: 32 sectors per load request,
  // L1 hit 82%, memory 31%, FP64 pipe 68%, its waits on fixed-latency dependencies, the math throttle and the
  // scheduler (both blind labels: the FP64 pipe, nothing big to gain); the coalescing item read 14%.
  // (Only from a full breakdown of the stall reasons: with fewer, their shares say little. Warps waiting at a barrier
  // or asleep may wait for other warps' loads: those waits are left out of the whole rather than counted as not
  // memory's. DRAM against its measured roof counts among the memory units.)
  if (std::max(r.memory_max(), r.dram_pct()) < r.busy() && m.stalls.size() >= kFullStallBreakdown) {
    const double waiting = r.waiting_total() - r.waiting_on_other_warps();
    if (waiting > 0)
      memory_share =
          std::min(memory_share, m.waiting_stalls({"long_scoreboard", "lg_throttle", "tex_throttle"}) / waiting);
  }
  // Sectors beyond `ideal` per request, over all global sectors and the local-memory traffic beside them: the share of
  // the traffic that is waste. Local memory (a per-thread stack array, spills) moves through the same L1 and L2 and is
  // not touched by a global access-pattern fix (set 50's Asian-option paths: a 252-float array per thread, 2.1 GB of
  // local traffic beside 0.17 GB of global sectors, each thread's 64-byte generator state read and written once at 32
  // sectors a request; the access-pattern item read 87%).
  auto excess_share = [&](double ideal) {
    double excess = std::max(0.0, val(m.global_load_sectors) - ideal * val(m.global_load_requests)) +
                    std::max(0.0, val(m.global_store_sectors) - ideal * val(m.global_store_requests));
    double all = val(m.global_load_sectors) + val(m.global_store_sectors) +
                 std::max(0.0, val(m.local_memory_bytes)) / 32.0;
    return all > 0 ? excess / all : 0.0;
  };
  // The share of a sector's 32 bytes the lanes leave unused, by Nsight Compute's used-bytes count; for loads less
  // what L1 serves again (partial coalescing below says why).
  auto unused_share = [&](double bytes_per_sector, bool load) {
    const double unused = std::clamp(1.0 - bytes_per_sector / 32.0, 0.0, 1.0);
    return load ? std::max(0.0, unused - l1_hit / 100.0) : unused;
  };
  // Strided access re-uses the sectors it fetched (the same thread or its neighbours read the rest of them
  // later: L1 or L2 hits); random gathers do not.
  bool reused = l1_hit >= r.p("uncoalesced_l1_hit_min_pct") || l2_hit >= r.p("uncoalesced_l2_hit_min_pct");
  // So does DRAM at its roof reading fewer bytes than the load sectors carry (under 2 - strided_dram_per_sector_max
  // of 32 B a sector): each sector came from DRAM once and served later loads on chip, which gathers' sectors do not
  // (set 45's TPC-H Q6 over 64-byte row records, four 4-byte fields read one load each: 32 sectors per request, DRAM
  // at its roof reading 0.50x the sectors, L1 hit 50%; neither blind label says gathers).
  reused = reused || sectors_read_once;
  // Gathers from data that stays in L2 hit there too, so the L2 hit rate cannot tell them from a strided walk; the
  // bytes the lanes use can (Nsight Compute's count of used bytes per sector). A strided walk uses each byte DRAM
  // brought in about once, over the requests that step through its sector (0.45-1.04x DRAM's reads in the held-out
  // sets' transposes, column walks and array-of-structs reads); gathers into a table L2 holds read its entries again
  // and again, each request pulling a sector from L2 for the few bytes one lane wants (set 32's trilinear
  // grid_sample: 2.5x, L1 hit 33%, L2 hit 92%; sets 23, 28 and 31's row dedup, calibration table and inverse-CDF
  // lookups: 1.8-3x; both blind labels of each say gathers, locality). Re-use in L1 is the strided walk's own (the
  // next field of the sector, by the same warp), and keeps it strided. Only with L2 busy (onchip_bound_pct): the
  // sectors cost the kernel L2's time then; a dependent pointer chase through L2 waits on each hop's latency instead
  // (set 9's under-filled chases: L2 47%, its grid the first fix).
  const bool l2_gathers = is_load && reused && !sectors_read_once && l1_hit < r.p("uncoalesced_l1_hit_min_pct") &&
                          val(m.l2_throughput_pct) >= r.p("onchip_bound_pct") && load_used && *load_used > 0 &&
                          val(m.dram_read_bytes) > 0 && *m.global_load_bytes_per_sector < r.p("sector_bytes_min") &&
                          *load_used >= r.p("gather_reread_min") * *m.dram_read_bytes;
  if (l2_gathers) reused = false;
  // L2 hits that are not a strided walk's re-use either: the lanes use under strided_used_per_dram_min of the bytes
  // DRAM reads, so most of each sector DRAM brought in went unused, and the hits re-read a few hot entries (set 32's
  // count-min sketch queries: 31 sectors per request, L1 hit 0%, L2 hit 60%, 4.85 bytes used a sector, the lanes
  // using 0.30x DRAM's reads; both blind labels "scattered gathers, locality"). A strided walk fetches each sector
  // from DRAM once and uses its bytes over the requests that step through it (0.45-1.04x in sets 1-45).
  if (reused && !sectors_read_once && is_load && l1_hit < r.p("uncoalesced_l1_hit_min_pct") && load_used &&
      *load_used > 0 && val(m.dram_read_bytes) > 0 &&
      *load_used < r.p("strided_used_per_dram_min") * *m.dram_read_bytes)
    reused = false;
  // Bound by L2 below the DRAM roof, re-fetched sectors are L2's work from a sector more than a coalesced 16-byte
  // access needs: a row gather whose 32-sector loads average 19.8 with the coalesced index loads beside them
  // (PyTorch's gather along dim 1 on the H200: L2 97% busy, DRAM 49%, L2 hit 65%). 16 is a stride-2 8-byte access
  // or a coalesced 16-byte one: the rewritten-store rule below tells those apart.
  const bool l2_busy = val(m.l2_throughput_pct) >= r.p("onchip_bound_pct") && dram_now < r.p("dram_bound_pct");
  const bool many = spr >= r.p("uncoalesced_sectors_per_request") ||
                    (l2_busy && spr >= r.p("uncoalesced_l2_bound_sectors_per_request") &&
                     l2_hit >= r.p("uncoalesced_l2_hit_min_pct"));
  if (many && (reused || (!m.l1_hit_pct && !m.l2_hit_pct))) {
    // The sectors beyond 16 a request are the waste where nothing says how many bytes the lanes use. Just over 16
    // (the L2-bound reading from uncoalesced_l2_bound_sectors_per_request) that share is near nothing however few of
    // the bytes the lanes use: there Nsight Compute's count of used bytes per sector says it (less what L1 serves
    // again for loads), where the sectors cost bandwidth (DRAM or L2 at its bound, as for partial coalescing below).
    // Set 51's column lookups into a 64 x 2M row-major matrix: 17.3 sectors per load request carrying 10.9 used
    // bytes of 32 each, L2 84% busy; the excess over 16 read 7%, the unused bytes 35%; both blind labels:
    // uncoalesced, store the table by item. (From uncoalesced_sectors_per_request the excess over 16 stays the
    // estimate: the used bytes would raise every strided kernel's there, set 1's transpose 50% -> 76%, with no fix
    // experiment yet to check it.)
    double waste = excess_share(16.0);
    const bool bandwidth = r.dram_pct() >= r.p("dram_bound_pct") || val(m.l2_throughput_pct) >= r.p("onchip_bound_pct");
    if (const auto used_bytes = is_load ? m.global_load_bytes_per_sector : m.global_store_bytes_per_sector;
        spr < r.p("uncoalesced_sectors_per_request") && bandwidth && used_bytes && *used_bytes >= 1.0) {
      const double sectors_of = val(is_load ? m.global_load_sectors : m.global_store_sectors);
      const double all = val(m.global_load_sectors) + val(m.global_store_sectors) +
                         std::max(0.0, val(m.local_memory_bytes)) / 32.0;
      if (all > 0) waste = std::max(waste, sectors_of * unused_share(*used_bytes, is_load) / all);
    }
    Finding& f = r.add(CauseId::uncoalesced_global, std::string("uncoalesced global ") + what + "s",
          fmt::format("{:.1f} sectors per global {} request (a coalesced warp access needs at most 16), L1 hit "
                      "{:.0f}%, L2 hit {:.0f}%: neighbouring threads touch addresses far apart",
                      spr, what, l1_hit, l2_hit),
          waste * memory_share,
          fmt::format("sectors_per_{}_request={:.1f}, l1_hit={:.0f}%", what, spr, l1_hit));
    if (!is_load) f.does_not_explain.push_back(CauseId::tensor_underfed);
    return;
  }
  // A strided layout, not gathers: DRAM near its roof reads no more than the sectors the loads fetch (scattered
  // sectors each pull a 64-byte DRAM atom, about twice their bytes: the corpus's random gather at 1.86x), so the
  // sectors are consecutive in memory and a warp's lanes step over the bytes between them (one 4-byte field of a
  // 32-byte struct on the H200: 32 sectors per request, DRAM 97% of its roof reading 1.00x the load sectors, L2 hit
  // 13%). Another layout (structure of arrays) or vector loads use every byte. Only at the roof itself
  // (strided_dram_min_pct): a strided layout streams, its addresses rising as a copy's do, while gathers wait on
  // each load's latency short of it; a bilinear gather whose lanes read neighbouring texels in pairs of sectors also
  // reads about 1x the sectors from DRAM (set 37's map_coordinates on the H100: DRAM at 67% of its roof, L1 hit 26%,
  // L2 hit 20%, 5.65 bytes used a sector; the strided layouts labelled so ran at 87-97%).
  if (is_load && spr >= r.p("uncoalesced_sectors_per_request") && dram_now >= r.p("strided_dram_min_pct") &&
      dram_per_load_sector > 0) {
    const double per_sector = dram_per_load_sector;
    // Fewer DRAM bytes than sectors means sectors re-hit on chip: the rules below weigh that reuse (at the DRAM roof
    // without a count of used bytes, the early return above took it).
    if (per_sector >= 2.0 - r.p("strided_dram_per_sector_max") && per_sector <= r.p("strided_dram_per_sector_max")) {
      r.add(CauseId::uncoalesced_global, "uncoalesced global loads (a strided layout)",
            fmt::format("{:.1f} sectors per global load request, and DRAM at {:.0f}% of its roof reads {:.2f}x the "
                        "sectors the loads fetch: consecutive sectors, each used for a few bytes by a lane that "
                        "steps over the rest",
                        spr, dram_now, per_sector),
            excess_share(4.0) * memory_share,
            fmt::format("sectors_per_load_request={:.1f}, dram_read_per_load_sector={:.2f}", spr, per_sector));
      return;
    }
  }
  // Nsight Compute's count of the bytes each sector carries settles it: sectors whose bytes are used (at/above
  // sector_bytes_min of 32) were not pulled for one word each (PyTorch's global average pool on the H200: 12.8
  // sectors per load request of 16-byte loads, 30.75 bytes used per sector, DRAM moving the input once).
  const std::optional<double> used = is_load ? m.global_load_bytes_per_sector : m.global_store_bytes_per_sector;
  const bool words_used = used && *used >= r.p("sector_bytes_min");
  // Gathers mixed with coalesced loads (a CSR product's values and column indices beside its gathers from x) average
  // fewer sectors a request than either: the bytes say it. The lanes use under strided_used_per_dram_min of what DRAM
  // reads, and DRAM reads more than the loads' sectors (a scattered sector pulls a 64-byte DRAM atom; a strided walk
  // reads each sector once, within strided_dram_per_sector_max), with few L1 hits: sectors fetched for a few bytes and
  // not used again (set 40's cuSPARSE CSR product over a permuted torus Laplacian: 10.2 sectors a load request, 11.7
  // bytes used a sector, the lanes using 0.25x DRAM's reads at 1.43x the sectors, L1 hit 10%, L2 hit 15%; both blind
  // labels: gathers, renumber the matrix).
  // (Not where the loads are a sliver of L2's traffic, fewer than atomic_l2_sector_share LSU requests per L2 sector:
  // tiles that move by TMA or cp.async.bulk fill DRAM's reads beside a few scalar loads.)
  const double lsu_requests =
      val(m.global_load_requests) + val(m.global_store_requests) + val(m.global_atomic_requests);
  const bool lsu_traffic = !m.l2_bytes || *m.l2_bytes <= 0 ||
                           lsu_requests / (*m.l2_bytes / 32.0) >= r.p("atomic_l2_sector_share");
  const bool mixed_gathers = is_load && lsu_traffic && load_used && *load_used > 0 && val(m.dram_read_bytes) > 0 &&
                             *load_used < r.p("strided_used_per_dram_min") * *m.dram_read_bytes &&
                             dram_per_load_sector > r.p("strided_dram_per_sector_max") &&
                             l1_hit < r.p("uncoalesced_l1_hit_min_pct") && l2_hit < r.p("uncoalesced_l2_hit_min_pct");
  bool scattered = !words_used &&
                   (spr >= r.p("uncoalesced_sectors_per_request") || mixed_gathers ||
                    (spr >= r.p("scattered_sectors_per_request") &&
                     (l2_gathers || (m.l2_hit_pct && l2_hit < r.p("scattered_l2_hit_max_pct") &&
                                     val(m.dram_measured_pct) < r.p("dram_bound_pct")))));
  if (scattered) {
    Finding& f = r.add(CauseId::scattered_access, "scattered global accesses (gathers)",
          l2_gathers
              ? fmt::format("{:.1f} sectors per global {} request with L1 hit {:.0f}% and L2 hit {:.0f}%, the lanes "
                            "using {:.1f}x the bytes DRAM reads: gathers that re-read data L2 holds, each access "
                            "pulling a whole sector from L2 for the few bytes one lane wants",
                            spr, what, l1_hit, l2_hit, *load_used / *m.dram_read_bytes)
          : mixed_gathers && spr < r.p("scattered_sectors_per_request")
              ? fmt::format("{:.1f} sectors per global load request with L1 hit {:.0f}% and L2 hit {:.0f}%, the lanes "
                            "using {:.2f}x the bytes DRAM reads and DRAM reading {:.2f}x the sectors' bytes: gathers "
                            "among coalesced loads, each pulling a sector (and a DRAM atom) for a few bytes no other "
                            "access uses",
                            spr, l1_hit, l2_hit, *load_used / *m.dram_read_bytes, dram_per_load_sector)
              : fmt::format("{:.1f} sectors per global {} request with L1 hit {:.0f}% and L2 hit {:.0f}%: each small "
                            "access pulls a whole sector that nothing else uses",
                            spr, what, l1_hit, l2_hit),
          excess_share(4.0) * memory_share,
          fmt::format("sectors_per_{}_request={:.1f}, l2_hit={:.0f}%", what, spr, l2_hit));
    if (!is_load) f.does_not_explain.push_back(CauseId::tensor_underfed);
    return;
  }
  // Partial coalescing: a warp's request touches few sectors, but each carries bytes nobody uses (a stride-2 float
  // access uses 16 of every 32: 8 sectors per request where 4 suffice). Sectors per request cannot tell that from
  // a coalesced 8-byte access; Nsight Compute's count of bytes used per sector can. The waste is that share of the
  // traffic, which a DRAM- or L2-bound kernel spends its time on.
  struct Side {
    const char* what;
    std::optional<double> bytes_per_sector, sectors;
  };
  // The rest of a loaded sector is often read by the next instruction from L1 (a bf16 row read in two halves):
  // only bytes no later load hits on are waste, so L1 hits are taken off the loads' unused share. Stores are not
  // cached in L1: a partial store sector is written as it is.
  double sectors = 0, wasted = 0, worst_wasted = 0, fewest_bytes = 32.0;
  const Side* worst = nullptr;
  const Side sides[] = {{"load", m.global_load_bytes_per_sector, m.global_load_sectors},
                        {"store", m.global_store_bytes_per_sector, m.global_store_sectors}};
  for (const auto& side : sides) {
    // Zero bytes per sector with sectors fetched: the loads are not LDG (cp.async or TMA fill shared memory),
    // which the SASS count does not see.
    if (!side.bytes_per_sector || *side.bytes_per_sector < 1.0 || !side.sectors || *side.sectors <= 0) continue;
    sectors += *side.sectors;
    const double unused = unused_share(*side.bytes_per_sector, side.what == sides[0].what);
    wasted += *side.sectors * unused;
    // The side named is the one that wastes the most sectors, not the fewest bytes a sector (set 40's CSR product:
    // its stores use 7.7 bytes a sector of 17 M sectors, its loads 11.7 of 196 M).
    if (unused > 0 && (!worst || *side.sectors * unused > worst_wasted))
      worst = &side, worst_wasted = *side.sectors * unused;
    if (unused > 0) fewest_bytes = std::min(fewest_bytes, *side.bytes_per_sector);
  }
  if (!worst) {
    if (!detect_store_fills(r)) detect_rewritten_store_sectors(r, spr);
    return;
  }
  if (fewest_bytes >= r.p("sector_bytes_min") || sectors <= 0) return;
  // The waste costs time where the sectors go: a kernel bound by DRAM or L2 bandwidth (a latency-bound pointer
  // chase or a compute-bound GEMM fetches few bytes it does not use, at no cost).
  const double dram = r.dram_pct();
  const bool l2_bound = val(m.l2_throughput_pct) >= r.p("onchip_bound_pct");
  if (dram < r.p("dram_bound_pct") && !l2_bound) return;
  // Bound by DRAM alone, what counts is whether DRAM moved bytes nobody used: the bytes the loads and stores use
  // (sectors × bytes used per sector) against DRAM's reads and writes. A sector another warp later hits in L1 or
  // L2 (a stride-3 vector read touches each sector from three warps) is not waste there.
  double waste = wasted / sectors;
  // A kernel whose tiles move by TMA (or cp.async.bulk) issues almost no LSU requests (fewer than
  // atomic_l2_sector_share per L2 sector, as for the atomics): its few LSU sectors are that share of what keeps L2
  // busy, not all of it (set 34's cuDNN convolution: one 4-byte store sector and 1028 flag atomics against 94 M L2
  // sectors read "87.5% of the global traffic is bytes nobody uses").
  if (!lsu_traffic) waste *= std::min(1.0, 32.0 * sectors / *m.l2_bytes);
  if (!l2_bound && m.dram_read_bytes && m.dram_write_bytes && *m.dram_read_bytes + *m.dram_write_bytes > 0) {
    double excess = 0;
    if (load_used) excess += std::max(0.0, *m.dram_read_bytes - *load_used);
    if (store_used) excess += std::max(0.0, *m.dram_write_bytes - *store_used);
    // Never more than the sectors' own unused share: DRAM reads that no LDG sector covers (TMA or cp.async tiles
    // beside a few scalar loads) are not this waste.
    waste = std::min(waste, excess / (*m.dram_read_bytes + *m.dram_write_bytes));
  }
  if (waste < 0.2) return;
  Finding& f = r.add(CauseId::uncoalesced_global, fmt::format("partially coalesced global {}s", worst->what),
        fmt::format("global {}s use {:.1f} of every 32 bytes they fetch ({:.1f} sectors per request, L1 hit "
                    "{:.0f}%): {} of the global traffic is bytes nobody uses",
                    worst->what, *worst->bytes_per_sector, spr, l1_hit, pct(waste)),
        waste * memory_share,
        fmt::format("bytes_per_sector_{}={:.1f}, sectors_per_request={:.1f}", worst->what, *worst->bytes_per_sector,
                    spr));
  if (worst->what != sides[0].what) f.does_not_explain.push_back(CauseId::tensor_underfed);
}

void detect_local_memory(RuleContext& r) {
  const auto& m = r.m;
  double lb = val(m.local_memory_bytes);
  if (lb <= 0) return;
  double through_l1 = std::max(val(m.l1_bytes), lb);
  double share = lb / through_l1;
  if (share < r.p("local_traffic_share")) return;
  bool spills = val(m.spill_requests) > 0;
  double memory_share = std::min(1.0, r.memory_max() / 100.0);
  r.add(CauseId::local_memory, spills ? "register spills to local memory" : "local memory (spills or per-thread arrays)",
        fmt::format("{:.3g} B of local-memory traffic, {} of the bytes through L1{}", lb, pct(share),
                    spills ? fmt::format(" ({:.3g} spill requests)", val(m.spill_requests)) : ""),
        share * memory_share, fmt::format("local_memory_bytes={:.3g} B ({} of L1 bytes)", lb, pct(share)));
}

}  // namespace kprof::analyze
