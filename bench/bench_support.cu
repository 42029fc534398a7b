/// \file
/// \brief Implementation of the shared benchmark machinery: input generation, rotating input
/// sets, and the glue between Google Benchmark and the timing core (bench/timing).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/bench_support.hpp"
#include "bench/timing/buffer_plan.hpp"
#include "bench/timing/sampler.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// Device memory left free for the sort's own scratch growth, the flush buffer and the driver
/// when the rotating inputs are sized (at least this, or a tenth of the free memory).
constexpr std::size_t kReservedBytes = std::size_t{1} << 30;

/// SplitMix64: a good 64-bit mix, so key i of seed s is random and reproducible on the device.
__device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Keys of one KeyShape (32-bit patterns, reinterpreted as i32 or f32 by the typed sorts).
__global__ void generate_keys_kernel(std::uint32_t* keys, std::size_t n, std::uint64_t seed,
                                     KeyShape::Kind kind, int and_count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t state = mix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  std::uint32_t key = static_cast<std::uint32_t>(state >> 32);
  switch (kind) {
    case KeyShape::Kind::kAndReduced:
      for (int k = 0; k < and_count; ++k) {  // CUB's entropy reduction
        state = mix64(state);
        key &= static_cast<std::uint32_t>(state >> 32);
      }
      break;
    case KeyShape::Kind::kSorted:  // evenly spaced, ascending (n <= 2^30, so no overflow)
      key = static_cast<std::uint32_t>((static_cast<std::uint64_t>(i) << 32) / n);
      break;
    case KeyShape::Kind::kEqual:
      key = static_cast<std::uint32_t>(mix64(seed) >> 32);
      break;
    case KeyShape::Kind::kFewDistinct:
      key = static_cast<std::uint32_t>(mix64(seed + state % kFewDistinctValues) >> 32);
      break;
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

}  // namespace

std::size_t input_memory_budget() {
  std::size_t free_bytes = 0, total_bytes = 0;
  SORTLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t reserve = std::max(kReservedBytes, free_bytes / 10);
  return free_bytes > reserve ? free_bytes - reserve : 0;
}

timing::SamplerOptions sampler_options(const BenchConfig& config) {
  timing::SamplerOptions options;
  options.mode = config.timing;
  options.flush_l2 = config.flush_l2;
  options.flush_method = config.flush_method;
  options.rule = config.stopping;
  return options;
}

void report_timing(benchmark::State& state, const timing::Measurement& measurement) {
  const timing::SampleSummary& summary = measurement.summary;
  state.SetIterationTime(summary.median * 1e-3);
  state.counters["median_ms"] = summary.median;
  state.counters["min_ms"] = summary.min;
  state.counters["p10_ms"] = summary.p10;
  state.counters["p90_ms"] = summary.p90;
  state.counters["samples"] = static_cast<double>(summary.count);
  state.counters["noise"] = summary.relative_noise;
  state.counters["converged"] = measurement.stop == timing::StopReason::kConverged ? 1.0 : 0.0;
}

namespace {

/// Rotating input sets of one sort benchmark: slot s holds keys (and values) at keys(s),
/// values(s). The first set is allocated before the scratch query, the others after it, sized
/// by the memory left (timing::rotating_buffer_count()).
class RotatingInputs {
 public:
  RotatingInputs(std::size_t n, bool pairs) : n_(n), pairs_(pairs), first_keys_(n) {
    if (pairs_) first_values_.resize(n);
  }

  /// Allocates and fills every set.
  /// \param shape the keys' shape
  /// \param slots number of sets (at least 1)
  void fill(const KeyShape& shape, std::size_t slots) {
    slots_ = slots;
    more_keys_.resize((slots - 1) * n_);
    if (pairs_) more_values_.resize((slots - 1) * n_);
    for (std::size_t s = 0; s < slots; ++s) {
      // Seed 1234 + s for every entry: each rung of the ladder sorts exactly the same keys.
      generate_keys_kernel<<<blocks_for(n_), 256>>>(keys(s), n_, 1234 + s, shape.kind,
                                                    shape.and_count);
      SORTLAB_CHECK_LAUNCH();
      if (pairs_) {
        iota_kernel<<<blocks_for(n_), 256>>>(values(s), n_);
        SORTLAB_CHECK_LAUNCH();
      }
    }
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  /// Keys of set \p slot.
  std::uint32_t* keys(std::size_t slot) {
    return slot == 0 ? first_keys_.data() : more_keys_.data() + (slot - 1) * n_;
  }
  /// Values of set \p slot (null for keys only).
  std::uint32_t* values(std::size_t slot) {
    if (!pairs_) return nullptr;
    return slot == 0 ? first_values_.data() : more_values_.data() + (slot - 1) * n_;
  }
  /// Number of sets.
  std::size_t slots() const { return slots_; }

 private:
  std::size_t n_;
  bool pairs_;
  std::size_t slots_ = 1;
  DeviceBuffer<std::uint32_t> first_keys_, first_values_, more_keys_, more_values_;
};

void measure_sort(benchmark::State& state, const SortEntry& entry, std::size_t n,
                  const KeyShape& shape, const BenchConfig& config) {
  timing::Sampler& sampler = timing::shared_sampler();
  const std::size_t kb = key_bytes(entry.key_type);
  const std::size_t vb = entry.pairs ? sizeof(std::uint32_t) : 0;
  RotatingInputs inputs(n, entry.pairs);
  DeviceBuffer<std::uint32_t> keys_out(n), values_out(entry.pairs ? n : 0);
  // The scratch size is asked for once, here, never inside a timed call.
  std::size_t temp_bytes = 0;
  entry.sort(nullptr, temp_bytes, inputs.keys(0), keys_out.data(), inputs.values(0),
             values_out.data(), n, sampler.stream());
  DeviceBuffer<unsigned char> temp(temp_bytes);
  inputs.fill(shape, timing::rotating_buffer_count(n * (kb + vb), sampler.l2_bytes(),
                                                   input_memory_budget() + n * (kb + vb)));
  const timing::Launch launch = [&](cudaStream_t stream, std::size_t slot) {
    entry.sort(temp.data(), temp_bytes, inputs.keys(slot), keys_out.data(), inputs.values(slot),
               values_out.data(), n, stream);
  };
  timing::SamplerOptions options = sampler_options(config);
  if (entry.host_synchronizes) options.mode = timing::TimingMode::kEvents;
  timing::Measurement measurement;
  for (auto _ : state) {
    try {
      measurement = sampler.measure(launch, inputs.slots(), options);
    } catch (const timing::BlockingTimeout&) {
      // A call that waits for the host and is not marked so: measure it as it can be measured.
      options.mode = timing::TimingMode::kEvents;
      measurement = sampler.measure(launch, inputs.slots(), options);
    }
    report_timing(state, measurement);
  }
  const double seconds = measurement.summary.median * 1e-3;
  state.counters["timed_with_events"] =
      options.mode == timing::TimingMode::kEvents && config.timing != options.mode ? 1.0 : 0.0;
  const double bytes = entry.bytes(n, kb, vb);
  state.counters["n"] = static_cast<double>(n);
  state.counters["ands"] = shape.kind == KeyShape::Kind::kAndReduced ? shape.and_count : 0;
  state.counters["rotating_inputs"] = static_cast<double>(inputs.slots());
  state.counters["keys_per_s"] = static_cast<double>(n) / seconds;
  state.counters["bytes"] = bytes;
  state.counters["GBps"] = bytes / seconds * 1e-9;
  if (entry.extra_counters)
    for (const auto& [name, value] : entry.extra_counters(n)) state.counters[name] = value;
  state.SetLabel(entry.summary);
}

/// Runs \p body and turns a thrown sortlab::Error or CUDA error into this benchmark's error, so
/// one broken rung cannot cost the whole table its JSON.
template <typename Body>
void report_errors(benchmark::State& state, Body body) {
  try {
    body();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    cudaGetLastError();  // clear a non-sticky error so the next entry starts clean
  }
}

void measure_copy(benchmark::State& state, std::size_t n, bool pairs, const BenchConfig& config) {
  timing::Sampler& sampler = timing::shared_sampler();
  const std::size_t bytes =
      timing::copy_floor_bytes(n, sizeof(std::uint32_t), pairs ? sizeof(std::uint32_t) : 0);
  DeviceBuffer<unsigned char> target(bytes);
  const std::size_t slots =
      timing::rotating_buffer_count(bytes, sampler.l2_bytes(), input_memory_budget());
  DeviceBuffer<unsigned char> sources(slots * bytes);
  sources.fill_bytes(0x5a);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const timing::Launch launch = [&](cudaStream_t stream, std::size_t slot) {
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(target.data(), sources.data() + slot * bytes, bytes,
                                       cudaMemcpyDeviceToDevice, stream));
  };
  timing::Measurement measurement;
  for (auto _ : state) {
    measurement = sampler.measure(launch, slots, sampler_options(config));
    report_timing(state, measurement);
  }
  const double moved = 2.0 * static_cast<double>(bytes);  // read + write
  state.counters["n"] = static_cast<double>(n);
  state.counters["ands"] = 0;
  state.counters["rotating_inputs"] = static_cast<double>(slots);
  state.counters["keys_per_s"] = static_cast<double>(n) / (measurement.summary.median * 1e-3);
  state.counters["bytes"] = moved;
  state.counters["GBps"] = moved / (measurement.summary.median * 1e-3) * 1e-9;
  state.SetLabel(pairs ? "device-to-device copy of the keys and values: the floor of a pair sort"
                       : "device-to-device copy of the keys: the floor of a keys-only sort");
}

/// Registers one benchmark with the settings every sortlab benchmark shares: one Google
/// Benchmark iteration, inside which the sampler takes all its samples.
template <typename Body>
void register_one(const std::string& name, Body body) {
  benchmark::RegisterBenchmark(
      name.c_str(), [body](benchmark::State& state) { report_errors(state, [&] { body(state); }); })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

/// Records how this program samples in the JSON context.
/// \param config the parsed command line
void add_timing_context(const BenchConfig& config) {
  const timing::Sampler& sampler = timing::shared_sampler();
  benchmark::AddCustomContext("sortlab_timing", timing::to_string(config.timing));
  benchmark::AddCustomContext(
      "sortlab_l2_flush_bytes",
      config.flush_l2 ? std::to_string(timing::l2_flush_bytes(sampler.l2_bytes())) : "0");
  benchmark::AddCustomContext("sortlab_l2_flush_method",
                              config.flush_l2 ? timing::to_string(config.flush_method) : "none");
  benchmark::AddCustomContext("sortlab_max_noise",
                              std::to_string(config.stopping.max_relative_noise));
  benchmark::AddCustomContext("sortlab_min_samples", std::to_string(config.stopping.min_samples));
  benchmark::AddCustomContext("sortlab_max_time_s", std::to_string(config.stopping.max_seconds));
}

}  // namespace

void register_sort(const SortEntry& entry, const BenchConfig& config) {
  for (int log2_size : config.log2_sizes) {
    if (log2_size > entry.max_log2_size) continue;
    for (const KeyShape& shape : config.key_shapes) {
      const std::size_t n = std::size_t{1} << log2_size;
      std::string name = entry.name + "/" + entry.key_type + "/" + (entry.pairs ? "pairs" : "keys");
      if (!entry.variant.empty()) name += "/" + entry.variant;
      name += "/n:" + std::to_string(n) + "/" + shape.name_part();
      register_one(name, [entry, n, shape, config](benchmark::State& state) {
        measure_sort(state, entry, n, shape, config);
      });
    }
  }
}

void register_timed(const std::string& name, const std::function<void(benchmark::State&)>& body) {
  register_one(name, body);
}

void register_copy_bandwidth(const BenchConfig& config) {
  for (bool pairs : {false, true}) {
    if ((pairs && !config.pairs) || (!pairs && !config.keys)) continue;
    for (int log2_size : config.log2_sizes) {
      const std::size_t n = std::size_t{1} << log2_size;
      const std::string name = std::string("copy/u32/") + (pairs ? "pairs" : "keys") +
                               "/n:" + std::to_string(n) + "/ands:0";
      register_one(name, [n, pairs, config](benchmark::State& state) {
        measure_copy(state, n, pairs, config);
      });
    }
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
    add_timing_context(config);
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
