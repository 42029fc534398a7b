/// \file
/// \brief Stage 00 keys-only sort: forwards to cub::DeviceRadixSort.
#include <cub/device/device_radix_sort.cuh>

#include "chapters/00_cub/cub_sort.hpp"
#include "common/errors.hpp"

namespace sortlab::stage00 {

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, cudaStream_t stream) {
  const SortArrays checked =
      validate_sort_arguments<Key>(temp_storage, n, options, keys_in, keys_out);
  const SortOptions resolved = resolve<Key>(options);
  const int items = static_cast<int>(n);
  std::size_t needed = 0;  // CUB's own size query: host arithmetic, no GPU work
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, needed, keys_in, keys_out, items,
                                                    resolved.begin_bit, resolved.end_bit, stream));
  if (answer_size_query(temp_storage, temp_storage_bytes, needed, checked)) return;
  if (resolved.descending) {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(
        temp_storage, temp_storage_bytes, keys_in, keys_out, items, resolved.begin_bit,
        resolved.end_bit, stream));
  } else {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_storage, temp_storage_bytes, keys_in,
                                                      keys_out, items, resolved.begin_bit,
                                                      resolved.end_bit, stream));
  }
}

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits) {
  const int passes = (num_bits + 7) / 8;
  return static_cast<double>(n) *
         (key_bytes + passes * 2.0 * static_cast<double>(key_bytes + value_bytes));
}

template void sort_keys<std::uint32_t>(void*, std::size_t&, const std::uint32_t*, std::uint32_t*,
                                       std::size_t, const SortOptions&, cudaStream_t);
template void sort_keys<std::int32_t>(void*, std::size_t&, const std::int32_t*, std::int32_t*,
                                      std::size_t, const SortOptions&, cudaStream_t);
template void sort_keys<float>(void*, std::size_t&, const float*, float*, std::size_t,
                               const SortOptions&, cudaStream_t);

}  // namespace sortlab::stage00
