/// \file
/// \brief Stage 07 benchmark program: stage07::topk on the shapes of issue 18 and of
/// bench/table/torch_baseline.py (TOPK_SHAPES), with a device-to-device copy of each input as the
/// floor, timed by the shared core (L2 flush, blocking kernel, rotating inputs larger than the L2).
///
/// Names line up with torch_baseline.py's `torch-topk/f32/rows:R/cols:C/k:K` (torch.topk's
/// default is sorted output):
/// - `stage07-topk/<f32|bf16>/rows:R/cols:C/k:K`: sorted output (k <= kMaxSortedK only);
/// - `stage07-topk-unsorted/<f32|bf16>/rows:R/cols:C/k:K`: sorted = false;
/// - `copy/<f32|bf16>/rows:R/cols:C`: cudaMemcpyAsync of the input, device to device.
///
/// Flags (besides sortlab's sampling flags, bench_config.hpp, and Google Benchmark's own):
/// `--set=quick|torch|long|rows|llm|all` (default quick: a handful of shapes, well under a
/// minute), or `--shapes=RxC:K,...` (rows of your own, e.g.
/// `--shapes=16384x4096:8,8192x8192:8`; they replace the set; `--types=f32|bf16|both` their
/// value types, default f32), `--sorted=0|1|both` (default
/// both) and `--schedule=auto|one|multi|warp|cluster` (auto: stage 07's rule; the others force a
/// schedule, to measure the rule; their names end in `/schedule:one`, `/schedule:multi` or
/// `/schedule:warp`, and `warp` skips rows longer than kMaxWarpRowLength; `cluster` forces one
/// thread-block cluster per row, `--cluster=N` its blocks, names ending in `/cluster:N`),
/// `--sample=auto|1|0` (default auto: TopkSample; 1 and 0 force the sample pass of several blocks
/// per row and the sample read of one block per row on or off, names ending in `/sample:1` or
/// `/sample:0`), `--blocks=N` (TopkOptions::values_per_block = ceil(cols / N): N blocks per
/// row wherever the rule splits rows, names ending in `/blocks:N`),
/// `--input=uniform|ascending|few` (ascending: every row rises, the sampled bound's worst case for
/// its warp regions; few: 16 distinct values, where the sample predicts an overflow; names ending
/// in `/input:ascending` or `/input:few`). Counters blocks_per_row and
/// several_blocks say which schedule ran. Example:
/// `bench_stage07
/// --set=llm --sorted=0`.
///
/// Inputs are uniform in [0, 1) like torch_baseline.py's torch.rand (bf16: the f32 value
/// rounded), generated on the device; seed 1234 + slot for every shape.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/timing/buffer_plan.hpp"
#include "chapters/07_topk/topk.hpp"
#include "common/device_buffer.hpp"
#include "common/device_properties.hpp"
#include "common/errors.hpp"
#include "common/gpu_detect.hpp"

