// Calibration pairs for kprof's items (bench/RESULTS.md 9zc) on held-out set 33's cases (captured on an H100): each
// case's code exactly as captured and labelled (diag_holdout33.cu, included here, its main() renamed), against the fix
// that kprof's first item for it names, timed alternately on one GPU.
//
//   scalar_colormap_rgba   per-lane indices into a __constant__ colormap  →  the table copied to shared memory
//   btree_rank_lookup      one query warp per 32-thread block (the blocks-per-SM limit)  →  8 query warps per block
//   duffing_param_sweep    152 blocks of 1024 threads, 16 oscillators each (1.15 waves of one block per SM)  →  two
//                          oscillators per thread in 4864 blocks of 256 threads (several waves; this also changes the
//                          independent chains per thread, 16 to 2, and doubles the resident threads: not a pure
//                          change of wave count)
//   heat_mode_steps        a cudaStreamSynchronize after each of the 128 launches  →  one at the end
//   ocean_height_frames    each frame copied back by cudaMemcpy into pageable memory  →  into pinned memory by
//                          cudaMemcpyAsync on the same stream (the copies still follow the kernels: only the rate
//                          changes, as the item assumes)
//
//     calib_pairs33 [rounds]   JSON on stdout: each case's median time before and after (CUDA events around the
//                              kernel, or the host wall time of a call that synchronises or is host-paced), rounds
//                              (default 7) of 10 calls of each variant, alternating, after a warm-up; each variant's
//                              output checked against the other's.
// Without a CUDA device it says so and exits 0.
#define main diag_holdout33_main
#include "diag_holdout33.cu"
#undef main
#include "calib_pairs.cuh"

// ---- scalar_colormap_rgba, after: the same interpolation from a shared-memory copy of the table.
// The table is filled from its global copy (the __constant__ symbol's address, read coalesced through the read-only
// path), not from c_cmap itself, whose per-lane addresses would serialise the fill as they did the lookups.
__global__ void __launch_bounds__(256) scalar_colormap_rgba_lerp_smem(const float4* __restrict__ field,
                                                                      const float* __restrict__ cmap_global,
                                                                      uint4* __restrict__ rgba) {
  __shared__ float table[4][256];
  for (int k = threadIdx.x; k < 4 * 256; k += blockDim.x) table[k / 256][k % 256] = __ldg(cmap_global + k);
  __syncthreads();
  auto pixel = [&](float s) {
    const float u = mul_rn(fminf(fmaxf(s, 0.f), 1.f), 255.f);
    const int i0 = min((int)u, 254);
    const float w = u - (float)i0;
    float c[4];
#pragma unroll
    for (int ch = 0; ch < 4; ++ch) {
      const float lo = table[ch][i0], hi = table[ch][i0 + 1];
      c[ch] = fmaf(w, hi - lo, lo);
    }
    return cm_pack(c[0], c[1], c[2], c[3]);
  };
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;
  const float4 s = field[i];
  rgba[i] = make_uint4(pixel(s.x), pixel(s.y), pixel(s.z), pixel(s.w));
}

// ---- btree_rank_lookup, after: 256-thread blocks, each warp its own BT_QPW queries as before.
__global__ void __launch_bounds__(256) btree_rank_lookup_queries_8w(const unsigned* __restrict__ tree,
                                                                    const unsigned* __restrict__ keys,
                                                                    const unsigned* __restrict__ query,
                                                                    unsigned* __restrict__ rank) {
  const unsigned lane = threadIdx.x & 31;
  const size_t warp = (size_t)blockIdx.x * 8 + (threadIdx.x >> 5);
#pragma unroll 1
  for (int k = 0; k < BT_QPW; ++k) {
    const size_t qi = warp * BT_QPW + k;
    const unsigned x = query[qi];
    unsigned node = 0;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const unsigned sep = tree[bt_level_offset(l) + node * 32u + lane];
      const unsigned below = __ballot_sync(FULL, sep <= x);
      node = node * 32u + (below ? 31u - (unsigned)__clz(below) : 0u);
    }
    const unsigned key = keys[(size_t)node * 32u + lane];
    const unsigned below = __ballot_sync(FULL, key <= x);
    if (lane == 0) rank[qi] = node * 32u + (unsigned)__popc(below);
  }
}

