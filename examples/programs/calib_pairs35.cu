// Calibration pairs for two of kprof's items (bench/RESULTS.md 9zc), on the held-out set-35 cases that prompted them:
// each case's code exactly as captured and labelled (diag_holdout35.cu, included here, its main() renamed), against
// the fix the item names, timed alternately on one GPU.
//
//   spectra_tma_clenshaw   one bulk (TMA) tile copy waited for before its math, one buffer  →  two half-size buffers:
//                          the next tile's copy in flight during this tile's math ("overlap the bulk copies with the
//                          math (a second tile buffer)")
//   sensor_chunk_streams   each chunk's upload a blocking cudaMemcpy on the legacy stream, its decode and read-back
//                          on one of four streams  →  the upload a cudaMemcpyAsync on the chunk's stream, so uploads
//                          and read-backs run side by side ("copy asynchronously on the chunks' streams")
//
//     calib_pairs35 [rounds]   JSON on stdout: each case's median time before and after (CUDA events around the
//                              kernel for the first, host wall time of the whole call for the second, which ends in
//                              stream synchronisations), rounds (default 7) of 10 calls of each variant, alternating,
//                              after a warm-up; each variant's output checked against the other's.
// Without a CUDA device it says so and exits 0.
#define main diag_holdout35_main
#include "diag_holdout35.cu"
#undef main
#include "calib_pairs.cuh"

// ---- spectra, after: SPB_TROWS-spectrum tiles in two buffers; the copy of tile t + gridDim.x is issued before the
// math on tile t and completes on the other buffer's barrier.
constexpr int SPB_TROWS = 64;
constexpr int SPB_TILE = SP_ROW * SPB_TROWS;
constexpr int SPB_TILES = (int)(SP_N / SPB_TILE);
constexpr size_t SPB_SMEM = 2 * (size_t)SPB_TILE * sizeof(float);  // 128 KiB

#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void __launch_bounds__(512, 1) spectra_tma_clenshaw_rows_2buf(const float* __restrict__ in,
                                                                         float* __restrict__ out) {
  extern __shared__ __align__(128) float tiles[];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];
  auto block = cg::this_thread_block();
  auto warp32 = cg::tiled_partition<32>(block);
  if (block.thread_rank() == 0) {
    init(&bar[0], block.size());
    init(&bar[1], block.size());
  }
  block.sync();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int buf = 0;
  if (blockIdx.x < SPB_TILES)
    cuda::memcpy_async(block, tiles, in + (size_t)blockIdx.x * SPB_TILE, cuda::aligned_size_t<16>(SPB_SMEM / 2),
                       bar[0]);
  for (int t = blockIdx.x; t < SPB_TILES; t += gridDim.x, buf ^= 1) {
    const int next = t + gridDim.x;
    if (next < SPB_TILES) {
      // The other buffer was released by the block.sync() that ended the previous tile.
      if (block.thread_rank() == 0) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      cuda::memcpy_async(block, tiles + (buf ^ 1) * SPB_TILE, in + (size_t)next * SPB_TILE,
                         cuda::aligned_size_t<16>(SPB_SMEM / 2), bar[buf ^ 1]);
    }
    bar[buf].arrive_and_wait();
    const float* tile = tiles + buf * SPB_TILE;
#pragma unroll 1
    for (int r = 0; r < SPB_TROWS / 16; ++r) {  // 16 warps x 4 spectra
      const int row = warp * (SPB_TROWS / 16) + r;
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < SP_ROW / 32; ++k) s += sp_clenshaw(tile[row * SP_ROW + k * 32 + lane]);
      s = cg::reduce(warp32, s, cg::plus<float>());
      if (lane == 0) out[(size_t)t * SPB_TROWS + row] = s;
    }
    block.sync();
  }
}
#pragma nv_diag_default static_var_with_dynamic_init


