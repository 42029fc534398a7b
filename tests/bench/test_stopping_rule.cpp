/// \file
/// \brief The stopping rule: minimum count, noise bound, time and sample caps.
#include <gtest/gtest.h>

#include <vector>

#include "bench/timing/stopping_rule.hpp"

namespace sortlab::bench::timing {
namespace {

/// count samples alternating around 1.0 with the given relative spread.
std::vector<double> samples_with_spread(std::size_t count, double spread) {
  std::vector<double> samples;
  for (std::size_t i = 0; i < count; ++i) samples.push_back(i % 2 ? 1.0 + spread : 1.0 - spread);
  return samples;
}

TEST(StoppingRule, NeverStopsBeforeTheMinimumCountEvenPastTheTimeCap) {
  const StoppingRule rule;  // 10 samples, 1%, 0.5 s
  EXPECT_GE(rule.min_samples, 10u);
  for (std::size_t count = 0; count < rule.min_samples; ++count)
    EXPECT_EQ(rule.decide(samples_with_spread(count, 0.0), 100.0), StopReason::kContinue) << count;
}

TEST(StoppingRule, StopsOnceTheNoiseIsUnderTheBound) {
  StoppingRule rule;
  rule.max_relative_noise = 0.01;
  EXPECT_EQ(rule.decide(samples_with_spread(10, 0.005), 0.0), StopReason::kConverged);
  EXPECT_EQ(rule.decide(samples_with_spread(10, 0.02), 0.0), StopReason::kContinue);
}

TEST(StoppingRule, NoisySamplesStopAtTheTimeCapOrTheSampleCap) {
  StoppingRule rule;
  rule.max_seconds = 0.5;
  rule.max_samples = 100;
  EXPECT_EQ(rule.decide(samples_with_spread(20, 0.05), 0.49), StopReason::kContinue);
  EXPECT_EQ(rule.decide(samples_with_spread(20, 0.05), 0.5), StopReason::kTimeCap);
  EXPECT_EQ(rule.decide(samples_with_spread(100, 0.05), 0.0), StopReason::kSampleCap);
}

TEST(StoppingRule, AnOutlierDoesNotKeepItSampling) {
  std::vector<double> samples = samples_with_spread(12, 0.001);
  samples[5] = 3.0;
  EXPECT_EQ(StoppingRule{}.decide(samples, 0.0), StopReason::kConverged);
}

TEST(StoppingRule, ReasonsHaveNames) {
  EXPECT_EQ(to_string(StopReason::kConverged), "converged");
  EXPECT_EQ(to_string(StopReason::kTimeCap), "time cap");
  EXPECT_EQ(to_string(StopReason::kSampleCap), "sample cap");
  EXPECT_EQ(to_string(StopReason::kContinue), "continue");
}

}  // namespace
}  // namespace sortlab::bench::timing