// ---- duffing_param_sweep, after: finer work units, two oscillators per thread (ids g and g + DS_N / 2, each with its
// own set's parameters) in 256-thread blocks: 4864 blocks, several waves, so the last one is a small share.
constexpr int DS2_OSC = 2;
__global__ void __launch_bounds__(256) duffing_param_sweep_fine(float2* __restrict__ out) {
  const size_t g = blockIdx.x * (size_t)256 + threadIdx.x;
  float x[DS2_OSC], v[DS2_OSC];
  DuffPar q[DS2_OSC];
#pragma unroll
  for (int j = 0; j < DS2_OSC; ++j) {
    const size_t id = g + (size_t)j * (DS_N / DS2_OSC);
    q[j] = ds_par((int)(id / ((size_t)DS_OSC * 1024)));
    x[j] = ds_x0(id);
    v[j] = ds_v0(id);
  }
#pragma unroll 1
  for (int s = 0; s < DS_STEPS; ++s) {
#pragma unroll
    for (int j = 0; j < DS2_OSC; ++j) ds_step(x[j], v[j], q[j]);
  }
#pragma unroll
  for (int j = 0; j < DS2_OSC; ++j) out[g + (size_t)j * (DS_N / DS2_OSC)] = make_float2(x[j], v[j]);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  cudaDeviceProp prop;
  if (!calib::first_device(prop)) return 0;
  const size_t MiB = 1ull << 20;
  const int calls = 10;
  Timer tm;
  auto event_ms = [&](auto&& body) { return calib::event_ms(tm, body); };
  auto wall_ms = [](auto&& body) { return calib::wall_ms(body); };
  calib::print_header(prop.name, rounds);

  // ---- scalar_colormap_rgba: the field (256 MiB) and each variant's RGBA8 image (256 MiB).
  {
    float* field;
    unsigned *out_b, *out_a;
    CK(cudaMalloc(&field, CM_N * sizeof(float)));
    CK(cudaMalloc(&out_b, CM_N * sizeof(unsigned)));
    CK(cudaMalloc(&out_a, CM_N * sizeof(unsigned)));
    std::vector<float> planar(4 * 256);
    for (int i = 0; i < 256; ++i) {
      const float4 e = cm_entry(i);
      planar[i] = e.x, planar[256 + i] = e.y, planar[512 + i] = e.z, planar[768 + i] = e.w;
    }
    CK(cudaMemcpyToSymbol(c_cmap, planar.data(), planar.size() * sizeof(float)));
    const float* cmap_global = nullptr;
    CK(cudaGetSymbolAddress((void**)&cmap_global, c_cmap));
    fill_colormap_field<<<4096, 256>>>(field);
    const unsigned grid = (unsigned)(CM_N / 4 / 256);
    auto before = [&] {
      scalar_colormap_rgba_lerp<<<grid, 256>>>(reinterpret_cast<const float4*>(field), reinterpret_cast<uint4*>(out_b));
    };
    auto after = [&] {
      scalar_colormap_rgba_lerp_smem<<<grid, 256>>>(reinterpret_cast<const float4*>(field), cmap_global,
                                                     reinterpret_cast<uint4*>(out_a));
    };
    before();
    after();
    CK(cudaDeviceSynchronize());
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, event_ms, tb, ta);
    const bool same = d2h(out_b, CM_N) == d2h(out_a, CM_N);
    calib::print_case("scalar_colormap_rgba", "the colormap in shared memory", "CUDA events around the kernel", tb, ta,
                      same, false);
    CK(cudaFree(field));
    CK(cudaFree(out_b));
    CK(cudaFree(out_a));
  }

  // ---- btree_rank_lookup: keys (128 MiB), separators (4.1 MiB), queries (16 MiB), each variant's ranks (16 MiB).
  {
    unsigned *keys, *tree, *query, *rank_b, *rank_a;
    CK(cudaMalloc(&keys, BT_NKEYS * sizeof(unsigned)));
    CK(cudaMalloc(&tree, 8 * MiB));
    CK(cudaMalloc(&query, BT_Q * sizeof(unsigned)));
    CK(cudaMalloc(&rank_b, BT_Q * sizeof(unsigned)));
    CK(cudaMalloc(&rank_a, BT_Q * sizeof(unsigned)));
    fill_btree<<<4096, 256>>>(keys, tree, query);
    auto before = [&] { btree_rank_lookup_queries<<<BT_Q / BT_QPW, 32>>>(tree, keys, query, rank_b); };
    auto after = [&] { btree_rank_lookup_queries_8w<<<BT_Q / BT_QPW / 8, 256>>>(tree, keys, query, rank_a); };
    before();
    after();
    CK(cudaDeviceSynchronize());
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, event_ms, tb, ta);
    const bool same = d2h(rank_b, BT_Q) == d2h(rank_a, BT_Q);
    calib::print_case("btree_rank_lookup", "256-thread blocks of 8 query warps", "CUDA events around the kernel", tb,
                      ta, same, false);
    for (unsigned* p : {keys, tree, query, rank_b, rank_a}) CK(cudaFree(p));
  }

  // ---- duffing_param_sweep: each variant's final (x, v) of 2.49 M oscillators (19 MiB).
  {
    float2 *out_b, *out_a;
    CK(cudaMalloc(&out_b, DS_N * sizeof(float2)));
    CK(cudaMalloc(&out_a, DS_N * sizeof(float2)));
    auto before = [&] { duffing_param_sweep_blocks<<<DS_SETS, 1024>>>(out_b); };
    auto after = [&] { duffing_param_sweep_fine<<<(unsigned)(DS_N / DS2_OSC / 256), 256>>>(out_a); };
    before();
    after();
    CK(cudaDeviceSynchronize());
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, event_ms, tb, ta);
    const auto hb = d2h(out_b, DS_N), ha = d2h(out_a, DS_N);
    const bool same = std::memcmp(hb.data(), ha.data(), DS_N * sizeof(float2)) == 0;
    calib::print_case("duffing_param_sweep", "two oscillators per thread, 4864 blocks of 256 threads", "CUDA events around the kernel", tb, ta,
                      same, false);
    CK(cudaFree(out_b));
    CK(cudaFree(out_a));
  }

  // ---- heat_mode_steps: 128 steps of the 512^2 grid, each variant from the same mode.
  {
    float *u_b, *v_b, *u_a, *v_a;
    const size_t bytes = (size_t)HM_N * HM_N * sizeof(float);
    for (float** p : {&u_b, &v_b, &u_a, &v_a}) CK(cudaMalloc(p, bytes));
    const double pi = 3.14159265358979323846;
    std::vector<float> u0((size_t)HM_N * HM_N);
    for (int y = 0; y < HM_N; ++y)
      for (int x = 0; x < HM_N; ++x)
        u0[(size_t)y * HM_N + x] = (float)(std::sin(2.0 * pi * HM_K * x / HM_N) * std::sin(2.0 * pi * HM_K * y / HM_N));
    const dim3 grid(HM_N / 32, HM_N / 8);
    auto steps = [&](float* u, float* v, bool sync_each) {
      for (int s = 0; s < HM_STEPS; ++s) {
        heat_mode_steps_stencil<<<grid, 256>>>(u, v);
        CK(cudaGetLastError());
        if (sync_each) CK(cudaStreamSynchronize(0));
        std::swap(u, v);
      }
    };
    auto before = [&] { steps(u_b, v_b, true); };
    auto after = [&] {
      steps(u_a, v_a, false);
      CK(cudaStreamSynchronize(0));
    };
    CK(cudaMemcpy(u_b, u0.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(u_a, u0.data(), bytes, cudaMemcpyHostToDevice));
    before();
    after();
    const bool same = d2h(u_b, (size_t)HM_N * HM_N) == d2h(u_a, (size_t)HM_N * HM_N);
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, wall_ms, tb, ta);
    calib::print_case("heat_mode_steps", "no synchronisation between the steps", "host wall time of the 128 steps", tb,
                      ta, same, false);
    for (float* p : {u_b, v_b, u_a, v_a}) CK(cudaFree(p));
  }

  // ---- ocean_height_frames: 10 frames of 8 MiB, read back into pageable memory, or into pinned memory.
  {
    float* frame;
    CK(cudaMalloc(&frame, OC_PIX * sizeof(float)));
    std::vector<float4> wave(OC_WAVES);
    std::vector<float> amp(OC_WAVES);
    oc_waves(wave.data(), amp.data());
    CK(cudaMemcpyToSymbol(c_oc_wave, wave.data(), OC_WAVES * sizeof(float4)));
    CK(cudaMemcpyToSymbol(c_oc_amp, amp.data(), OC_WAVES * sizeof(float)));
    std::vector<float> host(OC_PIX * OC_FRAMES, 0.f);
    float* pinned = nullptr;
    CK(cudaMallocHost(&pinned, OC_PIX * OC_FRAMES * sizeof(float)));
    auto frames = [&](float* dst, bool async) {
      for (int f = 0; f < OC_FRAMES; ++f) {
        ocean_height_frames_synth<<<dim3(OC_W / 256, OC_H), 256>>>(frame, (float)f / OC_FPS);
        if (async)
          CK(cudaMemcpyAsync(dst + (size_t)f * OC_PIX, frame, OC_PIX * sizeof(float), cudaMemcpyDeviceToHost, 0));
        else
          CK(cudaMemcpy(dst + (size_t)f * OC_PIX, frame, OC_PIX * sizeof(float), cudaMemcpyDeviceToHost));
      }
    };
    auto before = [&] { frames(host.data(), false); };
    auto after = [&] {
      frames(pinned, true);
      CK(cudaStreamSynchronize(0));
    };
    before();
    after();
    const bool same = std::memcmp(host.data(), pinned, OC_PIX * OC_FRAMES * sizeof(float)) == 0;
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, wall_ms, tb, ta);
    calib::print_case("ocean_height_frames", "pinned frames, cudaMemcpyAsync on the same stream",
                      "host wall time of the 10 frames", tb, ta, same, true);
    CK(cudaFree(frame));
    CK(cudaFreeHost(pinned));
  }
  calib::print_footer();
  return 0;
}
