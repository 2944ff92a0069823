// Fix experiment for held-out set 50 on the calibration-pair harness: what the first fix of three single-kernel cases
// realises on the device, to calibrate the gains kprof estimates (bench/fix_experiments/README.md). "before" is the
// case's code exactly as captured and labelled (diag_holdout50.cu, included here, its main() renamed), launched with
// the program's launch configuration, problem size and deterministic inputs; "after" applies only the first fix the
// blind labels name, as a first step (no rewrite into another algorithm). The fixes were written by a helper who did
// not read kprof's rules or estimates:
//
//   american_put_binomial_crr_2048_options_1023_steps   american_put_binomial: one 1024-thread block per option, one
//                    thread per node, v[] updated in place with two __syncthreads per time step (one before the
//                    write, one after)  →  v[] double-buffered in shared memory (read one copy, write the other, swap),
//                    so one __syncthreads per step suffices, and each thread owns 4 nodes (j = t, t + 256, t + 512,
//                    t + 768; a warp's accesses stay consecutive words) in 256-thread blocks, 8 warps at each barrier
//                    instead of 32. Same tree, same s_pow table and index, same per-node arithmetic; still one block
//                    per option (2,048 blocks).
//   asian_call_monte_carlo_1m_paths_252_steps   asian_call_mc: each path simulated into a per-thread float path[252]
//                    (local memory) and then summed by asian_call_payoff  →  the running sum of the fixings kept in a
//                    register while simulating (added in the same order, so the same float sum), the payoff
//                    max(sum / 252 - K, 0) taken from it. Same Philox states and curand_normal draws, same discounting,
//                    same per-block double accumulation (block_sum_into), same launch.
//   implied_volatility_newton_16m_quotes   implied_vol_newton: norm_cdf = 0.5 * erfc(-x * M_SQRT1_2) and norm_pdf =
//                    0.3989... * exp(-0.5 * x * x) with double literals, so erfc and exp run in FP64  →  float
//                    literals with erfcf and expf (0.5f * erfcf(-x * 0.70710678f), 0.39894228f * expf(-0.5f * x * x));
//                    the same Manaster-Koehler start, Newton step, clamps, 20-iteration cap and 5e-6 * S price
//                    tolerance.
//
//     calib_pairs50 [rounds]   JSON on stdout (calib_pairs.cuh's format, which bench/version_pairs.py reads): each
//                              case's median time before and after, CUDA events around the launch on the legacy
//                              default stream; each variant run once and the outputs compared first, then 5 warm-up
//                              rounds (timed, discarded), then `rounds` (default 30) rounds of one call of each
//                              variant, alternating, the variant that goes first alternating between rounds. Only the
//                              kernel is timed: the Asian case's accumulator is not cleared between timed launches
//                              (the program's 16-byte memset is left out) and its generators keep advancing, before
//                              and after each on its own copy of the same initial states, so each call prices fresh
//                              paths as in the program. On stderr, per case, a line of what the check measured, then
//                              "<case>: check ok" or "<case>: check MISMATCH <first difference>": the option values
//                              after within 2e-6 * S + 1e-5 relative of before (the same arithmetic, expected equal),
//                              and both within the program's tolerance of its host FP64 tree on its 24 sampled
//                              options; the Asian discounted payoff sum and sum of squares after within 1e-7 relative
//                              of before (the payoffs are expected bit-equal; only the order of the double atomics
//                              differs), and the before price inside the program's bound; an implied vol after that
//                              differs from before by more than 1e-4 must pass the program's own acceptance test
//                              (within 1e-3 of the true vol, or repricing, host FP64 Black-Scholes, within 2e-5 * S
//                              of the quote) unless before fails it too (a quote neither variant solves in 20 float
//                              Newton steps; counted on the stderr line). A case whose CUDA call fails gets "error"
//                              in place of its times (and "<case>: skipped (...)" on stderr), the others still run;
//                              the exit status is then 1. Peak device memory about 0.45 GB (one case's buffers at a
//                              time).
// Without a CUDA device it says so and exits 0.
//
// Built on request by CMake (`--target calib_pairs50`), or by hand from this folder:
//     nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo calib_pairs50.cu -o calib_pairs50
#define main diag_holdout50_main
#include "diag_holdout50.cu"
#undef main
// diag_holdout50.cu keeps its events in its Ctx: the driver brings a Timer for calib_pairs.cuh's event_ms.
#include "calib_pairs_driver.cuh"