namespace sortlab::bench {
namespace {

/// One top-k shape: rows x cols values, k per row.
struct TopkShape {
  std::size_t rows;
  std::size_t cols;
  std::size_t k;
};

/// torch_baseline.py's TOPK_SHAPES (keep the two lists equal: the table pairs them by name);
/// its last five are the quick set's other shapes.
const std::vector<TopkShape> kTorchShapes = {{65536, 1024, 16},
                                             {4096, 32768, 64},
                                             {1, std::size_t{1} << 24, 1024},
                                             {1, std::size_t{1} << 28, 1024},
                                             {64, std::size_t{1} << 20, 64},
                                             {16384, 4096, 8},
                                             {1, 128256, 2048},
                                             {128, 128256, 50}};

/// Issue 18: one row of 2^28 values, k = 1, 32, 1024, 65536 and 1% of n.
std::vector<TopkShape> long_shapes() {
  const std::size_t n = std::size_t{1} << 28;
  return {{1, n, 1}, {1, n, 32}, {1, n, 1024}, {1, n, 65536}, {1, n, n / 100}};
}

/// Issue 18: 2^26 values as rows of 128, 1000, 4096, 65536 and 2^20, k = 1, 8, 64, 256 where
/// k < row length (2^26 / 1000 rounds down to whole rows).
std::vector<TopkShape> row_shapes() {
  std::vector<TopkShape> shapes;
  const std::size_t n = std::size_t{1} << 26;
  for (std::size_t cols : {std::size_t{128}, std::size_t{1000}, std::size_t{4096},
                           std::size_t{65536}, std::size_t{1} << 20})
    for (std::size_t k : {1, 8, 64, 256})
      if (k < cols) shapes.push_back({n / cols, cols, k});
  return shapes;
}

/// Issue 18's LLM sampling shapes: batch 1, 16, 64, 128, 256 x vocabulary 32000, 128256,
/// 151936, k = 1, 50, 1024, 2048 (run for f32 and bf16 logits).
std::vector<TopkShape> llm_shapes() {
  std::vector<TopkShape> shapes;
  for (std::size_t vocab : {32000, 128256, 151936})
    for (std::size_t batch : {1, 16, 64, 128, 256})
      for (std::size_t k : {1, 50, 1024, 2048}) shapes.push_back({batch, vocab, k});
  return shapes;
}

/// The default: one shape of each kind, the issue's headline targets among them.
const std::vector<TopkShape> kQuickShapes = {{1, std::size_t{1} << 28, 1024},
                                             {64, std::size_t{1} << 20, 64},
                                             {16384, 4096, 8},
                                             {1, 128256, 2048},
                                             {128, 128256, 50},
                                             {4096, 32768, 64}};

/// What bench_stage07 fills its rows with (--input).
enum class InputKind {
  kUniform,      ///< uniform in [0, 1), as torch.rand (the tables' input)
  kAscending,    ///< every row rises: the sampled answers all in the row's last part
  kFewDistinct,  ///< 16 distinct values: ties the sample sees
};

/// What this program's own flags asked for.
struct Stage07Flags {
  std::string set = "quick";
  bool unsorted = true;
  bool sorted = true;
  stage07::TopkSchedule schedule = stage07::TopkSchedule::kAuto;
  /// TopkOptions::sample (--sample=auto|1|0; forced values end the names in /sample:1 or 0)
  stage07::TopkSample sample = stage07::TopkSample::kAuto;
  /// TopkOptions::cluster_blocks (--cluster=N; nonzero ends the names in /cluster:N)
  std::size_t cluster_blocks = 0;
  /// --input: uniform (default), ascending (every row rises) or few (16 distinct values)
  InputKind input = InputKind::kUniform;
  /// --blocks=N: TopkOptions::values_per_block = ceil(cols / N) (0: the rule's span)
  std::size_t blocks_per_row = 0;
  /// --shapes=RxC:K,...: shapes of the caller's own, instead of the set's
  std::vector<TopkShape> shapes;
  /// --types=f32|bf16|both: the value types --shapes runs (default f32)
  bool shapes_f32 = true;
  bool shapes_bf16 = false;
};

/// The shapes of --shapes=RxC:K,... (throws sortlab::Error on anything else).
std::vector<TopkShape> parse_shapes(const std::string& list) {
  std::vector<TopkShape> shapes;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, end - at);
    unsigned long long rows = 0, cols = 0, k = 0;
    char x = 0, colon = 0, rest = 0;
    require(
        std::sscanf(item.c_str(), "%llu%c%llu%c%llu%c", &rows, &x, &cols, &colon, &k, &rest) == 5 &&
            x == 'x' && colon == ':' && item.find('-') == std::string::npos && rows > 0 &&
            cols > 0 && k > 0 && k <= cols,
        "--shapes: '" + item + "' is not RxC:K with 1 <= K <= C");
    shapes.push_back({rows, cols, k});
    at = end + 1;
  }
  return shapes;
}

