/// \file
/// \brief `sortlab trace --stage 7` (see trace_topk.hpp).
#include "bench/sortlab/trace_topk.hpp"

#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>

#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/topk_model.hpp"

namespace sortlab::cli {
namespace {

/// A value as the trace prints it: integers as they are, floats in their shortest form.
template <typename T>
std::string value_text(T value) {
  std::ostringstream text;
  if constexpr (std::is_floating_point_v<T>)
    text << std::defaultfloat << value;
  else
    text << static_cast<long long>(value);
  return text.str();
}

/// Select bits in hexadecimal, as many digits as the type has.
template <typename Bits>
std::string bits_text(Bits bits) {
  std::ostringstream text;
  text << "0x" << std::hex << std::setw(static_cast<int>(2 * sizeof(Bits))) << std::setfill('0')
       << static_cast<unsigned long long>(bits);
  return text.str();
}

/// "(value @ column) ..." for a list of answers.
template <typename T>
std::string answers_text(const std::vector<T>& values, const std::vector<std::int64_t>& columns) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? " " : "") + value_text(values[i]) + "@" + std::to_string(columns[i]);
  return text;
}

/// The sample read of one block per row (sample_plan.hpp) on \p row: the plan, the bound, what
/// one read would keep, and whether the passes could then read only that.
template <typename T>
void trace_sample(const std::vector<T>& row, std::size_t k, bool largest, std::ostream& out) {
  using Bits = typename stage07::SelectKey<T>::Bits;
  const std::size_t capacity = stage07::kOneBlockListEntries;
  const stage07::SamplePlan plan = stage07::sample_plan(row.size(), k, 1, capacity, true);
  out << "\nsample (one block per row, sample_plan.hpp): ";
  if (!plan.enabled) {
    out << "none: "
        << (row.size() < std::size_t{stage07::kMinSamples} * stage07::kSampleStride
                ? "a row of fewer than " +
                      std::to_string(stage07::kMinSamples * stage07::kSampleStride) +
                      " values draws too few samples"
                : "the bound would keep more than half the " + std::to_string(capacity) +
                      "-entry list")
        << "; every pass below reads the row\n";
    return;
  }
  const auto [bound, at_or_above] = stage07::model_sample_bound(row, plan, largest);
  std::size_t kept = 0;
  for (const T& value : row)
    kept += stage07::SelectKey<T>::bits(value, largest) >= static_cast<Bits>(bound) ? 1 : 0;
  const double mu =
      static_cast<double>(plan.samples) * static_cast<double>(k) / static_cast<double>(row.size());
  out << plan.samples << " samples (one per stratum of " << row.size() / plan.samples
      << " values), mu = " << plan.samples << " x " << k << " / " << row.size() << " = " << mu
      << " expected above the k-th value; the bound is the sample's " << plan.rank
      << "th largest (r = ceil(mu + " << stage07::kBoundDeviations
      << " sqrt(mu) + 4)): select bits " << bits_text(static_cast<Bits>(bound)) << ", "
      << at_or_above << " samples at or above it\n";
  if (stage07::bound_predicts_overflow(at_or_above, plan.samples,
                                       static_cast<std::uint32_t>(row.size()),
                                       static_cast<std::uint32_t>(capacity))) {
    out << "  the sample predicts more than " << capacity
        << " values at or above the bound (ties): no read; every pass below reads the row\n";
    return;
  }
  out << "  one read keeps the " << kept << " values at or above the bound (about r x "
      << row.size() / plan.samples << " = " << plan.rank * (row.size() / plan.samples)
      << " expected); ";
  if (kept >= k && kept <= capacity)
    out << "at least k = " << k << " and within the list: the k-th value and every answer are "
        << "among them, so the kernel's passes count these " << kept
        << " values only (the passes below count the whole row and choose the same digits)\n";
  else
    out << (kept < k ? "fewer than k" : "more than the list holds")
        << ": the sample failed, and the passes read the row (the answer is the same)\n";
}

}  // namespace

