/// \file
/// \brief Stage 06 kernels: classify the segments by bin (sorting the small ones on the spot),
/// then one kernel for the warp bins, one per block tile, one for the large class (one block per
/// segment), and the huge path (many blocks per segment: a plan, a histogram and one kernel per
/// pass with a look-back per segment).
///
/// The classify kernel sorts every small segment (1 .. 32 keys) itself, in the warp that read
/// its offsets, and appends every other segment's id to its bin's list in the scratch. Every
/// later kernel reads its lists' counts (written on the device) and strides over them: the host
/// sized the grid from an upper bound without knowing the counts, so warps or blocks past the
/// count exit at once. No kernel reads or writes outside [begin, end) of a segment it sorts, so
/// positions outside every segment keep the caller's values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/06_segmented_sort/bitonic_network.hpp"
#include "chapters/06_segmented_sort/size_classes.hpp"
#include "common/async_copy.cuh"
#include "common/block_scan.cuh"
#include "common/chained_launch.cuh"
#include "common/device_properties.hpp"
#include "common/key_traits.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/tile_status.hpp"
#include "common/vector_loads.cuh"
#include "common/warp_multisplit.cuh"

namespace sortlab::stage06 {

/// The Value of a keys-only sort (the block sort's own marker).
using stage05::NullType;

/// Whether values travel with the keys.
template <typename Value>
inline constexpr bool kHasValues = !std::is_same_v<Value, NullType>;

/// A value slot in registers or shared memory: the value, or one byte for a keys-only sort.
template <typename Value>
using ValueSlot = std::conditional_t<kHasValues<Value>, Value, unsigned char>;

/// The arrays one sort reads and writes. The alternates are the large class's ping-pong
/// buffers (n items each, indexed like the input); value pointers are null for keys only.
template <typename Key, typename Value>
struct SegmentedArrays {
  const Key* keys_in;       ///< the caller's input keys
  Key* keys_out;            ///< the caller's output keys
  Key* alternate_keys;      ///< scratch keys (n)
  const Value* values_in;   ///< the caller's input values
  Value* values_out;        ///< the caller's output values
  Value* alternate_values;  ///< scratch values (n)
};

/// The segments and the classification's id lists (one per bin above the small ones).
struct Segments {
  const std::uint32_t* begin_offsets;     ///< first item of each segment
  const std::uint32_t* end_offsets;       ///< one past the last item of each segment
  std::uint32_t num_segments;             ///< number of segments
  std::size_t n;                          ///< items in the arrays (segments past it are ignored)
  std::uint32_t* list_counts;             ///< kNumListBins counters, zero before classify
  std::uint32_t* list_ids;                ///< every list, list l from list_offset[l] on
  std::size_t list_offset[kNumListBins];  ///< where list l starts in list_ids
  std::uint32_t list_capacity[kNumListBins];  ///< room of list l (see plan_scratch())
  /// Large segments of at least this many keys are the huge path's (kHugeMinItems when it runs,
  /// else never: the large kernel then sorts every large segment).
  std::uint32_t huge_min_items;
  /// No segment is sorted by a bin below this one (classify_bin_at_least(); 0 but for the
  /// measurement knob sort_pairs_with_min_bin()).
  int min_bin;
};

/// What the sort orders by: bits [begin_bit, end_bit) of the ordered key, and the direction.
struct BitRange {
  int begin_bit;    ///< first bit
  int end_bit;      ///< one past the last bit
  bool descending;  ///< largest first
};

/// The id list of list bin \p list (bin kFirstWarpBin + list).
/// \param segments the segments and the classification
/// \param list 0 .. kNumListBins - 1
__device__ __forceinline__ const std::uint32_t* list_ids(const Segments& segments, int list) {
  return segments.list_ids + segments.list_offset[list];
}

/// Entries in list \p list: its counter, but never more than its room. Only overlapping
/// segments (a precondition the sort cannot check) can push a counter past the room; the
/// classify kernel then drops the ids that do not fit instead of writing past the list.
/// \param segments the segments and the classification
/// \param list 0 .. kNumListBins - 1
__device__ __forceinline__ std::uint32_t list_count(const Segments& segments, int list) {
  return min(segments.list_counts[list], segments.list_capacity[list]);
}

/// The list of bin \p bin (bins kFirstWarpBin .. kLargeBin).
/// \param bin a bin above the small ones
__host__ __device__ constexpr int list_of_bin(int bin) {
  return bin - kFirstWarpBin;
}

/// Shuffles \p value (an unsigned integer of up to 8 bytes) from lane (this lane ^ \p mask).
template <typename Bits>
__device__ __forceinline__ Bits shuffle_xor(Bits value, int mask) {
  using Wide = std::conditional_t<sizeof(Bits) <= 4, unsigned, unsigned long long>;
  return static_cast<Bits>(__shfl_xor_sync(0xffffffffu, static_cast<Wide>(value), mask));
}

/// Shuffles \p value (an unsigned integer of up to 8 bytes, or a keys-only sort's value byte)
/// from lane \p source.
template <typename Bits>
__device__ __forceinline__ Bits shuffle_from(Bits value, unsigned source) {
  using Wide = std::conditional_t<sizeof(Bits) <= 4, unsigned, unsigned long long>;
  return static_cast<Bits>(
      __shfl_sync(0xffffffffu, static_cast<Wide>(value), static_cast<int>(source)));
}

/// Lanes below this one in the warp, as a mask.
__device__ __forceinline__ unsigned lanes_below(unsigned lane) {
  return (1u << lane) - 1u;
}

// ---- The bitonic network over lanes and registers ----------------------------------------------

/// Sorts kLanes x kItems entries (bits, position) with the bitonic network of
/// bitonic_network.hpp, entry x = group_lane * kItems + i in register i of lane group_lane of a
/// group of kLanes consecutive lanes (aligned to kLanes). Steps j < kItems compare two registers
/// of one lane; the others compare register i with register i of lane group_lane ^ (j / kItems),
/// one shuffle of the bits and one of the position (the xor never leaves the group). Every lane
/// of the warp must call it with the same kLanes and kItems. Afterwards entry x holds the x-th
/// smallest entry.
/// \param bits the entries' sort bits
/// \param position the entries' positions (all different)
/// \param group_lane this lane's index in its group, 0 .. kLanes - 1
template <int kLanes, int kItems, typename Bits>
__device__ __forceinline__ void bitonic_sort_entries(Bits (&bits)[kItems],
                                                     std::uint32_t (&position)[kItems],
                                                     unsigned group_lane) {
  constexpr int kLogWidth = ceil_log2(static_cast<std::uint32_t>(kLanes * kItems));
#pragma unroll
  for (int log_phase = 1; log_phase <= kLogWidth; ++log_phase) {
#pragma unroll
    for (int log_step = log_phase - 1; log_step >= 0; --log_step) {
      const unsigned phase = 1u << log_phase, step = 1u << log_step;
      if (step < static_cast<unsigned>(kItems)) {
        // Both entries of a pair are in this lane's registers i and i + step.
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          if ((static_cast<unsigned>(i) & step) != 0u) continue;
          const int j = i + static_cast<int>(step);
          const unsigned entry = group_lane * kItems + static_cast<unsigned>(i);
          const bool upper_first = entry_before(bits[j], position[j], bits[i], position[i]);
          if (bitonic_keeps_min(entry, phase, step) == upper_first) {
            const Bits b = bits[i];
            bits[i] = bits[j];
            bits[j] = b;
            const std::uint32_t p = position[i];
            position[i] = position[j];
            position[j] = p;
          }
        }
      } else {
        // The partner is register i of another lane of the group.
        const int lane_mask = static_cast<int>(step) / kItems;
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          const Bits other_bits = shuffle_xor(bits[i], lane_mask);
          const std::uint32_t other_position = shuffle_xor(position[i], lane_mask);
          const bool other_first = entry_before(other_bits, other_position, bits[i], position[i]);
          const unsigned entry = group_lane * kItems + static_cast<unsigned>(i);
          if (bitonic_keeps_min(entry, phase, step) == other_first) {
            bits[i] = other_bits;
            position[i] = other_position;
          }
        }
      }
    }
  }
}

// ---- 1. Classification, and the small bins sorted on the spot
// ------------------------------------

/// The offsets of one warp's small segments in shared memory, grouped by bin (a counting sort of
/// the warp's 32 segments by bin), so that the segments of one bin are consecutive.
struct SmallSlots {
  std::uint32_t begin[kWarpLanes];  ///< first item of each small segment
  std::uint32_t size[kWarpLanes];   ///< its size
};

/// Shared memory of the classify kernel.
struct ClassifyStorage {
  std::uint32_t block_count[kNumListBins];  ///< the block's segments of each list bin
  std::uint32_t block_base[kNumListBins];   ///< where the block's run starts in each list
  SmallSlots small[kWarpsPerBlock];         ///< per warp
};

/// Rounds of a small bin whose loads one warp issues before it sorts any of them: independent
/// loads in flight hide the memory latency that one round at a time would wait for in turn.
inline constexpr int kSmallRoundsInFlight = 4;

