/// \file
/// \brief Segmented-sort harness: offset generators, the segmented reference and its verifiers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/reference.hpp"
#include "common/segments.hpp"

namespace sortlab {
namespace {

using Offsets = std::vector<std::uint32_t>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::size_t> sizes_of(const Offsets& offsets) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) sizes.push_back(offsets[s + 1] - offsets[s]);
  return sizes;
}

std::size_t count_empty(const Offsets& offsets) {
  const auto sizes = sizes_of(offsets);
  return static_cast<std::size_t>(std::count(sizes.begin(), sizes.end(), std::size_t{0}));
}

// ---------------------------------------------------------------------------------------------
// Names.

TEST(SegmentShapeNames, RoundTripAndReject) {
  EXPECT_EQ(all_segment_shapes(),
            (std::vector<SegmentShape>{SegmentShape::kEqual, SegmentShape::kRandom,
                                       SegmentShape::kPowerLaw}));
  EXPECT_EQ(to_string(SegmentShape::kEqual), "equal");
  EXPECT_EQ(to_string(SegmentShape::kRandom), "random");
  EXPECT_EQ(to_string(SegmentShape::kPowerLaw), "powerlaw");
  for (SegmentShape shape : all_segment_shapes())
    EXPECT_EQ(parse_segment_shape(to_string(shape)), shape);
  try {
    parse_segment_shape("zipf");
    FAIL() << "parse_segment_shape accepted 'zipf'";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "'zipf'")) << error.what();
    EXPECT_TRUE(contains(error.what(), "powerlaw")) << error.what();
  }
  EXPECT_THROW(parse_segment_shape(""), Error);
}

// ---------------------------------------------------------------------------------------------
// Offsets.

TEST(SegmentOffsets, WellFormedForEveryShapeAndSize) {
  const std::pair<std::size_t, std::size_t> cases[] = {
      {0, 1},     {0, 5},   {1, 1},       {1, 7},         {10, 3},      {1000, 1},
      {1000, 37}, {5, 100}, {4096, 4096}, {100000, 1000}, {1u << 20, 3}};
  for (SegmentShape shape : all_segment_shapes())
    for (const auto& [items, segments] : cases) {
      SCOPED_TRACE(to_string(shape) + " items=" + std::to_string(items) +
                   " segments=" + std::to_string(segments));
      const Offsets offsets = generate_segment_offsets(items, segments, shape, 99);
      ASSERT_EQ(offsets.size(), segments + 1);
      EXPECT_EQ(offsets.front(), 0u);
      EXPECT_EQ(offsets.back(), items);
      EXPECT_TRUE(std::is_sorted(offsets.begin(), offsets.end()));
      EXPECT_NO_THROW(validate_segment_offsets(offsets, items));
    }
}

TEST(SegmentOffsets, SameSeedSameOffsetsDifferentSeedDifferent) {
  for (SegmentShape shape : all_segment_shapes()) {
    SCOPED_TRACE(to_string(shape));
    const Offsets a = generate_segment_offsets(100000, 500, shape, 1);
    EXPECT_EQ(a, generate_segment_offsets(100000, 500, shape, 1));
    if (shape == SegmentShape::kEqual) {
      EXPECT_EQ(a, generate_segment_offsets(100000, 500, shape, 2));  // the seed is not used
    } else {
      EXPECT_NE(a, generate_segment_offsets(100000, 500, shape, 2));
    }
  }
}

TEST(SegmentOffsets, EqualSizesDifferByAtMostOne) {
  EXPECT_EQ(generate_segment_offsets(10, 3, SegmentShape::kEqual, 0), (Offsets{0, 4, 7, 10}));
  EXPECT_EQ(generate_segment_offsets(9, 3, SegmentShape::kEqual, 0), (Offsets{0, 3, 6, 9}));
  EXPECT_EQ(generate_segment_offsets(2, 4, SegmentShape::kEqual, 0), (Offsets{0, 1, 2, 2, 2}));
  const auto sizes = sizes_of(generate_segment_offsets(1000003, 1000, SegmentShape::kEqual, 0));
  EXPECT_EQ(*std::min_element(sizes.begin(), sizes.end()), 1000u);
  EXPECT_EQ(*std::max_element(sizes.begin(), sizes.end()), 1001u);
}

