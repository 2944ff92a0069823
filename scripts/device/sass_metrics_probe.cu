// Probe: can CUPTI's SASS Metrics API (cupti_sass_metrics.h, CUDA 12.4+) give the CUPTI counter pass what only
// Nsight Compute gives it now: the bytes each fetched global sector carries (ncu's
// smsp__sass_average_data_bytes_per_sector_mem_global_op_ld), which tells gathers from strided walks and partial
// coalescing from a coalesced wide access (bench/RESULTS.md §9zn: the CUPTI-only misses)?
//
//   sass_metrics_probe list              every SASS metric the device's chip offers (name, description)
//   sass_metrics_probe run [<substr>...] five load patterns whose bytes per sector are known, each kernel's sum of
//                                        every offered metric whose name holds a <substr> (default: mem_global_op_ld),
//                                        and each kernel's time without and with the patching
//   sass_metrics_probe plain             the same kernels without CUPTI (for `ncu --metrics ...` to read them)
//
// Run by scripts/device/sass-probe.sh, which also reads the same kernels with Nsight Compute. Nothing here is used by
// kprof; it decides whether the CUPTI collector can take the metric, and at what cost.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_sass_metrics.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                                           \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)
#define CHECK_CUPTI(x)                                                                   \
  do {                                                                                   \
    CUptiResult r_ = (x);                                                                \
    if (r_ != CUPTI_SUCCESS) {                                                           \
      const char* s_ = nullptr;                                                          \
      cuptiGetResultString(r_, &s_);                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");   \
      std::exit(3);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int kN = 1 << 24;  // outputs per kernel

// Expected bytes used per 32-byte sector: 32 (coalesced floats), 16 (every second float), 4 (one float per sector),
// 4 (random gather over 256 MB), 32 (float4, coalesced).
__global__ void coalesced(const float* __restrict__ in, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = in[i] * 2.0f;
}
__global__ void stride2(const float* __restrict__ in, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = in[2 * (long long)i] * 2.0f;
}
__global__ void stride8(const float* __restrict__ in, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = in[8 * (long long)i] * 2.0f;
}
__global__ void gather(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = in[idx[i]] * 2.0f;
}
__global__ void vec4(const float4* __restrict__ in, float4* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN / 4) {
    float4 v = in[i];
    out[i] = make_float4(v.x * 2.0f, v.y * 2.0f, v.z * 2.0f, v.w * 2.0f);
  }
}

struct Buffers {
  float* in = nullptr;  // 8 * kN floats (256 MB)
  float* out = nullptr;
  int* idx = nullptr;
};

Buffers make_buffers() {
  Buffers b;
  CHECK_CUDA(cudaMalloc(&b.in, sizeof(float) * 8 * (size_t)kN));
  CHECK_CUDA(cudaMalloc(&b.out, sizeof(float) * kN));
  CHECK_CUDA(cudaMalloc(&b.idx, sizeof(int) * kN));
  CHECK_CUDA(cudaMemset(b.in, 0, sizeof(float) * 8 * (size_t)kN));
  std::vector<int> host(kN);
  unsigned x = 12345u;
  for (auto& v : host) {
    x = x * 1664525u + 1013904223u;
    v = int(x % (8u * kN));
  }
  CHECK_CUDA(cudaMemcpy(b.idx, host.data(), sizeof(int) * kN, cudaMemcpyHostToDevice));
  return b;
}

// Launches kernel k (0..4) once; returns its time in microseconds.
float launch(int k, const Buffers& b) {
  cudaEvent_t s, e;
  CHECK_CUDA(cudaEventCreate(&s));
  CHECK_CUDA(cudaEventCreate(&e));
  const int threads = 256, blocks = (kN + threads - 1) / threads;
  CHECK_CUDA(cudaEventRecord(s));
  switch (k) {
    case 0: coalesced<<<blocks, threads>>>(b.in, b.out); break;
    case 1: stride2<<<blocks, threads>>>(b.in, b.out); break;
    case 2: stride8<<<blocks, threads>>>(b.in, b.out); break;
    case 3: gather<<<blocks, threads>>>(b.in, b.idx, b.out); break;
    default: vec4<<<blocks / 4, threads>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out));
  }
  CHECK_CUDA(cudaEventRecord(e));
  CHECK_CUDA(cudaEventSynchronize(e));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, s, e));
  CHECK_CUDA(cudaGetLastError());
  cudaEventDestroy(s);
  cudaEventDestroy(e);
  return ms * 1000.0f;
}
const char* kNames[] = {"coalesced", "stride2", "stride8", "gather", "vec4"};
const char* kExpected[] = {"32", "16", "4", "4", "32"};

std::string chip_name() {
  CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK_CUPTI(cuptiProfilerInitialize(&init));
  CUpti_Device_GetChipName_Params p = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = 0;
  CHECK_CUPTI(cuptiDeviceGetChipName(&p));
  return p.pChipName;
}

