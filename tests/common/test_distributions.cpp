/// \file
/// \brief The seeded input generators: determinism and the promised shape of every distribution.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "tests/support/key_types.hpp"

namespace sortlab {
namespace {

template <typename Key>
std::vector<std::uint64_t> raw_bits_of(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits;
  for (const Key& key : keys) bits.push_back(KeyTraits<Key>::raw_bits(key));
  return bits;
}

template <typename Key>
std::size_t distinct_count(const std::vector<Key>& keys) {
  const auto bits = raw_bits_of(keys);
  return std::set<std::uint64_t>(bits.begin(), bits.end()).size();
}

/// Number of i with key[i - 1] after key[i] in the (ascending or descending) sort order.
template <typename Key>
std::size_t descents(const std::vector<Key>& keys, bool descending) {
  std::size_t count = 0;
  for (std::size_t i = 1; i < keys.size(); ++i)
    if (KeyTraits<Key>::to_ordered(keys[i - 1], descending) >
        KeyTraits<Key>::to_ordered(keys[i], descending))
      ++count;
  return count;
}

/// Fraction of one bits over all keys.
template <typename Key>
double one_bit_fraction(const std::vector<Key>& keys) {
  std::size_t ones = 0;
  for (const Key& key : keys) ones += std::bitset<64>(KeyTraits<Key>::raw_bits(key)).count();
  return static_cast<double>(ones) / (static_cast<double>(keys.size()) * KeyTraits<Key>::kNumBits);
}

using sortlab::testing::AllKeyTypes;
using sortlab::testing::FloatingKeyTypes;
using sortlab::testing::KeyName;

// ---------------------------------------------------------------------------------------------
// Every key type and distribution.

template <typename Key>
class DistributionsAllTypes : public ::testing::Test {};
TYPED_TEST_SUITE(DistributionsAllTypes, AllKeyTypes, KeyName);

TYPED_TEST(DistributionsAllTypes, SameSeedGivesSameKeys) {
  using Key = TypeParam;
  for (Distribution d : all_distributions()) {
    SCOPED_TRACE(to_string(d));
    const auto first = generate_keys<Key>(d, 1000, 1234);
    const auto second = generate_keys<Key>(d, 1000, 1234);
    ASSERT_EQ(first.size(), 1000u);
    EXPECT_EQ(raw_bits_of(first), raw_bits_of(second));
  }
}

TYPED_TEST(DistributionsAllTypes, DifferentSeedsGiveDifferentKeys) {
  using Key = TypeParam;
  for (Distribution d : all_distributions()) {
    SCOPED_TRACE(to_string(d));
    const auto base = raw_bits_of(generate_keys<Key>(d, 1000, 1));
    if (d == Distribution::kAllEqual) {
      // One value per seed: a narrow key may repeat it by chance, but not for all of 2..9.
      std::set<std::uint64_t> values;
      for (std::uint64_t seed = 1; seed < 10; ++seed)
        values.insert(raw_bits_of(generate_keys<Key>(d, 1, seed))[0]);
      EXPECT_GT(values.size(), 1u);
    } else {
      EXPECT_NE(base, raw_bits_of(generate_keys<Key>(d, 1000, 2)));
    }
  }
}

TYPED_TEST(DistributionsAllTypes, SizesIncludingEmpty) {
  using Key = TypeParam;
  for (Distribution d : all_distributions())
    for (std::size_t n : {0u, 1u, 2u, 333u})
      EXPECT_EQ(generate_keys<Key>(d, n, 3).size(), n) << to_string(d) << " n=" << n;
}

TYPED_TEST(DistributionsAllTypes, SortedAndReversedAreInOrder) {
  using Key = TypeParam;
  const auto sorted = generate_keys<Key>(Distribution::kSorted, 5000, 17);
  const auto reversed = generate_keys<Key>(Distribution::kReversed, 5000, 17);
  EXPECT_EQ(descents(sorted, false), 0u);
  EXPECT_EQ(descents(reversed, true), 0u);
  // Not trivially constant: both run over a real range of values.
  EXPECT_LT(KeyTraits<Key>::to_ordered(sorted.front()), KeyTraits<Key>::to_ordered(sorted.back()));
  EXPECT_GT(KeyTraits<Key>::to_ordered(reversed.front()),
            KeyTraits<Key>::to_ordered(reversed.back()));
}

TYPED_TEST(DistributionsAllTypes, AllEqualIsAllEqual) {
  using Key = TypeParam;
  const auto keys = generate_keys<Key>(Distribution::kAllEqual, 4000, 8);
  EXPECT_EQ(distinct_count(keys), 1u);
}

TYPED_TEST(DistributionsAllTypes, FewDistinctHasAtMostThatMany) {
  using Key = TypeParam;
  EXPECT_LE(distinct_count(generate_keys<Key>(Distribution::kFewDistinct, 5000, 4)), 16u);
  GeneratorOptions three;
  three.distinct_values = 3;
  EXPECT_LE(distinct_count(generate_keys<Key>(Distribution::kFewDistinct, 5000, 4, three)), 3u);
  GeneratorOptions one;
  one.distinct_values = 1;
  EXPECT_EQ(distinct_count(generate_keys<Key>(Distribution::kFewDistinct, 5000, 4, one)), 1u);
}

// ---------------------------------------------------------------------------------------------
// Shapes checked on 32- and 64-bit keys, where chance collisions do not blur the counts.

TEST(Distributions, FewDistinctUsesTheWholePalette) {
  EXPECT_EQ(distinct_count(generate_keys<std::uint32_t>(Distribution::kFewDistinct, 10000, 5)),
            16u);
  GeneratorOptions options;
  options.distinct_values = 3;
  EXPECT_EQ(
      distinct_count(generate_keys<std::uint64_t>(Distribution::kFewDistinct, 10000, 5, options)),
      3u);
  EXPECT_GT(distinct_count(generate_keys<std::uint32_t>(Distribution::kUniform, 10000, 5)), 9990u);
}

TEST(Distributions, NearlySortedIsSortedWithAFewSwaps) {
  const std::size_t n = 10000;
  const auto sorted = generate_keys<std::uint32_t>(Distribution::kSorted, n, 77);
  const auto nearly = generate_keys<std::uint32_t>(Distribution::kNearlySorted, n, 77);
  // The same keys...
  auto a = sorted;
  auto b = nearly;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  // ...with about 1% of positions moved (n / 100 swaps touch at most 2 positions each).
  std::size_t moved = 0;
  for (std::size_t i = 0; i < n; ++i) moved += sorted[i] != nearly[i];
  EXPECT_GT(moved, n / 200);
  EXPECT_LE(moved, 2 * (n / 100));
  const std::size_t d = descents(nearly, false);
  EXPECT_GT(d, 0u);
  EXPECT_LE(d, 4 * (n / 100));
}

TEST(Distributions, UniformHasHalfTheBitsSet) {
  EXPECT_NEAR(one_bit_fraction(generate_keys<std::uint64_t>(Distribution::kUniform, 20000, 9)), 0.5,
              0.01);
}

TEST(Distributions, EntropyReducedHasTheExpectedFractionOfOneBits) {
  for (int and_count = 0; and_count <= 4; ++and_count) {
    SCOPED_TRACE("and_count=" + std::to_string(and_count));
    GeneratorOptions options;
    options.and_count = and_count;
    const double expected = std::ldexp(1.0, -(and_count + 1));  // 1/2, 1/4, 1/8, ...
    const auto keys32 =
        generate_keys<std::uint32_t>(Distribution::kEntropyReduced, 20000, 31, options);
    const auto keys64 =
        generate_keys<std::uint64_t>(Distribution::kEntropyReduced, 20000, 31, options);
    EXPECT_NEAR(one_bit_fraction(keys32), expected, 0.01);
    EXPECT_NEAR(one_bit_fraction(keys64), expected, 0.01);
    // The measured entropy per bit matches the documented figure.
    const double p = one_bit_fraction(keys32);
    const double measured = -(p * std::log2(p) + (1 - p) * std::log2(1 - p));
    EXPECT_NEAR(measured, entropy_per_bit(and_count), 0.02);
  }
}

TEST(Distributions, EntropyPerBitFigures) {
  EXPECT_DOUBLE_EQ(entropy_per_bit(0), 1.0);
  EXPECT_NEAR(entropy_per_bit(1), 0.811, 1e-3);
  EXPECT_NEAR(entropy_per_bit(2), 0.544, 1e-3);
  EXPECT_NEAR(entropy_per_bit(3), 0.337, 1e-3);
  EXPECT_NEAR(entropy_per_bit(4), 0.201, 1e-3);
  EXPECT_GT(entropy_per_bit(1), entropy_per_bit(2));
}

// ---------------------------------------------------------------------------------------------
// Specials.

template <typename Key>
constexpr int exponent_bits() {
  if constexpr (std::is_same_v<Key, __half>) return 5;
  if constexpr (std::is_same_v<Key, __nv_bfloat16> || std::is_same_v<Key, float>) return 8;
  return 11;
}

template <typename Key>
class DistributionsFloating : public ::testing::Test {};
TYPED_TEST_SUITE(DistributionsFloating, FloatingKeyTypes, KeyName);

TYPED_TEST(DistributionsFloating, FloatSpecialsContainEveryKind) {
  using Key = TypeParam;
  constexpr int kMantissa = KeyTraits<Key>::kNumBits - 1 - exponent_bits<Key>();
  const std::uint64_t sign = KeyTraits<Key>::kHighBit;
  const std::uint64_t exponent_mask = sign - (std::uint64_t{1} << kMantissa);
  const std::uint64_t mantissa_mask = (std::uint64_t{1} << kMantissa) - 1;
  // Each kind's special patterns are drawn about n / 28 times (14 specials, half the draws);
  // uniform draws alone would make some kinds (denormals of double, zeros) rare or absent.
  const std::size_t n = 4000;
  std::size_t positive_zero = 0, negative_zero = 0, plus_inf = 0, minus_inf = 0, positive_nan = 0,
              negative_nan = 0, positive_denormal = 0, negative_denormal = 0, ordinary = 0;
  for (std::uint64_t bits : raw_bits_of(generate_keys<Key>(Distribution::kFloatSpecials, n, 6))) {
    const std::uint64_t magnitude = bits & ~sign;
    const bool negative = (bits & sign) != 0;
    const bool max_exponent = (magnitude & exponent_mask) == exponent_mask;
    const bool zero_exponent = (magnitude & exponent_mask) == 0;
    const std::uint64_t mantissa = magnitude & mantissa_mask;
    if (magnitude == 0) ++(negative ? negative_zero : positive_zero);
    if (max_exponent && mantissa == 0) ++(negative ? minus_inf : plus_inf);
    if (max_exponent && mantissa != 0) ++(negative ? negative_nan : positive_nan);
    if (zero_exponent && mantissa != 0) ++(negative ? negative_denormal : positive_denormal);
    if (!max_exponent && !zero_exponent) ++ordinary;
  }
  const std::size_t at_least = n / 50;
  EXPECT_GE(positive_zero, at_least);
  EXPECT_GE(negative_zero, at_least);
  EXPECT_GE(plus_inf, at_least);
  EXPECT_GE(minus_inf, at_least);
  EXPECT_GE(positive_nan, at_least);
  EXPECT_GE(negative_nan, at_least);
  EXPECT_GE(positive_denormal, 2 * at_least);  // the smallest and the largest denormal
  EXPECT_GE(negative_denormal, 2 * at_least);
  EXPECT_GT(ordinary, 1000u);  // about half the keys are uniform draws
}

TEST(Distributions, SpecialsOnIntegersAreTheExtremes) {
  const auto keys = generate_keys<std::int32_t>(Distribution::kFloatSpecials, 2000, 12);
  const std::set<std::int32_t> seen(keys.begin(), keys.end());
  for (std::int32_t value : {std::numeric_limits<std::int32_t>::min(),
                             std::numeric_limits<std::int32_t>::max(), 0, 1, -1})
    EXPECT_EQ(seen.count(value), 1u) << value;
  const auto unsigned_keys = generate_keys<std::uint16_t>(Distribution::kFloatSpecials, 2000, 12);
  const std::set<std::uint16_t> unsigned_seen(unsigned_keys.begin(), unsigned_keys.end());
  for (std::uint16_t value : {0, 1, 0xFFFF, 0xFFFE}) EXPECT_EQ(unsigned_seen.count(value), 1u);
}

// ---------------------------------------------------------------------------------------------
// Names, options and payloads.

TEST(DistributionNames, ListAndNames) {
  const std::vector<Distribution> expected = {
      Distribution::kUniform,      Distribution::kEntropyReduced, Distribution::kFewDistinct,
      Distribution::kAllEqual,     Distribution::kSorted,         Distribution::kReversed,
      Distribution::kNearlySorted, Distribution::kFloatSpecials};
  EXPECT_EQ(all_distributions(), expected);
  const std::vector<std::string> names = {"uniform", "entropy",  "few",    "equal",
                                          "sorted",  "reversed", "nearly", "specials"};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(to_string(expected[i]), names[i]);
}

TEST(DistributionNames, ParseRoundTrips) {
  for (Distribution d : all_distributions()) EXPECT_EQ(parse_distribution(to_string(d)), d);
}

TEST(DistributionNames, ParseRejectsUnknownNames) {
  try {
    parse_distribution("bogus");
    FAIL() << "parse_distribution accepted 'bogus'";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'bogus'"), std::string::npos) << message;
    EXPECT_NE(message.find("uniform"), std::string::npos) << "lists the valid names: " << message;
    EXPECT_NE(message.find("specials"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_distribution(""), Error);
  EXPECT_THROW(parse_distribution("Uniform"), Error);
  EXPECT_THROW(parse_distribution("uniform "), Error);
}

TEST(DistributionOptions, RejectsBadOptions) {
  GeneratorOptions negative_ands;
  negative_ands.and_count = -1;
  EXPECT_THROW(generate_keys<std::uint32_t>(Distribution::kEntropyReduced, 10, 1, negative_ands),
               Error);
  GeneratorOptions no_values;
  no_values.distinct_values = 0;
  EXPECT_THROW(generate_keys<std::uint32_t>(Distribution::kFewDistinct, 10, 1, no_values), Error);
}

TEST(IotaValues, CountsFromZero) {
  EXPECT_EQ(iota_values(5), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(iota_values(0).empty());
  EXPECT_EQ(iota_values(100000).back(), 99999u);
}

}  // namespace
}  // namespace sortlab
