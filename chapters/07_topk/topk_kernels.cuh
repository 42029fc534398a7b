/// \file
/// \brief Stage 07 kernels, written as named phases that both schedules share:
/// - **count**: the digits of a span's candidates (values matching the prefix fixed so far) into
///   256 shared counters;
/// - **choose digit**: one block scan of the row's 256 counts, from digit 255 down, finds the
///   bucket of the k-th candidate, fixes its digit and narrows k;
/// - **filter** (several blocks per row): while counting, a block also copies the entries the
///   next pass needs (value and column, in column order) into its row's candidate list, so that
///   the next pass, and the gather, read the list instead of the row;
/// - **gather**: a span (or a block's candidate list) is read in chunks of 256 entries and every
///   value better than the k-th ("beyond") or equal to it gets its output slot from a block scan;
/// - **sort** (when asked): stage 05's block radix sort orders a row's k answers.
///
/// One block per row (topk_rows_kernel) runs them all in shared memory: the row is read once
/// per digit (four times for 32-bit values) and once more for the gather, until a pass's kept
/// entries fit its shared candidate list (kOneBlockListEntries), from which the later passes
/// and the gather read instead. Several blocks per row
/// (topk_count_pass_kernel, topk_gather_kernel, topk_sort_rows_kernel) keep per-block counts,
/// tallies, the row's prefix and its candidate lists in the caller's scratch; the last block of a
/// row to finish a pass chooses the digit for the whole row and decides whether the next pass
/// filters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/select_digits.hpp"
#include "chapters/07_topk/select_key.hpp"
#include "chapters/07_topk/topk.hpp"
#include "common/block_scan.cuh"
#include "common/chained_launch.cuh"
#include "common/vector_loads.cuh"

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
  SamplePlan sample;          ///< one block per row's sample read (may be disabled)
};

/// The block sort of tile \p kTile (kSortTiles) that orders the k answers: it sorts their select
/// bits (not the values, whose order has the NaN and -0.0 rules of select_key.hpp) with each
/// answer's slot as the value. (8-bit digits would need more packed counters than a 256-thread
/// block's rank tickets can address: at most 6.)
template <typename Bits, int kTile>
using AnswerSort = stage05::BlockRadixSort<Bits, kBlockThreads, kSortTiles[kTile].keys_per_thread,
                                           std::uint32_t, kSortTiles[kTile].radix_bits>;

/// Shared memory of the rank sort of tile 0 (at most 256 answers): their select bits.
template <typename Bits>
struct FewAnswersStorage {
  Bits bits[kSortTile0Keys];  ///< answer i's select bits
};

/// Shared memory of the answer sort: the tiles are never live at once.
template <typename Bits>
union AnswerSortStorage {
  FewAnswersStorage<Bits> tile0;                    ///< 256 keys (rank sort)
  typename AnswerSort<Bits, 1>::TempStorage tile1;  ///< 1024 keys
  typename AnswerSort<Bits, 2>::TempStorage tile2;  ///< 2048 keys
};
static_assert(kNumSortTiles == 3,
              "AnswerSortStorage, answer_sort_tile_bytes() and sort_answers() name every tile");

/// Bytes of the answer sort's storage for tile \p tile (sort_tile_for()): what
/// sort_answers_for_k() uses of AnswerSortStorage.
template <typename Bits>
constexpr std::size_t answer_sort_tile_bytes(int tile) {
  return tile == 0   ? sizeof(FewAnswersStorage<Bits>)
         : tile == 1 ? sizeof(typename AnswerSort<Bits, 1>::TempStorage)
                     : sizeof(typename AnswerSort<Bits, 2>::TempStorage);
}

/// Shared memory of the kernels. The select and gather state is dead once the sort starts, so the
/// sort's storage shares its bytes.
template <typename Bits>
union TopkStorage {
  /// The radix select's and the gather's state.
  struct Select {
    std::uint32_t counts[kNumDigits];      ///< this pass's digit histogram
    BlockScanStorage<kBlockThreads> scan;  ///< scratch of the block scans
    Bits desired;                          ///< the prefix fixed so far (SelectPrefix)
    Bits mask;                             ///< which bits are fixed
    std::uint32_t k_left;                  ///< rank of the k-th value among the candidates
    std::uint32_t chosen;                  ///< the digit just chosen (several blocks)
    bool last;                             ///< this block is its row's last to finish
    // Several blocks per row, candidate filtering:
    std::uint32_t matching;    ///< unused since the tally takes two loads (to be removed)
    std::uint32_t in_offset;   ///< where the segment this pass reads starts
    std::uint32_t in_count;    ///< its entries
    std::uint32_t out_offset;  ///< where its segment of this pass's list starts
    // One block per row, candidate filtering (set by the digit's owner for the next pass):
    bool filter_next;         ///< the next pass filters into the shared list
    std::uint32_t keep_next;  ///< entries it keeps
    /// Entries each warp keeps in a filter tile; two copies, used by alternate tiles, so one
    /// barrier per tile suffices (count_and_filter()).
    std::uint32_t warp_kept[2][kBlockThreads / 32];
    // The sample pass (sample_pass.cuh):
    std::uint32_t at_or_above;                   ///< samples at or above the bound
    std::uint32_t sampled_counts[kSampleWarps];  ///< pass 0: each warp region's entries
  } select;                                      ///< used by the radix select and the gather
  AnswerSortStorage<Bits> sort;                  ///< while sorting the answers
};

/// The candidate list of one block per row, in shared memory: values (as raw bits: the union
/// below must not hold a type with constructors) and columns; \p kEntries of each.
template <typename T, std::size_t kEntries = kOneBlockListEntries>
struct RowList {
  static constexpr std::uint32_t kCapacity = static_cast<std::uint32_t>(kEntries);  ///< entries
  typename KeyTraits<T>::Bits value_bits[kEntries];  ///< the entries' values
  std::uint32_t columns[kEntries];                   ///< their columns
  /// The values as T (same size and alignment as the bits).
  __device__ __forceinline__ T* values() { return reinterpret_cast<T*>(value_bits); }
};

/// Shared memory of one block per row: the select state and the candidate list while selecting
/// and gathering, then the answer sort's storage in the same bytes.
template <typename T>
union RowsStorage {
  using Bits = typename SelectKey<T>::Bits;  ///< select bits
  /// Selecting and gathering.
  struct Work {
    typename TopkStorage<Bits>::Select select;  ///< counts, scan, prefix
    RowList<T> list;                            ///< the row's candidates (when filtering)
  } work;                                       ///< used by the radix select and the gather
  AnswerSortStorage<Bits> sort;                 ///< while sorting the answers
};

/// Shared memory of topk_sampled_rows_kernel (sample_pass.cuh), dynamic: as RowsStorage with a
/// list of \p kEntries (kOneBlockListEntries, which fits the answer sort's bytes as in
/// RowsStorage, or kSampledListEntries).
template <typename T, std::size_t kEntries>
union SampledRowsStorage {
  using Bits = typename SelectKey<T>::Bits;  ///< select bits
  /// Selecting and gathering.
  struct Work {
    typename TopkStorage<Bits>::Select select;  ///< counts, scan, prefix
    RowList<T, kEntries> list;                  ///< the row's candidates
  } work;                                       ///< used by the radix select and the gather
  AnswerSortStorage<Bits> sort;                 ///< while sorting the answers
};

// ---- The scratch of the several-blocks-per-row schedule -----------------------------------------

// RowState, the per-row state, is in topk.hpp (the GPU tests read its `listed` bits).

/// Per block of a row: its answers, counted while the passes narrow the prefix, and where its
/// answers go (exclusive sums over the row's earlier blocks, set by the last pass).
struct BlockTally {
  std::uint32_t beyond;         ///< its values better than the k-th value (so far)
  std::uint32_t equal;          ///< its values equal to the k-th value (last pass)
  std::uint32_t beyond_before;  ///< beyond values in the row's earlier blocks
  std::uint32_t equal_before;   ///< equal values in the row's earlier blocks
  /// Its segment of the candidate list the last filtering pass wrote: the entries start at
  /// `list_offset` in the row's list and there are `list_count` of them, in column order.
  /// Segments of one row lie in whatever order the blocks reserved them; only the block itself
  /// (and the gather block of the same span) reads its segment, so the order does not matter.
  std::uint32_t list_offset;
  std::uint32_t list_count;  ///< entries of that segment
  std::uint32_t unused[2];   ///< padding to 32 bytes
};
static_assert(sizeof(BlockTally) == 32, "32 bytes per block, as plan_scratch() documents");

/// What the several-blocks-per-row launches read and write.
template <typename T>
struct MultiBlockArrays {
  const T* values_in;              ///< num_rows x row_length, row-major
  T* values_out;                   ///< num_rows x k
  std::int64_t* indices_out;       ///< num_rows x k
  std::uint32_t* counts;           ///< num_rows x blocks_per_row x kNumDigits (scratch)
  BlockTally* tallies;             ///< num_rows x blocks_per_row (scratch)
  RowState* row_states;            ///< num_rows (scratch; tickets zero before the first pass)
  T* list_values[2];               ///< candidate lists 0 and 1: num_rows x list_capacity values
  std::uint32_t* list_columns[2];  ///< their columns, the same shape
  std::uint32_t list_capacity;     ///< entries of one list per row (list_capacity_for())
  std::uint32_t row_length;        ///< values per row
  std::uint32_t k;                 ///< values per row to pick, 1 .. row_length
  std::uint32_t values_per_block;  ///< span of one block, a multiple of kBlockThreads
  std::uint32_t blocks_per_row;    ///< blocks per row
  bool largest;                    ///< the k largest (false: the k smallest)
  SamplePlan sample;               ///< the sample pass's plan (sample_plan(); may be disabled)
  /// The one-block finish follows the sample pass (TopkPath::kSampledOneBlock): every block counts
  /// its span's values beyond the bound (and, where the sample predicts an overflow, at or
  /// above it) into the row's fill[] for it.
  bool count_at_bound;
  /// The sample pass asks the L2 for its spans before it draws (prefetch_spans_for()).
  bool prefetch_spans;
};

// ---- The phases ---------------------------------------------------------------------------------

