#include <gtest/gtest.h>

#include "collect/clock/clock_state.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;

TEST(ClockQuery, ParsesIdleH200) {
  auto s = parse_clock_query(read_file(KPROF_FIXTURES + "/nvidia-smi/h200-idle.csv"), 0);
  EXPECT_EQ(s.name, "NVIDIA H200");
  EXPECT_EQ(s.sm_mhz, 345);
  EXPECT_EQ(s.mem_mhz, 3201);
  EXPECT_EQ(s.max_sm_mhz, 1980);
  EXPECT_EQ(s.max_mem_mhz, 3201);
  EXPECT_EQ(s.app_sm_mhz, 1980);
  EXPECT_EQ(s.default_app_sm_mhz, 1980);
  EXPECT_EQ(s.default_app_mem_mhz, 3201);
  ASSERT_TRUE(s.event_reasons);
  EXPECT_EQ(decode_event_reasons(*s.event_reasons), std::vector<std::string>{"gpu_idle"});
}

TEST(ClockQuery, ParsesPowerCappedGpu) {
  auto s = parse_clock_query(read_file(KPROF_FIXTURES + "/nvidia-smi/h200-busy-power-capped.csv"), 3);
  EXPECT_EQ(s.gpu, 3);
  EXPECT_EQ(s.sm_mhz, 1755);
  EXPECT_EQ(decode_event_reasons(*s.event_reasons), std::vector<std::string>{"sw_power_cap"});
}

TEST(ClockQuery, NotAvailableValuesAreUnknown) {
  auto s = parse_clock_query("\n0, Some GPU, 1410, 1215, 1410, 1215, [N/A], [N/A], [N/A], [N/A], [Not Supported]\n", 0);
  EXPECT_EQ(s.sm_mhz, 1410);
  EXPECT_FALSE(s.app_sm_mhz);
  EXPECT_FALSE(s.default_app_sm_mhz);
  EXPECT_FALSE(s.default_app_mem_mhz);
  EXPECT_FALSE(s.event_reasons);
}

TEST(ClockQuery, RejectsWrongShapeAndGarbage) {
  EXPECT_THROW(parse_clock_query("", 0), ParseError);
  EXPECT_THROW(parse_clock_query("0, NVIDIA H200, 345, 3201", 0), ParseError);
  EXPECT_THROW(parse_clock_query("0, NVIDIA H200, 345 MHz, 3201, 1980, 3201, 1980, 3201, 1980, 3201, 0x1", 0),
               ParseError);
  EXPECT_THROW(parse_clock_query("0, NVIDIA H200, 345, 3201, 1980, 3201, 1980, 3201, 1980, 3201, Active", 0),
               ParseError);
  try {
    parse_clock_query("No devices were found", 0, "nvidia-smi");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_NE(std::string(e.what()).find("No devices were found"), std::string::npos);
  }
}

TEST(ClockQuery, DecodesSeveralReasonsAndUnknownBits) {
  auto r = decode_event_reasons(0x4 | 0x40 | 0x1000);
  EXPECT_EQ(r, (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown", "0x1000"}));
  EXPECT_TRUE(decode_event_reasons(0).empty());
}

TEST(ClockQuery, FieldListEndsWithTheEventField) {
  auto f = clock_query_fields("clocks_throttle_reasons.active");
  EXPECT_EQ(f.back(), "clocks_throttle_reasons.active");
  EXPECT_EQ(f[4], "clocks.max.sm");
  EXPECT_EQ(f.size(), 11u);
}
