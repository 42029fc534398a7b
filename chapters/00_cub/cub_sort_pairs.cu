/// \file
/// \brief Stage 00 key-value sort: forwards to cub::DeviceRadixSort.
#include <cub/device/device_radix_sort.cuh>

#include "chapters/00_cub/cub_sort.hpp"
#include "common/errors.hpp"

namespace sortlab::stage00 {

template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options, cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  const SortArrays checked = validate_sort_arguments<Key>(temp_storage, n, options, keys_in,
                                                          keys_out, values_in, values_out);
  const SortOptions resolved = resolve<Key>(options);
  const int items = static_cast<int>(n);
  std::size_t needed = 0;  // CUB's own size query: host arithmetic, no GPU work
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, needed, keys_in, keys_out, values_in,
                                                     values_out, items, resolved.begin_bit,
                                                     resolved.end_bit, stream));
  if (answer_size_query(temp_storage, temp_storage_bytes, needed, checked)) return;
  if (resolved.descending) {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, items,
        resolved.begin_bit, resolved.end_bit, stream));
  } else {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, items,
        resolved.begin_bit, resolved.end_bit, stream));
  }
}

#define SORTLAB_STAGE00_INSTANTIATE(Key)                                                     \
  template void sort_pairs<Key>(void*, std::size_t&, const Key*, Key*, const std::uint32_t*, \
                                std::uint32_t*, std::size_t, const SortOptions&, cudaStream_t);
SORTLAB_STAGE00_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE00_INSTANTIATE(std::int32_t)
SORTLAB_STAGE00_INSTANTIATE(float)
#undef SORTLAB_STAGE00_INSTANTIATE

}  // namespace sortlab::stage00