TEST(SegmentOffsets, RandomHasEmptyAndUnequalSegments) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Offsets offsets = generate_segment_offsets(100000, 1000, SegmentShape::kRandom, seed);
    const auto sizes = sizes_of(offsets);
    EXPECT_GE(count_empty(offsets), 50u) << "about one segment in eight is empty";
    EXPECT_LE(count_empty(offsets), 250u);
    EXPECT_GT(*std::max_element(sizes.begin(), sizes.end()), 150u);  // the mean is 100
    EXPECT_LT(*std::max_element(sizes.begin(), sizes.end()), 400u);  // not heavy-tailed
  }
  // Even a handful of segments gets an empty one.
  for (std::uint64_t seed = 0; seed < 20; ++seed)
    EXPECT_GE(count_empty(generate_segment_offsets(1000, 2, SegmentShape::kRandom, seed)), 1u);
}

TEST(SegmentOffsets, PowerLawHasAFewHugeAndManyTinySegments) {
  const std::size_t items = std::size_t{1} << 20;
  const std::size_t segments = 1000;
  const std::size_t mean = items / segments;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    const Offsets offsets =
        generate_segment_offsets(items, segments, SegmentShape::kPowerLaw, seed);
    auto sizes = sizes_of(offsets);
    std::sort(sizes.begin(), sizes.end());
    EXPECT_GE(count_empty(offsets), 1u);
    EXPECT_GE(sizes.back(), 10 * mean) << "the largest segment is huge";
    const auto huge = std::count_if(sizes.begin(), sizes.end(),
                                    [&](std::size_t size) { return size >= 10 * mean; });
    EXPECT_LE(huge, 20) << "only a few are huge";
    EXPECT_LE(sizes[segments / 2], mean / 4) << "the median segment is tiny";
    const auto tiny = std::count_if(sizes.begin(), sizes.end(),
                                    [&](std::size_t size) { return size <= mean / 10; });
    EXPECT_GE(static_cast<std::size_t>(tiny), segments / 4) << "many are tiny";
  }
  for (std::uint64_t seed = 0; seed < 20; ++seed)
    EXPECT_GE(count_empty(generate_segment_offsets(50, 2, SegmentShape::kPowerLaw, seed)), 1u);
}

TEST(SegmentOffsets, NoItemsOrNoSegments) {
  EXPECT_EQ(generate_segment_offsets(0, 0, SegmentShape::kRandom, 1), (Offsets{0}));
  EXPECT_EQ(generate_segment_offsets(0, 3, SegmentShape::kPowerLaw, 1), (Offsets{0, 0, 0, 0}));
  EXPECT_EQ(generate_segment_offsets(7, 1, SegmentShape::kRandom, 1), (Offsets{0, 7}));
  EXPECT_THROW(generate_segment_offsets(5, 0, SegmentShape::kEqual, 1), Error);
  EXPECT_THROW(generate_segment_offsets(std::size_t{1} << 32, 4, SegmentShape::kEqual, 1), Error);
}

TEST(SegmentOffsets, ValidateRejectsMalformedOffsets) {
  EXPECT_NO_THROW(validate_segment_offsets(Offsets{0, 2, 2, 5}, 5));
  EXPECT_NO_THROW(validate_segment_offsets(Offsets{0}, 0));
  EXPECT_THROW(validate_segment_offsets(Offsets{}, 0), Error);
  EXPECT_THROW(validate_segment_offsets(Offsets{1, 5}, 5), Error);
  EXPECT_THROW(validate_segment_offsets(Offsets{0, 4}, 5), Error);
  EXPECT_THROW(validate_segment_offsets(Offsets{0, 6}, 5), Error);
  try {
    validate_segment_offsets(Offsets{0, 3, 2, 5}, 5);
    FAIL() << "decreasing offsets accepted";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "index 2")) << error.what();
  }
}

TEST(SegmentOffsets, SegmentOfSkipsEmptySegments) {
  const Offsets offsets = {0, 2, 2, 2, 5, 6};
  EXPECT_EQ(segment_of(offsets, 0), 0u);
  EXPECT_EQ(segment_of(offsets, 1), 0u);
  EXPECT_EQ(segment_of(offsets, 2), 3u);
  EXPECT_EQ(segment_of(offsets, 4), 3u);
  EXPECT_EQ(segment_of(offsets, 5), 4u);
  EXPECT_THROW(segment_of(offsets, 6), Error);
}

// ---------------------------------------------------------------------------------------------
// Reference segmented sort.

