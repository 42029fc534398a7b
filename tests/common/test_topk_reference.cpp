/// \file
/// \brief Top-k harness: the reference picks the k best per row, the verifier accepts any valid
/// tie-breaking and catches planted errors.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/reference.hpp"
#include "common/topk_reference.hpp"

namespace sortlab {
namespace {

using Indices = std::vector<std::uint32_t>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

template <typename Key>
std::vector<std::uint64_t> raw_bits_of(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits;
  for (const Key& key : keys) bits.push_back(KeyTraits<Key>::raw_bits(key));
  return bits;
}

// Two rows of five: {3, 1, 4, 1, 5} and {9, 2, 6, 5, 3}.
const std::vector<int> kMatrix = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};

// ---------------------------------------------------------------------------------------------
// Reference.

TEST(TopkReference, LargestPerRow) {
  std::vector<int> values;
  Indices indices;
  reference_topk(kMatrix, 2, 5, 3, true, values, indices);
  EXPECT_EQ(values, (std::vector<int>{5, 4, 3, 9, 6, 5}));
  EXPECT_EQ(indices, (Indices{4, 2, 0, 0, 2, 3}));
}

TEST(TopkReference, SmallestPerRowTiesLowerIndexFirst) {
  std::vector<int> values;
  Indices indices;
  reference_topk(kMatrix, 2, 5, 3, false, values, indices);
  EXPECT_EQ(values, (std::vector<int>{1, 1, 3, 2, 3, 5}));
  EXPECT_EQ(indices, (Indices{1, 3, 0, 1, 4, 3}));
}

TEST(TopkReference, AllEqualRowTakesTheFirstColumns) {
  const std::vector<std::uint8_t> row(6, 42);
  std::vector<std::uint8_t> values;
  Indices indices;
  reference_topk(row, 1, 6, 3, true, values, indices);
  EXPECT_EQ(indices, (Indices{0, 1, 2}));
  reference_topk(row, 1, 6, 3, false, values, indices);
  EXPECT_EQ(indices, (Indices{0, 1, 2}));
  EXPECT_EQ(values, (std::vector<std::uint8_t>{42, 42, 42}));
}

TEST(TopkReference, KEqualToColsIsAFullStableSortAndKZeroIsEmpty) {
  std::vector<int> values;
  Indices indices;
  reference_topk(kMatrix, 2, 5, 5, false, values, indices);
  EXPECT_EQ(values, (std::vector<int>{1, 1, 3, 4, 5, 2, 3, 5, 6, 9}));
  EXPECT_EQ(indices, (Indices{1, 3, 0, 2, 4, 1, 4, 3, 2, 0}));
  reference_topk(kMatrix, 2, 5, 0, true, values, indices);
  EXPECT_TRUE(values.empty());
  EXPECT_TRUE(indices.empty());
  reference_topk(std::vector<int>{}, 0, 5, 2, true, values, indices);
  EXPECT_TRUE(values.empty());
}

TEST(TopkReference, FloatsUseTheSortOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Row 0: NaN (sign clear) is the largest value and -NaN the smallest.
  // Row 1: +0.0 and -0.0 tie, lower column first in both directions.
  const std::vector<float> input = {1.0f, nan, inf, -nan, -inf, 0.0f, -0.0f, -1.0f, 2.0f, 0.0f};
  std::vector<float> values;
  Indices indices;
  reference_topk(input, 2, 5, 2, true, values, indices);
  EXPECT_EQ(indices, (Indices{1, 2, 3, 0}));
  reference_topk(input, 2, 5, 2, false, values, indices);
  EXPECT_EQ(indices, (Indices{3, 4, 2, 0}));
  EXPECT_EQ(raw_bits_of(values),
            (std::vector<std::uint64_t>{0xFFC00000u, 0xFF800000u, 0xBF800000u, 0x00000000u}));
  reference_topk(input, 2, 5, 4, false, values, indices);
  EXPECT_EQ(Indices(indices.begin() + 4, indices.end()), (Indices{2, 0, 1, 4}));
}

template <typename Key>
void expect_matches_stable_sort(std::size_t rows, std::size_t cols, std::size_t k, bool largest,
                                Distribution distribution) {
  SCOPED_TRACE(to_string(distribution) + " rows=" + std::to_string(rows) +
               " cols=" + std::to_string(cols) + " k=" + std::to_string(k) +
               " largest=" + std::to_string(largest));
  const auto input = generate_keys<Key>(distribution, rows * cols, rows + cols + k);
  std::vector<Key> values;
  Indices indices;
  reference_topk(input, rows, cols, k, largest, values, indices);
  ASSERT_EQ(values.size(), rows * k);
  for (std::size_t row = 0; row < rows; ++row) {
    const std::vector<Key> row_keys(input.begin() + row * cols, input.begin() + (row + 1) * cols);
    std::vector<Key> sorted_keys;
    std::vector<std::uint32_t> sorted_columns;
    reference_sort_pairs(row_keys, iota_values(cols), sorted_keys, sorted_columns,
                         SortOptions{0, kAllBits, largest});
    for (std::size_t j = 0; j < k; ++j) {
      ASSERT_EQ(indices[row * k + j], sorted_columns[j]) << "row " << row << " rank " << j;
      ASSERT_EQ(KeyTraits<Key>::raw_bits(values[row * k + j]),
                KeyTraits<Key>::raw_bits(sorted_keys[j]));
    }
  }
}

TEST(TopkReference, MatchesTheFirstKOfAStableSort) {
  for (bool largest : {true, false}) {
    expect_matches_stable_sort<std::uint8_t>(7, 300, 17, largest, Distribution::kUniform);
    expect_matches_stable_sort<std::int32_t>(3, 1000, 100, largest, Distribution::kFewDistinct);
    expect_matches_stable_sort<float>(5, 257, 32, largest, Distribution::kFloatSpecials);
    expect_matches_stable_sort<double>(2, 64, 64, largest, Distribution::kUniform);
    expect_matches_stable_sort<__half>(4, 500, 9, largest, Distribution::kFloatSpecials);
    expect_matches_stable_sort<__nv_bfloat16>(4, 100, 1, largest, Distribution::kUniform);
  }
}

TEST(TopkReference, RejectsBadShapes) {
  std::vector<int> values;
  Indices indices;
  try {
    reference_topk(kMatrix, 2, 5, 6, true, values, indices);
    FAIL() << "k > cols accepted";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "k = 6")) << error.what();
    EXPECT_TRUE(contains(error.what(), "cols = 5")) << error.what();
  }
  EXPECT_THROW(reference_topk(kMatrix, 3, 5, 1, true, values, indices), Error);
  EXPECT_THROW(reference_topk(kMatrix, 2, 4, 1, true, values, indices), Error);
  EXPECT_THROW(
      reference_topk(kMatrix, std::numeric_limits<std::size_t>::max(), 5, 1, true, values, indices),
      Error);
}

