// The pairs' driver of the fix experiments whose held-out program has no Timer of its own (calib_pairs47.cu,
// calib_pairs48.cu): a Timer of two CUDA events for calib_pairs.cuh's event_ms, calib_pairs.cuh itself, and Pairs,
// which times each pair (warm-up rounds, then alternating rounds), prints its JSON entry and turns a failing CUDA call
// into an error entry. Needs the including program's CK() and CaseSkip.
#pragma once
struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
};
#include "calib_pairs.cuh"

// ---------------------------------------------------------------------------------------------------------------
// The pairs' driver, on calib_pairs.cuh: calib::alternate and calib::event_ms time them, calib::print_case prints
// them. One pair at a time, its buffers (the program's DevBuf) freed when it ends. A failing CUDA call in a pair (the
// program's CK throws CaseSkip) makes its entry {"change", "error"} (as calib_pairs37.py writes one) and the next pair
// runs, unless the error left the context unusable.

constexpr int kWarmupRounds = 5;  // before the timed rounds: timed like them, then dropped

static std::string json_escaped(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += (unsigned char)ch < 0x20 ? ' ' : ch;
  }
  return out;
}

struct Pairs {
  Timer tm;
  const int rounds, total;
  int done = 0, failed = 0;
  bool usable = true, last = false, printed = false;
  Pairs(int rounds_, int total_) : rounds(rounds_), total(total_) {}

  // kWarmupRounds, then `rounds` rounds of one call of each variant, alternating (calib::alternate: the variant
  // that goes first alternates between rounds); CUDA events around each call on the legacy default stream.
  template <class A, class B>
  void time(A&& before, B&& after, std::vector<double>& tb, std::vector<double>& ta) {
    auto event_ms = [&](auto&& body) { return calib::event_ms(tm, body); };
    std::vector<double> wb, wa;
    calib::alternate(kWarmupRounds, 1, before, after, event_ms, wb, wa);
    calib::alternate(rounds, 1, before, after, event_ms, tb, ta);
  }
  // The output check's verdict, on stderr (stdout holds only the JSON).
  static void check(const char* name, bool ok, const char* msg) {
    if (ok)
      std::fprintf(stderr, "%s: check ok\n", name);
    else
      std::fprintf(stderr, "%s: check MISMATCH %s\n", name, msg);
  }
  void print(const char* name, const char* change, const char* timed, const std::vector<double>& tb,
             const std::vector<double>& ta, bool same) {
    calib::print_case(name, change, timed, tb, ta, same, last);
    std::fflush(stdout);
    printed = true;
  }
  template <class F>
  void run(const char* name, const char* change, F&& pair) {
    last = ++done == total;
    printed = false;
    std::string why = "not run: an earlier pair left the CUDA context unusable";
    if (usable) {
      try {
        pair(*this, name, change);
        return;
      } catch (const CaseSkip& e) {
        why = e.why;
        (void)cudaGetLastError();
        if (cudaDeviceSynchronize() != cudaSuccess) usable = false;  // a sticky error
      }
    }
    ++failed;
    std::fprintf(stderr, "%s: skipped (%s)\n", name, why.c_str());
    if (printed) return;  // its times were out already
    std::printf("    \"%s\": {\"change\": \"%s\", \"error\": \"%s\"}%s\n", name, change, json_escaped(why).c_str(),
                last ? "" : ",");
    std::fflush(stdout);
  }
};
