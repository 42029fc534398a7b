/// \file
/// \brief ScratchAllocator: hands Thrust's temporary allocations out of the benchmark's scratch
/// buffer, so a timed thrust::sort does no cudaMalloc / cudaFree (and no synchronisation).
#pragma once

#include <cstddef>
#include <string>

#include "common/errors.hpp"

namespace sortlab::bench {

/// A bump allocator over one caller-owned device buffer, in the shape Thrust's execution
/// policies accept (`thrust::cuda::par_nosync(allocator)`). deallocate() does nothing: the
/// buffer is reused by the next run, which builds a new allocator over it.
class ScratchAllocator {
 public:
  /// Thrust allocates bytes.
  using value_type = char;

  /// An allocator over \p size bytes at \p base (device memory).
  /// \param base start of the scratch buffer
  /// \param size bytes available
  ScratchAllocator(void* base, std::size_t size) : base_(static_cast<char*>(base)), size_(size) {}

  /// Next \p bytes of the buffer, 256-byte aligned; throws sortlab::Error when it is used up.
  /// \param bytes bytes wanted
  char* allocate(std::ptrdiff_t bytes) {
    const std::size_t start = (used_ + kAlignment - 1) / kAlignment * kAlignment;
    const std::size_t wanted = static_cast<std::size_t>(bytes);
    require(start + wanted <= size_,
            "ScratchAllocator: Thrust asked for " + std::to_string(wanted) + " bytes at offset " +
                std::to_string(start) + " of a " + std::to_string(size_) +
                "-byte scratch; raise the scratch estimate of this baseline");
    used_ = start + wanted;
    return base_ + start;
  }

  /// Nothing to free: the whole buffer is reused by the next run.
  /// \param pointer an allocation (ignored)
  /// \param bytes its size (ignored)
  void deallocate([[maybe_unused]] char* pointer, [[maybe_unused]] std::size_t bytes) noexcept {}

  /// Rounds \p bytes up to the allocator's alignment (for scratch estimates).
  /// \param bytes a size in bytes
  static constexpr std::size_t aligned(std::size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

 private:
  static constexpr std::size_t kAlignment = 256;
  char* base_;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace sortlab::bench