static int g_sms = 132;  // the quote fill's grid (4 blocks per SM, grid-stride), as the program sizes it

// ===============================================================================================================
// 1. american_put_binomial_crr_2048_options_1023_steps (before: american_put_binomial)

constexpr int BIN_FIX_THREADS = 256, BIN_FIX_NODES = (BIN_STEPS + 1) / BIN_FIX_THREADS;
static_assert(BIN_FIX_THREADS * BIN_FIX_NODES == BIN_STEPS + 1, "every node of the expiry layer has an owner");

// after: step i reads v[src] and writes v[src ^ 1]; the barrier that ends step i also orders step i's reads of
// v[src] before step i - 1's writes into it, so one barrier a step. Thread t owns nodes t + m * 256 (m = 0..3).
__global__ void __launch_bounds__(BIN_FIX_THREADS) american_put_binomial_pingpong(const float* __restrict__ spot,
                                                                                const float* __restrict__ strike,
                                                                                const float* __restrict__ expiry,
                                                                                const float* __restrict__ vol, float r,
                                                                                float* __restrict__ value) {
  constexpr int N = BIN_STEPS;
  __shared__ float v[2][N + 1];
  __shared__ float s_pow[2 * N + 1];
  const int opt = blockIdx.x, t = threadIdx.x;
  const float S0 = spot[opt], K = strike[opt], T = expiry[opt], sigma = vol[opt];
  const float dt = T / N;
  const float lnu = sigma * sqrtf(dt);
  const float u = expf(lnu), d = 1.0f / u;
  const float p = (expf(r * dt) - d) / (u - d);
  const float disc = expf(-r * dt);
  const float pu = disc * p, pd = disc * (1.0f - p);
  for (int k = t; k < 2 * N + 1; k += blockDim.x) s_pow[k] = S0 * expf((float)(k - N) * lnu);
  __syncthreads();
#pragma unroll
  for (int m = 0; m < BIN_FIX_NODES; ++m) {
    const int j = t + m * BIN_FIX_THREADS;
    v[0][j] = fmaxf(K - s_pow[2 * j], 0.0f);
  }
  __syncthreads();
  int src = 0;
  for (int i = N - 1; i >= 0; --i) {
    const float* vin = v[src];
    float* vout = v[src ^ 1];
#pragma unroll
    for (int m = 0; m < BIN_FIX_NODES; ++m) {
      const int j = t + m * BIN_FIX_THREADS;
      if (j <= i) {
        const float cont = pu * vin[j + 1] + pd * vin[j];
        const float exer = K - s_pow[2 * j - i + N];
        vout[j] = fmaxf(cont, exer);
      }
    }
    __syncthreads();
    src ^= 1;
  }
  if (t == 0) value[opt] = v[src][0];
}

