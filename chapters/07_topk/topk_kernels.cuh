/// \file
/// \brief Stage 07 kernel: one block per row finds the row's k-th best value by radix select,
/// gathers the answers with block-wide exclusive scans, and (when asked) sorts them with stage
/// 05's block radix sort.
///
/// Everything but the row itself lives on chip: the 256 digit counters, the prefix fixed so far
/// and the running output offsets are in shared memory. The row is read once per digit (four
/// times for 32-bit values) and once more for the gather; the output is written once (twice
/// when sorted: the sort reads the block's own unsorted answers back).
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/07_topk/select_digits.hpp"
#include "chapters/07_topk/select_key.hpp"
#include "chapters/07_topk/topk.hpp"
#include "common/block_scan.cuh"

namespace sortlab::stage07 {

static_assert(kBlockThreads == kNumDigits, "one thread per digit when choosing the digit");

/// What one launch reads and writes.
template <typename T>
struct TopkArrays {
  const T* values_in;         ///< num_rows x row_length, row-major
  T* values_out;              ///< num_rows x k (read back by the sort: not __restrict__)
  std::int64_t* indices_out;  ///< num_rows x k
  std::uint32_t row_length;   ///< values per row
  std::uint32_t k;            ///< values per row to pick, 1 .. row_length
  bool largest;               ///< the k largest (false: the k smallest)
  bool sorted;                ///< sort the k answers (k <= kMaxSortedK)
};

/// Digit width of the block sort's passes: 6, as stage 06's block sort (8-bit digits would need
/// more packed counters than a 256-thread block's rank tickets can address).
inline constexpr int kSortRadixBits = 6;

/// The block sort that orders the k answers: it sorts their select bits (not the values, whose
/// order has the NaN and -0.0 rules of select_key.hpp) with each answer's slot as the value.
template <typename Bits>
using AnswerSort =
    stage05::BlockRadixSort<Bits, kBlockThreads, kSortKeysPerThread, std::uint32_t, kSortRadixBits>;

/// Shared memory of the kernel. The select and gather state is dead once the sort starts, so the
/// sort's storage shares its bytes.
template <typename Bits>
union TopkStorage {
  /// The radix select's and the gather's state.
  struct Select {
    std::uint32_t counts[kNumDigits];           ///< this pass's digit histogram
    BlockScanStorage<kBlockThreads> scan;       ///< scratch of the block scans
    Bits desired;                               ///< the prefix fixed so far (SelectPrefix)
    Bits mask;                                  ///< which bits are fixed
    std::uint32_t k_left;                       ///< rank of the k-th value among the candidates
  } select;                                     ///< used by the radix select and the gather
  typename AnswerSort<Bits>::TempStorage sort;  ///< while sorting the answers
};

/// Radix select of one row (all threads of the block call it): after it, `storage.desired` is
/// the k-th best value's select bits and `storage.k_left` how many values equal to it the
/// answer takes. Per pass: zero the counters, count the digit of every value that matches the
/// prefix (shared atomics), then thread t takes digit 255 - t and one exclusive scan tells each
/// thread how many candidates have larger digits; the one thread whose bucket reaches the k-th
/// candidate fixes its digit and narrows k.
template <typename T>
__device__ __forceinline__ void radix_select_row(
    const T* row, std::uint32_t row_length, std::uint32_t k, bool largest,
    typename TopkStorage<typename SelectKey<T>::Bits>::Select& storage) {
  using Bits = typename SelectKey<T>::Bits;
  if (threadIdx.x == 0) {
    storage.desired = 0;
    storage.mask = 0;
    storage.k_left = k;
  }
#pragma unroll 1
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
    storage.counts[threadIdx.x] = 0;
    __syncthreads();  // counters zeroed; the prefix of the previous pass is visible
    SelectPrefix<Bits> prefix;
    prefix.desired = storage.desired;
    prefix.mask = storage.mask;
    for (std::uint32_t i = threadIdx.x; i < row_length; i += kBlockThreads) {
      const Bits bits = SelectKey<T>::bits(row[i], largest);
      if (prefix.matches(bits)) atomicAdd(storage.counts + digit_at(bits, shift), 1u);
    }
    __syncthreads();
    const std::uint32_t digit = static_cast<std::uint32_t>(kNumDigits - 1) - threadIdx.x;
    const std::uint32_t count = storage.counts[digit];
    const std::uint32_t k_left = storage.k_left;
    std::uint32_t total = 0;
    // Candidates with a larger digit than this thread's: they are better than the k-th value.
    const std::uint32_t above = block_exclusive_sum<kBlockThreads>(count, storage.scan, total);
    if (above < k_left && above + count >= k_left) {  // exactly one thread: this bucket
      prefix.fix(digit, shift);
      storage.desired = prefix.desired;
      storage.mask = prefix.mask;
      storage.k_left = k_left - above;
    }
    // block_exclusive_sum ended with a barrier after everyone read k_left, and the next pass
    // (or the caller) starts with one before reading the new prefix.
  }
  __syncthreads();
}

