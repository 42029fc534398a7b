/// \file
/// \brief Implementation of the shared benchmark machinery.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "bench/bench_support.hpp"
#include "common/cuda_timer.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// SplitMix64: a good 64-bit mix, so key i of seed s is random and reproducible on the device.
__device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform random 32-bit keys, ANDed and_count extra times (CUB's entropy reduction).
__global__ void generate_keys_kernel(std::uint32_t* keys, std::size_t n, std::uint64_t seed,
                                     int and_count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t state = mix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  std::uint32_t key = static_cast<std::uint32_t>(state >> 32);
  for (int k = 0; k < and_count; ++k) {
    state = mix64(state);
    key &= static_cast<std::uint32_t>(state >> 32);
  }
  keys[i] = key;
}

__global__ void iota_kernel(std::uint32_t* values, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) values[i] = static_cast<std::uint32_t>(i);
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + 255) / 256);
}

/// Enough input copies that together they exceed the L2 several times over.
std::size_t rotating_buffer_count(std::size_t bytes_per_input) {
  int device = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const std::size_t wanted = 4 * static_cast<std::size_t>(l2_bytes);
  return std::clamp<std::size_t>(
      (wanted + bytes_per_input - 1) / std::max<std::size_t>(1, bytes_per_input), 1, 64);
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

std::vector<int> parse_int_list(const std::string& text, const std::string& flag) {
  std::vector<int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    char* end = nullptr;
    const long value = std::strtol(item.c_str(), &end, 10);
    require(!item.empty() && *end == '\0', "bad value '" + item + "' in " + flag);
    values.push_back(static_cast<int>(value));
  }
  require(!values.empty(), flag + " needs at least one value");
  return values;
}

std::vector<std::string> parse_string_list(const std::string& text) {
  std::vector<std::string> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(item);
  return values;
}

void measure_sort(benchmark::State& state, const SortEntry& entry, std::size_t n, int and_count) {
  const std::size_t kb = key_bytes(entry.key_type);
  const std::size_t buffers = rotating_buffer_count(n * (kb + (entry.pairs ? 4 : 0)));
  std::vector<DeviceBuffer<std::uint32_t>> inputs;  // 32-bit keys: any u32/i32/f32 bit pattern
  for (std::size_t b = 0; b < buffers; ++b) {
    inputs.emplace_back(n);
    // Same seed for every stage: each rung of the ladder sorts exactly the same keys.
    generate_keys_kernel<<<blocks_for(n), 256>>>(inputs.back().data(), n, 1234 + b, and_count);
    SORTLAB_CHECK_LAUNCH();
  }
  DeviceBuffer<std::uint32_t> keys_out(n), values_in, values_out;
  if (entry.pairs) {
    values_in.resize(n);
    values_out.resize(n);
    iota_kernel<<<blocks_for(n), 256>>>(values_in.data(), n);
    SORTLAB_CHECK_LAUNCH();
  }
  std::size_t temp_bytes = 0;
  entry.sort(nullptr, temp_bytes, inputs[0].data(), keys_out.data(), values_in.data(),
             values_out.data(), n, nullptr);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  auto run_once = [&](std::size_t b) {
    entry.sort(temp.data(), temp_bytes, inputs[b].data(), keys_out.data(), values_in.data(),
               values_out.data(), n, nullptr);
  };
  for (std::size_t warm = 0; warm < 2; ++warm) run_once(warm % buffers);  // module load, caches
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());

  CudaEventTimer timer;
  std::vector<double> seconds;
  std::size_t iteration = 0;
  for (auto _ : state) {
    timer.start();
    run_once(iteration++ % buffers);
    timer.stop();
    const double elapsed = timer.elapsed_ms() * 1e-3;
    state.SetIterationTime(elapsed);
    seconds.push_back(elapsed);
  }
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const double typical = median(seconds);
  const double bytes = entry.bytes(n, kb, entry.pairs ? 4 : 0);
  state.counters["n"] = static_cast<double>(n);
  state.counters["ands"] = and_count;
  state.counters["median_ms"] = typical * 1e3;
  state.counters["keys_per_s"] = static_cast<double>(n) / typical;
  state.counters["bytes"] = bytes;
  state.counters["GBps"] = bytes / typical * 1e-9;
  state.SetLabel(entry.summary);
}