static void pair_binomial(Pairs& P, const char* name, const char* change) {
  std::vector<float> hs(BIN_OPTIONS), hk(BIN_OPTIONS), ht(BIN_OPTIONS), hv(BIN_OPTIONS);
  for (int i = 0; i < BIN_OPTIONS; ++i) {  // the program's option set
    hs[i] = (float)uni(i, 41u, 20.0, 200.0);
    hk[i] = (float)(hs[i] * uni(i, 42u, 0.8, 1.25));
    ht[i] = (float)uni(i, 43u, 0.1, 3.0);
    hv[i] = (float)uni(i, 44u, 0.1, 0.6);
  }
  DevBuf<float> spot(BIN_OPTIONS), strike(BIN_OPTIONS), expiry(BIN_OPTIONS), vol(BIN_OPTIONS);
  DevBuf<float> vb(BIN_OPTIONS), va(BIN_OPTIONS);
  h2d(spot.p, hs);
  h2d(strike.p, hk);
  h2d(expiry.p, ht);
  h2d(vol.p, hv);
  CK(cudaMemset(vb, 0, BIN_OPTIONS * sizeof(float)));
  CK(cudaMemset(va, 0xFF, BIN_OPTIONS * sizeof(float)));
  auto before = [&] {
    american_put_binomial<<<BIN_OPTIONS, BIN_STEPS + 1>>>(spot, strike, expiry, vol, BIN_RATE, vb);
  };
  auto after = [&] {
    american_put_binomial_pingpong<<<BIN_OPTIONS, BIN_FIX_THREADS>>>(spot, strike, expiry, vol, BIN_RATE, va);
  };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<float> hb = d2h(vb.p, BIN_OPTIONS), ha = d2h(va.p, BIN_OPTIONS);
    char msg[256] = "";
    double max_abs = 0.0;
    int unequal = 0;
    for (int i = 0; i < BIN_OPTIONS; ++i) {
      const double diff = std::fabs((double)ha[i] - (double)hb[i]);
      if (std::isfinite(diff)) max_abs = std::max(max_abs, diff);
      unequal += ha[i] != hb[i];
      if (ok && !close_to(ha[i], hb[i], 2e-6 * hs[i], 1e-5)) {
        std::snprintf(msg, sizeof msg, "option %d (S %.5g K %.5g): after %.8g, before %.8g", i, (double)hs[i],
                      (double)hk[i], (double)ha[i], (double)hb[i]);
        ok = false;
      }
    }
    // both against the program's host FP64 tree, on the program's sampled options and tolerance
    for (int s = 0; s < 24 && ok; ++s) {
      const int i = s == 0 ? BIN_OPTIONS - 1 : (int)sample_index(s, BIN_OPTIONS, 4u);
      const double ref = binomial_put_ref(hs[i], hk[i], ht[i], hv[i], BIN_RATE);
      const float floor_v = std::max(hk[i] - hs[i], 0.0f) - 1e-4f * hs[i];
      for (int w = 0; w < 2 && ok; ++w) {
        const float g = w == 0 ? hb[i] : ha[i];
        if (!close_to(g, ref, 2e-5 * hs[i], 5e-4) || g < floor_v) {
          std::snprintf(msg, sizeof msg, "%s option %d: %.7g, host tree %.7g", w == 0 ? "before's" : "after's", i,
                        (double)g, ref);
          ok = false;
        }
      }
    }
    std::fprintf(stderr, "%s: max |value after - before| = %.3g; %d of %d option values not bit-equal\n", name, max_abs,
                 unequal, BIN_OPTIONS);
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 2. asian_call_monte_carlo_1m_paths_252_steps (before: asian_call_mc)

// after: the fixings summed as they are simulated (the order of asian_call_payoff's loop), no path[] array.
__global__ void asian_call_mc_running_sum(curandStatePhilox4_32_10_t* __restrict__ states, int npaths, float S0,
                                          float K, float r, float sigma, float T, double* __restrict__ acc) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  double sums[2] = {0.0, 0.0};
  if (id < npaths) {
    curandStatePhilox4_32_10_t rng = states[id];
    const float dt = T / AS_STEPS;
    const float drift = (r - 0.5f * sigma * sigma) * dt, vol_sqdt = sigma * sqrtf(dt);
    float S = S0, fix_sum = 0.0f;
    for (int k = 0; k < AS_STEPS; ++k) {
      S *= expf(drift + vol_sqdt * curand_normal(&rng));
      fix_sum += S;
    }
    states[id] = rng;
    const float payoff = fmaxf(fix_sum / (float)AS_STEPS - K, 0.0f);
    const double pay = (double)(expf(-r * T) * payoff);
    sums[0] = pay;
    sums[1] = pay * pay;
  }
  block_sum_into<2>(sums, acc);
}

