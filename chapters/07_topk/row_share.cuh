/// \file
/// \brief One thread's share of a row span, read with 16-byte loads: the read phase of the
/// reductions that replace the radix select for small k (argmax_rows.cuh, queue_rows.cuh).
#pragma once

#include <cstdint>
#include <cstring>

namespace sortlab::stage07 {

/// Phase **read** for thread \p thread of \p kThreads that share `row[begin, end)`: calls
/// `take(value, column)` for each value of its share. The span is read as 16-byte vectors from
/// its first 16-byte boundary on (\p kVectors of them in flight per thread, thread t taking
/// vectors t, t + kThreads, ...); the values before that boundary and after the last whole vector
/// are read one per thread. (Each thread visits its columns in increasing order, head, vectors,
/// tail; the reductions do not rely on it: their comparisons include the column.)
template <typename T, int kThreads, int kVectors, typename Take>
__device__ __forceinline__ void visit_share(const T* row, std::uint32_t begin, std::uint32_t end,
                                            std::uint32_t thread, Take&& take) {
  constexpr std::uint32_t kPerVector = sizeof(uint4) / sizeof(T);
  static_assert(kThreads >= static_cast<int>(kPerVector), "one thread per value of the head");
  const T* values = row + begin;
  const std::uint32_t size = end > begin ? end - begin : 0u;
  const auto address = reinterpret_cast<std::uintptr_t>(values);
  std::uint32_t head = static_cast<std::uint32_t>((sizeof(uint4) - address % sizeof(uint4)) %
                                                  sizeof(uint4) / sizeof(T));
  head = head < size ? head : size;
  if (thread < head) take(values[thread], begin + thread);
  const std::uint32_t vectors = (size - head) / kPerVector;
  const uint4* body = reinterpret_cast<const uint4*>(values + head);
  const std::uint32_t body_column = begin + head;
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
      const std::uint32_t column =
          body_column + (v + static_cast<std::uint32_t>(u) * kThreads) * kPerVector;
#pragma unroll
      for (std::uint32_t e = 0; e < kPerVector; ++e) take(items[e], column + e);
    }
  }
  for (; v < vectors; v += kThreads) {
    const uint4 loaded = body[v];
    T items[kPerVector];
    memcpy(items, &loaded, sizeof(uint4));
#pragma unroll
    for (std::uint32_t e = 0; e < kPerVector; ++e) take(items[e], body_column + v * kPerVector + e);
  }
  const std::uint32_t tail = head + vectors * kPerVector + thread;
  if (tail < size) take(values[tail], begin + tail);
}

}  // namespace sortlab::stage07
