/// \file
/// \brief KeyTraits and radix_digit: the order-preserving transform every sort relies on.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/key_traits.hpp"
#include "tests/support/key_types.hpp"

namespace sortlab {
namespace {

template <typename Key>
constexpr bool kIsHalfLike = std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16>;

/// The key's real value in a type that compares natively (float for the 16-bit float types).
template <typename Key>
auto real_value(Key key) {
  if constexpr (std::is_same_v<Key, __half>) {
    return __half2float(key);
  } else if constexpr (std::is_same_v<Key, __nv_bfloat16>) {
    return __bfloat162float(key);
  } else {
    return key;
  }
}

template <typename Key>
bool is_nan(Key key) {
  if constexpr (KeyTraits<Key>::kIsFloating) {
    return std::isnan(real_value(key));
  } else {
    return false;
  }
}

template <typename Key>
typename KeyTraits<Key>::Bits ordered(Key key) {
  return KeyTraits<Key>::to_ordered(key);
}

template <typename Key>
Key from_bits(std::uint64_t bits) {
  return KeyTraits<Key>::from_raw_bits(static_cast<typename KeyTraits<Key>::Bits>(bits));
}

template <typename Key>
Key random_key(std::mt19937_64& engine) {
  return from_bits<Key>(engine());
}

/// Test-name suffixes for the typed suites.
using sortlab::testing::AllKeyTypes;
using sortlab::testing::FloatingKeyTypes;
using sortlab::testing::KeyName;

// ---------------------------------------------------------------------------------------------
// Every key type: the transform orders like the real values.

template <typename Key>
class KeyTraitsAllTypes : public ::testing::Test {};
TYPED_TEST_SUITE(KeyTraitsAllTypes, AllKeyTypes, KeyName);

TYPED_TEST(KeyTraitsAllTypes, OrderPreservingOnRandomPairs) {
  using Key = TypeParam;
  std::mt19937_64 engine(20240611);
  int checked = 0;
  for (int trial = 0; trial < 40000; ++trial) {
    const Key a = random_key<Key>(engine);
    // Half the pairs are neighbours in bit space, where sign and exponent boundaries bite.
    const Key b = trial % 2 ? random_key<Key>(engine)
                            : from_bits<Key>(KeyTraits<Key>::raw_bits(a) + engine() % 5 - 2);
    if (is_nan(a) || is_nan(b)) continue;
    ++checked;
    ASSERT_EQ(real_value(a) < real_value(b), ordered(a) < ordered(b))
        << "raw bits " << +KeyTraits<Key>::raw_bits(a) << " vs " << +KeyTraits<Key>::raw_bits(b);
    ASSERT_EQ(real_value(a) == real_value(b), ordered(a) == ordered(b))
        << "raw bits " << +KeyTraits<Key>::raw_bits(a) << " vs " << +KeyTraits<Key>::raw_bits(b);
  }
  EXPECT_GT(checked, 30000);
}

TYPED_TEST(KeyTraitsAllTypes, OrderPreservingOverSortedSample) {
  using Key = TypeParam;
  std::vector<Key> keys;
  if constexpr (sizeof(Key) <= 2) {
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << (8 * sizeof(Key))); ++bits)
      keys.push_back(from_bits<Key>(bits));  // every bit pattern
  } else {
    std::mt19937_64 engine(7);
    for (int i = 0; i < 50000; ++i) keys.push_back(random_key<Key>(engine));
    for (std::uint64_t bits : {0ull, 1ull, ~0ull}) keys.push_back(from_bits<Key>(bits));
    keys.push_back(from_bits<Key>(KeyTraits<Key>::kHighBit));
  }
  keys.erase(std::remove_if(keys.begin(), keys.end(), [](Key k) { return is_nan(k); }), keys.end());
  std::sort(keys.begin(), keys.end(), [](Key a, Key b) { return real_value(a) < real_value(b); });
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const bool strictly_less = real_value(keys[i - 1]) < real_value(keys[i]);
    if (strictly_less) {
      ASSERT_LT(ordered(keys[i - 1]), ordered(keys[i])) << "at sorted position " << i;
    } else {
      ASSERT_EQ(ordered(keys[i - 1]), ordered(keys[i])) << "at sorted position " << i;
    }
  }
}