/// Sorts the \p count small segments of bin kBin listed at slots.begin/size[first ..] with
/// groups of kLanes = 2^kBin lanes, one segment per group, 32 / kLanes segments per round of
/// the warp. Per round every lane loads the key (and value) at its group position, the group's
/// network sorts the entries (sort bits, position), and every lane fetches the key its entry
/// names from that lane of its group (one shuffle; the value likewise) and stores it at its own
/// position: loads and stores of consecutive segments are consecutive across the warp. All
/// lanes of the warp call it (count is the same for all).
template <int kBin, typename Key, typename Value>
__device__ __forceinline__ void sort_small_bin(const SegmentedArrays<Key, Value>& arrays,
                                               const SmallSlots& slots, unsigned first,
                                               unsigned count, const BitRange& range,
                                               unsigned lane) {
  using Traits = KeyTraits<Key>;
  using Bits = typename Traits::Bits;
  constexpr int kLanes = small_group_lanes(kBin);
  constexpr unsigned kGroupsPerWarp = kWarpLanes / kLanes;
  constexpr int kInFlight = kLanes < kSmallRoundsInFlight ? kLanes : kSmallRoundsInFlight;
  const unsigned group_lane = lane & (kLanes - 1u);  // the position this lane loads and stores
  const unsigned group_first_lane = lane - group_lane;
  const unsigned group = lane / kLanes;
  const unsigned rounds = (count + kGroupsPerWarp - 1) / kGroupsPerWarp;
  const int num_bits = range.end_bit - range.begin_bit;
  for (unsigned round0 = 0; round0 < rounds; round0 += kInFlight) {
    // Phase A: the loads of up to kInFlight rounds.
    Bits raw[kInFlight];
    ValueSlot<Value> value[kInFlight];
    std::uint32_t begin[kInFlight], size[kInFlight];
#pragma unroll
    for (int q = 0; q < kInFlight; ++q) {
      const unsigned slot = (round0 + q) * kGroupsPerWarp + group;
      size[q] = slot < count ? slots.size[first + slot] : 0u;
      begin[q] = slot < count ? slots.begin[first + slot] : 0u;
      raw[q] = 0;
      value[q] = ValueSlot<Value>{};
      if (group_lane < size[q]) {
        raw[q] = Traits::raw_bits(arrays.keys_in[begin[q] + group_lane]);
        if constexpr (kHasValues<Value>) value[q] = arrays.values_in[begin[q] + group_lane];
      }
    }
    // Phase B: per round, the group's network, the gather by shuffle, the stores.
#pragma unroll
    for (int q = 0; q < kInFlight; ++q) {
      if (round0 + q >= rounds) break;  // the same for the whole warp
      Bits bits[1] = {static_cast<Bits>(~Bits{0})};
      std::uint32_t position[1] = {group_lane};
      if (group_lane < size[q])
        bits[0] = network_sort_bits(Traits::from_raw_bits(raw[q]), range.begin_bit, num_bits,
                                    range.descending);
      bitonic_sort_entries<kLanes, 1>(bits, position, group_lane);
      // Lane position[0] of the group holds the key that belongs here (a real one: the padding
      // entries sort after every real entry).
      const unsigned source = group_first_lane + position[0];
      const Bits sorted = shuffle_from(raw[q], source);
      if constexpr (kHasValues<Value>) {
        const Value sorted_value = shuffle_from(value[q], source);
        if (group_lane < size[q]) arrays.values_out[begin[q] + group_lane] = sorted_value;
      }
      if (group_lane < size[q])
        arrays.keys_out[begin[q] + group_lane] = Traits::from_raw_bits(sorted);
    }
  }
}

/// One thread per segment, in three phases:
///  1. the segment's bin (classify_bin(): a power of two of sizes per bin);
///  2. a segment of a bin above the small ones appends its id to its bin's list: the lanes of a
///     warp with the same bin (__match_any_sync) take consecutive places in the block's run of
///     that bin with one shared atomic, then one thread per bin takes the block's run in the
///     global list with one global atomic (so a list counter sees one atomic per block, not per
///     warp or segment). An id that would land past its list's room (only overlapping segments
///     can cause that) is dropped rather than written out of bounds;
///  3. the warp sorts its own small segments (1 .. 32 keys), bin by bin: a counting sort by bin
///     puts their offsets in shared memory, then sort_small_bin() runs each bin with groups of
///     its width, several segments per warp at once. Small segments thus cost no list entry and
///     no second read of their offsets.
/// Launch ceil(num_segments / kBlockThreads) blocks of kBlockThreads threads (every thread takes
/// part in the ballots and barriers, past the last segment too).
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads)
    classify_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  __shared__ ClassifyStorage storage;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x / 32u;

  // Phase 1: the bin of this thread's segment.
  const std::size_t s = static_cast<std::size_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  std::uint32_t begin = 0, size = 0;
  if (s < segments.num_segments) {
    begin = segments.begin_offsets[s];
    size = segment_size(begin, segments.end_offsets[s], segments.n);
  }
  const int bin = classify_bin_at_least(size, sizeof(Key), segments.min_bin);

  // Phase 2: append to the lists, one shared atomic per warp and bin, one global per block and
  // bin.
  if (threadIdx.x < kNumListBins) storage.block_count[threadIdx.x] = 0;
  __syncthreads();
  const bool listed = bin >= kFirstWarpBin && bin <= kLargeBin;
  const int list = listed ? list_of_bin(bin) : 0;
  const unsigned peers = __match_any_sync(0xffffffffu, bin);
  const int leader = __ffs(static_cast<int>(peers)) - 1;
  std::uint32_t warp_base = 0;
  if (listed && static_cast<int>(lane) == leader)
    warp_base = atomicAdd(storage.block_count + list, static_cast<std::uint32_t>(__popc(peers)));
  const std::uint32_t rank = __shfl_sync(0xffffffffu, warp_base, leader) +
                             static_cast<std::uint32_t>(__popc(peers & lanes_below(lane)));
  __syncthreads();
  if (threadIdx.x < kNumListBins) {
    const std::uint32_t block_count = storage.block_count[threadIdx.x];
    storage.block_base[threadIdx.x] =
        block_count > 0 ? atomicAdd(segments.list_counts + threadIdx.x, block_count) : 0u;
  }
  __syncthreads();
  if (listed) {
    const std::uint32_t slot = storage.block_base[list] + rank;
    if (slot < segments.list_capacity[list])
      segments.list_ids[segments.list_offset[list] + slot] = static_cast<std::uint32_t>(s);
  }

  // Phase 3: this warp's small segments, grouped by bin, then sorted bin by bin.
  SmallSlots& slots = storage.small[warp];
  unsigned first[kNumSmallBins], count[kNumSmallBins];
  unsigned next = 0;
#pragma unroll
  for (int b = 0; b < kNumSmallBins; ++b) {
    const unsigned members = __ballot_sync(0xffffffffu, bin == b);
    if (bin == b) {
      const unsigned slot = next + static_cast<unsigned>(__popc(members & lanes_below(lane)));
      slots.begin[slot] = begin;
      slots.size[slot] = size;
    }
    first[b] = next;
    count[b] = static_cast<unsigned>(__popc(members));
    next += count[b];
  }
  __syncwarp();
  if (count[0] > 0) sort_small_bin<0>(arrays, slots, first[0], count[0], range, lane);
  if (count[1] > 0) sort_small_bin<1>(arrays, slots, first[1], count[1], range, lane);
  if (count[2] > 0) sort_small_bin<2>(arrays, slots, first[2], count[2], range, lane);
  if (count[3] > 0) sort_small_bin<3>(arrays, slots, first[3], count[3], range, lane);
  if (count[4] > 0) sort_small_bin<4>(arrays, slots, first[4], count[4], range, lane);
  if (count[5] > 0) sort_small_bin<5>(arrays, slots, first[5], count[5], range, lane);
  static_assert(kNumSmallBins == 6, "one call per small bin");
}

// ---- 2. Warp bins: one warp per segment, 2 .. 8 keys per lane -----------------------------------

/// Shared slot of segment position \p position in a warp's stage: one padding slot after every
/// 32, so that the blocked reads (lane l reads l * K + i) of a warp spread over the banks.
__device__ __forceinline__ std::uint32_t stage_slot(std::uint32_t position) {
  return position + (position >> 5);
}

/// One warp's shared memory in the warp kernel: the segment's keys (as raw bits) and values,
/// staged so that the global loads and stores are coalesced whatever order the network needs,
/// and the sorted order (segment position of each output position).
template <typename Key, typename Value>
struct WarpStage {
  static constexpr int kSlots = kWarpMaxItems + kWarpMaxItems / 32;  ///< padded slots
  typename KeyTraits<Key>::Bits keys[kSlots];                        ///< the segment's keys
  ValueSlot<Value> values[kHasValues<Value> ? kSlots : 1];           ///< and values
  std::uint16_t order[kWarpMaxItems];  ///< order[r]: the segment position sorted to r
};

/// Sorts the segment [begin, begin + size) of warp bin kBin (2^(kBin-1) + 1 .. 2^kBin keys)
/// with one warp, K = 2^kBin / 32 keys per lane, in three phases:
///  1. stage: the warp copies the keys and values to shared memory (coalesced: lane l reads
///     positions l, l + 32, ...);
///  2. sort: lane l builds the entries (sort bits, position) of positions l * K .. l * K + K - 1
///     (past the end: all ones) and the network sorts them (bitonic_sort_entries(): steps below
///     K in registers, the others by shuffles);
///  3. write: lane l records where its sorted entries came from in order[], then the warp
///     copies key and value order[r] from the stage to output position r (coalesced again).
/// All lanes of the warp call it; it ends with the stage free for the warp's next segment.
template <int kBin, typename Key, typename Value>
__device__ __forceinline__ void sort_warp_segment(const SegmentedArrays<Key, Value>& arrays,
                                                  std::uint32_t begin, std::uint32_t size,
                                                  const BitRange& range,
                                                  WarpStage<Key, Value>& stage, unsigned lane) {
  using Traits = KeyTraits<Key>;
  using Bits = typename Traits::Bits;
  constexpr int K = warp_keys_per_lane(kBin);

  // Phase 1: stage the segment.
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = lane + static_cast<std::uint32_t>(i) * kWarpLanes;
    if (p < size) {
      stage.keys[stage_slot(p)] = Traits::raw_bits(arrays.keys_in[begin + p]);
      if constexpr (kHasValues<Value>) stage.values[stage_slot(p)] = arrays.values_in[begin + p];
    }
  }
  __syncwarp();

  // Phase 2: the entries, blocked, and the network.
  const int num_bits = range.end_bit - range.begin_bit;
  Bits bits[K];
  std::uint32_t position[K];
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t x = lane * K + static_cast<std::uint32_t>(i);
    position[i] = x;
    bits[i] = x < size ? network_sort_bits(Traits::from_raw_bits(stage.keys[stage_slot(x)]),
                                           range.begin_bit, num_bits, range.descending)
                       : static_cast<Bits>(~Bits{0});
  }
  bitonic_sort_entries<kWarpLanes, K>(bits, position, lane);

  // Phase 3: where each output position comes from, then the coalesced copy out.
#pragma unroll
  for (int i = 0; i < K; ++i)
    stage.order[lane * K + static_cast<std::uint32_t>(i)] = static_cast<std::uint16_t>(position[i]);
  __syncwarp();
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t r = lane + static_cast<std::uint32_t>(i) * kWarpLanes;
    if (r < size) {
      const std::uint32_t from = stage_slot(stage.order[r]);
      arrays.keys_out[begin + r] = Traits::from_raw_bits(stage.keys[from]);
      if constexpr (kHasValues<Value>) arrays.values_out[begin + r] = stage.values[from];
    }
  }
  __syncwarp();
}

/// Blocks of the warp kernel an SM should hold at once: __launch_bounds__ then caps its
/// registers at 65536 / (3 x 256) = 85 per thread. Without the cap ptxas took 106 to 122 (two
/// blocks, 16 warps per SM) for a kernel that waits on memory once per segment.
inline constexpr int kWarpKernelMinBlocksPerSm = 3;

