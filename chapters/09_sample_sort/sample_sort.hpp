/// \file
/// \brief Stage 09 on GPUs: sample sort of u32 keys across the ranks of an NCCL communicator, one
/// process per GPU (sample_sort_model.hpp is the same algorithm on the host, and its README the
/// explanation). First version: u32 keys, ascending; the received runs are merged pairwise with
/// cub::DeviceMerge (or re-sorted with CUB's radix sort: MergeMethod).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sortlab::stage09 {

/// Throws sortlab::Error-like std::runtime_error naming the NCCL call when it fails.
#define SORTLAB_NCCL_CHECK(call)                                                     \
  do {                                                                               \
    const ncclResult_t sortlab_nccl_result = (call);                                 \
    if (sortlab_nccl_result != ncclSuccess)                                          \
      throw std::runtime_error(std::string(#call) + " failed at " + __FILE__ + ":" + \
                               std::to_string(__LINE__) + ": " +                     \
                               ncclGetErrorString(sortlab_nccl_result));             \
  } while (0)

/// Time of each phase of one sort on this rank (CUDA events, milliseconds), and the bytes it sent
/// to and received from other ranks.
struct PhaseTimes {
  float local_sort = 0;            ///< 1: CUB sort of the shard
  float splitters = 0;             ///< 2-5: samples, all-gather, splitters, partition
  float sizes = 0;                 ///< 6a: counts exchanged and read on the host
  float exchange = 0;              ///< 6b: the keys exchanged
  float merge = 0;                 ///< 7: the received runs merged (or re-sorted)
  std::size_t bytes_sent = 0;      ///< keys sent to other ranks, in bytes
  std::size_t bytes_received = 0;  ///< keys received from other ranks, in bytes
};

/// How phase 7 puts the P received runs (each sorted, in source-rank order) in order.
enum class MergeMethod {
  kMerge,   ///< pairwise merges, ceil(log2 P) rounds of cub::DeviceMerge (one read and write each)
  kResort,  ///< CUB's radix sort of all of them (the first version: a whole second local sort)
};

/// The buffers one rank needs for a shard of up to \p shard_capacity keys among \p ranks ranks.
struct SampleSortBuffers {
  std::uint32_t* sorted = nullptr;      ///< the sorted shard, then the result (receive_capacity)
  std::uint32_t* received = nullptr;    ///< the received runs (receive_capacity)
  void* cub_temp = nullptr;             ///< CUB's scratch
  std::size_t cub_temp_bytes = 0;       ///< its size
  unsigned long long* small = nullptr;  ///< samples, splitters, counts (small_words)
  std::size_t receive_capacity = 0;     ///< bucket_bound() of the shard capacity
};

/// Allocates the buffers of one rank (cudaMalloc) for shards of up to \p shard_capacity keys.
/// \param shard_capacity largest shard of any rank
/// \param ranks P
SampleSortBuffers allocate_buffers(std::size_t shard_capacity, int ranks);

/// Frees what allocate_buffers() allocated.
/// \param buffers the buffers
void free_buffers(SampleSortBuffers& buffers);

/// Sorts the keys of all ranks of \p comm: rank r passes its shard (\p n_local keys, r's part of
/// the input in order) and receives the r-th range of the sorted whole
/// (\p n_out keys, in \p buffers.sorted). Collective: every rank calls it. The only host
/// synchronisation reads the counts the receives need. \param comm the communicator (one rank per
/// GPU) \param keys_in this rank's shard (device) \param n_local its size \param buffers
/// allocate_buffers() of at least every rank's shard size \param n_out receives the number of keys
/// this rank holds afterwards \param stream CUDA stream \param times receives the phase times and
/// bytes \param merge how phase 7 orders the received runs
void sort_keys_across(ncclComm_t comm, const std::uint32_t* keys_in, std::size_t n_local,
                      SampleSortBuffers& buffers, std::size_t& n_out, cudaStream_t stream,
                      PhaseTimes& times, MergeMethod merge = MergeMethod::kMerge);

}  // namespace sortlab::stage09
