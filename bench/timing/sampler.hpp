/// \file
/// \brief Sampler: the timing core of every sortlab benchmark. Each sample flushes the L2 outside
/// the timed region, then times one call on rotating inputs with CUDA events, laid out as the
/// TimingMode says; samples are taken until the StoppingRule is satisfied.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "bench/timing/l2_flush.hpp"
#include "bench/timing/sample_statistics.hpp"
#include "bench/timing/stopping_rule.hpp"
#include "bench/timing/stream_blocker.hpp"
#include "bench/timing/timing_mode.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {

/// Thrown by Sampler::measure() when a blocking kernel timed out: the timed call waited for the
/// host, so the stream could not be held while it was queued.
class BlockingTimeout : public Error {
 public:
  using Error::Error;
};

/// How to sample.
struct SamplerOptions {
  TimingMode mode = TimingMode::kBlocking;        ///< layout of the timed region
  bool flush_l2 = true;                           ///< flush the L2 before every sample
  FlushMethod flush_method = FlushMethod::kRead;  ///< how (reading leaves no dirty lines)
  StoppingRule rule;                              ///< when to stop
  /// Untimed calls first: they load the call's kernels (lazy loading would otherwise synchronise
  /// the context inside a held region) and touch its memory. At least 1 with kBlocking/kGraph.
  int warmup_calls = 2;
};

/// The work of one sample: queue the call on \p stream, reading input set \p slot. It must not
/// synchronise with the host (the stream is held while it is queued) and, for kGraph, must be
/// capturable.
using Launch = std::function<void(cudaStream_t stream, std::size_t slot)>;

/// The result of one measurement.
struct Measurement {
  SampleSummary summary;                    ///< statistics of the samples (milliseconds)
  StopReason stop = StopReason::kContinue;  ///< why sampling stopped
  std::vector<double> samples_ms;           ///< every sample, in the order taken
};

/// Owns the stream, the L2 flush buffer, the blocking kernel's flags and the events. One per
/// process (shared_sampler()); every benchmark queues its work on stream().
class Sampler {
 public:
  /// Creates the stream and events and allocates the flush buffer for this device's L2.
  /// \param blocker_timeout_seconds how long a blocking kernel waits for its release before it
  /// gives up (StreamBlocker)
  explicit Sampler(double blocker_timeout_seconds = 5.0);
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler();

  /// The stream the timed work must be queued on.
  cudaStream_t stream() const { return stream_; }

  /// This GPU's L2 size in bytes.
  std::size_t l2_bytes() const { return l2_bytes_; }

  /// Times \p launch: warm-up calls, then one call per sample on input sets 0, 1, ...,
  /// slots − 1, 0, ... until options.rule says stop. Throws BlockingTimeout when a blocking
  /// kernel timed out (the call waited for the host), sortlab::Error when a CUDA call failed.
  /// \param launch the work of one sample
  /// \param slots number of rotating input sets launch accepts
  /// \param options mode, flush, stopping rule
  Measurement measure(const Launch& launch, std::size_t slots, const SamplerOptions& options);

 private:
  /// One timed sample of launch(stream, slot) in the given mode; graph is used by kGraph.
  double sample(const Launch& launch, std::size_t slot, const SamplerOptions& options,
                cudaGraphExec_t graph);

  cudaStream_t stream_{};
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
  std::size_t l2_bytes_ = 0;
  std::unique_ptr<L2Flusher> flusher_;
  std::unique_ptr<StreamBlocker> blocker_;
};

/// The process-wide sampler, created on first use.
Sampler& shared_sampler();

}  // namespace sortlab::bench::timing
