/// \file
/// \brief Stage 01 CPU model: hand-checked arrays for one pass, and the full model sort agrees
/// with the reference sort.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chapters/01_scan_sort/scan_sort.hpp"
#include "chapters/01_scan_sort/scan_sort_model.hpp"
#include "common/distributions.hpp"
#include "common/verify.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage01::model_pass;

// The textbook's style of example: split on bit 0 of eight small keys.
TEST(Stage01Model, OnePassArraysByHand) {
  const std::vector<std::uint32_t> keys = {12, 3, 6, 9, 15, 8, 5, 10};
  const auto trace = model_pass(keys, 0);
  EXPECT_EQ(trace.bits, (std::vector<std::uint32_t>{0, 1, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(trace.ones_before, (std::vector<std::uint32_t>{0, 0, 1, 1, 2, 3, 3, 4}));
  // zeros: i - ones_before -> 0,1,2,3 ; ones: (8 - 4) + ones_before -> 4,5,6,7
  EXPECT_EQ(trace.destinations, (std::vector<std::uint32_t>{0, 4, 1, 5, 6, 2, 7, 3}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{12, 6, 8, 10, 3, 9, 15, 5}));
}

TEST(Stage01Model, DescendingSplitsOnTheComplementedBit) {
  const std::vector<std::uint32_t> keys = {1, 0, 1, 0};
  const auto trace = model_pass(keys, 0, /*descending=*/true);
  EXPECT_EQ(trace.bits, (std::vector<std::uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{1, 1, 0, 0}));
}

TEST(Stage01Model, SignedAndFloatKeysSplitOnOrderedBits) {
  // The sign bit of an ordered int is set for non-negatives: -5 has bit 31 = 0, 5 has 1.
  EXPECT_EQ(model_pass(std::vector<std::int32_t>{5, -5}, 31).keys_out,
            (std::vector<std::int32_t>{-5, 5}));
  EXPECT_EQ(model_pass(std::vector<float>{2.5f, -1.0f}, 31).keys_out,
            (std::vector<float>{-1.0f, 2.5f}));
}

template <typename Key>
class Stage01ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage01ModelSort, ModelKeys);

TYPED_TEST(Stage01ModelSort, FullModelSortMatchesReference) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution : sortlab::all_distributions()) {
    for (std::size_t n : {0, 1, 2, 33, 1000}) {
      SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed));
      const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
      const auto sorted = sortlab::stage01::model_sort(keys);
      const auto check = sortlab::verify_sorted_keys(keys, sorted);
      ASSERT_TRUE(check.ok) << check.message;
      ASSERT_EQ(sorted.size(), keys.size());
      const auto expected = sortlab::reference_sort_keys(keys);
      for (std::size_t i = 0; i < n; ++i)  // stable: identical bit patterns, position by position
        ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(sorted[i]),
                  sortlab::KeyTraits<Key>::raw_bits(expected[i]))
            << "at " << i;
    }
  }
}

// The bandwidth model at 2^20 u32 keys, where the device scan of the bits needs two levels:
// tile scan 8n + 4 * 1024 totals, the totals' scan 8 * 1024, add-back 8n + 4 * 1024 = 16n + 16384.
TEST(Stage01BytesModel, ChargesTheTwoLevelScanOfTheBits) {
  const double n = 1 << 20;
  const double scan = 16.0 * n + 16384.0;
  // per bit: bits kernel 4n + 4n, scan, scatter (4 + 4) n + 4n + 4n
  EXPECT_DOUBLE_EQ(sortlab::stage01::bytes_moved(1 << 20, 4, 0, 32), 32.0 * (24.0 * n + scan));
  // pairs add a value read and write per key per bit
  EXPECT_DOUBLE_EQ(sortlab::stage01::bytes_moved(1 << 20, 4, 4, 32), 32.0 * (32.0 * n + scan));
  // no bits: the sort is a copy
  EXPECT_DOUBLE_EQ(sortlab::stage01::bytes_moved(1 << 20, 4, 4, 0), 2.0 * 8.0 * n);
}

// A bad trace argument is rejected before any GPU work (so this runs on any machine), and the
// message names the value it got.
TEST(Stage01TraceArguments, BadBitIsRejectedWithItsValue) {
  const std::vector<std::uint32_t> keys = {3, 1, 2};
  try {
    (void)sortlab::stage01::trace_pass(keys, 32);
    ADD_FAILURE() << "no error for a bit outside the key";
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("bit = 32"), std::string::npos) << error.what();
  }
}

}  // namespace