/// Takes this program's flags out of argv (before sortlab's and Google Benchmark's parsers see
/// them). Throws sortlab::Error on a bad value.
Stage07Flags take_flags(int& argc, char** argv) {
  Stage07Flags flags;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value_of = [&](const char* prefix) -> const char* {
      return arg.rfind(prefix, 0) == 0 ? argv[i] + std::strlen(prefix) : nullptr;
    };
    if (const char* set = value_of("--set=")) {
      flags.set = set;
      require(flags.set == "quick" || flags.set == "torch" || flags.set == "long" ||
                  flags.set == "rows" || flags.set == "llm" || flags.set == "all",
              "--set must be quick, torch, long, rows, llm or all");
    } else if (const char* shapes = value_of("--shapes=")) {
      flags.shapes = parse_shapes(shapes);
    } else if (const char* types = value_of("--types=")) {
      const std::string t = types;
      require(t == "f32" || t == "bf16" || t == "both", "--types must be f32, bf16 or both");
      flags.shapes_f32 = t != "bf16";
      flags.shapes_bf16 = t != "f32";
    } else if (const char* sorted = value_of("--sorted=")) {
      const std::string s = sorted;
      require(s == "0" || s == "1" || s == "both", "--sorted must be 0, 1 or both");
      flags.unsorted = s != "1";
      flags.sorted = s != "0";
    } else if (const char* schedule = value_of("--schedule=")) {
      const std::string s = schedule;
      require(s == "auto" || s == "one" || s == "multi" || s == "warp" || s == "cluster",
              "--schedule must be auto, one, multi, warp or cluster");
      flags.schedule = s == "one"       ? stage07::TopkSchedule::kOneBlockPerRow
                       : s == "multi"   ? stage07::TopkSchedule::kBlocksPerRow
                       : s == "warp"    ? stage07::TopkSchedule::kWarpPerRow
                       : s == "cluster" ? stage07::TopkSchedule::kClusterPerRow
                                        : stage07::TopkSchedule::kAuto;
    } else if (const char* cluster = value_of("--cluster=")) {
      flags.cluster_blocks = std::strtoull(cluster, nullptr, 10);
      require(flags.cluster_blocks >= 1 && flags.cluster_blocks <= stage07::kMaxClusterBlocks,
              "--cluster must be 1 .. kMaxClusterBlocks");
    } else if (const char* input = value_of("--input=")) {
      const std::string s = input;
      require(s == "uniform" || s == "ascending" || s == "few",
              "--input must be uniform, ascending or few");
      flags.input = s == "ascending" ? InputKind::kAscending
                    : s == "few"     ? InputKind::kFewDistinct
                                     : InputKind::kUniform;
    } else if (const char* blocks = value_of("--blocks=")) {
      const long long count = std::strtoll(blocks, nullptr, 10);
      require(count >= 1 && count <= 65536, "--blocks must be 1 .. 65536");
      flags.blocks_per_row = static_cast<std::size_t>(count);
    } else if (const char* sample = value_of("--sample=")) {
      const std::string s = sample;
      require(s == "auto" || s == "0" || s == "1", "--sample must be auto, 0 or 1");
      flags.sample = s == "1"   ? stage07::TopkSample::kOn
                     : s == "0" ? stage07::TopkSample::kOff
                                : stage07::TopkSample::kAuto;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return flags;
}

/// The shapes of a set, each once, with the element types it runs.
struct ShapeRun {
  TopkShape shape;
  bool bf16;
};

std::vector<ShapeRun> shapes_of(const std::string& set) {
  std::vector<ShapeRun> runs;
  const auto add = [&](const std::vector<TopkShape>& shapes, bool with_bf16) {
    for (const TopkShape& s : shapes) {
      runs.push_back({s, false});
      if (with_bf16) runs.push_back({s, true});
    }
  };
  if (set == "quick") add(kQuickShapes, false);
  if (set == "torch" || set == "all") add(kTorchShapes, false);
  if (set == "long" || set == "all") add(long_shapes(), false);
  if (set == "rows" || set == "all") add(row_shapes(), false);
  if (set == "llm" || set == "all") add(llm_shapes(), true);
  return runs;
}

/// SplitMix64, as bench_support's key generator.
__device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform values in [0, 1): 24 random bits times 2^-24, as torch.rand draws float32; with
/// InputKind::kAscending every row of \p row_length values rises instead (column / row_length:
/// the case where a sample's answers all lie in the row's last part), with kFewDistinct each
/// value is one of 16 (i / 16 for a random i < 16: ties the sample sees).
template <typename T>
__global__ void uniform_kernel(T* values, std::size_t n, std::uint64_t seed, InputKind input,
                               std::size_t row_length) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t bits = mix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  const float u = input == InputKind::kAscending
                      ? static_cast<float>(i % row_length) / static_cast<float>(row_length)
                  : input == InputKind::kFewDistinct
                      ? static_cast<float>(bits >> 60) * (1.0f / 16.0f)
                      : static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
  if constexpr (std::is_same_v<T, float>)
    values[i] = u;
  else
    values[i] = __float2bfloat16(u);
}

