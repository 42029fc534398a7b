/// \file
/// \brief Stage 02 CPU model: hand-checked arrays for one pass over several tiles, and the full
/// model sort agrees with the reference sort.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort_model.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage02::model_pass;
using sortlab::stage02::model_pass_with_tile;
using U32s = std::vector<std::uint32_t>;

// Ten keys, tiles of 4: three blocks, the last one partial. Split on bit 0.
TEST(Stage02Model, OnePassArraysByHand) {
  const U32s keys = {12, 3, 6, 4, /**/ 15, 8, 5, 10, /**/ 7, 1};
  const auto trace = model_pass_with_tile(keys, 0, false, 4);
  EXPECT_EQ(trace.num_blocks, 3);
  EXPECT_EQ(trace.num_buckets, 2);
  EXPECT_EQ(trace.tile_items, 4u);
  EXPECT_EQ(trace.digits, (U32s{0, 1, 0, 0, /**/ 1, 0, 1, 0, /**/ 1, 1}));
  // Each tile split locally: its zeros in order, then its ones in order.
  EXPECT_EQ(trace.local_sorted, (U32s{12, 6, 4, 3, /**/ 8, 10, 15, 5, /**/ 7, 1}));
  // Row-major by bucket: 0-counts of blocks 0,1,2, then 1-counts of blocks 0,1,2.
  EXPECT_EQ(trace.block_bucket_table, (U32s{3, 2, 0, /**/ 1, 2, 2}));
  // Exclusive scan: block 1's zeros start after block 0's 3 zeros; block 0's ones start after
  // all 5 zeros; block 2's ones after the 5 zeros and the 1 + 2 ones of blocks 0 and 1.
  EXPECT_EQ(trace.scanned_table, (U32s{0, 3, 5, /**/ 5, 6, 8}));
  // start of (digit, block) + rank within the tile's bucket
  EXPECT_EQ(trace.destinations, (U32s{0, 5, 1, 2, /**/ 6, 3, 7, 4, /**/ 8, 9}));
  EXPECT_EQ(trace.keys_out, (U32s{12, 6, 4, 8, 10, /**/ 3, 15, 5, 7, 1}));
}

// With the GPU's 256-key tile the same keys fit in one block: the pass is stage 01's split.
TEST(Stage02Model, OneTileIsTheWholeSplit) {
  const U32s keys = {12, 3, 6, 4, 15, 8, 5, 10, 7, 1};
  const auto trace = model_pass(keys, 0);
  EXPECT_EQ(trace.num_blocks, 1);
  EXPECT_EQ(trace.tile_items, sortlab::stage02::kTileItems);
  EXPECT_EQ(trace.block_bucket_table, (U32s{5, 5}));
  EXPECT_EQ(trace.scanned_table, (U32s{0, 5}));
  EXPECT_EQ(trace.local_sorted, trace.keys_out);
  EXPECT_EQ(trace.keys_out, (U32s{12, 6, 4, 8, 10, 3, 15, 5, 7, 1}));
}

TEST(Stage02Model, EmptyInputHasNoBlocks) {
  const auto trace = model_pass(U32s{}, 5);
  EXPECT_EQ(trace.num_blocks, 0);
  EXPECT_TRUE(trace.block_bucket_table.empty());
  EXPECT_TRUE(trace.keys_out.empty());
}

TEST(Stage02Model, DescendingSplitsOnTheComplementedBit) {
  const U32s keys = {1, 0, 1, 0, 1};
  const auto trace = model_pass_with_tile(keys, 0, /*descending=*/true, 2);
  EXPECT_EQ(trace.digits, (U32s{0, 1, 0, 1, 0}));
  EXPECT_EQ(trace.block_bucket_table, (U32s{1, 1, 1, /**/ 1, 1, 0}));
  EXPECT_EQ(trace.scanned_table, (U32s{0, 1, 2, /**/ 3, 4, 5}));
  EXPECT_EQ(trace.keys_out, (U32s{1, 1, 1, 0, 0}));
}

