/// \file
/// \brief Stage 06 host launcher: check the arguments, carve the scratch, zero the class
/// counters, classify on the device, then one launch per size class with a grid sized from
/// num_segments. Explicit instantiations for u32, i32, f32 and u64 keys with u32 and u64 values.
///
/// Status: verified on the H100 (ctest -L stage06, compute-sanitizer); speed not measured yet.
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
namespace {

/// Blocks per SM a class kernel's grid may have at most: enough to fill an SM (8 blocks of 256
/// threads are 2048 threads, an H100 SM's limit; the block kernels' 34 KiB of shared memory
/// allow about 6), not so many that a grid of mostly idle blocks costs launch time. Blocks
/// stride over their class's list, so a smaller grid is still correct.
constexpr unsigned kSmallBlocksPerSm = 8;
constexpr unsigned kBlockKernelBlocksPerSm = 4;

/// Grid of a class kernel: one block per \p per_block list entries of an upper bound of
/// \p upper_bound entries, but at most \p most blocks (they stride over the list).
unsigned class_grid(std::size_t upper_bound, std::size_t per_block, std::size_t most) {
  return static_cast<unsigned>(std::clamp<std::size_t>((upper_bound + per_block - 1) / per_block, 1,
                                                       std::max<std::size_t>(most, 1)));
}

template <typename Key, typename Value>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, std::size_t num_segments,
          const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
          const SortOptions& options, cudaStream_t stream) {
  // Every check comes before the first CUDA call, so a rejected call changes nothing.
  const SortArrays checked = validate_sort_arguments<Key, Value>(
      temp_storage, n, options, keys_in, keys_out, values_in, values_out, kMaxItems);
  require(num_segments <= kMaxSegments, [&] {
    return "segmented sort: num_segments = " + std::to_string(num_segments) +
           " exceeds this sort's maximum of " + std::to_string(kMaxSegments);
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
                                        kHasValues<Value> ? sizeof(Value) : 0);
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
  segments.class_counts = layout.get<std::uint32_t>(temp_storage, plan.class_counts);
  segments.class_ids = layout.get<std::uint32_t>(temp_storage, plan.class_ids);
  const BitRange range{resolved.begin_bit, resolved.end_bit, resolved.descending};

  // The counters start at zero on every call, so a reused scratch needs nothing from the caller.
  SORTLAB_CUDA_CHECK(
      cudaMemsetAsync(segments.class_counts, 0, kNumSizeClasses * sizeof(std::uint32_t), stream));
  // One thread per segment (every thread must exist: no striding in the classification).
  const auto classify_blocks =
      static_cast<unsigned>((num_segments + kBlockThreads - 1) / kBlockThreads);
  classify_kernel<Key><<<classify_blocks, kBlockThreads, 0, stream>>>(segments);
  SORTLAB_CHECK_LAUNCH();

  // One launch per class. Only the device knows each class's count, so every grid is sized for
  // an upper bound (all segments in that class, or as many as n items can make, since segments
  // do not overlap), capped at a few blocks per SM: the blocks stride over the list, and those
  // past its end return at once. A class that n items cannot fill is not launched.
  const std::size_t sms = multiprocessor_count();
  const std::size_t most_small = std::min(num_segments, n);
  small_segments_kernel<Key, Value>
      <<<class_grid(most_small, kWarpsPerBlock, sms * kSmallBlocksPerSm), kBlockThreads, 0,
         stream>>>(arrays, segments, range);
  SORTLAB_CHECK_LAUNCH();
  const std::size_t most_medium = std::min(num_segments, n / (kSmallMaxItems + 1));
  if (most_medium > 0) {
    medium_segments_kernel<Key, Value>
        <<<class_grid(most_medium, 1, sms * kBlockKernelBlocksPerSm), kBlockThreads, 0, stream>>>(
            arrays, segments, range);
    SORTLAB_CHECK_LAUNCH();
  }
  const std::size_t most_large = std::min(num_segments, n / (medium_max_items(sizeof(Key)) + 1));
  if (most_large > 0) {
    large_segments_kernel<Key, Value>
        <<<class_grid(most_large, 1, sms * kBlockKernelBlocksPerSm), kBlockThreads, 0, stream>>>(
            arrays, segments, range);
    SORTLAB_CHECK_LAUNCH();
  }
}

}  // namespace

ScratchPlan plan_scratch(std::size_t n, std::size_t num_segments, std::size_t key_bytes,
                         std::size_t value_bytes) {
  ScratchPlan plan{};
  // The large class ping-pongs through a copy indexed like the input. Which segments are large
  // is known only on the device, so the copy covers all n items.
  plan.alternate_keys = plan.layout.add<unsigned char>(n * key_bytes);
  plan.alternate_values = plan.layout.add<unsigned char>(n * value_bytes);
  plan.class_counts = plan.layout.add<std::uint32_t>(num_segments > 0 ? kNumSizeClasses : 0);
  plan.class_ids = plan.layout.add<std::uint32_t>(kNumSizeClasses * num_segments);
  return plan;
}

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, std::size_t num_segments,
               const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
               const SortOptions& options, cudaStream_t stream) {
  sort<Key, NullType>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr, nullptr, n,
                      num_segments, begin_offsets, end_offsets, options, stream);
}

template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                std::size_t num_segments, const std::uint32_t* begin_offsets,
                const std::uint32_t* end_offsets, const SortOptions& options, cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  using Carrier = ValueCarrier<sizeof(Value)>;
  static_assert(kCarriableValue<Value>,
                "values must be trivially copyable and no more aligned than their size");
  sort<Key, Carrier>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                     reinterpret_cast<const Carrier*>(values_in),
                     reinterpret_cast<Carrier*>(values_out), n, num_segments, begin_offsets,
                     end_offsets, options, stream);
}

// One instantiation per supported key and value type, here and only here (compile time).
#define SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, Value)                                          \
  template void sort_pairs<Key, Value>(void*, std::size_t&, const Key*, Key*, const Value*,    \
                                       Value*, std::size_t, std::size_t, const std::uint32_t*, \
                                       const std::uint32_t*, const SortOptions&, cudaStream_t);
#define SORTLAB_STAGE06_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t, std::size_t, \
                               const std::uint32_t*, const std::uint32_t*, const SortOptions&,  \
                               cudaStream_t);                                                   \
  SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, std::uint32_t)                                         \
  SORTLAB_STAGE06_INSTANTIATE_PAIRS(Key, std::uint64_t)
SORTLAB_STAGE06_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE06_INSTANTIATE(std::int32_t)
SORTLAB_STAGE06_INSTANTIATE(float)
SORTLAB_STAGE06_INSTANTIATE(std::uint64_t)
SORTLAB_STAGE06_INSTANTIATE(std::int64_t)
SORTLAB_STAGE06_INSTANTIATE(double)
SORTLAB_STAGE06_INSTANTIATE(__half)
SORTLAB_STAGE06_INSTANTIATE(__nv_bfloat16)
#undef SORTLAB_STAGE06_INSTANTIATE
#undef SORTLAB_STAGE06_INSTANTIATE_PAIRS

}  // namespace sortlab::stage06
