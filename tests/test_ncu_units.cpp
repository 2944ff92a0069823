#include <gtest/gtest.h>

#include <cmath>

#include "collect/ncu/units.hpp"

using namespace kprof::ncu;

TEST(NcuUnits, ParsesNumbersAsNcuPrintsThem) {
  struct Case { const char* text; std::optional<double> want; };
  const Case cases[] = {
      {"1,046,904,576", 1046904576.0}, {"63,612.12", 63612.12}, {"0.000000", 0.0}, {"418,368", 418368.0},
      {"4.858e-05", 4.858e-05}, {"-3.5", -3.5}, {" 42 ", 42.0}, {"n/a", std::nullopt}, {"no data", std::nullopt},
      {"-", std::nullopt}, {"", std::nullopt}, {"nan", std::nullopt}, {"PolicySpread", std::nullopt},
      {"12abc", std::nullopt}, {"0x10", std::nullopt},
  };
  for (const auto& c : cases) {
    auto got = parse_number(c.text);
    ASSERT_EQ(got.has_value(), c.want.has_value()) << c.text;
    if (c.want) {
      EXPECT_DOUBLE_EQ(*got, *c.want) << c.text;
    }
  }
}

TEST(NcuUnits, ConvertsToBaseUnits) {
  struct Case { const char* unit; const char* base; double factor; };
  const Case cases[] = {
      {"ns", "ns", 1},           {"us", "ns", 1e3},           {"usecond", "ns", 1e3},     {"ms", "ns", 1e6},
      {"msecond", "ns", 1e6},    {"s", "ns", 1e9},            {"byte", "byte", 1},        {"Kbyte", "byte", 1e3},
      {"Mbyte", "byte", 1e6},    {"Gbyte", "byte", 1e9},      {"Tbyte", "byte", 1e12},    {"KiB", "byte", 1024},
      {"MiB", "byte", 1048576},  {"Kbyte/s", "byte/s", 1e3},  {"Gbyte/s", "byte/s", 1e9}, {"Tbyte/s", "byte/s", 1e12},
      {"Gbyte/second", "byte/s", 1e9}, {"hz", "hz", 1},       {"Mhz", "hz", 1e6},         {"Ghz", "hz", 1e9},
      {"Kbyte/block", "byte/block", 1e3}, {"Kbyte/cycle", "byte/cycle", 1e3}, {"sector/ns", "sector/ns", 1},
      {"%/Kbyte", "%/Kbyte", 1}, {"%", "%", 1},             {"cycle", "cycle", 1},      {"inst", "inst", 1},
      {"sector", "sector", 1},   {"warp", "warp", 1},         {"thread", "thread", 1},
      {"register/thread", "register/thread", 1},             {"", "", 1},
  };
  for (const auto& c : cases) {
    UnitScale s = unit_scale(c.unit);
    EXPECT_EQ(s.base_unit, c.base) << c.unit;
    EXPECT_DOUBLE_EQ(s.factor, c.factor) << c.unit;
  }
}

TEST(NcuUnits, MetricValuesInBaseUnits) {
  auto d = make_metric_value("0.536672", "ms");  // copy_f4 ID 5 in full_raw.csv
  EXPECT_TRUE(d.numeric);
  EXPECT_NEAR(d.value, 536672, 1e-6);
  EXPECT_EQ(d.unit, "ns");
  auto b = make_metric_value("1,046,904,576", "byte");
  EXPECT_DOUBLE_EQ(b.value, 1046904576);
  auto t = make_metric_value("PolicySpread", "");
  EXPECT_FALSE(t.numeric);
  EXPECT_EQ(t.text, "PolicySpread");
}

TEST(NcuUnits, InstanceValuesKeepTextAndUseTheAggregate) {
  // --print-metric-instances values: the aggregate first, then one value per instance.
  auto v = make_metric_value("1.5;0.5;1;3", "Kbyte");
  EXPECT_TRUE(v.numeric);
  EXPECT_DOUBLE_EQ(v.value, 1500);
  EXPECT_EQ(v.text, "1.5;0.5;1;3");
  EXPECT_EQ(v.unit, "byte");
}
