/// \file
/// \brief Equal segments for the CUB segmented-sort baselines: offsets computed by an iterator
/// (offset of segment s = min(s * S, n)), so the sorts read no offset array.
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <functional>
#include <string>

#include "bench/table/baselines.hpp"

namespace sortlab::bench::detail {

/// Begin offset of segment s when n keys are cut into segments of segment_size keys.
struct EqualSegmentOffset {
  int segment_size;  ///< keys per segment (the last one may be shorter)
  int num_items;     ///< n

  /// Offset of segment \p segment, clamped to n (so offset num_segments is n).
  /// \param segment segment index, 0..num_segments
  __host__ __device__ int operator()(int segment) const {
    const long long offset = static_cast<long long>(segment) * segment_size;
    return offset < num_items ? static_cast<int>(offset) : num_items;
  }
};

/// Iterator over the num_segments + 1 offsets; segment s is [it[s], it[s + 1]).
using EqualSegmentIterator =
    thrust::transform_iterator<EqualSegmentOffset, thrust::counting_iterator<int>>;

/// Offsets of \p n keys cut into segments of \p segment_size keys.
/// \param n number of keys
/// \param segment_size keys per segment
inline EqualSegmentIterator equal_segments(std::size_t n, std::size_t segment_size) {
  return EqualSegmentIterator(
      thrust::counting_iterator<int>(0),
      EqualSegmentOffset{static_cast<int>(segment_size), static_cast<int>(n)});
}

/// Number of segments of \p segment_size keys that cover \p n keys.
/// \param n number of keys
/// \param segment_size keys per segment
inline int segment_count(std::size_t n, std::size_t segment_size) {
  return static_cast<int>((n + segment_size - 1) / segment_size);
}

/// Registers one segmented-sort baseline for every size in kSegmentSizes.
/// \param config sizes and entropies
/// \param name entry name ("cub-segmented-radix", ...)
/// \param what the call, for the label ("cub::DeviceSegmentedSort::SortKeys")
/// \param make_call builds the SortCall for one segment size
/// \param host_synchronizes the call waits for the host (SortEntry::host_synchronizes)
inline void register_segmented(const BenchConfig& config, const std::string& name,
                               const std::string& what,
                               const std::function<SortCall(std::size_t)>& make_call,
                               bool host_synchronizes = false) {
  if (!wants_u32(config, false)) return;
  for (std::size_t segment_size : kSegmentSizes) {
    SortEntry entry;
    entry.name = name;
    entry.summary = what + " on equal segments of " + std::to_string(segment_size) +
                    " keys (offsets from an iterator)";
    entry.key_type = "u32";
    entry.pairs = false;
    entry.variant = "seg:" + std::to_string(segment_size);
    entry.sort = make_call(segment_size);
    entry.bytes = floor_bytes;
    entry.host_synchronizes = host_synchronizes;
    register_sort(entry, config);
  }
}

}  // namespace sortlab::bench::detail
