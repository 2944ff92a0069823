// Shared by the calibration-pair programs (calib_pairs<N>.cu): each includes a held-out set's program (its main()
// renamed), then this, for alternating timings of the captured code against a fix and the JSON they print.
// Needs the including program's CK() and Timer.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace calib {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// `rounds` rounds of `calls` calls of each variant, alternating (the variant that goes first alternates too); each
// call's time in ms from `time_one`.
template <class A, class B, class T>
void alternate(int rounds, int calls, A&& before, B&& after, T&& time_one, std::vector<double>& tb,
               std::vector<double>& ta) {
  for (int r = 0; r < rounds; ++r)
    for (int v = 0; v < 2; ++v) {
      const bool first_before = r % 2 == 0;
      if ((v == 0) == first_before)
        for (int c = 0; c < calls; ++c) tb.push_back(time_one(before));
      else
        for (int c = 0; c < calls; ++c) ta.push_back(time_one(after));
    }
}

// CUDA events on the legacy default stream around `body` (kernels launched there).
template <class Body>
double event_ms(Timer& tm, Body&& body) {
  CK(cudaEventRecord(tm.a));
  body();
  CK(cudaEventRecord(tm.b));
  CK(cudaGetLastError());
  CK(cudaEventSynchronize(tm.b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, tm.a, tm.b));
  return (double)ms;
}

// Host wall time of `body`, from an idle device to an idle device (a call that synchronises, or host-paced work).
template <class Body>
double wall_ms(Body&& body) {
  CK(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  body();
  CK(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The first device's properties, or false (after saying so) where there is none: the program then exits 0.
inline bool first_device(cudaDeviceProp& prop) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device: nothing to run\n");
    return false;
  }
  CK(cudaGetDeviceProperties(&prop, 0));
  return true;
}

inline void print_header(const char* device, int rounds) {
  std::printf("{\n  \"device\": \"%s\",\n  \"rounds\": %d,\n  \"cases\": {\n", device, rounds);
}

inline void print_case(const char* name, const char* change, const char* timed, const std::vector<double>& tb,
                       const std::vector<double>& ta, bool same, bool last) {
  const double b = median(tb), a = median(ta);
  std::printf("    \"%s\": {\"change\": \"%s\", \"timed\": \"%s\", \"before_ms\": %.4f, \"after_ms\": %.4f, "
              "\"calls\": %zu, \"outputs_match\": %s, \"realised_gain_pct\": %.2f}%s\n",
              name, change, timed, b, a, tb.size(), same ? "true" : "false", b > 0 ? (1.0 - a / b) * 100.0 : 0.0,
              last ? "" : ",");
}

inline void print_footer() { std::printf("  }\n}\n"); }

}  // namespace calib
