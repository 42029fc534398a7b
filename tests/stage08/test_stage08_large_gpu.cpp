/// \file
/// \brief Stage 08 past 2^31 keys (ctest label `large`; runs only with SORTLAB_RUN_LARGE=1): the
/// sizes where 32-bit offsets would wrap, so each pass runs as several chunk launches with 64-bit
/// digit starts (onesweep_sort.hpp, chunk_items_for). Checked in linear time
/// (tests/support/large_sort_check.hpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/stage08/stage08_sorter.hpp"
#include "tests/support/large_sort_check.hpp"

namespace sortlab::testing {
namespace {

// 2^31 + 1 one-byte keys: three chunks, 256 digits, output positions past 2^31.
constexpr std::size_t kPastTwoToThe31 = (std::size_t{1} << 31) + 1;

TEST(Stage08Large, OneByteKeysPast2Pow31) {
  expect_large_keys_sort<Stage08SorterFor<std::uint8_t>, std::uint8_t>(kPastTwoToThe31,
                                                                       Distribution::kUniform, {});
}

// Pairs: every key ties with millions of others, so a chunk boundary that broke the input
// order of equal keys (stability) would show.
TEST(Stage08Large, OneByteKeysWithValuesPast2Pow31) {
  expect_large_pairs_sort<Stage08SorterFor<std::uint8_t>, std::uint8_t>(kPastTwoToThe31,
                                                                        Distribution::kUniform, {});
}

// 2^30 + 5 u32 keys, descending: two chunks of four passes each.
TEST(Stage08Large, FourByteKeysPastOneChunkDescending) {
  expect_large_keys_sort<Stage08SorterFor<std::uint32_t>, std::uint32_t>(
      (std::size_t{1} << 30) + 5, Distribution::kUniform, {0, kAllBits, true});
}

}  // namespace
}  // namespace sortlab::testing
