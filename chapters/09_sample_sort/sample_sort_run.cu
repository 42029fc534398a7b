/// \file
/// \brief `sample_sort_run --gpus N --log2 L`: sorts 2^L u32 keys across N GPUs of this host, one
/// process per GPU, and checks the result. The parent creates the NCCL unique id and starts N
/// copies of itself with SORTLAB_RANK, SORTLAB_WORLD and SORTLAB_NCCL_ID (hex) in their
/// environment, and NVLink multicast off (NCCL_NVLS_ENABLE=0); an MPI or torchrun launcher that
/// sets the same three variables can replace it across hosts. Rank 0 prints every phase's time,
/// the bytes each rank sent and received, and (with --compare) CUB's sort of all the keys on one
/// GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "chapters/09_sample_sort/sample_sort.hpp"
#include "chapters/09_sample_sort/sample_sort_model.hpp"
#include "common/errors.hpp"

namespace {

using sortlab::stage09::PhaseTimes;

__device__ __forceinline__ std::uint32_t hash_key(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>((x ^ (x >> 31)) >> 32);
}

/// The keys of global positions [first, first + n): a hash of the position.
__global__ void generate_kernel(std::uint32_t* keys, std::size_t first, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    keys[i] = hash_key(first + i + 12345);
}

/// Sum of the keys and sum of a hash of each key (a permutation keeps both), and the number of
/// places where a key is greater than the next one.
__global__ void summary_kernel(const std::uint32_t* keys, std::size_t n,
                               unsigned long long* summary) {
  unsigned long long sum = 0, hashed = 0, descents = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    sum += keys[i];
    hashed += hash_key(keys[i]);
    if (i + 1 < n && keys[i] > keys[i + 1]) ++descents;
  }
  atomicAdd(&summary[0], sum);
  atomicAdd(&summary[1], hashed);
  atomicAdd(&summary[2], descents);
}

