/// \file
/// \brief Stage 07's fourth schedule: one thread-block cluster per row (Hopper), the row read
/// once into the cluster's shared memory and every pass counted there.
///
/// The several-blocks-per-row schedule pays, per call, a memset of its row states and one launch
/// per digit pass, the gather and the sort, and its blocks meet through global memory (counts,
/// tickets, the last block's choice). On an LLM sampling shape (one row of 128256 logits) those
/// fixed costs are the whole time: 0.04-0.05 ms where reading the row takes 2 us. A cluster (up to
/// 8 blocks, 16 on an H100 with an opt-in, that the hardware runs at once, on the SMs of one GPC,
/// and that can read each other's shared memory: *distributed shared memory*) lets one launch do it
/// all:
///
/// - **load**: block b of the row's cluster copies its span (columns b x span ..) into its own
///   shared memory, with 16-byte asynchronous copies; the row is read from memory once.
/// - **to select bits**: each block turns its span into select bits in place, once, so that no
///   pass and not the gather transforms a value again; the gather turns its answers back into
///   values (SelectKey::unique_value(), reading the row only for zeros and NaNs).
/// - per digit pass, **count**: every block counts its span's candidates into 256 counters (one
///   copy per lane, so equal digits in a warp never queue on one counter), **cluster barrier**,
///   then thread t of *every* block sums digit 255 - t over the cluster's blocks (remote
///   shared-memory loads) and runs the same **choose digit** scan. Every block sees the same
///   sums, so every block fixes the same digit: nothing is sent back. The summed counters
///   alternate between two copies, so the next pass can count while a slow block still reads.
/// - **gather**: each warp counts the values of its part of the span (a contiguous eighth) beyond
///   the k-th value and equal to it, a cluster barrier, and each warp adds the counts of the
///   blocks and warps before it (column order) to know where its answers go; then it walks its
///   part 32 values at a time, ranking its answers with two ballots, so the output is the other
///   schedules' element for element and no block barrier is needed per step.
/// - **sort** (sorted output): one more cluster barrier (every block's answers are written), and
///   one block (the row's index modulo the cluster's size) orders the k answers with the answer
///   sort of the other schedules.
///
/// A block must not exit while another block of its cluster may still read its shared memory:
/// every remote read happens before the last cluster barrier, which every block passes.
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "chapters/07_topk/topk_kernels.cuh"
#include "common/word_split.hpp"

namespace sortlab::stage07 {

/// Whether this build has the cluster kernel: clusters need sm_90, and the kernel's body is
/// compiled only when every architecture of the build is sm_90 or newer, the condition under
/// which CMakeLists.txt also sets SORTLAB_CHAINED_LAUNCHES (a build with an older architecture
/// could run that architecture's image, without the body, on an H100).
inline constexpr bool kClusterKernelBuilt = SORTLAB_CHAINED_LAUNCHES != 0;

/// Copies of the 256 digit counters a block counts a pass into: one per lane, so that the lanes
/// of a warp never add to the same counter at once. With one shared copy, the lanes whose values
/// share a digit are serialised on its counter (on uniform [0, 1) floats half the values share
/// the top digit); with a copy per lane, two lanes always touch different words.
inline constexpr int kLaneCounterCopies = 32;
/// The counters are 16 bits, two digits (2d and 2d + 1) to a 32-bit word: the span is below 65536
/// values, so no count, not even a digit's sum over all copies, carries into the next digit's
/// half; half the words halve the shared memory (more blocks per SM) and the words to clear and
/// sum each pass.
inline constexpr int kLaneCounterWords = kNumDigits / 2;
/// Words from one digit pair's counters to the next: 33, not 32, so that the 32 copies a thread
/// sums (one pair) fall in different banks, and so do the adds of lanes whose values share a
/// pair (the common case on concentrated digits). Lanes adding to different pairs may still meet
/// in a bank: lane l's add to pair p goes to bank (p + l) mod 32. (Stride 32 with the sums read
/// in a staggered order would make both sides conflict-free: not measured.)
inline constexpr int kLaneCounterStride = kLaneCounterCopies + 1;
/// Bytes of the lane counters (the start of the kernel's dynamic shared memory).
inline constexpr std::size_t kLaneCounterBytes =
    std::size_t{kLaneCounterWords} * kLaneCounterStride * sizeof(std::uint32_t);

/// A block's candidate list holds a quarter of its span: from the first pass whose kept entries
/// (the block's values beyond the k-th value found so far plus its candidates of the new prefix,
/// known exactly from its own counts) fit, that pass copies them there while counting, and the
/// later passes and the gather read the list instead of the span.
inline constexpr std::uint32_t kClusterListDivisor = 4;

/// Entries of the candidate list of a block with spans of \p span values.
/// \param span values per block (a multiple of 64)
constexpr std::size_t cluster_list_capacity(std::size_t span) {
  return span / kClusterListDivisor;
}

/// Bytes of the part of the dynamic shared memory that holds either the lane counters (passes that
/// count the span) or the candidate list (its columns, then its values: passes after the one that
/// filtered, and the gather). The two are never live at once: the pass that filters counts into
/// the single copy of the counters the other blocks read, and no later pass counts the span.
/// \param span values per block (a multiple of 64)
/// \param value_bytes sizeof(T)
constexpr std::size_t cluster_work_bytes(std::size_t span, std::size_t value_bytes) {
  const std::size_t list_bytes =
      cluster_list_capacity(span) * (sizeof(std::uint32_t) + value_bytes);
  const std::size_t bytes = list_bytes > kLaneCounterBytes ? list_bytes : kLaneCounterBytes;
  return (bytes + 15) / 16 * 16;  // the span after it starts on a 16-byte boundary
}

/// Dynamic shared memory of a launch of the cluster kernel with spans of \p span values of
/// \p value_bytes bytes: the lane counters or the candidate list (cluster_work_bytes()), then
/// the span (every part a multiple of 16 bytes long, the span a multiple of 64 values).
/// \param span values per block
/// \param value_bytes sizeof(T)
constexpr std::size_t cluster_shared_bytes(std::size_t span, std::size_t value_bytes) {
  // 16 more bytes: the span is placed so that it has the row's alignment modulo 16 (a row need
  // not start on a 16-byte boundary), and the 16-byte copies then line up on both sides. The
  // gather of 2-byte bits reads whole 16-byte words, and the span's last one may reach into
  // these bytes: they must stay.
  return cluster_work_bytes(span, value_bytes) + span * value_bytes + 16;
}

/// Starts copying `row[0, size)` into the shared \p span (all threads call it; each waits for its
/// copies with finish_span_copy(), and the caller then syncs the block). \p span has the same
/// address modulo 16 as \p row, so the whole 16-byte words in between go with `cp.async.cg` (no
/// register holds them, and every thread has all its copies in flight at once); the few values
/// before the first word and after the last are copied one by one.
template <typename T>
__device__ __forceinline__ void start_span_copy(const T* row, std::uint32_t size, T* span) {
  const WordSplit<sizeof(T)> split = split_at_words(row, size);
  const std::uint32_t head = split.head, words = split.words;
  if (threadIdx.x < head) span[threadIdx.x] = row[threadIdx.x];
  const uint4* source = reinterpret_cast<const uint4*>(row + head);
  const auto target = static_cast<std::uint32_t>(__cvta_generic_to_shared(span + head));
  for (std::uint32_t w = threadIdx.x; w < words; w += kBlockThreads) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                     target + w * static_cast<std::uint32_t>(sizeof(uint4))),
                 "l"(source + w)
                 : "memory");
  }
  const std::uint32_t tail = split.tail_begin() + threadIdx.x;
  if (tail < size) span[tail] = row[tail];
}

