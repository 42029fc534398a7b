/// \file
/// \brief Asking the L2 cache to fetch a range of global memory ahead of its use, with no
/// register held and no thread waiting (Hopper's bulk prefetch, `cp.async.bulk.prefetch.L2`).
///
/// A block that must do latency-bound work before it reads its share of an array (scattered
/// loads of a sample, then barriers, say) leaves DRAM idle meanwhile, and then waits for the
/// array's bytes once the work is done. A prefetch issued first lets the copy engine bring those
/// bytes into the L2 while the block works, so the later reads come from the L2. It is only a
/// hint: nothing waits for it, a later write to the range stays correct (the L2 is where global
/// memory's writes meet), and a range the L2 cannot hold is simply fetched again.
///
/// \code
/// prefetch_to_l2(span, span_bytes);  // one warp: lane 0..31 issue the range's pieces
/// ...                                // latency-bound work that does not read span
/// read(span);                        // mostly from the L2
/// \endcode
#pragma once

#include <cstddef>
#include <cstdint>

namespace sortlab {

/// Bytes one bulk prefetch asks for: a range is cut into pieces of this size, one per lane, so a
/// warp's span of up to 128 KiB goes out in one instruction per lane (not measured against other
/// sizes).
inline constexpr std::size_t kL2PrefetchPieceBytes = 4096;

/// Starts fetching the 16-byte-aligned inside of `[first, first + bytes)` into the L2 (the
/// bulk prefetch needs 16-byte-aligned addresses and sizes; the few bytes outside stay
/// unfetched, and nothing outside the range is touched). Call it from every lane of one warp
/// (each lane issues every 32nd piece of kL2PrefetchPieceBytes); the call returns at once. On
/// architectures before sm_90 it does nothing.
/// \param first first byte of the range, in global memory
/// \param bytes length of the range
__device__ __forceinline__ void prefetch_to_l2(const void* first, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const std::size_t start = __cvta_generic_to_global(first);
  const std::size_t begin = (start + 15) & ~std::size_t{15};
  const std::size_t end = (start + bytes) & ~std::size_t{15};
  const unsigned lane = threadIdx.x & 31u;
  for (std::size_t piece = begin + lane * kL2PrefetchPieceBytes; piece < end;
       piece += 32 * kL2PrefetchPieceBytes) {
    const std::size_t left = end - piece;
    const auto size =
        static_cast<std::uint32_t>(left < kL2PrefetchPieceBytes ? left : kL2PrefetchPieceBytes);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(piece), "r"(size) : "memory");
  }
#else
  (void)first;
  (void)bytes;
#endif
}

}  // namespace sortlab
