// Fix experiment for held-out set 48 on the calibration-pair harness: what the first fix of five single-kernel cases
// realises on the device, to calibrate the gains kprof estimates (bench/fix_experiments/README.md; bench/RESULTS.md
// 9zk). "before" is the case's code exactly as captured and labelled (diag_holdout48.cu, included here, its main()
// renamed), launched with the program's launch configuration, problem size and deterministic inputs; "after" applies
// only the first fix the blind labels name, as a first step (no rewrite into another algorithm). The fixes were
// written by a helper who did not read kprof's rules or estimates (formerly bench/fix_experiments/set48_fixes.cu):
//
//   geohash_encode_gps_64m_points_precision12   geohash_encode: the two 30-bit cell indices interleaved one bit at a
//                    time in a 30-step loop of 64-bit shifts / ORs  →  each index spread to the even bits of a 64-bit
//                    word with the five magic-mask shift / AND steps (Morton spreading), code = spread(lon) << 1 |
//                    spread(lat): the same 60-bit codes. Quantisation unchanged.
//   ping_density_heatmap_grid_32m_pings_2048x2048   bin_pings: one global atomicAdd per ping, 85 % of them on 8 hot
//                    cells  →  warp aggregation: __match_any_sync on the cell index, the lowest lane of each group of
//                    equal cells adds the group's popcount with one global atomicAdd; nothing else changed.
//   point_in_polygon_service_zones_4m_pings_256_zones   zones_of_pings: the 24-vertex rings in __constant__ memory
//                    read with per-lane (divergent) indices  →  the ring table in a global copy read through __ldg
//                    (read-only path). A shared-memory copy would be 48 KB per 256-thread block (16 K blocks, ~800 MB
//                    of L2 traffic a launch), so the global / __ldg variant of the fix is used. The bounding boxes stay
//                    in __constant__ (the fix is about the rings); same ray-casting algorithm and arithmetic.
//   nearest_depot_haversine_1m_pings_1024_depots   nearest_depot_haversine: sin((a - b) * 0.5) with a double literal
//                    promotes the half-angle sines to FP64  →  sinf((a - b) * 0.5f); everything else was already FP32.
//   knn_k16_uniform_grid_64k_queries_4m_points   knn_grid_bitonic: in the compare-exchange steps of stride 1..16 a
//                    warp's 32 lo (and 32 hi) indices span 64 words, 2-way bank conflicts on every key / val access
//                    →  the shared key / val arrays are indexed through an XOR swizzle, i ^ (bit 5 of i ? 31 : 0). (A
//                    pad of one word per 32 only removes the stride-1 conflicts; for strides 2..16 the two 32-word
//                    halves still overlap in banks. With the swizzle, the words a warp touches in any step, and in the
//                    gather and output steps, fall in 32 distinct banks.) Same sort, same output.
//
//     calib_pairs48 [rounds]   JSON on stdout (calib_pairs.cuh's format, that of examples/h100/fix-pairs/
//                              set48-timings.json, which bench/version_pairs.py reads): each case's median time before
//                              and after, CUDA events around the launch on the legacy default stream; each variant run
//                              once and the outputs compared first, then 5 warm-up rounds (timed, discarded), then
//                              `rounds` (default 30) rounds of one call of each variant, alternating, the variant that
//                              goes first alternating between rounds. The heatmap counts are not cleared between timed
//                              launches (before and after each accumulate into their own grid; the atomics cost the
//                              same). On stderr, per case, "<case>: check ok" or "<case>: check MISMATCH <first
//                              difference>": exact for geohash codes, cell counts, zone results (count and lowest zone
//                              id per ping) and the k-NN lists; for the haversine case a line with the max |dist after
//                              - dist before| comes first, and the nearest-depot index may differ only where the two
//                              depots' haversine values (host, FP64) agree within a relative 1e-5 (an FP32 tie; counted
//                              on that line). A case whose CUDA call fails gets "error" in place of its times (and
//                              "<case>: skipped (...)" on stderr), the others still run; the exit status is then 1.
//                              Peak device memory about 1.6 GB (one case's buffers at a time).
// Without a CUDA device it says so and exits 0.
//
// Built on request by CMake (`--target calib_pairs48`), or by hand from this folder:
//     nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo calib_pairs48.cu -o calib_pairs48
#define main diag_holdout48_main
#include "diag_holdout48.cu"
#undef main
// diag_holdout48.cu keeps its events in its Ctx: the driver brings a Timer for calib_pairs.cuh's event_ms.
#include "calib_pairs_driver.cuh"