/// Waits for this thread's copies of start_span_copy() (a second call waits for nothing).
__device__ __forceinline__ void finish_span_copy() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

/// Phase **to select bits** (all threads call it, the span loaded and a barrier passed; the
/// caller syncs before the bits are read): turns the shared `span[0, size)` into the select
/// bits of its values, in place (the bits are as wide as the values). Every later pass and the
/// gather read the span two to four times; transforming each value once, here, instead of on
/// every read took a quarter of the instructions of the bf16 kernel away (Nsight Compute,
/// session 27: the transform's lines held 29% of them, 22% in f32). The words between the span's
/// first and last 16-byte boundary are transformed a 16-byte word at a time. Returns the span as
/// bits; the gather turns an answer back into its value with SelectKey::unique_value(), reading
/// the row itself only for the zeros and NaNs, whose bits are shared.
template <typename T>
__device__ __forceinline__ typename SelectKey<T>::Bits* span_to_select_bits(T* span,
                                                                            std::uint32_t size,
                                                                            bool largest) {
  using Bits = typename SelectKey<T>::Bits;
  static_assert(sizeof(Bits) == sizeof(T), "the bits replace the values in place");
  constexpr std::uint32_t kPerWord = WordSplit<sizeof(T)>::kPerWord;
  Bits* bits = reinterpret_cast<Bits*>(span);
  const WordSplit<sizeof(T)> split = split_at_words(span, size);
  const std::uint32_t head = split.head, words = split.words;
  if (threadIdx.x < head) bits[threadIdx.x] = SelectKey<T>::bits(span[threadIdx.x], largest);
  uint4* body = reinterpret_cast<uint4*>(span + head);
  for (std::uint32_t w = threadIdx.x; w < words; w += kBlockThreads) {
    uint4 word = body[w];
    T items[kPerWord];
    Bits transformed[kPerWord];
    memcpy(items, &word, sizeof(uint4));
#pragma unroll
    for (std::uint32_t e = 0; e < kPerWord; ++e)
      transformed[e] = SelectKey<T>::bits(items[e], largest);
    memcpy(&word, transformed, sizeof(uint4));
    body[w] = word;
  }
  const std::uint32_t tail = split.tail_begin() + threadIdx.x;
  if (tail < size) bits[tail] = SelectKey<T>::bits(span[tail], largest);
  return bits;
}

/// Phase **count** of the cluster kernel (all threads call it): the digit at \p shift of every
/// value of the shared `span[0, size)` that matches \p prefix, into this lane's copy of the
/// counters (\p lane_counters, zeroed by the caller), then summed over the copies into
/// `counts[digit]`. Ends with the sums written (not yet visible: the caller's barrier follows).
template <typename T>
__device__ __forceinline__ void count_span_digits(const T* span, std::uint32_t size,
                                                  SelectPrefix<typename SelectKey<T>::Bits> prefix,
                                                  int shift, bool largest,
                                                  std::uint32_t* lane_counters,
                                                  std::uint32_t* counts) {
  std::uint32_t* mine = lane_counters + (threadIdx.x & 31u);
  block_for_each_value<kBlockThreads, 2>(span, size, [&](const T& value) {
    const typename SelectKey<T>::Bits bits = SelectKey<T>::bits(value, largest);
    if (prefix.matches(bits)) {
      const std::uint32_t digit = digit_at(bits, shift);
      atomicAdd(mine + (digit >> 1) * kLaneCounterStride, 1u << (digit & 1u) * 16u);
    }
  });
  __syncthreads();  // every copy is complete
  // Threads 2d and 2d + 1 read the same words (a broadcast) and keep their own half.
  const std::uint32_t* copies = lane_counters + (threadIdx.x >> 1) * kLaneCounterStride;
  std::uint32_t sum = 0;  // both halves at once: neither sum reaches 2^16 (the span is smaller)
#pragma unroll 8
  for (int lane = 0; lane < kLaneCounterCopies; ++lane) sum += copies[lane];
  counts[threadIdx.x] = threadIdx.x & 1u ? sum >> 16 : sum & 0xffffu;
}

