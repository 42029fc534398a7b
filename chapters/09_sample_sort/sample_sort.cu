/// \file
/// \brief Stage 09 on GPUs: the phases of sample_sort_model.hpp with NCCL between the ranks.
#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <vector>

#include "chapters/09_sample_sort/sample_sort.hpp"
#include "chapters/09_sample_sort/sample_sort_model.hpp"
#include "common/errors.hpp"

namespace sortlab::stage09 {
namespace {

/// A tuple (key, rank, index) on the GPU: high = key << 32 | rank, low = index; ordered as the
/// pair (high, low).
struct DeviceTuple {
  unsigned long long high, low;
};

__device__ __forceinline__ bool tuple_less(DeviceTuple a, DeviceTuple b) {
  return a.high < b.high || (a.high == b.high && a.low < b.low);
}

/// Phase 2: the s samples of a sorted shard of \p m keys (one thread each).
__global__ void sample_kernel(const std::uint32_t* sorted, std::size_t m, int samples, int rank,
                              DeviceTuple* out) {
  const int j = threadIdx.x;
  if (j >= samples) return;
  if (m == 0) {
    out[j] = DeviceTuple{static_cast<unsigned long long>(rank), 0};
    return;
  }
  const std::size_t position = ((j + 1) * m + samples) / (samples + 1) - 1;
  out[j] = DeviceTuple{(static_cast<unsigned long long>(sorted[position]) << 32) | rank, position};
}

/// Phase 4: the rank of every gathered sample among all of them (one thread each: every tuple is
/// distinct, so the ranks are 0 .. count - 1), and the splitters: the samples of rank
/// (i + 1) * s - 1. At most kMaxSamples samples.
constexpr int kMaxSamples = 1024;
__global__ void __launch_bounds__(kMaxSamples)
    splitter_kernel(const DeviceTuple* all, int count, int samples, DeviceTuple* splitters) {
  __shared__ DeviceTuple tuples[kMaxSamples];
  for (int i = threadIdx.x; i < count; i += blockDim.x) tuples[i] = all[i];
  __syncthreads();
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    int rank = 0;
    for (int j = 0; j < count; ++j) rank += tuple_less(tuples[j], tuples[i]) ? 1 : 0;
    if ((rank + 1) % samples == 0 && rank + 1 < count)
      splitters[(rank + 1) / samples - 1] = tuples[i];
  }
}

/// Phase 5: where each splitter cuts this rank's sorted shard (one thread per cut), then the
/// count for every destination.
__global__ void partition_kernel(const std::uint32_t* sorted, std::size_t m, int rank, int ranks,
                                 const DeviceTuple* splitters, unsigned long long* cuts,
                                 unsigned long long* send_counts) {
  const int i = threadIdx.x;
  if (i <= ranks) {
    std::size_t cut = i == 0 ? 0 : m;
    if (i > 0 && i < ranks) {
      const DeviceTuple splitter = splitters[i - 1];
      const std::uint32_t key = static_cast<std::uint32_t>(splitter.high >> 32);
      const int owner = static_cast<int>(splitter.high & 0xFFFFFFFFu);
      if (owner == rank) {
        cut = splitter.low + 1;  // this rank's elements up to the splitter itself
      } else {
        // rank < owner: every element with key <= splitter key (upper bound); rank > owner:
        // only keys below it (lower bound).
        const bool upper = rank < owner;
        std::size_t low = 0, high = m;
        while (low < high) {
          const std::size_t middle = (low + high) / 2;
          const bool before = upper ? sorted[middle] <= key : sorted[middle] < key;
          if (before)
            low = middle + 1;
          else
            high = middle;
        }
        cut = low;
      }
    }
    cuts[i] = cut;
  }
  __syncthreads();
  if (i < ranks) send_counts[i] = cuts[i + 1] - cuts[i];
}

constexpr int kMaxRanks = 64;

/// Ascending u32 keys, for cub::DeviceMerge.
struct KeyLess {
  __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a < b; }
};