/// Counts one value (part of phase **count**): adds its digit at \p shift to \p counts when its
/// select bits match \p prefix. One shared atomic per value: adding a warp's equal digits with
/// one atomic (`__match_any_sync`, then the lowest lane adds the group's size) was measured and
/// is slower, even on uniform [0, 1) floats, whose top digit is the same for half the values
/// (STEPS.md beside the README).
template <typename T>
__device__ __forceinline__ void count_value(const T& value,
                                            SelectPrefix<typename SelectKey<T>::Bits> prefix,
                                            int shift, bool largest, std::uint32_t* counts) {
  const typename SelectKey<T>::Bits bits = SelectKey<T>::bits(value, largest);
  if (prefix.matches(bits)) atomicAdd(counts + digit_at(bits, shift), 1u);
}

/// Phase **count**: adds the digit at \p shift of every value of `values[0, size)` that matches
/// \p prefix to the shared \p counts (zeroed by the caller, who also syncs before reading them).
/// Counting a row is bound by how many bytes are in flight, not by arithmetic, so the values are
/// read with 16-byte loads, kCountVectorsPerThread of them issued before any value is counted
/// (common/vector_loads.cuh; one 4-byte load at a time ran at about 350 GB/s).
template <typename T>
__device__ __forceinline__ void count_digits(const T* values, std::uint32_t size,
                                             SelectPrefix<typename SelectKey<T>::Bits> prefix,
                                             int shift, bool largest, std::uint32_t* counts) {
  block_for_each_value<kBlockThreads, kCountVectorsPerThread>(
      values, size, [&](const T& value) { count_value<T>(value, prefix, shift, largest, counts); });
}

/// Phase **choose digit** (all threads call it): thread t holds \p count, the row's number of
/// candidates with digit 255 - t. One exclusive scan gives each thread how many candidates have
/// larger digits (\p above); the one thread whose bucket holds the \p k_left-th candidate
/// returns true. Ends with a barrier (the scan's), so \p scan may be reused at once.
__device__ __forceinline__ bool choose_digit(std::uint32_t count, std::uint32_t k_left,
                                             BlockScanStorage<kBlockThreads>& scan,
                                             std::uint32_t& above) {
  std::uint32_t total = 0;
  above = block_exclusive_sum<kBlockThreads>(count, scan, total);
  return above < k_left && above + count >= k_left;
}

/// The digit thread t owns when choosing: the largest digit first, so that an exclusive scan in
/// thread order counts the candidates with larger digits.
__device__ __forceinline__ std::uint32_t owned_digit() {
  return static_cast<std::uint32_t>(kNumDigits - 1) - threadIdx.x;
}

/// What the one thread whose bucket holds the k-th candidate (choose_digit() returned true)
/// does next in a block that selects on its own: fixes \p digit at \p shift in \p prefix and in
/// the shared \p storage, and narrows k to the rank inside that bucket (\p k_left less the
/// \p above candidates with larger digits).
template <typename Select, typename Bits>
__device__ __forceinline__ void fix_chosen_digit(Select& storage, SelectPrefix<Bits>& prefix,
                                                 std::uint32_t digit, int shift,
                                                 std::uint32_t k_left, std::uint32_t above) {
  prefix.fix(digit, shift);
  storage.desired = prefix.desired;
  storage.mask = prefix.mask;
  storage.k_left = k_left - above;
}

/// What the gather of one span needs to know about the row and about the span's place in it.
template <typename Bits>
struct GatherPlan {
  Bits kth_bits;                 ///< select bits of the k-th value
  std::uint32_t beyond_wanted;   ///< answers better than the k-th value (all of them)
  std::uint32_t equal_wanted;    ///< answers equal to it (the lowest columns)
  std::uint32_t beyond_first;    ///< beyond values in the row before this span
  std::uint32_t beyond_in_span;  ///< beyond values in this span
  std::uint32_t equal_first;     ///< equal values in the row before this span
  std::uint32_t equal_in_span;   ///< equal values in this span (~0u: not known)
};

/// Where a phase reads its entries: a span of the row (entry i is column `first_column + i`) or
/// a block's segment of a candidate list (entry i's column is `columns[i]`). Either way the
/// entries are in column order.
template <typename T>
struct ValueSource {
  const T* values;               ///< entry i's value
  const std::uint32_t* columns;  ///< entry i's column (a list segment; unused for a span)
  std::uint32_t first_column;    ///< column of entry 0 (a span; unused for a list segment)
  std::uint32_t size;            ///< entries
};

/// Column of entry \p i of \p source (\p kFromList: a list segment, else a span).
template <bool kFromList, typename T>
__device__ __forceinline__ std::uint32_t source_column(const ValueSource<T>& source,
                                                       std::uint32_t i) {
  if constexpr (kFromList)
    return source.columns[i];
  else
    return source.first_column + i;
}

/// The warps' kept entries of one filter tile, summed (all threads call it): each warp's lane 0
/// writes its count \p warp_total to \p warp_kept (the copy of this tile's parity: the other
/// copy may still be read by a warp finishing the tile before), one barrier, then every thread
/// sums the counts. Returns where this warp's first kept entry goes in the block's output
/// (\p written, the entries of earlier tiles, plus the warps before this one) and sets
/// \p tile_total to the whole tile's kept entries (the same in every thread).
__device__ __forceinline__ std::uint32_t tile_write_offset(
    std::uint32_t warp_total, std::uint32_t (&warp_kept)[kBlockThreads / 32], std::uint32_t written,
    std::uint32_t& tile_total) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_kept[warp] = warp_total;
  __syncthreads();
  std::uint32_t at = written;
  tile_total = 0;
#pragma unroll
  for (unsigned w = 0; w < kBlockThreads / 32; ++w) {
    const std::uint32_t kept = warp_kept[w];
    at += w < warp ? kept : 0u;
    tile_total += kept;
  }
  return at;
}

/// Phase **filter** with **count** (all threads call it): counts, like count_digits(), the digit
/// at \p shift of every entry of \p source matching \p prefix, and copies every entry whose
/// fixed digits are *at least* the prefix (`(bits & mask) >= desired`: the candidates, and the
/// values earlier passes already found better than the k-th value) to `out_values` /
/// `out_columns`, in the source's order, so in column order. Keeping the beyond values in the
/// list, instead of writing them out at once, is what keeps the documented output order: the
/// gather then meets every answer of the block in column order, as if it read the span. A warp
/// owns 32 x kFilterItemsPerThread consecutive entries of a tile, lane l reads entries l, l + 32,
/// ... (coalesced) and ranks its kept entries by ballots; the warps' counts of a tile are summed
/// in shared memory after one barrier (two copies of them alternate between tiles, so the next
/// tile's writes cannot overtake a slow reader). With \p kInPlace every entry of a tile is read
/// (value and column) before the barrier and written after it, at a position no later than its
/// own, so \p source and the output may be the same list (one block per row filters its shared
/// list in place); without it the columns of a list are read after the barrier, only for the
/// kept entries, and save the registers. \p kItems entries per thread per tile. Entries from
/// position \p limit on are counted but not written (the one-block sample read stops at its
/// list's end). Returns the entries kept (the same in every thread). The caller
/// zeroes \p counts and syncs after.
template <typename T, bool kFromList, bool kInPlace = false, int kItems = kFilterItemsPerThread>
__device__ __forceinline__ std::uint32_t count_and_filter(
    const ValueSource<T>& source, SelectPrefix<typename SelectKey<T>::Bits> prefix, int shift,
    bool largest, std::uint32_t* counts, T* out_values, std::uint32_t* out_columns,
    std::uint32_t (&warp_kept)[2][kBlockThreads / 32], std::uint32_t limit = ~0u) {
  using Bits = typename SelectKey<T>::Bits;
  constexpr std::uint32_t kWarpItems = 32u * kItems;
  constexpr std::uint32_t kTileItems = kBlockThreads * kItems;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  std::uint32_t written = 0;  // entries the block kept in earlier tiles (the same in all threads)
  unsigned parity = 0;
  for (std::uint32_t tile = 0; tile < source.size; tile += kTileItems) {
    const std::uint32_t first = tile + warp * kWarpItems + lane;
    T kept_values[kItems];
    std::uint32_t kept_columns[kInPlace ? kItems : 1];
    std::uint32_t ballots[kItems];
    std::uint32_t warp_total = 0;
    // Every load of the tile is issued before any value is looked at: the loop is bound by
    // the bytes in flight (see count_digits()).
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = first + 32u * static_cast<std::uint32_t>(j);
      kept_values[j] = i < source.size ? source.values[i] : T{};
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = first + 32u * static_cast<std::uint32_t>(j);
      bool keep = false;
      if constexpr (kInPlace) kept_columns[j] = 0;
      if (i < source.size) {
        const Bits bits = SelectKey<T>::bits(kept_values[j], largest);
        const Bits fixed = static_cast<Bits>(bits & prefix.mask);
        count_value<T>(kept_values[j], prefix, shift, largest, counts);
        keep = fixed >= prefix.desired;
        // Read before the barrier: filtering in place, another thread may overwrite entry i
        // after it.
        if constexpr (kInPlace)
          if (keep) kept_columns[j] = source_column<kFromList>(source, i);
      }
      ballots[j] = __ballot_sync(0xffffffffu, keep);
      warp_total += static_cast<std::uint32_t>(__popc(ballots[j]));
    }
    std::uint32_t tile_total = 0;
    std::uint32_t at = tile_write_offset(warp_total, warp_kept[parity], written, tile_total);
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t p = at + static_cast<std::uint32_t>(__popc(ballots[j] & lanes_below));
      if (((ballots[j] >> lane) & 1u) != 0 && p < limit) {
        out_values[p] = kept_values[j];
        if constexpr (kInPlace)
          out_columns[p] = kept_columns[j];
        else
          out_columns[p] =
              source_column<kFromList>(source, first + 32u * static_cast<std::uint32_t>(j));
      }
      at += static_cast<std::uint32_t>(__popc(ballots[j]));
    }
    written += tile_total;
    parity ^= 1u;
  }
  return written;
}

