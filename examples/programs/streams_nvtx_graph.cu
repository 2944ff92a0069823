// Tracer test program: what kprof's event/nsys modes must see correctly.
//   phase_overlap       three streams: two under-filled kernels that overlap each other, and a long kernel
//                       overlapping an async H2D copy (pinned host memory) on a third stream
//   phase_graph         a three-kernel CUDA graph captured once and launched kGraphLaunches times
//   phase_launch_bound  kTinyKernels tiny kernels back to back; prints launch_bound_ms=<host ms incl. sync>
// Every range sits inside an outer "run" range (nesting). Inputs are random and non-zero; results are checked.
// Build: nvcc -O2 -arch=sm_90 -lineinfo streams_nvtx_graph.cu -o streams_nvtx_graph
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CK(x)                                                                                        \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())

constexpr int kGraphLaunches = 5;
constexpr int kDefaultTinyKernels = 20000;  // argv[1] overrides (smaller traces for examples)
constexpr int kSpinIters = 200000;

// Few blocks, long FMA chain: leaves most SMs free so a second copy on another stream runs alongside.
__global__ void spin_fma(float* out, const float* in, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i], b = 1.0001f, c = 0.9999f;
  for (int k = 0; k < iters; ++k) { a = fmaf(a, b, c); b = fmaf(b, 0.99999f, 1e-6f); }
  out[i] = a + b;
}
__global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void scale(float* y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= s;
}
__global__ void add_into(float* z, const float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] += y[i];
}
__global__ void tiny(float* p) { p[threadIdx.x] += 1.0f; }

static std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.5f, 1.5f);  // never zero
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

static bool close(float got, float want) { return std::fabs(got - want) <= 1e-4f * std::fmax(1.0f, std::fabs(want)); }

int main(int argc, char** argv) {
  const int kTinyKernels = argc > 1 ? std::atoi(argv[1]) : kDefaultTinyKernels;
  nvtxRangePushA("run");
  cudaStream_t s[3];
  for (auto& st : s) CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

  // --- phase_overlap -------------------------------------------------------------------------------------
  nvtxRangePushA("phase_overlap");
  const int spin_blocks = 16, spin_threads = 256, spin_n = spin_blocks * spin_threads;
  auto h_in = random_vector(spin_n, 1);
  float *d_in, *d_out0, *d_out1, *d_out2;
  CK(cudaMalloc(&d_in, spin_n * sizeof(float)));
  CK(cudaMalloc(&d_out0, spin_n * sizeof(float)));
  CK(cudaMalloc(&d_out1, spin_n * sizeof(float)));
  CK(cudaMalloc(&d_out2, spin_n * sizeof(float)));
  CK(cudaMemcpy(d_in, h_in.data(), spin_n * sizeof(float), cudaMemcpyHostToDevice));
  const std::size_t copy_bytes = 64u << 20;
  float* h_pinned;
  CK(cudaMallocHost(&h_pinned, copy_bytes));
  auto fill = random_vector(copy_bytes / sizeof(float), 2);
  std::copy(fill.begin(), fill.end(), h_pinned);
  float* d_copy;
  CK(cudaMalloc(&d_copy, copy_bytes));
  CK(cudaDeviceSynchronize());

  nvtxRangePushA("kernel_kernel");
  spin_fma<<<spin_blocks, spin_threads, 0, s[0]>>>(d_out0, d_in, kSpinIters);
  CK_LAUNCH();
  spin_fma<<<spin_blocks, spin_threads, 0, s[1]>>>(d_out1, d_in, kSpinIters);
  CK_LAUNCH();
  nvtxRangePop();
  nvtxRangePushA("copy_kernel");
  spin_fma<<<spin_blocks, spin_threads, 0, s[0]>>>(d_out2, d_in, kSpinIters);
  CK_LAUNCH();
  CK(cudaMemcpyAsync(d_copy, h_pinned, copy_bytes, cudaMemcpyHostToDevice, s[2]));
  nvtxRangePop();
  CK(cudaDeviceSynchronize());
  {
    std::vector<float> o0(spin_n), o1(spin_n), o2(spin_n);
    CK(cudaMemcpy(o0.data(), d_out0, spin_n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o1.data(), d_out1, spin_n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2.data(), d_out2, spin_n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < spin_n; ++i)
      if (o0[i] != o1[i] || o0[i] != o2[i] || !std::isfinite(o0[i])) {
        std::fprintf(stderr, "spin_fma mismatch at %d\n", i);
        return 1;
      }
    float probe;
    CK(cudaMemcpy(&probe, d_copy + 12345, sizeof probe, cudaMemcpyDeviceToHost));
    if (probe != h_pinned[12345]) {
      std::fprintf(stderr, "async copy mismatch\n");
      return 1;
    }
  }
  nvtxRangePop();

  // --- phase_graph ---------------------------------------------------------------------------------------
  nvtxRangePushA("phase_graph");
  const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
  auto hx = random_vector(n, 3), hy = random_vector(n, 4), hz = random_vector(n, 5);
  float *dx, *dy, *dz;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMalloc(&dz, n * sizeof(float)));
  CK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dz, hz.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
  saxpy<<<blocks, threads, 0, s[0]>>>(dy, dx, 0.5f, n);
  scale<<<blocks, threads, 0, s[0]>>>(dy, 0.75f, n);
  add_into<<<blocks, threads, 0, s[0]>>>(dz, dy, n);
  CK(cudaStreamEndCapture(s[0], &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kGraphLaunches; ++r) CK(cudaGraphLaunch(exec, s[0]));
  CK(cudaStreamSynchronize(s[0]));
  {
    std::vector<float> gz(n);
    CK(cudaMemcpy(gz.data(), dz, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i += 997) {
      float y = hy[i], z = hz[i];
      for (int r = 0; r < kGraphLaunches; ++r) {
        y = (0.5f * hx[i] + y) * 0.75f;
        z += y;
      }
      if (!close(gz[i], z)) {
        std::fprintf(stderr, "graph result mismatch at %d: %f vs %f\n", i, gz[i], z);
        return 1;
      }
    }
  }
  nvtxRangePop();

  // --- phase_launch_bound --------------------------------------------------------------------------------
  nvtxRangePushA("phase_launch_bound");
  float* d_tiny;
  CK(cudaMalloc(&d_tiny, 32 * sizeof(float)));
  CK(cudaMemset(d_tiny, 0, 32 * sizeof(float)));
  CK(cudaStreamSynchronize(s[0]));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kTinyKernels; ++i) {
    tiny<<<1, 32, 0, s[0]>>>(d_tiny);
    CK_LAUNCH();
  }
  CK(cudaStreamSynchronize(s[0]));
  auto t1 = std::chrono::steady_clock::now();
  nvtxRangePop();
  float tiny_back[32];
  CK(cudaMemcpy(tiny_back, d_tiny, sizeof tiny_back, cudaMemcpyDeviceToHost));
  if (tiny_back[0] != static_cast<float>(kTinyKernels)) {
    std::fprintf(stderr, "tiny kernels: %f != %d\n", tiny_back[0], kTinyKernels);
    return 1;
  }
  std::printf("launch_bound_ms=%.3f\n", std::chrono::duration<double, std::milli>(t1 - t0).count());

  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  for (float* p : {d_in, d_out0, d_out1, d_out2, d_copy, dx, dy, dz, d_tiny}) CK(cudaFree(p));
  CK(cudaFreeHost(h_pinned));
  for (auto& st : s) CK(cudaStreamDestroy(st));
  nvtxRangePop();
  std::printf("ok\n");
  return 0;
}
