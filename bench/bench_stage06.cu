/// \file
/// \brief Stage 06 benchmark program: the segmented sort against CUB's DeviceSegmentedSort and
/// DeviceSegmentedRadixSort on the same segments (equal segments of 8 to 2^20 keys, variants
/// "seg:S"), pairs of f32 keys and u32 values as issue 17 measures them, with the copy floor.
/// Example: `bench_stage06 --sizes=26 --types=f32 --pairs=1` (2^26 pairs in all).
/// Part of `make table` (bench/table/make_table.sh): results_table.py makes stage 06's page of it.
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/ladder.hpp"
#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"
#include "common/gpu_detect.hpp"

namespace sortlab::bench {
namespace {

/// Segment sizes of issue 17's table.
constexpr std::size_t kSegmentSizes[] = {8, 32, 128, 1000, 4096, 65536, std::size_t{1} << 20};

/// The offsets of n keys cut into equal segments, built on the device when a benchmark first
/// asks for its scratch size (never inside a timed call: n is fixed per benchmark).
struct EqualSegments {
  std::size_t segment_size = 0;
  std::size_t n = 0;
  std::size_t count = 0;
  DeviceBuffer<std::uint32_t> offsets;  ///< count + 1 offsets; segment s is [o[s], o[s + 1])

  void prepare(std::size_t items) {
    if (items == n && count != 0) return;
    n = items;
    count = (n + segment_size - 1) / segment_size;
    std::vector<std::uint32_t> host(count + 1);
    for (std::size_t s = 0; s <= count; ++s)
      host[s] = static_cast<std::uint32_t>(std::min(s * segment_size, n));
    offsets = DeviceBuffer<std::uint32_t>(host);
  }
};

/// Which sort an entry runs.
enum class Impl { kStage06, kCubSegmentedSort, kCubSegmentedRadixSort };

SortCall make_call(Impl impl, std::size_t segment_size) {
  auto segments = std::make_shared<EqualSegments>();
  segments->segment_size = segment_size;
  return [impl, segments](void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                          const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                          cudaStream_t stream) {
    segments->prepare(n);
    const auto* kin = static_cast<const float*>(keys_in);
    auto* kout = static_cast<float*>(keys_out);
    const std::uint32_t* begin = segments->offsets.data();
    const std::uint32_t* end = begin + 1;
    const int count = static_cast<int>(segments->count);
    switch (impl) {
      case Impl::kStage06:
        if (values_in == nullptr)
          stage06::sort_keys(temp, temp_bytes, kin, kout, n, segments->count, begin, end, {},
                             stream);
        else
          stage06::sort_pairs(temp, temp_bytes, kin, kout, values_in, values_out, n,
                              segments->count, begin, end, {}, stream);
        break;
      case Impl::kCubSegmentedSort:
        if (values_in == nullptr)
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortKeys(
              temp, temp_bytes, kin, kout, static_cast<int>(n), count, begin, end, stream));
        else
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
              temp, temp_bytes, kin, kout, values_in, values_out, static_cast<int>(n), count, begin,
              end, stream));
        break;
      case Impl::kCubSegmentedRadixSort:
        if (values_in == nullptr)
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(
              temp, temp_bytes, kin, kout, static_cast<int>(n), count, begin, end, 0, 32, stream));
        else
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
              temp, temp_bytes, kin, kout, values_in, values_out, static_cast<int>(n), count, begin,
              end, 0, 32, stream));
        break;
    }
  };
}

/// Registers one implementation at every segment size, for f32 keys (and u32 values).
void register_impl(const BenchConfig& config, Impl impl, const std::string& name,
                   const std::string& what) {
  for (bool pairs : {false, true}) {
    if ((pairs && !config.pairs) || (!pairs && !config.keys)) continue;
    for (std::size_t segment_size : kSegmentSizes) {
      SortEntry entry;
      entry.name = name;
      entry.summary = what + " on equal segments of " + std::to_string(segment_size) + " keys";
      entry.key_type = "f32";
      entry.pairs = pairs;
      entry.variant = "seg:" + std::to_string(segment_size);
      entry.sort = make_call(impl, segment_size);
      // Bytes by the floor: every key (and value) read once and written once.
      entry.bytes = [](std::size_t n, std::size_t kb, std::size_t vb) {
        return 2.0 * static_cast<double>(n) * static_cast<double>(kb + vb);
      };
      // CUB's DeviceSegmentedSort copies its partition to the host and waits for it.
      entry.host_synchronizes = impl == Impl::kCubSegmentedSort;
      register_sort(entry, config);
    }
  }
}

}  // namespace
}  // namespace sortlab::bench

int main(int argc, char** argv) {
  using namespace sortlab::bench;
  return run_main(argc, argv, [](const BenchConfig& config) {
    // The GPU, for results_table.py's page (bench_all records the same keys).
    benchmark::AddCustomContext("sortlab_gpu_name", sortlab::gpu_description());
    benchmark::AddCustomContext("sortlab_gpu_file_name", sortlab::gpu_file_name());
    register_copy_bandwidth(config);
    register_impl(config, Impl::kStage06, "stage06", "sortlab stage 06 (size classes)");
    register_impl(config, Impl::kCubSegmentedSort, "cub-segmented-sort",
                  "cub::DeviceSegmentedSort (stable)");
    register_impl(config, Impl::kCubSegmentedRadixSort, "cub-segmented-radix",
                  "cub::DeviceSegmentedRadixSort");
  });
}