std::vector<CUpti_SassMetrics_MetricDetails> offered(const std::string& chip) {
  CUpti_SassMetrics_GetNumOfMetrics_Params n = {CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  n.pChipName = chip.c_str();
  CHECK_CUPTI(cuptiSassMetricsGetNumOfMetrics(&n));
  std::vector<CUpti_SassMetrics_MetricDetails> list(n.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params g = {CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  g.pChipName = chip.c_str();
  g.numOfMetrics = list.size();
  g.pMetricsList = list.data();
  CHECK_CUPTI(cuptiSassMetricsGetMetrics(&g));
  return list;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "run";
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(nullptr));  // the primary context
  if (mode == "plain") {
    Buffers b = make_buffers();
    for (int k = 0; k < 5; ++k) std::printf("%-10s %8.1f us\n", kNames[k], launch(k, b));
    return 0;
  }
  const std::string chip = chip_name();
  const auto list = offered(chip);
  if (mode == "list") {
    std::printf("chip %s: %zu SASS metrics\n", chip.c_str(), list.size());
    for (const auto& m : list) std::printf("%s\t%s\n", m.pMetricName, m.pMetricDescription ? m.pMetricDescription : "");
    return 0;
  }
  std::vector<std::string> wanted;
  for (int i = 2; i < argc; ++i) wanted.push_back(argv[i]);
  if (wanted.empty()) wanted = {"mem_global_op_ld"};
  std::vector<CUpti_SassMetrics_Config> configs;
  std::map<uint64_t, std::string> names;
  for (const auto& m : list)
    for (const auto& w : wanted)
      if (std::strstr(m.pMetricName, w.c_str())) {
        configs.push_back({m.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
        names[m.metricId] = m.pMetricName;
        break;
      }
  std::printf("chip %s: %zu of %zu SASS metrics match", chip.c_str(), configs.size(), list.size());
  for (const auto& w : wanted) std::printf(" '%s'", w.c_str());
  std::printf("\n");
  if (configs.empty()) return 4;
  Buffers b = make_buffers();
  std::vector<float> plain(5);
  for (int k = 0; k < 5; ++k) launch(k, b);  // warm
  for (int k = 0; k < 5; ++k) plain[k] = launch(k, b);

  CUpti_SassMetricsSetConfig_Params set = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.pConfigs = configs.data();
  set.numOfMetricConfig = configs.size();
  set.deviceIndex = 0;
  CHECK_CUPTI(cuptiSassMetricsSetConfig(&set));
  std::printf("%-10s %9s %9s %9s  %s\n", "kernel", "plain_us", "patch_us", "expected", "metric sums (GPU)");
  for (int k = 0; k < 5; ++k) {
    CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.enableLazyPatching = 1;
    CHECK_CUPTI(cuptiSassMetricsEnable(&en));
    const float patched = launch(k, b);
    CUpti_SassMetricsGetDataProperties_Params props = {CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    CHECK_CUPTI(cuptiSassMetricsGetDataProperties(&props));
    std::map<std::string, unsigned long long> sums;
    if (props.numOfPatchedInstructionRecords > 0) {
      std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
      // One record per patched instruction and metric, numOfInstances values each (CUPTI's sample allocates so).
      std::vector<CUpti_SassMetrics_InstanceValue> values(props.numOfPatchedInstructionRecords * props.numOfInstances);
      for (size_t r = 0; r < data.size(); ++r) data[r].pInstanceValues = values.data() + r * props.numOfInstances;
      CUpti_SassMetricsFlushData_Params flush = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
      flush.numOfPatchedInstructionRecords = data.size();
      flush.numOfInstances = props.numOfInstances;
      flush.pMetricsData = data.data();
      CHECK_CUPTI(cuptiSassMetricsFlushData(&flush));
      for (const auto& d : data) {
        for (size_t v = 0; v < props.numOfInstances; ++v)
          sums[names[d.pInstanceValues[v].metricId]] += d.pInstanceValues[v].value;
        std::free(const_cast<char*>(d.functionName));  // CUPTI's copy, the caller's to free (its sample does)
      }
    }
    CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    CHECK_CUPTI(cuptiSassMetricsDisable(&dis));
    std::printf("%-10s %9.1f %9.1f %9s  records=%zu", kNames[k], plain[k], patched, kExpected[k],
                props.numOfPatchedInstructionRecords);
    for (const auto& [name, v] : sums) std::printf("  %s=%llu", name.c_str(), v);
    std::printf("\n");
  }
  CUpti_SassMetricsUnsetConfig_Params unset = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
  unset.deviceIndex = 0;
  CHECK_CUPTI(cuptiSassMetricsUnsetConfig(&unset));
  return 0;
}
