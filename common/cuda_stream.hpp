/// \file
/// \brief CudaStream: an owning RAII wrapper around a non-blocking CUDA stream.
#pragma once

#include <cuda_runtime_api.h>

#include "common/errors.hpp"

namespace sortlab {

/// A stream created with cudaStreamNonBlocking: work on it never waits for, and never holds
/// up, the legacy default stream. Destroyed (after its work completes) with the object.
class CudaStream {
 public:
  CudaStream() { SORTLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() { cudaStreamDestroy(stream_); }

  /// The stream handle.
  cudaStream_t get() const noexcept { return stream_; }

  /// Waits for all work queued on this stream (and only this stream).
  void synchronize() const { SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_{};
};

}  // namespace sortlab
