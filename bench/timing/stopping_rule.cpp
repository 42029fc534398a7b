/// \file
/// \brief Implementation of the stopping rule.
#include "bench/timing/stopping_rule.hpp"

#include <algorithm>

#include "bench/timing/sample_statistics.hpp"

namespace sortlab::bench::timing {

std::string to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kContinue:
      return "continue";
    case StopReason::kConverged:
      return "converged";
    case StopReason::kTimeCap:
      return "time cap";
    case StopReason::kSampleCap:
      return "sample cap";
  }
  return "unknown";
}

StopReason StoppingRule::decide(const std::vector<double>& samples, double elapsed_seconds) const {
  const std::size_t count = samples.size();
  if (count < std::max<std::size_t>(min_samples, 1)) return StopReason::kContinue;
  const std::size_t stride = std::max<std::size_t>(1, count / 50);
  const bool noise_due = count <= 4 * min_samples || count % stride == 0;
  if (noise_due && robust_relative_noise(samples) <= max_relative_noise)
    return StopReason::kConverged;
  if (count >= max_samples) return StopReason::kSampleCap;
  if (elapsed_seconds >= max_seconds) return StopReason::kTimeCap;
  return StopReason::kContinue;
}

}  // namespace sortlab::bench::timing
