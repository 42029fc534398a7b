/// \file
/// \brief When to stop taking timing samples: once the noise is low enough, with a minimum sample
/// count and a cap on time and samples. Plain C++, unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sortlab::bench::timing {

/// Why a measurement stopped (or that it should go on).
enum class StopReason {
  kContinue,   ///< take another sample
  kConverged,  ///< at least min_samples and the relative noise is at most max_relative_noise
  kTimeCap,    ///< at least min_samples, but max_seconds of sampling are spent (noise too high)
  kSampleCap,  ///< max_samples taken (noise too high)
};

/// Short name of a stop reason ("converged", "time cap", ...) for logs and the JSON.
/// \param reason the reason
std::string to_string(StopReason reason);

/// The stopping rule: sample until the robust relative noise (robust_relative_noise()) of the
/// samples is at most max_relative_noise, but never fewer than min_samples (a median of one or
/// two samples is no median) and never past max_seconds of sampling or max_samples samples.
/// The minimum count wins over the time cap: a 130 ms sort still gets its min_samples.
struct StoppingRule {
  std::size_t min_samples = 10;      ///< never stop before this many samples
  std::size_t max_samples = 10000;   ///< never take more
  double max_relative_noise = 0.01;  ///< converged at or below this noise (0.01 = 1%)
  double max_seconds = 0.5;          ///< wall-clock cap on the sampling of one benchmark

  /// Whether to stop after \p samples, \p elapsed_seconds into the sampling. The noise is
  /// recomputed at every sample up to 4 × min_samples, then about every 2% of the count (it
  /// costs a sort of the samples), so a long measurement stays linear-ish in its sample count.
  /// \param samples the samples so far
  /// \param elapsed_seconds wall-clock seconds since the first timed sample started
  StopReason decide(const std::vector<double>& samples, double elapsed_seconds) const;
};

}  // namespace sortlab::bench::timing