/// Copy medians (ms) by "<type>/rows:R/cols:C", filled by the copy rows that are registered (and
/// therefore run) just before the top-k rows of the same input.
std::map<std::string, double>& copy_medians() {
  static std::map<std::string, double> medians;
  return medians;
}

std::string input_name(const char* type, const TopkShape& s) {
  return std::string(type) + "/rows:" + std::to_string(s.rows) + "/cols:" + std::to_string(s.cols);
}

/// The floor row: one cudaMemcpyAsync of the input, device to device, on rotating sources. It
/// reads and writes the input once, so its bandwidth (2 x input bytes / time) is the rate at
/// which this GPU moves bytes in this run; the top-k floor is "read the input once, write the
/// k values and indices" at that rate (counter floor_fraction of the top-k rows).
void measure_input_copy(benchmark::State& state, const std::string& key, std::size_t bytes,
                        std::size_t n, const BenchConfig& config) {
  timing::Sampler& sampler = timing::shared_sampler();
  DeviceBuffer<unsigned char> target(bytes);
  const std::size_t slots =
      timing::rotating_buffer_count(bytes, sampler.l2_bytes(), input_memory_budget());
  DeviceBuffer<unsigned char> sources(slots * bytes);
  sources.fill_bytes(0x3c);
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
  const double seconds = measurement.summary.median * 1e-3;
  copy_medians()[key] = measurement.summary.median;
  state.counters["n"] = static_cast<double>(n);
  state.counters["rotating_inputs"] = static_cast<double>(slots);
  state.counters["keys_per_s"] = static_cast<double>(n) / seconds;
  state.counters["bytes"] = 2.0 * static_cast<double>(bytes);
  state.counters["GBps"] = 2.0 * static_cast<double>(bytes) / seconds * 1e-9;
  state.SetLabel("device-to-device copy of the input: the bandwidth the top-k floor is taken at");
}