TEST(SegmentedReference, SortsEachSegmentOnItsOwn) {
  const std::vector<int> keys = {5, 3, 9, 1, 4, 4, 2, 8};
  const Offsets offsets = {0, 3, 3, 6, 8};
  EXPECT_EQ(reference_segmented_sort_keys(keys, offsets),
            (std::vector<int>{3, 5, 9, 1, 4, 4, 2, 8}));
  EXPECT_EQ(reference_segmented_sort_keys(keys, offsets, SortOptions{0, kAllBits, true}),
            (std::vector<int>{9, 5, 3, 4, 4, 1, 8, 2}));
  EXPECT_EQ(reference_segmented_sort_keys(std::vector<int>{}, Offsets{0, 0}), std::vector<int>{});
}

TEST(SegmentedReference, PairsAreStableWithinSegments) {
  const std::vector<std::uint8_t> keys = {2, 1, 2, 1, 3, 3};
  const auto values = iota_values(keys.size());
  std::vector<std::uint8_t> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  reference_segmented_sort_pairs(keys, values, Offsets{0, 4, 6}, sorted_keys, sorted_values);
  EXPECT_EQ(sorted_keys, (std::vector<std::uint8_t>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(sorted_values, (std::vector<std::uint32_t>{1, 3, 0, 2, 4, 5}));
  reference_segmented_sort_pairs(keys, values, Offsets{0, 4, 6}, sorted_keys, sorted_values,
                                 SortOptions{0, kAllBits, true});
  EXPECT_EQ(sorted_keys, (std::vector<std::uint8_t>{2, 2, 1, 1, 3, 3}));
  EXPECT_EQ(sorted_values, (std::vector<std::uint32_t>{0, 2, 1, 3, 4, 5}));
}

TEST(SegmentedReference, BitRange) {
  // Low nibble only; 0x21 and 0x11 tie and keep input order.
  const std::vector<std::uint32_t> keys = {0x21, 0x13, 0x11, 0x02, 0x35, 0x04};
  EXPECT_EQ(reference_segmented_sort_keys(keys, Offsets{0, 3, 6}, SortOptions{0, 4, false}),
            (std::vector<std::uint32_t>{0x21, 0x11, 0x13, 0x02, 0x04, 0x35}));
}

TEST(SegmentedReference, MatchesWholeArraySortPerSegment) {
  for (SegmentShape shape : all_segment_shapes()) {
    const auto keys = generate_keys<float>(Distribution::kFloatSpecials, 20000, 3);
    const Offsets offsets = generate_segment_offsets(keys.size(), 97, shape, 5);
    const SortOptions options{0, kAllBits, shape == SegmentShape::kRandom};
    const auto sorted = reference_segmented_sort_keys(keys, offsets, options);
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
      const std::vector<float> segment(keys.begin() + offsets[s], keys.begin() + offsets[s + 1]);
      const auto expected = reference_sort_keys(segment, options);
      for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(KeyTraits<float>::raw_bits(sorted[offsets[s] + i]),
                  KeyTraits<float>::raw_bits(expected[i]))
            << to_string(shape) << " segment " << s << " item " << i;
    }
  }
}

TEST(SegmentedReference, RejectsMismatchedInputs) {
  const std::vector<int> keys = {1, 2, 3};
  EXPECT_THROW(reference_segmented_sort_keys(keys, Offsets{0, 2}), Error);
  EXPECT_THROW(reference_segmented_sort_keys(keys, Offsets{}), Error);
  std::vector<int> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  EXPECT_THROW(reference_segmented_sort_pairs(keys, std::vector<std::uint32_t>{0, 1}, Offsets{0, 3},
                                              sorted_keys, sorted_values),
               Error);
}

// ---------------------------------------------------------------------------------------------
// Verifiers.

TEST(SegmentedVerify, AcceptsTheReference) {
  for (SegmentShape shape : all_segment_shapes())
    for (const SortOptions& options :
         {SortOptions{}, SortOptions{0, kAllBits, true}, SortOptions{2, 9, false}}) {
      SCOPED_TRACE(to_string(shape));
      const auto keys = generate_keys<std::uint16_t>(Distribution::kFewDistinct, 5000, 11);
      const auto values = iota_values(keys.size());
      const Offsets offsets = generate_segment_offsets(keys.size(), 60, shape, 12);
      const VerifyResult keys_only = verify_segmented_sort_keys(
          keys, offsets, reference_segmented_sort_keys(keys, offsets, options), options);
      EXPECT_TRUE(keys_only.ok) << keys_only.message;
      std::vector<std::uint16_t> sorted_keys;
      std::vector<std::uint32_t> sorted_values;
      reference_segmented_sort_pairs(keys, values, offsets, sorted_keys, sorted_values, options);
      const VerifyResult pairs =
          verify_segmented_sort_pairs(keys, values, offsets, sorted_keys, sorted_values, options);
      EXPECT_TRUE(pairs.ok) << pairs.message;
    }
}

TEST(SegmentedVerify, CatchesAWholeArraySortThatIgnoredSegments) {
  // Each segment of {1, 2, 8, 9} is sorted, but 1 and 2 belong to the second segment.
  const std::vector<int> input = {9, 8, 1, 2};
  const Offsets offsets = {0, 2, 4};
  EXPECT_TRUE(verify_segmented_sort_keys(input, offsets, std::vector<int>{8, 9, 1, 2}).ok);
  const VerifyResult result =
      verify_segmented_sort_keys(input, offsets, std::vector<int>{1, 2, 8, 9});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 0u);
  EXPECT_TRUE(contains(result.message, "segment 0 (items [0, 2))")) << result.message;
  EXPECT_TRUE(contains(result.message, "not a permutation")) << result.message;
}