/// One warp per segment of the warp bins (33 .. 256 keys; 8 segments per block at once). The
/// three lists are seen as one (bin 64's list, then 128's, then 256's) and warp w of the grid
/// takes its entries w, w + warps in the grid, ... in batches of 32:
///  1. fetch: lane k reads the id of the batch's k-th entry and that segment's offsets, so one
///     round trip to memory serves 32 segments instead of two per segment;
///  2. sort: the warp takes the batch's segments in turn (begin and size by shuffle from lane
///     k) and sorts each with sort_warp_segment() of its bin.
/// Launch blocks of kBlockThreads threads. The three lists hold at most n / 33 + n / 65 +
/// n / 129 < 2^30 ids (plan_scratch()), so 32-bit entry numbers cannot wrap.
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads, kWarpKernelMinBlocksPerSm)
    warp_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  static_assert(kNumWarpBins == 3, "three lists below");
  __shared__ WarpStage<Key, Value> stages[kWarpsPerBlock];
  const unsigned lane = threadIdx.x & 31u;
  WarpStage<Key, Value>& stage = stages[threadIdx.x / 32u];
  constexpr int kList = list_of_bin(kFirstWarpBin);
  const std::uint32_t count0 = list_count(segments, kList);
  const std::uint32_t count01 = count0 + list_count(segments, kList + 1);
  const std::uint32_t total = count01 + list_count(segments, kList + 2);
  const std::uint32_t warps = gridDim.x * kWarpsPerBlock;
  for (std::uint32_t batch = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32u; batch < total;
       batch += kWarpLanes * warps) {  // the same for every lane of the warp
    // Phase 1: lane k fetches the batch's k-th segment.
    const std::uint32_t u = batch + lane * warps;
    std::uint32_t begin = 0, size = 0;
    if (u < total) {
      const std::uint32_t s = u < count0    ? list_ids(segments, kList)[u]
                              : u < count01 ? list_ids(segments, kList + 1)[u - count0]
                                            : list_ids(segments, kList + 2)[u - count01];
      begin = segments.begin_offsets[s];
      size = segment_size(begin, segments.end_offsets[s], segments.n);
    }
    // Phase 2: the batch's segments in turn, each by the whole warp.
    for (unsigned k = 0; k < kWarpLanes; ++k) {
      const std::uint32_t u = batch + k * warps;
      if (u >= total) break;  // the same for every lane
      const std::uint32_t segment_begin = __shfl_sync(0xffffffffu, begin, static_cast<int>(k));
      const std::uint32_t segment_items = __shfl_sync(0xffffffffu, size, static_cast<int>(k));
      if (u < count0)
        sort_warp_segment<kFirstWarpBin>(arrays, segment_begin, segment_items, range, stage, lane);
      else if (u < count01)
        sort_warp_segment<kFirstWarpBin + 1>(arrays, segment_begin, segment_items, range, stage,
                                             lane);
      else
        sort_warp_segment<kFirstWarpBin + 2>(arrays, segment_begin, segment_items, range, stage,
                                             lane);
    }
  }
}

// ---- 3. Tile bins: one block, one tile of stage 05's block radix sort ---------------------------

/// The block sort of tile bin kBin (stage 05's public block sort, tile_shape(kBin)).
template <typename Key, typename Value, int kBin>
using TileSort =
    stage05::BlockRadixSort<Key, tile_shape(kBin).threads, tile_shape(kBin).keys_per_thread, Value,
                            tile_shape(kBin).radix_bits>;

/// The tile bin whose tile the large class uses: the largest tile for the key's width.
template <typename Key>
inline constexpr int kLargeTileBin = largest_tile_bin(sizeof(Key));

/// Registers a thread of a block kernel may take at most: __launch_bounds__ asks for
/// 65536 / (threads x 128) blocks per SM (2 for 256 threads, 4 for 128). Without the cap ptxas
/// took up to 255 for 16 keys and 16 values per thread, one block per SM.
inline constexpr int kBlockKernelMaxRegisters = 128;

/// Minimum blocks per SM of a block kernel of \p threads threads (see kBlockKernelMaxRegisters).
/// \param threads threads per block
constexpr int block_kernel_min_blocks(int threads) {
  return 65536 / (threads * kBlockKernelMaxRegisters);
}

/// Threads per block of the tile kernel of tile bin kBin (named for __launch_bounds__).
template <int kBin>
inline constexpr int kTileThreads = tile_shape(kBin).threads;

/// Minimum blocks per SM of the tile kernel of tile bin kBin (see kBlockKernelMaxRegisters).
template <int kBin>
inline constexpr int kTileMinBlocksPerSm = block_kernel_min_blocks(kTileThreads<kBin>);

/// Minimum blocks per SM of the large kernel (see kBlockKernelMaxRegisters).
inline constexpr int kLargeMinBlocksPerSm = block_kernel_min_blocks(kBlockThreads);

/// The key every tile position past the segment's end holds: it sorts last in the requested
/// direction (its twiddled bits are all ones ascending, all zeros descending, so every digit of
/// it is the largest digit). The block sort is stable and the padding sits at the tile's end,
/// so it stays after every real key, even a real key equal to it.
/// \param descending largest first
template <typename Key>
__device__ __forceinline__ Key padding_key(bool descending) {
  using Twiddled = stage05::TwiddledKey<Key>;
  using Bits = typename Twiddled::Bits;
  return Twiddled::out(descending ? Bits{0} : static_cast<Bits>(~Bits{0}));
}

/// Shared memory of the large kernel's tiles: the block sort's storage, or a tile of keys or
/// values on its way from striped (coalesced global loads) to blocked (the sort's input order).
/// (The tile kernel keeps the next segment's tile beside the sort's storage: TileKernelStorage.)
template <typename Key, typename Value, int kBin>
union TileStorage {
  /// Keys of one tile.
  static constexpr int kItems = static_cast<int>(bin_max_items(kBin));
  /// Slots of one tile with a padding slot after every 32 (stage05::padded_slot()).
  static constexpr int kSlots = kItems + kItems / 32 + 1;
  typename TileSort<Key, Value, kBin>::TempStorage sort;  ///< while sorting
  Key keys[kSlots];                                       ///< while loading keys
  ValueSlot<Value> values[kSlots];                        ///< while loading values
};

/// Reads tile positions [0, valid) from padded shared \p slots (stage05::padded_slot()) into a
/// *blocked* register array (thread t holds tile positions t*K .. t*K + K-1, the order the block
/// sort keeps for equal keys); positions from \p valid on get \p padding, whatever their slots
/// hold. The slots must have been written and made visible by a barrier.
template <typename T, int K>
__device__ __forceinline__ void read_blocked(const T* slots, std::uint32_t valid, T padding,
                                             T (&items)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = threadIdx.x * K + static_cast<std::uint32_t>(i);
    items[i] = p < valid ? slots[stage05::padded_slot(p)] : padding;
  }
}

/// Loads items [0, valid) of \p source (coalesced: thread t reads t, t + kThreads, ...) into a
/// *blocked* register array through shared memory (read_blocked()); positions from \p valid on
/// get \p padding. Starts and ends with the slots free for the next user.
template <int kThreads, typename T, int K>
__device__ __forceinline__ void load_blocked(const T* source, std::uint32_t valid, T padding,
                                             T* slots, T (&items)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kThreads;
    if (p < valid) slots[stage05::padded_slot(p)] = source[p];
  }
  __syncthreads();
  read_blocked(slots, valid, padding, items);
  __syncthreads();
}

/// Starts copying items [0, valid) of \p source (coalesced: thread t copies t, t + kThreads,
/// ...) into padded shared \p slots in the background (common/async_copy.cuh) and closes this
/// thread's group of copies. Before read_blocked() reads them: async_copy_wait_all() and a
/// barrier.
template <int kThreads, int K, typename T>
__device__ __forceinline__ void start_striped_copy(const T* source, std::uint32_t valid, T* slots) {
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kThreads;
    if (p < valid) async_copy(slots + stage05::padded_slot(p), source + p);
  }
  async_copy_commit();
}

/// Offsets of the segments a block kernel sorts next, fetched by all threads at once.
template <int kThreads>
struct SegmentBatch {
  std::uint32_t begin[kThreads];  ///< first item of each segment of the batch
  std::uint32_t size[kThreads];   ///< its size
};

/// The block sort of tile bin kBin at \p kRadixBits bits per pass.
template <typename Key, typename Value, int kBin, int kRadixBits>
using TileSortOf = stage05::BlockRadixSort<Key, tile_shape(kBin).threads,
                                           tile_shape(kBin).keys_per_thread, Value, kRadixBits>;

/// Shared memory of the tile kernel (dynamic: for the 4096-key tile it passes the 48 KiB of
/// static shared memory) when its wide passes take \p kWideBits-bit digits (its narrow width:
/// no wide passes): the block sorts' storage, and the padded slots (stage05::padded_slot()) into
/// which the next segment's keys and values stream while the block sorts the current one.
template <typename Key, typename Value, int kBin, int kWideBits>
struct TileKernelStorageOf {
  /// Slots of one tile with a padding slot after every 32.
  static constexpr int kSlots = TileStorage<Key, Value, kBin>::kSlots;
  /// The block sorts' storage: the wide passes' and then the narrow passes'.
  union Sorts {
    typename TileSortOf<Key, Value, kBin, kWideBits>::TempStorage wide;  ///< the wide passes
    typename TileSort<Key, Value, kBin>::TempStorage narrow;             ///< the narrow passes
  } sort;                                                                ///< the block sorts
  Key next_keys[kSlots];                                         ///< the next segment's keys
  ValueSlot<Value> next_values[kHasValues<Value> ? kSlots : 1];  ///< and values
};

/// Shared memory a block of the tile kernel of bin kBin takes with \p kWideBits-bit wide
/// passes: TileKernelStorageOf, the segment batch, and the 1 KiB the system keeps per block.
template <typename Key, typename Value, int kBin, int kWideBits>
inline constexpr std::size_t kTileBlockSharedBytes =
    sizeof(TileKernelStorageOf<Key, Value, kBin, kWideBits>) +
    sizeof(SegmentBatch<tile_shape(kBin).threads>) + 1024;

/// Digit width of the wide passes the shape of tile bin kBin asks for (its narrow width where it
/// asks for none, so that the size below can always be taken).
template <int kBin>
inline constexpr int kTileWideBitsAsked = tile_shape(kBin).wide_radix_bits != 0
                                              ? tile_shape(kBin).wide_radix_bits
                                              : tile_shape(kBin).radix_bits;