/// Warps of a block of the cluster kernel; each owns one contiguous part of the span in the
/// gather.
inline constexpr int kClusterWarps = kBlockThreads / 32;

/// The part of a source of \p size items that warp \p warp gathers: whole steps of 32 items,
/// the warps in column order. An item is what one lane reads at a time: an entry, or for 2-byte
/// bits a 16-byte word of 8 entries (the gather's kGatherEntries).
struct WarpPart {
  std::uint32_t begin;  ///< first item
  std::uint32_t end;    ///< one past the last
};
/// Warp \p warp's part of a source of \p size items.
__device__ __forceinline__ WarpPart warp_part(std::uint32_t size, std::uint32_t warp) {
  const std::uint32_t step = (size + 32u * kClusterWarps - 1) / (32u * kClusterWarps) * 32u;
  const std::uint32_t begin = warp * step < size ? warp * step : size;
  return {begin, size - begin < step ? size : begin + step};
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// `word` as it is in each of the first \p blocks blocks of the cluster (0 for the others), into
/// \p words. Every remote load is issued before any is used: a load from another SM's shared
/// memory takes hundreds of cycles, and summed one after the other they would cost a pass
/// several microseconds.
__device__ __forceinline__ void load_over_cluster(std::uint32_t blocks, const std::uint32_t* word,
                                                  std::uint32_t (&words)[kMaxClusterBlocks]) {
#pragma unroll
  for (int b = 0; b < static_cast<int>(kMaxClusterBlocks); ++b)
    words[b] = static_cast<std::uint32_t>(b) < blocks
                   ? *cooperative_groups::cluster_group::map_shared_rank(word, b)
                   : 0u;
}

/// The sum of `word` over the first \p blocks blocks of the cluster (load_over_cluster()).
__device__ __forceinline__ std::uint32_t sum_over_cluster(std::uint32_t blocks,
                                                          const std::uint32_t* word) {
  std::uint32_t words[kMaxClusterBlocks];
  load_over_cluster(blocks, word, words);
  std::uint32_t sum = 0;
#pragma unroll
  for (std::uint32_t b = 0; b < kMaxClusterBlocks; ++b) sum += words[b];
  return sum;
}
#endif

/// Static shared memory of the cluster kernel: the select state, the counters the other blocks
/// read, and the answer counts of the warps and the span. (The answer sort's storage is not here:
/// the sorting block sorts in its dynamic shared memory, cluster_sort_bytes(), which a launch sizes
/// as the larger of the span's bytes and the sort's, so a call that does not sort, or whose spans
/// take more than the sort, pays nothing for it.)
template <typename Bits>
struct ClusterStorage {
  typename TopkStorage<Bits>::Select select;  ///< the radix select's and the gather's state
  /// This block's digit counts of pass p in copy p % 2 (read by every block of the cluster).
  std::uint32_t pass_counts[2][kNumDigits];
  std::uint32_t warp_beyond[kClusterWarps];  ///< each warp's part: values beyond the k-th
  std::uint32_t warp_equal[kClusterWarps];   ///< ... and equal to it
  /// Values of this block's span found beyond the k-th value by the passes so far.
  std::uint32_t beyond_so_far;
  /// Values of this block's span beyond the k-th value (low 16 bits) and equal to it (high 16
  /// bits), read by the blocks after it.
  std::uint32_t span_answers;
  /// The sampled cluster: values of this block's span at or above the sample's bound (read by
  /// every block of the cluster).
  std::uint32_t sample_kept;
  /// The sampled cluster's fallback: values of this block's span beyond the sample's bound (low
  /// 16 bits) and equal to it (high 16 bits), read by every block of the cluster. A word of its
  /// own: the gather rewrites span_answers while a slower block may still read this one.
  std::uint32_t bound_answers;
};

/// Alignment of the cluster kernel's dynamic shared memory: a shared-memory wavefront (128 bytes).
/// Its 16-byte loads (the answer sort's tiles, the list) then start on a wavefront, whatever the
/// size of ClusterStorage: when adding a word to it moved the dynamic bytes from 0xd00 to 0xd10,
/// the plain f32 kernel ran 2% slower at 256 x 32000, k = 1024 and 2048 (same code, same
/// registers; session 23, H200).
inline constexpr std::size_t kClusterDynamicAlignment = 128;

/// Static shared memory of the cluster kernel as a launch uses it: ClusterStorage, and the padding
/// up to the dynamic bytes' alignment (kClusterDynamicAlignment).
template <typename Bits>
constexpr std::size_t cluster_static_bytes() {
  return (sizeof(ClusterStorage<Bits>) + kClusterDynamicAlignment - 1) / kClusterDynamicAlignment *
         kClusterDynamicAlignment;
}

/// Bytes of dynamic shared memory the sorting block sorts \p k answers in (the tile
/// sort_answers_for_k() picks); 0 when nothing is sorted. It sorts after the last cluster barrier,
/// when its span, list and counters are dead (no block reads them any more), so the sort takes the
/// same bytes. \param k answers per row \param sorted whether the call sorts them
template <typename Bits>
constexpr std::size_t cluster_sort_bytes(std::size_t k, bool sorted) {
  return !sorted || k <= 1 ? 0 : answer_sort_tile_bytes<Bits>(sort_tile_for(k));
}

/// Dynamic shared memory of a launch of the cluster kernel for values of type \p T: the span's
/// bytes (cluster_shared_bytes()) or the answer sort's (cluster_sort_bytes()), the larger.
/// \param span values per block
/// \param k answers per row
/// \param sorted whether the call sorts them
template <typename T>
constexpr std::size_t cluster_launch_bytes(std::size_t span, std::size_t k, bool sorted) {
  const std::size_t span_bytes = cluster_shared_bytes(span, sizeof(T));
  const std::size_t sort_bytes = cluster_sort_bytes<typename SelectKey<T>::Bits>(k, sorted);
  return span_bytes > sort_bytes ? span_bytes : sort_bytes;
}

/// Dynamic shared memory of a launch of the sampled cluster (TopkArrays::sample enabled): as
/// cluster_launch_bytes(), and room after the work bytes for the one-block storage
/// (RowsStorage: select state, a kOneBlockListEntries list, the answer sort) that the finishing
/// block gathers the row's candidates into, over its span (dead by then).
/// \param span values per block
/// \param k answers per row
/// \param sorted whether the call sorts them
template <typename T>
constexpr std::size_t cluster_sampled_launch_bytes(std::size_t span, std::size_t k, bool sorted) {
  const std::size_t plain = cluster_launch_bytes<T>(span, k, sorted);
  const std::size_t finish = cluster_work_bytes(span, sizeof(T)) + sizeof(RowsStorage<T>);
  return plain > finish ? plain : finish;
}

/// The most dynamic shared memory a launch of the cluster kernel for \p T asks: the largest span
/// (kMaxClusterSpanBytes), the largest answer sort, or the largest span's work bytes and the
/// sampled finish's one-block storage.
template <typename T>
constexpr std::size_t cluster_max_launch_bytes() {
  const std::size_t largest_span = kMaxClusterSpanBytes / sizeof(T);
  const std::size_t span_bytes = cluster_shared_bytes(largest_span, sizeof(T));
  const std::size_t sort_bytes = sizeof(AnswerSortStorage<typename SelectKey<T>::Bits>);
  const std::size_t finish_bytes =
      cluster_work_bytes(largest_span, sizeof(T)) + sizeof(RowsStorage<T>);
  const std::size_t larger = span_bytes > sort_bytes ? span_bytes : sort_bytes;
  return larger > finish_bytes ? larger : finish_bytes;
}

/// Whether the largest launch for values of type \p T fits the 227 KiB of shared memory a block
/// may have on an sm_90 GPU, with \p static_bytes of static shared memory.
template <typename T>
constexpr bool cluster_launch_fits(std::size_t static_bytes) {
  return cluster_max_launch_bytes<T>() + static_bytes <= 227 * 1024;
}

/// Blocks of the cluster kernel each SM must hold at once, a bound the compiler meets with its
/// registers (at most 64 per thread for 4): with the shared memory above, four blocks of a
/// typical LLM row's spans fit an SM, and at batches of 64 rows and more the clusters then run in
/// about one wave instead of two. Values of 8 bytes keep 2 (their select bits need twice the
/// registers).
/// \param value_bytes sizeof(T)
constexpr int cluster_min_blocks_per_sm(std::size_t value_bytes) {
  return value_bytes <= 4 ? 4 : 2;
}

/// How the sampled cluster left a row (sampled_cluster_finish(), the same in every block).
enum class SampledClusterOutcome {
  kRowDone,        ///< the finishing block selected, gathered and sorted the row from the list
  kGatherAtBound,  ///< the bound is the k-th value (select state set): gather from the spans
  kDigitPasses,    ///< run the digit passes over the spans (the select state is the caller's)
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// The sampled cluster's fallback (all threads of every block call it, the spans loaded): whether
/// the sample's \p bound is the row's k-th value, which it is exactly when fewer than k values of
/// the row lie beyond it and at least k at or beyond it. Rows of few distinct values are the case
/// it serves: there the bound's value fills far more than the list (the sample predicts an
/// overflow), but the bound is usually the k-th value itself, and the cluster can gather at once,
/// with no digit pass. Each block counts its span (in shared memory: one read, no pass over
/// memory), a cluster barrier, and every block sums the counts of all blocks, so every block
/// decides the same. When it is, sets the select state as the passes would have left it
/// (`desired` the bound, `k_left` the equal values wanted) and returns true; else returns false
/// and leaves the select state to the caller (no thread reads it after this).
template <typename T>
__device__ __forceinline__ bool bound_is_kth_over_cluster(
    const TopkArrays<T>& arrays, ClusterStorage<typename SelectKey<T>::Bits>& storage,
    const T* values, std::uint32_t size, typename SelectKey<T>::Bits bound) {
  using Bits = typename SelectKey<T>::Bits;
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  std::uint32_t beyond = 0, equal = 0;
  for (std::uint32_t i = threadIdx.x; i < size; i += kBlockThreads) {
    const Bits bits = SelectKey<T>::bits(values[i], arrays.largest);
    beyond += bits > bound ? 1u : 0u;
    equal += bits == bound ? 1u : 0u;
  }
  beyond = __reduce_add_sync(0xffffffffu, beyond);
  equal = __reduce_add_sync(0xffffffffu, equal);
  const std::uint32_t warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31u) == 0) {
    storage.warp_beyond[warp] = beyond;
    storage.warp_equal[warp] = equal;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t span_beyond = 0, span_equal = 0;  // both below 2^16: the span is shorter
#pragma unroll
    for (int w = 0; w < kClusterWarps; ++w) {
      span_beyond += storage.warp_beyond[w];
      span_equal += storage.warp_equal[w];
    }
    storage.bound_answers = span_beyond | span_equal << 16;
  }
  cluster.sync();  // every block's counts are visible to the cluster
  typename TopkStorage<Bits>::Select& select = storage.select;
  if (threadIdx.x == 0) {
    std::uint32_t answers[kMaxClusterBlocks];
    load_over_cluster(cluster.num_blocks(), &storage.bound_answers, answers);
    std::uint32_t row_beyond = 0, row_equal = 0;  // a row's totals need not fit 16 bits
#pragma unroll
    for (std::uint32_t b = 0; b < kMaxClusterBlocks; ++b) {
      row_beyond += answers[b] & 0xffffu;
      row_equal += answers[b] >> 16;
    }
    const bool is_kth = bound_is_kth(row_beyond, row_equal, arrays.k);
    select.desired = bound;
    select.mask = static_cast<Bits>(~Bits{0});
    select.k_left = is_kth ? arrays.k - row_beyond : 0u;  // 0: not the k-th value
  }
  __syncthreads();
  const bool is_kth = select.k_left != 0;
  __syncthreads();  // every thread has read it before the caller resets the select state
  return is_kth;
}

