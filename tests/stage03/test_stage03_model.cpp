/// \file
/// \brief Stage 03 CPU model: hand-checked arrays for one pass (one block, then two blocks to
/// show the row-major table), the argument checks, and the full model sort against the reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <vector>

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/03_multibit_radix/multibit_radix_model.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage03::Config;
using sortlab::stage03::model_pass;

// Eight small keys, a 2-bit digit at bit 0, one block: the whole pass by hand.
TEST(Stage03Model, OneBlockPassArraysByHand) {
  const std::vector<std::uint32_t> keys = {12, 3, 6, 9, 15, 8, 5, 10};
  const auto trace = model_pass(keys, 0, Config{2});
  EXPECT_EQ(trace.num_blocks, 1);
  EXPECT_EQ(trace.num_buckets, 4);
  EXPECT_EQ(trace.tile_items, std::size_t{256});
  EXPECT_EQ(trace.digits, (std::vector<std::uint32_t>{0, 3, 2, 1, 3, 0, 1, 2}));
  // Local split on digit bit 0: {12,6,8,10 | 3,9,15,5}; then on bit 1: {12,8,9,5 | 6,10,3,15}.
  EXPECT_EQ(trace.local_sorted, (std::vector<std::uint32_t>{12, 8, 9, 5, 6, 10, 3, 15}));
  EXPECT_EQ(trace.block_bucket_table, (std::vector<std::uint32_t>{2, 2, 2, 2}));
  EXPECT_EQ(trace.scanned_table, (std::vector<std::uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(trace.destinations, (std::vector<std::uint32_t>{0, 6, 4, 2, 7, 1, 3, 5}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{12, 8, 9, 5, 6, 10, 3, 15}));
}

// Two blocks: block 0 holds 256 keys i % 4 (64 of each digit), block 1 holds {3, 1, 3, 0}.
// The table is row-major by bucket, so its scan puts bucket 0 of block 1 (at 64) before
// bucket 1 of block 0 (at 65).
TEST(Stage03Model, TwoBlockTableIsRowMajorByBucket) {
  std::vector<std::uint32_t> keys(256);
  for (std::uint32_t i = 0; i < 256; ++i) keys[i] = i % 4;
  keys.insert(keys.end(), {3, 1, 3, 0});
  const auto trace = model_pass(keys, 0, Config{2});
  EXPECT_EQ(trace.num_blocks, 2);
  //                       (d0,b0) (d0,b1) (d1,b0) (d1,b1) (d2,b0) (d2,b1) (d3,b0) (d3,b1)
  EXPECT_EQ(trace.block_bucket_table, (std::vector<std::uint32_t>{64, 1, 64, 1, 64, 0, 64, 2}));
  EXPECT_EQ(trace.scanned_table, (std::vector<std::uint32_t>{0, 64, 65, 129, 130, 194, 194, 258}));
  // Block 1 after the local split: {0, 1, 3, 3}, local starts d0:0 d1:1 d2:2 d3:2.
  EXPECT_EQ(std::vector<std::uint32_t>(trace.local_sorted.begin() + 256, trace.local_sorted.end()),
            (std::vector<std::uint32_t>{0, 1, 3, 3}));
  // key 3 (local 2) -> 258 + 0, key 1 (local 1) -> 129 + 0, key 3 (local 3) -> 258 + 1,
  // key 0 (local 0) -> 64 + 0.
  EXPECT_EQ(trace.destinations[256], 258u);
  EXPECT_EQ(trace.destinations[257], 129u);
  EXPECT_EQ(trace.destinations[258], 259u);
  EXPECT_EQ(trace.destinations[259], 64u);
  // Block 0: key i (digit d = i % 4) is the (i / 4)-th key of bucket d -> scanned(d, 0) + i / 4.
  EXPECT_EQ(trace.destinations[0], 0u);
  EXPECT_EQ(trace.destinations[5], 65u + 1u);
  EXPECT_EQ(trace.destinations[255], 194u + 63u);
  for (std::size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(trace.keys_out[trace.destinations[i]], keys[i]) << "input " << i;
}

TEST(Stage03Model, LastPassIsNarrowerAndDescendingComplementsTheDigit) {
  const std::vector<std::uint32_t> keys = {0xC0000000u, 0x40000000u, 0x80000000u, 0u};
  // first_bit 30 with r = 4 leaves 2 bits: 4 buckets.
  const auto top = model_pass(keys, 30, Config{4});
  EXPECT_EQ(top.num_buckets, 4);
  EXPECT_EQ(top.digits, (std::vector<std::uint32_t>{3, 1, 2, 0}));
  EXPECT_EQ(top.keys_out, (std::vector<std::uint32_t>{0u, 0x40000000u, 0x80000000u, 0xC0000000u}));
  const auto down = model_pass(keys, 30, Config{4}, /*descending=*/true);
  EXPECT_EQ(down.digits, (std::vector<std::uint32_t>{0, 2, 1, 3}));
  EXPECT_EQ(down.keys_out, (std::vector<std::uint32_t>{0xC0000000u, 0x80000000u, 0x40000000u, 0u}));
}

TEST(Stage03Model, SignedAndFloatKeysUseOrderedBits) {
  EXPECT_EQ(model_pass(std::vector<std::int32_t>{5, -5}, 28).keys_out,
            (std::vector<std::int32_t>{-5, 5}));
  EXPECT_EQ(model_pass(std::vector<float>{2.5f, -1.0f}, 28).keys_out,
            (std::vector<float>{-1.0f, 2.5f}));
}

TEST(Stage03Config, RadixBitsOutsideOneToEightAreRejected) {
  const std::vector<std::uint32_t> keys = {1, 2, 3};
  for (int bad : {-1, 0, 9, 32}) {
    SCOPED_TRACE("radix_bits=" + std::to_string(bad));
    EXPECT_THROW(sortlab::stage03::validate_config(Config{bad}), sortlab::Error);
    EXPECT_THROW(model_pass(keys, 0, Config{bad}), sortlab::Error);
    EXPECT_THROW(sortlab::stage03::model_sort(keys, {}, Config{bad}), sortlab::Error);
    EXPECT_THROW(sortlab::stage03::bytes_moved(1024, 4, 0, 32, Config{bad}), sortlab::Error);
    // The size query checks the config before touching any memory, so no GPU is needed.
    std::uint32_t in[3] = {}, out[3] = {};
    std::size_t temp_bytes = 0;
    EXPECT_THROW(sortlab::stage03::sort_keys<std::uint32_t>(nullptr, temp_bytes, in, out, 3, {},
                                                            Config{bad}),
                 sortlab::Error);
  }
  for (int good = 1; good <= 8; ++good) EXPECT_NO_THROW(sortlab::stage03::validate_config({good}));
  EXPECT_EQ(Config{}.radix_bits, sortlab::stage03::kDefaultRadixBits);
}

TEST(Stage03Config, PassCountAndTraffic) {
  EXPECT_EQ(sortlab::stage03::num_passes(32, Config{1}), 32);
  EXPECT_EQ(sortlab::stage03::num_passes(32, Config{3}), 11);
  EXPECT_EQ(sortlab::stage03::num_passes(32, Config{4}), 8);
  EXPECT_EQ(sortlab::stage03::num_passes(32, Config{8}), 4);
  EXPECT_EQ(sortlab::stage03::num_passes(0, Config{4}), 0);
  // r = 4, n = 256 (one block, 16 table entries), keys only: per pass 4*256 (count) +
  // 16*16 (table: write, scan read+write, scatter read) + 2*4*256 (scatter), 8 passes.
  EXPECT_DOUBLE_EQ(sortlab::stage03::bytes_moved(256, 4, 0, 32, Config{4}),
                   8.0 * (3.0 * 4 * 256 + 16.0 * 16));
  // r = 4, n = 2^20: 4096 tiles, 65536 entries, a two-level scan of 64 scan tiles
  // (16 * 65536 + 8 * 64 + 8 * 64 bytes).
  EXPECT_DOUBLE_EQ(sortlab::stage03::bytes_moved(1 << 20, 4, 0, 32, Config{4}),
                   8.0 * (12.0 * (1 << 20) + 8.0 * 65536 + 16.0 * 65536 + 1024.0));
  // Fewer passes move fewer key bytes, until the table (2^r rows) starts to dominate.
  const std::size_t n = std::size_t{1} << 24;
  EXPECT_LT(sortlab::stage03::bytes_moved(n, 4, 0, 32, Config{4}),
            sortlab::stage03::bytes_moved(n, 4, 0, 32, Config{1}));
}

template <typename Key>
class Stage03ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage03ModelSort, ModelKeys);

// Bit-exact equality with the stable reference: same keys, in the same order, position by
// position (stability shows because equal sort bits may still differ in raw bits).
template <typename Key>
void expect_matches_reference(const std::vector<Key>& keys, const sortlab::SortOptions& options,
                              const Config& config) {
  const auto sorted = sortlab::stage03::model_sort(keys, options, config);
  const auto expected = sortlab::reference_sort_keys(keys, options);
  ASSERT_EQ(sorted.size(), expected.size());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(sorted[i]),
              sortlab::KeyTraits<Key>::raw_bits(expected[i]))
        << "at " << i;
}

TYPED_TEST(Stage03ModelSort, FullModelSortMatchesReferenceForEveryRadixWidth) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution : sortlab::all_distributions()) {
    for (std::size_t n : {0, 1, 2, 33, 1000, 3 * 256 + 7}) {
      const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
      for (int r = 1; r <= 8; ++r) {
        SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                     " r=" + std::to_string(r));
        expect_matches_reference(keys, {}, Config{r});
      }
    }
  }
}