/// Whether the tile kernel of bin kBin sorts its lowest bits in wide passes first
/// (tile_wide_bits()): where its shape has them, a sort of all the key's bits takes at least one
/// (16-bit keys at 6 and 7 bits take none: three passes either way, so they keep the smaller
/// storage), and the blocks per SM that its __launch_bounds__ asks for still fit an SM's
/// shared memory with the wider counters (with 8-byte values the 4096-key tile's 7-bit counters
/// would leave room for one block). kSharedMemoryPerSm is the H100's: a build for GPUs whose
/// blocks get less shared memory (sm_86 and sm_89: 99 KiB per block) must leave wide passes off,
/// or the launch fails.
template <typename Key, typename Value, int kBin>
constexpr bool tile_has_wide_passes() {
  constexpr std::size_t kWideBlockBytes =
      kTileBlockSharedBytes<Key, Value, kBin, kTileWideBitsAsked<kBin>>;
  return tile_shape(kBin).wide_radix_bits != 0 &&
         tile_wide_bits(tile_shape(kBin), KeyTraits<Key>::kNumBits) > 0 &&
         kTileMinBlocksPerSm<kBin> * kWideBlockBytes <= kSharedMemoryPerSm;
}

/// Digit width of tile bin kBin's wide passes (its narrow width where it has none).
template <typename Key, typename Value, int kBin>
constexpr int tile_wide_radix_bits() {
  return tile_has_wide_passes<Key, Value, kBin>() ? tile_shape(kBin).wide_radix_bits
                                                  : tile_shape(kBin).radix_bits;
}

/// The block sort of tile bin kBin's wide passes (TileSort itself where it has none).
template <typename Key, typename Value, int kBin>
using TileWideSort = TileSortOf<Key, Value, kBin, tile_wide_radix_bits<Key, Value, kBin>()>;

/// Shared memory of the tile kernel of bin kBin (TileKernelStorageOf at its wide width).
template <typename Key, typename Value, int kBin>
using TileKernelStorage =
    TileKernelStorageOf<Key, Value, kBin, tile_wide_radix_bits<Key, Value, kBin>()>;

/// One block per segment of tile bin kBin (2^(kBin-1) + 1 .. 2^kBin keys, so the tile is never
/// more than twice the segment). Block b takes entries b, b + gridDim.x, ... of the bin's list in
/// batches of one entry per thread:
///  1. fetch: thread t reads the id of the batch's t-th entry and that segment's offsets into
///     shared memory (one round trip for the whole batch instead of two per segment);
///  2. per segment of the batch, whose keys and values were already copied into the next-tile
///     slots in the background:
///     a. load: wait for the copy, read the tile blocked (padded past the segment's end);
///     b. prefetch: start the background copy of the batch's next segment into the now free
///        slots (common/async_copy.cuh), so that its DRAM latency hides behind this sort;
///     c. sort the tile with stage 05's BlockRadixSort of tile_shape(kBin) (blocked in, striped
///        out; where the bin has wide passes, a first BlockRadixSort of the wider digits sorts
///        the lowest tile_wide_bits() bits, keeping the tile blocked, and the second the rest:
///        an LSD sort is its passes in order, whichever sort runs them), and store its first
///        `size` positions (coalesced).
/// Launch blocks of tile_shape(kBin).threads threads with sizeof(TileKernelStorage) bytes of
/// dynamic shared memory.
template <typename Key, typename Value, int kBin>
__global__ void __launch_bounds__(kTileThreads<kBin>, kTileMinBlocksPerSm<kBin>)
    tile_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Sort = TileSort<Key, Value, kBin>;
  constexpr int kThreads = tile_shape(kBin).threads;
  constexpr int K = tile_shape(kBin).keys_per_thread;
  extern __shared__ __align__(16) unsigned char tile_kernel_shared[];
  auto& storage = *reinterpret_cast<TileKernelStorage<Key, Value, kBin>*>(tile_kernel_shared);
  __shared__ SegmentBatch<kThreads> batch;
  const std::uint32_t count = list_count(segments, list_of_bin(kBin));
  const std::uint32_t* ids = list_ids(segments, list_of_bin(kBin));
  const std::uint64_t blocks = gridDim.x;
  const auto start_copy = [&](int k) {  // the batch's k-th segment into the next-tile slots
    start_striped_copy<kThreads, K>(arrays.keys_in + batch.begin[k], batch.size[k],
                                    storage.next_keys);
    if constexpr (kHasValues<Value>)
      start_striped_copy<kThreads, K>(arrays.values_in + batch.begin[k], batch.size[k],
                                      storage.next_values);
  };
  for (std::uint64_t first = blockIdx.x; first < count;
       first += kThreads * blocks) {  // the same for the whole block
    // Phase 1: thread t fetches the batch's t-th segment. The previous batch's last barrier
    // ordered every read of `batch` and of the slots before these writes.
    const std::uint64_t mine = first + threadIdx.x * blocks;
    std::uint32_t begin = 0, size = 0;
    if (mine < count) {
      const std::uint32_t s = ids[mine];
      begin = segments.begin_offsets[s];
      size = segment_size(begin, segments.end_offsets[s], segments.n);
    }
    batch.begin[threadIdx.x] = begin;
    batch.size[threadIdx.x] = size;
    __syncthreads();
    start_copy(0);
    // Phase 2: the batch's segments in turn.
    for (int k = 0; k < kThreads; ++k) {
      if (first + k * blocks >= count) break;  // the same for the whole block
      const std::uint32_t segment_begin = batch.begin[k];
      const std::uint32_t segment_items = batch.size[k];
      // 2a. load: this thread's copies have landed, and after the barrier everyone's.
      async_copy_wait_all();
      __syncthreads();
      Key keys[K];
      [[maybe_unused]] ValueSlot<Value> values[kHasValues<Value> ? K : 1];
      read_blocked(storage.next_keys, segment_items, padding_key<Key>(range.descending), keys);
      if constexpr (kHasValues<Value>)
        read_blocked(storage.next_values, segment_items, Value{}, values);
      __syncthreads();  // every thread holds its part of the tile: the slots are free
      // 2b. prefetch the next segment of the batch (the same decision for the whole block).
      if (k + 1 < kThreads && first + (k + 1) * blocks < count) start_copy(k + 1);
      // 2c. sort (the wide passes first, where the bin has them) and store.
      int narrow_begin_bit = range.begin_bit;
      if constexpr (tile_has_wide_passes<Key, Value, kBin>()) {
        const int wide_bits =
            tile_wide_bits(tile_shape(kBin), range.end_bit - range.begin_bit);  // whole block
        if (wide_bits > 0) {
          using WideSort = TileWideSort<Key, Value, kBin>;
          narrow_begin_bit += wide_bits;
          if constexpr (kHasValues<Value>) {
            if (range.descending)
              WideSort(storage.sort.wide)
                  .sort_descending(keys, values, range.begin_bit, narrow_begin_bit);
            else
              WideSort(storage.sort.wide).sort(keys, values, range.begin_bit, narrow_begin_bit);
          } else {
            if (range.descending)
              WideSort(storage.sort.wide).sort_descending(keys, range.begin_bit, narrow_begin_bit);
            else
              WideSort(storage.sort.wide).sort(keys, range.begin_bit, narrow_begin_bit);
          }
          // Stage 05's contract: a barrier before the storage is reused (its passes end with
          // one today, so this one costs a barrier per segment of bin 12 and keeps the contract).
          __syncthreads();
        }
      }
      if constexpr (kHasValues<Value>)
        Sort(storage.sort.narrow)
            .sort_blocked_to_striped(keys, values, range.descending, narrow_begin_bit,
                                     range.end_bit);
      else
        Sort(storage.sort.narrow)
            .sort_blocked_to_striped(keys, range.descending, narrow_begin_bit, range.end_bit);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kThreads;
        if (p < segment_items) {
          arrays.keys_out[segment_begin + p] = keys[i];
          if constexpr (kHasValues<Value>) arrays.values_out[segment_begin + p] = values[i];
        }
      }
      __syncthreads();  // the sort's storage (and, after the last, `batch`) is free again
    }
  }
}

// ---- 4. Large segments: one block, radix passes through global scratch (the slow path) --------

/// Digit values of a large-class pass.
inline constexpr int kLargeDigits = 1 << kBlockRadixBits;
static_assert(kLargeDigits <= kBlockThreads, "one thread per digit in the scans");

/// The digit of \p key in a large-class pass, computed exactly as the block sort computes it
/// (stage05::TwiddledKey::digit), so that the sort's order and the scatter's offsets agree.
template <typename Key>
__device__ __forceinline__ std::uint32_t large_pass_digit(Key key, int first_bit, int num_bits,
                                                          bool descending) {
  using Twiddled = stage05::TwiddledKey<Key>;
  const auto bits = Twiddled::in(key);
  return descending ? Twiddled::template digit<true>(bits, first_bit, num_bits)
                    : Twiddled::template digit<false>(bits, first_bit, num_bits);
}

/// Shared memory of a large-kernel pass (kBlockRadixBits-bit digits) beside the tile storage.
struct LargePassStorage {
  std::uint32_t next[kLargeDigits];        ///< where the next key of each digit goes (segment)
  std::uint32_t tile_count[kLargeDigits];  ///< keys of each digit in the tile
  std::uint32_t tile_start[kLargeDigits];  ///< where each digit starts in the sorted tile
  BlockScanStorage<kBlockThreads> scan;    ///< the block scan's scratch
};

/// Passes of the large class for keys of type \p Key when every bit is sorted.
template <typename Key>
inline constexpr int kLargeMaxPasses = large_max_passes(sizeof(Key));

/// Shared memory of the large kernel for one segment: the digit counts of every pass, all taken
/// in one read of the segment before its first pass.
template <typename Key>
struct SegmentDigitCounts {
  std::uint32_t of_pass[kLargeMaxPasses<Key>][kLargeDigits];  ///< pass, digit: keys
};

/// Counts the digits of \p items' first \p valid blocked positions into storage.tile_count and
/// scans them into storage.tile_start (shared atomics; one thread per digit in the scan).
template <typename Key, int K>
__device__ __forceinline__ void count_tile_digits(const Key (&keys)[K], std::uint32_t valid,
                                                  int first_bit, int num_bits, bool descending,
                                                  LargePassStorage& storage) {
  if (threadIdx.x < kLargeDigits) storage.tile_count[threadIdx.x] = 0;
  __syncthreads();
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (threadIdx.x * K + static_cast<std::uint32_t>(i) < valid)
      atomicAdd(storage.tile_count + large_pass_digit(keys[i], first_bit, num_bits, descending),
                1u);
  __syncthreads();
  const std::uint32_t mine = threadIdx.x < kLargeDigits ? storage.tile_count[threadIdx.x] : 0u;
  std::uint32_t total = 0;
  const std::uint32_t start = block_exclusive_sum<kBlockThreads>(mine, storage.scan, total);
  if (threadIdx.x < kLargeDigits) storage.tile_start[threadIdx.x] = start;
  __syncthreads();
}

