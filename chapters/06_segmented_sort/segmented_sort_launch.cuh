/// \file
/// \brief Stage 06 host launcher: check the arguments, carve the scratch, zero the list
/// counters, classify on the device (which also sorts the small segments), then one launch for
/// the warp bins, one per block tile and one for the large class, then the huge path (a plan, a
/// clear, a histogram, a route per segment, one launch per pass, the last taking the split
/// route's tiles too, and the split route's chunks in the largest tile's kernel), each grid
/// sized from an upper bound the host knows. Every kernel is launched chained
/// (common/chained_launch.cuh): the next one may start launching while it runs.
///
/// Templates only: each file of `instances/` instantiates them for one key type
/// (SORTLAB_STAGE06_INSTANTIATE), so that the eight key types compile in parallel (one file for
/// all of them took about 140 s of one core on the device machine, the longest step of a build).
/// segmented_sort.cu holds the scratch plan, which does not depend on the types.
///
/// Status: the power-of-two bins and the huge path pass the stage06 GPU suite and
/// compute-sanitizer on an H100 (2026-11-25; the tile kernels' prefetch 2026-11-27); timed in
/// the README.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/segmented_sort_kernels.cuh"
#include "common/device_properties.hpp"
#include "common/errors.hpp"
#include "common/memory_ranges.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage06 {
/// The launcher's own helpers: only the files of instances/ include this header, each for one
/// key type (a named namespace, not an anonymous one, so that the public templates below mean
/// the same in every file that instantiates them; left out of the reading guide, as the
/// anonymous namespace was).
namespace launcher {

/// Threads per SM a kernel's grid may bring at most: enough to fill an SM (2048 threads, an H100
/// SM's limit: 8 blocks of 256 threads, 16 of the 128-thread tiles), not so many that a grid of
/// mostly idle blocks costs launch time. Blocks stride over their lists, so a smaller grid is
/// still correct.
inline constexpr std::size_t kMaxThreadsPerSm = 2048;

/// Grid of a kernel: one block per \p per_block list entries of an upper bound of
/// \p upper_bound entries, but at most \p most blocks (they stride over the list).
inline unsigned class_grid(std::size_t upper_bound, std::size_t per_block, std::size_t most) {
  return static_cast<unsigned>(std::clamp<std::size_t>((upper_bound + per_block - 1) / per_block, 1,
                                                       std::max<std::size_t>(most, 1)));
}

/// Launches the tile kernel of bin kBin when its list can hold anything.
template <typename Key, typename Value, int kBin>
void launch_tile_bin(const SegmentedArrays<Key, Value>& arrays, const Segments& segments,
                     const BitRange& range, std::size_t sms, cudaStream_t stream) {
  if constexpr (tile_bin_exists(kBin, sizeof(Key))) {
    const std::size_t most = segments.list_capacity[list_of_bin(kBin)];
    if (most == 0) return;
    constexpr int kThreads = tile_shape(kBin).threads;
    // The block sort's storage and the slots of the next segment, in dynamic shared memory: past
    // the 48 KiB a kernel gets without asking for the 4096-key tile (66 KiB with 4-byte keys and
    // values; on an H100 two blocks per SM, as the registers allow, still fit; on sm_80, sm_86
    // and sm_89, with less shared memory per SM, one block with 8-byte values).
    constexpr std::size_t kSharedBytes = sizeof(TileKernelStorage<Key, Value, kBin>);
    allow_dynamic_shared_memory<tile_segments_kernel<Key, Value, kBin>, kSharedBytes>();
    launch_chained(tile_segments_kernel<Key, Value, kBin>,
                   class_grid(most, 1, sms * (kMaxThreadsPerSm / kThreads)), kThreads, kSharedBytes,
                   stream, arrays, segments, range);
  }
}

template <typename Key, typename Value>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, std::size_t num_segments,
          const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
          const SortOptions& options, cudaStream_t stream, int min_bin) {
  // Every check comes before the first CUDA call, so a rejected call changes nothing.
  const SortArrays checked = validate_sort_arguments<Key, Value>(
      temp_storage, n, options, keys_in, keys_out, values_in, values_out, kMaxItems);
  require(num_segments <= kMaxSegments, [&] {
    return "segmented sort: num_segments = " + std::to_string(num_segments) +
           " exceeds this sort's maximum of " + std::to_string(kMaxSegments);
  });
  require(valid_min_bin(min_bin, sizeof(Key)), [&] {
    return "segmented sort: min_bin = " + std::to_string(min_bin) +
           " is no bin for these keys (0 to 11, or 12 for keys of 4 bytes or fewer)";
  });
  const bool has_work = n > 0 && num_segments > 0;
  const MemoryRange begin_range{begin_offsets, has_work ? num_segments * sizeof(std::uint32_t) : 0,
                                "begin_offsets"};
  const MemoryRange end_range{end_offsets, has_work ? num_segments * sizeof(std::uint32_t) : 0,
                              "end_offsets"};
  if (temp_storage != nullptr && has_work) {
    require(begin_offsets != nullptr && end_offsets != nullptr,
            "segmented sort: begin_offsets and end_offsets must not be null");
    require_apart("segmented sort", {checked.keys_out, checked.values_out},
                  {begin_range, end_range});
  }
  const ScratchPlan plan = plan_scratch(has_work ? n : 0, has_work ? num_segments : 0, sizeof(Key),
                                        kHasValues<Value> ? sizeof(Value) : 0, min_bin);
  const std::size_t need = plan.layout.total_bytes();
  if (answer_size_query(temp_storage, temp_storage_bytes, need, checked)) return;
  if (!has_work) return;
  require_apart("segmented sort", {MemoryRange{temp_storage, need, "temp_storage"}},
                {begin_range, end_range});

  const SortOptions resolved = resolve<Key>(options);
  const auto& layout = plan.layout;
  SegmentedArrays<Key, Value> arrays{};
  arrays.keys_in = keys_in;
  arrays.keys_out = keys_out;
  arrays.alternate_keys = layout.get<Key>(temp_storage, plan.alternate_keys);
  if constexpr (kHasValues<Value>) {
    arrays.values_in = values_in;
    arrays.values_out = values_out;
    arrays.alternate_values = layout.get<Value>(temp_storage, plan.alternate_values);
  }
  Segments segments{};
  segments.begin_offsets = begin_offsets;
  segments.end_offsets = end_offsets;
  segments.num_segments = static_cast<std::uint32_t>(num_segments);
  segments.n = n;
  segments.list_counts = layout.get<std::uint32_t>(temp_storage, plan.list_counts);
  segments.list_ids = layout.get<std::uint32_t>(temp_storage, plan.list_ids);
  for (int l = 0; l < kNumListBins; ++l) {
    segments.list_offset[l] = plan.list_offset[l];
    segments.list_capacity[l] = static_cast<std::uint32_t>(plan.list_capacity[l]);
  }
  // The huge path costs a few microseconds per sort even when no segment is huge (its
  // kernels are queued for as many huge segments as n items could make; only the device knows
  // how many there are). It runs when the segments average at least kHugeMinAverageItems keys;
  // otherwise the large kernel sorts every large segment, huge or not, with one block each.
  const int passes =
      (resolved.end_bit - resolved.begin_bit + kBlockRadixBits - 1) / kBlockRadixBits;
  const bool huge_path = passes > 0 && huge_path_queued(n, num_segments);
  segments.huge_min_items = huge_path ? kHugeMinItems : ~std::uint32_t{0};
  segments.min_bin = min_bin;
  const BitRange range{resolved.begin_bit, resolved.end_bit, resolved.descending};

  // The counters start at zero on every call, so a reused scratch needs nothing from the caller.
  SORTLAB_CUDA_CHECK(
      cudaMemsetAsync(segments.list_counts, 0, kNumListBins * sizeof(std::uint32_t), stream));
  // One thread per segment (every thread must exist: no striding in the classification). This
  // kernel also sorts every small segment.
  const auto classify_blocks =
      static_cast<unsigned>((num_segments + kBlockThreads - 1) / kBlockThreads);
  launch_chained(classify_kernel<Key, Value>, classify_blocks, kBlockThreads, 0, stream, arrays,
                 segments, range);

  // One launch per kernel after it. Only the device knows the counts, so every grid is sized
  // for its lists' room (all segments in that bin, or as many as n items can make, since
  // segments do not overlap), capped at an SM's worth of threads per SM: the warps or blocks
  // stride over the lists, and those past their end return at once. A bin that n items cannot
  // fill has no room and is not launched.
  const std::size_t sms = multiprocessor_count();
  std::size_t most_warp = 0;
  for (int bin = kFirstWarpBin; bin < kFirstTileBin; ++bin)
    most_warp += segments.list_capacity[list_of_bin(bin)];
  if (most_warp > 0) {
    launch_chained(warp_segments_kernel<Key, Value>,
                   class_grid(most_warp, kWarpsPerBlock, sms * (kMaxThreadsPerSm / kBlockThreads)),
                   kBlockThreads, 0, stream, arrays, segments, range);
  }
  static_assert(kNumTileBins == 4, "one launch per tile bin below");
  launch_tile_bin<Key, Value, kFirstTileBin>(arrays, segments, range, sms, stream);
  launch_tile_bin<Key, Value, kFirstTileBin + 1>(arrays, segments, range, sms, stream);
  launch_tile_bin<Key, Value, kFirstTileBin + 2>(arrays, segments, range, sms, stream);
  launch_tile_bin<Key, Value, kFirstTileBin + 3>(arrays, segments, range, sms, stream);
  const std::size_t most_large = segments.list_capacity[list_of_bin(kLargeBin)];
  if (most_large > 0) {
    // Two 34 KiB blocks of 256 threads per SM at most: a quarter of the threads per SM's cap.
    launch_chained(large_segments_kernel<Key, Value>,
                   class_grid(most_large, 1, sms * (kMaxThreadsPerSm / kBlockThreads) / 2),
                   kBlockThreads, 0, stream, arrays, segments, range);
  }

  // Huge segments: many blocks per segment, one launch per pass (section 5 of the kernels).
  if (huge_path) {
    std::uint32_t* lists = layout.get<std::uint32_t>(temp_storage, plan.huge_lists);
    std::uint32_t* zeroed = layout.get<std::uint32_t>(temp_storage, plan.huge_zeroed);
    HugeSegments huge{};
    huge.count = lists;
    huge.ids = lists + 2;
    huge.tile_first = lists + 2 + plan.huge_capacity;
    // The slot's rows of 2^kHugeDigitBits words start 16-byte aligned (the clear kernel's
    // stores); the tile counters come last.
    huge.digit_counts = zeroed;
    huge.tile_status = huge.digit_counts + plan.huge_capacity * plan.huge_max_passes * kHugeDigits;
    huge.tile_counter = huge.tile_status + plan.huge_max_tiles * plan.huge_max_passes * kHugeDigits;
    huge.capacity = static_cast<std::uint32_t>(plan.huge_capacity);
    huge.max_tiles = static_cast<std::uint32_t>(plan.huge_max_tiles);
    huge.max_passes = static_cast<int>(plan.huge_max_passes);
    huge.route_count = layout.get<unsigned long long>(temp_storage, plan.huge_route_count);
    std::uint32_t* route_words = layout.get<std::uint32_t>(temp_storage, plan.huge_route_words);
    huge.chunk_counts = route_words;
    huge.route_entry = huge.chunk_counts + kNumListBins;
    huge.route_tile_first = huge.route_entry + 2 * plan.huge_capacity;
    huge.chunk_ids = layout.get<std::uint32_t>(temp_storage, plan.huge_chunks);
    huge.chunk_begin = huge.chunk_ids + plan.huge_chunk_capacity;
    huge.chunk_end = huge.chunk_begin + plan.huge_chunk_capacity;
    huge.chunk_capacity = static_cast<std::uint32_t>(plan.huge_chunk_capacity);
    // The huge path's passes take kHugeDigitBits-bit digits (the large kernel's take
    // kBlockRadixBits): its own count, and its own ping-pong parity (its last pass writes the
    // output).
    const int huge_passes =
        (resolved.end_bit - resolved.begin_bit + kHugeDigitBits - 1) / kHugeDigitBits;
    // The counters, counts and status words start at zero on every call (a reused scratch needs
    // nothing from the caller): the plan kernel zeroes the tile counters, then the clear kernel
    // the rows that the listed segments use, not the slot's whole room.
    launch_chained(huge_plan_kernel<Key>, 1, kBlockThreads, 0, stream, segments, huge);
    launch_chained(huge_clear_kernel<Key>,
                   static_cast<unsigned>(sms * (kMaxThreadsPerSm / kBlockThreads)), kBlockThreads,
                   0, stream, huge, huge_passes);
    // The histogram kernel's blocks are light (8 per SM); a pass kernel's hold a tile
    // (huge_min_blocks_per_sm() per SM) and take tiles from the pass's counter until none is
    // left, so as many as fit on the SMs at once are enough.
    launch_chained(huge_histogram_kernel<Key, Value>,
                   class_grid(plan.huge_max_tiles, 1, sms * (kMaxThreadsPerSm / kBlockThreads)),
                   kBlockThreads, 0, stream, arrays, segments, huge, range, huge_passes);
    // Each huge segment takes one of two routes (huge_route_segment()): the split route (its
    // last pass, most significant digit first, cuts it into buckets that fit a tile) when the
    // sort takes two passes or more, else the radix route (every pass). The last pass takes
    // both routes' tiles.
    launch_chained(huge_route_kernel<Key>,
                   class_grid(plan.huge_capacity, 1, sms * (kMaxThreadsPerSm / kBlockThreads)),
                   kBlockThreads, 0, stream, segments, huge, huge_passes);
    const unsigned pass_grid =
        class_grid(plan.huge_max_tiles, 1, sms * huge_min_blocks_per_sm(kHasValues<Value>));
    for (int pass = 0; pass < huge_passes; ++pass) {
      launch_chained(huge_pass_kernel<Key, Value>, pass_grid, kBlockThreads, 0, stream, arrays,
                     segments, huge, range, pass, huge_passes);
    }
    if (huge_passes >= 2) {
      // The split route's chunks, in place in the output (the split pass put them there), each
      // one block of the largest tile bin's kernel, by all the sorted bits. A list of their own
      // (the route kernel fills it), so the kernel runs as it does for the caller's segments.
      Segments chunks{};
      chunks.begin_offsets = huge.chunk_begin;
      chunks.end_offsets = huge.chunk_end;
      chunks.num_segments = static_cast<std::uint32_t>(plan.huge_chunk_capacity);
      chunks.n = n;
      chunks.list_counts = huge.chunk_counts;
      chunks.list_ids = huge.chunk_ids;
      chunks.list_capacity[list_of_bin(kLargeTileBin<Key>)] = huge.chunk_capacity;
      chunks.huge_min_items = ~std::uint32_t{0};
      SegmentedArrays<Key, Value> in_place = arrays;
      in_place.keys_in = arrays.keys_out;
      if constexpr (kHasValues<Value>) in_place.values_in = arrays.values_out;
      launch_tile_bin<Key, Value, kLargeTileBin<Key>>(in_place, chunks, range, sms, stream);
    }
  }
}