/// One top-k row: rotating inputs, outputs allocated once, the scratch asked for once (never
/// inside a timed call).
template <typename T>
void measure_topk(benchmark::State& state, const std::string& copy_key, const TopkShape& s,
                  const stage07::TopkOptions& options, const BenchConfig& config, InputKind input) {
  timing::Sampler& sampler = timing::shared_sampler();
  const std::size_t n = s.rows * s.cols, answers = s.rows * s.k;
  DeviceBuffer<T> values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  const std::size_t slots =
      timing::rotating_buffer_count(n * sizeof(T), sampler.l2_bytes(), input_memory_budget());
  DeviceBuffer<T> inputs(slots * n);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    uniform_kernel<T><<<static_cast<unsigned>((n + 255) / 256), 256>>>(inputs.data() + slot * n, n,
                                                                       1234 + slot, input, s.cols);
    SORTLAB_CHECK_LAUNCH();
  }
  std::size_t temp_bytes = 0;
  stage07::topk<T>(nullptr, temp_bytes, inputs.data(), s.rows, s.cols, s.k, values_out.data(),
                   indices_out.data(), options, sampler.stream());
  DeviceBuffer<unsigned char> temp(temp_bytes);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const timing::Launch launch = [&](cudaStream_t stream, std::size_t slot) {
    stage07::topk<T>(temp.data(), temp_bytes, inputs.data() + slot * n, s.rows, s.cols, s.k,
                     values_out.data(), indices_out.data(), options, stream);
  };
  timing::Measurement measurement;
  for (auto _ : state) {
    measurement = sampler.measure(launch, slots, sampler_options(config));
    report_timing(state, measurement);
  }
  const double ms = measurement.summary.median;
  // The issue's bytes: the input read once, k values and int64 indices per row written once.
  const double in_bytes = static_cast<double>(n * sizeof(T));
  const double out_bytes = static_cast<double>(answers * (sizeof(T) + sizeof(std::int64_t)));
  state.counters["n"] = static_cast<double>(n);
  state.counters["rows"] = static_cast<double>(s.rows);
  state.counters["cols"] = static_cast<double>(s.cols);
  state.counters["k"] = static_cast<double>(s.k);
  state.counters["rotating_inputs"] = static_cast<double>(slots);
  state.counters["scratch_bytes"] = static_cast<double>(temp_bytes);
  const stage07::RowSplit split = stage07::topk_split(
      s.rows, s.cols, s.k, sizeof(T), options, stage07::multi_block_target(multiprocessor_count()),
      stage07::device_resident_clusters);
  state.counters["blocks_per_row"] =
      static_cast<double>(split.several_blocks || split.cluster_per_row ? split.blocks_per_row : 1);
  state.counters["several_blocks"] = split.several_blocks ? 1.0 : 0.0;
  state.counters["cluster_per_row"] = split.cluster_per_row ? 1.0 : 0.0;
  state.counters["warp_per_row"] = split.warp_per_row ? 1.0 : 0.0;
  // k = 1 by the rule: the reduction ran instead of the schedule above (argmax_rows.cuh); 2 <=
  // k <= 32: the queues and merges (queue_rows.cuh), on the same split.
  const stage07::ArgmaxSplit argmax =
      stage07::argmax_split(s.rows, s.cols, s.k, options, multiprocessor_count());
  const stage07::ArgmaxSplit queue =
      stage07::queue_split(s.rows, s.cols, s.k, options, multiprocessor_count());
  state.counters["argmax_reduction"] = argmax.used ? 1.0 : 0.0;
  state.counters["queue_reduction"] = queue.used ? 1.0 : 0.0;
  const stage07::ArgmaxSplit& reduction = argmax.used ? argmax : queue;
  if (reduction.used) {
    state.counters["blocks_per_row"] =
        static_cast<double>(reduction.warp_per_row ? 1 : reduction.blocks_per_row);
    state.counters["several_blocks"] = 0.0;
    state.counters["cluster_per_row"] = reduction.blocks_per_row > 1 ? 1.0 : 0.0;
    state.counters["warp_per_row"] = reduction.warp_per_row ? 1.0 : 0.0;
  }
  // Several blocks for the sample pass, then one block per row from its lists (sample_pass.cuh):
  // this thread's last topk() call was a timed one.
  state.counters["sampled_one_block"] =
      stage07::last_topk_path() == stage07::TopkPath::kSampledOneBlock ? 1.0 : 0.0;
  // One cluster per row that samples (cluster_sample_plan()): its spans filtered against the
  // sample's bound into one block's list.
  state.counters["cluster_sampled"] =
      stage07::last_topk_path() == stage07::TopkPath::kClusterSampled ? 1.0 : 0.0;
  state.counters["keys_per_s"] = static_cast<double>(n) / (ms * 1e-3);
  state.counters["bytes"] = in_bytes + out_bytes;
  state.counters["GBps"] = (in_bytes + out_bytes) / (ms * 1e-3) * 1e-9;
  const auto copy = copy_medians().find(copy_key);
  if (copy != copy_medians().end() && copy->second > 0) {
    // The copy moved 2 x in_bytes in copy_ms; the floor moves in_bytes + out_bytes at that rate.
    const double floor_ms = copy->second * (in_bytes + out_bytes) / (2.0 * in_bytes);
    state.counters["copy_ms"] = copy->second;
    state.counters["floor_ms"] = floor_ms;
    state.counters["floor_fraction"] = floor_ms / ms;  // 1.0 = at the floor
    state.counters["copies_worth"] = timing::copies_worth(ms, copy->second);
  }
  state.SetLabel(std::string("sortlab stage 07 top-k (") +
                 (options.sorted ? "sorted" : "unsorted") + ", largest)");
}