/// Phase 7 by merging: the steps of merge_rounds() (sample_sort_model.hpp) on the runs in
/// `received`, each round from one buffer into the other; the result ends in `buffers.sorted`
/// (one more copy when the rounds end in `received`, or for a single run).
void merge_runs(SampleSortBuffers& buffers, const std::vector<std::size_t>& bounds,
                cudaStream_t stream) {
  std::uint32_t* from = buffers.received;
  std::uint32_t* to = buffers.sorted;
  for (const std::vector<MergeStep>& round : merge_rounds(bounds)) {
    for (const MergeStep& step : round) {
      if (step.middle < step.last) {
        std::size_t temp_bytes = buffers.cub_temp_bytes;
        SORTLAB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(
            buffers.cub_temp, temp_bytes, from + step.first,
            static_cast<std::int64_t>(step.middle - step.first), from + step.middle,
            static_cast<std::int64_t>(step.last - step.middle), to + step.first, KeyLess{},
            stream));
      } else if (step.middle > step.first) {
        SORTLAB_CUDA_CHECK(cudaMemcpyAsync(to + step.first, from + step.first,
                                           (step.middle - step.first) * sizeof(std::uint32_t),
                                           cudaMemcpyDeviceToDevice, stream));
      }
    }
    std::swap(from, to);
  }
  const std::size_t total = bounds.back();
  if (from != buffers.sorted && total > 0)
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(buffers.sorted, from, total * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToDevice, stream));
}

/// Words of the small buffer: local samples, all samples, splitters, cuts, counts out and in.
std::size_t small_words(int ranks) {
  const std::size_t s = default_samples_per_rank(ranks);
  return 2 * s + 2 * s * ranks + 2 * ranks + (ranks + 1) + 2 * ranks;
}

}  // namespace

SampleSortBuffers allocate_buffers(std::size_t shard_capacity, int ranks) {
  require(ranks >= 1 && ranks <= kMaxRanks, "sample sort: 1 to 64 ranks");
  SampleSortBuffers buffers;
  buffers.receive_capacity = bucket_bound(default_samples_per_rank(ranks), ranks, shard_capacity);
  const std::size_t capacity = std::max(buffers.receive_capacity, shard_capacity);
  SORTLAB_CUDA_CHECK(cudaMalloc(&buffers.sorted, capacity * sizeof(std::uint32_t)));
  SORTLAB_CUDA_CHECK(cudaMalloc(&buffers.received, capacity * sizeof(std::uint32_t)));
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, buffers.cub_temp_bytes,
                                                    buffers.received, buffers.sorted,
                                                    static_cast<int>(capacity)));
  // The merge's scratch grows with the keys merged: asked for twice the capacity, it covers
  // every merge of phase 7 (at most the capacity in all).
  std::size_t merge_bytes = 0;
  SORTLAB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(
      nullptr, merge_bytes, buffers.received, static_cast<std::int64_t>(capacity), buffers.sorted,
      static_cast<std::int64_t>(capacity), buffers.sorted, KeyLess{}));
  buffers.cub_temp_bytes = std::max(buffers.cub_temp_bytes, merge_bytes);
  SORTLAB_CUDA_CHECK(cudaMalloc(&buffers.cub_temp, buffers.cub_temp_bytes));
  SORTLAB_CUDA_CHECK(cudaMalloc(&buffers.small, small_words(ranks) * sizeof(unsigned long long)));
  return buffers;
}

void free_buffers(SampleSortBuffers& buffers) {
  cudaFree(buffers.sorted);
  cudaFree(buffers.received);
  cudaFree(buffers.cub_temp);
  cudaFree(buffers.small);
  buffers = SampleSortBuffers{};
}