TYPED_TEST(KeyTraitsAllTypes, DescendingIsTheComplement) {
  using Key = TypeParam;
  using Bits = typename KeyTraits<Key>::Bits;
  std::mt19937_64 engine(99);
  for (int i = 0; i < 10000; ++i) {
    const Key key = random_key<Key>(engine);
    ASSERT_EQ(KeyTraits<Key>::to_ordered(key, true), static_cast<Bits>(~ordered(key)));
    ASSERT_EQ(KeyTraits<Key>::to_ordered(key, false), ordered(key));
  }
  // The smallest and largest patterns of the ordered space swap places.
  EXPECT_EQ(KeyTraits<Key>::to_ordered(from_bits<Key>(0), true),
            static_cast<Bits>(~ordered(from_bits<Key>(0))));
}

TYPED_TEST(KeyTraitsAllTypes, RawBitsRoundTrip) {
  using Key = TypeParam;
  std::mt19937_64 engine(5);
  for (int i = 0; i < 1000; ++i) {
    const auto bits = static_cast<typename KeyTraits<Key>::Bits>(engine());
    ASSERT_EQ(KeyTraits<Key>::raw_bits(KeyTraits<Key>::from_raw_bits(bits)), bits);
  }
}

TYPED_TEST(KeyTraitsAllTypes, RadixDigitsReassembleTheOrderedBits) {
  using Key = TypeParam;
  using Bits = typename KeyTraits<Key>::Bits;
  constexpr int kBits = KeyTraits<Key>::kNumBits;
  std::mt19937_64 engine(11);
  for (int i = 0; i < 2000; ++i) {
    const Key key = random_key<Key>(engine);
    for (int digit_bits : {1, 4, 8}) {
      std::uint64_t ascending = 0;
      std::uint64_t descending = 0;
      for (int first = 0; first < kBits; first += digit_bits) {
        const std::uint32_t up = radix_digit(key, first, digit_bits, false);
        const std::uint32_t down = radix_digit(key, first, digit_bits, true);
        ASSERT_LT(up, 1u << digit_bits);
        ASSERT_EQ(up + down, (1u << digit_bits) - 1) << "descending digit is the complement";
        ascending |= std::uint64_t{up} << first;
        descending |= std::uint64_t{down} << first;
      }
      ASSERT_EQ(ascending, std::uint64_t{ordered(key)});
      ASSERT_EQ(descending, std::uint64_t{static_cast<Bits>(~ordered(key))});
    }
    EXPECT_EQ(radix_digit(key, 0, 0, false), 0u);
    EXPECT_EQ(radix_digit(key, kBits - 1, 1, false),
              static_cast<std::uint32_t>(ordered(key) >> (kBits - 1)));
  }
}

// ---------------------------------------------------------------------------------------------
// Floating keys: zeros, NaN, infinities, denormals.

template <typename Key>
constexpr int mantissa_bits() {
  if constexpr (std::is_same_v<Key, __half>) return 10;
  if constexpr (std::is_same_v<Key, __nv_bfloat16>) return 7;
  if constexpr (std::is_same_v<Key, float>) return 23;
  return 52;
}

