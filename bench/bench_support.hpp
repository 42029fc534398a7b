/// \file
/// \brief What every sortlab benchmark shares: inputs generated on the GPU, rotating input sets
/// (keys and values) that together exceed the L2 at every size, the timing core of bench/timing
/// (L2 flush, blocking kernel or graph replay, samples until the noise is low), and the counters
/// the results table is built from.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_config.hpp"
#include "bench/timing/sampler.hpp"

namespace sortlab::bench {

/// A sort under test: (temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
/// values pointers are null for a keys-only sort.
using SortCall = std::function<void(void*, std::size_t&, const void*, void*, const std::uint32_t*,
                                    std::uint32_t*, std::size_t, cudaStream_t)>;

/// Bytes a sort must move for n keys (the stage's own model), for the GB/s counter.
using BytesModel =
    std::function<double(std::size_t n, std::size_t key_bytes, std::size_t value_bytes)>;

/// Counters an entry adds to its row for n keys, as (name, value) pairs: facts of its input that
/// the results table shows, e.g. stage 06's segment count.
using ExtraCounters = std::function<std::vector<std::pair<std::string, double>>(std::size_t n)>;

/// One entry of the ladder to benchmark.
struct SortEntry {
  std::string name;        ///< "stage01", "stage00-cub", "thrust" ...
  std::string summary;     ///< what this entry changes (becomes the benchmark label)
  std::string key_type;    ///< "u32", "i32" or "f32"
  bool pairs = false;      ///< key-value sort?
  SortCall sort;           ///< the call
  BytesModel bytes;        ///< the stage's bytes model
  std::string variant;     ///< optional extra name part, e.g. "r:4" (empty for none)
  int max_log2_size = 30;  ///< larger sizes are skipped (a slow stage caps its own sweep)
  /// The call waits for the host (e.g. copies a count to it): it cannot be queued behind the
  /// blocking kernel or captured, so it is timed with TimingMode::kEvents whatever --timing says,
  /// and its row says so (counter timed_with_events = 1).
  bool host_synchronizes = false;
  /// Optional: counters of the input at n keys, added to the row beside the timing counters
  /// (called once per benchmark, after the timed samples; empty for none).
  ExtraCounters extra_counters;
};

/// Registers \p entry for every size and key shape in \p config. Benchmark names read
/// "<name>/<type>/<keys|pairs>[/<variant>]/n:<n>/<shape>", the shape a KeyShape::name_part()
/// ("ands:0", "dist:sorted"); the JSON counters are median_ms, min_ms, p10_ms, p90_ms, samples,
/// noise (robust relative), converged (1 when the noise bound was met), keys_per_s, GBps, bytes,
/// n and ands, then those of SortEntry::extra_counters.
/// \param entry the sort to measure
/// \param config sizes, key shapes and sampling
void register_sort(const SortEntry& entry, const BenchConfig& config);

/// Registers the device-to-device copies that are each table's common floor: at every size, a
/// cudaMemcpyAsync of timing::copy_floor_bytes() (one read and one write of every key, and of
/// every value for pairs), named "copy/u32/keys/n:<n>/ands:0" and "copy/u32/pairs/..." (the
/// latter when \p config asks for pairs). Counter GBps counts bytes read plus bytes written.
/// \param config sizes, keys and/or pairs, sampling
void register_copy_bandwidth(const BenchConfig& config);

/// Adapts a stage's typed sort_keys / sort_pairs pair into a SortCall for \p key_type.
/// `Stage` is a struct with static templates `sort_keys<Key>(temp, bytes, in, out, n, stream)`
/// and `sort_pairs<Key>(temp, bytes, kin, kout, vin, vout, n, stream)`.
/// \param key_type "u32", "i32" or "f32"
template <typename Stage>
SortCall make_sort_call(const std::string& key_type) {
  auto typed = [](auto key_tag) -> SortCall {
    using Key = decltype(key_tag);
    return [](void* temp, std::size_t& bytes, const void* keys_in, void* keys_out,
              const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
              cudaStream_t stream) {
      if (values_in == nullptr)
        Stage::template sort_keys<Key>(temp, bytes, static_cast<const Key*>(keys_in),
                                       static_cast<Key*>(keys_out), n, stream);
      else
        Stage::template sort_pairs<Key>(temp, bytes, static_cast<const Key*>(keys_in),
                                        static_cast<Key*>(keys_out), values_in, values_out, n,
                                        stream);
    };
  };
  if (key_type == "i32") return typed(std::int32_t{});
  if (key_type == "f32") return typed(float{});
  return typed(std::uint32_t{});
}

/// Registers Stage for every key type and keys/pairs choice in \p config.
/// `Stage` also provides `kName`, `kSummary`, `kMaxLog2Size` and
/// `bytes_moved(n, key_bytes, value_bytes)`.
/// \param config what to measure
/// \param variant extra name part ("" for none)
template <typename Stage>
void register_stage(const BenchConfig& config, const std::string& variant = "") {
  for (const std::string& key_type : config.key_types) {
    for (bool pairs : {false, true}) {
      if ((pairs && !config.pairs) || (!pairs && !config.keys)) continue;
      SortEntry entry;
      entry.name = Stage::kName;
      entry.summary = Stage::kSummary;
      entry.key_type = key_type;
      entry.pairs = pairs;
      entry.variant = variant;
      entry.max_log2_size = Stage::kMaxLog2Size;
      entry.sort = make_sort_call<Stage>(key_type);
      entry.bytes = [](std::size_t n, std::size_t kb, std::size_t vb) {
        return Stage::bytes_moved(n, kb, vb);
      };
      register_sort(entry, config);
    }
  }
}

/// Device memory rotating input sets may take now: the free memory less a reserve (at least
/// 1 GiB or a tenth of the free memory) kept for scratch, the L2 flush buffer and the driver.
std::size_t input_memory_budget();

/// The sampling options of \p config: timing mode, L2 flush, stopping rule.
/// \param config the parsed command line
timing::SamplerOptions sampler_options(const BenchConfig& config);

/// Writes the timing counters every row carries (median_ms, min_ms, p10_ms, p90_ms, samples,
/// noise, converged) and sets Google Benchmark's own time to the median, so its console table
/// shows the figure the results page uses.
/// \param state the running benchmark
/// \param measurement what the sampler measured
void report_timing(benchmark::State& state, const timing::Measurement& measurement);

/// Registers a benchmark whose \p body does its own sampling (timing::shared_sampler()) with the
/// settings every sortlab benchmark shares: one Google Benchmark iteration, manual time in
/// milliseconds, and a thrown error turned into this benchmark's error instead of the program's
/// end. For programs whose calls are not sorts (stage 07's top-k).
/// \param name the benchmark's name
/// \param body measures and sets the counters
void register_timed(const std::string& name, const std::function<void(benchmark::State&)>& body);

/// Google Benchmark's main with sortlab's flags: parse, call \p register_all, run, shut down.
/// \param argc argument count
/// \param argv arguments
/// \param register_all registers the benchmarks for the parsed configuration
int run_main(int argc, char** argv, const std::function<void(const BenchConfig&)>& register_all);

}  // namespace sortlab::bench