/// sort_pairs() and sort_pairs_with_min_bin(): the values move as carriers of their size.
template <typename Key, typename Value>
void sort_pairs_through_carrier(void* temp_storage, std::size_t& temp_storage_bytes,
                                const Key* keys_in, Key* keys_out, const Value* values_in,
                                Value* values_out, std::size_t n, std::size_t num_segments,
                                const std::uint32_t* begin_offsets,
                                const std::uint32_t* end_offsets, const SortOptions& options,
                                cudaStream_t stream, int min_bin) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  using Carrier = ValueCarrier<sizeof(Value)>;
  static_assert(kCarriableValue<Value>,
                "values must be trivially copyable and no more aligned than their size");
  sort<Key, Carrier>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                     reinterpret_cast<const Carrier*>(values_in),
                     reinterpret_cast<Carrier*>(values_out), n, num_segments, begin_offsets,
                     end_offsets, options, stream, min_bin);
}

}  // namespace launcher

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, std::size_t num_segments,
               const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
               const SortOptions& options, cudaStream_t stream) {
  launcher::sort<Key, NullType>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr,
                                nullptr, n, num_segments, begin_offsets, end_offsets, options,
                                stream, 0);
}

template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                std::size_t num_segments, const std::uint32_t* begin_offsets,
                const std::uint32_t* end_offsets, const SortOptions& options, cudaStream_t stream) {
  launcher::sort_pairs_through_carrier<Key, Value>(temp_storage, temp_storage_bytes, keys_in,
                                                   keys_out, values_in, values_out, n, num_segments,
                                                   begin_offsets, end_offsets, options, stream, 0);
}

