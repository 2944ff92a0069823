#include <gtest/gtest.h>

#include "render/json_output.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

TEST(RenderJson, GoldenAnnotation) {
  expect_golden("json_annotation.json", render_json(sample_annotation_run(), nullptr));
}

TEST(RenderJson, ModelRoundTripsAndContractMatchesMarkdown) {
  auto run = sample_run();
  auto cmp = sample_comparison();
  json j = json::parse(render_json(run, &cmp));
  // The model part reads back as the same run.
  EXPECT_EQ(json(j.get<ProfileRun>()).dump(), json(run).dump());
  const json& c = j.at("contract");
  ASSERT_EQ(c.at("stages").size(), 3u);
  const json& conc = c.at("stages")[2];
  EXPECT_EQ(conc.at("display"), "stage_concurrent · fma_loop [66x1x1]");
  EXPECT_EQ(conc.at("launches"), 2);
  EXPECT_DOUBLE_EQ(conc.at("duration_us").get<double>(), 1279.664);
  EXPECT_TRUE(conc.at("tc_pct").is_null());  // unavailable is null, never 0
  EXPECT_EQ(conc.at("bottleneck"), "latency");
  EXPECT_EQ(c.at("bottleneck").at("title"), "latency-bound");
  ASSERT_EQ(c.at("top3").size(), 3u);
  EXPECT_EQ(c.at("top3")[0].at("name"), "Fill the GPU: launch at least 132 blocks");
  EXPECT_EQ(c.at("top3")[0].at("kernel"), "fma_loop [66x1x1]");
  EXPECT_EQ(c.at("vs_baseline").at("rows")[0].at("verdict"), "better");
  EXPECT_EQ(c.at("configuration")[0].at("param"), "n");
  EXPECT_EQ(j.at("comparison").at("baseline_label"), cmp.baseline_label);
}

TEST(RenderJson, NoBaselineIsNull) {
  json j = json::parse(render_json(sample_run(), nullptr));
  EXPECT_TRUE(j.at("contract").at("vs_baseline").is_null());
  EXPECT_FALSE(j.contains("comparison"));
}

TEST(RenderJson, OutputIsStable) {
  auto run = sample_run();
  EXPECT_EQ(render_json(run, nullptr), render_json(run, nullptr));
}
