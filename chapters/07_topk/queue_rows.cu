/// \file
/// \brief Stage 07 launcher of the queue kernels (queue_rows.cuh) for 2 <= k <= kMaxQueueK, in a
/// file of its own so that their instantiations (three queue lengths, two group widths, seven
/// value types) compile beside topk.cu's rather than after it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "chapters/07_topk/queue_rows.cuh"
#include "common/chained_launch.cuh"
#include "common/device_properties.hpp"

namespace sortlab::stage07 {

namespace {

/// The launch for queue length \p K.
template <typename T, int K>
void launch_queue_rows_of(const TopkArrays<T>& arrays, std::size_t num_rows,
                          const ArgmaxSplit& split, cudaStream_t stream) {
  if (split.warp_per_row) {
    const auto launch_groups = [&](auto kernel, std::size_t rows_per_block) {
      const std::size_t blocks = (num_rows + rows_per_block - 1) / rows_per_block;
      launch_chained(kernel, static_cast<unsigned>(blocks), kBlockThreads, 0, stream, arrays,
                     num_rows);
    };
    if (queue_group_lanes(arrays.row_length) == 8)
      launch_groups(topk_queue_warp_rows_kernel<T, K, 8>, std::size_t{kWarpRowsPerBlock} * 4);
    else if (arrays.row_length <= kMaxWarpRowLength)
      launch_groups(topk_queue_warp_rows_kernel<T, K, 32>, std::size_t{kWarpRowsPerBlock});
    else
      launch_groups(topk_queue_warp_rows_kernel<T, K, 32, kQueueWarpVectors<K>>,
                    std::size_t{kWarpRowsPerBlock});
    return;
  }
  if (split.blocks_per_row == 1) {
    launch_chained(topk_queue_rows_kernel<T, K>, static_cast<unsigned>(num_rows), kBlockThreads, 0,
                   stream, arrays, static_cast<std::uint32_t>(split.values_per_block));
    return;
  }
  // A cluster per row: queue_split() gives more than one block only in sm_90 builds.
  if (split.blocks_per_row > kPortableClusterBlocks)
    allow_non_portable_clusters<topk_queue_rows_kernel<T, K>>();
  launch_chained_in_clusters(topk_queue_rows_kernel<T, K>,
                             static_cast<unsigned>(num_rows * split.blocks_per_row), kBlockThreads,
                             0, static_cast<unsigned>(split.blocks_per_row), stream, arrays,
                             static_cast<std::uint32_t>(split.values_per_block));
}

}  // namespace

template <typename T>
void launch_queue_rows(const TopkArrays<T>& arrays, std::size_t num_rows, const ArgmaxSplit& split,
                       cudaStream_t stream) {
  static_assert(kMaxQueueK == 32, "the queue lengths below cover 2 .. kMaxQueueK");
  if (arrays.k <= 8)
    launch_queue_rows_of<T, 8>(arrays, num_rows, split, stream);
  else if (arrays.k <= 16)
    launch_queue_rows_of<T, 16>(arrays, num_rows, split, stream);
  else
    launch_queue_rows_of<T, 32>(arrays, num_rows, split, stream);
}

#define SORTLAB_STAGE07_QUEUE_INSTANTIATE(T)                                                \
  template void launch_queue_rows<T>(const TopkArrays<T>&, std::size_t, const ArgmaxSplit&, \
                                     cudaStream_t);
SORTLAB_STAGE07_QUEUE_INSTANTIATE(float)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(std::int32_t)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(double)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(std::int64_t)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(__half)
SORTLAB_STAGE07_QUEUE_INSTANTIATE(__nv_bfloat16)
#undef SORTLAB_STAGE07_QUEUE_INSTANTIATE

}  // namespace sortlab::stage07
