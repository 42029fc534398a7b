/// \file
/// \brief `bench_all`, the program behind `make table`: the copy floors, every stage of the
/// ladder, CUB on every key type (its best instantiation is the baseline), stage 03's radix-width
/// sweep, stage 04's keys-per-thread sweep and the Thrust and CUB baselines, all on one fixed set
/// of inputs (input_set() below; docs/results/README.md explains it). The GPU, the input set and
/// the sweeps' defaults go into the JSON context, so bench/table/results_table.py describes what
/// was measured from the JSON alone.
///
/// Example: `bench_all --max_time=0.2 --benchmark_out=all.json`; a slice of it:
/// `bench_all --benchmark_filter='^stage0[34]/'`.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/ladder.hpp"
#include "bench/table/baselines.hpp"
#include "common/gpu_detect.hpp"

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"

namespace sortlab::bench {
namespace {

/// What one group of the fixed input set measures.
enum class Measure {
  kLadder,    ///< copy floor, every stage, thrust::sort and the CUB segmented sorts
  kKeyTypes,  ///< CUB (stage 00) on i32 and f32 keys: its best instantiation, torch.sort's peer
  kEntropy,   ///< every stage, thrust::sort and CUB on every key type, other key shapes
  kPairs,     ///< copy floor, every stage, thrust::sort_by_key and CUB on every key type, pairs
  kSweeps,    ///< stage 03's r sweep, stage 04's keys-per-thread and r sweeps, stage 05's r
};

/// One group of the fixed input set: the inputs and what is measured on them.
struct InputGroup {
  Measure measure;                     ///< what runs on these inputs
  const char* what;                    ///< description for the JSON context
  std::vector<int> log2_sizes;         ///< n = 2^k
  std::vector<KeyShape> key_shapes;    ///< key shapes (uniform, AND-reduced, sorted, ...)
  std::vector<std::string> key_types;  ///< key types (the stages and Thrust run u32 only)
  bool pairs;                          ///< pairs only (true) or keys only (false)
};

/// Every AND count and distribution of the entropy sweep (CUB's benchmarks' AND-reduction 0-4;
/// 0 is the ladder itself), plus one repeated value, sorted keys and 16 distinct values.
std::vector<KeyShape> entropy_sweep() {
  std::vector<KeyShape> shapes;
  for (int ands = 1; ands <= 4; ++ands) shapes.push_back(and_reduced(ands));
  for (const char* name : {"equal", "sorted", "few"}) shapes.push_back(parse_key_shape(name));
  return shapes;
}

/// The fixed input set of `make table`. Keys come from bench_support's generator with the same
/// seeds for every entry, so every rung sorts exactly the same keys. Sized to finish in a few
/// minutes on an H100: the 1-bit stages 01 and 02 stop at 2^28 (kMaxLog2Size; about 10 samples
/// of 0.13 s and 0.07 s there), stage 03's r = 8 at 2^26.
const std::vector<InputGroup>& input_set() {
  const std::vector<int> ladder_sizes = {16, 18, 20, 22, 24, 26, 28};
  // One group per two lines, read as a table (hence no clang-format).
  // clang-format off
  static const std::vector<InputGroup> groups = {
      {Measure::kLadder, "ladder: copy, stages, thrust::sort, CUB segmented sorts",
       ladder_sizes, {and_reduced(0)}, {"u32"}, false},
      {Measure::kKeyTypes, "CUB on the other key types (its best instantiation, torch.sort's peer)",
       ladder_sizes, {and_reduced(0)}, {"i32", "f32"}, false},
      {Measure::kEntropy, "entropy sweep: stages, thrust::sort, CUB on every key type",
       {24, 28}, entropy_sweep(), {"u32", "i32", "f32"}, false},
      {Measure::kPairs, "pairs (u32 values): copy, stages, thrust::sort_by_key, CUB on every key type",
       {24, 28}, {and_reduced(0)}, {"u32", "i32", "f32"}, true},
      {Measure::kSweeps, "sweeps: stage 03 r = 1..8, stage 04 keys per thread and r = 3..8, stage 05 r = 6, 7",
       {20, 24}, {and_reduced(0)}, {"u32"}, false},
  };
  // clang-format on
  return groups;
}

/// The BenchConfig of one group, with the timing flags of the command line.
/// \param group the inputs
/// \param flags the parsed command line (only its timing is kept)
BenchConfig config_of(const InputGroup& group, const BenchConfig& flags) {
  BenchConfig config = flags;
  config.log2_sizes = group.log2_sizes;
  config.key_shapes = group.key_shapes;
  config.key_types = group.key_types;
  config.keys = !group.pairs;
  config.pairs = group.pairs;
  return config;
}

/// The same inputs on u32 keys only (what the stages and Thrust sort).
/// \param config the inputs
BenchConfig only_u32(BenchConfig config) {
  config.key_types = {"u32"};
  return config;
}

/// The same inputs on every key type but u32 (CUB's other instantiations beside the ladder).
/// \param config the inputs
BenchConfig except_u32(BenchConfig config) {
  config.key_types.erase(std::remove(config.key_types.begin(), config.key_types.end(), "u32"),
                         config.key_types.end());
  return config;
}

/// "name: u32 keys, n = 2^16 2^20, ands:0 dist:sorted" for the JSON context.
/// \param group the inputs
std::string describe(const InputGroup& group) {
  std::string text = std::string(group.what) + ": ";
  for (std::size_t i = 0; i < group.key_types.size(); ++i)
    text += (i ? "," : "") + group.key_types[i];
  text += group.pairs ? " pairs, n =" : " keys, n =";
  for (int k : group.log2_sizes) text += " 2^" + std::to_string(k);
  text += ", shapes =";
  for (const KeyShape& shape : group.key_shapes) text += " " + shape.name_part();
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
  register_stage05(config);
  register_stage08(config);
}

/// The sweeps that are built into this program.
/// \param config the inputs
void register_sweeps(const BenchConfig& config) {
  register_stage03_radix_sweep(config);
  register_stage04_coarsening_sweep(config);
  register_stage04_radix_sweep(config);
  register_stage05_radix_sweep(config);
}

/// The stages built into this program, e.g. "00,01,02,03,04".
std::string built_stages() {
  return "00,01,02,03,04,05,08";
}

/// Records the GPU, the input set and the sweeps' defaults in the JSON context.
void add_context() {
  int device = 0, sm_count = 0, l2_bytes = 0, runtime = 0, driver = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  SORTLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  SORTLAB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  benchmark::AddCustomContext("sortlab_cuda_driver", std::to_string(driver));
  benchmark::AddCustomContext("sortlab_cccl", cccl_version());
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
  // The variant name format is stage05_bench.cpp's ("r:R").
  benchmark::AddCustomContext("sortlab_default_stage05",
                              "r:" + std::to_string(stage05::kRadixBits));
}

/// Warns when the command line asks for sizes, entropies, types or pairs: bench_all always
/// measures the fixed input set (use bench_stageNN for other inputs).
/// \param flags the parsed command line
void warn_about_ignored_flags(const BenchConfig& flags) {
  const BenchConfig defaults;
  if (flags.log2_sizes != defaults.log2_sizes || flags.key_shapes != defaults.key_shapes ||
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
        register_ladder(only_u32(config));
        register_thrust_sort(config);
        register_stage00(except_u32(config));
        break;
      case Measure::kPairs:
        register_copy_bandwidth(config);
        register_ladder(only_u32(config));
        register_thrust_sort_by_key(config);
        register_stage00(except_u32(config));
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
