/// \file
/// \brief `sortlab run --stage 7` (see run_topk.hpp).
#include "bench/sortlab/run_topk.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "bench/sortlab/run_command.hpp"
#include "bench/sortlab/run_segments.hpp"
#include "bench/sortlab/trace_topk.hpp"
#include "chapters/07_topk/select_key.hpp"
#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_model.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"

namespace sortlab::cli {
namespace {

/// "1st", "2nd", "3rd", "4th", ..., "11th", "21st".
std::string ordinal(std::size_t rank) {
  const std::size_t tens = rank % 100, ones = rank % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return std::to_string(rank) + suffix;
}

template <typename T>
int run_typed(const RunArgs& args, const TopkRun& plan, std::ostream& out) {
  const std::size_t n = plan.rows * plan.row_length, answers = plan.rows * plan.k;
  const std::vector<T> input = generate_keys<T>(args.distribution, n, args.seed);
  DeviceBuffer<T> values_in(input), values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  stage07::TopkOptions options;
  options.largest = plan.largest;
  options.sorted = plan.sorted;
  auto topk = [&](void* temp, std::size_t& bytes) {
    stage07::topk<T>(temp, bytes, values_in.data(), plan.rows, plan.row_length, plan.k,
                     values_out.data(), indices_out.data(), options);
  };
  const double median_ms = timed_median_ms(args.repeat, topk);

  const VerifyResult check =
      verify_topk_rows(input, plan, values_out.download(), indices_out.download());
  print_run_header(out, topk_stage(), "");
  print_field(out, "type", to_string(args.type) + " values, int64 column indices");
  print_field(out, "n",
              std::to_string(n) + " (" + std::to_string(plan.rows) + " rows x " +
                  std::to_string(plan.row_length) + " values)");
  print_field(out, "k",
              std::to_string(plan.k) + (plan.largest ? " largest" : " smallest") + " per row, " +
                  (plan.sorted ? "sorted (best first)" : "unsorted (--sorted to sort)"));
  print_field(out, "distribution", distribution_text(args));
  print_median_time(out, median_ms, args.repeat);
  // The input is the work: k answers per row are few beside it, so values/s compares with a
  // sort's keys/s, and rows/s is what a batch of requests sees.
  print_field(out, "throughput",
              rate_text(static_cast<double>(n), median_ms, 1e9) + " G values/s, " +
                  rate_text(static_cast<double>(plan.rows), median_ms, 1e6) + " M rows/s");
  return report_verification(out, check);
}

}  // namespace

const StageEntry& topk_stage() {
  static const StageEntry entry =
      named_stage(kTopkStage, "topk", stage07::kSummary, "chapters/07_topk");
  return entry;
}

std::string first_topk_flag(const RunArgs& args) {
  if (args.rows) return "--rows";
  if (args.row_length) return "--row-length";
  if (args.k) return "--k";
  if (args.smallest) return "--smallest";
  if (args.sorted) return "--sorted";
  return "";
}

TopkRun plan_topk_run(const RunArgs& args) {
  if (const std::string flag = first_segment_flag(args); !flag.empty())
    throw UsageError(flag +
                         " is for stage 6 (segmented sort); stage 7 picks from the rows of a "
                         "--rows x --row-length matrix",
                     "run");
  if (args.n_given)
    throw UsageError("--n: stage 7's n is --rows x --row-length (default " +
                         std::to_string(kDefaultTopkRows) + " x " +
                         std::to_string(kDefaultTopkRowLength) + "); give those instead",
                     "run");
  if (args.pairs)
    throw UsageError("--pairs is for the sorts: stage 7 returns each answer's column itself",
                     "run");
  if (args.descending)
    throw UsageError(
        "--descending is for the sorts: stage 7 picks the k largest, or the k "
        "smallest with --smallest",
        "run");
  if (args.begin_bit != RunArgs{}.begin_bit || args.end_bit != RunArgs{}.end_bit)
    throw UsageError("--begin-bit and --end-bit are for the sorts: stage 7 compares whole values",
                     "run");
  check_tuning(topk_stage(), args.tuning);
  TopkRun plan;
  plan.rows = args.rows.value_or(kDefaultTopkRows);
  plan.row_length = args.row_length.value_or(kDefaultTopkRowLength);
  // Each is at most 2^30, so the product cannot overflow.
  if (plan.rows * plan.row_length > kMaxRunCount)
    throw UsageError(
        "--rows x --row-length: " + std::to_string(plan.rows) + " x " +
            std::to_string(plan.row_length) + " = " + std::to_string(plan.rows * plan.row_length) +
            " values, more than the maximum " + std::to_string(kMaxRunCount) + " (2^30)",
        "run");
  const long long k =
      args.k.value_or(static_cast<long long>(std::min(kDefaultTopkK, plan.row_length)));
  if (k < 1 || static_cast<std::size_t>(k) > plan.row_length)
    throw UsageError("--k: stage 07 picks 1 to " + std::to_string(plan.row_length) +
                         " values per row (the row length), got " + std::to_string(k),
                     "run");
  plan.k = static_cast<std::size_t>(k);
  plan.largest = !args.smallest;
  plan.sorted = args.sorted;
  if (plan.sorted && plan.k > stage07::kMaxSortedK)
    throw UsageError("--sorted: stage 07 sorts at most " + std::to_string(stage07::kMaxSortedK) +
                         " answers per row (one tile of stage 05's block sort), got --k " +
                         std::to_string(plan.k) + "; leave out --sorted or pick fewer",
                     "run");
  return plan;
}

int run_topk(const RunArgs& args, const TopkRun& plan, std::ostream& out) {
  return with_key_type(args.type,
                       [&](auto value) { return run_typed<decltype(value)>(args, plan, out); });
}

template <typename T>
VerifyResult verify_topk_rows(const std::vector<T>& input, const TopkRun& shape,
                              const std::vector<T>& values,
                              const std::vector<std::int64_t>& indices) {
  using Bits = typename stage07::SelectKey<T>::Bits;
  const std::size_t rows = shape.rows, length = shape.row_length, k = shape.k;
  if (input.size() != rows * length)
    return detail::failure(0, "input has " + std::to_string(input.size()) +
                                  " values, rows x row length is " + std::to_string(rows * length));
  if (values.size() != rows * k || indices.size() != rows * k)
    return detail::failure(0, "output has " + std::to_string(values.size()) + " values and " +
                                  std::to_string(indices.size()) + " indices, rows x k is " +
                                  std::to_string(rows * k));
  const auto select_bits = [&shape](T value) {
    return stage07::SelectKey<T>::bits(value, shape.largest);
  };
  const std::string best = shape.largest ? "largest" : "smallest";
  std::vector<T> best_values;
  std::vector<std::int64_t> best_columns;
  stage07::reference_topk(input, rows, length, k, shape.largest, best_values, best_columns);
  std::vector<bool> taken(length, false);
  std::vector<std::size_t> ranked(k);
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = input.data() + r * length;
    const std::size_t first = r * k;
    VerifyResult answers;
    for (std::size_t j = 0; j < k && answers.ok; ++j) {
      const std::size_t at = first + j;
      const std::int64_t column = indices[at];
      const std::string where = "row " + std::to_string(r) + ", answer " + std::to_string(j) +
                                " (output index " + std::to_string(at) + "): ";
      if (column < 0 || static_cast<std::uint64_t>(column) >= length) {
        answers =
            detail::failure(at, where + "index " + std::to_string(column) +
                                    " is not a column (row length " + std::to_string(length) + ")");
        continue;
      }
      const std::size_t c = static_cast<std::size_t>(column);
      if (taken[c]) {
        answers = detail::failure(
            at, where + "column " + std::to_string(c) + " was already returned for this row");
        continue;
      }
      taken[c] = true;
      if (KeyTraits<T>::raw_bits(row[c]) != KeyTraits<T>::raw_bits(values[at]))
        answers =
            detail::failure(at, where + "value " + detail::key_text(values[at]) + ", but column " +
                                    std::to_string(c) + " holds " + detail::key_text(row[c]));
      else if (shape.sorted && j > 0 && select_bits(values[at - 1]) < select_bits(values[at]))
        answers = detail::failure(
            at, where + "not best first (--sorted): " + detail::key_text(values[at]) + " after " +
                    detail::key_text(values[at - 1]));
    }
    for (std::size_t j = 0; j < k; ++j)  // clear the row's marks: O(k), not O(row length)
      if (indices[first + j] >= 0 && static_cast<std::uint64_t>(indices[first + j]) < length)
        taken[static_cast<std::size_t>(indices[first + j])] = false;
    if (!answers) return answers;
    // As multisets of select bits, so ties at the k-th value may come from any column and every
    // NaN counts as the same, largest value. The reference lists its answers best first.
    std::iota(ranked.begin(), ranked.end(), std::size_t{0});
    std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
      return select_bits(values[first + a]) > select_bits(values[first + b]);
    });
    for (std::size_t j = 0; j < k; ++j) {
      const T got = values[first + ranked[j]];
      const T want = best_values[first + j];
      const Bits got_bits = select_bits(got), want_bits = select_bits(want);
      if (got_bits != want_bits)
        return detail::failure(
            first + ranked[j],
            "row " + std::to_string(r) + ": the answers are not the " + std::to_string(k) + " " +
                best + " values of the row: its " + ordinal(j + 1) + " " + best + " answer is " +
                detail::key_text(got) + " at column " + std::to_string(indices[first + ranked[j]]) +
                ", but the row's " + ordinal(j + 1) + " " + best + " value is " +
                detail::key_text(want) + " (at column " + std::to_string(best_columns[first + j]) +
                ")");
    }
  }
  return {};
}

template VerifyResult verify_topk_rows<std::uint32_t>(const std::vector<std::uint32_t>&,
                                                      const TopkRun&,
                                                      const std::vector<std::uint32_t>&,
                                                      const std::vector<std::int64_t>&);
template VerifyResult verify_topk_rows<std::int32_t>(const std::vector<std::int32_t>&,
                                                     const TopkRun&,
                                                     const std::vector<std::int32_t>&,
                                                     const std::vector<std::int64_t>&);
template VerifyResult verify_topk_rows<float>(const std::vector<float>&, const TopkRun&,
                                              const std::vector<float>&,
                                              const std::vector<std::int64_t>&);

}  // namespace sortlab::cli