/// Phase **filter** with **count** for a span of the row that starts on a 16-byte boundary: the
/// same result as count_and_filter() (the same counts, the same entries in the same column
/// order), read as count_digits() reads, kVectors 16-byte loads per thread issued before any
/// value is looked at. The scalar filter kept 8 values (32 bytes) per thread in flight and ran at
/// about half the speed of the count pass over the same row (Nsight Compute, one row of 2^28
/// f32: 873 against 397 us); this one took 1.55 to 1.48 ms for the whole top-k of one row of
/// 2^28 (k = 1024) and 0.524 to 0.500 ms for 64 rows of 2^20, but its pass still takes about
/// twice the count pass (794 us with the next tile's words staged in shared memory by cp.async
/// while the block filters this one: not the loads, then; that variant was no faster, 1.485 ms,
/// and 4% slower on rows of 128256, so it was not kept). A lane's 16-byte word holds kPerVector
/// consecutive entries, so
/// ballots (one bit per lane) no longer give column order; instead each lane counts its kept
/// entries of the word and one warp scan of those counts gives each lane where its first one
/// goes. Warp w of the block owns entries [w x kWarpItems, (w + 1) x kWarpItems) of a tile, word
/// u of it the 32 x kPerVector entries from u x 32 x kPerVector on; the warps' kept counts are
/// summed after one barrier per tile as in count_and_filter() (two copies alternate between
/// tiles). The caller zeroes \p counts and syncs after.
template <typename T, int kVectors = kCountVectorsPerThread>
__device__ __forceinline__ void count_and_filter_aligned_span(
    const ValueSource<T>& source, SelectPrefix<typename SelectKey<T>::Bits> prefix, int shift,
    bool largest, std::uint32_t* counts, T* out_values, std::uint32_t* out_columns,
    std::uint32_t (&warp_kept)[2][kBlockThreads / 32]) {
  using Bits = typename SelectKey<T>::Bits;
  constexpr std::uint32_t kPerVector = sizeof(uint4) / sizeof(T);
  static_assert(sizeof(uint4) % sizeof(T) == 0 && kPerVector <= 32, "whole values per word");
  constexpr unsigned kWarps = kBlockThreads / 32;
  constexpr std::uint32_t kWordItems = 32u * kPerVector;  // a warp's word u
  constexpr std::uint32_t kWarpItems = kWordItems * kVectors;
  constexpr std::uint32_t kTileItems = kWarpItems * kWarps;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const uint4* words = reinterpret_cast<const uint4*>(source.values);
  std::uint32_t written = 0;  // entries the block kept in earlier tiles (the same in all threads)
  unsigned parity = 0;
  for (std::uint32_t tile = 0; tile < source.size; tile += kTileItems) {
    const std::uint32_t warp_first = tile + warp * kWarpItems + lane * kPerVector;
    uint4 loaded[kVectors];
    // Every load of the tile is issued before any value is looked at. A word that runs past the
    // span's end (its last one) is read value by value.
#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
      const std::uint32_t first = warp_first + static_cast<std::uint32_t>(u) * kWordItems;
      if (first + kPerVector <= source.size) {
        loaded[u] = words[first / kPerVector];
      } else {
        T items[kPerVector];
#pragma unroll
        for (std::uint32_t e = 0; e < kPerVector; ++e)
          items[e] = first + e < source.size ? source.values[first + e] : T{};
        memcpy(&loaded[u], items, sizeof(uint4));
      }
    }
    std::uint32_t kept_mask[kVectors];    // bit e: this lane keeps entry e of word u
    std::uint32_t lane_offset[kVectors];  // where its first kept entry of word u goes (warp)
    std::uint32_t warp_total = 0;
#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
      const std::uint32_t first = warp_first + static_cast<std::uint32_t>(u) * kWordItems;
      T items[kPerVector];
      memcpy(items, &loaded[u], sizeof(uint4));
      std::uint32_t mask = 0;
#pragma unroll
      for (std::uint32_t e = 0; e < kPerVector; ++e) {
        if (first + e < source.size) {
          const Bits bits = SelectKey<T>::bits(items[e], largest);
          count_value<T>(items[e], prefix, shift, largest, counts);
          if (static_cast<Bits>(bits & prefix.mask) >= prefix.desired) mask |= 1u << e;
        }
      }
      kept_mask[u] = mask;
      // Inclusive scan of the lanes' kept counts: lanes below this one come first in column
      // order (each lane's entries are consecutive columns).
      const std::uint32_t mine = static_cast<std::uint32_t>(__popc(mask));
      std::uint32_t inclusive = mine;
#pragma unroll
      for (unsigned offset = 1; offset < 32; offset <<= 1) {
        const std::uint32_t below = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if (lane >= offset) inclusive += below;
      }
      lane_offset[u] = warp_total + inclusive - mine;
      warp_total += __shfl_sync(0xffffffffu, inclusive, 31);
    }
    std::uint32_t tile_total = 0;
    const std::uint32_t at = tile_write_offset(warp_total, warp_kept[parity], written, tile_total);
#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
      if (kept_mask[u] == 0) continue;
      const std::uint32_t first = warp_first + static_cast<std::uint32_t>(u) * kWordItems;
      T items[kPerVector];
      memcpy(items, &loaded[u], sizeof(uint4));
      std::uint32_t p = at + lane_offset[u];
#pragma unroll
      for (std::uint32_t e = 0; e < kPerVector; ++e) {
        if ((kept_mask[u] >> e) & 1u) {
          out_values[p] = items[e];
          out_columns[p] = source.first_column + first + e;
          ++p;
        }
      }
    }
    written += tile_total;
    parity ^= 1u;
  }
}

/// Phase **filter** with **count** from a span of the row (all threads call it): the 16-byte
/// word path when the span starts on a 16-byte boundary (every row of a matrix whose rows are a
/// multiple of 16 bytes long, from a 16-byte aligned allocation), count_and_filter() otherwise.
/// Only the several-blocks kernel takes it:
/// in one block per row the word path raised the kernel's registers (u32 60 to 76, f16 80 to
/// 127: fewer blocks per SM for a kernel bound by its instructions), and that kernel filters a
/// row once, from L2.
template <typename T>
__device__ __forceinline__ void count_and_filter_span(
    const ValueSource<T>& source, SelectPrefix<typename SelectKey<T>::Bits> prefix, int shift,
    bool largest, std::uint32_t* counts, T* out_values, std::uint32_t* out_columns,
    std::uint32_t (&warp_kept)[2][kBlockThreads / 32]) {
  if (reinterpret_cast<std::uintptr_t>(source.values) % sizeof(uint4) == 0)
    count_and_filter_aligned_span<T>(source, prefix, shift, largest, counts, out_values,
                                     out_columns, warp_kept);
  else
    count_and_filter<T, false>(source, prefix, shift, largest, counts, out_values, out_columns,
                               warp_kept);
}

/// Phase **gather** (all threads call it): walks the entries of \p source (a span of the row, or
/// with \p kFromList a block's segment of a candidate list) in chunks of kBlockThreads entries,
/// in column order. Each thread flags its value as beyond or equal, and one exclusive
/// scan of both flags packed into one word (beyond in the low 16 bits, equal in the high 16; a
/// chunk has at most 256 of each) gives every flagged value its place: beyond values go to slot
/// `beyond_first + (beyond seen so far in the span)`, equal ones to `beyond_wanted + (equal rank
/// in the row)` while that rank is below `equal_wanted`. So the output of the row is the beyond
/// values in column order, then the equal ones in column order, however the row is cut into
/// spans, and whether the block reads its span or its list segment (which holds all of the
/// span's beyond and equal values, in column order). The walk stops once the span has nothing
/// more to write (block-uniform test).
template <typename T, bool kFromList>
__device__ __forceinline__ void gather_span(const ValueSource<T>& source, bool largest,
                                            const GatherPlan<typename SelectKey<T>::Bits>& plan,
                                            T* values_out, std::int64_t* indices_out,
                                            BlockScanStorage<kBlockThreads>& scan) {
  using Bits = typename SelectKey<T>::Bits;
  const std::uint32_t k = plan.beyond_wanted + plan.equal_wanted;
  std::uint32_t beyond_done = 0, equal_done = 0;  // the same in every thread
  for (std::uint32_t chunk = 0; chunk < source.size; chunk += kBlockThreads) {
    if (beyond_done == plan.beyond_in_span &&
        (equal_done == plan.equal_in_span || plan.equal_first + equal_done >= plan.equal_wanted))
      break;
    const std::uint32_t entry = chunk + threadIdx.x;
    T value{};
    std::uint32_t column = 0;
    bool beyond = false, equal = false;
    if (entry < source.size) {
      value = source.values[entry];
      column = source_column<kFromList>(source, entry);
      const Bits bits = SelectKey<T>::bits(value, largest);
      beyond = bits > plan.kth_bits;
      equal = bits == plan.kth_bits;
    }
    const std::uint32_t flags = (beyond ? 1u : 0u) | (equal ? 1u << 16 : 0u);
    std::uint32_t totals = 0;
    const std::uint32_t before = block_exclusive_sum<kBlockThreads>(flags, scan, totals);
    std::uint32_t at = k;  // k: not an answer
    if (beyond) {
      at = plan.beyond_first + beyond_done + (before & 0xffffu);
    } else if (equal) {
      const std::uint32_t equal_rank = plan.equal_first + equal_done + (before >> 16);
      if (equal_rank < plan.equal_wanted) at = plan.beyond_wanted + equal_rank;
    }
    if (at < k) {
      values_out[at] = value;
      indices_out[at] = static_cast<std::int64_t>(column);
    }
    beyond_done += totals & 0xffffu;
    equal_done += totals >> 16;
  }
}

/// The bits [begin, end) in which a row's answers differ (begin == end: all the same).
struct AnswerBitRange {
  int begin;  ///< lowest bit in which two answers differ
  int end;    ///< one past the highest
};

/// Words of shared memory differing_answer_bits() writes: one 64-bit OR per warp.
inline constexpr int kAnswerBitWords = 2 * (kBlockThreads / 32);

/// The bits in which the select bits \p keys of a row's \p k answers differ (\p keys blocked:
/// thread t holds answers t x K .., the slots past k are padding and ignored): the OR over the
/// answers of each one's bits XOR \p reference (any answer's bits). The answers of a top-k lie
/// between the k-th value and the largest, so they often share their high bits (the sign, the
/// exponent, the leading mantissa bits), and sometimes low ones (integers of a coarse grid): the
/// block sort then runs only the passes of the bits that differ. All threads call it; \p words
/// (kAnswerBitWords, the sort's storage before the sort) are free again when it returns.
template <typename Bits, int K>
__device__ __forceinline__ AnswerBitRange differing_answer_bits(const Bits (&keys)[K],
                                                                std::uint32_t k, Bits reference,
                                                                std::uint32_t* words) {
  // 32-bit words unless the bits are 64 (the hardware's OR reduction is 32 bits wide).
  using Word = std::conditional_t<(sizeof(Bits) > 4), unsigned long long, std::uint32_t>;
  Word differing = 0;
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (threadIdx.x * K + static_cast<std::uint32_t>(i) < k)
      differing |= static_cast<Word>(keys[i] ^ reference);
  const std::uint32_t warp = threadIdx.x >> 5;
  const std::uint32_t warp_low =
      __reduce_or_sync(0xffffffffu, static_cast<std::uint32_t>(differing));
  std::uint32_t warp_high = 0;
  if constexpr (sizeof(Word) > 4)
    warp_high = __reduce_or_sync(0xffffffffu, static_cast<std::uint32_t>(differing >> 32));
  if ((threadIdx.x & 31u) == 0) {
    words[2 * warp] = warp_low;
    words[2 * warp + 1] = warp_high;
  }
  __syncthreads();  // every warp's words are written
  std::uint32_t low = 0, high = 0;
#pragma unroll
  for (int w = 0; w < kBlockThreads / 32; ++w) {
    low |= words[2 * w];
    high |= words[2 * w + 1];
  }
  __syncthreads();  // every thread has read the words before the sort reuses their bytes
  const unsigned long long all = (static_cast<unsigned long long>(high) << 32) | low;
  if (all == 0) return {0, 0};
  return {__ffsll(static_cast<long long>(all)) - 1, 64 - __clzll(static_cast<long long>(all))};
}

