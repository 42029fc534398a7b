/// \file
/// \brief Implementation of the L2 flush.
#include "bench/timing/buffer_plan.hpp"
#include "bench/timing/l2_flush.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {

std::size_t device_l2_bytes() {
  int device = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2_bytes);
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(l2_flush_bytes(l2_bytes)) {}

void L2Flusher::flush(cudaStream_t stream) {
  fill_value_ = (fill_value_ + 1) & 0xff;
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), fill_value_, buffer_.bytes(), stream));
}

}  // namespace sortlab::bench::timing
