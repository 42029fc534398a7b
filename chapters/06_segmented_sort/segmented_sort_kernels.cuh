/// \file
/// \brief Stage 06 kernels: classify the segments by size, then one kernel per size class.
///
/// Every kernel after the classification reads its class's count and id list from the scratch
/// (written on the device by classify_kernel), and strides over that list: the host sized the
/// grid from num_segments without knowing the count, so blocks (or warps) past the count exit
/// at once. No kernel reads or writes outside [begin, end) of a segment it sorts, so positions
/// outside every segment keep the caller's values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/06_segmented_sort/bitonic_network.hpp"
#include "chapters/06_segmented_sort/size_classes.hpp"
#include "common/block_scan.cuh"
#include "common/key_traits.hpp"
#include "common/ping_pong_passes.hpp"

namespace sortlab::stage06 {

/// The Value of a keys-only sort (the block sort's own marker).
using stage05::NullType;

/// Whether values travel with the keys.
template <typename Value>
inline constexpr bool kHasValues = !std::is_same_v<Value, NullType>;

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

/// The segments and the classification's results.
struct Segments {
  const std::uint32_t* begin_offsets;  ///< first item of each segment
  const std::uint32_t* end_offsets;    ///< one past the last item of each segment
  std::uint32_t num_segments;          ///< number of segments
  std::size_t n;                       ///< items in the arrays (segments past it are ignored)
  std::uint32_t* class_counts;         ///< kNumSizeClasses counters, zero before classify
  std::uint32_t* class_ids;            ///< list of class c at c * num_segments
};

/// What the sort orders by: bits [begin_bit, end_bit) of the ordered key, and the direction.
struct BitRange {
  int begin_bit;    ///< first bit
  int end_bit;      ///< one past the last bit
  bool descending;  ///< largest first
};

/// The id list of class \p size_class.
/// \param segments the segments and the classification
/// \param size_class kSmall, kMedium or kLarge
__device__ __forceinline__ const std::uint32_t* class_list(const Segments& segments,
                                                           SizeClass size_class) {
  return segments.class_ids +
         static_cast<std::size_t>(size_class) * static_cast<std::size_t>(segments.num_segments);
}

// ---- 1. Classification --------------------------------------------------------------------------

/// One thread per segment: computes its class and appends its id to that class's list. The lanes
/// of a warp that share a class take their slots with one atomic (the leader adds the number of
/// members and broadcasts the old count), so the counters see at most three atomics per warp.
/// The order of ids inside a list is whatever the atomics give: every segment is sorted on its
/// own, so the order does not matter. Launch ceil(num_segments / kBlockThreads) blocks of
/// kBlockThreads threads (whole warps take part in the ballots, past the last segment too).
template <typename Key>
__global__ void __launch_bounds__(kBlockThreads) classify_kernel(Segments segments) {
  const std::size_t s = static_cast<std::size_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  SizeClass mine = SizeClass::kNone;
  if (s < segments.num_segments)
    mine = classify_segment(segments.begin_offsets[s], segments.end_offsets[s], segments.n,
                            sizeof(Key));
  const unsigned lane = threadIdx.x & 31u;
  for (int c = 0; c < kNumSizeClasses; ++c) {
    const SizeClass size_class = static_cast<SizeClass>(c);
    const unsigned members = __ballot_sync(0xffffffffu, mine == size_class);
    if (members == 0u) continue;  // the same for the whole warp
    const int leader = __ffs(static_cast<int>(members)) - 1;
    std::uint32_t base = 0;
    if (static_cast<int>(lane) == leader)
      base = atomicAdd(segments.class_counts + c, static_cast<std::uint32_t>(__popc(members)));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (mine == size_class) {
      const unsigned below = members & ((1u << lane) - 1u);
      const std::size_t slot = static_cast<std::size_t>(c) * segments.num_segments + base +
                               static_cast<std::uint32_t>(__popc(below));
      segments.class_ids[slot] = static_cast<std::uint32_t>(s);
    }
  }
}

// ---- 2. Small segments: one warp, a bitonic network -------------------------------------------

/// Shuffles \p value from lane (this lane ^ \p mask), for any unsigned type of up to 8 bytes.
template <typename Bits>
__device__ __forceinline__ Bits shuffle_xor(Bits value, int mask) {
  using Wide = std::conditional_t<sizeof(Bits) <= 4, unsigned, unsigned long long>;
  return static_cast<Bits>(__shfl_xor_sync(0xffffffffu, static_cast<Wide>(value), mask));
}

/// One warp per small segment (1 .. kSmallMaxItems keys): lane l holds the entry (sort bits of
/// key l, l), or (all ones, l) past the segment's end; the 15 steps of the bitonic network
/// (bitonic_network.hpp) sort the entries by (bits, position), which is the stable order; lane l
/// then copies the key (and value) at the position its entry names to output position l. The
/// network moves 4 or 8 bytes of bits and a position, never the key itself: the key is read
/// again from the input (the segment's 32 keys are one or two cache lines). Launch blocks of
/// kBlockThreads threads; warp w of the grid takes list entries w, w + warps in the grid, ...
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads)
    small_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  using Bits = typename KeyTraits<Key>::Bits;
  const std::uint32_t count = segments.class_counts[static_cast<int>(SizeClass::kSmall)];
  const std::uint32_t* ids = class_list(segments, SizeClass::kSmall);
  const unsigned lane = threadIdx.x & 31u;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * kWarpsPerBlock;
  const int num_bits = range.end_bit - range.begin_bit;
  for (std::size_t w = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32u;
       w < count; w += warps) {  // the same condition for every lane of the warp
    const std::uint32_t s = ids[w];
    const std::uint32_t begin = segments.begin_offsets[s];
    const std::uint32_t size = segment_size(begin, segments.end_offsets[s], segments.n);
    Bits bits = static_cast<Bits>(~Bits{0});
    std::uint32_t position = lane;
    if (lane < size)
      bits = network_sort_bits(arrays.keys_in[begin + lane], range.begin_bit, num_bits,
                               range.descending);
#pragma unroll
    for (unsigned phase = 2; phase <= kNetworkWidth; phase <<= 1) {
#pragma unroll
      for (unsigned step = phase >> 1; step > 0; step >>= 1) {
        const Bits other_bits = shuffle_xor(bits, static_cast<int>(step));
        const std::uint32_t other_position = shuffle_xor(position, static_cast<int>(step));
        const bool other_first = entry_before(other_bits, other_position, bits, position);
        if (bitonic_keeps_min(lane, phase, step) == other_first) {
          bits = other_bits;
          position = other_position;
        }
      }
    }
    if (lane < size) {
      arrays.keys_out[begin + lane] = arrays.keys_in[begin + position];
      if constexpr (kHasValues<Value>)
        arrays.values_out[begin + lane] = arrays.values_in[begin + position];
    }
  }
}