/// Phase **sort** (all threads call it): orders a row's k answers best first. The block reads
/// them back (the caller makes the gather's writes visible first: a barrier in the same kernel,
/// or a launch boundary), sorts their select bits with each answer's slot, reads every answer at
/// its slot, waits until all are read, and writes them in order. The unsorted order is (beyond,
/// then equal), each in column order, and the sort is stable, so equal values end in column
/// order: the documented tie rule. Tile \p kTile must hold k (sort_answers_for_k() picks it).
template <typename T, int kTile>
__device__ __forceinline__ void sort_answers(
    T* values_out, std::int64_t* indices_out, std::uint32_t k, bool largest,
    typename AnswerSort<typename SelectKey<T>::Bits, kTile>::TempStorage& storage) {
  using Bits = typename SelectKey<T>::Bits;
  using Sort = AnswerSort<Bits, kTile>;
  constexpr int kKeysPerThread = kSortTiles[kTile].keys_per_thread;
  Bits keys[kKeysPerThread];
  std::uint32_t slots[kKeysPerThread];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t slot = threadIdx.x * kKeysPerThread + static_cast<std::uint32_t>(i);
    // Padding past k sorts last (all-zero bits in a descending sort): a real answer with zero
    // bits comes earlier in the tile, and the stable sort keeps it before the padding.
    keys[i] = slot < k ? SelectKey<T>::bits(values_out[slot], largest) : Bits{0};
    slots[i] = slot;
  }
  static_assert(sizeof(storage) >= kAnswerBitWords * sizeof(std::uint32_t),
                "the sort's storage holds the words of differing_answer_bits()");
  // Any answer's bits serve as the reference: answer 0's (the same load in every thread).
  const AnswerBitRange bits = differing_answer_bits<Bits, kKeysPerThread>(
      keys, k, SelectKey<T>::bits(values_out[0], largest),
      reinterpret_cast<std::uint32_t*>(&storage));
  // All answers equal: the unsorted order (column order) is already the stable sort's.
  if (bits.begin == bits.end) return;
  // Bits every answer shares cannot reorder a stable sort; padding keys (0) still sort last.
  Sort(storage).sort_blocked_to_striped(keys, slots, /*descending=*/true, bits.begin, bits.end);
  T sorted_values[kKeysPerThread];
  std::int64_t sorted_indices[kKeysPerThread];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    if (p < k) {
      sorted_values[i] = values_out[slots[i]];
      sorted_indices[i] = indices_out[slots[i]];
    }
  }
  __syncthreads();  // every answer is read before any is overwritten
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    if (p < k) {
      values_out[p] = sorted_values[i];
      indices_out[p] = sorted_indices[i];
    }
  }
}

/// Phase **sort** for at most kSortTile0Keys answers (all threads call it): thread i < k holds
/// answer i and counts the answers that go before it, those with larger select bits and those
/// with equal bits at a lower slot, which is its place. For so few answers, k comparisons per
/// thread from shared memory (every thread reads the same word at once: a broadcast) cost less
/// than a radix sort's eight 4-bit passes with their barriers (16384 rows of 4096 with k = 8:
/// 0.16 ms of 0.72 went to that sort). The order is the radix sort's: best first, equal values
/// in slot order, so ties stay in column order. Same contract as sort_answers().
template <typename T>
__device__ __forceinline__ void sort_few_answers(
    T* values_out, std::int64_t* indices_out, std::uint32_t k, bool largest,
    FewAnswersStorage<typename SelectKey<T>::Bits>& storage) {
  using Bits = typename SelectKey<T>::Bits;
  static_assert(kSortTile0Keys == kBlockThreads, "one answer per thread");
  const std::uint32_t slot = threadIdx.x;
  T value{};
  std::int64_t index = 0;
  Bits bits = 0;
  if (slot < k) {
    value = values_out[slot];
    index = indices_out[slot];
    bits = SelectKey<T>::bits(value, largest);
    storage.bits[slot] = bits;
  }
  __syncthreads();  // every answer is read (and its bits published) before any is overwritten
  if (slot >= k) return;
  std::uint32_t place = 0;
  for (std::uint32_t other = 0; other < k; ++other) {
    const Bits other_bits = storage.bits[other];
    place += (other_bits > bits || (other_bits == bits && other < slot)) ? 1u : 0u;
  }
  values_out[place] = value;
  indices_out[place] = index;
}

/// Phase **sort** with the smallest tile that holds \p k (sort_tile_for(); block-uniform).
template <typename T>
__device__ __forceinline__ void sort_answers_for_k(
    T* values_out, std::int64_t* indices_out, std::uint32_t k, bool largest,
    AnswerSortStorage<typename SelectKey<T>::Bits>& storage) {
  switch (sort_tile_for(k)) {
    case 0:
      sort_few_answers<T>(values_out, indices_out, k, largest, storage.tile0);
      break;
    case 1:
      sort_answers<T, 1>(values_out, indices_out, k, largest, storage.tile1);
      break;
    default:
      sort_answers<T, 2>(values_out, indices_out, k, largest, storage.tile2);
      break;
  }
}

/// Phases **sample** and **bound** (all threads call it; sample_plan.hpp): draws the row's
/// samples and leaves the select bits of the sample's `plan.rank`-th largest in
/// `storage.desired`. Returns how many samples are at or above that bound (the same in every
/// thread).
template <typename T>
__device__ __forceinline__ std::uint32_t sample_bound(
    const T* row, std::uint32_t row_length, const SamplePlan& plan, bool largest,
    typename TopkStorage<typename SelectKey<T>::Bits>::Select& storage) {
  using Bits = typename SelectKey<T>::Bits;
  constexpr int kPerThread = static_cast<int>(kMaxSamples) / kBlockThreads;
  static_assert(kMaxSamples % kBlockThreads == 0, "whole samples per thread");
  Bits bits[kPerThread];
  // Every load is issued before any is used: the samples are scattered, one 32-byte sector each.
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const std::uint32_t i = threadIdx.x + static_cast<std::uint32_t>(j) * kBlockThreads;
    bits[j] = i < plan.samples ? SelectKey<T>::bits(
                                     row[sample_column(i, plan.log2_samples, row_length)], largest)
                               : Bits{0};
  }
  if (threadIdx.x == 0) {
    storage.desired = 0;
    storage.mask = 0;
    storage.k_left = plan.rank;
  }
#pragma unroll 1
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
    storage.counts[threadIdx.x] = 0;
    __syncthreads();  // counters zeroed, the prefix of the previous pass visible
    SelectPrefix<Bits> prefix;
    prefix.desired = storage.desired;
    prefix.mask = storage.mask;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const std::uint32_t i = threadIdx.x + static_cast<std::uint32_t>(j) * kBlockThreads;
      if (i < plan.samples && prefix.matches(bits[j]))
        atomicAdd(storage.counts + digit_at(bits[j], shift), 1u);
    }
    __syncthreads();
    const std::uint32_t digit = owned_digit();
    const std::uint32_t count = storage.counts[digit];
    const std::uint32_t k_left = storage.k_left;
    std::uint32_t above = 0;
    if (choose_digit(count, k_left, storage.scan, above)) {  // exactly one thread
      fix_chosen_digit(storage, prefix, digit, shift, k_left, above);
      // Samples above the bound (rank - k_left of them so far) plus those equal to it.
      storage.at_or_above = plan.rank - (k_left - above) + count;
    }
  }
  __syncthreads();
  return storage.at_or_above;
}

// ---- One block per row --------------------------------------------------------------------------

/// Radix select of one row by one block (all threads call it): after it, `storage.desired` is
/// the k-th best value's select bits and `storage.k_left` how many values equal to it the
/// answer takes. Per pass: zero the counters, **count** (and **filter**), **choose digit**.
/// Candidate filtering as in the several-blocks schedule, into the shared \p list: when the
/// entries the next pass keeps (the answers so far, k - k_left, plus the chosen bucket) fit
/// the list's capacity (kEntries), that pass copies them there while counting (from the row, or in
/// place from the list: an entry's new position is never past its old one, and every tile is read
/// before it is written), and later passes and the gather read the list. Returns how many
/// entries the list holds for the gather, or ~0u when the gather must read the row. With
/// \p initial_listed (not ~0u) the list already holds that many entries in column order, every
/// value of the row at or above a bound that is at most the k-th value (sample_into_list()), and
/// no pass reads the row.
template <typename T, std::size_t kEntries>
__device__ __forceinline__ std::uint32_t radix_select_row(
    const T* row, std::uint32_t row_length, std::uint32_t k, bool largest,
    typename TopkStorage<typename SelectKey<T>::Bits>::Select& storage, RowList<T, kEntries>& list,
    std::uint32_t initial_listed = ~0u) {
  using Bits = typename SelectKey<T>::Bits;
  if (threadIdx.x == 0) {
    storage.desired = 0;
    storage.mask = 0;
    storage.k_left = k;
    storage.filter_next = false;  // nothing is fixed before pass 0
    storage.keep_next = 0;
  }
  // The list holds the candidates (the same in every thread), and this many entries: from the
  // start when the sample read filled it.
  bool in_list = initial_listed != ~0u;
  std::uint32_t listed = in_list ? initial_listed : 0u;
#pragma unroll 1
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
    storage.counts[threadIdx.x] = 0;
    __syncthreads();  // counters zeroed; the prefix of the previous pass is visible
    SelectPrefix<Bits> prefix;
    prefix.desired = storage.desired;
    prefix.mask = storage.mask;
    const bool filter = storage.filter_next;
    const std::uint32_t keep = storage.keep_next;
    const ValueSource<T> source = in_list ? ValueSource<T>{list.values(), list.columns, 0, listed}
                                          : ValueSource<T>{row, nullptr, 0, row_length};
    if (filter) {
      constexpr int kItems = kOneBlockFilterItemsPerThread;
      if (in_list)
        count_and_filter<T, true, true, kItems>(source, prefix, shift, largest, storage.counts,
                                                list.values(), list.columns, storage.warp_kept);
      else
        count_and_filter<T, false, true, kItems>(source, prefix, shift, largest, storage.counts,
                                                 list.values(), list.columns, storage.warp_kept);
      in_list = true;
      listed = keep;
    } else {
      // From the list only in pass 0 after the sample read (once the entries fit they keep
      // fitting, so every later pass filters); counting needs no columns, so both sources work.
      count_digits<T>(source.values, source.size, prefix, shift, largest, storage.counts);
    }
    __syncthreads();
    const std::uint32_t digit = owned_digit();
    const std::uint32_t count = storage.counts[digit];
    const std::uint32_t k_left = storage.k_left;
    std::uint32_t above = 0;
    if (choose_digit(count, k_left, storage.scan, above)) {  // exactly one thread
      fix_chosen_digit(storage, prefix, digit, shift, k_left, above);
      // Every thread read filter_next and keep_next before the barrier after counting.
      const std::uint32_t kept = (k - (k_left - above)) + count;
      storage.filter_next = pass + 1 < num_passes<T>() && kept <= kEntries;
      storage.keep_next = kept;
    }
    // choose_digit ended with a barrier after everyone read k_left, and the next pass (or the
    // caller) starts with one before reading the new prefix.
  }
  __syncthreads();
  return in_list ? listed : ~0u;
}

