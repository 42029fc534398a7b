/// \file
/// \brief Stage 06's scratch plan: where the large class's ping-pong copy, the bin lists and the
/// huge path's lists, counts and status words lie in the caller's scratch. The same for every
/// key and value type, so it is compiled once, here; the sorts themselves are templates
/// (segmented_sort_launch.cuh), instantiated once per key type in `instances/`.
#include <algorithm>
#include <cstddef>

#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/segmented_sort_kernels.cuh"
#include "chapters/06_segmented_sort/size_classes.hpp"

namespace sortlab::stage06 {

std::size_t huge_zeroed_words(const ScratchPlan& plan) {
  return plan.huge_capacity == 0
             ? 0
             : plan.huge_max_passes *
                   (1 + (plan.huge_capacity + plan.huge_max_tiles) * kHugeDigits);
}

ScratchPlan plan_scratch(std::size_t n, std::size_t num_segments, std::size_t key_bytes,
                         std::size_t value_bytes, int min_bin) {
  ScratchPlan plan{};
  // The large class ping-pongs through a copy indexed like the input. Which segments are large
  // is known only on the device, so the copy covers all n items.
  plan.alternate_keys = plan.layout.add<unsigned char>(n * key_bytes);
  plan.alternate_values = plan.layout.add<unsigned char>(n * value_bytes);
  plan.list_counts = plan.layout.add<std::uint32_t>(num_segments > 0 ? kNumListBins : 0);
  // List l holds the segments of bin kFirstWarpBin + l, each at least bin_lower_bound() items:
  // segments do not overlap, so n items make at most n / that many of them. The small bins
  // need no list (the classify kernel sorts them), so the lists take at most about n / 16 ids,
  // and never more than num_segments each.
  std::size_t total = 0;
  for (int l = 0; l < kNumListBins; ++l) {
    const int bin = kFirstWarpBin + l;
    const bool exists = bin < kFirstTileBin || bin == kLargeBin || tile_bin_exists(bin, key_bytes);
    // Raised to min_bin, a bin also takes every smaller segment: one item or more.
    const std::size_t smallest = bin == min_bin ? 1 : bin_lower_bound(bin, key_bytes);
    const std::size_t room = exists ? std::min(num_segments, n / smallest) : 0;
    plan.list_offset[l] = total;
    plan.list_capacity[l] = room;
    total += room;
  }
  plan.list_ids = plan.layout.add<std::uint32_t>(total);
  // The huge path (many blocks per segment of kHugeMinItems keys and more): which segments are
  // huge is known only on the device, so its lists, counts and status words have room for as
  // many as n items can make. A sort that does not queue the path (huge_path_queued) reserves
  // none of it.
  const bool huge_path = huge_path_queued(n, num_segments);
  plan.huge_capacity = huge_path ? huge_capacity(n, num_segments) : 0;
  plan.huge_max_tiles = huge_path ? huge_max_tiles(n, num_segments, key_bytes) : 0;
  plan.huge_max_passes = huge_path ? static_cast<std::size_t>(huge_max_passes(key_bytes)) : 0;
  plan.huge_lists =
      plan.layout.add<std::uint32_t>(plan.huge_capacity > 0 ? 2 * plan.huge_capacity + 2 : 0);
  plan.huge_zeroed = plan.layout.add<std::uint32_t>(huge_zeroed_words(plan));
  // The two routes' counts; the chunk list's counters, each route's entries and first tiles;
  // then the chunks' ids and bounds.
  plan.huge_chunk_capacity = huge_path ? huge_chunk_capacity(n, num_segments, key_bytes) : 0;
  plan.huge_route_count = plan.layout.add<unsigned long long>(plan.huge_capacity > 0 ? 2 : 0);
  plan.huge_route_words = plan.layout.add<std::uint32_t>(
      plan.huge_capacity > 0 ? kNumListBins + 4 * plan.huge_capacity : 0);
  plan.huge_chunks = plan.layout.add<std::uint32_t>(3 * plan.huge_chunk_capacity);
  return plan;
}

}  // namespace sortlab::stage06
