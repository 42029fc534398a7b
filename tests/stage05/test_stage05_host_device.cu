/// \file
/// \brief Host-and-device code of stage 05 run on the CPU. The block sort's key transform:
/// twiddling is invertible bit for bit, and the digit of every pass equals the digit of
/// common/key_traits.hpp's ordered bits in both directions, -0.0 and +0.0 included. Every bit
/// pattern of the 8- and 16-bit types is checked, and a million random patterns of the wider ones.
/// The device sort's pass roles: every pattern of skipped passes still ends in keys_out. The
/// digits of a user-defined key through a decomposer.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/05_packed_rank/packed_rank_sort_kernels.cuh"
#include "tests/stage05/record_key.hpp"
#include "tests/support/key_types.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

/// Checks one key: out(in(key)) is the key, and every digit position and width in both
/// directions matches radix_digit().
template <typename Key>
void expect_twiddle_consistent(typename sortlab::KeyTraits<Key>::Bits raw) {
  using Traits = sortlab::KeyTraits<Key>;
  using Twiddled = sortlab::stage05::TwiddledKey<Key>;
  const Key key = Traits::from_raw_bits(raw);
  const auto bits = Twiddled::in(key);
  ASSERT_EQ(Traits::raw_bits(Twiddled::out(bits)), raw) << "raw bits " << +raw;
  for (int width : {1, 4, 6, 8}) {
    for (int first_bit = 0; first_bit + width <= Traits::kNumBits; first_bit += 3) {
      ASSERT_EQ(Twiddled::template digit<false>(bits, first_bit, width),
                sortlab::radix_digit(key, first_bit, width, false))
          << "raw bits " << +raw << " first_bit " << first_bit << " width " << width;
      ASSERT_EQ(Twiddled::template digit<true>(bits, first_bit, width),
                sortlab::radix_digit(key, first_bit, width, true))
          << "raw bits " << +raw << " first_bit " << first_bit << " width " << width
          << " descending";
    }
  }
}

template <typename Key>
class Stage05Twiddle : public ::testing::Test {};
TYPED_TEST_SUITE(Stage05Twiddle, sortlab::testing::AllKeyTypes, sortlab::testing::KeyName);

TYPED_TEST(Stage05Twiddle, InvertibleAndDigitsMatchTheOrderedBits) {
  using Key = TypeParam;
  using Bits = typename sortlab::KeyTraits<Key>::Bits;
  const Bits high = sortlab::KeyTraits<Key>::kHighBit;
  // -0.0 and +0.0 (for integers: the sign bit alone, and zero), all ones, one below each.
  for (Bits raw : {Bits{0}, high, static_cast<Bits>(~Bits{0}), static_cast<Bits>(high - 1),
                   static_cast<Bits>(high + 1)})
    expect_twiddle_consistent<Key>(raw);
  if constexpr (sizeof(Key) <= 2) {
    for (std::uint32_t raw = 0; raw <= static_cast<Bits>(~Bits{0}); ++raw)
      expect_twiddle_consistent<Key>(static_cast<Bits>(raw));
  } else {
    std::mt19937_64 random(sortlab::testing::test_seed());
    for (int i = 0; i < 1000000; ++i) expect_twiddle_consistent<Key>(static_cast<Bits>(random()));
  }
}

}  // namespace

namespace {

using sortlab::stage05::Array;
using sortlab::stage05::pass_role;
using sortlab::stage05::PassPlan;
using sortlab::stage05::Survey;

// The pass roles every block derives from the survey, played through on the host for every
// pattern of trivial passes: the passes that run form a chain from the input (read once, never
// written) to keys_out, each reading what the one before wrote and never writing what it reads.
TEST(Stage05PassRoles, EveryPatternOfSkippedPassesEndsInTheOutput) {
  for (int radix_bits : {6, 7}) {
    for (const auto& range : {std::pair<int, int>{0, 32}, {0, 64}, {3, 29}, {0, 8}, {5, 6}}) {
      const int passes = sortlab::stage05::num_passes(range.second - range.first, radix_bits);
      for (std::uint32_t running_mask = 0; running_mask < (1u << passes); ++running_mask) {
        // Keys that differ exactly in one bit of every pass that should run.
        unsigned long long differing = 0;
        for (int p = 0; p < passes; ++p)
          if (running_mask >> p & 1u) differing |= 1ull << (range.first + p * radix_bits);
        const Survey survey{~differing, ~0ull};  // AND xor OR = differing
        const PassPlan plan{range.first, range.second, radix_bits, &survey};
        SCOPED_TRACE("r=" + std::to_string(radix_bits) + " bits [" + std::to_string(range.first) +
                     "," + std::to_string(range.second) + ") running mask " +
                     std::to_string(running_mask));
        Array current = Array::kInput;
        int ran = 0;
        for (int p = 0; p < passes; ++p) {
          const auto role = pass_role(plan, p);
          ASSERT_EQ(role.runs, (running_mask >> p & 1u) != 0) << "pass " << p;
          if (!role.runs) continue;
          ASSERT_EQ(role.source, current) << "pass " << p << " reads what the last one wrote";
          ASSERT_NE(role.target, Array::kInput);
          ASSERT_NE(role.target, role.source);
          current = role.target;
          ++ran;
        }
        // With no pass running the copy kernel writes the output; otherwise the last pass did.
        if (ran > 0) ASSERT_EQ(current, Array::kOutput);
      }
    }
  }
}

}  // namespace

namespace {

using sortlab::testing::ByYThenX;
using sortlab::testing::concatenated_order;
using sortlab::testing::Record;

// A decomposed key's digit is the digit of its members' ordered bits side by side, for every
// digit position (including digits that straddle the two members) and both directions; -0.0
// and +0.0 in x give the same digits.
TEST(Stage05DecomposedKey, DigitsOfTheMembersSideBySide) {
  static_assert(sortlab::stage05::kDecomposedKeyBits<Record, ByYThenX> == 64);
  std::mt19937_64 random(sortlab::testing::test_seed());
  const float specials[] = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-40f};
  for (int i = 0; i < 20000; ++i) {
    Record record{static_cast<std::int32_t>(random()),
                  i % 3 == 0 ? specials[i % 7]
                             : sortlab::bit_cast<float>(static_cast<std::uint32_t>(random())),
                  static_cast<std::uint16_t>(i)};
    if (i % 5 == 0) record.y = static_cast<std::int32_t>(random() % 5) - 2;
    Record minus_zero = record;
    minus_zero.x = -0.0f;
    Record plus_zero = record;
    plus_zero.x = 0.0f;
    const std::uint64_t order = concatenated_order(record);
    for (int width : {1, 5, 8}) {
      for (int first_bit = 0; first_bit + width <= 64; ++first_bit) {
        const std::uint32_t mask = (1u << width) - 1u;
        const auto expected = static_cast<std::uint32_t>(order >> first_bit) & mask;
        ASSERT_EQ((sortlab::stage05::decomposed_digit<false>(record, ByYThenX{}, first_bit, width)),
                  expected)
            << "record " << i << " first_bit " << first_bit << " width " << width;
        ASSERT_EQ((sortlab::stage05::decomposed_digit<true>(record, ByYThenX{}, first_bit, width)),
                  expected ^ mask);
        ASSERT_EQ(
            (sortlab::stage05::decomposed_digit<false>(minus_zero, ByYThenX{}, first_bit, width)),
            (sortlab::stage05::decomposed_digit<false>(plus_zero, ByYThenX{}, first_bit, width)));
      }
    }
  }
}

}  // namespace