/// The sample read of one block per row (all threads call it; sample_plan.hpp): the row's bound
/// from its sample (sample_bound()), then one read of the row that copies its values at or above
/// the bound, in column order, into the shared \p list (at most kOneBlockListEntries; the read is
/// skipped when the sample predicts more). Returns the entries for radix_select_row() when the
/// list holds all of them and at least \p k (then every answer is in it), else ~0u.
template <typename T>
__device__ __forceinline__ std::uint32_t sample_into_list(
    const T* row, std::uint32_t row_length, std::uint32_t k, const SamplePlan& plan, bool largest,
    typename TopkStorage<typename SelectKey<T>::Bits>::Select& storage, RowList<T>& list) {
  using Bits = typename SelectKey<T>::Bits;
  const std::uint32_t at_or_above = sample_bound<T>(row, row_length, plan, largest, storage);
  if (bound_predicts_overflow(at_or_above, plan.samples, row_length,
                              static_cast<std::uint32_t>(kOneBlockListEntries)))
    return ~0u;
  SelectPrefix<Bits> at_least_bound;  // (bits & ~0) >= bound: the filter's keep rule
  at_least_bound.mask = static_cast<Bits>(~Bits{0});
  at_least_bound.desired = storage.desired;
  storage.counts[threadIdx.x] = 0;  // counted (values equal to the bound) but never read
  __syncthreads();
  const ValueSource<T> whole_row{row, nullptr, 0, row_length};
  const std::uint32_t kept = count_and_filter<T, false, false, kOneBlockFilterItemsPerThread>(
      whole_row, at_least_bound, digit_shift<T>(0), largest, storage.counts, list.values(),
      list.columns, storage.warp_kept, static_cast<std::uint32_t>(kOneBlockListEntries));
  __syncthreads();  // the list is written before any pass reads it
  return kept >= k && kept <= kOneBlockListEntries ? kept : ~0u;
}

/// Phases **select**, **gather** and **sort** of one row by one block (all threads call it): the
/// part that topk_rows_kernel and topk_sampled_rows_kernel (sample_pass.cuh) share.
/// radix_select_row() starts from the shared list when \p sampled is not ~0u (the list then holds
/// that many entries: sample_into_list()'s contract), the gather reads the list or the row, and
/// the answers are sorted when asked.
template <typename T, typename Storage>
__device__ __forceinline__ void select_gather_sort_row(const TopkArrays<T>& arrays,
                                                       std::size_t row_index, std::uint32_t sampled,
                                                       Storage& storage) {
  using Bits = typename SelectKey<T>::Bits;
  typename TopkStorage<Bits>::Select& select = storage.work.select;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  T* values_out = arrays.values_out + row_index * arrays.k;
  std::int64_t* indices_out = arrays.indices_out + row_index * arrays.k;
  const std::uint32_t listed = radix_select_row<T>(row, arrays.row_length, arrays.k, arrays.largest,
                                                   select, storage.work.list, sampled);
  GatherPlan<Bits> plan;
  plan.kth_bits = select.desired;
  plan.equal_wanted = select.k_left;
  plan.beyond_wanted = arrays.k - plan.equal_wanted;
  plan.beyond_first = 0;
  plan.beyond_in_span = plan.beyond_wanted;  // the whole row is the span
  plan.equal_first = 0;
  plan.equal_in_span = ~0u;  // not counted: the walk stops once k answers are written
  if (listed != ~0u) {       // the list holds every answer, in column order
    const ValueSource<T> candidates{storage.work.list.values(), storage.work.list.columns, 0,
                                    listed};
    gather_span<T, true>(candidates, arrays.largest, plan, values_out, indices_out, select.scan);
  } else {
    const ValueSource<T> whole_row{row, nullptr, 0, arrays.row_length};
    gather_span<T, false>(whole_row, arrays.largest, plan, values_out, indices_out, select.scan);
  }
  if (!arrays.sorted || arrays.k == 1) return;
  // The block's answers are written and visible to the whole block, and the list, whose bytes
  // the sort reuses, is no longer read.
  __syncthreads();
  sort_answers_for_k<T>(values_out, indices_out, arrays.k, arrays.largest, storage.sort);
}

/// One block per row: the sample read when the plan allows it, radix select (count, filter and
/// choose digit per pass), gather from the shared list or the row, optional sort.
/// Launch num_rows blocks of kBlockThreads threads.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) topk_rows_kernel(TopkArrays<T> arrays) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  __shared__ RowsStorage<T> storage;
  static_assert(sizeof(typename RowsStorage<T>::Work) <= sizeof(AnswerSortStorage<Bits>),
                "the list lives in the sort's bytes: shared memory must not grow");
  const std::size_t row_index = blockIdx.x;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  const std::uint32_t sampled =
      arrays.sample.enabled
          ? sample_into_list<T>(row, arrays.row_length, arrays.k, arrays.sample, arrays.largest,
                                storage.work.select, storage.work.list)
          : ~0u;
  select_gather_sort_row<T>(arrays, row_index, sampled, storage);
}

// ---- One warp per row ---------------------------------------------------------------------------

/// Rows per block of the one-warp-per-row kernel: one per warp.
inline constexpr int kWarpRowsPerBlock = kBlockThreads / 32;

/// \p bits of lane \p lane (all 32 lanes call it): __shfl_sync for the select bits' 16-, 32-
/// and 64-bit widths.
template <typename Bits>
__device__ __forceinline__ Bits shuffle_bits(Bits bits, int lane) {
  if constexpr (sizeof(Bits) == 8)
    return static_cast<Bits>(__shfl_sync(0xffffffffu, static_cast<unsigned long long>(bits), lane));
  else
    return static_cast<Bits>(__shfl_sync(0xffffffffu, static_cast<unsigned>(bits), lane));
}

/// Sorts the warp's 32 x E entries (\p keys ascending, ties by \p slots; all slots differ, so
/// the order is total and the result the stable one) with a bitonic network: lane l holds entries
/// l x E .. l x E + E - 1, steps of distance below E stay in the lane's registers, the others
/// swap with lane l ^ (distance / E) by shuffles. In step (phase, distance) entry x keeps the
/// smaller of x and x ^ distance when its run is ascending (x & phase == 0) and it is the lower
/// of the two, or descending and the upper; the last phase is one ascending run.
template <typename Bits, int E>
__device__ __forceinline__ void warp_bitonic_sort(Bits (&keys)[E], std::uint32_t (&slots)[E]) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned phase = 2; phase <= 32u * E; phase <<= 1) {
#pragma unroll
    for (unsigned distance = phase >> 1; distance > 0; distance >>= 1) {
      if (distance < static_cast<unsigned>(E)) {
#pragma unroll
        for (int i = 0; i < E; ++i) {
          const int j = i ^ static_cast<int>(distance);
          if (j < i) continue;  // each pair once, from its lower entry
          const bool ascending = ((lane * E + static_cast<unsigned>(i)) & phase) == 0u;
          const bool upper_first = keys[j] < keys[i] || (keys[j] == keys[i] && slots[j] < slots[i]);
          if (upper_first == ascending) {
            const Bits key = keys[i];
            keys[i] = keys[j];
            keys[j] = key;
            const std::uint32_t slot = slots[i];
            slots[i] = slots[j];
            slots[j] = slot;
          }
        }
      } else {
        const int partner = static_cast<int>(lane ^ (distance / E));
#pragma unroll
        for (int i = 0; i < E; ++i) {
          const Bits other_key = shuffle_bits(keys[i], partner);
          const std::uint32_t other_slot = __shfl_sync(0xffffffffu, slots[i], partner);
          const unsigned entry = lane * E + static_cast<unsigned>(i);
          const bool keeps_min = ((entry & phase) == 0u) == ((entry & distance) == 0u);
          const bool mine_first =
              keys[i] < other_key || (keys[i] == other_key && slots[i] < other_slot);
          if (keeps_min != mine_first) {
            keys[i] = other_key;
            slots[i] = other_slot;
          }
        }
      }
    }
  }
}

/// Phase **sort** of one warp's k answers, 32 < k <= 32 x E (all lanes call it; the answers
/// were written by an earlier launch): the network orders (complemented select bits, slot), so
/// best first and equal values in slot order, the order of sort_answers(); entries past k are
/// (all ones, slot >= k) and sort last. Each lane then reads the answers its sorted entries
/// name, the warp syncs, and each lane writes them at their sorted positions.
template <typename T, int E>
__device__ __forceinline__ void warp_sort_answers(T* values_out, std::int64_t* indices_out,
                                                  std::uint32_t k, bool largest) {
  using Bits = typename SelectKey<T>::Bits;
  const unsigned lane = threadIdx.x & 31u;
  Bits keys[E];
  std::uint32_t slots[E];
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const std::uint32_t slot = lane * E + static_cast<std::uint32_t>(i);
    keys[i] = slot < k ? static_cast<Bits>(~SelectKey<T>::bits(values_out[slot], largest))
                       : static_cast<Bits>(~Bits{0});
    slots[i] = slot;
  }
  warp_bitonic_sort<Bits, E>(keys, slots);
  T values[E];
  std::int64_t indices[E];
