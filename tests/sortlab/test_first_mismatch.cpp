/// \file
/// \brief The first-mismatch assertions of tests/support/first_mismatch.hpp (used by the stage
/// trace tests) and the verifiers' failure messages: what a student reads when a pass is wrong.
#include "tests/support/first_mismatch.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/verify.hpp"

namespace {

using sortlab::testing::same_keys;
using sortlab::testing::same_per_key;
using sortlab::testing::same_table;

std::string message_of(const ::testing::AssertionResult& result) {
  EXPECT_FALSE(result) << "expected a mismatch";
  return result.message();
}

TEST(FirstMismatch, EqualArraysPass) {
  const std::vector<std::uint32_t> numbers = {1, 2, 3};
  EXPECT_TRUE(same_per_key("digits", numbers, numbers, 2));
  EXPECT_TRUE(same_table("block bucket table", numbers, numbers, 3));
  const std::vector<float> keys = {1.0f, std::nanf(""), -0.0f};
  EXPECT_TRUE(same_keys("keys out", keys, keys, 2));  // NaN equals itself bit for bit
}

TEST(FirstMismatch, PerKeyArraysNameIndexBlockDigitAndValues) {
  std::vector<std::uint32_t> model(1 << 20), digits(1 << 20, 1);
  for (std::size_t i = 0; i < model.size(); ++i) model[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> gpu = model;
  gpu[70001] = 5;
  gpu[70002] = 6;
  digits[70001] = 3;
  EXPECT_EQ(message_of(same_per_key("destinations", gpu, model, 256, &digits)),
            "destinations differ from the CPU model at 2 of 1048576 positions; the first is "
            "index 70001 (block 273, position 113 of its tile, digit 3): the model has 70001, "
            "the GPU 5");
  EXPECT_EQ(message_of(same_per_key("ones before", gpu, model, 0)),
            "ones before differ from the CPU model at 2 of 1048576 positions; the first is index "
            "70001: the model has 70001, the GPU 5");
  gpu.pop_back();
  EXPECT_EQ(message_of(same_per_key("bits", gpu, model, 0)),
            "bits: the GPU gave 1048575 elements, the CPU model 1048576");
}

TEST(FirstMismatch, KeysCompareBitForBitAndShowValueAndBits) {
  const std::vector<float> model = {1.0f, 2.0f, 0.0f, 4.0f};
  const std::vector<float> gpu = {1.0f, 2.0f, -0.0f, 4.0f};
  EXPECT_EQ(message_of(same_keys("keys out", gpu, model, 2)),
            "keys out differ from the CPU model at 1 of 4 positions; the first is index 2 "
            "(block 1, position 0 of its tile): the model has 0 (bits 0x0), the GPU -0 (bits "
            "0x80000000)");
}

TEST(FirstMismatch, TablesNameDigitAndBlock) {
  // 4 buckets x 3 blocks, row-major by bucket: entry 7 is (digit 2, block 1).
  std::vector<std::uint32_t> model(12, 1), gpu(12, 1);
  gpu[7] = 0;
  EXPECT_EQ(message_of(same_table("scanned table", gpu, model, 3)),
            "scanned table differ from the CPU model at 1 of 12 positions; the first is index 7 "
            "= (digit 2, block 1): the model has 1, the GPU 0");
}

TEST(VerifyMessages, NameTheFirstBadIndexWithValuesAndBits) {
  const std::vector<std::uint32_t> input = {12, 3, 6, 9};
  const auto unsorted = sortlab::verify_sorted_keys(input, std::vector<std::uint32_t>{3, 6, 12, 9});
  EXPECT_EQ(unsorted.first_bad_index, 3u);
  EXPECT_EQ(unsorted.message,
            "not sorted at index 3: 12 (bits 0xc) at index 2 before 9 (bits 0x9)");
  const auto lost = sortlab::verify_sorted_keys(input, std::vector<std::uint32_t>{3, 6, 6, 12});
  EXPECT_EQ(lost.message,
            "output is not a permutation of the input: key 6 (bits 0x6) at index 2 occurs more "
            "often than in the input");
  const std::vector<float> zeros = {0.0f, -0.0f};
  const auto unstable = sortlab::verify_stably_sorted_keys(zeros, std::vector<float>{-0.0f, 0.0f});
  EXPECT_EQ(unstable.message,
            "key at index 0 is -0 (bits 0x80000000) but the stable order has 0 (bits 0x0): keys "
            "with equal sort bits lost their input order");
}

}  // namespace