/// Bit patterns of the interesting floating values of Key, built from its layout.
template <typename Key>
struct FloatPatterns {
  using Bits = typename KeyTraits<Key>::Bits;
  static constexpr int kMantissa = mantissa_bits<Key>();
  static constexpr std::uint64_t sign = KeyTraits<Key>::kHighBit;
  static constexpr std::uint64_t mantissa_mask = (std::uint64_t{1} << kMantissa) - 1;
  static constexpr std::uint64_t infinity = sign - (std::uint64_t{1} << kMantissa);
  static constexpr std::uint64_t quiet_nan = infinity | (std::uint64_t{1} << (kMantissa - 1));
  static constexpr std::uint64_t min_denormal = 1;
  static constexpr std::uint64_t max_denormal = mantissa_mask;
  static constexpr std::uint64_t min_normal = std::uint64_t{1} << kMantissa;
  static constexpr std::uint64_t max_finite = infinity - 1;
  static Key make(std::uint64_t bits) { return from_bits<Key>(bits); }
};

template <typename Key>
class KeyTraitsFloating : public ::testing::Test {};
TYPED_TEST_SUITE(KeyTraitsFloating, FloatingKeyTypes, KeyName);

TYPED_TEST(KeyTraitsFloating, PatternsAreWhatTheTestThinks) {
  using Key = TypeParam;
  using P = FloatPatterns<Key>;
  const auto inf = real_value(P::make(P::infinity));
  EXPECT_TRUE(std::isinf(inf) && inf > 0);
  EXPECT_TRUE(std::isinf(real_value(P::make(P::infinity | P::sign))));
  EXPECT_TRUE(std::isnan(real_value(P::make(P::quiet_nan))));
  EXPECT_TRUE(std::isfinite(real_value(P::make(P::max_finite))));
  EXPECT_EQ(real_value(P::make(P::max_finite | P::sign)),
            -real_value(P::make(P::max_finite)));  // lowest
  EXPECT_GT(real_value(P::make(P::min_denormal)), 0);
  EXPECT_LT(real_value(P::make(P::max_denormal)), real_value(P::make(P::min_normal)));
  if constexpr (std::is_same_v<Key, __half>) {
    EXPECT_EQ(real_value(P::make(P::max_finite)), 65504.0f);
    EXPECT_EQ(real_value(P::make(P::min_denormal)), std::ldexp(1.0f, -24));
  }
  if constexpr (std::is_same_v<Key, float> || std::is_same_v<Key, double>) {
    EXPECT_EQ(real_value(P::make(P::max_finite)), std::numeric_limits<Key>::max());
    EXPECT_EQ(real_value(P::make(P::min_denormal)), std::numeric_limits<Key>::denorm_min());
  }
}

TYPED_TEST(KeyTraitsFloating, NegativeAndPositiveZeroAreEqual) {
  using Key = TypeParam;
  using P = FloatPatterns<Key>;
  const Key positive_zero = P::make(0);
  const Key negative_zero = P::make(P::sign);
  EXPECT_EQ(ordered(positive_zero), ordered(negative_zero));
  EXPECT_EQ(std::uint64_t{ordered(positive_zero)}, P::sign);  // +0 sits mid-way
  EXPECT_EQ(KeyTraits<Key>::to_ordered(negative_zero, true),
            KeyTraits<Key>::to_ordered(positive_zero, true));
}

TYPED_TEST(KeyTraitsFloating, NanSortsByItsSignBit) {
  using Key = TypeParam;
  using P = FloatPatterns<Key>;
  const auto plus_inf = ordered(P::make(P::infinity));
  const auto minus_inf = ordered(P::make(P::infinity | P::sign));
  for (std::uint64_t nan : {P::quiet_nan, P::infinity | 1, P::infinity | P::mantissa_mask}) {
    ASSERT_TRUE(is_nan(P::make(nan)));
    EXPECT_GT(ordered(P::make(nan)), plus_inf) << "NaN with sign clear sorts after +inf";
    EXPECT_LT(ordered(P::make(nan | P::sign)), minus_inf) << "NaN with sign set sorts before -inf";
  }
  // Among NaNs of one sign the payload decides: the default quiet NaN is below the max payload.
  EXPECT_LT(ordered(P::make(P::quiet_nan)), ordered(P::make(P::infinity | P::mantissa_mask)));
}

