#include "tensor_peaks.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <cublasLt.h>

#include "device_buffer.hpp"
#include "random_fill.hpp"
#include "util/cuda_check.hpp"

// cuBLASLt calls, checked like CUDA's (util/cuda_check.hpp).
#define CUBLAS_CHECK(call)                                                                                         \
  do {                                                                                                             \
    const cublasStatus_t s_ = (call);                                                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                                               \
      throw std::runtime_error(                                                                                    \
          ::kprof::check_failure(#call, __FILE__, __LINE__, cublasLtGetStatusName(s_), cublasLtGetStatusString(s_))); \
  } while (0)

namespace kprof::peaks {

namespace {

struct GemmType {
  cudaDataType_t ab;
  cudaDataType_t cd;
  cublasComputeType_t compute;
  ElemType fill;
  std::size_t ab_size;
  std::size_t cd_size;
  const char* label;
};

GemmType gemm_type(const std::string& p) {
  if (p == "bf16") return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, ElemType::bf16, 2, 2, "BF16 in/out, FP32 accumulate"};
  if (p == "fp16") return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, ElemType::f16, 2, 2, "FP16 in/out, FP32 accumulate"};
  if (p == "tf32")
    return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, ElemType::f32, 4, 4, "FP32 in/out, TF32 tensor cores"};
  if (p == "fp8")
    return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, ElemType::fp8_e4m3, 1, 2, "FP8 E4M3 in, BF16 out, FP32 accumulate"};
  throw std::invalid_argument("unknown GEMM precision " + p);
}

// Owns the cuBLASLt objects of one GEMM configuration.
struct LtGemm {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtGemm() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
    if (handle) cublasLtDestroy(handle);
  }
};

}  // namespace

const std::vector<std::string>& gemm_precisions() {
  static const std::vector<std::string> p = {"bf16", "fp16", "tf32", "fp8"};
  return p;
}

PeakMeasurement measure_gemm(const std::string& precision, int n, cudaStream_t s, const TimingOptions& opt) {
  const GemmType t = gemm_type(precision);
  const std::size_t elems = static_cast<std::size_t>(n) * n;
  DeviceBuffer A(elems * t.ab_size), B(elems * t.ab_size), D(elems * t.cd_size);
  fill_random(A.as<void>(), t.fill, elems, 11, -1.0f, 1.0f, s);
  fill_random(B.as<void>(), t.fill, elems, 12, -1.0f, 1.0f, s);
  const std::size_t workspace_bytes = std::size_t{64} << 20;
  DeviceBuffer workspace(workspace_bytes);

  LtGemm g;
  CUBLAS_CHECK(cublasLtCreate(&g.handle));
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&g.op, t.compute, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;  // TN: the layout FP8 requires on Hopper
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  // Column-major: A is stored k x m (used transposed), B k x n, D m x n.
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.a, t.ab, n, n, n));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.b, t.ab, n, n, n));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.c, t.cd, n, n, n));
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&g.pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(g.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof workspace_bytes));
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(g.handle, g.op, g.a, g.b, g.c, g.c, g.pref, 1, &heur, &found));
  if (found < 1) throw std::runtime_error("cuBLASLt found no algorithm for " + precision);

  const float alpha = 1.0f, beta = 0.0f;
  auto launch = [&](cudaStream_t st) {
    CUBLAS_CHECK(cublasLtMatmul(g.handle, g.op, &alpha, A.as<void>(), g.a, B.as<void>(), g.b, &beta, D.as<void>(),
                                g.c, D.as<void>(), g.c, &heur.algo, workspace.as<void>(), workspace_bytes, st));
  };
  auto ms = time_runs(launch, s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));

  // The product of random matrices is neither all zero nor non-finite: a cheap check that the GEMM ran.
  std::vector<std::uint8_t> head(256 * t.cd_size);
  CUDA_CHECK(cudaMemcpy(head.data(), D.as<void>(), head.size(), cudaMemcpyDeviceToHost));
  bool any_nonzero = false;
  for (auto byte : head) any_nonzero = any_nonzero || byte != 0;
  if (t.cd == CUDA_R_32F)
    for (std::size_t i = 0; i < 256; ++i)
      if (!std::isfinite(reinterpret_cast<const float*>(head.data())[i])) throw std::runtime_error("GEMM output not finite");
  if (!any_nonzero) throw std::runtime_error("GEMM output is all zeros");

  const double flops = 2.0 * n * static_cast<double>(n) * n;
  return summarize(ms, flops, 1e12,
                   "cuBLASLt matmul " + std::to_string(n) + "^3 TN, " + t.label + ", uniform(-1,1) inputs");
}

}  // namespace kprof::peaks