#pragma unroll
  for (int i = 0; i < E; ++i) {
    if (lane * E + static_cast<std::uint32_t>(i) < k) {  // then slots[i] < k too
      values[i] = values_out[slots[i]];
      indices[i] = indices_out[slots[i]];
    }
  }
  __syncwarp();  // every answer is read before any is overwritten
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const std::uint32_t position = lane * E + static_cast<std::uint32_t>(i);
    if (position < k) {
      values_out[position] = values[i];
      indices_out[position] = indices[i];
    }
  }
}

/// Sorted output of a whole short row (at most 32 x E values, all lanes call it): the row's
/// (complemented select bits, column) pairs through the bitonic network, so best first and equal
/// values in column order, the first k written. The lanes read the row 32 consecutive columns
/// at a time (the network sorts any arrangement: each entry carries its column); entries past
/// the row are (all ones, column >= length) and sort after every real one. No select is needed:
/// on rows this short the network costs less than the digit passes, whose 256 counters per pass
/// outnumber the row's values.
template <typename T, int E>
__device__ __forceinline__ void warp_sort_whole_row(const T* row, std::uint32_t length,
                                                    std::uint32_t k, bool largest, T* values_out,
                                                    std::int64_t* indices_out) {
  using Bits = typename SelectKey<T>::Bits;
  const unsigned lane = threadIdx.x & 31u;
  Bits keys[E];
  std::uint32_t columns[E];
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const std::uint32_t column = static_cast<std::uint32_t>(i) * 32u + lane;
    keys[i] = column < length ? static_cast<Bits>(~SelectKey<T>::bits(row[column], largest))
                              : static_cast<Bits>(~Bits{0});
    columns[i] = column;
  }
  warp_bitonic_sort<Bits, E>(keys, columns);
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const std::uint32_t position = lane * E + static_cast<std::uint32_t>(i);
    if (position < k) {  // then columns[i] < length: the real entries come first
      values_out[position] = row[columns[i]];
      indices_out[position] = static_cast<std::int64_t>(columns[i]);
    }
  }
}

/// Column of value \p u of \p lane in the warp's chunk of a row that starts at column \p chunk:
/// the warp reads 32 consecutive columns per load, kWarpCountLoads loads per chunk.
__device__ __forceinline__ std::uint32_t warp_chunk_column(std::uint32_t chunk, int u,
                                                           unsigned lane) {
  return chunk + 32u * static_cast<std::uint32_t>(u) + lane;
}

/// Loads this lane's kWarpCountLoads values of the warp's chunk of \p row (T{} past its
/// \p length), every load issued before any value is used: the warp kernel's count and gather
/// both read the row this way, so that eight loads per lane are in flight.
/// \param row the row's first value
/// \param length values in the row
/// \param chunk the chunk's first column (a multiple of 32 * kWarpCountLoads)
/// \param lane this lane
/// \param loaded receives value u at column warp_chunk_column(chunk, u, lane)
template <typename T>
__device__ __forceinline__ void load_warp_chunk(const T* row, std::uint32_t length,
                                                std::uint32_t chunk, unsigned lane,
                                                T (&loaded)[kWarpCountLoads]) {
#pragma unroll
  for (int u = 0; u < kWarpCountLoads; ++u) {
    const std::uint32_t column = warp_chunk_column(chunk, u, lane);
    loaded[u] = column < length ? row[column] : T{};
  }
}

/// One warp per row (rows of at most kMaxWarpRowLength values; the rule's pick for short rows),
/// kWarpRowsPerBlock rows per block. The phases of topk_rows_kernel at warp scale, with no
/// block barrier anywhere (warps finish their rows independently):
/// - **count**: the warp's lanes read the row 32 values apart (kWarpCountLoads loads each
///   issued before any is counted) into the warp's own 256 shared counters;
/// - **choose digit**: lane l owns digits 255 - 8l .. 248 - 8l, sums them, one warp scan of the
///   lanes' sums finds the lane holding the k_left-th candidate, which walks its eight digits;
///   the digit and the new k_left go to every lane by shuffles;
/// - **gather**: the row again in chunks of 32 columns, ballots of the beyond and equal flags
///   and their population counts below each lane give every answer its slot (beyond values in
///   column order, then equal ones: the documented order);
/// - **sort**: for k <= 32 lane i takes answer i and counts, by shuffles, the answers that go
///   before it (larger select bits, or equal bits at a lower slot); larger k is ordered by a
///   second launch, topk_warp_sort_rows_kernel up to kMaxWarpSortedK = 256 (its network needs
///   registers that would cost this kernel occupancy), topk_sort_rows_kernel beyond.
/// Launch ceil(num_rows / kWarpRowsPerBlock) blocks of kBlockThreads threads.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    topk_warp_rows_kernel(TopkArrays<T> arrays, std::size_t num_rows) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  constexpr unsigned kFullWarp = 0xffffffffu;
  constexpr int kDigitsPerLane = kNumDigits / 32;
  __shared__ std::uint32_t warp_counts[kWarpRowsPerBlock][kNumDigits];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::size_t row_index = std::size_t{blockIdx.x} * kWarpRowsPerBlock + warp;
  if (row_index >= num_rows) return;  // the whole warp: no barrier follows
  const std::uint32_t length = arrays.row_length, k = arrays.k;
  const T* row = arrays.values_in + row_index * length;
  T* values_out = arrays.values_out + row_index * k;
  std::int64_t* indices_out = arrays.indices_out + row_index * k;
  std::uint32_t* counts = warp_counts[warp];

  SelectPrefix<Bits> prefix;  // the same in every lane
  std::uint32_t k_left = k;
#pragma unroll 1
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
#pragma unroll
    for (int i = 0; i < kDigitsPerLane; ++i) counts[lane * kDigitsPerLane + i] = 0;
    __syncwarp();
    // Phase **count**.
    for (std::uint32_t chunk = 0; chunk < length; chunk += 32u * kWarpCountLoads) {
      T loaded[kWarpCountLoads];
      load_warp_chunk(row, length, chunk, lane, loaded);
#pragma unroll
      for (int u = 0; u < kWarpCountLoads; ++u)
        if (warp_chunk_column(chunk, u, lane) < length)
          count_value<T>(loaded[u], prefix, shift, arrays.largest, counts);
    }
    __syncwarp();
    // Phase **choose digit**: lane l's digits, largest first.
    std::uint32_t mine[kDigitsPerLane];
    std::uint32_t lane_total = 0;
#pragma unroll
    for (int i = 0; i < kDigitsPerLane; ++i) {
      mine[i] = counts[kNumDigits - 1 - (lane * kDigitsPerLane + i)];
      lane_total += mine[i];
    }
    const std::uint32_t through_lane = warp_inclusive_sum(lane_total);
    std::uint32_t above = through_lane - lane_total;  // candidates with larger digits
    // Exactly one lane's range (above, through_lane] holds k_left (1 <= k_left <= candidates).
    const bool owner = above < k_left && k_left <= through_lane;
    std::uint32_t digit = 0, k_after = 0;
    if (owner) {
      bool found = false;
#pragma unroll
      for (int i = 0; i < kDigitsPerLane; ++i) {
        if (found) continue;
        if (above + mine[i] >= k_left) {
          digit = static_cast<std::uint32_t>(kNumDigits - 1) - (lane * kDigitsPerLane + i);
          k_after = k_left - above;  // at least 1
          found = true;
        } else {
          above += mine[i];
        }
      }
    }
    const int owner_lane = __ffs(__ballot_sync(kFullWarp, owner)) - 1;
    digit = __shfl_sync(kFullWarp, digit, owner_lane);
    k_left = __shfl_sync(kFullWarp, k_after, owner_lane);
    prefix.fix(digit, shift);
    __syncwarp();  // every lane has read the counters before the next pass clears them
  }

  // Phase **gather**.
  const Bits kth_bits = prefix.desired;  // every bit is fixed after the last pass
  const std::uint32_t equal_wanted = k_left, beyond_wanted = k - k_left;
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  std::uint32_t beyond_done = 0, equal_done = 0;  // the same in every lane
  for (std::uint32_t chunk = 0; chunk < length; chunk += 32u * kWarpCountLoads) {
    if (beyond_done == beyond_wanted && equal_done >= equal_wanted) break;  // warp-uniform
    T loaded[kWarpCountLoads];
    load_warp_chunk(row, length, chunk, lane, loaded);
#pragma unroll
    for (int u = 0; u < kWarpCountLoads; ++u) {
      const std::uint32_t column = warp_chunk_column(chunk, u, lane);
      const Bits bits = SelectKey<T>::bits(loaded[u], arrays.largest);
      const bool beyond = column < length && bits > kth_bits;
      const bool equal = column < length && bits == kth_bits;
      const unsigned beyond_lanes = __ballot_sync(kFullWarp, beyond);
      const unsigned equal_lanes = __ballot_sync(kFullWarp, equal);
      std::uint32_t slot = k;  // k: not an answer
      if (beyond) {
        slot = beyond_done + static_cast<std::uint32_t>(__popc(beyond_lanes & lanes_below));
      } else if (equal) {
        const std::uint32_t rank =
            equal_done + static_cast<std::uint32_t>(__popc(equal_lanes & lanes_below));
        if (rank < equal_wanted) slot = beyond_wanted + rank;
      }
      if (slot < k) {
        values_out[slot] = loaded[u];
        indices_out[slot] = static_cast<std::int64_t>(column);
      }
      beyond_done += static_cast<std::uint32_t>(__popc(beyond_lanes));
      equal_done += static_cast<std::uint32_t>(__popc(equal_lanes));
    }
  }
  if (!arrays.sorted || k == 1 || k > 32) return;

  // Phase **sort** (k <= 32): answer i is lane i's.
  __syncwarp();  // the warp's answers are written and visible to it
  T value{};
  std::int64_t index = 0;
  Bits bits = 0;
  if (lane < k) {
    value = values_out[lane];
    index = indices_out[lane];
    bits = SelectKey<T>::bits(value, arrays.largest);
  }
  std::uint32_t place = 0;
  for (std::uint32_t other = 0; other < k; ++other) {
    const Bits other_bits = shuffle_bits(bits, static_cast<int>(other));
    place += (other_bits > bits || (other_bits == bits && other < lane)) ? 1u : 0u;
  }
  __syncwarp();  // every answer is read before any is overwritten
  if (lane < k) {
    values_out[place] = value;
    indices_out[place] = index;
  }
}

