// Fix experiment for held-out set 35's lidar_voxel_counts on the calibration-pair harness: what relaxing its atomics'
// memory order realises, to check the estimate kprof gives for its "fences" item (bench/fix_experiments/README.md;
// bench/RESULTS.md). The case's code exactly as captured and labelled (diag_holdout35.cu, included here, its main()
// renamed) against the change the blind labels name as the first fix (formerly half of
// bench/fix_experiments/fences.cu; the other half, set 28's agents_publish_seq, is calib_pairs28.cu). A program of its
// own rather than a case of calib_pairs35.cu, whose JSON (examples/h100/fix-pairs/set35-timings.json) and rounds
// (7 of 10 calls) stay as they were:
//
//   lidar_voxel_counts   lidar_voxel_counts_atomic: cuda::atomic_ref<unsigned, thread_scope_device>::fetch_add in
//                        its default order (seq_cst)  →  memory_order_relaxed, nothing else changed
//
//     calib_pairs35_fences [rounds]   JSON on stdout (calib_pairs.cuh's format): the median time before and after,
//                              CUDA events around the launch (2^16 blocks of 256, as the program) on the legacy
//                              default stream; each variant run once from cleared counts and the 2^21 counts compared
//                              first ("lidar_voxel_counts: check ok" or "... check MISMATCH ..." on stderr), then 5
//                              warm-up rounds (timed, discarded), then `rounds` (default 30) rounds of one call of
//                              each variant, alternating, the variant that goes first alternating between rounds. The
//                              timed launches count into one buffer, cleared once before them and not between them
//                              (the atomics cost the same). Points as the program fills them (fill_points).
// Without a CUDA device it says so and exits 0.
//
// Built on request by CMake (`--target calib_pairs35_fences`), or by hand from this folder:
//     nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo calib_pairs35_fences.cu -o calib_pairs35_fences
#define main diag_holdout35_main
#include "diag_holdout35.cu"
#undef main
#include "calib_pairs.cuh"

// ---- lidar_voxel_counts, after: the same kernel with the memory order a template argument (instantiated relaxed).
template <cuda::memory_order O>
__global__ void __launch_bounds__(256) lidar_counts(const uint4* __restrict__ pts, unsigned* __restrict__ counts) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const uint4 p = pts[i];
  const unsigned pt[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> cell(counts[lv_voxel(pt[k])]);
    cell.fetch_add(1u, O);
  }
}

constexpr int kWarmupRounds = 5;  // before the timed rounds: timed like them, then dropped

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  cudaDeviceProp prop;
  if (!calib::first_device(prop)) return 0;
  Timer tm;
  auto event_ms = [&](auto&& body) { return calib::event_ms(tm, body); };
  calib::print_header(prop.name, rounds);

  // ---- lidar_voxel_counts: 2^26 packed points (256 MiB), 2^21 counts (8 MiB).
  {
    unsigned *pts, *counts;
    CK(cudaMalloc(&pts, LV_N * sizeof(unsigned)));
    CK(cudaMalloc(&counts, LV_BINS * sizeof(unsigned)));
    fill_points<<<4096, 256>>>(pts);
    const unsigned grid = (unsigned)(LV_N / 4 / 256);
    auto before = [&] { lidar_voxel_counts_atomic<<<grid, 256>>>(reinterpret_cast<const uint4*>(pts), counts); };
    auto after = [&] {
      lidar_counts<cuda::memory_order_relaxed><<<grid, 256>>>(reinterpret_cast<const uint4*>(pts), counts);
    };
    // Each variant once from cleared counts.
    auto outputs = [&](auto&& variant) {
      CK(cudaMemset(counts, 0, LV_BINS * sizeof(unsigned)));
      variant();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return d2h(counts, LV_BINS);
    };
    const std::vector<unsigned> cb = outputs(before), ca = outputs(after);
    bool same = true;
    char msg[256] = "";
    unsigned long long total = 0;
    for (size_t b = 0; b < LV_BINS; ++b) total += cb[b];
    for (size_t b = 0; b < LV_BINS && same; ++b)
      if (cb[b] != ca[b]) {
        std::snprintf(msg, sizeof msg, "voxel %zu: after %u, before %u", b, ca[b], cb[b]);
        same = false;
      }
    if (same && total != LV_N) {
      std::snprintf(msg, sizeof msg, "%llu points counted, not %zu", total, LV_N);
      same = false;
    }
    if (same)
      std::fprintf(stderr, "lidar_voxel_counts: check ok\n");
    else
      std::fprintf(stderr, "lidar_voxel_counts: check MISMATCH %s\n", msg);
    CK(cudaMemset(counts, 0, LV_BINS * sizeof(unsigned)));
    std::vector<double> wb, wa, tb, ta;
    calib::alternate(kWarmupRounds, 1, before, after, event_ms, wb, wa);
    calib::alternate(rounds, 1, before, after, event_ms, tb, ta);
    calib::print_case("lidar_voxel_counts", "seq_cst fetch_add -> relaxed", "CUDA events around the launch", tb, ta,
                      same, true);
    CK(cudaFree(pts));
    CK(cudaFree(counts));
  }
  calib::print_footer();
  return 0;
}
