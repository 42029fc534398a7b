/// \file
/// \brief The fill kernels, the sampling helper and cub::DeviceRadixSort calls of
/// device_vs_cub.hpp, compiled once.
/// CUB sorts of u32 and f32 keys and (u32, u32) pairs come from stage 00's library (already
/// compiled there); only u64 keys and (f32, int64) pairs instantiate CUB here (each costs about
/// half a minute of nvcc on a CI core).
#include <cub/device/device_radix_sort.cuh>

#include "bench/device_vs_cub.hpp"
#include "chapters/00_cub/cub_sort.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

__global__ void random_words_kernel(std::uint32_t* words, std::size_t count, std::uint64_t seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  std::uint64_t x = seed ^ (i * 0xD1B54A32D192ED03ull);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  words[i] = static_cast<std::uint32_t>((x ^ (x >> 31)) >> 32);
}

template <typename Value>
__global__ void index_kernel(Value* values, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) values[i] = static_cast<Value>(i);
}

unsigned grid_for(std::size_t items) {
  return static_cast<unsigned>((items + 255) / 256);
}

}  // namespace

void fill_random_bits(void* data, std::size_t bytes, std::uint64_t seed) {
  const std::size_t words = bytes / 4;
  if (words == 0) return;
  random_words_kernel<<<grid_for(words), 256>>>(static_cast<std::uint32_t*>(data), words, seed);
  SORTLAB_CHECK_LAUNCH();
}

void fill_indices(void* values, std::size_t n, std::size_t value_bytes) {
  if (n == 0) return;
  if (value_bytes == 8)
    index_kernel<<<grid_for(n), 256>>>(static_cast<std::uint64_t*>(values), n);
  else
    index_kernel<<<grid_for(n), 256>>>(static_cast<std::uint32_t*>(values), n);
  SORTLAB_CHECK_LAUNCH();
}

void measure_one_input(benchmark::State& state, const BenchConfig& config, std::size_t n,
                       const timing::Launch& launch) {
  timing::Sampler& sampler = timing::shared_sampler();
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());  // the inputs are filled before sampling starts
  timing::Measurement measurement;
  for (auto _ : state) {
    measurement = sampler.measure(launch, 1, sampler_options(config));
    report_timing(state, measurement);
  }
  state.counters["n"] = static_cast<double>(n);
  state.counters["keys_per_s"] = static_cast<double>(n) / (measurement.summary.median * 1e-3);
}

template <typename Key, typename Value>
void cub_radix_sort(void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                    const Value* values_in, Value* values_out, std::size_t n, cudaStream_t stream) {
  constexpr bool kHasValues = !std::is_same_v<Value, NoValues>;
  constexpr bool kStage00Keys = std::is_same_v<Key, std::uint32_t> || std::is_same_v<Key, float>;
  if constexpr (!kHasValues && kStage00Keys) {
    stage00::sort_keys(temp, temp_bytes, keys_in, keys_out, n, {}, stream);
  } else if constexpr (kStage00Keys && std::is_same_v<Value, std::uint32_t>) {
    stage00::sort_pairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, {}, stream);
  } else if constexpr (kHasValues) {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out,
                                                       values_in, values_out, n, 0,
                                                       int(8 * sizeof(Key)), stream));
  } else {
    SORTLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, n, 0,
                                                      int(8 * sizeof(Key)), stream));
  }
}

template void cub_radix_sort<std::uint32_t, NoValues>(void*, std::size_t&, const std::uint32_t*,
                                                      std::uint32_t*, const NoValues*, NoValues*,
                                                      std::size_t, cudaStream_t);
template void cub_radix_sort<float, NoValues>(void*, std::size_t&, const float*, float*,
                                              const NoValues*, NoValues*, std::size_t,
                                              cudaStream_t);
template void cub_radix_sort<std::uint64_t, NoValues>(void*, std::size_t&, const std::uint64_t*,
                                                      std::uint64_t*, const NoValues*, NoValues*,
                                                      std::size_t, cudaStream_t);
template void cub_radix_sort<std::uint32_t, std::uint32_t>(void*, std::size_t&,
                                                           const std::uint32_t*, std::uint32_t*,
                                                           const std::uint32_t*, std::uint32_t*,
                                                           std::size_t, cudaStream_t);
template void cub_radix_sort<float, std::int64_t>(void*, std::size_t&, const float*, float*,
                                                  const std::int64_t*, std::int64_t*, std::size_t,
                                                  cudaStream_t);

}  // namespace sortlab::bench
