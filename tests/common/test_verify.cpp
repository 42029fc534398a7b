/// \file
/// \brief The verifiers: they accept right outputs and catch every planted error at the right
/// index.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"
#include "common/verify.hpp"

namespace sortlab {
namespace {

bool mentions(const VerifyResult& result, const std::string& text) {
  return result.message.find(text) != std::string::npos;
}

constexpr SortOptions kDescending{0, kAllBits, true};

// ---------------------------------------------------------------------------------------------
// Right outputs pass.

template <typename Key>
void expect_reference_accepted(Distribution distribution, const SortOptions& options) {
  SCOPED_TRACE(to_string(distribution) + " begin_bit=" + std::to_string(options.begin_bit) +
               " end_bit=" + std::to_string(options.end_bit) +
               " descending=" + std::to_string(options.descending));
  const auto keys = generate_keys<Key>(distribution, 3001, 42);
  const auto values = iota_values(keys.size());
  const VerifyResult keys_result =
      verify_sorted_keys(keys, reference_sort_keys(keys, options), options);
  EXPECT_TRUE(keys_result.ok) << keys_result.message;
  EXPECT_TRUE(static_cast<bool>(keys_result));
  std::vector<Key> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  reference_sort_pairs(keys, values, sorted_keys, sorted_values, options);
  const VerifyResult pairs_result =
      verify_sorted_pairs(keys, values, sorted_keys, sorted_values, options);
  EXPECT_TRUE(pairs_result.ok) << pairs_result.message;
}

TEST(VerifyAccepts, ReferenceOutputForEveryDistributionAndOption) {
  const SortOptions option_sets[] = {{}, kDescending, {0, 4, false}, {3, 7, true}, {5, 5, false}};
  for (const SortOptions& options : option_sets)
    for (Distribution distribution : all_distributions()) {
      expect_reference_accepted<std::uint32_t>(distribution, options);
      expect_reference_accepted<std::int64_t>(distribution, options);
      expect_reference_accepted<float>(distribution, options);
      expect_reference_accepted<__half>(distribution, options);
      expect_reference_accepted<std::uint8_t>(distribution, options);
    }
}

TEST(VerifyAccepts, EmptyAndSingle) {
  EXPECT_TRUE(verify_sorted_keys(std::vector<int>{}, std::vector<int>{}).ok);
  EXPECT_TRUE(verify_sorted_keys(std::vector<int>{7}, std::vector<int>{7}).ok);
  EXPECT_TRUE(verify_sorted_pairs(std::vector<int>{7}, std::vector<std::uint32_t>{0},
                                  std::vector<int>{7}, std::vector<std::uint32_t>{0})
                  .ok);
}

TEST(VerifyAccepts, EqualFloatZerosInEitherOrderForKeysOnly) {
  // -0.0 and +0.0 are equal keys: either order is sorted, and both bit patterns are present.
  const std::vector<float> input = {-0.0f, 0.0f};
  EXPECT_TRUE(verify_sorted_keys(input, std::vector<float>{0.0f, -0.0f}).ok);
  EXPECT_TRUE(verify_sorted_keys(input, std::vector<float>{-0.0f, 0.0f}).ok);
  // ...but the permutation check compares bits: two +0.0 are not a -0.0 and a +0.0.
  const VerifyResult result = verify_sorted_keys(input, std::vector<float>{0.0f, 0.0f});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 1u);
}

// ---------------------------------------------------------------------------------------------
// Keys: planted errors.

TEST(VerifyKeys, CatchesSwappedAdjacentPair) {
  const auto keys = generate_keys<std::uint32_t>(Distribution::kUniform, 1000, 3);
  auto output = reference_sort_keys(keys);
  ASSERT_NE(output[500], output[501]);
  std::swap(output[500], output[501]);
  const VerifyResult result = verify_sorted_keys(keys, output);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(static_cast<bool>(result));
  EXPECT_EQ(result.first_bad_index, 501u);
  EXPECT_TRUE(mentions(result, "not sorted at index 501")) << result.message;
}

TEST(VerifyKeys, CatchesDuplicatedKeyReplacingAnother) {
  // Sorted, but 5 was overwritten by a second 3: not a permutation.
  const std::vector<int> input = {5, 3, 9, 1};
  const VerifyResult result = verify_sorted_keys(input, std::vector<int>{1, 3, 3, 9});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 2u);
  EXPECT_TRUE(mentions(result, "not a permutation")) << result.message;