TYPED_TEST(Stage03ModelSort, BitWindowsAndDescending) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const sortlab::SortOptions option_sets[] = {
      {0, sortlab::kAllBits, true}, {0, 4, false}, {3, 27, false}, {24, 32, true}, {5, 5, false}};
  for (const auto& options : option_sets)
    for (auto distribution : {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
                              sortlab::Distribution::kFloatSpecials})
      for (int r : {1, 3, 4, 8}) {
        SCOPED_TRACE(sortlab::testing::case_label(1000, sortlab::to_string(distribution), seed) +
                     " r=" + std::to_string(r) + " begin_bit=" + std::to_string(options.begin_bit) +
                     " end_bit=" + std::to_string(options.end_bit) +
                     " descending=" + std::to_string(options.descending));
        expect_matches_reference(sortlab::generate_keys<Key>(distribution, 1000, seed), options,
                                 Config{r});
      }
}

// A bad trace argument is rejected before any GPU work (so this runs on any machine), and the
// message names the value it got.
TEST(Stage03TraceArguments, BadBitIsRejectedWithItsValue) {
  const std::vector<std::uint32_t> keys = {3, 1, 2};
  try {
    (void)sortlab::stage03::trace_pass(keys, 40);
    ADD_FAILURE() << "no error for a bit outside the key";
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("first_bit = 40"), std::string::npos) << error.what();
  }
}

}  // namespace
