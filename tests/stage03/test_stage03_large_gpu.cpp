/// \file
/// \brief Stage 03 at its largest supported size, 2^30 keys (ctest label `large`; runs only with
/// SORTLAB_RUN_LARGE=1): one keys-only and one pairs sort, checked in linear time
/// (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

#include "tests/stage03/stage03_sorter.hpp"
#include "tests/support/large_sort_check.hpp"

namespace sortlab::testing {
namespace {

TEST(Stage03Large, KeysAtTheLargestSize) {
  expect_large_keys_sort<Stage03Sorter<sortlab::stage03::kDefaultRadixBits>, std::uint32_t>(
      kMaxSortItems, Distribution::kUniform, {});
}

TEST(Stage03Large, PairsAtTheLargestSize) {
  // Few distinct keys: long runs of ties, where a stability bug shows.
  expect_large_pairs_sort<Stage03Sorter<sortlab::stage03::kDefaultRadixBits>, float>(
      kMaxSortItems, Distribution::kFewDistinct, {});
}

// r = 8: the block bucket table has one entry per key (2^30 entries).
TEST(Stage03Large, Radix8KeysAndPairsAtTheLargestSize) {
  expect_large_keys_sort<Stage03Sorter<8>, std::uint32_t>(kMaxSortItems, Distribution::kUniform,
                                                          {});
  expect_large_pairs_sort<Stage03Sorter<8>, std::uint32_t>(kMaxSortItems,
                                                           Distribution::kFewDistinct, {});
}

}  // namespace
}  // namespace sortlab::testing
