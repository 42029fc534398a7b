/// \file
/// \brief Top-k harness: a CPU reference that picks the k best values of every row of a matrix,
/// and a verifier that accepts any valid tie-breaking.
///
/// The input is `rows x cols`, row-major. The outputs are `rows x k`, row-major: for every row the
/// k best values, best first, and the column each one came from. "Best" means largest (or
/// smallest) in the order of KeyTraits::to_ordered, the order every sortlab sort uses: -0.0 equals
/// +0.0, a NaN with the sign bit clear is larger than +inf and one with the sign bit set is
/// smaller than -inf.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/verify.hpp"

namespace sortlab {

namespace detail {

/// Throws sortlab::Error unless \p values_size is `rows * cols`, \p k <= \p cols and column
/// indices fit 32 bits.
/// \param caller function name for the message
/// \param values_size number of input values
/// \param rows rows of the input
/// \param cols columns of the input
/// \param k values to pick per row
inline void validate_topk_shape(const char* caller, std::size_t values_size, std::size_t rows,
                                std::size_t cols, std::size_t k) {
  const std::string name(caller);
  require(cols == 0 || rows <= std::numeric_limits<std::size_t>::max() / cols,
          name + ": rows * cols overflows");
  require(values_size == rows * cols, name + ": input has " + std::to_string(values_size) +
                                          " values but rows * cols = " + std::to_string(rows) +
                                          " * " + std::to_string(cols));
  require(k <= cols,
          name + ": k = " + std::to_string(k) + " is larger than cols = " + std::to_string(cols));
  require(cols <= std::size_t{std::numeric_limits<std::uint32_t>::max()} + 1,
          name + ": cols = " + std::to_string(cols) + " does not fit 32-bit column indices");
}

/// The rank bits of \p key: ascending order of these is best-first order.
/// \param key the value
/// \param largest true when larger values are better
template <typename Key>
typename KeyTraits<Key>::Bits topk_rank(Key key, bool largest) {
  return KeyTraits<Key>::to_ordered(key, largest);
}

}  // namespace detail

/// For every row of the `rows x cols` row-major \p values, the \p k best values, best first, and
/// their column indices; equal values are taken lower column first. Throws sortlab::Error when
/// the shape is inconsistent or \p k > \p cols.
/// \param values the input matrix, row-major
/// \param rows number of rows
/// \param cols number of columns
/// \param k how many values to pick per row (0 to cols)
/// \param largest true for the k largest values, false for the k smallest
/// \param out_values receives `rows x k` values, row-major
/// \param out_indices receives `rows x k` column indices, row-major
template <typename Key>
void reference_topk(const std::vector<Key>& values, std::size_t rows, std::size_t cols,
                    std::size_t k, bool largest, std::vector<Key>& out_values,
                    std::vector<std::uint32_t>& out_indices) {
  detail::validate_topk_shape("reference_topk", values.size(), rows, cols, k);
  out_values.resize(rows * k);
  out_indices.resize(rows * k);
  std::vector<std::uint32_t> columns(cols);
  for (std::size_t row = 0; row < rows; ++row) {
    const Key* row_values = values.data() + row * cols;
    std::iota(columns.begin(), columns.end(), std::uint32_t{0});
    // (rank, column) is a strict total order, so the partial sort's result is unique.
    std::partial_sort(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(k),
                      columns.end(), [row_values, largest](std::uint32_t a, std::uint32_t b) {
                        const auto rank_a = detail::topk_rank(row_values[a], largest);
                        const auto rank_b = detail::topk_rank(row_values[b], largest);
                        return rank_a != rank_b ? rank_a < rank_b : a < b;
                      });
    for (std::size_t j = 0; j < k; ++j) {
      out_values[row * k + j] = row_values[columns[j]];
      out_indices[row * k + j] = columns[j];
    }
  }
}

/// Checks a top-k result, accepting any tie-breaking: for every row the values must be the k best
/// values in best-first order (compared by ordered bits, so -0.0 and +0.0 may stand for each
/// other), every index must be a column, the indices of a row must be distinct, and the input
/// value at each index must equal the reported value bit for bit. On failure first_bad_index is
/// the first wrong position of the `rows x k` output and the message names row and rank. Throws
/// sortlab::Error when the input shape is inconsistent or \p k > \p cols.
/// \param input the input matrix, row-major
/// \param rows number of rows
/// \param cols number of columns
/// \param k values picked per row
/// \param largest true when the k largest were asked for, false for the k smallest
/// \param out_values the `rows x k` values to check
/// \param out_indices the `rows x k` column indices to check
template <typename Key>
VerifyResult verify_topk(const std::vector<Key>& input, std::size_t rows, std::size_t cols,
                         std::size_t k, bool largest, const std::vector<Key>& out_values,
                         const std::vector<std::uint32_t>& out_indices) {
  detail::validate_topk_shape("verify_topk", input.size(), rows, cols, k);
  if (out_values.size() != rows * k || out_indices.size() != rows * k)
    return detail::failure(0, "output has " + std::to_string(out_values.size()) + " values and " +
                                  std::to_string(out_indices.size()) + " indices, expected " +
                                  std::to_string(rows * k) + " (rows * k)");
  std::vector<Key> expected_values;
  std::vector<std::uint32_t> expected_indices;
  reference_topk(input, rows, cols, k, largest, expected_values, expected_indices);
  std::unordered_set<std::uint32_t> seen;
  for (std::size_t row = 0; row < rows; ++row) {
    seen.clear();
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t at = row * k + j;
      const Key value = out_values[at];
      const std::uint32_t index = out_indices[at];
      const std::string where = "row " + std::to_string(row) + ", rank " + std::to_string(j) +
                                " (output index " + std::to_string(at) + "): ";
      if (detail::topk_rank(value, largest) != detail::topk_rank(expected_values[at], largest))
        return detail::failure(at, where + "value " + detail::hex_bits(value) + " but the " +
                                       std::to_string(j) + "-th " +
                                       (largest ? "largest" : "smallest") + " value is " +
                                       detail::hex_bits(expected_values[at]));
      if (index >= cols)
        return detail::failure(at, where + "index " + std::to_string(index) +
                                       " is not a column (cols = " + std::to_string(cols) + ")");
      if (!seen.insert(index).second)
        return detail::failure(
            at, where + "index " + std::to_string(index) + " was already reported in this row");
      const Key at_index = input[row * cols + index];
      if (KeyTraits<Key>::raw_bits(at_index) != KeyTraits<Key>::raw_bits(value))
        return detail::failure(at, where + "value " + detail::hex_bits(value) + " but column " +
                                       std::to_string(index) + " holds " +
                                       detail::hex_bits(at_index));
    }
  }
  return {};
}

}  // namespace sortlab
