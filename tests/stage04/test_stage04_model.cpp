/// \file
/// \brief Stage 04 CPU model: hand-checked arrays for one pass, the full model sort agrees with
/// the reference sort, and invalid configurations are rejected.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix_model.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage04::Config;
using sortlab::stage04::model_pass;

// Eight keys, 2-bit digits (4 buckets), one key per thread: one partial tile of 256.
TEST(Stage04Model, OnePassArraysByHand) {
  const std::vector<std::uint32_t> keys = {13, 6, 3, 8, 10, 7, 1, 12};
  const auto trace = model_pass(keys, 0, Config{2, 1});
  EXPECT_EQ(trace.num_blocks, 1);
  EXPECT_EQ(trace.num_buckets, 4);
  EXPECT_EQ(trace.tile_items, 256u);
  // low two bits: 13=1101 -> 1, 6=0110 -> 2, 3 -> 3, 8 -> 0, 10 -> 2, 7 -> 3, 1 -> 1, 12 -> 0
  EXPECT_EQ(trace.digits, (std::vector<std::uint32_t>{1, 2, 3, 0, 2, 3, 1, 0}));
  // split on bit 0: [6 8 10 12 | 13 3 7 1]; then on bit 1: [8 12 13 1 | 6 10 3 7]
  EXPECT_EQ(trace.local_sorted, (std::vector<std::uint32_t>{8, 12, 13, 1, 6, 10, 3, 7}));
  EXPECT_EQ(trace.block_bucket_table, (std::vector<std::uint32_t>{2, 2, 2, 2}));
  EXPECT_EQ(trace.scanned_table, (std::vector<std::uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(trace.destinations, (std::vector<std::uint32_t>{2, 4, 6, 0, 5, 7, 3, 1}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{8, 12, 13, 1, 6, 10, 3, 7}));
}

// Two tiles of one key per thread (256 keys, then 4), 2-bit digits: the table has 4 rows of 2
// columns, row-major by bucket.
TEST(Stage04Model, TwoTilesTableByHand) {
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < 256; ++i) keys.push_back(3 - i % 4);  // 3 2 1 0 3 2 1 0 ...
  for (std::uint32_t key : {2u, 0u, 2u, 1u}) keys.push_back(key);     // tile 1
  const auto trace = model_pass(keys, 0, Config{2, 1});
  EXPECT_EQ(trace.num_blocks, 2);
  // (d, b) at d*2 + b: tile 0 has 64 of every digit; tile 1 has one 0, one 1, two 2s, no 3.
  EXPECT_EQ(trace.block_bucket_table, (std::vector<std::uint32_t>{64, 1, 64, 1, 64, 2, 64, 0}));
  // Bucket 0 of tile 0 starts at 0, bucket 0 of tile 1 after it at 64, bucket 1 of tile 0 at 65...
  EXPECT_EQ(trace.scanned_table, (std::vector<std::uint32_t>{0, 64, 65, 129, 130, 194, 196, 260}));
  // Tile 1 sorted locally: 0 (input 257), 1 (259), 2 (256), 2 (258).
  const std::vector<std::uint32_t> tile1(trace.local_sorted.begin() + 256,
                                         trace.local_sorted.end());
  EXPECT_EQ(tile1, (std::vector<std::uint32_t>{0, 1, 2, 2}));
  // Its keys go to scanned(d, 1) + rank within the bucket: 2 -> 194, 0 -> 64, 2 -> 195, 1 -> 129.
  const std::vector<std::uint32_t> tile1_destinations(trace.destinations.begin() + 256,
                                                      trace.destinations.end());
  EXPECT_EQ(tile1_destinations, (std::vector<std::uint32_t>{194, 64, 195, 129}));
  // Tile 0: key i has digit d = 3 - i%4 and is the (i/4)-th of its digit in the tile.
  for (std::uint32_t i = 0; i < 256; ++i) {
    const std::uint32_t d = 3 - i % 4;
    ASSERT_EQ(trace.destinations[i], trace.scanned_table[d * 2] + i / 4) << "at " << i;
  }
  // Output: 65 zeros, 65 ones, 66 twos, 64 threes.
  for (std::size_t p = 0; p < keys.size(); ++p) {
    const std::uint32_t expected = p < 65 ? 0 : p < 130 ? 1 : p < 196 ? 2 : 3;
    ASSERT_EQ(trace.keys_out[p], expected) << "at " << p;
  }
}

TEST(Stage04Model, DescendingUsesTheComplementedDigit) {
  const std::vector<std::uint32_t> keys = {1, 2, 0, 3, 2};
  const auto trace = model_pass(keys, 0, Config{2, 1}, /*descending=*/true);
  EXPECT_EQ(trace.digits, (std::vector<std::uint32_t>{2, 1, 3, 0, 1}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{3, 2, 2, 1, 0}));
  EXPECT_EQ(trace.destinations, (std::vector<std::uint32_t>{3, 1, 4, 0, 2}));
}

TEST(Stage04Model, LastDigitIsNarrower) {
  // r = 4 from bit 30 of a 32-bit key leaves 2 bits: 4 buckets.
  const std::vector<std::uint32_t> keys = {0xC0000000u, 0x40000000u, 0x80000000u, 0u};
  const auto trace = model_pass(keys, 30, Config{4, 8});
  EXPECT_EQ(trace.num_buckets, 4);
  EXPECT_EQ(trace.tile_items, 2048u);
  EXPECT_EQ(trace.digits, (std::vector<std::uint32_t>{3, 1, 2, 0}));
  EXPECT_EQ(trace.keys_out,
            (std::vector<std::uint32_t>{0u, 0x40000000u, 0x80000000u, 0xC0000000u}));
}

TEST(Stage04Model, TileSizeFollowsKeysPerThread) {
  const std::vector<std::uint32_t> keys(5000, 1u);
  for (int k : sortlab::stage04::kSupportedKeysPerThread) {
    const auto trace = model_pass(keys, 0, Config{4, k});
    const std::size_t tile = 256u * static_cast<std::size_t>(k);
    EXPECT_EQ(trace.tile_items, tile);
    EXPECT_EQ(trace.num_blocks, static_cast<int>((5000 + tile - 1) / tile));
    EXPECT_EQ(trace.block_bucket_table.size(), 16u * static_cast<std::size_t>(trace.num_blocks));
  }
}

TEST(Stage04Config, InvalidConfigurationsThrow) {
  using sortlab::stage04::validate_config;
  EXPECT_NO_THROW(validate_config(Config{}));
  EXPECT_NO_THROW(validate_config(Config{1, 1}));
  EXPECT_NO_THROW(validate_config(Config{8, 16}));
  EXPECT_THROW(validate_config(Config{0, 8}), sortlab::Error);
  EXPECT_THROW(validate_config(Config{9, 8}), sortlab::Error);
  EXPECT_THROW(validate_config(Config{4, 0}), sortlab::Error);
  EXPECT_THROW(validate_config(Config{4, 3}), sortlab::Error);
  EXPECT_THROW(validate_config(Config{4, 32}), sortlab::Error);
  EXPECT_THROW(model_pass(std::vector<std::uint32_t>{1}, 0, Config{4, 5}), sortlab::Error);
  try {
    validate_config(Config{4, 3});
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("1, 2, 4, 8, 16"), std::string::npos)
        << "the message lists the supported values: " << error.what();
  }
  // The device sort checks its Config before anything else (no GPU needed to see that).
  std::uint32_t fake[2] = {0, 0};
  std::size_t temp_bytes = 0;
  EXPECT_THROW(sortlab::stage04::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1,
                                                          {}, Config{4, 7}),
               sortlab::Error);
  EXPECT_THROW(sortlab::stage04::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1,
                                                          {}, Config{10, 8}),
               sortlab::Error);
}