/// "" for the automatic rule, else "/schedule:one" or "/schedule:multi", so that runs of a forced
/// schedule never share a name with the rule's rows.
std::string schedule_suffix(const Stage07Flags& flags) {
  switch (flags.schedule) {
    case stage07::TopkSchedule::kOneBlockPerRow:
      return "/schedule:one";
    case stage07::TopkSchedule::kBlocksPerRow:
      return "/schedule:multi";
    case stage07::TopkSchedule::kWarpPerRow:
      return "/schedule:warp";
    case stage07::TopkSchedule::kClusterPerRow:
      return "/schedule:cluster";
    default:
      return "";
  }
}

void register_all(const BenchConfig& config, const Stage07Flags& flags) {
  std::vector<ShapeRun> runs = shapes_of(flags.set);
  if (!flags.shapes.empty()) {
    runs.clear();
    for (const TopkShape& shape : flags.shapes) {
      if (flags.shapes_f32) runs.push_back({shape, false});
      if (flags.shapes_bf16) runs.push_back({shape, true});
    }
  }
  for (const ShapeRun& run : runs) {
    const TopkShape s = run.shape;
    const char* type = run.bf16 ? "bf16" : "f32";
    const std::size_t value_bytes = run.bf16 ? 2 : 4;
    const std::string key = input_name(type, s);
    // One copy row per input (several k share it), registered right before its first top-k.
    static std::map<std::string, bool> copied;
    if (!copied[key]) {
      copied[key] = true;
      const std::size_t n = s.rows * s.cols;
      register_timed("copy/" + key, [key, n, value_bytes, config](benchmark::State& state) {
        measure_input_copy(state, key, n * value_bytes, n, config);
      });
    }
    // Rows longer than one warp's limit cannot run that schedule (topk() refuses them).
    if (flags.schedule == stage07::TopkSchedule::kWarpPerRow && s.cols > stage07::kMaxWarpRowLength)
      continue;
    for (bool sorted : {true, false}) {
      if ((sorted && !flags.sorted) || (!sorted && !flags.unsorted)) continue;
      if (sorted && s.k > stage07::kMaxSortedK) continue;
      stage07::TopkOptions options;
      options.largest = true;
      options.sorted = sorted;
      options.schedule = flags.schedule;
      options.sample = flags.sample;
      options.cluster_blocks = flags.cluster_blocks;
      if (flags.blocks_per_row != 0)
        options.values_per_block = (s.cols + flags.blocks_per_row - 1) / flags.blocks_per_row;
      // A forced cluster schedule cannot take rows longer than a cluster holds.
      if (flags.schedule == stage07::TopkSchedule::kClusterPerRow &&
          !stage07::cluster_split(s.rows, s.cols, value_bytes, flags.cluster_blocks, 1)
               .cluster_per_row)
        continue;
      const std::string name =
          std::string(sorted ? "stage07-topk/" : "stage07-topk-unsorted/") + key +
          "/k:" + std::to_string(s.k) + schedule_suffix(flags) +
          (flags.cluster_blocks != 0 ? "/cluster:" + std::to_string(flags.cluster_blocks)
                                     : std::string()) +
          (flags.blocks_per_row != 0 ? "/blocks:" + std::to_string(flags.blocks_per_row)
                                     : std::string()) +
          (flags.sample == stage07::TopkSample::kOn    ? "/sample:1"
           : flags.sample == stage07::TopkSample::kOff ? "/sample:0"
                                                       : "") +
          (flags.input == InputKind::kAscending     ? "/input:ascending"
           : flags.input == InputKind::kFewDistinct ? "/input:few"
                                                    : "");
      register_timed(name, [key, s, options, config, bf16 = run.bf16,
                            input = flags.input](benchmark::State& state) {
        if (bf16)
          measure_topk<__nv_bfloat16>(state, key, s, options, config, input);
        else
          measure_topk<float>(state, key, s, options, config, input);
      });
    }
  }
}

}  // namespace
}  // namespace sortlab::bench

int main(int argc, char** argv) {
  using namespace sortlab::bench;
  Stage07Flags flags;
  try {
    flags = take_flags(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  return run_main(argc, argv, [&flags](const BenchConfig& config) {
    // The GPU, for results_table.py's page (bench_all records the same keys).
    benchmark::AddCustomContext("sortlab_gpu_name", sortlab::gpu_description());
    benchmark::AddCustomContext("sortlab_gpu_file_name", sortlab::gpu_file_name());
    register_all(config, flags);
  });
}
