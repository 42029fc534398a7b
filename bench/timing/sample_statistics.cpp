/// \file
/// \brief Implementation of the sample statistics.
#include "bench/timing/sample_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

/// Scales a median absolute deviation to a standard deviation for normally distributed samples.
constexpr double kMadToStandardDeviation = 1.4826;

/// Median of samples that need not be sorted (the vector is reordered).
double median_of(std::vector<double>& samples) {
  std::sort(samples.begin(), samples.end());
  return percentile(samples, 0.5);
}

}  // namespace

double percentile(const std::vector<double>& sorted_samples, double fraction) {
  require(!sorted_samples.empty(), "percentile: no samples");
  require(fraction >= 0.0 && fraction <= 1.0, "percentile: fraction must be in [0, 1]");
  const double rank = fraction * static_cast<double>(sorted_samples.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, sorted_samples.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return sorted_samples[below] + weight * (sorted_samples[above] - sorted_samples[below]);
}

double robust_relative_noise(std::vector<double> samples) {
  if (samples.size() < 2) return 0.0;
  const double median = median_of(samples);
  if (median == 0.0) return 0.0;
  for (double& sample : samples) sample = std::fabs(sample - median);
  return kMadToStandardDeviation * median_of(samples) / std::fabs(median);
}

SampleSummary summarize(std::vector<double> samples) {
  require(!samples.empty(), "summarize: no samples");
  std::sort(samples.begin(), samples.end());
  SampleSummary summary;
  summary.count = samples.size();
  summary.min = samples.front();
  summary.max = samples.back();
  summary.p10 = percentile(samples, 0.1);
  summary.median = percentile(samples, 0.5);
  summary.p90 = percentile(samples, 0.9);
  summary.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  summary.relative_noise = robust_relative_noise(std::move(samples));
  return summary;
}

}  // namespace sortlab::bench::timing
