/// \file
/// \brief Stage 05 at large sizes (ctest label `large`; runs only with SORTLAB_RUN_LARGE=1): 2^30
/// keys and pairs at both digit widths, and 2^31 + 1 one-byte keys and pairs (past 32-bit signed
/// positions), checked in linear time (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/stage05/stage05_sorter.hpp"
#include "tests/support/large_sort_check.hpp"

namespace sortlab::testing {
namespace {

TEST(Stage05Large, KeysAtTheLargestSize) {
  expect_large_keys_sort<Stage05SorterFor<std::uint32_t>, std::uint32_t>(
      kMaxSortItems, Distribution::kUniform, {});
}

TEST(Stage05Large, PairsAtTheLargestSize) {
  // Few distinct keys: long runs of ties, where a stability bug shows.
  expect_large_pairs_sort<Stage05SorterFor<float>, float>(kMaxSortItems, Distribution::kFewDistinct,
                                                          {});
}

// 2^31 + 1 one-byte keys: positions past 2^31 (64-bit tile starts), table entries and scanned
// starts past 2^31 (exact in 32 bits up to kMaxItems), two passes at r = 6.
constexpr std::size_t kPastTwoToThe31 = (std::size_t{1} << 31) + 1;

TEST(Stage05Large, OneByteKeysPast2Pow31) {
  expect_large_keys_sort<Stage05SorterFor<std::uint8_t>, std::uint8_t>(kPastTwoToThe31,
                                                                       Distribution::kUniform, {});
}

// Pairs: every key ties with millions of others, so a wrong start past 2^31 or a lost input
// order (stability) shows.
TEST(Stage05Large, OneByteKeysWithValuesPast2Pow31) {
  expect_large_pairs_sort<Stage05SorterFor<std::uint8_t>, std::uint8_t>(kPastTwoToThe31,
                                                                        Distribution::kUniform, {});
}

// 7-bit digits: 128-thread blocks, 3072-key tiles.
TEST(Stage05Large, Radix7KeysAndPairsAtTheLargestSize) {
  expect_large_keys_sort<Stage05Sorter<4, 7>, std::uint32_t>(kMaxSortItems, Distribution::kUniform,
                                                             {});
  expect_large_pairs_sort<Stage05Sorter<4, 7>, std::uint32_t>(kMaxSortItems,
                                                              Distribution::kFewDistinct, {});
}

}  // namespace
}  // namespace sortlab::testing