/// The sampled cluster (TopkArrays::sample enabled; all threads of every block of the cluster
/// call it, after start_span_copy()): phases **sample** and **bound** (sample_bound(): every block
/// draws the same samples from the row in memory, so every block finds the same bound without a
/// word between them), **filter** (each block keeps its span's values at or above the bound, in
/// column order, in its list), a cluster barrier, **collect** (each block reads every block's
/// count and writes its entries at its offset into the list of the finishing block, the row's
/// index modulo the cluster's size, in distributed shared memory), a second cluster barrier, and
/// the finishing block alone runs **select**, **gather** and **sort** from that list as one
/// block per row does from its sample read (select_gather_sort_row()): two cluster barriers
/// instead of one per digit pass and the gather's. Returns kRowDone when the row is done (the
/// block returns). When the list cannot serve (the bound predicts more values than the list
/// holds, a block kept more than its list holds, or the row kept fewer than k or more than
/// kOneBlockListEntries), the spans are loaded and the cluster asks whether the bound is the
/// k-th value (bound_is_kth_over_cluster()): kGatherAtBound if so, else kDigitPasses. Every block
/// returns the same.
template <typename T>
__device__ __forceinline__ SampledClusterOutcome sampled_cluster_finish(
    const TopkArrays<T>& arrays, ClusterStorage<typename SelectKey<T>::Bits>& storage,
    std::size_t row_index, const T* row, std::uint32_t first, std::uint32_t size, const T* values,
    T* list_values, std::uint32_t* list_columns, std::uint32_t capacity,
    unsigned char* dynamic_shared, std::uint32_t span) {
  using Bits = typename SelectKey<T>::Bits;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const std::uint32_t rank = cluster.block_rank();
  const std::uint32_t blocks = cluster.num_blocks();
  typename TopkStorage<Bits>::Select& select = storage.select;
  // sample, bound (the span's copies stay in flight meanwhile)
  const std::uint32_t at_or_above =
      sample_bound<T>(row, arrays.row_length, arrays.sample, arrays.largest, select);
  const Bits bound = select.desired;
  finish_span_copy();
  // Where the list cannot serve: the bound as the k-th value, else the digit passes.
  const auto fall_back = [&] {
    return bound_is_kth_over_cluster<T>(arrays, storage, values, size, bound)
               ? SampledClusterOutcome::kGatherAtBound
               : SampledClusterOutcome::kDigitPasses;
  };
  if (bound_predicts_overflow(at_or_above, arrays.sample.samples, arrays.row_length,
                              static_cast<std::uint32_t>(kOneBlockListEntries))) {
    __syncthreads();  // the span is loaded
    return fall_back();
  }
  SelectPrefix<Bits> at_least_bound;  // (bits & ~0) >= bound: the filter's keep rule
  at_least_bound.mask = static_cast<Bits>(~Bits{0});
  at_least_bound.desired = bound;
  select.counts[threadIdx.x] = 0;  // counted (values equal to the bound) but never read
  __syncthreads();                 // the span is loaded, the counters zeroed
  // filter
  const ValueSource<T> whole_span{values, nullptr, first, size};
  const std::uint32_t kept = count_and_filter<T, false, false, kFilterItemsPerThread>(
      whole_span, at_least_bound, digit_shift<T>(0), arrays.largest, select.counts, list_values,
      list_columns, select.warp_kept, capacity);
  if (threadIdx.x == 0) storage.sample_kept = kept;
  cluster.sync();  // every block's list and count are complete and visible to the cluster
  std::uint32_t kept_by_block[kMaxClusterBlocks];
  load_over_cluster(blocks, &storage.sample_kept, kept_by_block);
  std::uint32_t before = 0, total = 0;
  bool overflowed = false;
#pragma unroll
  for (std::uint32_t b = 0; b < kMaxClusterBlocks; ++b) {
    before += b < rank ? kept_by_block[b] : 0u;
    total += kept_by_block[b];
    overflowed = overflowed || kept_by_block[b] > capacity;
  }
  // The same in every block; the spans are intact (the filter wrote the lists).
  if (overflowed || total < arrays.k || total > static_cast<std::uint32_t>(kOneBlockListEntries))
    return fall_back();
  // collect: the finishing block's one-block storage lies over its span, dead in every block now
  const std::uint32_t finisher = static_cast<std::uint32_t>(row_index % blocks);
  auto* finish_storage =
      reinterpret_cast<RowsStorage<T>*>(dynamic_shared + cluster_work_bytes(span, sizeof(T)));
  RowsStorage<T>* remote = cluster.map_shared_rank(finish_storage, finisher);
  T* to_values = remote->work.list.values() + before;
  std::uint32_t* to_columns = remote->work.list.columns + before;
  for (std::uint32_t i = threadIdx.x; i < kept; i += kBlockThreads) {
    to_values[i] = list_values[i];
    to_columns[i] = list_columns[i];
  }
  // Every entry is in the finishing block's list, in column order (the blocks in column order,
  // each list in column order), and no block reads another's shared memory after this.
  cluster.sync();
  if (rank != finisher) return SampledClusterOutcome::kRowDone;
  // select, gather, sort: every answer is in the list (total >= k values at or above a bound,
  // so the bound is at most the k-th value)
  select_gather_sort_row<T>(arrays, row_index, total, *finish_storage);
  return SampledClusterOutcome::kRowDone;
}
#endif