// ---- 3. Medium segments: one block, one tile of stage 05's block radix sort ---------------------

/// The block sort of the medium and large classes (stage 05's public block sort).
template <typename Key, typename Value>
using BlockSort = stage05::BlockRadixSort<Key, kBlockThreads, block_keys_per_thread(sizeof(Key)),
                                          Value, kBlockRadixBits>;

/// Blocks of the medium and large kernels an SM should hold at once: __launch_bounds__ then caps
/// their registers at 65536 / (2 * 256) = 128 per thread (without the cap ptxas took up to 255
/// for 16 keys and 16 values per thread, one block per SM).
inline constexpr int kBlockKernelMinBlocksPerSm = 2;

/// Keys of one block tile.
template <typename Key>
inline constexpr int kTileItems = kBlockThreads* block_keys_per_thread(sizeof(Key));

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

/// Shared memory of the block kernels: the block sort's storage, or a tile of keys or values on
/// its way from striped (coalesced global loads) to blocked (the sort's input order).
template <typename Key, typename Value>
union TileStorage {
  /// Slots of one tile with a padding slot after every 32 (stage05::padded_slot()).
  static constexpr int kSlots = kTileItems<Key> + kTileItems<Key> / 32 + 1;
  typename BlockSort<Key, Value>::TempStorage sort;  ///< while sorting
  Key keys[kSlots];                                  ///< while loading keys
  std::conditional_t<kHasValues<Value>, Value, unsigned char> values[kSlots];  ///< values
};