TEST(SegmentedVerify, CatchesSwappedPairAndNamesTheSegment) {
  const auto keys = generate_keys<std::uint32_t>(Distribution::kUniform, 300, 21);
  const Offsets offsets = {0, 100, 100, 250, 300};
  auto output = reference_segmented_sort_keys(keys, offsets);
  std::swap(output[170], output[171]);
  const VerifyResult result = verify_segmented_sort_keys(keys, offsets, output);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first_bad_index, 171u);
  EXPECT_TRUE(contains(result.message, "segment 2 (items [100, 250))")) << result.message;
  EXPECT_TRUE(contains(result.message, "not sorted at index 171")) << result.message;
  // A descent across a segment boundary is fine: segments are independent.
  auto across = reference_segmented_sort_keys(keys, offsets);
  ASSERT_GT(across[99], across[100]) << "test premise: the boundary is a descent here";
  EXPECT_TRUE(verify_segmented_sort_keys(keys, offsets, across).ok);
}

TEST(SegmentedVerify, CatchesDuplicateWithinSegmentAndWrongSize) {
  const std::vector<int> input = {3, 1, 2, 7, 5};
  const Offsets offsets = {0, 3, 5};
  const VerifyResult duplicate =
      verify_segmented_sort_keys(input, offsets, std::vector<int>{1, 2, 3, 5, 5});
  EXPECT_FALSE(duplicate.ok);
  EXPECT_EQ(duplicate.first_bad_index, 4u);
  EXPECT_TRUE(contains(duplicate.message, "segment 1")) << duplicate.message;
  EXPECT_FALSE(verify_segmented_sort_keys(input, offsets, std::vector<int>{1, 2, 3, 5}).ok);
  EXPECT_THROW(verify_segmented_sort_keys(input, Offsets{0, 4}, input), Error);
}

TEST(SegmentedVerify, CatchesBrokenStabilityAndStrayValues) {
  const std::vector<std::uint8_t> keys = {2, 1, 2, 1, 3, 3};
  const auto values = iota_values(keys.size());
  const Offsets offsets = {0, 4, 6};
  const std::vector<std::uint8_t> sorted_keys = {1, 1, 2, 2, 3, 3};
  EXPECT_TRUE(verify_segmented_sort_pairs(keys, values, offsets, sorted_keys,
                                          std::vector<std::uint32_t>{1, 3, 0, 2, 4, 5})
                  .ok);
  const VerifyResult unstable = verify_segmented_sort_pairs(
      keys, values, offsets, sorted_keys, std::vector<std::uint32_t>{1, 3, 0, 2, 5, 4});
  EXPECT_FALSE(unstable.ok);
  EXPECT_EQ(unstable.first_bad_index, 4u);
  EXPECT_TRUE(contains(unstable.message, "segment 1")) << unstable.message;
  const VerifyResult stray = verify_segmented_sort_pairs(
      keys, values, offsets, sorted_keys, std::vector<std::uint32_t>{1, 3, 0, 77, 4, 5});
  EXPECT_FALSE(stray.ok);
  EXPECT_EQ(stray.first_bad_index, 3u);
  EXPECT_TRUE(contains(stray.message, "segment 0")) << stray.message;
  EXPECT_FALSE(verify_segmented_sort_pairs(keys, values, offsets, sorted_keys,
                                           std::vector<std::uint32_t>{1, 3, 0})
                   .ok);
}

}  // namespace
}  // namespace sortlab
