#include <gtest/gtest.h>

#include "render/comparison_markdown.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

TEST(RenderComparison, Golden) { expect_golden("comparison.md", render_comparison(sample_comparison())); }

TEST(RenderComparison, SignedChangeAndVerdictPerRow) {
  std::string md = render_comparison(sample_comparison());
  EXPECT_NE(md.find("| Duration (us) | 1010.2 | 1026.5 | +1.6% worse | lower |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Achieved GB/s | — | — | — | higher |"), std::string::npos) << md;
}

TEST(RenderComparison, EmptyComparison) {
  std::string md = render_comparison(Comparison{});
  EXPECT_NE(md.find("# Comparison: (unnamed) → (unnamed)"), std::string::npos);
  EXPECT_NE(md.find("## Whole run\nNo comparable figures.\n"), std::string::npos);
}
