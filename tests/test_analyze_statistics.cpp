#include <gtest/gtest.h>

#include "analyze/statistics.hpp"

using namespace kprof::analyze;

// a = {1..5}, b = {6..10}: no a exceeds any b, U = 0; mu = 25/2 = 12.5; var = 25/12 * 11 = 22.9167;
// z = -(12.5 - 0.5) / 4.78714 = -2.50672; p = erfc(2.50672 / sqrt 2) = 0.0121858.
TEST(MannWhitneyU, SeparatedSamplesByHand) {
  auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.z, -2.506718, 1e-6);
  EXPECT_NEAR(r.p_value, 0.0121858, 1e-6);
  auto swapped = mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(swapped.u, 25);
  EXPECT_NEAR(swapped.p_value, r.p_value, 1e-12);
}

// a = {1,2,2,3}, b = {2,3,4,5}: ranks 1 | 2,2,2 → 3 | 3,3 → 5.5 | 7 | 8; R_a = 1+3+3+5.5 = 12.5; U = 2.5;
// mu = 8; ties (3 and 2 values) give sum(t^3 - t) = 24 + 6 = 30; var = 16/12 * (9 - 30/56) = 11.285714;
// z = -(5.5 - 0.5) / 3.359422 = -1.488351; p = 0.1366582.
TEST(MannWhitneyU, TiesByHand) {
  auto r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  EXPECT_NEAR(r.z, -1.488351, 1e-6);
  EXPECT_NEAR(r.p_value, 0.1366582, 1e-6);
}

TEST(MannWhitneyU, IdenticalOrEmptySamplesGiveNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({3, 3, 3}, {3, 3, 3}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_value, 1.0);
}
