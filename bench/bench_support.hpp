/// \file
/// \brief What every sortlab benchmark shares: inputs generated on the GPU, rotating input
/// buffers (so the 50 MB L2 cannot flatter small sizes), CUDA-event timing with warm-up, the
/// median over iterations, and the counters the results table is built from.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sortlab::bench {

/// What to measure; set from the command line (see parse_config()).
struct BenchConfig {
  std::vector<int> log2_sizes = {16, 18, 20, 22, 24, 26, 28};  ///< n = 2^k for each k
  std::vector<int> and_counts = {0};  ///< key entropy: 0 = uniform, 2 = 0.544 bits/bit, ...
  std::vector<std::string> key_types = {"u32"};  ///< any of u32, i32, f32
  bool keys = true;                              ///< measure keys-only sorts
  bool pairs = false;                            ///< measure key-value sorts
  double min_time = 0.1;  ///< seconds of timed iterations per benchmark (after warm-up)
};

/// Parses and removes sortlab's own flags from argv, leaving Google Benchmark's:
/// --sizes=16,20,24 (log2 n), --ands=0,2 (entropy), --types=u32,f32, --pairs=0|1|both,
/// --min_time=0.1. Throws sortlab::Error on a malformed flag.
/// \param argc argument count, updated
/// \param argv arguments, with sortlab's flags removed
BenchConfig parse_config(int& argc, char** argv);

/// A sort under test: (temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
/// values pointers are null for a keys-only sort.
using SortCall = std::function<void(void*, std::size_t&, const void*, void*, const std::uint32_t*,
                                    std::uint32_t*, std::size_t, cudaStream_t)>;

/// Bytes a sort must move for n keys (the stage's own model), for the GB/s counter.
using BytesModel =
    std::function<double(std::size_t n, std::size_t key_bytes, std::size_t value_bytes)>;

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
};

/// Registers \p entry for every size and entropy in \p config. Benchmark names read
/// "<name>/<type>/<keys|pairs>[/<variant>]/n:<n>/ands:<k>"; the JSON counters are
/// keys_per_s, GBps, median_ms, n, ands and bytes.
/// \param entry the sort to measure
/// \param config sizes and entropies
void register_sort(const SortEntry& entry, const BenchConfig& config);

/// Registers the device-to-device copy that measures this GPU's practical bandwidth ceiling
/// (counter GBps counts bytes read plus bytes written).
/// \param config sizes to measure at
void register_copy_bandwidth(const BenchConfig& config);

/// Number of bytes in a key type named "u32", "i32" or "f32".
/// \param key_type the type's short name
std::size_t key_bytes(const std::string& key_type);

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

/// Google Benchmark's main with sortlab's flags: parse, call \p register_all, run, shut down.
/// \param argc argument count
/// \param argv arguments
/// \param register_all registers the benchmarks for the parsed configuration
int run_main(int argc, char** argv, const std::function<void(const BenchConfig&)>& register_all);

}  // namespace sortlab::bench
