/// \file
/// \brief Stage 01 at its largest supported size, 2^30 keys (ctest label `large`; runs only with
/// SORTLAB_RUN_LARGE=1): one keys-only and one pairs sort, checked in linear time
/// (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

#include "tests/stage01/stage01_sorter.hpp"
#include "tests/support/large_sort_check.hpp"

namespace sortlab::testing {
namespace {

TEST(Stage01Large, KeysAtTheLargestSize) {
  expect_large_keys_sort<Stage01Sorter, std::uint32_t>(kMaxSortItems, Distribution::kUniform, {});
}

TEST(Stage01Large, PairsAtTheLargestSize) {
  // Few distinct keys: long runs of ties, where a stability bug shows.
  expect_large_pairs_sort<Stage01Sorter, float>(kMaxSortItems, Distribution::kFewDistinct, {});
}

}  // namespace
}  // namespace sortlab::testing
