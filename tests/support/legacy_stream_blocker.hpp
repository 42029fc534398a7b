/// \file
/// \brief LegacyStreamBlocker: hold the legacy default stream busy until released, to prove that
/// a sort on another stream never waits on it.
///
/// A kernel on the legacy stream spins on a flag in pinned host memory. Anything the code under
/// test queues on the legacy stream (a launch on stream 0, cudaMemset, cudaMemcpy) or any call
/// that waits for the whole device (cudaDeviceSynchronize, cudaFree) then cannot finish until
/// the flag is set. A watchdog thread sets the flag after a deadline, so such a bug makes the
/// test fail with a message instead of hanging it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "tests/support/test_inputs.hpp"

namespace sortlab::testing {

/// Blocks the legacy default stream from construction until release() (or the watchdog).
class LegacyStreamBlocker {
 public:
  /// Launches the spinning kernel on the legacy stream and starts the watchdog.
  /// \param watchdog_seconds after this long the watchdog releases the kernel by itself
  explicit LegacyStreamBlocker(double watchdog_seconds = 20.0);
  LegacyStreamBlocker(const LegacyStreamBlocker&) = delete;
  LegacyStreamBlocker& operator=(const LegacyStreamBlocker&) = delete;
  /// Releases the kernel (if still held) and waits for it and for the watchdog.
  ~LegacyStreamBlocker();

  /// Releases the kernel. Returns true when this call released it, false when the watchdog had
  /// to (the code under test waited on the legacy stream or on the whole device).
  bool release();

  /// Whether the spinning kernel is still running (queried without waiting).
  bool still_blocking() const;

 private:
  volatile int* host_flag_ = nullptr;  ///< pinned, mapped: the kernel reads it
  int* device_flag_ = nullptr;         ///< the kernel's view of host_flag_
  std::mutex mutex_;
  std::condition_variable released_;
  bool released_by_caller_ = false;
  bool watchdog_fired_ = false;
  std::thread watchdog_;
};

/// Runs \p action (host code that queues GPU work and waits for it, such as a trace function)
/// while the legacy stream is blocked. Returns true when the action finished on its own, with
/// the legacy stream still held: it neither queued work there nor waited for the whole device.
/// \param action the code under test (run twice)
/// The action runs once unblocked first: CUDA loads kernels lazily, and loading one may
/// synchronise the whole context, which would wait for the spinning kernel forever.
template <typename Action>
bool finishes_while_the_legacy_stream_is_blocked(Action&& action) {
  action();
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  LegacyStreamBlocker blocker;
  action();
  const bool still_held = blocker.still_blocking();
  return blocker.release() && still_held;
}

/// The check every stage's trace function must pass: `trace(keys)` (a stage's trace_pass over
/// 5000 uniform u32 keys) finishes while the legacy stream is held, and its keys_out is complete
/// (a permutation of the input, so no poison was left unwritten).
/// \param trace callable taking `const std::vector<std::uint32_t>&` and returning a PassTrace
template <typename Trace>
void expect_trace_never_waits_on_the_legacy_stream(Trace&& trace) {
  const auto keys = generate_keys<std::uint32_t>(Distribution::kUniform, 5000, test_seed());
  decltype(trace(keys)) result;
  EXPECT_TRUE(finishes_while_the_legacy_stream_is_blocked([&] { result = trace(keys); }))
      << "the trace waited on the legacy stream or on the whole device";
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(result.keys_out.size(), keys.size());
  EXPECT_TRUE(std::is_permutation(result.keys_out.begin(), result.keys_out.end(), keys.begin()))
      << "the trace's keys_out is not a permutation of its input (unwritten poison?)";
}

}  // namespace sortlab::testing
