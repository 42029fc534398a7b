/// \file
/// \brief StreamBlocker: holds a stream with a kernel that spins on a host-pinned flag while the
/// timed launches are queued behind it, then lets them run back to back. Without it each sample's
/// start event is recorded on an idle GPU and the host's launch gaps are timed with the work
/// (stage 01 measured 0.77 ms at 2^16 and 0.74 ms at 2^20 that way).
#pragma once

#include <cuda_runtime_api.h>

namespace sortlab::bench::timing {

/// One pinned release flag and one blocking kernel at a time.
class StreamBlocker {
 public:
  /// Allocates the pinned flags.
  /// \param timeout_seconds the blocking kernel gives up after this long, so a timed call that
  /// waits for the host (a synchronising CUDA call) cannot hang the GPU; timed_out() reports it
  explicit StreamBlocker(double timeout_seconds = 5.0);
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;
  ~StreamBlocker();

  /// Launches the blocking kernel on \p stream; work queued after it waits until release().
  /// \param stream the stream to hold
  void block(cudaStream_t stream);

  /// Lets the blocking kernel finish (and the work queued behind it run).
  void release();

  /// Whether the last blocking kernel gave up waiting instead of being released: the samples
  /// taken behind it may include host time. Valid once the stream has passed the kernel.
  bool timed_out() const;

 private:
  volatile int* release_flag_ = nullptr;    ///< pinned host memory the kernel polls
  volatile int* timed_out_flag_ = nullptr;  ///< pinned host memory the kernel sets on timeout
  unsigned long long timeout_ns_ = 0;
};

}  // namespace sortlab::bench::timing
