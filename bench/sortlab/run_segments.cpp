/// \file
/// \brief `sortlab run --stage 6` (see run_segments.hpp).
#include "bench/sortlab/run_segments.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/sortlab/run_command.hpp"
#include "bench/sortlab/run_topk.hpp"
#include "bench/sortlab/trace_segments.hpp"
#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "common/device_buffer.hpp"
#include "common/segments.hpp"

namespace sortlab::cli {
namespace {

/// The "segments" line's value: how many, where their sizes came from, the largest and how many
/// are empty (the two that decide which of the stage's kernels run).
std::string segments_text(const SegmentedRun& plan) {
  const std::size_t count = plan.offsets.size() - 1;
  std::size_t largest = 0, empty = 0;
  for (std::size_t s = 0; s < count; ++s) {
    const std::size_t size = plan.offsets[s + 1] - plan.offsets[s];
    largest = std::max(largest, size);
    if (size == 0) ++empty;
  }
  return std::to_string(count) + " (" + plan.origin + "; largest " + std::to_string(largest) +
         " keys, " + (empty == 0 ? std::string("none") : std::to_string(empty)) + " empty)";
}

template <typename Key>
int run_typed(const RunArgs& args, const SegmentedRun& plan, std::ostream& out) {
  const SortOptions options{args.begin_bit, args.end_bit, args.descending};
  const std::size_t n = plan.n;
  const std::size_t num_segments = plan.offsets.size() - 1;
  SortBuffers<Key> buffers(args, n);
  DeviceBuffer<std::uint32_t> offsets(plan.offsets);
  // The segments are contiguous, so segment s ends where s + 1 begins: one array serves as both
  // the begin and (shifted by one) the end offsets, as the stage's API allows.
  const std::uint32_t* begin_offsets = offsets.data();
  const std::uint32_t* end_offsets = offsets.data() + 1;
  auto sort = [&](void* temp, std::size_t& bytes) {
    if (args.pairs)
      stage06::sort_pairs<Key, std::uint32_t>(
          temp, bytes, buffers.keys_in.data(), buffers.keys_out.data(), buffers.values_in.data(),
          buffers.values_out.data(), n, num_segments, begin_offsets, end_offsets, options);
    else
      stage06::sort_keys<Key>(temp, bytes, buffers.keys_in.data(), buffers.keys_out.data(), n,
                              num_segments, begin_offsets, end_offsets, options);
  };
  const double median_ms = timed_median_ms(args.repeat, sort);

  const std::vector<Key> sorted = buffers.keys_out.download();
  const VerifyResult check =
      args.pairs ? verify_segmented_sort_pairs(buffers.keys, buffers.values, plan.offsets, sorted,
                                               buffers.values_out.download(), options)
                 : verify_segmented_sort_keys(buffers.keys, plan.offsets, sorted, options);

  print_run_header(out, segmented_stage(), "");
  print_field(out, "type", keys_text(args));
  print_field(out, "n", std::to_string(n));
  print_field(out, "segments", segments_text(plan));
  print_field(out, "distribution", distribution_text(args));
  print_field(out, "order", order_text(args) + ", every segment on its own");
  print_median_time(out, median_ms, args.repeat);
  print_field(out, "throughput",
              rate_text(static_cast<double>(n), median_ms, 1e9) + " G keys/s, " +
                  rate_text(static_cast<double>(num_segments), median_ms, 1e6) + " M segments/s");
  return report_verification(out, check);
}

}  // namespace

const StageEntry& segmented_stage() {
  static const StageEntry entry = named_stage(kSegmentedStage, "segmented_sort", stage06::kSummary,
                                              "chapters/06_segmented_sort");
  return entry;
}

std::string first_segment_flag(const RunArgs& args) {
  if (args.segments) return "--segments";
  if (args.segment_size) return "--segment-size";
  return "";
}

SegmentedRun plan_segmented_run(const RunArgs& args) {
  if (const std::string flag = first_topk_flag(args); !flag.empty())
    throw UsageError(flag +
                         " is for stage 7 (top-k); stage 6 sorts segments: give --segments "
                         "S,S,... or --segment-size L",
                     "run");
  check_tuning(segmented_stage(), args.tuning);
  if (args.segments && args.segment_size)
    throw UsageError("give --segments (the sizes) or --segment-size (one size for all), not both",
                     "run");
  SegmentedRun plan;
  plan.offsets.push_back(0);
  if (args.segments) {
    std::size_t total = 0;
    for (std::uint32_t size : *args.segments) total += size;
    if (total > kMaxRunCount)
      throw UsageError("--segments: the sizes add up to " + std::to_string(total) +
                           " keys, more than the maximum " + std::to_string(kMaxRunCount) +
                           " (2^30)",
                       "run");
    if (args.n_given && total != args.n)
      throw UsageError("--segments: the sizes add up to " + std::to_string(total) +
                           " keys but --n is " + std::to_string(args.n) +
                           " (the sum must equal n; leave --n out to sort " +
                           std::to_string(total) + " keys)",
                       "run");
    for (std::uint32_t size : *args.segments) plan.offsets.push_back(plan.offsets.back() + size);
    plan.n = total;
    plan.origin = "given with --segments";
    return plan;
  }
  const std::size_t size = args.segment_size.value_or(kDefaultSegmentSize);
  plan.n = args.n;
  // n <= 2^30, so every offset fits 32 bits.
  for (std::size_t begin = 0; begin < plan.n; begin += size)
    plan.offsets.push_back(static_cast<std::uint32_t>(std::min(plan.n, begin + size)));
  plan.origin = "--segment-size " + std::to_string(size) +
                (args.segment_size ? std::string() : std::string(", the default"));
  if (plan.n % size != 0 && plan.n > size)
    plan.origin += ", the last one " + std::to_string(plan.n % size) + " keys";
  return plan;
}

int run_segments(const RunArgs& args, const SegmentedRun& plan, std::ostream& out) {
  return with_key_type(args.type,
                       [&](auto key) { return run_typed<decltype(key)>(args, plan, out); });
}

}  // namespace sortlab::cli