  const auto keys = generate_keys<std::int64_t>(Distribution::kUniform, 1000, 4);
  auto output = reference_sort_keys(keys);
  output[700] = output[699];
  const VerifyResult large = verify_sorted_keys(keys, output);
  EXPECT_FALSE(large.ok);
  EXPECT_EQ(large.first_bad_index, 700u);
}

TEST(VerifyKeys, CatchesAllEqualOutputOfTheMinimum) {
  const std::vector<std::int32_t> input = {4, 2, 8, 6};
  const VerifyResult result = verify_sorted_keys(input, std::vector<std::int32_t>{2, 2, 2, 2});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 1u);
}

TEST(VerifyKeys, CatchesAllZeroAndPoisonedOutput) {
  const std::vector<std::uint32_t> no_zero = {7, 3, 9};
  const VerifyResult zeros = verify_sorted_keys(no_zero, std::vector<std::uint32_t>(3, 0));
  EXPECT_FALSE(zeros.ok);
  EXPECT_EQ(zeros.first_bad_index, 0u);
  // With one zero in the input, the second zero is the first wrong element.
  const std::vector<std::uint32_t> one_zero = {0, 7, 3};
  const VerifyResult some = verify_sorted_keys(one_zero, std::vector<std::uint32_t>(3, 0));
  EXPECT_FALSE(some.ok);
  EXPECT_EQ(some.first_bad_index, 1u);
  // An output the sort never wrote still holds the test's poison bytes.
  const auto keys = generate_keys<std::uint32_t>(Distribution::kUniform, 100, 5);
  const VerifyResult poisoned =
      verify_sorted_keys(keys, std::vector<std::uint32_t>(100, 0xA5A5A5A5u));
  EXPECT_FALSE(poisoned.ok);
  EXPECT_EQ(poisoned.first_bad_index, 0u);
}

TEST(VerifyKeys, CatchesWrongSize) {
  const std::vector<int> input = {1, 2, 3};
  const VerifyResult shorter = verify_sorted_keys(input, std::vector<int>{1, 2});
  EXPECT_FALSE(shorter.ok);
  EXPECT_EQ(shorter.first_bad_index, 0u);
  EXPECT_FALSE(verify_sorted_keys(input, std::vector<int>{1, 2, 3, 3}).ok);
}

TEST(VerifyKeys, SixtyFourBitKeysAreComparedOnAllBits) {
  const std::uint64_t big = std::uint64_t{1} << 40;
  const std::vector<std::uint64_t> input = {5, big};
  const VerifyResult result = verify_sorted_keys(input, std::vector<std::uint64_t>{big, 5});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 1u);
  const VerifyResult doubles =
      verify_sorted_keys(std::vector<double>{1.0, 2.0}, std::vector<double>{2.0, 1.0});
  EXPECT_FALSE(doubles.ok);
}

TEST(VerifyKeys, NanAndInfinityPlacement) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> input = {nan, 1.0f, -inf};
  EXPECT_TRUE(verify_sorted_keys(input, std::vector<float>{-inf, 1.0f, nan}).ok);
  const VerifyResult nan_first = verify_sorted_keys(input, std::vector<float>{nan, -inf, 1.0f});
  EXPECT_FALSE(nan_first.ok);
  EXPECT_EQ(nan_first.first_bad_index, 1u);
}

TEST(VerifyKeys, BitRangesDecideWhatSortedMeans) {
  // Sorted by all bits, but not by the low nibble (3 then 1).
  const std::vector<std::uint32_t> input = {0x13, 0x02, 0x21};
  const SortOptions low_nibble{0, 4, false};
  EXPECT_TRUE(
      verify_sorted_keys(input, std::vector<std::uint32_t>{0x21, 0x02, 0x13}, low_nibble).ok);
  const VerifyResult full_order =
      verify_sorted_keys(input, std::vector<std::uint32_t>{0x02, 0x13, 0x21}, low_nibble);
  EXPECT_FALSE(full_order.ok);
  EXPECT_EQ(full_order.first_bad_index, 2u);
  // Keys equal in the range may come in any order for a keys-only sort.
  const std::vector<std::uint32_t> ties = {0x31, 0x11, 0x21};
  EXPECT_TRUE(
      verify_sorted_keys(ties, std::vector<std::uint32_t>{0x11, 0x21, 0x31}, low_nibble).ok);
}

