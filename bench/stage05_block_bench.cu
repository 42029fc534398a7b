/// \file
/// \brief Stage 05 side-by-side measurements that the shared ladder (32-bit keys, u32 values)
/// cannot express:
///  - the block sort against cub::BlockRadixSort at the same threads, keys per thread, key and
///    value type and digit width (4 bits, CUB's default), in a kernel that loads a tile, sorts it
///    and stores it, one tile per block over 2^24 keys (names "block/<impl>/<type>/<T>x<K>");
///  - the device sort against cub::DeviceRadixSort for u64 keys and (f32, int64) pairs
///    ("device/<impl>/<type>/n:<n>").
/// Timed with CUDA events around each launch (Google Benchmark's manual time); the inputs are
/// far larger than the L2 cache. CUB instantiations are kept to a handful for compile time.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <vector>

#include "bench/ladder.hpp"
#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

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

/// Median of the CUDA-event times of \p launch over the benchmark's iterations, reported as
/// manual time; \p items sets keys_per_s.
template <typename Launch>
void time_launches(benchmark::State& state, double items, Launch&& launch) {
  cudaEvent_t start, stop;
  SORTLAB_CUDA_CHECK(cudaEventCreate(&start));
  SORTLAB_CUDA_CHECK(cudaEventCreate(&stop));
  for (int warm_up = 0; warm_up < 3; ++warm_up) launch();
  std::vector<double> times_ms;
  for (auto _ : state) {
    SORTLAB_CUDA_CHECK(cudaEventRecord(start));
    launch();
    SORTLAB_CUDA_CHECK(cudaEventRecord(stop));
    SORTLAB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SORTLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms / 1000.0);
    times_ms.push_back(ms);
  }
  std::sort(times_ms.begin(), times_ms.end());
  const double median_ms = times_ms.empty() ? 0.0 : times_ms[times_ms.size() / 2];
  state.counters["median_ms"] = median_ms;
  state.counters["keys_per_s"] = median_ms > 0 ? items / (median_ms / 1000.0) : 0.0;
  state.counters["n"] = items;
  SORTLAB_CUDA_CHECK(cudaEventDestroy(start));
  SORTLAB_CUDA_CHECK(cudaEventDestroy(stop));
}

/// Registers the load-sort-store kernel of \p kImpl for one key/value type and tile shape.
template <BlockImpl kImpl, typename Key, typename Value, int kThreads, int kK>
void register_block_sort(const std::string& type_name) {
  const std::string name = std::string("block/") +
                           (kImpl == BlockImpl::kSortlab ? "stage05" : "cub") + "/" + type_name +
                           "/" + std::to_string(kThreads) + "x" + std::to_string(kK);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [](benchmark::State& state) {
        constexpr bool kHasValues = !std::is_same_v<Value, stage05::NullType>;
        using StoredValue = std::conditional_t<kHasValues, Value, std::uint32_t>;
        constexpr std::size_t kTile = static_cast<std::size_t>(kThreads) * kK;
        const std::size_t tiles = ((std::size_t{1} << 24) + kTile - 1) / kTile;
        const std::size_t n = tiles * kTile;
        DeviceBuffer<Key> keys_in(generate_keys<Key>(Distribution::kUniform, n, 5)), keys_out(n);
        DeviceBuffer<StoredValue> values_in(kHasValues ? n : 1), values_out(kHasValues ? n : 1);
        time_launches(state, static_cast<double>(n), [&] {
          block_sort_kernel<kImpl, Key, Value, kThreads, kK>
              <<<static_cast<unsigned>(tiles), kThreads>>>(
                  keys_in.data(), keys_out.data(), reinterpret_cast<const Value*>(values_in.data()),
                  reinterpret_cast<Value*>(values_out.data()));
          SORTLAB_CHECK_LAUNCH();
        });
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

/// Both implementations of one shape, ours first.
template <typename Key, typename Value, int kThreads, int kK>
void register_block_pair(const std::string& type_name) {
  register_block_sort<BlockImpl::kSortlab, Key, Value, kThreads, kK>(type_name);
  register_block_sort<BlockImpl::kCub, Key, Value, kThreads, kK>(type_name);
}

/// The device sort of stage 05 or CUB on \p n keys (and values) of the given types.
template <bool kCub, typename Key, typename Value>
void register_device_sort(const std::string& type_name, int log2_n) {
  const std::string name = std::string("device/") + (kCub ? "cub" : "stage05") + "/" + type_name +
                           "/n:" + std::to_string(std::size_t{1} << log2_n);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [log2_n](benchmark::State& state) {
        constexpr bool kHasValues = !std::is_same_v<Value, stage05::NullType>;
        using StoredValue = std::conditional_t<kHasValues, Value, std::uint32_t>;
        const std::size_t n = std::size_t{1} << log2_n;
        DeviceBuffer<Key> keys_in(generate_keys<Key>(Distribution::kUniform, n, 7)), keys_out(n);
        DeviceBuffer<StoredValue> values_in(kHasValues ? n : 1), values_out(kHasValues ? n : 1);
        const StoredValue* vin = values_in.data();
        StoredValue* vout = values_out.data();
        auto sort = [&](void* temp, std::size_t& bytes) {
          if constexpr (kCub) {
            if constexpr (kHasValues)
              SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                  temp, bytes, keys_in.data(), keys_out.data(), vin, vout, static_cast<int>(n)));
            else
              SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
                  temp, bytes, keys_in.data(), keys_out.data(), static_cast<int>(n)));
          } else {
            if constexpr (kHasValues)
              stage05::sort_pairs(temp, bytes, keys_in.data(), keys_out.data(), vin, vout, n);
            else
              stage05::sort_keys(temp, bytes, keys_in.data(), keys_out.data(), n);
          }
        };
        std::size_t temp_bytes = 0;
        sort(nullptr, temp_bytes);
        DeviceBuffer<unsigned char> temp(temp_bytes);
        time_launches(state, static_cast<double>(n), [&] { sort(temp.data(), temp_bytes); });
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_stage05_block_sort(const BenchConfig&) {
  using stage05::NullType;
  // u32 and f32 keys, u32 pairs, u64 keys at two shapes each.
  register_block_pair<std::uint32_t, NullType, 128, 16>("u32");
  register_block_pair<std::uint32_t, NullType, 256, 8>("u32");
  register_block_pair<float, NullType, 128, 16>("f32");
  register_block_pair<float, NullType, 256, 8>("f32");
  register_block_pair<std::uint32_t, std::uint32_t, 128, 16>("u32-u32");
  register_block_pair<std::uint32_t, std::uint32_t, 256, 8>("u32-u32");
  register_block_pair<std::uint64_t, NullType, 128, 16>("u64");
  register_block_pair<std::uint64_t, NullType, 256, 8>("u64");
}

void register_stage05_wide_types(const BenchConfig&) {
  for (int log2_n : {16, 20, 24, 28}) {
    register_device_sort<false, std::uint64_t, stage05::NullType>("u64", log2_n);
    register_device_sort<true, std::uint64_t, stage05::NullType>("u64", log2_n);
    register_device_sort<false, float, std::int64_t>("f32-i64", log2_n);
    register_device_sort<true, float, std::int64_t>("f32-i64", log2_n);
  }
}

}  // namespace sortlab::bench
