/// \file
/// \brief `bench_all`, the program behind `make table`: the copy-bandwidth ceiling, every stage
/// of the ladder, stage 03's radix-width sweep, stage 04's keys-per-thread sweep and the Thrust
/// and CUB baselines, all on one fixed set of inputs (kInputSet below; docs/results/README.md
/// explains it). The GPU, the input set and the sweeps' defaults go into the JSON context, so
/// bench/table/results_table.py describes what was measured from the JSON alone.
///
/// Example: `bench_all --min_time=0.05 --benchmark_out=all.json`; a slice of it:
/// `bench_all --benchmark_filter='^stage0[34]/'`.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/ladder.hpp"
#include "bench/table/baselines.hpp"
#include "common/gpu_detect.hpp"

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix.hpp"

namespace sortlab::bench {
namespace {

/// What one group of the fixed input set measures.
enum class Measure {
  kLadder,    ///< copy bandwidth, every stage, thrust::sort and the CUB segmented sorts
  kEntropy,   ///< every stage and thrust::sort on reduced-entropy keys
  kPairs,     ///< every stage and thrust::sort_by_key on key-value pairs
  kKeyTypes,  ///< CUB (stage 00) on the other key types, for the torch.sort comparison
  kSweeps,    ///< stage 03's r sweep and stage 04's keys-per-thread sweep
};

/// One group of the fixed input set: the inputs and what is measured on them.
struct InputGroup {
  Measure measure;                     ///< what runs on these inputs
  const char* what;                    ///< description for the JSON context
  std::vector<int> log2_sizes;         ///< n = 2^k
  std::vector<int> and_counts;         ///< key entropy (0 = uniform, 2 = 0.544 bits per bit)
  std::vector<std::string> key_types;  ///< key types
  bool pairs;                          ///< pairs only (true) or keys only (false)
};

/// The fixed input set of `make table`. Keys come from bench_support's generator with the same
/// seeds for every entry, so every rung sorts exactly the same keys. Sized to finish in a few
/// minutes on an H100: the slow 1-bit stages cap their own largest size (kMaxLog2Size).
const std::vector<InputGroup>& input_set() {
  // One group per two lines, read as a table (hence no clang-format).
  // clang-format off
  static const std::vector<InputGroup> groups = {
      {Measure::kLadder, "ladder: copy, stages, thrust::sort, CUB segmented sorts",
       {16, 20, 24, 28}, {0}, {"u32"}, false},
      {Measure::kEntropy, "reduced entropy: stages, thrust::sort",
       {24}, {2}, {"u32"}, false},
      {Measure::kPairs, "pairs (u32 values): stages, thrust::sort_by_key",
       {20, 24}, {0}, {"u32"}, true},
      {Measure::kKeyTypes, "other key types: CUB (for torch.sort)",
       {16, 20, 24, 28}, {0}, {"i32", "f32"}, false},
      {Measure::kSweeps, "sweeps: stage 03 r = 1..8, stage 04 keys per thread and r = 3..8",
       {20, 24}, {0}, {"u32"}, false},
  };
  // clang-format on
  return groups;
}

/// The BenchConfig of one group, with the timing flags of the command line.
/// \param group the inputs
/// \param flags the parsed command line (only min_time is kept)
BenchConfig config_of(const InputGroup& group, const BenchConfig& flags) {
  BenchConfig config = flags;
  config.log2_sizes = group.log2_sizes;
  config.and_counts = group.and_counts;
  config.key_types = group.key_types;
  config.keys = !group.pairs;
  config.pairs = group.pairs;
  return config;
}

/// "name: u32 keys, n = 2^16 2^20, ands = 0" for the JSON context.
/// \param group the inputs
std::string describe(const InputGroup& group) {
  std::string text = std::string(group.what) + ": ";
  for (std::size_t i = 0; i < group.key_types.size(); ++i)
    text += (i ? "," : "") + group.key_types[i];
  text += group.pairs ? " pairs, n =" : " keys, n =";
  for (int k : group.log2_sizes) text += " 2^" + std::to_string(k);
  text += ", ands =";
  for (int a : group.and_counts) text += " " + std::to_string(a);
  return text;
}

/// Every rung of the ladder that is built into this program, in ladder order.
/// \param config the inputs
void register_ladder(const BenchConfig& config) {
  register_stage00(config);
  register_stage01(config);
  register_stage02(config);
  register_stage03(config);
  register_stage04(config);
}

/// The sweeps that are built into this program.
/// \param config the inputs
void register_sweeps(const BenchConfig& config) {
  register_stage03_radix_sweep(config);
  register_stage04_coarsening_sweep(config);
  register_stage04_radix_sweep(config);
}

/// The stages built into this program, e.g. "00,01,02,03,04".
std::string built_stages() {
  return "00,01,02,03,04";
}

/// Records the GPU, the input set and the sweeps' defaults in the JSON context.
void add_context() {
  int device = 0, sm_count = 0, l2_bytes = 0, runtime = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  SORTLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  benchmark::AddCustomContext("sortlab_gpu_name", gpu_description());
  benchmark::AddCustomContext("sortlab_gpu_file_name", gpu_file_name());
  benchmark::AddCustomContext("sortlab_sm_count", std::to_string(sm_count));
  benchmark::AddCustomContext("sortlab_l2_bytes", std::to_string(l2_bytes));
  benchmark::AddCustomContext("sortlab_cuda_runtime", std::to_string(runtime));
  benchmark::AddCustomContext("sortlab_stages", built_stages());
  std::string groups;
  for (const InputGroup& group : input_set())
    groups += (groups.empty() ? "" : "; ") + describe(group);
  benchmark::AddCustomContext("sortlab_input_set", groups);
  // The variant name format is stage03_bench.cpp's ("r:R").
  benchmark::AddCustomContext("sortlab_default_stage03",
                              "r:" + std::to_string(stage03::kDefaultRadixBits));
  // The variant name format is stage04_bench.cpp's ("kpt:K").
  benchmark::AddCustomContext("sortlab_default_stage04",
                              "kpt:" + std::to_string(stage04::kDefaultKeysPerThread));
  // A stage with a second sweep names that sweep's default as sortlab_default_<stage>_<prefix>.
  benchmark::AddCustomContext("sortlab_default_stage04_r",
                              "r:" + std::to_string(stage04::kDefaultRadixBits));
}

/// Warns when the command line asks for sizes, entropies, types or pairs: bench_all always
/// measures the fixed input set (use bench_stageNN for other inputs).
/// \param flags the parsed command line
void warn_about_ignored_flags(const BenchConfig& flags) {
  const BenchConfig defaults;
  if (flags.log2_sizes != defaults.log2_sizes || flags.and_counts != defaults.and_counts ||
      flags.key_types != defaults.key_types || flags.keys != defaults.keys ||
      flags.pairs != defaults.pairs)
    std::fprintf(stderr,
                 "bench_all: --sizes, --ands, --types and --pairs are ignored: it measures the "
                 "fixed input set of `make table` (use bench_stageNN for other inputs, "
                 "--benchmark_filter for a slice).\n");
}

/// Registers the whole fixed input set, group by group, in the order the table reads.
/// \param flags the parsed command line (only its timing is used)
void register_all(const BenchConfig& flags) {
  warn_about_ignored_flags(flags);
  add_context();
  for (const InputGroup& group : input_set()) {
    const BenchConfig config = config_of(group, flags);
    switch (group.measure) {
      case Measure::kLadder:
        register_copy_bandwidth(config);
        register_ladder(config);
        register_thrust_sort(config);
        register_cub_segmented_radix_sort(config);
        register_cub_segmented_sort(config);
        break;
      case Measure::kEntropy:
        register_ladder(config);
        register_thrust_sort(config);
        break;
      case Measure::kPairs:
        register_ladder(config);
        register_thrust_sort_by_key(config);
        break;
      case Measure::kKeyTypes:
        register_stage00(config);
        break;
      case Measure::kSweeps:
        register_sweeps(config);
        break;
    }
  }
}

}  // namespace
}  // namespace sortlab::bench

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, sortlab::bench::register_all);
}