TEST(VerifyKeys, Descending) {
  const std::vector<std::int16_t> input = {3, -7, 12, 0};
  EXPECT_TRUE(verify_sorted_keys(input, std::vector<std::int16_t>{12, 3, 0, -7}, kDescending).ok);
  const VerifyResult ascending =
      verify_sorted_keys(input, std::vector<std::int16_t>{-7, 0, 3, 12}, kDescending);
  EXPECT_FALSE(ascending.ok);
  EXPECT_EQ(ascending.first_bad_index, 1u);
  const VerifyResult late =
      verify_sorted_keys(input, std::vector<std::int16_t>{12, 3, -7, 0}, kDescending);
  EXPECT_FALSE(late.ok);
  EXPECT_EQ(late.first_bad_index, 3u);
}

// ---------------------------------------------------------------------------------------------
// Pairs: planted errors.

TEST(VerifyPairs, CatchesBrokenStability) {
  // Stable order of keys {2, 1, 2, 1} with values 0..3: keys {1, 1, 2, 2}, values {1, 3, 0, 2}.
  const std::vector<std::uint32_t> keys = {2, 1, 2, 1};
  const std::vector<std::uint32_t> values = {0, 1, 2, 3};
  const std::vector<std::uint32_t> sorted_keys = {1, 1, 2, 2};
  EXPECT_TRUE(
      verify_sorted_pairs(keys, values, sorted_keys, std::vector<std::uint32_t>{1, 3, 0, 2}).ok);
  const VerifyResult first_tie =
      verify_sorted_pairs(keys, values, sorted_keys, std::vector<std::uint32_t>{3, 1, 0, 2});
  EXPECT_FALSE(first_tie.ok);
  EXPECT_EQ(first_tie.first_bad_index, 0u);
  EXPECT_TRUE(mentions(first_tie, "pair at index 0")) << first_tie.message;
  const VerifyResult second_tie =
      verify_sorted_pairs(keys, values, sorted_keys, std::vector<std::uint32_t>{1, 3, 2, 0});
  EXPECT_FALSE(second_tie.ok);
  EXPECT_EQ(second_tie.first_bad_index, 2u);
}

TEST(VerifyPairs, CatchesValueNotTravellingWithItsKey) {
  const auto keys = generate_keys<float>(Distribution::kUniform, 2000, 8);
  const auto values = iota_values(keys.size());
  std::vector<float> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  reference_sort_pairs(keys, values, sorted_keys, sorted_values);
  auto wrong = sorted_values;
  wrong[1234] = 99999;  // a value no key has
  VerifyResult result = verify_sorted_pairs(keys, values, sorted_keys, wrong);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 1234u);
  wrong = sorted_values;
  std::swap(wrong[10], wrong[1500]);  // keys stayed, values crossed over
  result = verify_sorted_pairs(keys, values, sorted_keys, wrong);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 10u);
}

TEST(VerifyPairs, KeyErrorsAreReportedFirst) {
  const std::vector<int> keys = {3, 1, 2};
  const std::vector<std::uint32_t> values = {0, 1, 2};
  const VerifyResult result = verify_sorted_pairs(keys, values, std::vector<int>{1, 3, 2},
                                                  std::vector<std::uint32_t>{1, 0, 2});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 2u);
  EXPECT_TRUE(mentions(result, "not sorted")) << result.message;
}

TEST(VerifyPairs, CatchesSizeMismatch) {
  const std::vector<int> keys = {1, 2};
  const std::vector<std::uint32_t> values = {0, 1};
  EXPECT_FALSE(verify_sorted_pairs(keys, values, keys, std::vector<std::uint32_t>{0}).ok);
  EXPECT_FALSE(verify_sorted_pairs(keys, std::vector<std::uint32_t>{0}, keys, values).ok);
}

