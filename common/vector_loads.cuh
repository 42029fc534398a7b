/// \file
/// \brief A block reading an array once, with 16-byte loads and several of them in flight per
/// thread: the access pattern of every pass that only counts (stage 06's large segments, stage
/// 07's digit passes).
///
/// A loop that loads one value per thread and uses it before the next load keeps one 4-byte
/// request per thread in flight. By Little's law that caps a whole H100 at a few hundred GB/s
/// (about 1,000 threads per SM x 4 bytes / ~1 us of latency x 132 SMs): stage 07's count phase
/// ran at 345-380 GB/s of its input that way. Issuing kVectors 16-byte loads per thread before
/// using any of them puts 16 x kVectors times the bytes in flight.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/word_split.hpp"

namespace sortlab {

/// Calls `visit(values[i], i)` for every i in [0, size) that thread \p thread of \p kThreads
/// owns (every one of the kThreads must call it with the same array for every i to be visited
/// once). The values from the first 16-byte boundary on are read as 16-byte vectors, thread t
/// taking vectors t, t + kThreads, ..., kVectors of them issued before the first is visited; the
/// few values before that boundary and after the last whole vector are read one per thread.
/// Each thread visits its indices in increasing order. \p values needs only the alignment of T.
/// The loads are plain (not read-only cache loads), so the array may be one the block wrote
/// earlier in the same kernel, once a barrier orders those writes; it may live in shared memory
/// too.
/// \param values the array, aligned to sizeof(T)
/// \param size its length
/// \param thread this thread's index among the kThreads (threadIdx.x for a whole 1-D block; a
///        lane's index in its group where groups of lanes share arrays)
/// \param visit called with each value (a `const T&`) and its index in the array
template <int kThreads, int kVectors, typename T, typename Visit>
__device__ __forceinline__ void for_each_value_of_thread(const T* values, std::uint32_t size,
                                                         std::uint32_t thread, Visit&& visit) {
  constexpr std::uint32_t kPerVector = WordSplit<sizeof(T)>::kPerWord;
  static_assert(kVectors >= 1, "at least one load in flight");
  static_assert(kThreads >= static_cast<int>(kPerVector), "one thread per value of the tail");
  const WordSplit<sizeof(T)> split = split_at_words(values, size);
  const std::uint32_t head = split.head;
  if (thread < head) visit(values[thread], thread);
  const std::uint32_t vectors = split.words;
  const uint4* body = reinterpret_cast<const uint4*>(values + head);
  std::uint32_t v = thread;
  for (; v + (kVectors - 1) * kThreads < vectors; v += kVectors * kThreads) {
    uint4 loaded[kVectors];
#pragma unroll
    for (int u = 0; u < kVectors; ++u)
      loaded[u] = body[v + static_cast<std::uint32_t>(u) * kThreads];
#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
      T items[kPerVector];
      memcpy(items, &loaded[u], sizeof(uint4));
      const std::uint32_t first =
          head + (v + static_cast<std::uint32_t>(u) * kThreads) * kPerVector;
#pragma unroll
      for (std::uint32_t e = 0; e < kPerVector; ++e) visit(items[e], first + e);
    }
  }
  for (; v < vectors; v += kThreads) {
    const uint4 loaded = body[v];
    T items[kPerVector];
    memcpy(items, &loaded, sizeof(uint4));
#pragma unroll
    for (std::uint32_t e = 0; e < kPerVector; ++e) visit(items[e], head + v * kPerVector + e);
  }
  // Fewer than kPerVector values after the last whole vector.
  const std::uint32_t tail = split.tail_begin() + thread;
  if (tail < size) visit(values[tail], tail);
}

/// Calls `visit(values[i])` once for every i in [0, size), from all kThreads threads of a 1-D
/// block (all of them must call it; the calls are spread over the threads in no promised
/// order): for_each_value_of_thread() with thread threadIdx.x.
/// \param values the array, aligned to sizeof(T)
/// \param size its length
/// \param visit called with each value (a `const T&`)
template <int kThreads, int kVectors, typename T, typename Visit>
__device__ __forceinline__ void block_for_each_value(const T* values, std::uint32_t size,
                                                     Visit&& visit) {
  for_each_value_of_thread<kThreads, kVectors>(
      values, size, threadIdx.x, [&](const T& value, std::uint32_t) { visit(value); });
}

}  // namespace sortlab