static void pair_asian(Pairs& P, const char* name, const char* change) {
  DevBuf<curandStatePhilox4_32_10_t> sb(AS_PATHS), sa(AS_PATHS);
  DevBuf<double> accb(2), acca(2);
  const unsigned threads = 256, blocks = blocks_for(AS_PATHS, threads);
  init_path_rng<<<blocks, threads>>>(sb, 20240601ull, AS_PATHS);
  CK(cudaGetLastError());
  CK(cudaMemcpy(sa, sb, (size_t)AS_PATHS * sizeof(curandStatePhilox4_32_10_t), cudaMemcpyDeviceToDevice));
  CK(cudaMemset(accb, 0, 2 * sizeof(double)));
  CK(cudaMemset(acca, 0, 2 * sizeof(double)));
  auto before = [&] { asian_call_mc<<<blocks, threads>>>(sb, AS_PATHS, AS_S0, AS_K, AS_R, AS_SIGMA, AS_T, accb); };
  auto after = [&] {
    asian_call_mc_running_sum<<<blocks, threads>>>(sa, AS_PATHS, AS_S0, AS_K, AS_R, AS_SIGMA, AS_T, acca);
  };
  before();  // both from the same initial states: the same paths
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<double> hb = d2h(accb.p, 2), ha = d2h(acca.p, 2);
    char msg[256] = "";
    auto price_se = [](const std::vector<double>& h, double* se) {
      const double mean = h[0] / AS_PATHS;
      *se = std::sqrt(std::max(h[1] / AS_PATHS - mean * mean, 0.0) / AS_PATHS);
      return mean;
    };
    double seb = 0.0, sea = 0.0;
    const double pb = price_se(hb, &seb), pa = price_se(ha, &sea);
    const double rel0 = std::fabs(ha[0] - hb[0]) / std::max(std::fabs(hb[0]), 1e-300),
                 rel1 = std::fabs(ha[1] - hb[1]) / std::max(std::fabs(hb[1]), 1e-300);
    std::fprintf(stderr,
                 "%s: price before %.8g (s.e. %.3g), after %.8g (s.e. %.3g); relative difference of the payoff sum "
                 "%.3g, of the sum of squares %.3g\n",
                 name, pb, seb, pa, sea, rel0, rel1);
    for (int k = 0; k < 2 && ok; ++k)
      if (!close_to(ha[k], hb[k], 0.0, 1e-7)) {
        std::snprintf(msg, sizeof msg, "%s after %.12g, before %.12g", k == 0 ? "payoff sum" : "sum of squares", ha[k],
                      hb[k]);
        ok = false;
      }
    // the program's check on before's price: the discretely monitored geometric-average call bounds it from below
    const double n = AS_STEPS, dt = (double)AS_T / n, sig = AS_SIGMA, r = AS_R;
    const double mu = std::log((double)AS_S0) + (r - 0.5 * sig * sig) * dt * (n + 1.0) / 2.0;
    const double var = sig * sig * dt * (n + 1.0) * (2.0 * n + 1.0) / (6.0 * n);
    const double d2 = (mu - std::log((double)AS_K)) / std::sqrt(var), d1 = d2 + std::sqrt(var);
    const double geo = std::exp(-r * AS_T) * (std::exp(mu + 0.5 * var) * ncdf(d1) - AS_K * ncdf(d2));
    if (ok && !(std::isfinite(pb) && seb > 0.0 && seb < 0.05 && pb > geo - 4.0 * seb && pb < geo + 0.5)) {
      std::snprintf(msg, sizeof msg, "before's price %.6g (s.e. %.3g) outside [%.6g, %.6g] (geometric %.6g)", pb, seb,
                    geo - 4.0 * seb, geo + 0.5, geo);
      ok = false;
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);  // accumulators not cleared, generators advancing: fresh paths every call
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 3. implied_volatility_newton_16m_quotes (before: implied_vol_newton)

// after: the two helpers with float literals and the float functions; the Newton loop is the program's.
__device__ __forceinline__ float norm_cdf_f32(float x) { return 0.5f * erfcf(-x * 0.70710678f); }
__device__ __forceinline__ float norm_pdf_f32(float x) { return 0.39894228f * expf(-0.5f * x * x); }

__global__ void implied_vol_newton_f32(const float* __restrict__ price, const float* __restrict__ spot,
                                       const float* __restrict__ strike, const float* __restrict__ expiry, float r,
                                       int n, int max_iter, float* __restrict__ vol) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float S = spot[i], K = strike[i], T = expiry[i], target = price[i];
  const float sqrtT = sqrtf(T);
  const float dfK = K * expf(-r * T);
  const float lnSK = logf(S / K);
  const float tol = 5e-6f * S;
  float sigma = fmaxf(sqrtf(2.0f * fabsf(lnSK + r * T) / T), 0.05f);  // Manaster-Koehler
  for (int it = 0; it < max_iter; ++it) {
    const float sst = sigma * sqrtT;
    const float d1 = (lnSK + (r + 0.5f * sigma * sigma) * T) / sst;
    const float d2 = d1 - sst;
    const float diff = S * norm_cdf_f32(d1) - dfK * norm_cdf_f32(d2) - target;
    if (fabsf(diff) < tol) break;
    const float vega = S * sqrtT * norm_pdf_f32(d1);
    sigma = fminf(fmaxf(sigma - diff / vega, 1e-3f), 5.0f);
  }
  vol[i] = sigma;
}

