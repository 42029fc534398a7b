/// \file
/// \brief Baseline: thrust::sort_by_key on u32 keys with u32 values (copy both to the outputs,
/// then sort in place).
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <cub/device/device_radix_sort.cuh>

#include "bench/table/baselines.hpp"
#include "bench/table/scratch_allocator.hpp"
#include "chapters/00_cub/cub_sort.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// Scratch Thrust needs to sort \p n pairs: second key and value buffers and CUB's temp storage
/// (see thrust/system/cuda/detail/sort.h), with alignment slack.
/// Thrust passes the count as a std::ptrdiff_t (keys_last - keys_first), and CUB's temp storage
/// depends on the offset type, so the query must use the same type; 1 MiB of slack on top.
/// \param n number of keys
/// \param stream the stream of the query
std::size_t thrust_scratch_bytes(std::size_t n, cudaStream_t stream) {
  std::size_t cub_bytes = 0;
  cub::DoubleBuffer<std::uint32_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, cub_bytes, keys, values, static_cast<std::ptrdiff_t>(n), 0, 32, stream));
  return 2 * ScratchAllocator::aligned(n * sizeof(std::uint32_t)) +
         ScratchAllocator::aligned(cub_bytes) + (std::size_t{1} << 20);
}

/// The SortCall: query the scratch size, or copy keys and values and sort them.
void thrust_sort_pairs(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                       const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                       cudaStream_t stream) {
  if (temp == nullptr) {
    temp_bytes = thrust_scratch_bytes(n, stream);
    return;
  }
  auto* keys = static_cast<std::uint32_t*>(keys_out);
  SORTLAB_CUDA_CHECK(
      cudaMemcpyAsync(keys, keys_in, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(values_out, values_in, n * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToDevice, stream));
  ScratchAllocator allocator(temp, temp_bytes);
  // par_nosync: no synchronisation at the end, so the CUDA events time the GPU work alone.
  thrust::sort_by_key(thrust::cuda::par_nosync(allocator).on(stream), keys, keys + n, values_out);
}

}  // namespace

void register_thrust_sort_by_key(const BenchConfig& config) {
  if (!detail::wants_u32(config, true)) return;
  SortEntry entry;
  entry.name = "thrust";
  entry.summary =
      "thrust::sort_by_key: copy keys and values to the outputs, then sort in place (CUB radix "
      "sort underneath)";
  entry.key_type = "u32";
  entry.pairs = true;
  entry.sort = thrust_sort_pairs;
  entry.bytes = [](std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return 2.0 * static_cast<double>(n * (key_bytes + value_bytes)) +
           stage00::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes));
  };
  register_sort(entry, config);
}

}  // namespace sortlab::bench