TYPED_TEST(KeyTraitsFloating, SpecialValuesInOrder) {
  using Key = TypeParam;
  using P = FloatPatterns<Key>;
  const std::uint64_t chain[] = {
      P::infinity | P::sign,      // -inf
      P::max_finite | P::sign,    // lowest
      P::min_normal | P::sign,    // -smallest normal
      P::max_denormal | P::sign,  // -largest denormal
      P::min_denormal | P::sign,  // -smallest denormal
      0,                          // 0
      P::min_denormal,            // smallest denormal
      P::max_denormal,            // largest denormal
      P::min_normal,              // smallest normal
      P::max_finite,              // max
      P::infinity,                // +inf
  };
  for (std::size_t i = 1; i < std::size(chain); ++i)
    EXPECT_LT(ordered(P::make(chain[i - 1])), ordered(P::make(chain[i]))) << "link " << i;
  // Descending reverses every link.
  for (std::size_t i = 1; i < std::size(chain); ++i)
    EXPECT_GT(KeyTraits<Key>::to_ordered(P::make(chain[i - 1]), true),
              KeyTraits<Key>::to_ordered(P::make(chain[i]), true))
        << "link " << i;
}

// ---------------------------------------------------------------------------------------------
// Concrete values: the transform and radix_digit bit for bit.

TEST(KeyTraitsValues, ConstantsPerType) {
  EXPECT_EQ(KeyTraits<std::uint8_t>::kNumBits, 8);
  EXPECT_EQ(KeyTraits<std::int64_t>::kNumBits, 64);
  EXPECT_EQ(KeyTraits<__half>::kNumBits, 16);
  EXPECT_EQ(KeyTraits<std::uint8_t>::kHighBit, 0x80u);
  EXPECT_EQ(KeyTraits<__nv_bfloat16>::kHighBit, 0x8000u);
  EXPECT_EQ(KeyTraits<std::int64_t>::kHighBit, 0x8000000000000000ull);
  EXPECT_TRUE(KeyTraits<__half>::kIsFloating);
  EXPECT_TRUE(KeyTraits<__nv_bfloat16>::kIsFloating);
  EXPECT_TRUE(KeyTraits<double>::kIsFloating);
  EXPECT_FALSE(KeyTraits<std::int32_t>::kIsFloating);
  EXPECT_FALSE(KeyTraits<std::uint64_t>::kIsFloating);
  EXPECT_TRUE((std::is_same_v<KeyTraits<float>::Bits, std::uint32_t>));
  EXPECT_TRUE((std::is_same_v<KeyTraits<__half>::Bits, std::uint16_t>));
  EXPECT_TRUE((std::is_same_v<KeyTraits<std::int8_t>::Bits, std::uint8_t>));
}

TEST(KeyTraitsValues, IntegerTransform) {
  EXPECT_EQ(ordered<std::uint8_t>(0), 0u);
  EXPECT_EQ(ordered<std::uint8_t>(200), 200u);
  EXPECT_EQ(ordered<std::int8_t>(-128), 0x00u);
  EXPECT_EQ(ordered<std::int8_t>(-1), 0x7Fu);
  EXPECT_EQ(ordered<std::int8_t>(0), 0x80u);
  EXPECT_EQ(ordered<std::int8_t>(127), 0xFFu);
  EXPECT_EQ(ordered<std::int16_t>(std::numeric_limits<std::int16_t>::min()), 0u);
  EXPECT_EQ(ordered<std::int32_t>(-2), 0x7FFFFFFEu);
  EXPECT_EQ(ordered<std::int32_t>(std::numeric_limits<std::int32_t>::max()), 0xFFFFFFFFu);
  EXPECT_EQ(ordered<std::int64_t>(std::numeric_limits<std::int64_t>::min()), 0u);
  EXPECT_EQ(ordered<std::int64_t>(1), 0x8000000000000001ull);
  EXPECT_EQ(ordered<std::uint64_t>(0xFFFFFFFFFFFFFFFFull), 0xFFFFFFFFFFFFFFFFull);
}

