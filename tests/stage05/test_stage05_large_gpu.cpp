/// \file
/// \brief Stage 05 at its largest supported size, 2^30 keys (ctest label `large`; runs only with
/// SORTLAB_RUN_LARGE=1): keys-only and pair sorts at both digit widths, checked in linear time
/// (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

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

// 7-bit digits: 128-thread blocks, 3072-key tiles.
TEST(Stage05Large, Radix7KeysAndPairsAtTheLargestSize) {
  expect_large_keys_sort<Stage05Sorter<4, 7>, std::uint32_t>(kMaxSortItems, Distribution::kUniform,
                                                             {});
  expect_large_pairs_sort<Stage05Sorter<4, 7>, std::uint32_t>(kMaxSortItems,
                                                              Distribution::kFewDistinct, {});
}

}  // namespace
}  // namespace sortlab::testing