int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  cudaDeviceProp prop;
  if (!calib::first_device(prop)) return 0;
  const int num_sms = prop.multiProcessorCount;
  const size_t MiB = 1ull << 20;
  const int calls = 10;
  Timer tm;
  auto event_ms = [&](auto&& body) { return calib::event_ms(tm, body); };
  auto wall_ms = [](auto&& body) { return calib::wall_ms(body); };
  calib::print_header(prop.name, rounds);

  // ---- spectra_tma_clenshaw: 1 GiB of samples, the 2^20 sums of each variant.
  {
    float *x, *out_b, *out_a;
    CK(cudaMalloc(&x, SP_N * sizeof(float)));
    CK(cudaMalloc(&out_b, (SP_N / SP_ROW) * sizeof(float)));
    CK(cudaMalloc(&out_a, (SP_N / SP_ROW) * sizeof(float)));
    float coef[SP_DEG];
    sp_coefficients(coef);
    CK(cudaMemcpyToSymbol(c_sp_cheb, coef, sizeof coef));
    CK(cudaFuncSetAttribute(spectra_tma_clenshaw_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SP_SMEM));
    CK(cudaFuncSetAttribute(spectra_tma_clenshaw_rows_2buf, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)SPB_SMEM));
    fill_spectra<<<4096, 256>>>(x);
    auto before = [&] { spectra_tma_clenshaw_rows<<<num_sms, 512, SP_SMEM>>>(x, out_b); };
    auto after = [&] { spectra_tma_clenshaw_rows_2buf<<<num_sms, 512, SPB_SMEM>>>(x, out_a); };
    before();
    after();
    CK(cudaDeviceSynchronize());
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, event_ms, tb, ta);
    const auto hb = d2h(out_b, SP_N / SP_ROW), ha = d2h(out_a, SP_N / SP_ROW);
    calib::print_case("spectra_tma_clenshaw", "a second tile buffer: the next bulk copy in flight during the math",
               "CUDA events around the kernel", tb, ta, hb == ha, false);
    CK(cudaFree(x));
    CK(cudaFree(out_b));
    CK(cudaFree(out_a));
  }

  // ---- sensor_chunk_streams: 16 chunks in pinned host memory, per-stream device buffers.
  {
    const size_t in_bytes = SC_S * sizeof(unsigned short), out_bytes = SC_S * sizeof(__nv_bfloat16);
    float dark[64], gain[64];
    sc_tables(dark, gain);
    CK(cudaMemcpyToSymbol(c_sc_dark, dark, sizeof dark));
    CK(cudaMemcpyToSymbol(c_sc_gain, gain, sizeof gain));
    unsigned short *h_raw = nullptr, *h_out_b = nullptr, *h_out_a = nullptr;
    CK(cudaMallocHost(&h_raw, SC_CHUNKS * in_bytes));
    CK(cudaMallocHost(&h_out_b, SC_CHUNKS * out_bytes));
    CK(cudaMallocHost(&h_out_a, SC_CHUNKS * out_bytes));
    unsigned short* d_all;
    CK(cudaMalloc(&d_all, SC_STREAMS * 16 * MiB));
    unsigned short* scratch;
    CK(cudaMalloc(&scratch, SC_CHUNKS * in_bytes));
    fill_sensor<<<4096, 256>>>(scratch, SC_CHUNKS * SC_S);
    CK(cudaMemcpy(h_raw, scratch, SC_CHUNKS * in_bytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(scratch));
    cudaStream_t st[SC_STREAMS];
    unsigned short* d_raw[SC_STREAMS];
    unsigned short* d_out[SC_STREAMS];
    for (int s = 0; s < SC_STREAMS; ++s) {
      CK(cudaStreamCreate(&st[s]));  // blocking streams, as in the captured case
      d_raw[s] = d_all + (size_t)s * 8 * MiB;  // 16 MiB per stream: 8 MiB raw, 8 MiB decoded
      d_out[s] = d_all + (size_t)s * 8 * MiB + 4 * MiB;
    }
    auto body = [&](bool async_upload, unsigned short* h_out) {
      for (int c = 0; c < SC_CHUNKS; ++c) {
        const int s = c % SC_STREAMS;
        if (async_upload)
          CK(cudaMemcpyAsync(d_raw[s], h_raw + (size_t)c * SC_S, in_bytes, cudaMemcpyHostToDevice, st[s]));
        else
          CK(cudaMemcpy(d_raw[s], h_raw + (size_t)c * SC_S, in_bytes, cudaMemcpyHostToDevice));
        sensor_chunk_decode<<<(unsigned)(SC_S / 8 / 256), 256, 0, st[s]>>>(reinterpret_cast<const uint4*>(d_raw[s]),
                                                                          reinterpret_cast<uint4*>(d_out[s]));
        CK(cudaMemcpyAsync(h_out + (size_t)c * SC_S, d_out[s], out_bytes, cudaMemcpyDeviceToHost, st[s]));
      }
      for (int s = 0; s < SC_STREAMS; ++s) CK(cudaStreamSynchronize(st[s]));
    };
    auto before = [&] { body(false, h_out_b); };
    auto after = [&] { body(true, h_out_a); };
    before();
    after();
    std::vector<double> tb, ta;
    calib::alternate(rounds, calls, before, after, wall_ms, tb, ta);
    const bool same = std::memcmp(h_out_b, h_out_a, SC_CHUNKS * out_bytes) == 0;
    calib::print_case("sensor_chunk_streams", "uploads by cudaMemcpyAsync on the chunks' streams",
               "host wall time of the call (it ends in stream synchronisations)", tb, ta, same, true);
    for (int s = 0; s < SC_STREAMS; ++s) CK(cudaStreamDestroy(st[s]));
    CK(cudaFree(d_all));
    CK(cudaFreeHost(h_raw));
    CK(cudaFreeHost(h_out_b));
    CK(cudaFreeHost(h_out_a));
  }
  calib::print_footer();
  return 0;
}