void sort_keys_across(ncclComm_t comm, const std::uint32_t* keys_in, std::size_t n_local,
                      SampleSortBuffers& buffers, std::size_t& n_out, cudaStream_t stream,
                      PhaseTimes& times, MergeMethod merge) {
  int rank = 0, ranks = 0;
  SORTLAB_NCCL_CHECK(ncclCommUserRank(comm, &rank));
  SORTLAB_NCCL_CHECK(ncclCommCount(comm, &ranks));
  const int s = static_cast<int>(default_samples_per_rank(ranks));
  require(static_cast<std::size_t>(n_local) <= buffers.receive_capacity &&
              n_local <= std::size_t{0x7FFFFFFF},
          "sort_keys_across: shard larger than the buffers (or 2^31)");
  auto* local_samples = reinterpret_cast<DeviceTuple*>(buffers.small);
  auto* all_samples = local_samples + s;
  auto* splitters = all_samples + static_cast<std::size_t>(s) * ranks;
  unsigned long long* cuts = reinterpret_cast<unsigned long long*>(splitters + ranks);
  unsigned long long* send_counts = cuts + ranks + 1;
  unsigned long long* receive_counts = send_counts + ranks;

  cudaEvent_t marks[6];
  for (auto& mark : marks) SORTLAB_CUDA_CHECK(cudaEventCreate(&mark));
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[0], stream));
  // 1. Local sort.
  std::size_t temp_bytes = buffers.cub_temp_bytes;
  SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(buffers.cub_temp, temp_bytes, keys_in,
                                                    buffers.sorted, static_cast<int>(n_local), 0,
                                                    32, stream));
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[1], stream));
  // 2-5. Samples, all-gather, splitters, partition.
  sample_kernel<<<1, s, 0, stream>>>(buffers.sorted, n_local, s, rank, local_samples);
  SORTLAB_CHECK_LAUNCH();
  SORTLAB_NCCL_CHECK(ncclAllGather(local_samples, all_samples, 2 * static_cast<std::size_t>(s),
                                   ncclUint64, comm, stream));
  require(s * ranks <= kMaxSamples, "sort_keys_across: too many samples");
  splitter_kernel<<<1, kMaxSamples, 0, stream>>>(all_samples, s * ranks, s, splitters);
  SORTLAB_CHECK_LAUNCH();
  partition_kernel<<<1, kMaxRanks + 1, 0, stream>>>(buffers.sorted, n_local, rank, ranks, splitters,
                                                    cuts, send_counts);
  SORTLAB_CHECK_LAUNCH();
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[2], stream));
  // 6a. Counts: every rank tells every rank how much it will send; the host needs them for the
  // receives (the one synchronisation).
  SORTLAB_NCCL_CHECK(ncclGroupStart());
  for (int peer = 0; peer < ranks; ++peer) {
    SORTLAB_NCCL_CHECK(ncclSend(send_counts + peer, 1, ncclUint64, peer, comm, stream));
    SORTLAB_NCCL_CHECK(ncclRecv(receive_counts + peer, 1, ncclUint64, peer, comm, stream));
  }
  SORTLAB_NCCL_CHECK(ncclGroupEnd());
  std::vector<unsigned long long> host_cuts(ranks + 1), host_received(ranks);
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(host_cuts.data(), cuts, host_cuts.size() * 8,
                                     cudaMemcpyDeviceToHost, stream));
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(host_received.data(), receive_counts, ranks * 8,
                                     cudaMemcpyDeviceToHost, stream));
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[3], stream));
  std::vector<std::size_t> receive_offset(ranks + 1, 0);
  for (int peer = 0; peer < ranks; ++peer)
    receive_offset[peer + 1] = receive_offset[peer] + host_received[peer];
  n_out = receive_offset[ranks];
  require(n_out <= buffers.receive_capacity,
          "sort_keys_across: a rank received more than the splitter bound (a bug)");
  // 6b. The keys: piece b of the sorted shard to rank b, runs in source-rank order.
  times.bytes_sent = times.bytes_received = 0;
  SORTLAB_NCCL_CHECK(ncclGroupStart());
  for (int peer = 0; peer < ranks; ++peer) {
    const std::size_t send = host_cuts[peer + 1] - host_cuts[peer];
    const std::size_t receive = host_received[peer];
    if (send > 0)
      SORTLAB_NCCL_CHECK(
          ncclSend(buffers.sorted + host_cuts[peer], send, ncclUint32, peer, comm, stream));
    if (receive > 0)
      SORTLAB_NCCL_CHECK(ncclRecv(buffers.received + receive_offset[peer], receive, ncclUint32,
                                  peer, comm, stream));
    if (peer != rank) {
      times.bytes_sent += send * sizeof(std::uint32_t);
      times.bytes_received += receive * sizeof(std::uint32_t);
    }
  }
  SORTLAB_NCCL_CHECK(ncclGroupEnd());
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[4], stream));
  // 7. The P received runs put in order: merged pairwise, or re-sorted.
  if (merge == MergeMethod::kMerge) {
    merge_runs(buffers, receive_offset, stream);
  } else {
    temp_bytes = buffers.cub_temp_bytes;
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(buffers.cub_temp, temp_bytes,
                                                      buffers.received, buffers.sorted,
                                                      static_cast<int>(n_out), 0, 32, stream));
  }
  SORTLAB_CUDA_CHECK(cudaEventRecord(marks[5], stream));
  SORTLAB_CUDA_CHECK(cudaEventSynchronize(marks[5]));
  float* fields[] = {&times.local_sort, &times.splitters, &times.sizes, &times.exchange,
                     &times.merge};
  for (int i = 0; i < 5; ++i)
    SORTLAB_CUDA_CHECK(cudaEventElapsedTime(fields[i], marks[i], marks[i + 1]));
  for (auto& mark : marks) SORTLAB_CUDA_CHECK(cudaEventDestroy(mark));
}

}  // namespace sortlab::stage09
