/// \file
/// \brief Baseline: thrust::sort on u32 keys (copy to the output, then sort in place).
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <cub/device/device_radix_sort.cuh>

#include "bench/table/baselines.hpp"
#include "bench/table/scratch_allocator.hpp"
#include "chapters/00_cub/cub_sort.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// Scratch Thrust needs to sort \p n keys: what its radix sort allocates (a second key buffer
/// and CUB's own temp storage, see thrust/system/cuda/detail/sort.h), with alignment slack.
/// Thrust passes the count as a std::ptrdiff_t (keys_last - keys_first), and CUB's temp storage
/// depends on the offset type, so the query must use the same type; 1 MiB of slack on top.
/// \param n number of keys
/// \param stream the stream of the query
std::size_t thrust_scratch_bytes(std::size_t n, cudaStream_t stream) {
  std::size_t cub_bytes = 0;
  cub::DoubleBuffer<std::uint32_t> keys(nullptr, nullptr);
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, keys,
                                                    static_cast<std::ptrdiff_t>(n), 0, 32, stream));
  return ScratchAllocator::aligned(n * sizeof(std::uint32_t)) +
         ScratchAllocator::aligned(cub_bytes) + (std::size_t{1} << 20);
}

/// The SortCall: query the scratch size, or copy and sort (values pointers unused).
void thrust_sort_keys(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                      const std::uint32_t*, std::uint32_t*, std::size_t n, cudaStream_t stream) {
  if (temp == nullptr) {
    temp_bytes = thrust_scratch_bytes(n, stream);
    return;
  }
  auto* out = static_cast<std::uint32_t*>(keys_out);
  SORTLAB_CUDA_CHECK(
      cudaMemcpyAsync(out, keys_in, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  ScratchAllocator allocator(temp, temp_bytes);
  // par_nosync: no synchronisation at the end, so the CUDA events time the GPU work alone.
  thrust::sort(thrust::cuda::par_nosync(allocator).on(stream), out, out + n);
}

}  // namespace

void register_thrust_sort(const BenchConfig& config) {
  if (!detail::wants_u32(config, false)) return;
  SortEntry entry;
  entry.name = "thrust";
  entry.summary =
      "thrust::sort: copy keys to the output, then sort in place (CUB radix sort underneath)";
  entry.key_type = "u32";
  entry.pairs = false;
  entry.sort = thrust_sort_keys;
  entry.bytes = [](std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return 2.0 * static_cast<double>(n * (key_bytes + value_bytes)) +
           stage00::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes));
  };
  register_sort(entry, config);
}

}  // namespace sortlab::bench