template <typename T>
int trace_topk(const std::vector<T>& row, const TraceArgs& args, std::ostream& out) {
  using Bits = typename stage07::SelectKey<T>::Bits;
  const long long k = args.k.value_or(1);
  if (k < 1 || static_cast<std::size_t>(k) > row.size())
    throw UsageError("--k: stage 07 picks 1 to " + std::to_string(row.size()) +
                         " values of this row (its length), got " + std::to_string(k),
                     "trace");
  const bool largest = !args.smallest;
  out << "stage 07, top-k by radix select: the " << k << (largest ? " largest" : " smallest")
      << " of " << row.size() << " " << to_string(args.type)
      << " values, on the CPU model (the kernels run the same rules; the GPU tests compare them "
         "with it element for element)\n";
  out << "values:      ";
  for (std::size_t i = 0; i < row.size(); ++i) out << (i ? " " : "") << value_text(row[i]);
  out << "\nselect bits: ";
  for (std::size_t i = 0; i < row.size(); ++i)
    out << (i ? " " : "") << bits_text(stage07::SelectKey<T>::bits(row[i], largest));
  out << "\n(select bits order the values best first as unsigned integers: "
      << (largest ? "larger bits = larger value" : "larger bits = smaller value")
      << "; every NaN is the largest value)\n";

  trace_sample(row, static_cast<std::size_t>(k), largest, out);

  const stage07::SelectTrace<T> select =
      stage07::model_radix_select(row, static_cast<std::size_t>(k), largest);
  for (std::size_t p = 0; p < select.passes.size(); ++p) {
    const stage07::SelectPass& pass = select.passes[p];
    out << "\npass " << p << ": digit = bits " << pass.shift << ".."
        << pass.shift + stage07::kDigitBits - 1 << ", " << pass.candidates
        << " candidates (values whose higher digits match the prefix fixed so far)\n";
    out << "  histogram (digit: count, largest digit first, empty digits left out):";
    for (int digit = stage07::kNumDigits - 1; digit >= 0; --digit) {
      const std::uint64_t count = pass.histogram[static_cast<std::size_t>(digit)];
      if (count != 0) out << ' ' << digit << ':' << count;
    }
    out << "\n  walking down from digit 255: " << pass.above << " candidates lie above digit "
        << pass.digit << ", whose bucket holds the k-th\n"
        << "  chosen digit " << pass.digit << "; k " << pass.k_before << " -> " << pass.k_after
        << " (the rank of the k-th value inside that bucket)\n";
  }
  out << "\nk-th value: select bits " << bits_text<Bits>(select.kth_bits) << "; the answer takes "
      << select.beyond << " values better than it and " << select.equal_taken
      << " equal to it (the lowest columns first)\n";

  stage07::TopkOptions options;
  options.largest = largest;
  options.sorted = false;
  std::vector<T> values;
  std::vector<std::int64_t> columns;
  stage07::model_topk_row(row, static_cast<std::size_t>(k), options, values, columns);
  out << "gather (column order: better values, then equal ones): " << answers_text(values, columns)
      << '\n';
  // The sort step alone, on the gathered answers (as the kernels do), not a second select.
  stage07::model_sort_answers(largest, values, columns);
  out << "sorted (best first, ties by column):                    " << answers_text(values, columns)
      << '\n';

  std::vector<T> want_values;
  std::vector<std::int64_t> want_columns;
  stage07::reference_topk(row, 1, row.size(), static_cast<std::size_t>(k), largest, want_values,
                          want_columns);
  const std::string difference = stage07::compare_topk(
      want_values, want_columns, values, columns, 1, static_cast<std::size_t>(k), /*sorted=*/true);
  if (difference.empty()) {
    out << "result: equals the reference top-k\n";
    return kExitOk;
  }
  out << "result: NOT the reference top-k: " << difference << '\n';
  return kExitFailed;
}

template int trace_topk<std::uint32_t>(const std::vector<std::uint32_t>&, const TraceArgs&,
                                       std::ostream&);
template int trace_topk<std::int32_t>(const std::vector<std::int32_t>&, const TraceArgs&,
                                      std::ostream&);
template int trace_topk<float>(const std::vector<float>&, const TraceArgs&, std::ostream&);

}  // namespace sortlab::cli