/// Sorts one loaded tile (\p keys, blocked, its digits counted by count_tile_digits) by one
/// pass's digit with the block sort, loading its values on the way, and writes sorted position p
/// of digit d to storage.next[d] + (p - the first position of d in the sorted tile). The caller
/// sets next[] (relative to the targets) and orders that before the call with a barrier. Keys of
/// one digit keep their input order inside the tile: the block sort is stable. Positions from
/// \p target_end on are never written: with valid segments none is computed, but overlapping
/// segments (a broken precondition) can change a later pass's keys under the counts taken before
/// the first pass, and the sort must still stay inside the segment.
template <typename Key, typename Value, int K>
__device__ __forceinline__ void sort_and_scatter_tile(
    Key (&keys)[K], const Value* source_values, Key* target_keys, Value* target_values,
    std::uint32_t valid, std::uint32_t target_end, int first_bit, int pass_bits, bool descending,
    TileStorage<Key, Value, kLargeTileBin<Key>>& storage, LargePassStorage& pass_storage) {
  constexpr int kTileBin = kLargeTileBin<Key>;
  using Sort = TileSort<Key, Value, kTileBin>;
  static_assert(tile_shape(kTileBin).threads == kBlockThreads, "the tile's block is the caller's");
  [[maybe_unused]] ValueSlot<Value> values[kHasValues<Value> ? K : 1];
  if constexpr (kHasValues<Value>) {
    load_blocked<kBlockThreads>(source_values, valid, Value{}, storage.values, values);
    Sort(storage.sort)
        .sort_blocked_to_striped(keys, values, descending, first_bit, first_bit + pass_bits);
  } else {
    Sort(storage.sort).sort_blocked_to_striped(keys, descending, first_bit, first_bit + pass_bits);
  }
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    if (p < valid) {
      const std::uint32_t d = large_pass_digit(keys[i], first_bit, pass_bits, descending);
      const std::uint32_t to = pass_storage.next[d] + (p - pass_storage.tile_start[d]);
      if (to < target_end) {
        target_keys[to] = keys[i];
        if constexpr (kHasValues<Value>) target_values[to] = values[i];
      }
    }
  }
}

/// Sorts \p size consecutive keys (and values), tile by tile in order, by one pass's digit and
/// writes them after the keys of each digit already placed: sorted position p of digit d of a
/// tile goes to storage.next[d] + (p - the first position of d in the sorted tile), then next[d]
/// moves on by the tile's count of d. The caller sets next[] (relative to the targets) and orders
/// that before the call with a barrier. Keys of one digit land in tile order and, inside a tile,
/// in input order: stable. The large kernel's pass (one block, a whole segment).
template <typename Key, typename Value>
__device__ __forceinline__ void sort_tiles_in_order(
    const Key* source_keys, Key* target_keys, const Value* source_values, Value* target_values,
    std::uint32_t size, int first_bit, int pass_bits, bool descending,
    TileStorage<Key, Value, kLargeTileBin<Key>>& storage, LargePassStorage& pass_storage) {
  constexpr int kTileBin = kLargeTileBin<Key>;
  static_assert(tile_shape(kTileBin).threads == kBlockThreads, "the tile's block is the caller's");
  constexpr int K = tile_shape(kTileBin).keys_per_thread;
  constexpr std::uint32_t kTile = bin_max_items(kTileBin);
  for (std::uint32_t tile = 0; tile < size; tile += kTile) {
    const std::uint32_t valid = min(kTile, size - tile);
    Key keys[K];
    load_blocked<kBlockThreads>(source_keys + tile, valid, padding_key<Key>(descending),
                                storage.keys, keys);
    count_tile_digits(keys, valid, first_bit, pass_bits, descending, pass_storage);
    sort_and_scatter_tile(keys, kHasValues<Value> ? source_values + tile : source_values,
                          target_keys, target_values, valid, size, first_bit, pass_bits, descending,
                          storage, pass_storage);
    __syncthreads();  // every thread has read next[] and tile_start[]
    if (threadIdx.x < kLargeDigits)
      pass_storage.next[threadIdx.x] += pass_storage.tile_count[threadIdx.x];
    __syncthreads();
  }
}

/// One block per large segment (more than one tile): an LSD radix sort of the segment alone, in
/// passes of kBlockRadixBits-bit digits that ping-pong between the output and the scratch copy
/// (the last pass writes the output; common/ping_pong_passes.hpp's parity).
///  1. count: one read of the segment counts the digits of *every* pass (shared atomics). A
///     key's digit of pass p does not depend on where the earlier passes moved it, so all the
///     counts are known before pass 0, as in stage 08's histogram kernel; counting per pass read
///     the segment's keys once more in every pass.
///  2. per pass: scan that pass's counts (where each digit starts), then for each tile of the
///     segment, in order: load it (padded), count and scan its digits, sort it by the pass's
///     digit with the block sort (stable), and write sorted position p of digit d to
///     next[d] + (p - start of d in the tile); then next[d] += the tile's count of d.
/// Keys of one digit therefore land in tile order and, inside a tile, in input order: the pass
/// is stable, and so is the sort. Each pass reads the segment once and writes it once, with one
/// block on the whole segment: correct at any size up to 2^30; few huge segments take the huge
/// path instead (5.), which keeps every SM busy.
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads, kLargeMinBlocksPerSm)
    large_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  __shared__ TileStorage<Key, Value, kLargeTileBin<Key>> storage;
  __shared__ LargePassStorage pass_storage;
  __shared__ SegmentDigitCounts<Key> digit_counts;
  const std::uint32_t count = list_count(segments, list_of_bin(kLargeBin));
  const std::uint32_t* ids = list_ids(segments, list_of_bin(kLargeBin));
  const int num_bits = range.end_bit - range.begin_bit;
  const int passes = (num_bits + kBlockRadixBits - 1) / kBlockRadixBits;
  for (std::uint32_t b = blockIdx.x; b < count; b += gridDim.x) {  // the same for the block
    const std::uint32_t s = ids[b];
    const std::uint32_t begin = segments.begin_offsets[s];
    const std::uint32_t size = segment_size(begin, segments.end_offsets[s], segments.n);
    // Many blocks sort a huge segment (5.).
    if (passes > 0 && size >= segments.huge_min_items && size <= kHugeMaxItems) continue;
    if (passes == 0) {  // no bits to sort by: the segment is its own sorted order
      for (std::uint32_t p = threadIdx.x; p < size; p += kBlockThreads) {
        arrays.keys_out[begin + p] = arrays.keys_in[begin + p];
        if constexpr (kHasValues<Value>) arrays.values_out[begin + p] = arrays.values_in[begin + p];
      }
      continue;
    }
    const auto pass_first_bit = [&](int pass) { return range.begin_bit + pass * kBlockRadixBits; };
    const auto pass_num_bits = [&](int pass) {
      return min(kBlockRadixBits, range.end_bit - pass_first_bit(pass));
    };

    // 1. The digit counts of every pass, in one read of the segment. (The previous segment's
    // last barrier ordered its reads of the counts before these writes.)
    for (int i = threadIdx.x; i < kLargeMaxPasses<Key> * kLargeDigits; i += kBlockThreads)
      digit_counts.of_pass[i / kLargeDigits][i % kLargeDigits] = 0;
    __syncthreads();
    block_for_each_value<kBlockThreads, kLargeCountVectorsPerThread>(
        arrays.keys_in + begin, size, [&](const Key& key) {
#pragma unroll
          for (int pass = 0; pass < kLargeMaxPasses<Key>; ++pass)
            if (pass < passes)
              atomicAdd(&digit_counts.of_pass[pass][large_pass_digit(
                            key, pass_first_bit(pass), pass_num_bits(pass), range.descending)],
                        1u);
        });
    __syncthreads();

    for (int pass = 0; pass < passes; ++pass) {
      const int first_bit = pass_first_bit(pass);
      const int pass_bits = pass_num_bits(pass);
      // Pass 0 reads the input, every later pass what the one before wrote; the last writes
      // the output. Not __restrict__ and not read through the read-only cache: this block wrote
      // these arrays in its previous pass (ordered by the barriers below).
      const bool from_output = pass > 0 && pass_writes_output(pass - 1, passes);
      const bool to_output = pass_writes_output(pass, passes);
      const Key* source_keys = (pass == 0     ? arrays.keys_in
                                : from_output ? arrays.keys_out
                                              : arrays.alternate_keys) +
                               begin;
      Key* target_keys = (to_output ? arrays.keys_out : arrays.alternate_keys) + begin;
      const Value* source_values = nullptr;
      Value* target_values = nullptr;
      if constexpr (kHasValues<Value>) {
        source_values = (pass == 0     ? arrays.values_in
                         : from_output ? arrays.values_out
                                       : arrays.alternate_values) +
                        begin;
        target_values = (to_output ? arrays.values_out : arrays.alternate_values) + begin;
      }

      // 2a. The scan of this pass's digit counts: where each digit's keys start.
      {
        const std::uint32_t mine =
            threadIdx.x < kLargeDigits ? digit_counts.of_pass[pass][threadIdx.x] : 0u;
        std::uint32_t total = 0;
        const std::uint32_t start =
            block_exclusive_sum<kBlockThreads>(mine, pass_storage.scan, total);
        if (threadIdx.x < kLargeDigits) pass_storage.next[threadIdx.x] = start;
        __syncthreads();
      }

      // 2b. The tiles in order: rank by the block sort, scatter after the earlier tiles' keys.
      sort_tiles_in_order(source_keys, target_keys, source_values, target_values, size, first_bit,
                          pass_bits, range.descending, storage, pass_storage);
      // The barrier above also orders this pass's global writes before the next pass's reads.
    }
  }
}

// ---- 5. Huge segments: many blocks per segment, a look-back per segment -----------------------

