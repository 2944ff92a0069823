// Fix experiment for held-out set 28's agents_publish_seq on the calibration-pair harness: what removing its fences
// realises, to check the estimate kprof gives for its "fences" item (bench/fix_experiments/README.md;
// bench/RESULTS.md).
// The case's code exactly as captured and labelled (diag_holdout28.cu, included here, its main() renamed) against the
// change the blind labels name as the first fix (formerly half of bench/fix_experiments/fences.cu; the other half,
// set 35's lidar_voxel_counts, is calib_pairs35_fences.cu):
//
//   agents_publish_seq   publish_agents: a __threadfence_system() between each element's record and its sequence
//                        word  →  a block writes its batch of records, one fence (thread 0, between two barriers),
//                        then the batch's sequence words
//
//     calib_pairs28 [rounds]   JSON on stdout (calib_pairs.cuh's format): the median time before and after, CUDA
//                              events around the launch (grid 132 x 8 of 256, as the program) on the legacy default
//                              stream; each variant run once from cleared outputs and the records and sequence words
//                              compared bit for bit first ("agents_publish_seq: check ok" or "... check MISMATCH ..."
//                              on stderr), then 5 warm-up rounds (timed, discarded), then `rounds` (default 30) rounds
//                              of one call of each variant, alternating, the variant that goes first alternating
//                              between rounds; both variants write the same record and sequence buffers. Inputs as
//                              the program fills them (positions and velocities from fill_f32, seeds 21 and 22).
// Set 28 was captured on the H200: timed on another GPU the pair does not compare with that capture's estimate.
// Without a CUDA device it says so and exits 0.
//
// Built on request by CMake (`--target calib_pairs28`), or by hand from this folder:
//     nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo calib_pairs28.cu -o calib_pairs28
#define main diag_holdout28_main
#include "diag_holdout28.cu"
#undef main
#include "calib_pairs.cuh"

// ---- agents_publish_seq, after: the labelled fix: a block writes its batch of records, one fence, then the batch's
// sequence words.
__global__ void __launch_bounds__(256) publish_per_batch(const float4* __restrict__ pos, const float4* __restrict__ vel,
                                                         float4* __restrict__ rec, unsigned* __restrict__ seq) {
  for (int base = blockIdx.x * 256; base < PB_N; base += gridDim.x * 256) {
    const int i = base + threadIdx.x;
    const float4 p = pos[i], v = vel[i];
    rec[i] = make_float4(fmaf(PB_DT, v.x, p.x), fmaf(PB_DT, v.y, p.y), fmaf(PB_DT, v.z, p.z), p.w);
    __syncthreads();
    if (threadIdx.x == 0) __threadfence_system();
    __syncthreads();
    seq[i] = PB_EPOCH;
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

  // ---- agents_publish_seq: 2^23 agents, float4 position and velocity in, float4 record and sequence word out.
  {
    float4 *pos, *vel, *rec;
    unsigned* seq;
    CK(cudaMalloc(&pos, PB_N * sizeof(float4)));
    CK(cudaMalloc(&vel, PB_N * sizeof(float4)));
    CK(cudaMalloc(&rec, PB_N * sizeof(float4)));
    CK(cudaMalloc(&seq, PB_N * sizeof(unsigned)));
    fill_f32<<<4096, 256>>>(reinterpret_cast<float*>(pos), 4 * (size_t)PB_N, 50.0f, 0.0f, 21u);
    fill_f32<<<4096, 256>>>(reinterpret_cast<float*>(vel), 4 * (size_t)PB_N, 2.0f, 0.0f, 22u);
    auto before = [&] { publish_agents<<<PB_GRID, 256>>>(pos, vel, rec, seq); };
    auto after = [&] { publish_per_batch<<<PB_GRID, 256>>>(pos, vel, rec, seq); };
    // Each variant once from cleared outputs.
    auto outputs = [&](auto&& variant, std::vector<float4>& hr, std::vector<unsigned>& hs) {
      CK(cudaMemset(rec, 0, PB_N * sizeof(float4)));
      CK(cudaMemset(seq, 0, PB_N * sizeof(unsigned)));
      variant();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      hr = d2h(rec, PB_N);
      hs = d2h(seq, PB_N);
    };
    std::vector<float4> rb, ra;
    std::vector<unsigned> sb, sa;
    outputs(before, rb, sb);
    outputs(after, ra, sa);
    bool same = true;
    char msg[256] = "";
    for (int i = 0; i < PB_N && same; ++i)
      if (std::memcmp(&rb[i], &ra[i], sizeof(float4)) != 0 || sb[i] != sa[i] || sb[i] != PB_EPOCH) {
        std::snprintf(msg, sizeof msg, "agent %d: after (%g, %g, %g; %u), before (%g, %g, %g; %u)", i, (double)ra[i].x,
                      (double)ra[i].y, (double)ra[i].z, sa[i], (double)rb[i].x, (double)rb[i].y, (double)rb[i].z,
                      sb[i]);
        same = false;
      }
    if (same)
      std::fprintf(stderr, "agents_publish_seq: check ok\n");
    else
      std::fprintf(stderr, "agents_publish_seq: check MISMATCH %s\n", msg);
    std::vector<double> wb, wa, tb, ta;
    calib::alternate(kWarmupRounds, 1, before, after, event_ms, wb, wa);
    calib::alternate(rounds, 1, before, after, event_ms, tb, ta);
    calib::print_case("agents_publish_seq", "per-element system fence -> one per block",
                      "CUDA events around the launch", tb, ta, same, true);
    CK(cudaFree(pos));
    CK(cudaFree(vel));
    CK(cudaFree(rec));
    CK(cudaFree(seq));
  }
  calib::print_footer();
  return 0;
}