template <typename Key>
class Stage04ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage04ModelSort, ModelKeys);

TYPED_TEST(Stage04ModelSort, FullModelSortMatchesReference) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  const sortlab::SortOptions option_sets[] = {
      {}, {0, sortlab::kAllBits, true}, {3, width - 5, false}, {5, 5, false}};
  for (const Config config : {Config{}, Config{3, 1}, Config{8, 2}, Config{1, 16}}) {
    for (const auto& options : option_sets) {
      for (auto distribution : sortlab::all_distributions()) {
        for (std::size_t n : {0, 1, 2, 33, 1000, 2049, 5000}) {
          SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                       " r=" + std::to_string(config.radix_bits) +
                       " K=" + std::to_string(config.keys_per_thread) + " bits=[" +
                       std::to_string(options.begin_bit) + "," + std::to_string(options.end_bit) +
                       ") descending=" + std::to_string(options.descending));
          const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
          const auto sorted = sortlab::stage04::model_sort(keys, options, config);
          const auto expected = sortlab::reference_sort_keys(keys, options);
          ASSERT_EQ(sorted.size(), keys.size());
          for (std::size_t i = 0; i < n;
               ++i)  // stable: identical bit patterns, position by position
            ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(sorted[i]),
                      sortlab::KeyTraits<Key>::raw_bits(expected[i]))
                << "at " << i;
        }
      }
    }
  }
}

// The bandwidth model at 2^20 u32 keys, r = 4, K = 8: 512 tiles of 2048 keys, 16 * 512 = 8192
// table entries, whose scan needs 8 scan tiles (16 * 8192 + 64 + 64 bytes).
TEST(Stage04BytesModel, ChargesTheScanOfTheSmallerTable) {
  const double n = 1 << 20, entries = 8192;
  const double scan = 16.0 * entries + 64.0 + 64.0;
  EXPECT_DOUBLE_EQ(sortlab::stage04::bytes_moved(1 << 20, 4, 0, 32, Config{4, 8}),
                   8.0 * (12.0 * n + 8.0 * entries + scan));
  // K = 1 has 8x the table (65536 entries, 64 scan tiles: 16 * 65536 + 512 + 512)
  EXPECT_DOUBLE_EQ(sortlab::stage04::bytes_moved(1 << 20, 4, 0, 32, Config{4, 1}),
                   8.0 * (12.0 * n + 8.0 * 65536 + 16.0 * 65536 + 1024.0));
  EXPECT_DOUBLE_EQ(sortlab::stage04::bytes_moved(1 << 20, 4, 4, 0, Config{4, 8}), 2.0 * 8.0 * n);
}

// A bad trace argument is rejected before any GPU work (so this runs on any machine), and the
// message names the value it got.
TEST(Stage04TraceArguments, BadBitIsRejectedWithItsValue) {
  const std::vector<std::uint32_t> keys = {3, 1, 2};
  try {
    (void)sortlab::stage04::trace_pass(keys, 32);
    ADD_FAILURE() << "no error for a bit outside the key";
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("first_bit = 32"), std::string::npos) << error.what();
  }
}

}  // namespace