/// The huge path's arrays in the scratch. The plan kernel lists the huge segments (large-class
/// segments of kHugeMinItems .. kHugeMaxItems keys) and numbers their tiles (of huge_tile_bin()'s
/// tile, one block each). The histogram kernel then counts, in one read of every huge
/// segment, the digits of every pass (a key's digit of a pass does not depend on where the
/// earlier passes moved it), and the route kernel sends each segment down one of two routes
/// (huge_route_segment()). Each pass is one kernel: a block takes the next tile in tile order
/// from the pass's counter, counts its digits, publishes the counts in its status words, adds
/// up its predecessors' words in its own segment (decoupled look-back, as stage 08 does for a
/// whole sort), and scatters the tile after them. So a pass reads the keys once and writes them
/// once, and a sort takes passes + 5 launches (the plan, the clear, the histogram, the route and
/// the split route's chunks) where stage 05's upsweep / scan / downsweep took five per pass and
/// read the keys twice.
struct HugeSegments {
  std::uint32_t* count;         ///< [0]: huge segments, [1]: their tiles (written by the plan)
  std::uint32_t* ids;           ///< the huge segments' ids, in large-list order
  std::uint32_t* tile_first;    ///< first tile of each huge segment
  std::uint32_t* tile_counter;  ///< per pass: tiles taken so far (zeroed by the plan kernel)
  std::uint32_t* digit_counts;  ///< huge segment, pass, digit: keys (cleared by the clear kernel)
  std::uint32_t* tile_status;   ///< pass, tile, digit: status words (cleared by the clear kernel)
  std::uint32_t capacity;       ///< room of ids (huge_capacity())
  std::uint32_t max_tiles;      ///< room of the status words in tiles (huge_max_tiles())
  int max_passes;               ///< room of digit_counts and tile_status in passes
  // The two routes (huge_route_segment()): kRadixRoute segments take every pass through global
  // memory; kSplitRoute segments take their last pass only, and their buckets are sorted on chip.
  /// Per route: (listed segments << 32) | their tiles, zeroed by the plan kernel.
  unsigned long long* route_count;
  std::uint32_t* route_entry;       ///< per route, capacity entries: the segment's huge-list index
  std::uint32_t* route_tile_first;  ///< per route, capacity entries: its first tile in the route
  /// The chunks of the split route's buckets, a segment list of their own for the largest tile
  /// bin's kernel: kNumListBins counters (plan zeroes them; only that bin's is used), the ids
  /// (chunk c is listed as c), and each chunk's first item and one past its last.
  std::uint32_t* chunk_counts;
  std::uint32_t* chunk_ids;      ///< chunk_capacity entries
  std::uint32_t* chunk_begin;    ///< chunk_capacity entries
  std::uint32_t* chunk_end;      ///< chunk_capacity entries
  std::uint32_t chunk_capacity;  ///< room of the chunk list (huge_chunk_capacity())
};

/// The route of a huge segment that takes all its passes through global memory.
inline constexpr int kRadixRoute = 0;
/// The route of a huge segment whose last pass cuts it into buckets that tiles sort on chip.
inline constexpr int kSplitRoute = 1;

/// The huge path's tile bin (huge_tile_bin()).
template <typename Key>
inline constexpr int kHugeTileBin = huge_tile_bin(sizeof(Key));

/// Keys of a tile of the huge path.
template <typename Key>
inline constexpr std::uint32_t kHugeTile = bin_max_items(kHugeTileBin<Key>);

/// Digit values of a huge pass (kHugeDigitBits-bit digits).
inline constexpr int kHugeDigits = 1 << kHugeDigitBits;

/// Passes of the huge path for keys of type \p Key when every bit is sorted.
template <typename Key>
inline constexpr int kHugeMaxPasses = huge_max_passes(sizeof(Key));

/// Lists the huge segments and numbers their tiles (one block of kBlockThreads threads): a block
/// scan over the large list, kBlockThreads entries at a time.
/// \param segments the segments and the classification
/// \param huge the huge path's arrays
template <typename Key>
__global__ void __launch_bounds__(kBlockThreads)
    huge_plan_kernel(Segments segments, HugeSegments huge) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  __shared__ BlockScanStorage<kBlockThreads> scan_segments, scan_tiles;
  // The previous sort on this stream is done with the counters (kernels of a stream run in
  // order), so a reused scratch needs nothing from the caller.
  if (static_cast<int>(threadIdx.x) < huge.max_passes) huge.tile_counter[threadIdx.x] = 0;
  if (threadIdx.x < 2) huge.route_count[threadIdx.x] = 0;
  if (threadIdx.x < kNumListBins) huge.chunk_counts[threadIdx.x] = 0;
  const std::uint32_t count = list_count(segments, list_of_bin(kLargeBin));
  const std::uint32_t* ids = list_ids(segments, list_of_bin(kLargeBin));
  std::uint32_t listed = 0, tiles = 0;  // the same in every thread
  for (std::uint32_t first = 0; first < count; first += kBlockThreads) {
    const std::uint32_t i = first + threadIdx.x;
    std::uint32_t s = 0, size = 0;
    if (i < count) {
      s = ids[i];
      size = segment_size(segments.begin_offsets[s], segments.end_offsets[s], segments.n);
    }
    const bool is_huge = size >= segments.huge_min_items && size <= kHugeMaxItems;
    std::uint32_t batch_segments = 0, batch_tiles = 0;
    const std::uint32_t slot =
        block_exclusive_sum<kBlockThreads>(is_huge ? 1u : 0u, scan_segments, batch_segments);
    // Overlapping segments (a broken precondition) could list more than the room: never write
    // past it, and number only the listed segments' tiles (a dropped segment's tiles would be
    // given to the last listed one, past its end). A dropped segment is left unsorted.
    const bool listed_here = is_huge && listed + slot < huge.capacity;
    const std::uint32_t my_tiles = listed_here ? (size + kHugeTile<Key> - 1) / kHugeTile<Key> : 0u;
    const std::uint32_t tile =
        block_exclusive_sum<kBlockThreads>(my_tiles, scan_tiles, batch_tiles);
    if (listed_here) {
      huge.ids[listed + slot] = s;
      huge.tile_first[listed + slot] = tiles + tile;
    }
    listed += batch_segments;
    tiles += batch_tiles;
    __syncthreads();  // the scans' storage is read again by the next batch
  }
  if (threadIdx.x == 0) {
    listed = min(listed, huge.capacity);
    huge.count[0] = listed;
    huge.count[1] = min(tiles, huge.max_tiles);
  }
}

/// Zeroes \p words words from \p first (16-byte aligned, \p words a multiple of 4) with the
/// whole grid, 16 bytes per store.
__device__ __forceinline__ void grid_clear(std::uint32_t* first, std::uint32_t words) {
  uint4* vectors = reinterpret_cast<uint4*>(first);
  const std::uint32_t count = words / 4;
  for (std::uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < count;
       v += gridDim.x * blockDim.x)
    vectors[v] = make_uint4(0u, 0u, 0u, 0u);
}

/// Clears what the histogram and pass kernels add to and publish in: the digit counts of the
/// listed huge segments and the status words of their tiles in each of \p passes passes. Only
/// the rows that this sort's segments use are written (the plan kernel's counts say how many),
/// not the room the scratch holds for as many huge segments as n items could make: a sort whose
/// segments turn out not to be huge pays a launch, not a memset of its whole room.
/// \param huge the huge path's arrays, planned
/// \param passes passes of the sort
template <typename Key>
__global__ void __launch_bounds__(kBlockThreads) huge_clear_kernel(HugeSegments huge, int passes) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  static_assert(kHugeDigits % 4 == 0, "rows of whole 16-byte vectors");
  const std::uint32_t row_words = kHugeDigits;
  grid_clear(huge.digit_counts, huge.count[0] * huge.max_passes * row_words);
  for (int pass = 0; pass < passes; ++pass)
    grid_clear(huge.tile_status + std::size_t{huge.max_tiles} * row_words * pass,
               huge.count[1] * row_words);
}

/// Where tile \p t of the huge path lies: its segment (the last h of the huge list whose first
/// tile is at most t, by binary search) and the tile's place in it.
struct HugeTile {
  std::uint32_t h;      ///< index in the huge list
  std::uint32_t begin;  ///< first item of the segment
  std::uint32_t size;   ///< items of the segment
  std::uint32_t tile;   ///< the tile's index in its segment
  std::uint32_t tiles;  ///< tiles of the segment
};

/// Finds tile \p t among \p entries segments whose first tiles \p tile_first lists in
/// increasing order (by binary search: the last entry whose first tile is at most t).
/// \param segments the segments
/// \param huge the huge path's arrays, planned
/// \param tile_first the entries' first tiles
/// \param entry_h each entry's huge-list index, or null where entry e is huge-list entry e
/// \param entries entries in the list (at least 1)
/// \param t a tile of the list (below its tiles)
template <typename Key>
__device__ __forceinline__ HugeTile find_tile_in(const Segments& segments, const HugeSegments& huge,
                                                 const std::uint32_t* tile_first,
                                                 const std::uint32_t* entry_h,
                                                 std::uint32_t entries, std::uint32_t t) {
  std::uint32_t low = 0, high = entries;  // tile_first[low] <= t < tile_first[high]
  while (high - low > 1) {
    const std::uint32_t mid = (low + high) / 2;
    if (tile_first[mid] <= t)
      low = mid;
    else
      high = mid;
  }
  HugeTile where;
  where.h = entry_h == nullptr ? low : entry_h[low];
  const std::uint32_t s = huge.ids[where.h];
  where.begin = segments.begin_offsets[s];
  where.size = segment_size(where.begin, segments.end_offsets[s], segments.n);
  where.tile = t - tile_first[low];
  where.tiles = (where.size + kHugeTile<Key> - 1) / kHugeTile<Key>;
  return where;
}

/// Finds tile \p t (below huge.count[1]) among the huge segments, in the plan kernel's list.
/// \param segments the segments
/// \param huge the huge path's arrays, planned
/// \param t a tile of the huge path
template <typename Key>
__device__ __forceinline__ HugeTile find_huge_tile(const Segments& segments,
                                                   const HugeSegments& huge, std::uint32_t t) {
  return find_tile_in<Key>(segments, huge, huge.tile_first, nullptr, huge.count[0], t);
}

/// What pass \p pass of \p passes reads: the input first, then what the pass before wrote
/// (common/ping_pong_passes.hpp's parity: the last pass writes the output).
template <typename T>
__device__ __forceinline__ const T* pass_source(const T* input, T* output, T* alternate, int pass,
                                                int passes) {
  return pass == 0 ? input : pass_writes_output(pass - 1, passes) ? output : alternate;
}

/// The first digit bit of huge pass \p pass (its width: kHugeDigitBits, or what is left of the
/// range).
/// \param range the sorted bits
/// \param pass a pass
__device__ __forceinline__ int huge_pass_first_bit(const BitRange& range, int pass) {
  return range.begin_bit + pass * kHugeDigitBits;
}

/// Shared memory of huge_route_segment(): the segment's bucket sizes and its chunks.
struct HugeRouteStorage {
  std::uint32_t bucket_count[kHugeDigits];  ///< keys of each digit value of the last pass
  std::uint32_t chunk_first[kHugeDigits];   ///< each chunk's first key in the segment
  std::uint32_t chunk_size[kHugeDigits];    ///< each chunk's keys
  std::uint32_t chunks;                     ///< chunks of the segment
  std::uint32_t chunk_base;                 ///< the segment's first entry in the chunk list
};

