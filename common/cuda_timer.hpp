/// \file
/// \brief CudaEventTimer: time GPU work on a stream with CUDA events (not host clocks).
#pragma once

#include <cuda_runtime_api.h>

#include "common/errors.hpp"

namespace sortlab {

/// Records a start and a stop event on a stream; elapsed_ms() waits for the stop event.
class CudaEventTimer {
 public:
  CudaEventTimer() {
    SORTLAB_CUDA_CHECK(cudaEventCreate(&start_));
    SORTLAB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  ~CudaEventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  /// Marks the start of the timed region on \p stream.
  void start(cudaStream_t stream = nullptr) { SORTLAB_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  /// Marks the end of the timed region on \p stream.
  void stop(cudaStream_t stream = nullptr) { SORTLAB_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

  /// Milliseconds between start() and stop(); blocks until the stop event has happened.
  float elapsed_ms() const {
    SORTLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    SORTLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

}  // namespace sortlab
