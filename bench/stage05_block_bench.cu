/// \file
/// \brief Stage 05 side by side with CUB, for what the shared ladder (32-bit keys, u32 values,
/// device sorts) cannot express:
///  - the block sort against cub::BlockRadixSort at the same threads, keys per thread, key and
///    value type and digit width (4 bits, CUB's default), in a kernel that loads a tile, sorts it
///    and stores it, one tile per block over 2^24 keys (names "block/<impl>/<type>/<T>x<K>",
///    impl stage05 or cub; counters registers and blocks_per_sm say what each kernel got);
///  - the device sort against cub::DeviceRadixSort for five key and value types
///    (bench/device_vs_cub.hpp).
/// Every row is timed by the shared sampler (bench/timing: L2 flushed before each sample, launch
/// gaps untimed, samples until their noise is low), like the ladder. Keys are random bits.
/// bench/table/stage_cub_table.py turns the JSON into the stage README's comparison tables.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <string>
#include <type_traits>

#include "bench/bench_support.hpp"
#include "bench/device_vs_cub.hpp"
#include "bench/ladder.hpp"
#include "bench/timing/sampler.hpp"
#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// Stage 05's device sort for device_vs_cub.hpp.
struct Stage05Sorter {
  static constexpr const char* kName = "stage05";
  template <typename Key, typename Value>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const Value* values_in, Value* values_out, std::size_t n, cudaStream_t stream) {
    if constexpr (std::is_same_v<Value, NoValues>)
      stage05::sort_keys(temp, bytes, keys_in, keys_out, n, {}, {}, stream);
    else
      stage05::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, {}, stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                            int num_bits) {
    return stage05::bytes_moved(n, key_bytes, value_bytes, num_bits);
  }
};

/// Which block sort a kernel runs.
enum class BlockImpl { kSortlab, kCub };

/// Load one tile per block (blocked: thread t reads t*K .. t*K+K-1), sort it, store it blocked.
/// Both implementations run exactly this kernel body around their sort call.
template <BlockImpl kImpl, typename Key, typename Value, int kThreads, int kK>
__global__ void __launch_bounds__(kThreads)
    block_sort_kernel(const Key* keys_in, Key* keys_out, const Value* values_in,
                      Value* values_out) {
  constexpr bool kHasValues = !std::is_same_v<Value, stage05::NullType>;
  using Ours = stage05::BlockRadixSort<Key, kThreads, kK, Value, 4>;
  using Cub =
      cub::BlockRadixSort<Key, kThreads, kK, std::conditional_t<kHasValues, Value, cub::NullType>>;
  using Sort = std::conditional_t<kImpl == BlockImpl::kSortlab, Ours, Cub>;
  __shared__ typename Sort::TempStorage storage;
  const std::size_t first = (static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x) * kK;
  Key keys[kK];
  [[maybe_unused]] std::conditional_t<kHasValues, Value, int> values[kK];
#pragma unroll
  for (int i = 0; i < kK; ++i) {
    keys[i] = keys_in[first + i];
    if constexpr (kHasValues) values[i] = values_in[first + i];
  }
  if constexpr (kImpl == BlockImpl::kSortlab) {
    if constexpr (kHasValues)
      Sort(storage).sort(keys, values);
    else
      Sort(storage).sort(keys);
  } else {
    if constexpr (kHasValues)
      Sort(storage).Sort(keys, values);
    else
      Sort(storage).Sort(keys);
  }
#pragma unroll
  for (int i = 0; i < kK; ++i) {
    keys_out[first + i] = keys[i];
    if constexpr (kHasValues) values_out[first + i] = values[i];
  }
}

/// Registers the load-sort-store kernel of \p kImpl for one key/value type and tile shape.
template <BlockImpl kImpl, typename Key, typename Value, int kThreads, int kK>
void register_block_sort(const std::string& type_name, const BenchConfig& config) {
  const std::string name = std::string("block/") +
                           (kImpl == BlockImpl::kSortlab ? "stage05" : "cub") + "/" + type_name +
                           "/" + std::to_string(kThreads) + "x" + std::to_string(kK);
  register_timed(name, [config](benchmark::State& state) {
    constexpr bool kHasValues = !std::is_same_v<Value, stage05::NullType>;
    using StoredValue = std::conditional_t<kHasValues, Value, std::uint32_t>;
    constexpr std::size_t kTile = static_cast<std::size_t>(kThreads) * kK;
    const std::size_t tiles = ((std::size_t{1} << 24) + kTile - 1) / kTile;
    const std::size_t n = tiles * kTile;
    DeviceBuffer<Key> keys_in(n), keys_out(n);
    DeviceBuffer<StoredValue> values_in(kHasValues ? n : 1), values_out(kHasValues ? n : 1);
    fill_random_bits(keys_in.data(), n * sizeof(Key), 5);
    if constexpr (kHasValues) fill_indices(values_in.data(), n, sizeof(Value));
    const auto kernel = block_sort_kernel<kImpl, Key, Value, kThreads, kK>;
    measure_one_input(state, config, n, [&](cudaStream_t stream, std::size_t) {
      kernel<<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
          keys_in.data(), keys_out.data(), reinterpret_cast<const Value*>(values_in.data()),
          reinterpret_cast<Value*>(values_out.data()));
      SORTLAB_CHECK_LAUNCH();
    });
    // What the compiler gave each kernel: the block sorts' gaps are read from these.
    cudaFuncAttributes attributes{};
    SORTLAB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int blocks_per_sm = 0;
    SORTLAB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kThreads, 0));
    state.counters["registers"] = attributes.numRegs;
    state.counters["blocks_per_sm"] = blocks_per_sm;
    state.counters["threads"] = kThreads;
    state.counters["keys_per_thread"] = kK;
  });
}

/// Both implementations of one shape, ours first.
template <typename Key, typename Value, int kThreads, int kK>
void register_block_pair(const std::string& type_name, const BenchConfig& config) {
  register_block_sort<BlockImpl::kSortlab, Key, Value, kThreads, kK>(type_name, config);
  register_block_sort<BlockImpl::kCub, Key, Value, kThreads, kK>(type_name, config);
}

}  // namespace

void register_stage05_block_sort(const BenchConfig& config) {
  using stage05::NullType;
  // u32 and f32 keys, u32 pairs, u64 keys at two shapes each.
  register_block_pair<std::uint32_t, NullType, 128, 16>("u32", config);
  register_block_pair<std::uint32_t, NullType, 256, 8>("u32", config);
  register_block_pair<float, NullType, 128, 16>("f32", config);
  register_block_pair<float, NullType, 256, 8>("f32", config);
  register_block_pair<std::uint32_t, std::uint32_t, 128, 16>("u32-u32", config);
  register_block_pair<std::uint32_t, std::uint32_t, 256, 8>("u32-u32", config);
  register_block_pair<std::uint64_t, NullType, 128, 16>("u64", config);
  register_block_pair<std::uint64_t, NullType, 256, 8>("u64", config);
}

void register_stage05_wide_types(const BenchConfig& config) {
  register_device_comparison<Stage05Sorter>(config);
}

}  // namespace sortlab::bench