static void pair_implied_vol(Pairs& P, const char* name, const char* change) {
  DevBuf<float> spot(IV_N), strike(IV_N), expiry(IV_N), price(IV_N), true_vol(IV_N), vb(IV_N), va(IV_N);
  make_iv_quotes<<<4 * g_sms, 256>>>(IV_N, IV_RATE, spot, strike, expiry, price, true_vol);
  CK(cudaGetLastError());
  CK(cudaMemset(vb, 0, (size_t)IV_N * sizeof(float)));
  CK(cudaMemset(va, 0xFF, (size_t)IV_N * sizeof(float)));
  const unsigned threads = 256, blocks = blocks_for(IV_N, threads);
  auto before = [&] {
    implied_vol_newton<<<blocks, threads>>>(price, spot, strike, expiry, IV_RATE, IV_N, IV_MAX_ITER, vb);
  };
  auto after = [&] {
    implied_vol_newton_f32<<<blocks, threads>>>(price, spot, strike, expiry, IV_RATE, IV_N, IV_MAX_ITER, va);
  };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<float> hb = d2h(vb.p, IV_N), ha = d2h(va.p, IV_N);
    const std::vector<float> hS = d2h(spot.p, IV_N), hK = d2h(strike.p, IV_N), hT = d2h(expiry.p, IV_N),
                             hP = d2h(price.p, IV_N), htv = d2h(true_vol.p, IV_N);
    char msg[256] = "";
    // the program's acceptance test of a vol: near the true vol, or repricing the quote within 2e-5 * S
    auto accepted = [&](size_t i, double v) {
      const double S = hS[i], K = hK[i], T = hT[i], Pq = hP[i], tv = htv[i];
      const double repriced = std::isfinite(v) && v > 0.0 ? bs_call_ref(S, K, T, v, IV_RATE, 0.0) : -1.0;
      return std::fabs(v - tv) < 1e-3 || std::fabs(repriced - Pq) < 2e-5 * S;
    };
    double max_abs = 0.0;
    size_t unequal = 0, differ = 0, differ_ok = 0, unsolved_both = 0;
    for (size_t i = 0; i < (size_t)IV_N; ++i) {
      if (ha[i] == hb[i]) continue;
      ++unequal;
      const double diff = std::fabs((double)ha[i] - (double)hb[i]);
      if (std::isfinite(diff)) max_abs = std::max(max_abs, diff);
      if (diff <= 1e-4) continue;
      ++differ;
      if (accepted(i, ha[i])) {
        ++differ_ok;
      } else if (!accepted(i, hb[i])) {
        ++unsolved_both;
      } else if (ok) {
        std::snprintf(msg, sizeof msg,
                      "quote %zu (S %.4g K %.4g T %.4g price %.6g): vol after %.7g, before %.7g, true %.7g", i,
                      (double)hS[i], (double)hK[i], (double)hT[i], (double)hP[i], (double)ha[i], (double)hb[i],
                      (double)htv[i]);
        ok = false;
      }
    }
    std::fprintf(stderr,
                 "%s: max |vol after - before| = %.3g; %zu of %d vols not bit-equal, %zu differ by more than 1e-4: "
                 "%zu of them pass the program's test after, %zu fail it before and after\n",
                 name, max_abs, unequal, IV_N, differ, differ_ok, unsolved_both);
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
    Pairs P(rounds, 3);
    calib::print_header(prop.name, rounds);
    P.run("american_put_binomial_crr_2048_options_1023_steps",
          "2 barriers per step, node per thread -> ping-pong v, 1 barrier per step, 4 nodes per thread", pair_binomial);
    P.run("asian_call_monte_carlo_1m_paths_252_steps", "float path[252] in local memory -> running sum in a register",
          pair_asian);
    P.run("implied_volatility_newton_16m_quotes", "erfc / exp FP64 (double literals) -> erfcf / expf FP32",
          pair_implied_vol);
    calib::print_footer();
    return P.failed == 0 ? 0 : 1;
  } catch (const CaseSkip& e) {  // outside the pairs: the device query or the events
    std::fprintf(stderr, "calib_pairs50: %s\n", e.why.c_str());
    return 1;
  }
}
