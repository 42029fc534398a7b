/// \file
/// \brief Stage 04 at its largest supported size, 2^30 keys (ctest label `large`; runs only with
/// SORTLAB_RUN_LARGE=1): one keys-only and one pairs sort, checked in linear time
/// (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

#include "tests/stage04/stage04_sorter.hpp"
#include "tests/support/large_sort_check.hpp"

namespace sortlab::testing {
namespace {

TEST(Stage04Large, KeysAtTheLargestSize) {
  expect_large_keys_sort<DefaultSorter, std::uint32_t>(kMaxSortItems, Distribution::kUniform, {});
}

TEST(Stage04Large, PairsAtTheLargestSize) {
  // Few distinct keys: long runs of ties, where a stability bug shows.
  expect_large_pairs_sort<DefaultSorter, float>(kMaxSortItems, Distribution::kFewDistinct, {});
}

// r = 8 with 4096-key tiles.
TEST(Stage04Large, Radix8Keys16KeysAndPairsAtTheLargestSize) {
  expect_large_keys_sort<Stage04Sorter<8, 16>, std::uint32_t>(kMaxSortItems, Distribution::kUniform,
                                                              {});
  expect_large_pairs_sort<Stage04Sorter<8, 16>, std::uint32_t>(kMaxSortItems,
                                                               Distribution::kFewDistinct, {});
}

}  // namespace
}  // namespace sortlab::testing