/// One block per row: radix select, gather, optional sort. Launch num_rows blocks of
/// kBlockThreads threads.
///
/// The gather walks the row in chunks of kBlockThreads values, in column order. Each thread
/// flags its value as better than the k-th value ("beyond") or equal to it, and one exclusive
/// scan of both flags packed into one word (beyond in the low 16 bits, equal in the high 16; a
/// chunk has at most 256 of each) gives every flagged value its place among the chunk's: beyond
/// values go to the running beyond offset, equal ones after all `beyond` answers as long as
/// fewer than `k_left` have been taken. The answers therefore come out in column order within
/// each kind, the same on every run. The walk stops once every answer is written.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) topk_rows_kernel(TopkArrays<T> arrays) {
  using Bits = typename SelectKey<T>::Bits;
  __shared__ TopkStorage<Bits> storage;
  const std::size_t row_index = blockIdx.x;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  T* values_out = arrays.values_out + row_index * arrays.k;
  std::int64_t* indices_out = arrays.indices_out + row_index * arrays.k;

  radix_select_row<T>(row, arrays.row_length, arrays.k, arrays.largest, storage.select);
  const Bits kth_bits = storage.select.desired;
  const std::uint32_t equal_wanted = storage.select.k_left;
  const std::uint32_t beyond_wanted = arrays.k - equal_wanted;

  std::uint32_t beyond_done = 0, equal_done = 0;  // the same in every thread
  for (std::uint32_t chunk = 0; chunk < arrays.row_length; chunk += kBlockThreads) {
    if (beyond_done == beyond_wanted && equal_done >= equal_wanted) break;  // block-uniform
    const std::uint32_t column = chunk + threadIdx.x;
    T value{};
    bool beyond = false, equal = false;
    if (column < arrays.row_length) {
      value = row[column];
      const Bits bits = SelectKey<T>::bits(value, arrays.largest);
      beyond = bits > kth_bits;
      equal = bits == kth_bits;
    }
    const std::uint32_t flags = (beyond ? 1u : 0u) | (equal ? 1u << 16 : 0u);
    std::uint32_t totals = 0;
    const std::uint32_t before =
        block_exclusive_sum<kBlockThreads>(flags, storage.select.scan, totals);
    std::uint32_t at = arrays.k;  // k: not an answer
    if (beyond) {
      at = beyond_done + (before & 0xffffu);
    } else if (equal) {
      const std::uint32_t equal_rank = equal_done + (before >> 16);
      if (equal_rank < equal_wanted) at = beyond_wanted + equal_rank;
    }
    if (at < arrays.k) {
      values_out[at] = value;
      indices_out[at] = static_cast<std::int64_t>(column);
    }
    beyond_done += totals & 0xffffu;
    equal_done += totals >> 16;
  }
  if (!arrays.sorted || arrays.k == 1) return;

  // Sort the answers, best first. The block reads back what it just wrote (the barrier makes
  // its global writes visible to the whole block), sorts the select bits with each answer's
  // slot, reads every answer at its slot, waits until all are read, and writes them in order.
  // The unsorted order is (beyond, then equal), each in column order, and the sort is stable,
  // so equal values end in column order: the documented tie rule.
  __syncthreads();
  using Sort = AnswerSort<Bits>;
  Bits keys[kSortKeysPerThread];
  std::uint32_t slots[kSortKeysPerThread];
#pragma unroll
  for (int i = 0; i < kSortKeysPerThread; ++i) {
    const std::uint32_t slot = threadIdx.x * kSortKeysPerThread + static_cast<std::uint32_t>(i);
    // Padding past k sorts last (all-zero bits in a descending sort): a real answer with zero
    // bits comes earlier in the tile, and the stable sort keeps it before the padding.
    keys[i] = slot < arrays.k ? SelectKey<T>::bits(values_out[slot], arrays.largest) : Bits{0};
    slots[i] = slot;
  }
  Sort(storage.sort).sort_blocked_to_striped(keys, slots, /*descending=*/true);
  T sorted_values[kSortKeysPerThread];
  std::int64_t sorted_indices[kSortKeysPerThread];
#pragma unroll
  for (int i = 0; i < kSortKeysPerThread; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    if (p < arrays.k) {
      sorted_values[i] = values_out[slots[i]];
      sorted_indices[i] = indices_out[slots[i]];
    }
  }
  __syncthreads();  // every answer is read before any is overwritten
#pragma unroll
  for (int i = 0; i < kSortKeysPerThread; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    if (p < arrays.k) {
      values_out[p] = sorted_values[i];
      indices_out[p] = sorted_indices[i];
    }
  }
}

}  // namespace sortlab::stage07
