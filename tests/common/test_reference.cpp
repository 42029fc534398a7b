/// \file
/// \brief The CPU reference sorts on hand-written inputs whose answer is known.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"

namespace sortlab {
namespace {

template <typename Key>
std::vector<std::uint64_t> raw_bits_of(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits;
  for (const Key& key : keys) bits.push_back(KeyTraits<Key>::raw_bits(key));
  return bits;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ReferenceSort, SignedIntegers) {
  const std::vector<std::int32_t> keys = {5,
                                          -3,
                                          0,
                                          -3,
                                          7,
                                          std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max(),
                                          -1};
  const std::vector<std::int32_t> expected = {
      std::numeric_limits<std::int32_t>::min(), -3, -3, -1, 0, 5, 7,
      std::numeric_limits<std::int32_t>::max()};
  EXPECT_EQ(reference_sort_keys(keys), expected);
  EXPECT_EQ(reference_sort_keys(std::vector<std::int8_t>{3, -128, 127, -1, 0}),
            (std::vector<std::int8_t>{-128, -1, 0, 3, 127}));
}

TEST(ReferenceSort, UnsignedIntegers) {
  EXPECT_EQ(reference_sort_keys(std::vector<std::uint8_t>{200, 3, 255, 0, 3}),
            (std::vector<std::uint8_t>{0, 3, 3, 200, 255}));
  EXPECT_EQ(reference_sort_keys(std::vector<std::uint16_t>{}), std::vector<std::uint16_t>{});
  EXPECT_EQ(reference_sort_keys(std::vector<std::uint16_t>{42}), std::vector<std::uint16_t>{42});
}

TEST(ReferenceSort, SixtyFourBitKeysUseAllTheirBits) {
  // These differ only above bit 31, where a 32-bit sort key would see them as equal.
  const std::uint64_t big = std::uint64_t{1} << 40;
  EXPECT_EQ(reference_sort_keys(
                std::vector<std::uint64_t>{big, 5, std::uint64_t{1} << 33, 0xFFFFFFFFull}),
            (std::vector<std::uint64_t>{5, 0xFFFFFFFFull, std::uint64_t{1} << 33, big}));
  EXPECT_EQ(reference_sort_keys(
                std::vector<std::int64_t>{std::int64_t{1} << 40, -(std::int64_t{1} << 40), -1, 0}),
            (std::vector<std::int64_t>{-(std::int64_t{1} << 40), -1, 0, std::int64_t{1} << 40}));
  EXPECT_EQ(reference_sort_keys(std::vector<double>{2.0, 1.0, -1e300, 1e300, 0.5}),
            (std::vector<double>{-1e300, 0.5, 1.0, 2.0, 1e300}));
  EXPECT_EQ(sort_bits(std::uint64_t{0x0123456789ABCDEFull}, SortOptions{}), 0x0123456789ABCDEFull);
  EXPECT_EQ(sort_bits(std::uint64_t{0x0123456789ABCDEFull}, SortOptions{32, 64, false}),
            0x01234567ull);
}

TEST(ReferenceSort, FloatsZerosKeepInputOrderAndNansGoToTheEnds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> keys = {1.5f, -0.0f, nan, 0.0f, -kInf, -nan, kInf, -2.0f, 0.0f, -0.0f};
  const std::vector<float> sorted = reference_sort_keys(keys);
  // -NaN, -inf, -2, then the four zeros exactly in input order, 1.5, inf, NaN.
  const std::vector<std::uint64_t> expected = {
      0xFFC00000u,                                         // -NaN (sign set: first)
      0xFF800000u,                                         // -inf
      0xC0000000u,                                         // -2
      0x80000000u, 0x00000000u, 0x00000000u, 0x80000000u,  // -0, +0, +0, -0 as in the input
      0x3FC00000u,                                         // 1.5
      0x7F800000u,                                         // +inf
      0x7FC00000u,                                         // NaN (sign clear: last)
  };
  EXPECT_EQ(raw_bits_of(sorted), expected);
  const std::vector<std::size_t> order = reference_sorted_order(keys);
  EXPECT_EQ(order, (std::vector<std::size_t>{5, 4, 7, 1, 3, 8, 9, 0, 6, 2}));
}

TEST(ReferenceSort, HalfKeys) {
  const std::vector<__half> keys = {__float2half(2.0f), __float2half(-0.5f), __float2half(0.0f),
                                    __float2half(-3.0f)};
  const auto sorted = reference_sort_keys(keys);
  ASSERT_EQ(sorted.size(), 4u);
  EXPECT_EQ(__half2float(sorted[0]), -3.0f);
  EXPECT_EQ(__half2float(sorted[1]), -0.5f);
  EXPECT_EQ(__half2float(sorted[2]), 0.0f);
  EXPECT_EQ(__half2float(sorted[3]), 2.0f);
}

TEST(ReferenceSort, BitRangeSortsOnlyThoseBitsAndKeepsTiesInInputOrder) {
  // Bits [4, 8): the second hex digit from the right.
  const std::vector<std::uint32_t> keys = {0x0031, 0x1012, 0x0020, 0x0F33, 0x0010, 0x0025};
  const SortOptions nibble{4, 8, false};
  EXPECT_EQ(reference_sort_keys(keys, nibble),
            (std::vector<std::uint32_t>{0x1012, 0x0010, 0x0020, 0x0025, 0x0031, 0x0F33}));
  // Low nibble only.
  EXPECT_EQ(reference_sort_keys(keys, SortOptions{0, 4, false}),
            (std::vector<std::uint32_t>{0x0020, 0x0010, 0x0031, 0x1012, 0x0F33, 0x0025}));
  // Empty range: every key ties, so the output is the input.
  EXPECT_EQ(reference_sort_keys(keys, SortOptions{5, 5, false}), keys);
  EXPECT_EQ(sort_bits(std::uint32_t{0xABCD1234u}, SortOptions{8, 16, false}), 0x12u);
  EXPECT_EQ(sort_bits(std::uint32_t{0xABCD1234u}, SortOptions{8, 16, true}), 0xEDu);
  EXPECT_EQ(sort_bits(std::uint32_t{0xABCD1234u}, SortOptions{32, 32, false}), 0u);
  EXPECT_EQ(sort_bits(std::uint64_t{0xABCD1234u}, SortOptions{64, 64, false}), 0u);
}

TEST(ReferenceSort, BitRangeOnSignedKeysUsesTheOrderedBits) {
  // Top byte of the ordered bits: -1 -> 0x7F, 0 and 1 -> 0x80, INT_MIN -> 0x00.
  const std::vector<std::int32_t> keys = {1, -1, 0, std::numeric_limits<std::int32_t>::min()};
  EXPECT_EQ(reference_sort_keys(keys, SortOptions{24, 32, false}),
            (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -1, 1, 0}));
}

TEST(ReferenceSort, DescendingIsStable) {
  const std::vector<std::uint32_t> keys = {3, 1, 3, 2, 1};
  const std::vector<std::uint32_t> values = {0, 1, 2, 3, 4};
  std::vector<std::uint32_t> sorted_keys, sorted_values;
  reference_sort_pairs(keys, values, sorted_keys, sorted_values, SortOptions{0, kAllBits, true});
  EXPECT_EQ(sorted_keys, (std::vector<std::uint32_t>{3, 3, 2, 1, 1}));
  EXPECT_EQ(sorted_values, (std::vector<std::uint32_t>{0, 2, 3, 1, 4}));
  // Descending floats: equal zeros still keep input order.
  const std::vector<float> floats = {0.0f, 1.0f, -0.0f, -1.0f};
  EXPECT_EQ(raw_bits_of(reference_sort_keys(floats, SortOptions{0, kAllBits, true})),
            (std::vector<std::uint64_t>{0x3F800000u, 0x00000000u, 0x80000000u, 0xBF800000u}));
}

TEST(ReferenceSort, DescendingWithBitRange) {
  const std::vector<std::uint32_t> keys = {0x15, 0x27, 0x35, 0x41};
  // Low nibble descending: 7, 5 (0x15 before 0x35, input order), 5, 1.
  EXPECT_EQ(reference_sort_keys(keys, SortOptions{0, 4, true}),
            (std::vector<std::uint32_t>{0x27, 0x15, 0x35, 0x41}));
}

TEST(ReferenceSort, PairsAscendingAndSizeMismatch) {
  const std::vector<std::int16_t> keys = {2, -1, 2, -1};
  const std::vector<std::uint32_t> values = {10, 11, 12, 13};
  std::vector<std::int16_t> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  reference_sort_pairs(keys, values, sorted_keys, sorted_values);
  EXPECT_EQ(sorted_keys, (std::vector<std::int16_t>{-1, -1, 2, 2}));
  EXPECT_EQ(sorted_values, (std::vector<std::uint32_t>{11, 13, 10, 12}));
  EXPECT_THROW(
      reference_sort_pairs(keys, std::vector<std::uint32_t>{1, 2, 3}, sorted_keys, sorted_values),
      Error);
}

TEST(SortOptionsResolve, AllBitsBecomesTheKeyWidth) {
  EXPECT_EQ(resolve<std::uint16_t>(SortOptions{}).end_bit, 16);
  EXPECT_EQ(resolve<double>(SortOptions{}).end_bit, 64);
  EXPECT_EQ(resolve<std::uint8_t>(SortOptions{2, 5, true}).end_bit, 5);
  EXPECT_TRUE(resolve<std::uint8_t>(SortOptions{2, 5, true}).descending);
}

}  // namespace
}  // namespace sortlab