/// One cluster of `cluster_blocks` blocks per row (the launch's cluster dimension; the grid is
/// num_rows x cluster_blocks blocks, kBlockThreads threads each, and
/// `cluster_launch_bytes<T>(span, k, sorted)` bytes of dynamic shared memory): load, per pass count
/// and choose the digit across the cluster, gather, and one block sorts (module comment above).
/// \p span values per block, a multiple of 64 (cluster_split()'s rounding: the list's values then
/// start on a 16-byte boundary too) and less than 65536 (the span's answer counts are 16 bits).
/// \p kSampled: the sampled cluster first (sampled_cluster_finish(); `arrays.sample` enabled,
/// `cluster_sampled_launch_bytes<T>(span, k, sorted)` bytes) — an instantiation of its own, so
/// that the plain kernel keeps its code and registers (the sample's 16 values per thread, the
/// filter and the one-block select inlined into one kernel spilled 256 bytes per thread at 64
/// registers), with 2 blocks per SM (128 registers): it runs only for few rows
/// (kSampledClusterMaxRows by the rule), whose clusters still fit one wave.
template <typename T, bool kSampled = false>
__global__ void __launch_bounds__(kBlockThreads,
                                  kSampled ? 2 : cluster_min_blocks_per_sm(sizeof(T)))
    topk_cluster_rows_kernel(TopkArrays<T> arrays, std::uint32_t span) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Bits = typename SelectKey<T>::Bits;
  namespace cg = cooperative_groups;
  __shared__ ClusterStorage<Bits> storage;
  static_assert(kMaxClusterSpanBytes / sizeof(T) < 65536,
                "a span's 16-bit lane counters and answer counts hold its length");
  static_assert(cluster_launch_fits<T>(cluster_static_bytes<Bits>()),
                "the largest span, its list and the static storage fit one block's shared memory");
  static_assert(kClusterDynamicAlignment == 128, "the alignment below");
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  typename TopkStorage<Bits>::Select& select = storage.select;
  cg::cluster_group cluster = cg::this_cluster();
  const std::uint32_t rank = cluster.block_rank();
  const std::uint32_t blocks = cluster.num_blocks();
  const std::size_t row_index = blockIdx.x / blocks;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  const std::uint32_t first = rank * span < arrays.row_length ? rank * span : arrays.row_length;
  const std::uint32_t size = arrays.row_length - first < span ? arrays.row_length - first : span;
  // Dynamic shared memory (cluster_shared_bytes()): the lane counters or the list (the same
  // bytes), then the span at the row's alignment modulo 16.
  std::uint32_t* lane_counters = reinterpret_cast<std::uint32_t*>(dynamic_shared);
  const std::uint32_t capacity = static_cast<std::uint32_t>(cluster_list_capacity(span));
  std::uint32_t* list_columns = reinterpret_cast<std::uint32_t*>(dynamic_shared);
  T* list_values = reinterpret_cast<T*>(list_columns + capacity);
  T* values = reinterpret_cast<T*>(dynamic_shared + cluster_work_bytes(span, sizeof(T)) +
                                   reinterpret_cast<std::uintptr_t>(row + first) % sizeof(uint4));

  // Phase **load** (issued; the sampled cluster draws its sample while the copies fly).
  start_span_copy(row + first, size, values);
  bool at_bound = false;  // the sample's bound is the k-th value: no digit pass (block-uniform)
  if constexpr (kSampled) {
    const SampledClusterOutcome outcome =
        sampled_cluster_finish<T>(arrays, storage, row_index, row, first, size, values, list_values,
                                  list_columns, capacity, dynamic_shared, span);
    if (outcome == SampledClusterOutcome::kRowDone) return;
    at_bound = outcome == SampledClusterOutcome::kGatherAtBound;
  }
  finish_span_copy();
  // The transform rewrites the span in place: no thread may still read it as values (the
  // sampled fallback's counts) or still copy into it. (Each thread transforms the words it
  // copied, so the copies alone would not need this barrier.)
  __syncthreads();
  // Phase **to select bits**: from here on the span (and any list filtered from it) holds
  // select bits, which every pass reads as they are (SelectKey of an unsigned type with largest
  // true is the identity).
  Bits* const span_bits = span_to_select_bits<T>(values, size, arrays.largest);
  Bits* const list_bits = reinterpret_cast<Bits*>(list_values);
  if (threadIdx.x == 0 && !at_bound) {
    select.desired = 0;
    select.mask = 0;
    select.k_left = arrays.k;
    storage.beyond_so_far = 0;
  }

  // Phases **count** (and **filter**) and **choose digit**, pass by pass, over the whole cluster.
  bool listed = false;  // the list holds every entry the later passes need (block-uniform)
  std::uint32_t list_size = 0;
