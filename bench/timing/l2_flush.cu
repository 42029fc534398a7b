/// \file
/// \brief Implementation of the L2 flush.
#include <cstdint>

#include "bench/timing/buffer_plan.hpp"
#include "bench/timing/l2_flush.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {

namespace {

constexpr unsigned kReadThreads = 256;
constexpr unsigned kReadBlocksPerSm = 8;
/// A fold of the flush buffer that never occurs: the buffer holds one repeated byte, whose
/// 16-byte words fold (XOR of their four 32-bit parts, then XOR across a thread's words) to 0.
constexpr unsigned kImpossibleFold = 0x5eedf00du;

/// Reads every 16-byte word of \p words. The fold keeps the loads alive (the compiler cannot
/// know it never equals kImpossibleFold), and nothing is written, so the lines the read leaves
/// in the L2 are clean.
__global__ void __launch_bounds__(kReadThreads)
    read_every_word_kernel(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned fold = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 word = words[i];
    fold ^= word.x ^ word.y ^ word.z ^ word.w;
  }
  if (fold == kImpossibleFold) *sink = fold;
}

}  // namespace

std::size_t device_l2_bytes() {
  int device = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2_bytes);
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(l2_flush_bytes(l2_bytes)), sink_(1) {
  int device = 0, sms = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  read_blocks_ = static_cast<unsigned>(sms) * kReadBlocksPerSm;
  buffer_.fill_bytes(0);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flusher::flush(cudaStream_t stream, FlushMethod method) {
  if (method == FlushMethod::kWrite) {
    fill_value_ = (fill_value_ + 1) & 0xff;
    SORTLAB_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), fill_value_, buffer_.bytes(), stream));
    return;
  }
  // cudaMalloc aligns the buffer to 256 bytes; a tail of under 16 bytes (none for a 50 MiB L2)
  // is left unread.
  read_every_word_kernel<<<read_blocks_, kReadThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(buffer_.data()), buffer_.bytes() / sizeof(uint4),
      sink_.data());
  SORTLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace sortlab::bench::timing