/// Sends huge segment \p h down one of two routes, by its last pass's digit counts (the most
/// significant digit of the sorted bits), once the histogram kernel has counted them:
///  - the split route (huge_takes_split_route()), when the sort takes two passes or more and no
///    digit value holds more keys than the largest tile: the last pass alone runs over the
///    segment, from the input straight to the output, and leaves it cut into one bucket per
///    digit value, in digit order. Runs of neighbouring buckets are then packed into *chunks* of
///    at most huge_bucket_max_items() keys, as many buckets as fit, and the largest tile bin's
///    kernel sorts each chunk in shared memory, in place, by all the sorted bits (a chunk holds
///    whole buckets, so sorting it whole keeps them apart). Two trips through global memory
///    instead of one per pass: most significant digit first, then the rest on chip (the hybrid
///    radix sort of Stehle and Jacobsen, 2017). Chunks, not buckets: a uniform segment of 65536
///    keys makes buckets of about 256 keys, which the power-of-two bins would pad to 512 half
///    the time; chunks of about 4096 fill the 4096-key tile;
///  - the radix route otherwise (few distinct high digits: a bucket too big for a tile): every
///    pass through global memory.
/// Called by every thread of one block (kHugeDigits threads, a digit each). A segment's entry in
/// its route's list, and its tiles' numbers there, come from one 64-bit atomic (count of
/// segments above, count of tiles below), so each route's first tiles rise with its entries
/// (the binary search in find_tile_in() needs that); which segment comes first does not matter.
/// Greedy packing: two neighbouring chunks of a segment hold more than a tile together, so a
/// segment of m keys makes fewer than 2m / (tile + 1) + 1 chunks (huge_chunk_capacity()).
/// \param segments the segments
/// \param huge the huge path's arrays, planned and counted
/// \param h the segment's index in the huge list
/// \param passes passes of the sort
/// \param shared the block's storage for the route
template <typename Key>
__device__ __forceinline__ void huge_route_segment(const Segments& segments,
                                                   const HugeSegments& huge, std::uint32_t h,
                                                   int passes, HugeRouteStorage& shared) {
  static_assert(kBlockThreads == kHugeDigits, "a thread per digit value");
  constexpr std::uint32_t kChunkMax = huge_bucket_max_items(sizeof(Key));
  const std::uint32_t digit = threadIdx.x;
  const int chunk_list = list_of_bin(largest_tile_bin(sizeof(Key)));
  const std::uint32_t s = huge.ids[h];
  const std::uint32_t begin = segments.begin_offsets[s];
  const std::uint32_t size = segment_size(begin, segments.end_offsets[s], segments.n);
  const std::uint32_t count =
      huge.digit_counts[(std::size_t{h} * huge.max_passes + (passes - 1)) * kHugeDigits + digit];
  shared.bucket_count[digit] = count;
  // The largest bucket decides (huge_takes_split_route(), which also asks for two passes or
  // more): no thread's digit may hold more.
  const bool split =
      __syncthreads_and(huge_takes_split_route(count, sizeof(Key), passes) ? 1 : 0) != 0;
  const int route = split ? kSplitRoute : kRadixRoute;
  if (threadIdx.x == 0) {
    const std::uint32_t tiles = (size + kHugeTile<Key> - 1) / kHugeTile<Key>;
    const unsigned long long before = atomicAdd(huge.route_count + route, (1ull << 32) | tiles);
    const std::uint32_t entry = static_cast<std::uint32_t>(before >> 32);
    huge.route_entry[route * huge.capacity + entry] = h;
    huge.route_tile_first[route * huge.capacity + entry] = static_cast<std::uint32_t>(before);
  }
  if (split) {
    // Pack the buckets, in digit order (the order the pass lays them out), into chunks: a short
    // sequential walk (256 counts in shared memory) by one thread.
    if (threadIdx.x == 0) {
      std::uint32_t made = 0, first = 0, run = 0;
      for (int d = 0; d < kHugeDigits; ++d) {
        const std::uint32_t c = shared.bucket_count[d];
        if (run + c > kChunkMax) {  // run > 0 here: no bucket alone is over kChunkMax
          shared.chunk_first[made] = first;
          shared.chunk_size[made++] = run;
          first += run;
          run = 0;
        }
        run += c;
      }
      if (run > 0) {
        shared.chunk_first[made] = first;
        shared.chunk_size[made++] = run;
      }
      shared.chunks = made;
      shared.chunk_base = atomicAdd(huge.chunk_counts + chunk_list, made);
    }
    __syncthreads();
    const std::uint32_t c = shared.chunk_base + threadIdx.x;
    // Never past the room (only overlapping segments, a broken precondition, could need it).
    if (threadIdx.x < shared.chunks && c < huge.chunk_capacity) {
      huge.chunk_ids[c] = c;
      huge.chunk_begin[c] = begin + shared.chunk_first[threadIdx.x];
      huge.chunk_end[c] = begin + shared.chunk_first[threadIdx.x] + shared.chunk_size[threadIdx.x];
    }
  }
  __syncthreads();  // the shared counts and chunks are written again for the next segment
}

/// The histogram of the huge path: every tile of every huge segment counts the digits of every
/// pass (16-byte loads, shared atomics) and adds them to its segment's counts. One read of the
/// input before the first pass, as stage 08's histogram kernel for a whole sort.
/// \param arrays the sort's arrays
/// \param segments the segments
/// \param huge the huge path's arrays, planned and cleared
/// \param range the sorted bits and the direction
/// \param passes passes of the sort
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads)
    huge_histogram_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, HugeSegments huge,
                          BitRange range, int passes) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  __shared__ std::uint32_t tile_counts[kHugeMaxPasses<Key>][kHugeDigits];
  const std::uint32_t total = huge.count[1];
  for (std::uint32_t t = blockIdx.x; t < total; t += gridDim.x) {  // the same for the block
    const HugeTile where = find_huge_tile<Key>(segments, huge, t);
    for (int i = threadIdx.x; i < kHugeMaxPasses<Key> * kHugeDigits; i += kBlockThreads)
      tile_counts[i / kHugeDigits][i % kHugeDigits] = 0;
    __syncthreads();
    const std::uint32_t first = where.tile * kHugeTile<Key>;
    block_for_each_value<kBlockThreads, kLargeCountVectorsPerThread>(
        arrays.keys_in + where.begin + first, min(kHugeTile<Key>, where.size - first),
        [&](const Key& key) {
#pragma unroll
          for (int pass = 0; pass < kHugeMaxPasses<Key>; ++pass) {
            if (pass < passes) {
              const int first_bit = huge_pass_first_bit(range, pass);
              const int bits = min(kHugeDigitBits, range.end_bit - first_bit);
              atomicAdd(
                  &tile_counts[pass][large_pass_digit(key, first_bit, bits, range.descending)], 1u);
            }
          }
        });
    __syncthreads();
    for (int i = threadIdx.x; i < passes * kHugeDigits; i += kBlockThreads) {
      const std::uint32_t c = tile_counts[i / kHugeDigits][i % kHugeDigits];
      if (c != 0)
        atomicAdd(huge.digit_counts + std::size_t{where.h} * huge.max_passes * kHugeDigits + i, c);
    }
    __syncthreads();  // tile_counts is cleared again for the next tile
  }
}

/// Routes every listed huge segment (huge_route_segment()), one block per segment, striding.
/// A launch of its own: routing in the histogram kernel, by the last block to count a tile of
/// the segment, needed a fence after every tile's count atomics, which measured 8% slower
/// there at 2^20 keys per segment and 70% at 65536 (Nsight Compute, 2026-11-27), far more than
/// the launch this one costs.
/// \param segments the segments
/// \param huge the huge path's arrays, planned and counted
/// \param passes passes of the sort
template <typename Key>
__global__ void __launch_bounds__(kBlockThreads)
    huge_route_kernel(Segments segments, HugeSegments huge, int passes) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  __shared__ HugeRouteStorage route_storage;
  const std::uint32_t listed = huge.count[0];
  for (std::uint32_t h = blockIdx.x; h < listed; h += gridDim.x)  // the same for the block
    huge_route_segment<Key>(segments, huge, h, passes, route_storage);
}

/// Shared memory of the huge path's pass kernel: the warps' digit counters of the multi-split
/// rank, the exchange buffer in which the tile is sorted by digit (keys, then values), and the
/// tile's offsets. Static shared memory (at most 48 KiB: 41 KiB for 4-byte keys with 8-byte
/// values, whose exchange holds the values of a whole tile).
template <typename Key, typename Value>
struct HugePassStorage {
  static constexpr std::uint32_t kItems = kHugeTile<Key>;  ///< keys of a tile
  /// Per warp, per digit: first counts, then where the warp's next key of that digit goes in the
  /// sorted tile (warp_multisplit_rank moves it on).
  std::uint32_t warp_counts[kBlockThreads / 32][kHugeDigits];
  /// The tile sorted by digit, the keys and then the values, on their way from warp-striped loads
  /// to coalesced global writes.
  union Exchange {
    Key keys[kItems];                                         ///< by tile rank
    ValueSlot<Value> values[kHasValues<Value> ? kItems : 1];  ///< by tile rank
  } exchange;  ///< the tile sorted by digit (keys, then values)
  /// Output position of the tile's keys of digit d, minus the tile rank of the first of them:
  /// the key at tile rank p with digit d goes to global_offset[d] + p (modulo 2^32).
  std::uint32_t global_offset[kHugeDigits];
  BlockScanStorage<kBlockThreads> scan;  ///< the block scans of the digit counts
  std::uint32_t taken;                   ///< the tile this block took
};

