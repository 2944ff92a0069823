#include "peak_timer.hpp"

#include <algorithm>

#include "util/cuda_check.hpp"

namespace kprof::peaks {

std::vector<double> time_runs(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                              const TimingOptions& opt) {
  for (int i = 0; i < opt.warmup; ++i) launch(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < std::max(opt.repeats, 5); ++i) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    launch(stream);
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

PeakMeasurement summarize(const std::vector<double>& ms, double work, double per_unit, const std::string& method) {
  std::vector<double> rates;
  for (double t : ms)
    if (t > 0) rates.push_back(work / (t * 1e-3) / per_unit);
  if (rates.empty()) throw std::runtime_error(method + ": no run took measurable time");
  std::sort(rates.begin(), rates.end());
  size_t n = rates.size();
  PeakMeasurement m;
  m.value = n % 2 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]);
  m.min = rates.front();
  m.max = rates.back();
  m.runs = static_cast<int>(n);
  m.method = method;
  return m;
}

long calibrate(const std::function<void(cudaStream_t, long)>& launch, cudaStream_t stream, long start,
               double target_ms, long limit) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  launch(stream, start);  // first launch pays module load
  CUDA_CHECK(cudaStreamSynchronize(stream));
  long n = start;
  for (; n < limit; n *= 2) {
    CUDA_CHECK(cudaEventRecord(a, stream));
    launch(stream, n);
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    if (t >= target_ms) break;
  }
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  return std::min(n, limit);
}

}  // namespace kprof::peaks
