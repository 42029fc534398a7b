/// \file
/// \brief Statistics of timing samples: percentiles, robust noise, the summary of a row.
#include <gtest/gtest.h>

#include <vector>

#include "bench/timing/sample_statistics.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

TEST(Percentile, InterpolatesBetweenTheClosestRanks) {
  const std::vector<double> sorted = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0};
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.1), 2.0);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.5), 6.0);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.9), 10.0);
  EXPECT_DOUBLE_EQ(percentile(sorted, 1.0), 11.0);
  // Between ranks: NumPy's linear interpolation.
  EXPECT_DOUBLE_EQ(percentile({1.0, 2.0}, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(percentile({0.0, 10.0}, 0.1), 1.0);
  EXPECT_DOUBLE_EQ(percentile({4.0}, 0.9), 4.0);
}

TEST(Percentile, RejectsNoSamplesAndBadFractions) {
  EXPECT_THROW(percentile({}, 0.5), Error);
  EXPECT_THROW(percentile({1.0}, -0.1), Error);
  EXPECT_THROW(percentile({1.0}, 1.1), Error);
}

TEST(RobustRelativeNoise, IsTheScaledMadOverTheMedian) {
  // Median 10, absolute deviations {1, 0, 1, 0, 0} -> MAD 0 ... use a symmetric set instead:
  // {9, 10, 11}: median 10, deviations {1, 0, 1}, MAD 1 -> 1.4826 / 10.
  EXPECT_NEAR(robust_relative_noise({11.0, 9.0, 10.0}), 0.14826, 1e-12);
  EXPECT_EQ(robust_relative_noise({5.0, 5.0, 5.0, 5.0}), 0.0);
  EXPECT_EQ(robust_relative_noise({5.0}), 0.0);
  EXPECT_EQ(robust_relative_noise({}), 0.0);
  EXPECT_EQ(robust_relative_noise({0.0, 0.0, 0.0}), 0.0);
}

TEST(RobustRelativeNoise, IgnoresARareSlowOutlier) {
  std::vector<double> samples(20, 1.0);
  samples[3] = 1.002;
  samples[7] = 0.998;
  samples[11] = 50.0;  // one preempted sample
  EXPECT_LT(robust_relative_noise(samples), 0.01);
}

TEST(Summarize, ReportsEveryFieldOfARow) {
  const SampleSummary summary = summarize({5.0, 1.0, 4.0, 2.0, 3.0});
  EXPECT_EQ(summary.count, 5u);
  EXPECT_DOUBLE_EQ(summary.min, 1.0);
  EXPECT_DOUBLE_EQ(summary.max, 5.0);
  EXPECT_DOUBLE_EQ(summary.median, 3.0);
  EXPECT_DOUBLE_EQ(summary.p10, 1.4);
  EXPECT_DOUBLE_EQ(summary.p90, 4.6);
  EXPECT_DOUBLE_EQ(summary.mean, 3.0);
  EXPECT_NEAR(summary.relative_noise, 1.4826 / 3.0, 1e-12);
  EXPECT_LE(summary.min, summary.p10);
  EXPECT_LE(summary.p90, summary.max);
  EXPECT_THROW(summarize({}), Error);
}

}  // namespace
}  // namespace sortlab::bench::timing