#pragma unroll 1
  for (int pass = at_bound ? num_passes<T>() : 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
    // Copy pass % 2 was last read, by every block, before the cluster barrier of pass - 1.
    std::uint32_t* counts = storage.pass_counts[pass & 1];
    counts[threadIdx.x] = 0;
    if (!listed)
      for (std::uint32_t i = threadIdx.x; i < kLaneCounterWords * kLaneCounterStride;
           i += kBlockThreads)
        lane_counters[i] = 0;
    __syncthreads();  // counters zeroed, the span loaded, the prefix of the previous pass visible
    SelectPrefix<Bits> prefix;
    prefix.desired = select.desired;
    prefix.mask = select.mask;
    bool filter = false;
    if (pass > 0 && !listed) {
      // This block's values beyond the k-th value gained by the previous pass: its own counts
      // of the digits above the chosen one (a warp sum each, then one shared add per warp).
      const std::uint32_t chosen = digit_at(prefix.desired, digit_shift<T>(pass - 1));
      const std::uint32_t* previous = storage.pass_counts[(pass - 1) & 1];
      const std::uint32_t gained =
          __reduce_add_sync(0xffffffffu, threadIdx.x > chosen ? previous[threadIdx.x] : 0u);
      if ((threadIdx.x & 31u) == 0 && gained != 0) atomicAdd(&storage.beyond_so_far, gained);
      __syncthreads();
      // Exactly the entries the filter keeps: the beyond values and the new prefix's candidates.
      filter = storage.beyond_so_far + previous[chosen] <= capacity;
    }
    if (listed) {
      count_digits<Bits>(list_bits, list_size, prefix, shift, true, counts);
    } else if (filter) {
      const ValueSource<Bits> whole_span{span_bits, nullptr, first, size};
      list_size = count_and_filter<Bits, false, false, kFilterItemsPerThread>(
          whole_span, prefix, shift, true, counts, list_bits, list_columns, select.warp_kept,
          capacity);
      listed = true;
    } else {
      count_span_digits<Bits>(span_bits, size, prefix, shift, true, lane_counters, counts);
    }
    cluster.sync();  // every block's counts of this pass are complete and visible to the cluster
    const std::uint32_t digit = owned_digit();
    const std::uint32_t count = sum_over_cluster(blocks, counts + digit);
    const std::uint32_t k_left = select.k_left;
    std::uint32_t above = 0;
    if (choose_digit(count, k_left, select.scan, above))  // one thread, the same in every block
      fix_chosen_digit(select, prefix, digit, shift, k_left, above);
  }
  __syncthreads();  // the k-th value's bits and k_left are visible to the whole block

  // Phase **gather**: every warp counts the entries of its part beyond the k-th value and equal
  // to it, the blocks exchange their totals, and every warp writes its answers, each at its
  // place in (beyond, then equal) column order. The source is the list when the passes filtered
  // (it holds every such entry of the span, in column order), else the span. A lane reads
  // kGatherEntries entries at once: eight 2-byte entries as one 16-byte word, one entry of 4 or 8
  // bytes (16-byte words for those were 1-7% slower on f32 lists, session 27; see STEPS.md). The
  // words start at the word that holds entry 0: the span keeps the row's alignment modulo 16, so
  // the `lead` entries of its first word lie before it (in the work bytes), and its last word may
  // reach past its end (into the 16 bytes cluster_shared_bytes() adds); a list starts on a
  // 16-byte boundary and holds whole words (its capacity is a multiple of 16 entries). Entries
  // outside the source are never counted nor written.
  constexpr std::uint32_t kGatherEntries = sizeof(Bits) == 2 ? sizeof(uint4) / sizeof(Bits) : 1u;
  using GatherWord = std::conditional_t<kGatherEntries == 1, Bits, uint4>;
  const Bits* source_bits = listed ? list_bits : span_bits;
  const std::uint32_t source_size = listed ? list_size : size;
  const std::uint32_t lead = static_cast<std::uint32_t>(
      reinterpret_cast<std::uintptr_t>(source_bits) % sizeof(GatherWord) / sizeof(Bits));
  const GatherWord* source_words = reinterpret_cast<const GatherWord*>(source_bits - lead);
  const std::uint32_t source_words_count =
      (lead + source_size + kGatherEntries - 1) / kGatherEntries;
  // Word w's entry e is source entry w x kGatherEntries + e - lead: an index that wraps below 0
  // is past source_size too, so one comparison tells a source entry.
  const auto load_word = [&](std::uint32_t w, Bits(&entries)[kGatherEntries]) {
    const GatherWord word = source_words[w];
    memcpy(entries, &word, sizeof(GatherWord));
  };
  const auto is_entry = [&](std::uint32_t w, std::uint32_t e) {
    return w * kGatherEntries + e - lead < source_size;
  };
  const Bits kth_bits = select.desired;
  const std::uint32_t equal_wanted = select.k_left;
  const std::uint32_t beyond_wanted = arrays.k - equal_wanted;
  const std::uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const WarpPart part = warp_part(source_words_count, warp);  // in words
  std::uint32_t beyond_here = 0, equal_here = 0;
  for (std::uint32_t w = part.begin + lane; w < part.end; w += 32) {
    Bits entries[kGatherEntries];
    load_word(w, entries);
#pragma unroll
    for (std::uint32_t e = 0; e < kGatherEntries; ++e) {
      beyond_here += is_entry(w, e) && entries[e] > kth_bits ? 1u : 0u;
      equal_here += is_entry(w, e) && entries[e] == kth_bits ? 1u : 0u;
    }
  }
  beyond_here = __reduce_add_sync(0xffffffffu, beyond_here);
  equal_here = __reduce_add_sync(0xffffffffu, equal_here);
  if (lane == 0) {
    storage.warp_beyond[warp] = beyond_here;
    storage.warp_equal[warp] = equal_here;
  }
  __syncthreads();
  std::uint32_t beyond_before = 0, equal_before = 0, beyond_span = 0, equal_span = 0;