template <typename Key, typename Value>
void sort_pairs_with_min_bin(void* temp_storage, std::size_t& temp_storage_bytes,
                             const Key* keys_in, Key* keys_out, const Value* values_in,
                             NotDeduced<Value>* values_out, std::size_t n, std::size_t num_segments,
                             const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
                             int min_bin, const SortOptions& options, cudaStream_t stream) {
  launcher::sort_pairs_through_carrier<Key, Value>(
      temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, n, num_segments,
      begin_offsets, end_offsets, options, stream, min_bin);
}

/// Instantiates sort_pairs<Key, Value> and sort_pairs_with_min_bin<Key, Value> (the same
/// launcher, no other kernel): a helper of SORTLAB_STAGE06_INSTANTIATE.
#define SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, Value)                                           \
  template void sort_pairs<Key, Value>(void*, std::size_t&, const Key*, Key*, const Value*,     \
                                       Value*, std::size_t, std::size_t, const std::uint32_t*,  \
                                       const std::uint32_t*, const SortOptions&, cudaStream_t); \
  template void sort_pairs_with_min_bin<Key, Value>(                                            \
      void*, std::size_t&, const Key*, Key*, const Value*, Value*, std::size_t, std::size_t,    \
      const std::uint32_t*, const std::uint32_t*, int, const SortOptions&, cudaStream_t);
/// One instantiation of the public sorts for key type \p Key (keys only, u32 and u64 values), in
/// the file of instances/ for that type and nowhere else (compile time).
#define SORTLAB_STAGE06_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t, std::size_t, \
                               const std::uint32_t*, const std::uint32_t*, const SortOptions&,  \
                               cudaStream_t);                                                   \
  SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, std::uint32_t)                                         \
  SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, std::uint64_t)

}  // namespace sortlab::stage06
