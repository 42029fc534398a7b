/// \file
/// \brief Statistics of timing samples: percentiles, a robust noise estimate and the summary every
/// benchmark row reports (median, min, p10, p90, sample count). Plain C++, unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <vector>

namespace sortlab::bench::timing {

/// What a set of timing samples says. All times in the samples' unit (milliseconds in sortlab).
struct SampleSummary {
  std::size_t count = 0;        ///< number of samples
  double min = 0.0;             ///< fastest sample
  double p10 = 0.0;             ///< 10th percentile
  double median = 0.0;          ///< 50th percentile: the figure the tables show
  double p90 = 0.0;             ///< 90th percentile
  double max = 0.0;             ///< slowest sample
  double mean = 0.0;            ///< arithmetic mean
  double relative_noise = 0.0;  ///< robust_relative_noise() of the samples
};

/// The \p fraction quantile (0 = min, 0.5 = median, 1 = max) of samples sorted ascending, by
/// linear interpolation between the two closest ranks (NumPy's default), so p10 and p90 of a few
/// samples still lie between real samples. Throws sortlab::Error on an empty list or a fraction
/// outside [0, 1].
/// \param sorted_samples the samples, ascending
/// \param fraction which quantile, in [0, 1]
double percentile(const std::vector<double>& sorted_samples, double fraction);

/// Relative noise of the samples, robust to the rare slow outlier a GPU timing set has:
/// 1.4826 × median absolute deviation / median (1.4826 makes the MAD equal the standard deviation
/// for normally distributed samples, so 0.01 reads as "1% standard deviation"). 0 for fewer than
/// two samples or a zero median.
/// \param samples the samples, in any order
double robust_relative_noise(std::vector<double> samples);

/// Summary of the samples. Throws sortlab::Error on an empty list.
/// \param samples the samples, in any order
SampleSummary summarize(std::vector<double> samples);

}  // namespace sortlab::bench::timing
