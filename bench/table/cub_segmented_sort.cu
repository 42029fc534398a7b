/// \file
/// \brief Baseline: cub::DeviceSegmentedSort::SortKeys on equal segments of u32 keys.
#include <cub/device/device_segmented_sort.cuh>

#include "bench/table/baselines.hpp"
#include "bench/table/segment_offsets.cuh"
#include "common/errors.hpp"

namespace sortlab::bench {

void register_cub_segmented_sort(const BenchConfig& config) {
  detail::register_segmented(
      config, "cub-segmented-sort", "cub::DeviceSegmentedSort::SortKeys",
      [](std::size_t segment_size) -> SortCall {
        return [segment_size](void* temp, std::size_t& temp_bytes, const void* keys_in,
                              void* keys_out, const std::uint32_t*, std::uint32_t*, std::size_t n,
                              cudaStream_t stream) {
          const auto offsets = detail::equal_segments(n, segment_size);
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
              temp, temp_bytes, static_cast<const std::uint32_t*>(keys_in),
              static_cast<std::uint32_t*>(keys_out), static_cast<int>(n),
              detail::segment_count(n, segment_size), offsets, offsets + 1, stream));
        };
      },
      // DeviceSegmentedSort copies its partition of the segments to the host and waits for it
      // (measured: the blocking kernel timed out on it), so it cannot be queued behind one.
      /*host_synchronizes=*/true);
}

}  // namespace sortlab::bench