/// One pass of the huge path: stage 08's onesweep pass, one look-back chain per segment. Each
/// block takes tiles in order from the pass's counter (so a tile's predecessors are all taken,
/// running or done: the look-back never waits on a tile that no block holds), and for each:
///  1. load, warp-striped: warp w owns tile positions [w * 32K, (w + 1) * 32K), its lanes read
///     32 consecutive keys a step; positions past the segment's end hold the padding key;
///  2. count: each warp counts its keys per digit (shared atomics); per digit, the tile's count
///     is published at once as an *aggregate* in the tile's status word (a segment's first tile
///     publishes its *prefix*), and each warp's counter becomes the tile rank of its first key of
///     the digit;
///  3. rank and scatter to shared: warp multi-split (common/warp_multisplit.cuh), one 8-bit digit
///     in one round, each key stored at its tile rank at once;
///  4. look back: the thread of digit d adds its predecessors' words in the segment, nearest
///     first, until one holds a prefix (waiting on a tile that has published nothing yet), then
///     publishes its own inclusive prefix; the segment's digit starts (an exclusive scan of the
///     histogram kernel's counts) plus that sum say where the tile's keys of d go. The first
///     read goes out before the rank, which hides its latency;
///  5. scatter to global, striped: a digit's keys are consecutive in the sorted tile and go to
///     consecutive addresses; the values follow the keys' route through the exchange buffer.
/// Keys of one digit keep tile order and, inside a tile, (warp, step, lane) order, which is input
/// order: the pass is stable. Positions from the segment's end on are never written: with valid
/// segments none is computed, but overlapping segments (a broken precondition) can change a
/// later pass's keys under the counts taken before the first pass, and the sort must still stay
/// inside the segment.
/// The routes (huge_route_segment()): every pass takes the radix route's tiles; the last pass
/// then takes the split route's, which read the input (their only pass) and write the output as
/// the radix route's last pass does. Both routes' tiles come from one counter, radix first, and
/// tile t of the pass has status words t in both.
/// \param arrays the sort's arrays
/// \param segments the segments
/// \param huge the huge path's arrays, planned, counted and routed
/// \param range the sorted bits and the direction
/// \param pass this pass
/// \param passes passes of the sort
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads, huge_min_blocks_per_sm(kHasValues<Value>))
    huge_pass_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, HugeSegments huge,
                     BitRange range, int pass, int passes) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  constexpr int K = tile_shape(kHugeTileBin<Key>).keys_per_thread;
  constexpr std::uint32_t kWarpItems = 32 * K;
  static_assert(kHugeTile<Key> == kBlockThreads * K, "the tile is the block's");
  static_assert(kHugeTile<Key> <= 0x10000u, "tile ranks fit 16 bits (two to a register)");
  __shared__ HugePassStorage<Key, Value> shared;
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // Threads 0 .. kHugeDigits - 1 each own one digit: they publish and look back for it.
  const bool owns_digit = threadIdx.x < kHugeDigits;
  const std::uint32_t digit = threadIdx.x;

  const int first_bit = huge_pass_first_bit(range, pass);
  const int pass_bits = min(kHugeDigitBits, range.end_bit - first_bit);
  const bool to_output = pass_writes_output(pass, passes);
  const Key* radix_keys =
      pass_source(arrays.keys_in, arrays.keys_out, arrays.alternate_keys, pass, passes);
  Key* target_keys = to_output ? arrays.keys_out : arrays.alternate_keys;
  const Value* radix_values = nullptr;
  Value* target_values = nullptr;
  if constexpr (kHasValues<Value>) {
    radix_values =
        pass_source(arrays.values_in, arrays.values_out, arrays.alternate_values, pass, passes);
    target_values = to_output ? arrays.values_out : arrays.alternate_values;
  }
  const unsigned long long radix_count = huge.route_count[kRadixRoute];
  const unsigned long long split_count = pass == passes - 1 ? huge.route_count[kSplitRoute] : 0ull;
  const std::uint32_t radix_tiles = static_cast<std::uint32_t>(radix_count);
  const std::uint32_t total = radix_tiles + static_cast<std::uint32_t>(split_count);
  std::uint32_t* status = huge.tile_status + std::size_t{huge.max_tiles} * kHugeDigits * pass;
  std::uint32_t* tile_counter = huge.tile_counter + pass;
  // Blocks 0 .. total - 1 take every tile between them (each takes tiles until none is left), so
  // the others leave at once: a sort with few huge tiles, or none, pays no atomic per block.
  if (blockIdx.x >= total) return;
  const auto digit_of = [&](Key key) {
    return large_pass_digit(key, first_bit, pass_bits, range.descending);
  };
  while (true) {
    // Take a tile; the counters are cleared for it (the last tile's readers are past a barrier).
    if (threadIdx.x == 0) shared.taken = atomicAdd(tile_counter, 1u);
    for (int d = lane; d < kHugeDigits; d += 32) shared.warp_counts[warp][d] = 0;
    __syncthreads();
    const std::uint32_t t = shared.taken;
    // The same for the block. Past the status words' room only if segments overlap (a broken
    // precondition): those tiles are left alone.
    if (t >= total || t >= huge.max_tiles) break;
    const bool split = t >= radix_tiles;
    const int route = split ? kSplitRoute : kRadixRoute;
    const HugeTile where = find_tile_in<Key>(
        segments, huge, huge.route_tile_first + static_cast<std::size_t>(route) * huge.capacity,
        huge.route_entry + static_cast<std::size_t>(route) * huge.capacity,
        static_cast<std::uint32_t>((split ? split_count : radix_count) >> 32),
        split ? t - radix_tiles : t);
    // The split route's one pass reads the input, as a one-pass sort would.
    const Key* source_keys = split ? arrays.keys_in : radix_keys;
    const std::uint32_t first = where.begin + where.tile * kHugeTile<Key>;
    const std::uint32_t valid = min(kHugeTile<Key>, where.size - where.tile * kHugeTile<Key>);

    // 1. Load, warp-striped. Tile order = (warp, step, lane) order, the order the rank counts in.
    const auto position = [&](int i) {
      return warp * kWarpItems + static_cast<std::uint32_t>(i) * 32 + lane;
    };
    Key keys[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
      keys[i] = position(i) < valid ? source_keys[first + position(i)]
                                    : padding_key<Key>(range.descending);
    }

    // 2. Count: each warp its keys per digit (the padding is not counted).
#pragma unroll
    for (int i = 0; i < K; ++i)
      if (position(i) < valid) atomicAdd(&shared.warp_counts[warp][digit_of(keys[i])], 1u);
    __syncthreads();
    std::uint32_t tile_count = 0;
    if (owns_digit) {
#pragma unroll
      for (int w = 0; w < kBlockThreads / 32; ++w) {
        const std::uint32_t count = shared.warp_counts[w][digit];
        shared.warp_counts[w][digit] = tile_count;  // the digit's keys in the warps before w
        tile_count += count;
      }
    }
    // Publish the aggregate as early as possible: later tiles of the segment may be waiting.
    const std::size_t my_word = std::size_t{t} * kHugeDigits + digit;
    const bool last_tile = where.tile + 1 == where.tiles;
    if (owns_digit && !last_tile)
      status_word(status, my_word)
          .store(
              pack_status(where.tile == 0 ? TileFlag::kPrefix : TileFlag::kAggregate, tile_count),
              cuda::memory_order_relaxed);
    // Pair sorts load their values now: the scans, the look-back and the rank hide the latency.
    [[maybe_unused]] ValueSlot<Value> values[kHasValues<Value> ? K : 1];
    if constexpr (kHasValues<Value>) {
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (position(i) < valid)
          values[i] = (split ? arrays.values_in : radix_values)[first + position(i)];
    }
    // Where each digit starts in the sorted tile, and in the segment (every thread takes part in
    // both scans; the threads past the digits add zeros).
    std::uint32_t tile_total = 0;
    const std::uint32_t tile_start =
        block_exclusive_sum<kBlockThreads>(tile_count, shared.scan, tile_total);
    const std::uint32_t segment_count =
        owns_digit
            ? huge.digit_counts[(std::size_t{where.h} * huge.max_passes + pass) * kHugeDigits +
                                digit]
            : 0u;
    std::uint32_t segment_total = 0;
    const std::uint32_t segment_start =
        block_exclusive_sum<kBlockThreads>(segment_count, shared.scan, segment_total);
    if (owns_digit) {
#pragma unroll
      for (int w = 0; w < kBlockThreads / 32; ++w) shared.warp_counts[w][digit] += tile_start;
    }

    // The first look-back read goes out now: the rank below hides its latency (a look-back is a
    // chain of dependent reads of words that other SMs write).
    const auto read_status = [&](std::uint32_t of_tile) {
      return status_word(status, std::size_t{of_tile} * kHugeDigits + digit)
          .load(cuda::memory_order_relaxed);
    };
    std::uint32_t word = owns_digit && where.tile > 0 ? read_status(t - 1) : 0u;
    __syncthreads();  // the warps' counters are seeded

    // 3. Rank (warp multi-split) and scatter to shared. The padding keys take part in the ballots
    // (every lane must) and move the counter of the largest digit past the real keys of it, which
    // sit before them: they are never stored, and the real keys' ranks are what they would be
    // without them.
    [[maybe_unused]] std::uint32_t packed_ranks[kHasValues<Value> ? (K + 1) / 2 : 1] = {};
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const std::uint32_t rank = warp_multisplit_rank<kHugeDigitBits>(
          digit_of(keys[i]), true, shared.warp_counts[warp], lane);
      if (position(i) < valid) {
        shared.exchange.keys[rank] = keys[i];
        if constexpr (kHasValues<Value>) packed_ranks[i / 2] |= rank << (16 * (i % 2));
      }
    }

    // 4. Look back over the segment's earlier tiles, after the rank, so that the rank's work
    // hides the first read. The segment's first tile always published a prefix, so the walk
    // stops there at the latest.
    if (owns_digit) {
      std::uint32_t exclusive = 0;
      if (where.tile > 0) {
        // One word at a time: reading the next predecessors' words at once with the first
        // (a window of four, as stage 08's look-back) measured 1-2% slower here.
        std::uint32_t predecessor = t - 1;
        while (true) {
          const TileFlag flag = status_flag(word);
          if (flag != TileFlag::kNotReady) {  // not ready: that tile is running, read it again
            exclusive += status_count(word);
            if (flag == TileFlag::kPrefix) break;
            --predecessor;
          }
          word = read_status(predecessor);
        }
        // The last tile's prefix is never read (and could reach 2^30), so it is not published.
        if (!last_tile)
          status_word(status, my_word)
              .store(pack_status(TileFlag::kPrefix, exclusive + tile_count),
                     cuda::memory_order_relaxed);
      }
      // Modulo 2^32 this may wrap below zero; adding a tile rank p >= tile_start brings every
      // used position back to its true value.
      shared.global_offset[digit] = where.begin + segment_start + exclusive - tile_start;
    }
    __syncthreads();  // the tile is sorted by digit in shared memory, global_offset[] is set

    // 5. Scatter to global, striped. Pair sorts keep each position's digit, four to a register,
    // for the values.
    const std::uint32_t end = where.begin + where.size;
    [[maybe_unused]] std::uint32_t packed_digits[(K + 3) / 4] = {};
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(j) * kBlockThreads;
      if (p < valid) {
        const Key key = shared.exchange.keys[p];
        const std::uint32_t d = digit_of(key);
        const std::uint32_t to = shared.global_offset[d] + p;
        if (to < end) target_keys[to] = key;
        if constexpr (kHasValues<Value>) packed_digits[j / 4] |= d << (8 * (j % 4));
      }
    }
    if constexpr (kHasValues<Value>) {
      __syncthreads();  // the keys are read out: the exchange takes the values
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (position(i) < valid)
          shared.exchange.values[(packed_ranks[i / 2] >> (16 * (i % 2))) & 0xFFFFu] = values[i];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(j) * kBlockThreads;
        if (p < valid) {
          const std::uint32_t d = (packed_digits[j / 4] >> (8 * (j % 4))) & 0xFFu;
          const std::uint32_t to = shared.global_offset[d] + p;
          if (to < end) target_values[to] = shared.exchange.values[p];
        }
      }
    }
    __syncthreads();  // global_offset[], the exchange and taken are read before the next tile
  }
}

}  // namespace sortlab::stage06
