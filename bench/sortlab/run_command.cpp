/// \file
/// \brief `sortlab run`: generate, sort on the GPU (warm-up + timed runs), verify, report.
#include "bench/sortlab/run_command.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/sortlab/run_segments.hpp"
#include "bench/sortlab/run_topk.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "bench/sortlab/trace_segments.hpp"
#include "bench/sortlab/trace_topk.hpp"
#include "common/cuda_timer.hpp"
#include "common/device_buffer.hpp"
#include "common/gpu_detect.hpp"
#include "common/report.hpp"
#include "common/verify.hpp"

namespace sortlab::cli {
namespace {

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (double{values[mid - 1]} + values[mid]);
}

template <typename Key>
int run_typed(const StageEntry& entry, const RunArgs& args, std::ostream& out) {
  const SortFunction<Key> sort = entry.functions<Key>().sort;
  const SortOptions options{args.begin_bit, args.end_bit, args.descending};

  SortBuffers<Key> buffers(args, args.n);
  const std::uint32_t* values_in_ptr = args.pairs ? buffers.values_in.data() : nullptr;
  std::uint32_t* values_out_ptr = args.pairs ? buffers.values_out.data() : nullptr;

  const double median_ms = timed_median_ms(args.repeat, [&](void* temp, std::size_t& bytes) {
    sort(temp, bytes, buffers.keys_in.data(), buffers.keys_out.data(), values_in_ptr,
         values_out_ptr, args.n, options, args.tuning);
  });

  const std::vector<Key> sorted = buffers.keys_out.download();
  const VerifyResult check = args.pairs
                                 ? verify_sorted_pairs(buffers.keys, buffers.values, sorted,
                                                       buffers.values_out.download(), options)
                                 : verify_sorted_keys(buffers.keys, sorted, options);

  print_run_header(out, entry, tuning_text(entry, args.tuning));
  print_field(out, "type", keys_text(args));
  print_field(out, "n", std::to_string(args.n));
  print_field(out, "distribution", distribution_text(args));
  print_field(out, "order", order_text(args));
  print_median_time(out, median_ms, args.repeat);
  print_field(out, "throughput",
              rate_text(static_cast<double>(args.n), median_ms, 1e9) + " G keys/s");
  return report_verification(out, check);
}

int no_gpu(std::ostream& err) {
  err << "sortlab run needs a CUDA GPU; `sortlab trace` works without one\n";
  return kExitNoGpu;
}

}  // namespace

int run_command(const RunArgs& args, std::ostream& out, std::ostream& err, bool gpu_present) {
  // Argument mistakes first, so they are reported the same way with or without a GPU. Stages 6
  // and 7 are not one-array sorts, so not in the registry: their plans check their own flags.
  if (args.stage == kSegmentedStage) {
    const SegmentedRun plan = plan_segmented_run(args);
    return gpu_present ? run_segments(args, plan, out) : no_gpu(err);
  }
  if (args.stage == kTopkStage) {
    const TopkRun plan = plan_topk_run(args);
    return gpu_present ? run_topk(args, plan, out) : no_gpu(err);
  }
  const StageEntry& entry = find_stage(args.stage);
  if (const std::string flag = first_segment_flag(args); !flag.empty())
    throw UsageError(flag + " is for stage 6 (segmented sort); " + stage_label(entry) +
                         " sorts the n keys as one array",
                     "run");
  if (const std::string flag = first_topk_flag(args); !flag.empty())
    throw UsageError(flag + " is for stage 7 (top-k); " + stage_label(entry) + " sorts every key",
                     "run");
  check_tuning(entry, args.tuning);
  if (!gpu_present) return no_gpu(err);
  return with_key_type(args.type,
                       [&](auto key) { return run_typed<decltype(key)>(entry, args, out); });
}

double timed_median_ms(int repeat, const std::function<void()>& run_once) {
  run_once();  // warm-up: first-launch costs (module load, caches) are not the stage's
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  CudaEventTimer timer;
  std::vector<float> times_ms;
  for (int r = 0; r < repeat; ++r) {
    timer.start();
    run_once();
    timer.stop();
    times_ms.push_back(timer.elapsed_ms());
  }
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return median(times_ms);
}

double timed_median_ms(int repeat,
                       const std::function<void(void* temp, std::size_t& temp_bytes)>& call) {
  std::size_t temp_bytes = 0;
  call(nullptr, temp_bytes);
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  return timed_median_ms(repeat, [&] { call(temp.data(), temp_bytes); });
}

void print_field(std::ostream& out, const std::string& label, const std::string& value) {
  out << label << std::string(label.size() < 14 ? 14 - label.size() : 1, ' ') << value << '\n';
}

void print_run_header(std::ostream& out, const StageEntry& entry, const std::string& config) {
  print_field(out, "stage", stage_label(entry) + ": " + entry.summary);
  if (!config.empty()) print_field(out, "config", config);
  print_field(out, "GPU", gpu_description());
}

std::string keys_text(const RunArgs& args) {
  return to_string(args.type) + (args.pairs ? " keys with u32 values (pairs)" : " keys");
}

std::string distribution_text(const RunArgs& args) {
  return to_string(args.distribution) + " (seed " + std::to_string(args.seed) + ")";
}

std::string order_text(const RunArgs& args) {
  return std::string(args.descending ? "descending" : "ascending") + ", bits [" +
         std::to_string(args.begin_bit) + ", " + std::to_string(args.end_bit) + ")";
}

std::string rate_text(double count, double median_ms, double unit) {
  return median_ms > 0 ? format_number(count / (median_ms * 1e-3) / unit, 4) : "-";
}

void print_median_time(std::ostream& out, double median_ms, int repeat) {
  print_field(out, "median time",
              format_number(median_ms, 4) + " ms (" + std::to_string(repeat) +
                  " timed runs after 1 warm-up, CUDA events)");
}

int report_verification(std::ostream& out, const VerifyResult& check) {
  if (check.ok) {
    out << "verified: OK\n";
    return kExitOk;
  }
  out << "verified: FAILED: " << check.message << '\n';
  return kExitFailed;
}

}  // namespace sortlab::cli