#pragma unroll
  for (std::uint32_t w = 0; w < kClusterWarps; ++w) {
    beyond_before += w < warp ? storage.warp_beyond[w] : 0u;
    equal_before += w < warp ? storage.warp_equal[w] : 0u;
    beyond_span += storage.warp_beyond[w];
    equal_span += storage.warp_equal[w];
  }
  if (threadIdx.x == 0) storage.span_answers = beyond_span | equal_span << 16;
  cluster.sync();  // every span's counts are visible to the cluster
  // The blocks before this one, summed apart (a row's totals need not fit 16 bits).
  {
    std::uint32_t answers[kMaxClusterBlocks];
    load_over_cluster(rank, &storage.span_answers, answers);
#pragma unroll
    for (std::uint32_t b = 0; b < kMaxClusterBlocks; ++b) {
      beyond_before += answers[b] & 0xffffu;
      equal_before += answers[b] >> 16;
    }
  }
  T* values_out = arrays.values_out + row_index * arrays.k;
  std::int64_t* indices_out = arrays.indices_out + row_index * arrays.k;
  for (std::uint32_t base = part.begin; base < part.end; base += 32) {
    // Warp-uniform: nothing left to write in this part.
    if (beyond_here == 0 && (equal_here == 0 || equal_before >= equal_wanted)) break;
    const std::uint32_t w = base + lane;
    Bits entries[kGatherEntries] = {};
    std::uint32_t beyond_entries = 0, equal_entries = 0;  // bit e: entry e of the word is one
    if (w < part.end) {
      load_word(w, entries);
#pragma unroll
      for (std::uint32_t e = 0; e < kGatherEntries; ++e) {
        beyond_entries |= is_entry(w, e) && entries[e] > kth_bits ? 1u << e : 0u;
        equal_entries |= is_entry(w, e) && entries[e] == kth_bits ? 1u << e : 0u;
      }
    }
    // This lane's place among the step's answers (the lanes before it hold the columns before
    // its own), both counts in one word (at most 32 x 8 each, 16 bits): with one entry a lane, two
    // ballots; with eight, one warp scan.
    std::uint32_t before_mine = 0, step_total = 0;
    if constexpr (kGatherEntries == 1) {
      const std::uint32_t lanes_below = (1u << lane) - 1u;
      const std::uint32_t beyond_lanes = __ballot_sync(0xffffffffu, beyond_entries != 0);
      const std::uint32_t equal_lanes = __ballot_sync(0xffffffffu, equal_entries != 0);
      before_mine = static_cast<std::uint32_t>(__popc(beyond_lanes & lanes_below)) |
                    static_cast<std::uint32_t>(__popc(equal_lanes & lanes_below)) << 16;
      step_total = static_cast<std::uint32_t>(__popc(beyond_lanes)) |
                   static_cast<std::uint32_t>(__popc(equal_lanes)) << 16;
    } else {
      const std::uint32_t mine = static_cast<std::uint32_t>(__popc(beyond_entries)) |
                                 static_cast<std::uint32_t>(__popc(equal_entries)) << 16;
      const std::uint32_t through_mine = warp_inclusive_sum(mine);
      before_mine = through_mine - mine;
      step_total = __shfl_sync(0xffffffffu, through_mine, 31);
    }
    std::uint32_t beyond_at = beyond_before + (before_mine & 0xffffu);
    std::uint32_t equal_rank = equal_before + (before_mine >> 16);
#pragma unroll
    for (std::uint32_t e = 0; e < kGatherEntries; ++e) {
      std::uint32_t at = arrays.k;  // not an answer
      if (((beyond_entries >> e) & 1u) != 0) {
        at = beyond_at++;
      } else if (((equal_entries >> e) & 1u) != 0) {
        if (equal_rank < equal_wanted) at = beyond_wanted + equal_rank;
        ++equal_rank;
      }
      if (at < arrays.k) {
        const std::uint32_t entry = w * kGatherEntries + e - lead;
        const std::uint32_t column = listed ? list_columns[entry] : first + entry;
        T value;
        if (!SelectKey<T>::unique_value(entries[e], arrays.largest, value)) value = row[column];
        values_out[at] = value;
        indices_out[at] = static_cast<std::int64_t>(column);
      }
    }
    beyond_before += step_total & 0xffffu;
    beyond_here -= step_total & 0xffffu;
    equal_before += step_total >> 16;
    equal_here -= step_total >> 16;
  }
  // Every block's answers are written (and visible to the cluster), and no block reads another's
  // shared memory after this: each may now exit.
  cluster.sync();
  // One block of the cluster sorts, a different one from row to row: the clusters of
  // neighbouring rows share the SMs of a GPC, and with block 0 sorting every row the sorts of
  // several rows queued on one SM (16 rows of 128256, k = 2048: twice one row's sort time).
  if (!arrays.sorted || arrays.k == 1 || rank != row_index % blocks) return;
  // The sort's tile in the dynamic shared memory (cluster_sort_bytes(): every block has room).
  sort_answers_for_k<T>(values_out, indices_out, arrays.k, arrays.largest,
                        *reinterpret_cast<AnswerSortStorage<Bits>*>(dynamic_shared));
#endif
}

}  // namespace sortlab::stage07