/// The sort of the one-warp-per-row schedule for 32 < k <= kMaxWarpSortedK: one warp per row
/// orders the row's k answers that topk_warp_rows_kernel wrote (warp_sort_answers() with 2, 4
/// or 8 entries per lane, the smallest network that holds k). Launch
/// ceil(num_rows / kWarpRowsPerBlock) blocks of kBlockThreads threads, after that kernel.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    topk_warp_sort_rows_kernel(TopkArrays<T> arrays, std::size_t num_rows) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  const std::size_t row_index = std::size_t{blockIdx.x} * kWarpRowsPerBlock + (threadIdx.x >> 5);
  if (row_index >= num_rows) return;  // the whole warp
  const std::uint32_t k = arrays.k;
  T* values_out = arrays.values_out + row_index * k;
  std::int64_t* indices_out = arrays.indices_out + row_index * k;
  if (k <= 64)
    warp_sort_answers<T, 2>(values_out, indices_out, k, arrays.largest);
  else if (k <= 128)
    warp_sort_answers<T, 4>(values_out, indices_out, k, arrays.largest);
  else
    warp_sort_answers<T, 8>(values_out, indices_out, k, arrays.largest);
}

/// One warp per row for sorted output of rows of at most kMaxWarpSortedK values: the whole row
/// sorted by warp_sort_whole_row() (2, 4 or 8 entries per lane, the smallest network that holds
/// the row), no select. Launch ceil(num_rows / kWarpRowsPerBlock) blocks of kBlockThreads
/// threads.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    topk_warp_sort_whole_rows_kernel(TopkArrays<T> arrays, std::size_t num_rows) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  const std::size_t row_index = std::size_t{blockIdx.x} * kWarpRowsPerBlock + (threadIdx.x >> 5);
  if (row_index >= num_rows) return;  // the whole warp
  const std::uint32_t length = arrays.row_length, k = arrays.k;
  const T* row = arrays.values_in + row_index * length;
  T* values_out = arrays.values_out + row_index * k;
  std::int64_t* indices_out = arrays.indices_out + row_index * k;
  static_assert(kMaxWarpSortedK == 32 * 8, "the largest network (8 entries per lane) holds a row");
  if (length <= 64)
    warp_sort_whole_row<T, 2>(row, length, k, arrays.largest, values_out, indices_out);
  else if (length <= 128)
    warp_sort_whole_row<T, 4>(row, length, k, arrays.largest, values_out, indices_out);
  else
    warp_sort_whole_row<T, 8>(row, length, k, arrays.largest, values_out, indices_out);
}

// ---- Several blocks per row ---------------------------------------------------------------------

/// The end of the span that starts at \p begin: a block's values_per_block, or the row's end.
template <typename T>
__device__ __forceinline__ std::size_t span_end(std::size_t begin,
                                                const MultiBlockArrays<T>& arrays) {
  const std::size_t end = begin + arrays.values_per_block;
  return end < arrays.row_length ? end : std::size_t{arrays.row_length};
}

/// Where block blockIdx.x of a several-blocks-per-row launch works: its (row, block) slot in
/// the scratch, its row, its block number in the row and its span [begin, end) of the row.
struct BlockSpan {
  std::size_t slot;       ///< row_index x blocks_per_row + block
  std::size_t row_index;  ///< its row
  std::size_t block;      ///< its block of the row
  std::size_t begin;      ///< first column of its span
  std::size_t end;        ///< one past the last
};

/// The BlockSpan of this block (grid = num_rows x blocks_per_row).
template <typename T>
__device__ __forceinline__ BlockSpan block_span(const MultiBlockArrays<T>& arrays) {
  BlockSpan where;
  where.slot = blockIdx.x;
  where.row_index = where.slot / arrays.blocks_per_row;
  where.block = where.slot % arrays.blocks_per_row;
  where.begin = where.block * arrays.values_per_block;
  where.end = span_end(where.begin, arrays);
  return where;
}

/// The prefix the passes before \p pass fixed: the row state's bits under the mask of the top
/// `pass` digits (pass 0: nothing fixed).
template <typename T>
__device__ __forceinline__ SelectPrefix<typename SelectKey<T>::Bits> fixed_prefix(
    const RowState* state, int pass) {
  using Bits = typename SelectKey<T>::Bits;
  SelectPrefix<Bits> prefix;
  if (pass == 0) return prefix;
  const int low = digit_shift<T>(pass - 1);  // lowest fixed bit
  prefix.mask = static_cast<Bits>(static_cast<Bits>(~Bits{0}) << low);
  prefix.desired = static_cast<Bits>(__ldcg(&state->desired)) & prefix.mask;
  return prefix;
}