/// Loads items [0, valid) of \p source (coalesced: thread t reads t, t + kBlockThreads, ...) into
/// a *blocked* register array (thread t holds tile positions t*K .. t*K + K-1, the order the
/// block sort keeps for equal keys) through shared memory; positions from \p valid on get
/// \p padding. Starts and ends with the slots free for the next user.
template <typename T, int K>
__device__ __forceinline__ void load_blocked(const T* source, std::uint32_t valid, T padding,
                                             T* slots, T (&items)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
    slots[stage05::padded_slot(p)] = p < valid ? source[p] : padding;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < K; ++i)
    items[i] = slots[stage05::padded_slot(threadIdx.x * K + static_cast<std::uint32_t>(i))];
  __syncthreads();
}

/// One block per medium segment (kSmallMaxItems < size <= one tile): load the segment as one
/// padded tile, sort it with stage 05's BlockRadixSort (blocked in, striped out), store the
/// first `size` positions (coalesced). Block b takes list entries b, b + gridDim.x, ...
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads, kBlockKernelMinBlocksPerSm)
    medium_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  using Sort = BlockSort<Key, Value>;
  constexpr int K = block_keys_per_thread(sizeof(Key));
  __shared__ TileStorage<Key, Value> storage;
  const std::uint32_t count = segments.class_counts[static_cast<int>(SizeClass::kMedium)];
  const std::uint32_t* ids = class_list(segments, SizeClass::kMedium);
  for (std::uint32_t b = blockIdx.x; b < count; b += gridDim.x) {  // the same for the block
    const std::uint32_t s = ids[b];
    const std::uint32_t begin = segments.begin_offsets[s];
    const std::uint32_t size = segment_size(begin, segments.end_offsets[s], segments.n);
    Key keys[K];
    load_blocked(arrays.keys_in + begin, size, padding_key<Key>(range.descending), storage.keys,
                 keys);
    if constexpr (kHasValues<Value>) {
      Value values[K];
      load_blocked(arrays.values_in + begin, size, Value{}, storage.values, values);
      Sort(storage.sort)
          .sort_blocked_to_striped(keys, values, range.descending, range.begin_bit, range.end_bit);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
        if (p < size) {
          arrays.keys_out[begin + p] = keys[i];
          arrays.values_out[begin + p] = values[i];
        }
      }
    } else {
      Sort(storage.sort)
          .sort_blocked_to_striped(keys, range.descending, range.begin_bit, range.end_bit);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
        if (p < size) arrays.keys_out[begin + p] = keys[i];
      }
    }
    __syncthreads();  // the sort's storage is free before the next segment's load
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