/// A failing entry (a thrown sortlab::Error or CUDA error) is reported as this benchmark's error
/// and the run goes on, so one broken rung cannot cost the whole table its JSON.
void run_sort_benchmark(benchmark::State& state, const SortEntry& entry, std::size_t n,
                        int and_count) {
  try {
    measure_sort(state, entry, n, and_count);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    cudaGetLastError();  // clear a non-sticky error so the next entry starts clean
  }
}

void run_copy_benchmark(benchmark::State& state, std::size_t bytes) {
  const std::size_t buffers = rotating_buffer_count(bytes);
  std::vector<DeviceBuffer<unsigned char>> sources;
  for (std::size_t b = 0; b < buffers; ++b) {
    sources.emplace_back(bytes);
    sources.back().fill_bytes(b & 0xff);
  }
  DeviceBuffer<unsigned char> target(bytes);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  CudaEventTimer timer;
  std::vector<double> seconds;
  std::size_t iteration = 0;
  for (auto _ : state) {
    timer.start();
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(target.data(), sources[iteration++ % buffers].data(), bytes,
                                       cudaMemcpyDeviceToDevice));
    timer.stop();
    const double elapsed = timer.elapsed_ms() * 1e-3;
    state.SetIterationTime(elapsed);
    seconds.push_back(elapsed);
  }
  const double typical = median(seconds);
  state.counters["bytes"] = 2.0 * static_cast<double>(bytes);
  state.counters["median_ms"] = typical * 1e3;
  state.counters["GBps"] = 2.0 * static_cast<double>(bytes) / typical * 1e-9;
  state.SetLabel("device-to-device copy: the practical bandwidth ceiling");
}

}  // namespace

std::size_t key_bytes(const std::string& key_type) {
  require(key_type == "u32" || key_type == "i32" || key_type == "f32",
          "unknown key type '" + key_type + "' (valid: u32, i32, f32)");
  return 4;
}

BenchConfig parse_config(int& argc, char** argv) {
  BenchConfig config;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value_of = [&](const char* flag) -> const char* {
      const std::size_t length = std::strlen(flag);
      return arg.compare(0, length, flag) == 0 ? argv[i] + length : nullptr;
    };
    if (const char* v = value_of("--sizes=")) {
      config.log2_sizes = parse_int_list(v, "--sizes");
    } else if (const char* v = value_of("--ands=")) {
      config.and_counts = parse_int_list(v, "--ands");
    } else if (const char* v = value_of("--types=")) {
      config.key_types = parse_string_list(v);
      for (const auto& type : config.key_types) key_bytes(type);  // validates
    } else if (const char* v = value_of("--pairs=")) {
      const std::string choice = v;
      require(choice == "0" || choice == "1" || choice == "both",
              "--pairs must be 0 (keys only), 1 (pairs only) or both");
      config.keys = choice != "1";
      config.pairs = choice != "0";
    } else if (const char* v = value_of("--min_time=")) {
      config.min_time = std::strtod(v, nullptr);
      require(config.min_time > 0, "--min_time must be positive");
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  for (int k : config.log2_sizes) require(k >= 0 && k <= 30, "--sizes: log2 n must be in 0..30");
  return config;
}

void register_sort(const SortEntry& entry, const BenchConfig& config) {
  for (int log2_size : config.log2_sizes) {
    if (log2_size > entry.max_log2_size) continue;
    for (int and_count : config.and_counts) {
      const std::size_t n = std::size_t{1} << log2_size;
      std::string name = entry.name + "/" + entry.key_type + "/" + (entry.pairs ? "pairs" : "keys");
      if (!entry.variant.empty()) name += "/" + entry.variant;
      name += "/n:" + std::to_string(n) + "/ands:" + std::to_string(and_count);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [entry, n, and_count](benchmark::State& state) {
                                     run_sort_benchmark(state, entry, n, and_count);
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(config.min_time);
    }
  }
}

void register_copy_bandwidth(const BenchConfig& config) {
  for (int log2_size : config.log2_sizes) {
    const std::size_t bytes = (std::size_t{1} << log2_size) * 4;
    const std::string name = "copy/u32/keys/n:" + std::to_string(bytes / 4) + "/ands:0";
    benchmark::RegisterBenchmark(
        name.c_str(), [bytes](benchmark::State& state) { run_copy_benchmark(state, bytes); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(config.min_time);
  }
}

int run_main(int argc, char** argv, const std::function<void(const BenchConfig&)>& register_all) {
  try {
    const BenchConfig config = parse_config(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::fprintf(stderr, "sortlab benchmarks need a CUDA GPU; none is usable here.\n");
      return 1;
    }
    register_all(config);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
}

}  // namespace sortlab::bench
