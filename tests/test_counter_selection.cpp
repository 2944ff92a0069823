// The counter collector's CUPTI-free parts (collect/cupti/counter_options.cpp, launch_selection.cpp), which
// libkprof_inject.so runs inside the profiled program: its environment and which launches it profiles.
#include <gtest/gtest.h>

#include <cstdlib>

#include "collect/counters/counters_format.hpp"
#include "collect/cupti/launch_selection.hpp"

using namespace kprof;
using namespace kprof::cupti;

namespace {

// Sets the collector's variables for one test and clears them afterwards.
class CounterEnv {
 public:
  CounterEnv() { clear(); }
  ~CounterEnv() { clear(); }
  void set(const char* name, const char* value) { ::setenv(name, value, 1); }

 private:
  static void clear() {
    namespace cf = counters_format;
    for (const char* n : {cf::kEnvFile, cf::kEnvMetrics, cf::kEnvKernel, cf::kEnvNvtx, cf::kEnvAll, cf::kEnvSkip,
                          cf::kEnvCount, cf::kEnvMax, cf::kEnvImage})
      ::unsetenv(n);
  }
};

const std::string kGemm = "_Z11sgemm_naivePKfS0_Pfi";  // sgemm_naive(float const*, float const*, float*, int)
const std::string kCopy = "_Z7copy_f4PK6float4PS_m";   // copy_f4(...)

}  // namespace

TEST(CounterOptions, ReadFromTheEnvironmentWithDefaultsAndLimits) {
  CounterEnv env;
  auto none = CounterOptions::from_env();
  EXPECT_TRUE(none.output.empty());  // no file: the library traces instead
  EXPECT_EQ(none.max_kernels, counters_format::kDefaultMaxKernels);
  EXPECT_EQ(none.image_ranges, counters_format::kDefaultImageRanges);
  env.set(counters_format::kEnvFile, "/tmp/c.json");
  env.set(counters_format::kEnvMetrics, "a,,b");
  env.set(counters_format::kEnvAll, "1");
  env.set(counters_format::kEnvSkip, "3");
  env.set(counters_format::kEnvCount, "x7");  // not a number: the default
  env.set(counters_format::kEnvMax, "999999999");
  env.set(counters_format::kEnvImage, "0");  // clamped to one range
  auto o = CounterOptions::from_env();
  EXPECT_EQ(o.output, "/tmp/c.json");
  EXPECT_EQ(o.metrics, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(o.all_launches);
  EXPECT_EQ(o.skip, 3u);
  EXPECT_EQ(o.count, 0u);
  EXPECT_EQ(o.max_kernels, counters_format::kMaxKernelsLimit);
  EXPECT_EQ(o.image_ranges, 1u);
  env.set(counters_format::kEnvImage, "100000");
  EXPECT_EQ(CounterOptions::from_env().image_ranges, counters_format::kMaxImageRanges);
}

TEST(LaunchSelection, FirstLaunchOfEachNameUnlessAllLaunches) {
  LaunchSelection first;
  EXPECT_EQ(first.configure({}), "");
  EXPECT_TRUE(first.select(kGemm, 1, {}, 0, nullptr));
  EXPECT_FALSE(first.select(kGemm, 2, {}, 1, nullptr));
  EXPECT_TRUE(first.select(kCopy, 1, {}, 1, nullptr));
  CounterOptions all;
  all.all_launches = true;
  LaunchSelection every;
  every.configure(all);
  EXPECT_TRUE(every.select(kGemm, 2, {}, 1, nullptr));
}

TEST(LaunchSelection, KernelRegexIsSearchedInTheBaseName) {
  CounterOptions o;
  o.kernel_regex = "^sgemm";
  LaunchSelection s;
  EXPECT_EQ(s.configure(o), "");
  EXPECT_TRUE(s.select(kGemm, 1, {}, 0, nullptr));
  EXPECT_FALSE(s.select(kCopy, 1, {}, 1, nullptr));
  o.kernel_regex = "(?i)gemm";  // not ECMAScript: nothing is profiled rather than everything
  LaunchSelection bad;
  EXPECT_NE(bad.configure(o).find("not a valid regular expression"), std::string::npos);
  EXPECT_FALSE(bad.select(kGemm, 1, {}, 0, nullptr));
}

TEST(LaunchSelection, NvtxPathSkipCountAndTheImageLimit) {
  CounterOptions o;
  o.nvtx_range = "run/stage_gemm";
  o.all_launches = true;
  o.skip = 1;
  o.count = 2;
  LaunchSelection s;
  s.configure(o);
  EXPECT_FALSE(s.select(kGemm, 1, {"stage_gemm"}, 0, nullptr));                // not directly inside run
  EXPECT_FALSE(s.select(kGemm, 2, {"outer", "run", "stage_gemm"}, 0, nullptr));  // inside, but skipped
  EXPECT_TRUE(s.select(kGemm, 3, {"outer", "run", "stage_gemm"}, 0, nullptr));
  EXPECT_TRUE(s.select(kGemm, 4, {"run", "stage_gemm", "inner"}, 1, nullptr));
  EXPECT_FALSE(s.select(kGemm, 5, {"run", "stage_gemm"}, 2, nullptr));          // --launch-count reached
  EXPECT_EQ(s.selected(), 4u);

  CounterOptions small;
  small.all_launches = true;
  small.max_kernels = 1;
  LaunchSelection limited;
  limited.configure(small);
  std::string why;
  EXPECT_TRUE(limited.select(kGemm, 1, {}, 0, &why));
  EXPECT_FALSE(limited.select(kGemm, 2, {}, 1, &why));
  EXPECT_NE(why.find("KPROF_COUNTERS_MAX (1)"), std::string::npos) << why;
}