static int g_sms = 132;  // the fills' grid (8 blocks per SM, grid-stride), as the program sizes it

// ===============================================================================================================
// 1. geohash_encode_gps_64m_points_precision12 (before: geohash_encode)

// after: bit b of a 30-bit index moved to bit 2b by five shift / OR / AND steps; the loop put lon bit b at 2b + 1 and
// lat bit b at 2b, so code = spread(qlon) << 1 | spread(qlat).
__host__ __device__ inline uint64_t spread30(uint32_t v) {
  uint64_t x = v;  // < 2^30
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}
__host__ __device__ inline uint64_t geohash60_spread(float lat, float lon) {
  const uint32_t qlat = quantise30(lat, -90.0f, 1073741824.0f / 180.0f);
  const uint32_t qlon = quantise30(lon, -180.0f, 1073741824.0f / 360.0f);
  return (spread30(qlon) << 1) | spread30(qlat);
}
__global__ void geohash_encode_spread(uint64_t* __restrict__ out, const float* __restrict__ lat,
                                      const float* __restrict__ lon, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = geohash60_spread(lat[i], lon[i]);
}

static void pair_geohash(Pairs& P, const char* name, const char* change) {
  DevBuf<float> lat(GH_N), lon(GH_N);
  DevBuf<uint64_t> cb(GH_N), ca(GH_N);
  fill_gps_fixes<<<8 * g_sms, 256>>>(lat, lon, GH_N);
  CK(cudaMemset(cb, 0, GH_N * sizeof(uint64_t)));
  CK(cudaMemset(ca, 0xFF, GH_N * sizeof(uint64_t)));
  const unsigned threads = 256, blocks = blocks_for(GH_N, threads);
  auto before = [&] { geohash_encode<<<blocks, threads>>>(cb, lat, lon, GH_N); };
  auto after = [&] { geohash_encode_spread<<<blocks, threads>>>(ca, lat, lon, GH_N); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<uint64_t> hb = d2h(cb.p, GH_N), ha = d2h(ca.p, GH_N);
    char msg[256] = "";
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < GH_N; ++i)
      if (hb[i] != ha[i] && bad++ == 0) first = i;
    if (bad != 0) {
      std::snprintf(msg, sizeof msg, "%zu of %zu codes differ (first: fix %zu, after %016llx, before %016llx)", bad,
                    GH_N, first, (unsigned long long)ha[first], (unsigned long long)hb[first]);
      ok = false;
    }
    // and the before codes against the program's host reference on every 97th fix
    for (size_t s = 0; s <= GH_N / 97 && ok; ++s) {
      const size_t i = s == GH_N / 97 ? GH_N - 1 : s * 97;
      if (hb[i] != geohash60(gh_lat(i), gh_lon(i))) {
        std::snprintf(msg, sizeof msg, "before's geohash[%zu] = %016llx differs from the host reference", i,
                      (unsigned long long)hb[i]);
        ok = false;
      }
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 2. ping_density_heatmap_grid_32m_pings_2048x2048 (before: bin_pings)

// after: the out-of-grid test no longer returns before the match (all lanes still in the kernel take part, an
// out-of-grid ping gets cell -1); lanes with equal cells form a group, its lowest lane adds the group's size.
__global__ void bin_pings_warp_agg(unsigned* __restrict__ counts, const float2* __restrict__ pings, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = pings[i];
  const int cx = (int)floorf(p.x * DH_CELL_INV), cy = (int)floorf(p.y * DH_CELL_INV);
  const bool in_grid = cx >= 0 && cx < DH_NX && cy >= 0 && cy < DH_NY;
  const int cell = in_grid ? cy * DH_NX + cx : -1;
  const unsigned peers = __match_any_sync(__activemask(), cell);
  if (!in_grid) return;
  if ((int)(threadIdx.x & 31u) == __ffs(peers) - 1) atomicAdd(&counts[cell], (unsigned)__popc(peers));
}

static void pair_density(Pairs& P, const char* name, const char* change) {
  const size_t cells = (size_t)DH_NX * DH_NY;
  DevBuf<float2> pings(DH_N);
  DevBuf<unsigned> gb(cells), ga(cells);
  fill_city_pings<<<8 * g_sms, 256>>>(pings, DH_N);
  CK(cudaMemset(gb, 0, cells * sizeof(unsigned)));
  CK(cudaMemset(ga, 0, cells * sizeof(unsigned)));
  const unsigned threads = 256, blocks = blocks_for(DH_N, threads);
  auto before = [&] { bin_pings<<<blocks, threads>>>(gb, pings, DH_N); };
  auto after = [&] { bin_pings_warp_agg<<<blocks, threads>>>(ga, pings, DH_N); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<unsigned> hb = d2h(gb.p, cells), ha = d2h(ga.p, cells);
    char msg[256] = "";
    unsigned long long total = 0;
    for (size_t k = 0; k < cells; ++k) total += hb[k];
    for (size_t k = 0; k < cells && ok; ++k)
      if (hb[k] != ha[k]) {
        std::snprintf(msg, sizeof msg, "cell (%zu, %zu): after %u pings, before %u", k % DH_NX, k / DH_NX, ha[k],
                      hb[k]);
        ok = false;
      }
    if (ok && total == 0) {
      std::snprintf(msg, sizeof msg, "no pings binned");
      ok = false;
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);  // the grids keep accumulating: not cleared between launches
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 3. point_in_polygon_service_zones_4m_pings_256_zones (before: zones_of_pings)

// after: the rings read from a global copy through the read-only path (__ldg); boxes and everything else unchanged.
__global__ void zones_of_pings_ldg(uint32_t* __restrict__ out, const float2* __restrict__ pings,
                                   const float2* __restrict__ zone_ring, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = pings[i];
  const int cx = min(max((int)p.x, 0), PZ_X - 1), cy = min(max((int)p.y, 0), PZ_Y - 1);
  uint32_t count = 0, first = 0xFFFFu;
  for (int dy = -1; dy <= 1; ++dy) {
    const int zy = cy + dy;
    if (zy < 0 || zy >= PZ_Y) continue;
    for (int dx = -1; dx <= 1; ++dx) {
      const int zx = cx + dx;
      if (zx < 0 || zx >= PZ_X) continue;
      const int z = zy * PZ_X + zx;
      const float4 b = c_zone_box[z];
      if (p.x < b.x || p.y < b.y || p.x > b.z || p.y > b.w) continue;
      // Ray casting (crossing number) against the zone's ring.
      bool inside = false;
      float2 a = __ldg(&zone_ring[z * PZ_VERTS + PZ_VERTS - 1]);
      for (int k = 0; k < PZ_VERTS; ++k) {
        const float2 v = __ldg(&zone_ring[z * PZ_VERTS + k]);
        if ((v.y > p.y) != (a.y > p.y)) {
          const float xc = (a.x - v.x) * (p.y - v.y) / (a.y - v.y) + v.x;
          if (p.x < xc) inside = !inside;
        }
        a = v;
      }
      if (inside) {
        ++count;
        if (first == 0xFFFFu) first = (uint32_t)z;
      }
    }
  }
  out[i] = count << 16 | first;
}

static void pair_point_in_polygon(Pairs& P, const char* name, const char* change) {
  std::vector<float2> ring;
  std::vector<float4> box;
  build_zone_rings(ring, box);
  CK(cudaMemcpyToSymbol(c_zone_ring, ring.data(), ring.size() * sizeof(float2)));
  CK(cudaMemcpyToSymbol(c_zone_box, box.data(), box.size() * sizeof(float4)));
  DevBuf<float2> pings(PZ_N), g_ring(ring.size());
  DevBuf<uint32_t> ob(PZ_N), oa(PZ_N);
  CK(cudaMemcpy(g_ring, ring.data(), ring.size() * sizeof(float2), cudaMemcpyHostToDevice));
  fill_zone_pings<<<8 * g_sms, 256>>>(pings, PZ_N);
  CK(cudaMemset(ob, 0, (size_t)PZ_N * sizeof(uint32_t)));
  CK(cudaMemset(oa, 0xFF, (size_t)PZ_N * sizeof(uint32_t)));
  const unsigned threads = 256, blocks = blocks_for(PZ_N, threads);
  auto before = [&] { zones_of_pings<<<blocks, threads>>>(ob, pings, PZ_N); };
  auto after = [&] { zones_of_pings_ldg<<<blocks, threads>>>(oa, pings, g_ring, PZ_N); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<uint32_t> hb = d2h(ob.p, PZ_N), ha = d2h(oa.p, PZ_N);
    char msg[256] = "";
    int bad = 0, first = -1, inside_any = 0;
    for (int i = 0; i < PZ_N; ++i) {
      inside_any += (hb[i] >> 16) != 0u;
      if (hb[i] != ha[i] && bad++ == 0) first = i;
    }
    if (bad != 0) {
      std::snprintf(msg, sizeof msg, "%d of %d pings differ (first: ping %d, after %08x, before %08x)", bad, PZ_N,
                    first, ha[first], hb[first]);
      ok = false;
    } else if (inside_any <= PZ_N / 2) {
      std::snprintf(msg, sizeof msg, "only %d of %d pings inside a zone", inside_any, PZ_N);
      ok = false;
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 4. nearest_depot_haversine_1m_pings_1024_depots (before: nearest_depot_haversine)

// after: 0.5f and sinf, so the half-angle sines stay FP32; everything else unchanged.
__global__ void nearest_depot_haversine_f32(int* __restrict__ nearest, float* __restrict__ dist_km,
                                            const float* __restrict__ lat_deg, const float* __restrict__ lon_deg,
                                            const DepotRad* __restrict__ depots, int n, int m) {
  extern __shared__ DepotRad s_depot[];
  for (int j = threadIdx.x; j < m; j += blockDim.x) s_depot[j] = depots[j];
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float lat = lat_deg[i] * kRadPerDeg, lon = lon_deg[i] * kRadPerDeg;
  const float coslat = cosf(lat);
  float best = FLT_MAX;
  int best_j = -1;
  for (int j = 0; j < m; ++j) {
    const DepotRad d = s_depot[j];
    const float s_lat = sinf((d.lat - lat) * 0.5f);
    const float s_lon = sinf((d.lon - lon) * 0.5f);
    const float h = s_lat * s_lat + coslat * d.coslat * s_lon * s_lon;
    if (h < best) {
      best = h;
      best_j = j;
    }
  }
  nearest[i] = best_j;
  dist_km[i] = 2.0f * kEarthRadiusKm * asinf(sqrtf(fminf(best, 1.0f)));
}

static void pair_nearest_depot(Pairs& P, const char* name, const char* change) {
  std::vector<DepotRad> dep(HV_M);
  for (int j = 0; j < HV_M; ++j) {
    const float la = 34.0f + 28.0f * unit24(j, 53u), lo = -14.0f + 60.0f * unit24(j, 54u);
    dep[j].lat = la * kRadPerDeg;
    dep[j].lon = lo * kRadPerDeg;
    dep[j].coslat = std::cos(dep[j].lat);
  }
  DevBuf<float> lat(HV_N), lon(HV_N), db(HV_N), da(HV_N);
  DevBuf<int> nb(HV_N), na(HV_N);
  DevBuf<DepotRad> depots(HV_M);
  CK(cudaMemcpy(depots, dep.data(), HV_M * sizeof(DepotRad), cudaMemcpyHostToDevice));
  fill_europe_pings<<<8 * g_sms, 256>>>(lat, lon, HV_N);
  CK(cudaMemset(nb, 0, HV_N * sizeof(int)));
  CK(cudaMemset(na, 0xFF, HV_N * sizeof(int)));
  CK(cudaMemset(db, 0, HV_N * sizeof(float)));
  CK(cudaMemset(da, 0xFF, HV_N * sizeof(float)));
  const unsigned threads = 256, blocks = blocks_for(HV_N, threads);
  const size_t smem = HV_M * sizeof(DepotRad);
  auto before = [&] { nearest_depot_haversine<<<blocks, threads, smem>>>(nb, db, lat, lon, depots, HV_N, HV_M); };
  auto after = [&] { nearest_depot_haversine_f32<<<blocks, threads, smem>>>(na, da, lat, lon, depots, HV_N, HV_M); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<int> hnb = d2h(nb.p, HV_N), hna = d2h(na.p, HV_N);
    const std::vector<float> hdb = d2h(db.p, HV_N), hda = d2h(da.p, HV_N);
    char msg[256] = "";
    double max_abs = 0.0;
    int ties = 0;
    for (int i = 0; i < HV_N && ok; ++i) {
      const double diff = std::fabs((double)hda[i] - (double)hdb[i]);
      if (std::isfinite(diff)) max_abs = std::max(max_abs, diff);
      if (!close_to(hda[i], hdb[i], 1e-3, 1e-5)) {
        std::snprintf(msg, sizeof msg, "ping %d: after %.8g km, before %.8g km", i, (double)hda[i], (double)hdb[i]);
        ok = false;
      }
      if (hna[i] != hnb[i]) {
        const int ja = hna[i], jb = hnb[i];
        if (ja < 0 || ja >= HV_M || jb < 0 || jb >= HV_M) {
          std::snprintf(msg, sizeof msg, "ping %d: depot after %d, before %d", i, ja, jb);
          ok = false;
          break;
        }
        // the program's FP64 host haversine of both depots: a tie within FP32 precision is allowed
        const float la = hv_lat(i) * kRadPerDeg, lo = hv_lon(i) * kRadPerDeg;
        const double cl = std::cos((double)la);
        auto hav = [&](int j) {
          const double a = std::sin(0.5 * (double)(dep[j].lat - la)), b = std::sin(0.5 * (double)(dep[j].lon - lo));
          return a * a + cl * dep[j].coslat * b * b;
        };
        const double ha = hav(ja), hb = hav(jb);
        if (std::fabs(ha - hb) <= 1e-5 * std::max(ha, hb) + 1e-12) {
          ++ties;
        } else {
          std::snprintf(msg, sizeof msg, "ping %d: depot after %d (hav %.9g), before %d (hav %.9g): not a tie", i, ja,
                        ha, jb, hb);
          ok = false;
        }
      }
    }
    std::fprintf(stderr,
                 "%s: max |dist after - before| = %.3g km; %d nearest-depot index differences that are FP32 ties\n",
                 name, max_abs, ties);
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 5. knn_k16_uniform_grid_64k_queries_4m_points (before: knn_grid_bitonic)

// after: every key / val access goes through kn_sw, which flips the low five bits of an index whose bit 5 is set.
// In a step of stride s = 2^k <= 16 a warp's lo indices are the 32 of a 64-word chunk with bit k clear (hi: bit k
// set); unswizzled, x and x ^ 32 share a bank (2-way). Swizzled, the half with bit 5 clear keeps bit k clear in its
// bank number and the other half gets it set: 32 distinct banks. Accesses to an aligned run of 32 words (strides
// >= 32, the gather, the output) stay a permutation within the run. Logical positions, and so the sort, unchanged.
__device__ __forceinline__ int kn_sw(int i) { return i ^ (((i >> 5) & 1) * 31); }
__global__ void __launch_bounds__(KN_THREADS) knn_grid_bitonic_swz(int* __restrict__ out_idx,
                                                                  float* __restrict__ out_d2,
                                                                  const float2* __restrict__ queries,
                                                                  const float2* __restrict__ pts,
                                                                  const int* __restrict__ cell_start) {
  __shared__ float key[KN_CAP];
  __shared__ int val[KN_CAP];
  __shared__ int range_beg[9], range_len[9];
  const float2 q = queries[blockIdx.x];
  const int cx = kn_cell(q.x), cy = kn_cell(q.y);
  if (threadIdx.x < 9) {
    const int x = cx + (int)threadIdx.x % 3 - 1, y = cy + (int)threadIdx.x / 3 - 1;
    int b = 0, l = 0;
    if (x >= 0 && x < KN_G && y >= 0 && y < KN_G) {
      b = cell_start[y * KN_G + x];
      l = cell_start[y * KN_G + x + 1] - b;
    }
    range_beg[threadIdx.x] = b;
    range_len[threadIdx.x] = l;
  }
  __syncthreads();
  int total = 0;
  for (int r = 0; r < 9; ++r) total += range_len[r];
  total = min(total, KN_CAP);
  for (int t = threadIdx.x; t < KN_CAP; t += KN_THREADS) {
    float d = FLT_MAX;
    int id = -1;
    if (t < total) {
      int r = 0, off = t;
      while (off >= range_len[r]) {
        off -= range_len[r];
        ++r;
      }
      id = range_beg[r] + off;
      const float2 p = pts[id];
      const float dx = p.x - q.x, dy = p.y - q.y;
      d = dx * dx + dy * dy;
    }
    key[kn_sw(t)] = d;
    val[kn_sw(t)] = id;
  }
  __syncthreads();
  for (int size = 2; size <= KN_CAP; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      const int t = threadIdx.x;
      const int lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
      const bool ascending = (lo & size) == 0;
      const int slo = kn_sw(lo), shi = kn_sw(hi);
      const float a = key[slo], b = key[shi];
      if ((a > b) == ascending) {
        key[slo] = b;
        key[shi] = a;
        const int v = val[slo];
        val[slo] = val[shi];
        val[shi] = v;
      }
      __syncthreads();
    }
  }
  if (threadIdx.x < KN_K) {  // indices < 32: kn_sw is the identity
    out_idx[blockIdx.x * KN_K + threadIdx.x] = val[threadIdx.x];
    out_d2[blockIdx.x * KN_K + threadIdx.x] = key[threadIdx.x];
  }
}

static void pair_knn(Pairs& P, const char* name, const char* change) {
  // Grid index, built on the host as in the program: points counting-sorted by cell.
  std::vector<int> cell_start((size_t)KN_G * KN_G + 1, 0);
  std::vector<float2> raw(KN_POINTS), sorted(KN_POINTS);
  for (int i = 0; i < KN_POINTS; ++i) {
    raw[i] = kn_point(i, 61u);
    ++cell_start[(size_t)kn_cell(raw[i].y) * KN_G + kn_cell(raw[i].x) + 1];
  }
  for (size_t k = 1; k < cell_start.size(); ++k) cell_start[k] += cell_start[k - 1];
  {
    std::vector<int> fill(cell_start.begin(), cell_start.end() - 1);
    for (int i = 0; i < KN_POINTS; ++i) sorted[fill[(size_t)kn_cell(raw[i].y) * KN_G + kn_cell(raw[i].x)]++] = raw[i];
  }
  std::vector<float2> queries(KN_QUERIES);
  for (int i = 0; i < KN_QUERIES; ++i) queries[i] = kn_point(i, 63u);

  const size_t nout = (size_t)KN_QUERIES * KN_K;
  DevBuf<float2> d_pts(KN_POINTS), d_q(KN_QUERIES);
  DevBuf<int> d_start(cell_start.size()), ib(nout), ia(nout);
  DevBuf<float> kb(nout), ka(nout);
  CK(cudaMemcpy(d_pts, sorted.data(), KN_POINTS * sizeof(float2), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_q, queries.data(), KN_QUERIES * sizeof(float2), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_start, cell_start.data(), cell_start.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(ib, 0, nout * sizeof(int)));
  CK(cudaMemset(ia, 0xFF, nout * sizeof(int)));
  CK(cudaMemset(kb, 0, nout * sizeof(float)));
  CK(cudaMemset(ka, 0xFF, nout * sizeof(float)));
  auto before = [&] { knn_grid_bitonic<<<KN_QUERIES, KN_THREADS>>>(ib, kb, d_q, d_pts, d_start); };
  auto after = [&] { knn_grid_bitonic_swz<<<KN_QUERIES, KN_THREADS>>>(ia, ka, d_q, d_pts, d_start); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<int> hib = d2h(ib.p, nout), hia = d2h(ia.p, nout);
    const std::vector<float> hkb = d2h(kb.p, nout), hka = d2h(ka.p, nout);
    char msg[256] = "";
    for (size_t i = 0; i < nout && ok; ++i)
      if (hib[i] != hia[i] || std::memcmp(&hkb[i], &hka[i], sizeof(float)) != 0) {
        std::snprintf(msg, sizeof msg, "query %zu neighbour %zu: after (%d, %.7g), before (%d, %.7g)", i / KN_K,
                      i % KN_K, hia[i], (double)hka[i], hib[i], (double)hkb[i]);
        ok = false;
      }
    // sanity: the nearest neighbour of query 0 is a real point
    if (ok && (hib[0] < 0 || hib[0] >= KN_POINTS)) {
      std::snprintf(msg, sizeof msg, "query 0 nearest neighbour index %d", hib[0]);
      ok = false;
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  try {
    cudaDeviceProp prop;
    if (!calib::first_device(prop)) return 0;
    g_sms = prop.multiProcessorCount;
    Pairs P(rounds, 5);
    calib::print_header(prop.name, rounds);
    P.run("geohash_encode_gps_64m_points_precision12", "30-step bit interleave loop -> magic-mask bit spread",
          pair_geohash);
    P.run("ping_density_heatmap_grid_32m_pings_2048x2048", "atomic per ping -> warp-aggregated (__match_any_sync)",
          pair_density);
    P.run("point_in_polygon_service_zones_4m_pings_256_zones", "rings __constant__ -> global via __ldg",
          pair_point_in_polygon);
    P.run("nearest_depot_haversine_1m_pings_1024_depots", "sin(x * 0.5) FP64 -> sinf(x * 0.5f) FP32",
          pair_nearest_depot);
    P.run("knn_k16_uniform_grid_64k_queries_4m_points", "2-way bank conflicts in bitonic steps -> XOR swizzle",
          pair_knn);
    calib::print_footer();
    return P.failed == 0 ? 0 : 1;
  } catch (const CaseSkip& e) {  // outside the pairs: the device query or the events
    std::fprintf(stderr, "calib_pairs48: %s\n", e.why.c_str());
    return 1;
  }
}