TEST(VerifyPairs, StabilityUnderBitRange) {
  // All three keys tie in the low nibble: a keys-only sort may reorder them, a pair sort may not.
  const std::vector<std::uint32_t> keys = {0x31, 0x11, 0x21};
  const std::vector<std::uint32_t> values = {0, 1, 2};
  const SortOptions low_nibble{0, 4, false};
  EXPECT_TRUE(verify_sorted_pairs(keys, values, keys, values, low_nibble).ok);
  const VerifyResult reordered =
      verify_sorted_pairs(keys, values, std::vector<std::uint32_t>{0x11, 0x21, 0x31},
                          std::vector<std::uint32_t>{1, 2, 0}, low_nibble);
  EXPECT_FALSE(reordered.ok);
  EXPECT_EQ(reordered.first_bad_index, 0u);
}

TEST(VerifyPairs, DescendingStability) {
  // Stable descending order of {1, 2, 1, 2}: keys {2, 2, 1, 1}, values {1, 3, 0, 2}.
  const std::vector<std::uint8_t> keys = {1, 2, 1, 2};
  const std::vector<std::uint32_t> values = {0, 1, 2, 3};
  const std::vector<std::uint8_t> sorted_keys = {2, 2, 1, 1};
  EXPECT_TRUE(verify_sorted_pairs(keys, values, sorted_keys, std::vector<std::uint32_t>{1, 3, 0, 2},
                                  kDescending)
                  .ok);
  const VerifyResult swapped = verify_sorted_pairs(
      keys, values, sorted_keys, std::vector<std::uint32_t>{1, 3, 2, 0}, kDescending);
  EXPECT_FALSE(swapped.ok);
  EXPECT_EQ(swapped.first_bad_index, 2u);
}

TEST(VerifyPairs, FloatZerosMustKeepInputOrder) {
  const std::vector<float> keys = {-0.0f, 0.0f};
  const std::vector<std::uint32_t> values = {0, 1};
  EXPECT_TRUE(verify_sorted_pairs(keys, values, keys, values).ok);
  const VerifyResult swapped = verify_sorted_pairs(keys, values, std::vector<float>{0.0f, -0.0f},
                                                   std::vector<std::uint32_t>{1, 0});
  EXPECT_FALSE(swapped.ok);
  EXPECT_EQ(swapped.first_bad_index, 0u);
}

// ---------------------------------------------------------------------------------------------
// Stability of keys-only sorts: equal sort bits, different bit patterns.

TEST(VerifyStableKeys, AcceptsTheStableReference) {
  for (const SortOptions& options : {SortOptions{}, SortOptions{0, 4, false}, kDescending}) {
    const auto keys = generate_keys<float>(Distribution::kFloatSpecials, 2000, 7);
    const VerifyResult result =
        verify_stably_sorted_keys(keys, reference_sort_keys(keys, options), options);
    EXPECT_TRUE(result.ok) << result.message;
  }
}

TEST(VerifyStableKeys, CatchesZerosOutOfInputOrder) {
  const std::vector<float> keys = {-0.0f, 1.0f, 0.0f};
  const std::vector<float> swapped = {0.0f, -0.0f, 1.0f};  // sorted, but +0 jumped ahead of -0
  EXPECT_TRUE(verify_sorted_keys(keys, swapped).ok);       // order and permutation hold
  const VerifyResult result = verify_stably_sorted_keys(keys, swapped);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 0u);
  EXPECT_TRUE(mentions(result, "input order")) << result.message;
}

TEST(VerifyStableKeys, CatchesInstabilityInsideABitWindow) {
  // Sorting on the low nibble only: 0x10 and 0x20 tie and must keep input order.
  const std::vector<std::uint32_t> keys = {0x20, 0x13, 0x10};
  const SortOptions low_nibble{0, 4, false};
  const std::vector<std::uint32_t> unstable = {0x10, 0x20, 0x13};
  EXPECT_TRUE(verify_sorted_keys(keys, unstable, low_nibble).ok);
  const VerifyResult result = verify_stably_sorted_keys(keys, unstable, low_nibble);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 0u);
  EXPECT_TRUE(verify_stably_sorted_keys(keys, {0x20, 0x10, 0x13}, low_nibble).ok);
}

}  // namespace
}  // namespace sortlab