/// Shared memory of the large kernel beside the tile storage.
struct LargePassStorage {
  std::uint32_t next[kLargeDigits];        ///< where the next key of each digit goes (segment)
  std::uint32_t tile_count[kLargeDigits];  ///< keys of each digit in the tile (or the segment)
  std::uint32_t tile_start[kLargeDigits];  ///< where each digit starts in the sorted tile
  BlockScanStorage<kBlockThreads> scan;    ///< the block scan's scratch
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

/// One block per large segment (more than one tile): an LSD radix sort of the segment alone, in
/// passes of kBlockRadixBits-bit digits that ping-pong between the output and the scratch copy
/// (the last pass writes the output; common/ping_pong_passes.hpp's parity). One pass:
///  1. count the segment's digits (shared atomics) and scan them: where each digit starts;
///  2. for each tile of the segment, in order: load it (padded), count and scan its digits,
///     sort it by the pass's digit with the block sort (stable), and write sorted position p of
///     digit d to next[d] + (p - start of d in the tile); then next[d] += the tile's count of d.
/// Keys of one digit therefore land in tile order and, inside a tile, in input order: the pass
/// is stable, and so is the sort. Each pass reads the segment twice and writes it once, with one
/// block on the whole segment: correct at any size up to 2^30, slow for few huge segments. It
/// is the path to replace (device-wide passes, or many blocks per segment).
template <typename Key, typename Value>
__global__ void __launch_bounds__(kBlockThreads, kBlockKernelMinBlocksPerSm)
    large_segments_kernel(SegmentedArrays<Key, Value> arrays, Segments segments, BitRange range) {
  using Sort = BlockSort<Key, Value>;
  constexpr int K = block_keys_per_thread(sizeof(Key));
  constexpr std::uint32_t kTile = kTileItems<Key>;
  __shared__ TileStorage<Key, Value> storage;
  __shared__ LargePassStorage pass_storage;
  const std::uint32_t count = segments.class_counts[static_cast<int>(SizeClass::kLarge)];
  const std::uint32_t* ids = class_list(segments, SizeClass::kLarge);
  const int num_bits = range.end_bit - range.begin_bit;
  const int passes = (num_bits + kBlockRadixBits - 1) / kBlockRadixBits;
  for (std::uint32_t b = blockIdx.x; b < count; b += gridDim.x) {  // the same for the block
    const std::uint32_t s = ids[b];
    const std::uint32_t begin = segments.begin_offsets[s];
    const std::uint32_t size = segment_size(begin, segments.end_offsets[s], segments.n);
    if (passes == 0) {  // no bits to sort by: the segment is its own sorted order
      for (std::uint32_t p = threadIdx.x; p < size; p += kBlockThreads) {
        arrays.keys_out[begin + p] = arrays.keys_in[begin + p];
        if constexpr (kHasValues<Value>) arrays.values_out[begin + p] = arrays.values_in[begin + p];
      }
      continue;
    }
    for (int pass = 0; pass < passes; ++pass) {
      const int first_bit = range.begin_bit + pass * kBlockRadixBits;
      const int pass_bits = min(kBlockRadixBits, range.end_bit - first_bit);
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

      // 1. The segment's digit counts and their scan: where each digit's keys start.
      if (threadIdx.x < kLargeDigits) pass_storage.tile_count[threadIdx.x] = 0;
      __syncthreads();
      for (std::uint32_t p = threadIdx.x; p < size; p += kBlockThreads)
        atomicAdd(pass_storage.tile_count +
                      large_pass_digit(source_keys[p], first_bit, pass_bits, range.descending),
                  1u);
      __syncthreads();
      {
        const std::uint32_t mine =
            threadIdx.x < kLargeDigits ? pass_storage.tile_count[threadIdx.x] : 0u;
        std::uint32_t total = 0;
        const std::uint32_t start =
            block_exclusive_sum<kBlockThreads>(mine, pass_storage.scan, total);
        if (threadIdx.x < kLargeDigits) pass_storage.next[threadIdx.x] = start;
        __syncthreads();
      }

      // 2. The tiles in order: rank by the block sort, scatter after the earlier tiles' keys.
      for (std::uint32_t tile = 0; tile < size; tile += kTile) {
        const std::uint32_t valid = min(kTile, size - tile);
        Key keys[K];
        load_blocked(source_keys + tile, valid, padding_key<Key>(range.descending), storage.keys,
                     keys);
        count_tile_digits(keys, valid, first_bit, pass_bits, range.descending, pass_storage);
        if constexpr (kHasValues<Value>) {
          Value values[K];
          load_blocked(source_values + tile, valid, Value{}, storage.values, values);
          Sort(storage.sort)
              .sort_blocked_to_striped(keys, values, range.descending, first_bit,
                                       first_bit + pass_bits);
#pragma unroll
          for (int i = 0; i < K; ++i) {
            const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
            if (p < valid) {
              const std::uint32_t d =
                  large_pass_digit(keys[i], first_bit, pass_bits, range.descending);
              const std::uint32_t to = pass_storage.next[d] + (p - pass_storage.tile_start[d]);
              target_keys[to] = keys[i];
              target_values[to] = values[i];
            }
          }
        } else {
          Sort(storage.sort)
              .sort_blocked_to_striped(keys, range.descending, first_bit, first_bit + pass_bits);
#pragma unroll
          for (int i = 0; i < K; ++i) {
            const std::uint32_t p = threadIdx.x + static_cast<std::uint32_t>(i) * kBlockThreads;
            if (p < valid) {
              const std::uint32_t d =
                  large_pass_digit(keys[i], first_bit, pass_bits, range.descending);
              target_keys[pass_storage.next[d] + (p - pass_storage.tile_start[d])] = keys[i];
            }
          }
        }
        __syncthreads();  // every thread has read next[] and tile_start[]
        if (threadIdx.x < kLargeDigits)
          pass_storage.next[threadIdx.x] += pass_storage.tile_count[threadIdx.x];
        __syncthreads();
      }
      // The barrier above also orders this pass's global writes before the next pass's reads.
    }
  }
}

}  // namespace sortlab::stage06