/// One digit pass of the several-blocks-per-row schedule; grid = num_rows x blocks_per_row
/// blocks (block b of row r is blockIdx.x = r * blocks_per_row + b), launched once per pass in
/// order. Phases:
/// 1. **tally**: from pass 1 on, the block adds to its tally the values of its span that the
///    previous pass put beyond the k-th value (its own counts of that pass above the chosen
///    digit, read back from the scratch before they are overwritten);
/// 2. **reserve** (only when the row state says this pass filters): the block's entries for
///    the next pass are exactly its tally (answers so far) plus its previous count of the
///    chosen digit (the new prefix's candidates), so it reserves that many entries of the row's
///    list with one atomicAdd and records its segment in its tally. Pass 0 after a sample pass
///    that worked (sample_pass.cuh) reserves every entry of its warps' regions of list 1;
/// 3. **count** (and **filter** when the pass filters): the digits of the candidates of its
///    span, or of its list segment when the previous pass filtered (pass 0: its regions of the
///    sample pass's list); a filtering pass also copies its kept entries into its new segment.
///    The counts go to the row's histogram of the pass (an atomic per nonzero counter) and, as
///    sums from the top digit down (entry d: the block's entries with digit d or above), to the
///    block's 256 counts in the scratch, which the next pass's tally and the gather plan read;
/// 4. **arrive**: a fence, then one atomic on the row's ticket; every block but the last of its
///    row to arrive is done;
/// 5. **choose digit** (last block): thread t reads digit 255 - t of the row's histogram (and
///    zeroes it for pass + 2), one scan finds the bucket, the owner fixes the digit, narrows k and
///    decides whether the next pass filters (the answers so far plus the bucket's count fit one
///    list: list_capacity_for()), and thread 0 resets the ticket, and the fill of the list the
///    next pass writes, to 0;
/// 6. **plan the gather** (last block, last pass only): each block's tally gets its last-pass
///    values above the chosen digit and its count of equal values, and exclusive scans over the
///    row's blocks, in block order, give every block its first beyond and equal slot.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm)
    topk_count_pass_kernel(MultiBlockArrays<T> arrays, int pass) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  // Only the select state: this kernel never sorts, so it does not pay for the sort's storage.
  __shared__ typename TopkStorage<Bits>::Select storage;
  const auto [slot, row_index, block, begin, end] = block_span(arrays);
  const T* row = arrays.values_in + row_index * arrays.row_length;
  RowState* state = arrays.row_states + row_index;
  std::uint32_t* block_counts = arrays.counts + slot * kNumDigits;
  const SelectPrefix<Bits> prefix = fixed_prefix<T>(state, pass);
  const int shift = digit_shift<T>(pass);
  // Which lists this pass reads and writes (the last block of the previous pass decided; for
  // pass 0, the sample pass: it worked when no region overflowed and the row kept k or more).
  const bool sampled = pass == 0 && arrays.sample.enabled && __ldcg(&state->sample_failed) == 0u &&
                       __ldcg(&state->fill[1]) >= arrays.k;
  const std::uint32_t listed = pass == 0 ? (sampled ? 1u : 0u) : __ldcg(&state->listed);
  const bool read_list = sampled || (pass > 0 && ((listed >> (pass - 1)) & 1u) != 0);
  const bool write_list = sampled || (pass > 0 && ((listed >> pass) & 1u) != 0);
  BlockTally* tally = arrays.tallies + slot;

  // 2. reserve, after the sample pass: pass 0 keeps every entry of the warps' regions (nothing
  // is fixed yet), copied into one segment of list 0 in warp order, which is column order.
  if (sampled) {
    if (threadIdx.x < kSampleWarps) storage.sampled_counts[threadIdx.x] = block_counts[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
      std::uint32_t kept = 0;
#pragma unroll
      for (std::uint32_t w = 0; w < kSampleWarps; ++w) kept += storage.sampled_counts[w];
      const std::uint32_t offset = atomicAdd(&state->fill[0], kept);
      storage.out_offset = offset;
      tally->list_offset = offset;
      tally->list_count = kept;
    }
  }

  // 1. tally: the previous pass's counts of this block above the digit it chose, and of it (the
  // block left them as sums from the top digit down: two loads).
  if (pass > 0 && threadIdx.x == 0) {
    const std::uint32_t chosen = digit_at(prefix.desired, digit_shift<T>(pass - 1));
    const std::uint32_t at_or_above = block_counts[chosen];  // this block wrote them
    const std::uint32_t beyond = chosen + 1 < kNumDigits ? block_counts[chosen + 1] : 0u;
    const std::uint32_t matching = at_or_above - beyond;
    const std::uint32_t beyond_so_far = (pass == 1 ? 0u : tally->beyond) + beyond;
    tally->beyond = beyond_so_far;
    // 2. reserve: the segment of the previous list is read before this one replaces it.
    if (read_list) {
      storage.in_offset = tally->list_offset;
      storage.in_count = tally->list_count;
    }
    if (write_list) {
      const std::uint32_t kept = beyond_so_far + matching;
      // The row's entries sum to at most list_capacity (the last block checked), so every
      // block's reservation fits, in whatever order the blocks come.
      const std::uint32_t offset = atomicAdd(&state->fill[pass & 1], kept);
      storage.out_offset = offset;
      tally->list_offset = offset;
      tally->list_count = kept;
    }
  }

  // 3. count (and filter): from the span, or from the block's segment of the previous list.
  storage.counts[threadIdx.x] = 0;
  __syncthreads();  // also publishes the segments thread 0 read and reserved
  const std::size_t row_list = row_index * arrays.list_capacity;
  ValueSource<T> source{row + begin, nullptr, static_cast<std::uint32_t>(begin),
                        static_cast<std::uint32_t>(end - begin)};
  if (read_list && !sampled) {
    const int in = (pass - 1) & 1;
    const std::size_t first = row_list + storage.in_offset;
    source = ValueSource<T>{arrays.list_values[in] + first, arrays.list_columns[in] + first, 0,
                            storage.in_count};
  }
  if (sampled) {
    // Warp w copies its own region of list 1 (counting every entry: nothing is fixed yet) to its
    // place in the block's segment of list 0, after the regions of warps 0 .. w - 1: the
    // segment is the regions in warp order, which is column order, and no barrier is needed
    // (eight block-wide filters, one per region, took 61 us of a row of 2^28's 515).
    const std::uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    std::uint32_t before = 0;
    for (std::uint32_t w = 0; w < warp; ++w) before += storage.sampled_counts[w];
    const std::uint32_t entries = storage.sampled_counts[warp];
    const std::size_t region =
        row_list + (block * kSampleWarps + warp) * std::size_t{arrays.sample.warp_cap};
    const T* in_values = arrays.list_values[1] + region;
    const std::uint32_t* in_columns = arrays.list_columns[1] + region;
    const std::size_t out = row_list + storage.out_offset + before;
    T* out_values = arrays.list_values[0] + out;
    std::uint32_t* out_columns = arrays.list_columns[0] + out;
    constexpr std::uint32_t kInFlight = 4;  // loads per lane issued before any is used
    for (std::uint32_t first = lane; first < entries; first += 32u * kInFlight) {
      T values[kInFlight];
      std::uint32_t columns[kInFlight];
#pragma unroll
      for (std::uint32_t u = 0; u < kInFlight; ++u) {
        const std::uint32_t i = first + 32u * u;
        values[u] = i < entries ? in_values[i] : T{};
        columns[u] = i < entries ? in_columns[i] : 0u;
      }
#pragma unroll
      for (std::uint32_t u = 0; u < kInFlight; ++u) {
        const std::uint32_t i = first + 32u * u;
        if (i < entries) {
          count_value<T>(values[u], prefix, shift, arrays.largest, storage.counts);
          out_values[i] = values[u];
          out_columns[i] = columns[u];
        }
      }
    }
  } else if (write_list) {
    const int out = pass & 1;
    const std::size_t first = row_list + storage.out_offset;
    T* out_values = arrays.list_values[out] + first;
    std::uint32_t* out_columns = arrays.list_columns[out] + first;
    if (read_list)
      count_and_filter<T, true>(source, prefix, shift, arrays.largest, storage.counts, out_values,
                                out_columns, storage.warp_kept);
    else
      count_and_filter_span<T>(source, prefix, shift, arrays.largest, storage.counts, out_values,
                               out_columns, storage.warp_kept);
  } else {
    // Never from a list in practice (a pass that fits the list leaves its successor fitting
    // too: the entries only shrink), but counting needs no columns, so both sources work.
    count_digits<T>(source.values, source.size, prefix, shift, arrays.largest, storage.counts);
  }
  __syncthreads();
  // Publish the counts twice: into the row's histogram of this pass (one atomic per nonzero
  // counter), which is all the last block needs to choose the digit, and as this block's sums
  // from the top digit down (entry d: its entries with digit d or above), from which the next
  // pass and the gather plan take the block's count above a digit and of it with two loads.
  const std::uint32_t owned = owned_digit();
  const std::uint32_t owned_count = storage.counts[owned];
  if (owned_count != 0) atomicAdd(&state->histogram[pass & 1][owned], owned_count);
  std::uint32_t block_total = 0;
  block_counts[owned] =
      block_exclusive_sum<kBlockThreads>(owned_count, storage.scan, block_total) + owned_count;

  // 4. arrive: the counts, the tally and the list segment are visible device-wide before the
  // ticket is taken.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) storage.last = atomicAdd(&state->ticket, 1u) == arrays.blocks_per_row - 1;
  __syncthreads();
  if (!storage.last) return;
  __threadfence();  // the other blocks' counts are read after their arrival

  // 5. choose digit for the whole row, from the row's histogram of this pass (the blocks' atomics
  // are done: each fenced before its ticket), which is then zeroed for pass + 2 (the memset at
  // the start of the call zeroed both copies). Summing the blocks' own counts instead took one
  // block of a row of 2^28 (528 blocks) about 30 us per pass, bound by L2 latency.
  const std::uint32_t digit = owned;
  const std::uint32_t count = __ldcg(&state->histogram[pass & 1][digit]);
  state->histogram[pass & 1][digit] = 0;
  const std::uint32_t k_left = pass == 0 ? arrays.k : __ldcg(&state->k_left);
  std::uint32_t above = 0;
  if (choose_digit(count, k_left, storage.scan, above)) {  // exactly one thread
    SelectPrefix<Bits> chosen = prefix;
    chosen.fix(digit, shift);
    const std::uint32_t k_after = k_left - above;
    state->desired = chosen.desired;
    state->k_left = k_after;
    storage.chosen = digit;
    // The next pass keeps the answers found so far (k - k_after: every value above the new
    // prefix) and the new prefix's candidates (this bucket): it filters when they fit a list.
    const unsigned long long kept = static_cast<unsigned long long>(arrays.k - k_after) + count;
    const bool filter_next = pass + 1 < num_passes<T>() && kept <= arrays.list_capacity;
    if (filter_next || sampled) state->listed = listed | (filter_next ? 1u << (pass + 1) : 0u);
  }
  if (threadIdx.x == 0) {  // every block of the row has arrived
    state->ticket = 0;
    state->fill[(pass + 1) & 1] = 0;  // the list the next pass writes (last written two passes ago)
  }
  if (pass + 1 < num_passes<T>()) return;

  // 6. plan the gather: thread t takes blocks t, t + 256, ...: each block's last-pass values
  // above the chosen digit and equal to it are two loads of its sums from the top; then
  // exclusive scans over the row's blocks, in block order.
  __syncthreads();  // storage.chosen is set
  const std::uint32_t last_digit = storage.chosen;
  const std::uint32_t* row_counts = arrays.counts + row_index * arrays.blocks_per_row * kNumDigits;
  BlockTally* row_tallies = arrays.tallies + row_index * arrays.blocks_per_row;
  std::uint32_t beyond_running = 0, equal_running = 0;
  for (std::uint32_t first = 0; first < arrays.blocks_per_row; first += kBlockThreads) {
    const std::uint32_t b = first + threadIdx.x;
    const bool real = b < arrays.blocks_per_row;
    std::uint32_t beyond = 0, equal = 0;
    if (real) {
      const std::uint32_t* counts_of_b = row_counts + std::size_t{b} * kNumDigits;
      const std::uint32_t at_or_above = __ldcg(counts_of_b + last_digit);
      const std::uint32_t above =
          last_digit + 1 < kNumDigits ? __ldcg(counts_of_b + last_digit + 1) : 0u;
      beyond = (pass == 0 ? 0u : __ldcg(&row_tallies[b].beyond)) + above;
      equal = at_or_above - above;
      row_tallies[b].beyond = beyond;
      row_tallies[b].equal = equal;
    }
    std::uint32_t beyond_total = 0, equal_total = 0;
    const std::uint32_t beyond_before =
        block_exclusive_sum<kBlockThreads>(beyond, storage.scan, beyond_total);
    const std::uint32_t equal_before =
        block_exclusive_sum<kBlockThreads>(equal, storage.scan, equal_total);
    if (real) {
      row_tallies[b].beyond_before = beyond_running + beyond_before;
      row_tallies[b].equal_before = equal_running + equal_before;
    }
    beyond_running += beyond_total;
    equal_running += equal_total;
  }
}

/// The gather of the several-blocks-per-row schedule; grid = num_rows x blocks_per_row, after
/// the last count pass. Every block gathers its own span (**gather**) at the offsets the last
/// pass planned, reading its segment of the last pass's candidate list when that pass filtered
/// (the segment holds all of the span's beyond and equal values, in column order), else the span
/// itself; a block with nothing to write returns at once.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) topk_gather_kernel(MultiBlockArrays<T> arrays) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  __shared__ BlockScanStorage<kBlockThreads> scan;
  const auto [slot, row_index, block, begin, end] = block_span(arrays);
  const RowState* state = arrays.row_states + row_index;
  const BlockTally tally = arrays.tallies[slot];
  GatherPlan<Bits> plan;
  plan.kth_bits = static_cast<Bits>(state->desired);
  plan.equal_wanted = state->k_left;
  plan.beyond_wanted = arrays.k - plan.equal_wanted;
  plan.beyond_first = tally.beyond_before;
  plan.beyond_in_span = tally.beyond;
  plan.equal_first = tally.equal_before;
  plan.equal_in_span = tally.equal;
  if (tally.beyond == 0 && (tally.equal == 0 || tally.equal_before >= plan.equal_wanted)) return;
  T* values_out = arrays.values_out + row_index * arrays.k;
  std::int64_t* indices_out = arrays.indices_out + row_index * arrays.k;
  constexpr int kLastPass = num_passes<T>() - 1;
  if ((state->listed >> kLastPass) & 1u) {
    const int list = kLastPass & 1;
    const std::size_t first = row_index * arrays.list_capacity + tally.list_offset;
    const ValueSource<T> segment{arrays.list_values[list] + first,
                                 arrays.list_columns[list] + first, 0, tally.list_count};
    gather_span<T, true>(segment, arrays.largest, plan, values_out, indices_out, scan);
  } else {
    const ValueSource<T> span{arrays.values_in + row_index * arrays.row_length + begin, nullptr,
                              static_cast<std::uint32_t>(begin),
                              static_cast<std::uint32_t>(end - begin)};
    gather_span<T, false>(span, arrays.largest, plan, values_out, indices_out, scan);
  }
}

/// The sort of the several-blocks-per-row schedule: one block per row orders the row's k answers
/// that the gather launch wrote (**sort**). Launch num_rows blocks, only for sorted output with
/// k > 1.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) topk_sort_rows_kernel(TopkArrays<T> arrays) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  __shared__ AnswerSortStorage<Bits> storage;
  const std::size_t row_index = blockIdx.x;
  sort_answers_for_k<T>(arrays.values_out + row_index * arrays.k,
                        arrays.indices_out + row_index * arrays.k, arrays.k, arrays.largest,
                        storage);
}

}  // namespace sortlab::stage07