TEST(KeyTraitsValues, FloatingTransform) {
  EXPECT_EQ(ordered(1.0f), 0xBF800000u);
  EXPECT_EQ(ordered(-1.0f), 0x407FFFFFu);
  EXPECT_EQ(ordered(0.0f), 0x80000000u);
  EXPECT_EQ(ordered(-0.0f), 0x80000000u);
  EXPECT_EQ(ordered(std::numeric_limits<float>::infinity()), 0xFF800000u);
  EXPECT_EQ(ordered(-std::numeric_limits<float>::infinity()), 0x007FFFFFu);
  EXPECT_EQ(ordered(1.0), 0xBFF0000000000000ull);
  EXPECT_EQ(ordered(-2.0), 0x3FFFFFFFFFFFFFFFull);
  EXPECT_EQ(ordered(__float2half(1.0f)), 0xBC00u);
  EXPECT_EQ(ordered(__float2half(-1.0f)), 0x43FFu);
  EXPECT_EQ(ordered(__float2bfloat16(1.0f)), 0xBF80u);
  EXPECT_EQ(ordered(__float2bfloat16(-1.0f)), 0x407Fu);
  EXPECT_EQ(KeyTraits<float>::to_ordered(1.0f, true), 0x407FFFFFu);
}

TEST(RadixDigit, ExtractsTheRightBits) {
  const std::uint32_t key = 0xDEADBEEFu;
  EXPECT_EQ(radix_digit(key, 0, 8, false), 0xEFu);
  EXPECT_EQ(radix_digit(key, 8, 8, false), 0xBEu);
  EXPECT_EQ(radix_digit(key, 16, 8, false), 0xADu);
  EXPECT_EQ(radix_digit(key, 24, 8, false), 0xDEu);
  EXPECT_EQ(radix_digit(key, 4, 8, false), 0xEEu);
  EXPECT_EQ(radix_digit(key, 28, 4, false), 0xDu);
  EXPECT_EQ(radix_digit(key, 31, 1, false), 1u);
  EXPECT_EQ(radix_digit(key, 0, 32, false), 0xDEADBEEFu);
  EXPECT_EQ(radix_digit(key, 0, 0, false), 0u);
  EXPECT_EQ(radix_digit(key, 0, 8, true), 0x10u);
  EXPECT_EQ(radix_digit(key, 24, 8, true), 0x21u);

  const std::uint64_t wide = 0x0123456789ABCDEFull;
  EXPECT_EQ(radix_digit(wide, 56, 8, false), 0x01u);
  EXPECT_EQ(radix_digit(wide, 32, 16, false), 0x4567u);
  EXPECT_EQ(radix_digit(wide, 0, 32, false), 0x89ABCDEFu);
  EXPECT_EQ(radix_digit(wide, 60, 4, false), 0x0u);

  // Signed and floating keys are digitised after the transform.
  EXPECT_EQ(radix_digit(std::int32_t{-1}, 24, 8, false), 0x7Fu);
  EXPECT_EQ(radix_digit(std::int32_t{-1}, 0, 8, false), 0xFFu);
  EXPECT_EQ(radix_digit(std::int32_t{0}, 24, 8, false), 0x80u);
  EXPECT_EQ(radix_digit(1.0f, 24, 8, false), 0xBFu);
  EXPECT_EQ(radix_digit(1.0f, 16, 8, false), 0x80u);
  EXPECT_EQ(radix_digit(-0.0f, 24, 8, false), 0x80u);
  EXPECT_EQ(radix_digit(std::int8_t{-128}, 0, 8, true), 0xFFu);
}

}  // namespace
}  // namespace sortlab