// ---------------------------------------------------------------------------------------------
// Verifier.

TEST(TopkVerify, AcceptsTheReference) {
  for (bool largest : {true, false}) {
    const auto input = generate_keys<float>(Distribution::kFloatSpecials, 40 * 200, 9);
    std::vector<float> values;
    Indices indices;
    reference_topk(input, 40, 200, 25, largest, values, indices);
    const VerifyResult result = verify_topk(input, 40, 200, 25, largest, values, indices);
    EXPECT_TRUE(result.ok) << result.message;
  }
  std::vector<int> values;
  Indices indices;
  reference_topk(kMatrix, 2, 5, 0, true, values, indices);
  EXPECT_TRUE(verify_topk(kMatrix, 2, 5, 0, true, values, indices).ok);
}

TEST(TopkVerify, AcceptsAnyTieBreaking) {
  const std::vector<int> input = {7, 1, 7, 7};
  // Any two of the three 7s, in any order, are a right answer.
  EXPECT_TRUE(verify_topk(input, 1, 4, 2, true, std::vector<int>{7, 7}, Indices{3, 0}).ok);
  EXPECT_TRUE(verify_topk(input, 1, 4, 2, true, std::vector<int>{7, 7}, Indices{2, 3}).ok);
  // -0.0 and +0.0 tie: either column may be reported, with its own bits.
  const std::vector<float> zeros = {-0.0f, 0.0f, -1.0f};
  EXPECT_TRUE(verify_topk(zeros, 1, 3, 1, true, std::vector<float>{0.0f}, Indices{1}).ok);
  EXPECT_TRUE(verify_topk(zeros, 1, 3, 1, true, std::vector<float>{-0.0f}, Indices{0}).ok);
}

