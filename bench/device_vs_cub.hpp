/// \file
/// \brief A stage's device sort side by side with cub::DeviceRadixSort and a copy of the same
/// bytes, for the key and value types the 32-bit ladder cannot express: u32, f32 and u64 keys,
/// (u32, u32) and (f32, int64) pairs at 2^16, 2^20, 2^24 and 2^28 keys. Rows are named
/// "device/<impl>/<type>/n:<n>" (impl: the stage's name, "cub" or "copy"; type "u32", "f32",
/// "u64", "u32-u32", "f32-i64") and timed by the shared sampler like every sortlab benchmark; keys
/// are random bits (f32 keys include NaNs, which every sort orders by their bits), values are
/// indices. bench/table/stage_cub_table.py turns them into a stage README's table.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bench/bench_support.hpp"
#include "bench/timing/sampler.hpp"
#include "common/device_buffer.hpp"

namespace sortlab::bench {

/// The Value of a keys-only row.
struct NoValues {};

/// Fills \p bytes bytes (a multiple of 4) at \p data with random bits: 32-bit word i is a
/// SplitMix64 mix of (seed, i), whatever the element type the words make up.
/// \param data device memory
/// \param bytes how many bytes
/// \param seed the stream of bits
void fill_random_bits(void* data, std::size_t bytes, std::uint64_t seed);

/// values[i] = i, for values of 4 or 8 bytes (u32, int64).
/// \param values device memory of \p n values
/// \param n number of values
/// \param value_bytes 4 or 8
void fill_indices(void* values, std::size_t n, std::size_t value_bytes);

/// Samples \p launch with the shared sampler on one input set (the L2 flush before every sample
/// keeps it out of the cache) and writes the timing counters, n and keys_per_s.
/// \param state the running benchmark
/// \param config sampling
/// \param n keys per call
/// \param launch the work of one sample
void measure_one_input(benchmark::State& state, const BenchConfig& config, std::size_t n,
                       const timing::Launch& launch);

/// cub::DeviceRadixSort of all bits of the keys, ascending, on \p stream (the query when
/// \p temp is null). Compiled once (device_vs_cub.cu) for the five row types; u32 and f32 keys
/// and (u32, u32) pairs go through stage 00's library.
/// \param temp scratch or nullptr
/// \param temp_bytes its size (set by the query)
/// \param keys_in input keys
/// \param keys_out output keys
/// \param values_in input values (ignored for NoValues)
/// \param values_out output values (ignored for NoValues)
/// \param n number of keys
/// \param stream CUDA stream
template <typename Key, typename Value>
void cub_radix_sort(void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                    const Value* values_in, Value* values_out, std::size_t n, cudaStream_t stream);

/// Registers the rows of one (Key, Value) type at one size: the stage's sort, CUB's, the copy.
/// `Stage` provides `kName` ("stage05"), `sort<Key, Value>(temp, bytes, keys_in, keys_out,
/// values_in, values_out, n, stream)` (values ignored for NoValues) and
/// `bytes_moved(n, key_bytes, value_bytes, num_bits)`.
/// \param type_name the row's type part ("u32", "f32-i64", ...)
/// \param log2_n n = 2^log2_n
/// \param config sampling
template <typename Stage, typename Key, typename Value>
void register_device_rows(const std::string& type_name, int log2_n, const BenchConfig& config) {
  enum class Impl { kStage, kCub, kCopy };
  auto one = [&](Impl impl, const std::string& impl_name) {
    const std::string name =
        "device/" + impl_name + "/" + type_name + "/n:" + std::to_string(std::size_t{1} << log2_n);
    register_timed(name, [impl, log2_n, config](benchmark::State& state) {
      constexpr bool kHasValues = !std::is_same_v<Value, NoValues>;
      using Stored = std::conditional_t<kHasValues, Value, std::uint32_t>;
      constexpr std::size_t kValueBytes = kHasValues ? sizeof(Value) : 0;
      const std::size_t n = std::size_t{1} << log2_n;
      DeviceBuffer<Key> keys_in(n), keys_out(n);
      DeviceBuffer<Stored> values_in(kHasValues ? n : 1), values_out(kHasValues ? n : 1);
      fill_random_bits(keys_in.data(), n * sizeof(Key), 7);
      if constexpr (kHasValues) fill_indices(values_in.data(), n, sizeof(Value));
      const auto* vin = reinterpret_cast<const Value*>(values_in.data());
      auto* vout = reinterpret_cast<Value*>(values_out.data());
      auto sort = [&](void* temp, std::size_t& bytes, cudaStream_t stream) {
        if (impl == Impl::kCub)
          cub_radix_sort<Key, Value>(temp, bytes, keys_in.data(), keys_out.data(), vin, vout, n,
                                     stream);
        else
          Stage::template sort<Key, Value>(temp, bytes, keys_in.data(), keys_out.data(), vin, vout,
                                           n, stream);
      };
      timing::Sampler& sampler = timing::shared_sampler();
      std::size_t temp_bytes = 0;
      if (impl != Impl::kCopy) sort(nullptr, temp_bytes, sampler.stream());
      DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1);
      const timing::Launch launch = [&](cudaStream_t stream, std::size_t) {
        if (impl != Impl::kCopy) {
          sort(temp.data(), temp_bytes, stream);
          return;
        }
        SORTLAB_CUDA_CHECK(cudaMemcpyAsync(keys_out.data(), keys_in.data(), n * sizeof(Key),
                                           cudaMemcpyDeviceToDevice, stream));
        if constexpr (kHasValues)
          SORTLAB_CUDA_CHECK(cudaMemcpyAsync(values_out.data(), values_in.data(), n * kValueBytes,
                                             cudaMemcpyDeviceToDevice, stream));
      };
      measure_one_input(state, config, n, launch);
      const double seconds = state.counters["median_ms"] * 1e-3;
      // The copy's bytes are what it reads and writes, the stage's its own design's model;
      // CUB's are not modelled (0: the table shows no GB/s for them).
      double bytes = 0;
      if (impl == Impl::kCopy)
        bytes = 2.0 * static_cast<double>(n * (sizeof(Key) + kValueBytes));
      else if (impl == Impl::kStage)
        bytes = Stage::bytes_moved(n, sizeof(Key), kValueBytes, static_cast<int>(8 * sizeof(Key)));
      state.counters["bytes"] = bytes;
      state.counters["GBps"] = bytes / seconds * 1e-9;
    });
  };
  one(Impl::kStage, Stage::kName);
  one(Impl::kCub, "cub");
  one(Impl::kCopy, "copy");
}

/// Every row of the comparison for \p Stage: five types at 2^16, 2^20, 2^24 and 2^28.
/// \param config sampling
template <typename Stage>
void register_device_comparison(const BenchConfig& config) {
  for (int log2_n : {16, 20, 24, 28}) {
    register_device_rows<Stage, std::uint32_t, NoValues>("u32", log2_n, config);
    register_device_rows<Stage, float, NoValues>("f32", log2_n, config);
    register_device_rows<Stage, std::uint64_t, NoValues>("u64", log2_n, config);
    register_device_rows<Stage, std::uint32_t, std::uint32_t>("u32-u32", log2_n, config);
    register_device_rows<Stage, float, std::int64_t>("f32-i64", log2_n, config);
  }
}

}  // namespace sortlab::bench