std::string hex(const void* data, std::size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes; ++i) {
    const unsigned char byte = static_cast<const unsigned char*>(data)[i];
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

void unhex(const std::string& text, void* data, std::size_t bytes) {
  sortlab::require(text.size() == 2 * bytes, "SORTLAB_NCCL_ID has the wrong length");
  for (std::size_t i = 0; i < bytes; ++i)
    static_cast<unsigned char*>(data)[i] =
        static_cast<unsigned char>(std::stoi(text.substr(2 * i, 2), nullptr, 16));
}

int launch(int gpus, char** argv) {
  // Fewer GPUs than ranks: skipped (ctest's SKIP_RETURN_CODE), not failed. The children exec a
  // fresh image, so asking here leaves them no CUDA state.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices < gpus) {
    std::printf("sample_sort_run: %d GPU(s) here, %d needed: skipped\n", devices, gpus);
    return 77;
  }
  ncclUniqueId id;
  SORTLAB_NCCL_CHECK(ncclGetUniqueId(&id));
  const std::string id_text = hex(&id, sizeof(id));
  std::vector<pid_t> children;
  for (int rank = 0; rank < gpus; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("SORTLAB_RANK", std::to_string(rank).c_str(), 1);
      setenv("SORTLAB_WORLD", std::to_string(gpus).c_str(), 1);
      setenv("SORTLAB_NCCL_ID", id_text.c_str(), 1);
      setenv("NCCL_NVLS_ENABLE", "0", 1);
      setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
      setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
      execv("/proc/self/exe", argv);
      std::perror("execv");
      _exit(127);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  if (failed) std::fprintf(stderr, "sample_sort_run: %d rank(s) failed\n", failed);
  return failed ? 1 : 0;
}

int run_rank(int rank, int world, const std::string& id_text, int log2_n, int repeat, bool compare,
             sortlab::stage09::MergeMethod merge) {
  int devices = 0;
  SORTLAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  SORTLAB_CUDA_CHECK(cudaSetDevice(rank % devices));
  ncclUniqueId id;
  unhex(id_text, &id, sizeof(id));
  ncclComm_t comm;
  SORTLAB_NCCL_CHECK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  SORTLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const std::size_t n = std::size_t{1} << log2_n;
  const auto [first, n_local] = sortlab::stage09::shard_of(n, world, rank);
  const std::size_t largest = sortlab::stage09::shard_of(n, world, 0).second;
  std::uint32_t* keys = nullptr;
  unsigned long long* summary = nullptr;  // before: 0-2, after: 3-5, then n_out, first, last
  SORTLAB_CUDA_CHECK(cudaMalloc(&keys, std::max<std::size_t>(n_local, 1) * 4));
  SORTLAB_CUDA_CHECK(cudaMalloc(&summary, 16 * 8));
  auto buffers = sortlab::stage09::allocate_buffers(largest, world);
  generate_kernel<<<1024, 256, 0, stream>>>(keys, first, n_local);
  SORTLAB_CHECK_LAUNCH();

  std::vector<PhaseTimes> runs;
  std::vector<float> totals;
  std::size_t n_out = 0;
  for (int r = 0; r < repeat + 1; ++r) {  // the first is a warm-up
    SORTLAB_NCCL_CHECK(ncclAllReduce(summary, summary, 1, ncclUint64, ncclSum, comm, stream));
    SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // start together
    cudaEvent_t start, stop;
    SORTLAB_CUDA_CHECK(cudaEventCreate(&start));
    SORTLAB_CUDA_CHECK(cudaEventCreate(&stop));
    SORTLAB_CUDA_CHECK(cudaEventRecord(start, stream));
    PhaseTimes times;
    sortlab::stage09::sort_keys_across(comm, keys, n_local, buffers, n_out, stream, times, merge);
    SORTLAB_CUDA_CHECK(cudaEventRecord(stop, stream));
    SORTLAB_CUDA_CHECK(cudaEventSynchronize(stop));
    float total = 0;
    SORTLAB_CUDA_CHECK(cudaEventElapsedTime(&total, start, stop));
    if (r > 0) {
      runs.push_back(times);
      totals.push_back(total);
    }
  }
  // Check: the sums before and after (a permutation keeps them), sorted within the rank, and
  // in order across ranks (each rank's last key against the next rank's first).
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(summary, 0, 16 * 8, stream));
  summary_kernel<<<1024, 256, 0, stream>>>(keys, n_local, summary);
  summary_kernel<<<1024, 256, 0, stream>>>(buffers.sorted, n_out, summary + 3);
  std::vector<unsigned long long> mine(16, 0);
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(mine.data(), summary, 6 * 8, cudaMemcpyDeviceToHost, stream));
  std::uint32_t ends[2] = {0, 0};
  if (n_out > 0) {
    SORTLAB_CUDA_CHECK(
        cudaMemcpyAsync(&ends[0], buffers.sorted, 4, cudaMemcpyDeviceToHost, stream));
    SORTLAB_CUDA_CHECK(
        cudaMemcpyAsync(&ends[1], buffers.sorted + n_out - 1, 4, cudaMemcpyDeviceToHost, stream));
  }
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::sort(totals.begin(), totals.end());
  const float median = totals[totals.size() / 2];
  const PhaseTimes& at_median = runs[0];
  mine[6] = n_out;
  mine[7] = ends[0];
  mine[8] = ends[1];
  mine[9] = static_cast<unsigned long long>(median * 1000.0f);  // microseconds
  mine[10] = at_median.bytes_sent;
  mine[11] = at_median.bytes_received;
  const float phases[5] = {at_median.local_sort, at_median.splitters, at_median.sizes,
                           at_median.exchange, at_median.merge};
  for (int p = 0; p < 4; ++p) mine[12 + p] = static_cast<unsigned long long>(phases[p] * 1000.0f);
  unsigned long long* gathered = nullptr;
  SORTLAB_CUDA_CHECK(cudaMalloc(&gathered, 16 * 8 * world));
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(summary, mine.data(), 16 * 8, cudaMemcpyHostToDevice, stream));
  SORTLAB_NCCL_CHECK(ncclAllGather(summary, gathered, 16, ncclUint64, comm, stream));
  std::vector<unsigned long long> all(16 * world);
  SORTLAB_CUDA_CHECK(
      cudaMemcpyAsync(all.data(), gathered, all.size() * 8, cudaMemcpyDeviceToHost, stream));
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  int status = 0;
  if (rank == 0) {
    unsigned long long sum[2] = {0, 0}, sum_after[2] = {0, 0}, descents = 0, total = 0;
    bool ordered = true;
    std::uint32_t previous_last = 0;
    bool any = false;
    for (int r = 0; r < world; ++r) {
      const unsigned long long* row = &all[16 * r];
      sum[0] += row[0];
      sum[1] += row[1];
      sum_after[0] += row[3];
      sum_after[1] += row[4];
      descents += row[5];
      total += row[6];
      if (row[6] > 0) {
        if (any && previous_last > row[7]) ordered = false;
        previous_last = static_cast<std::uint32_t>(row[8]);
        any = true;
      }
      std::printf(
          "rank %d: %llu keys in, %llu out; median %.3f ms; phases (ms, the median run's "
          "first sample) local sort %.3f, splitters %.3f, sizes %.3f, exchange %.3f; "
          "sent %.1f MB, received %.1f MB\n",
          r, static_cast<unsigned long long>(sortlab::stage09::shard_of(n, world, r).second),
          row[6], row[9] / 1000.0, row[12] / 1000.0, row[13] / 1000.0, row[14] / 1000.0,
          row[15] / 1000.0, row[10] / 1e6, row[11] / 1e6);
    }
    // The sort ends when its slowest rank does.
    double slowest_ms = 0;
    for (int r = 0; r < world; ++r) slowest_ms = std::max(slowest_ms, all[16 * r + 9] / 1000.0);
    const bool ok =
        total == n && descents == 0 && ordered && sum[0] == sum_after[0] && sum[1] == sum_after[1];
    std::printf(
        "sample sort of 2^%d u32 keys on %d GPUs: %s (total %llu, descents %llu, ranks "
        "in order %d, sums kept %d)\n",
        log2_n, world, ok ? "CORRECT" : "WRONG", total, descents, ordered ? 1 : 0,
        sum[0] == sum_after[0] && sum[1] == sum_after[1] ? 1 : 0);
    std::printf("merge phase (%s) on rank 0: %.3f ms\n",
                merge == sortlab::stage09::MergeMethod::kMerge ? "pairwise merges" : "re-sort",
                at_median.merge);
    status = ok ? 0 : 1;
    if (compare) {  // CUB's sort of all n keys on this one GPU, same keys
      std::uint32_t *in = nullptr, *out = nullptr;
      void* temp = nullptr;
      std::size_t temp_bytes = 0;
      if (cudaMalloc(&in, n * 4) == cudaSuccess && cudaMalloc(&out, n * 4) == cudaSuccess) {
        generate_kernel<<<1024, 256, 0, stream>>>(in, 0, n);
        if (n <= 0x7FFFFFFF)
          SORTLAB_CUDA_CHECK(
              cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, static_cast<int>(n)));
        else
          SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out,
                                                            static_cast<std::int64_t>(n)));
        SORTLAB_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
        std::vector<float> one_gpu;
        for (int r = 0; r < repeat + 1; ++r) {
          cudaEvent_t start, stop;
          SORTLAB_CUDA_CHECK(cudaEventCreate(&start));
          SORTLAB_CUDA_CHECK(cudaEventCreate(&stop));
          SORTLAB_CUDA_CHECK(cudaEventRecord(start, stream));
          if (n <= 0x7FFFFFFF)
            SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out,
                                                              static_cast<int>(n), 0, 32, stream));
          else
            SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
                temp, temp_bytes, in, out, static_cast<std::int64_t>(n), 0, 32, stream));
          SORTLAB_CUDA_CHECK(cudaEventRecord(stop, stream));
          SORTLAB_CUDA_CHECK(cudaEventSynchronize(stop));
          float ms = 0;
          SORTLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
          if (r > 0) one_gpu.push_back(ms);
        }
        std::sort(one_gpu.begin(), one_gpu.end());
        std::printf(
            "one GPU (CUB, same keys): %.3f ms; %d GPUs (slowest rank): %.3f ms; "
            "speed-up %.2fx\n",
            one_gpu[one_gpu.size() / 2], world, slowest_ms,
            one_gpu[one_gpu.size() / 2] / slowest_ms);
      } else {
        std::printf("one GPU: the keys do not fit\n");
      }
    }
  }
  sortlab::stage09::free_buffers(buffers);
  ncclCommDestroy(comm);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int gpus = 2, log2_n = 24, repeat = 5;
    bool compare = false;
    sortlab::stage09::MergeMethod merge = sortlab::stage09::MergeMethod::kMerge;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--gpus" && i + 1 < argc)
        gpus = std::atoi(argv[++i]);
      else if (arg == "--log2" && i + 1 < argc)
        log2_n = std::atoi(argv[++i]);
      else if (arg == "--repeat" && i + 1 < argc)
        repeat = std::atoi(argv[++i]);
      else if (arg == "--compare")
        compare = true;
      else if (arg == "--merge" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "merge" || std::string(argv[i + 1]) == "resort"))
        merge = std::string(argv[++i]) == "merge" ? sortlab::stage09::MergeMethod::kMerge
                                                  : sortlab::stage09::MergeMethod::kResort;
      else {
        std::fprintf(stderr,
                     "usage: sample_sort_run [--gpus N] [--log2 L] [--repeat R] [--compare] "
                     "[--merge merge|resort]\n");
        return 2;
      }
    }
    sortlab::require(gpus >= 1 && log2_n >= 0 && log2_n <= 32 && repeat >= 1, "bad arguments");
    const char* rank = std::getenv("SORTLAB_RANK");
    if (rank == nullptr) return launch(gpus, argv);
    return run_rank(std::atoi(rank), std::atoi(std::getenv("SORTLAB_WORLD")),
                    std::getenv("SORTLAB_NCCL_ID"), log2_n, repeat, compare, merge);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sample_sort_run: %s\n", error.what());
    return 1;
  }
}