TEST(TopkVerify, CatchesAValueThatIsNotAmongTheBest) {
  // Largest 3 of row 1 are {9, 6, 5}; reporting 3 (column 4) at rank 2 is wrong.
  const VerifyResult result = verify_topk(
      kMatrix, 2, 5, 3, true, std::vector<int>{5, 4, 3, 9, 6, 3}, Indices{4, 2, 0, 0, 2, 4});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 5u);
  EXPECT_TRUE(contains(result.message, "row 1, rank 2")) << result.message;
}

TEST(TopkVerify, CatchesUnsortedValues) {
  const VerifyResult result = verify_topk(
      kMatrix, 2, 5, 3, true, std::vector<int>{4, 5, 3, 9, 6, 5}, Indices{2, 4, 0, 0, 2, 3});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 0u);
}

TEST(TopkVerify, CatchesIndexOutOfRange) {
  const VerifyResult result = verify_topk(
      kMatrix, 2, 5, 3, true, std::vector<int>{5, 4, 3, 9, 6, 5}, Indices{4, 2, 0, 0, 2, 5});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 5u);
  EXPECT_TRUE(contains(result.message, "not a column")) << result.message;
}

TEST(TopkVerify, CatchesDuplicateIndex) {
  const std::vector<int> input = {7, 7, 1};
  const VerifyResult result =
      verify_topk(input, 1, 3, 2, true, std::vector<int>{7, 7}, Indices{0, 0});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 1u);
  EXPECT_TRUE(contains(result.message, "already reported")) << result.message;
  // The same column in two different rows is fine.
  EXPECT_TRUE(verify_topk(std::vector<int>{7, 1, 7, 1}, 2, 2, 1, true, std::vector<int>{7, 7},
                          Indices{0, 0})
                  .ok);
}

TEST(TopkVerify, CatchesIndexPointingAtAnotherValue) {
  // Row 0's best two are 5 (column 4) and 4 (column 2); the indices are crossed.
  const VerifyResult crossed =
      verify_topk(kMatrix, 2, 5, 2, true, std::vector<int>{5, 4, 9, 6}, Indices{2, 4, 0, 2});
  EXPECT_FALSE(crossed.ok);
  EXPECT_EQ(crossed.first_bad_index, 0u);
  EXPECT_TRUE(contains(crossed.message, "column 2 holds")) << crossed.message;
  // Bitwise: +0.0 reported for the column that holds -0.0.
  const std::vector<float> zeros = {0.0f, -0.0f, -1.0f};
  const VerifyResult sign =
      verify_topk(zeros, 1, 3, 2, true, std::vector<float>{0.0f, 0.0f}, Indices{0, 1});
  EXPECT_FALSE(sign.ok);
  EXPECT_EQ(sign.first_bad_index, 1u);
}

TEST(TopkVerify, CatchesWrongDirectionAndWrongSizes) {
  std::vector<int> values;
  Indices indices;
  reference_topk(kMatrix, 2, 5, 3, true, values, indices);
  EXPECT_FALSE(verify_topk(kMatrix, 2, 5, 3, false, values, indices).ok);
  values.pop_back();
  const VerifyResult short_values = verify_topk(kMatrix, 2, 5, 3, true, values, indices);
  EXPECT_FALSE(short_values.ok);
  EXPECT_EQ(short_values.first_bad_index, 0u);
  EXPECT_THROW(verify_topk(kMatrix, 2, 5, 6, true, values, indices), Error);
  EXPECT_THROW(verify_topk(kMatrix, 1, 5, 3, true, values, indices), Error);
}

TEST(TopkVerify, ErrorInALaterRowIsReportedThere) {
  const auto input = generate_keys<std::uint32_t>(Distribution::kUniform, 10 * 50, 4);
  std::vector<std::uint32_t> values;
  Indices indices;
  reference_topk(input, 10, 50, 4, false, values, indices);
  auto wrong = indices;
  std::swap(wrong[7 * 4 + 1], wrong[7 * 4 + 2]);
  const VerifyResult result = verify_topk(input, 10, 50, 4, false, values, wrong);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 29u);
  EXPECT_TRUE(contains(result.message, "row 7, rank 1")) << result.message;
}

}  // namespace
}  // namespace sortlab