TEST(Stage02Model, SignedAndFloatKeysSplitOnOrderedBits) {
  // The sign bit of an ordered int is set for non-negatives: -5 has bit 31 = 0, 5 has 1.
  EXPECT_EQ(model_pass(std::vector<std::int32_t>{5, -5}, 31).keys_out,
            (std::vector<std::int32_t>{-5, 5}));
  EXPECT_EQ(model_pass(std::vector<float>{2.5f, -1.0f}, 31).keys_out,
            (std::vector<float>{-1.0f, 2.5f}));
}

// The tile size changes how the work is cut, never where a key goes: every tiling gives the
// destinations of one global stable split.
TEST(Stage02Model, TileSizeDoesNotChangeThePassResult) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  SCOPED_TRACE(sortlab::testing::case_label(1000, "uniform", seed));
  const auto keys =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, 1000, seed);
  for (int bit : {0, 13, 31}) {
    const auto whole = model_pass_with_tile(keys, bit, false, keys.size());
    for (std::size_t tile : {1, 3, 256, 999, 5000}) {
      const auto tiled = model_pass_with_tile(keys, bit, false, tile);
      ASSERT_EQ(tiled.destinations, whole.destinations) << "tile " << tile << " bit " << bit;
      ASSERT_EQ(tiled.keys_out, whole.keys_out) << "tile " << tile << " bit " << bit;
      const std::size_t blocks = static_cast<std::size_t>(tiled.num_blocks);
      ASSERT_EQ(tiled.scanned_table[blocks], whole.block_bucket_table[0])  // ones start after
          << "tile " << tile;                                              // all zeros
    }
  }
}

template <typename Key>
class Stage02ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage02ModelSort, ModelKeys);

TYPED_TEST(Stage02ModelSort, FullModelSortMatchesReference) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  const sortlab::SortOptions option_sets[] = {
      {}, {0, sortlab::kAllBits, true}, {3, width - 5, false}, {5, 5, false}};
  for (const auto& options : option_sets) {
    for (auto distribution : sortlab::all_distributions()) {
      for (std::size_t n : {0, 1, 2, 33, 255, 256, 257, 1000}) {
        SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                     " begin_bit=" + std::to_string(options.begin_bit) +
                     " end_bit=" + std::to_string(options.end_bit) +
                     " descending=" + std::to_string(options.descending));
        const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
        const auto sorted = sortlab::stage02::model_sort(keys, options);
        const auto check = sortlab::verify_sorted_keys(keys, sorted, options);
        ASSERT_TRUE(check.ok) << check.message;
        const auto expected = sortlab::reference_sort_keys(keys, options);
        for (std::size_t i = 0; i < n; ++i)  // stable: identical bit patterns, position by position
          ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(sorted[i]),
                    sortlab::KeyTraits<Key>::raw_bits(expected[i]))
              << "at " << i;
      }
    }
  }
}

// The bandwidth model at 2^20 u32 keys: 4096 tiles, a table of 8192 counts, whose device scan
// needs 8 scan tiles: 16 * 8192 + 8 * 8 (tile totals written and read back) + 8 * 8 (their scan).
TEST(Stage02BytesModel, ChargesTheScanOfTheBlockBucketTable) {
  const double n = 1 << 20, entries = 8192;
  const double scan = 16.0 * entries + 64.0 + 64.0;
  // per bit: count 4n + 4 * entries, scan, scatter 8n + 4 * entries
  EXPECT_DOUBLE_EQ(sortlab::stage02::bytes_moved(1 << 20, 4, 0, 32),
                   32.0 * (12.0 * n + 8.0 * entries + scan));
  EXPECT_DOUBLE_EQ(sortlab::stage02::bytes_moved(1 << 20, 4, 4, 0), 2.0 * 8.0 * n);
}

// A bad trace argument is rejected before any GPU work (so this runs on any machine), and the
// message names the value it got.
TEST(Stage02TraceArguments, BadBitIsRejectedWithItsValue) {
  const std::vector<std::uint32_t> keys = {3, 1, 2};
  try {
    (void)sortlab::stage02::trace_pass(keys, -1);
    ADD_FAILURE() << "no error for a bit outside the key";
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("bit = -1"), std::string::npos) << error.what();
  }
}

}  // namespace
