/// \file
/// \brief Stage 05 CPU model: the packed counter words of a small tile by hand (before and after
/// the raking scan, the carry across a packed field), ranks equal stable ranks for many shapes,
/// the overflow bound, one pass and the whole model sort against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "chapters/05_packed_rank/packed_rank_model.hpp"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage05::model_packed_rank;

/// Stable ranks by digit, the slow obvious way: a key's rank counts the keys with a smaller digit
/// and the keys with the same digit earlier in the tile.
std::vector<std::uint32_t> stable_ranks(const std::vector<std::uint32_t>& digits) {
  std::vector<std::uint32_t> ranks(digits.size());
  for (std::size_t i = 0; i < digits.size(); ++i) {
    std::uint32_t rank = 0;
    for (std::size_t j = 0; j < digits.size(); ++j)
      if (digits[j] < digits[i] || (digits[j] == digits[i] && j < i)) ++rank;
    ranks[i] = rank;
  }
  return ranks;
}

// Four threads, two keys each, 2-bit digits, 16-bit counters: two fields per word, two lanes
// (digit d: lane d & 1, field d >> 1). Words are written as (field 1, field 0) = f1 << 16 | f0.
TEST(Stage05RankModel, PackedWordsOfASmallTileByHand) {
  // thread:             0       1       2       3
  const std::vector<std::uint32_t> digits = {1, 2, 0, 0, 3, 3, 2, 1};
  const auto model = model_packed_rank(digits, 4, 2, 2, 16);
  EXPECT_EQ(model.lanes, 2);
  EXPECT_EQ(model.fields_per_word, 2);
  const auto word = [](std::uint32_t field1, std::uint32_t field0) {
    return field1 << 16 | field0;
  };
  // Lane 0 counts digits 0 (field 0) and 2 (field 1); lane 1 counts digits 1 and 3.
  // thread 0 (1, 2): lane 0 = (1 two, 0 zeros), lane 1 = (0 threes, 1 one)
  // thread 1 (0, 0): lane 0 = (0, 2)
  // thread 2 (3, 3): lane 1 = (2, 0)
  // thread 3 (2, 1): lane 0 = (1, 0), lane 1 = (0, 1)
  EXPECT_EQ(model.before_scan, (std::vector<std::uint32_t>{
                                   word(1, 0), word(0, 2), word(0, 0), word(1, 0),  // lane 0
                                   word(0, 1), word(0, 0), word(2, 0), word(0, 1),  // lane 1
                               }));
  // Exclusive scan in memory order, both fields at once.
  EXPECT_EQ(model.scanned, (std::vector<std::uint32_t>{
                               word(0, 0), word(1, 0), word(1, 2), word(1, 2),  // lane 0
                               word(2, 2), word(2, 3), word(2, 3), word(4, 3),  // lane 1
                           }));
  // Field 0 counts digits 0 and 1 (2 + 2 = 4 keys), field 1 digits 2 and 3 (2 + 2 = 4 keys).
  EXPECT_EQ(model.block_total, word(4, 4));
  // The carry: field 1 must also count every key of field 0 (4 of them).
  EXPECT_EQ(model.carry, word(4, 0));
  EXPECT_EQ(model.after_scan, (std::vector<std::uint32_t>{
                                  word(4, 0),
                                  word(5, 0),
                                  word(5, 2),
                                  word(5, 2),
                                  word(6, 2),
                                  word(6, 3),
                                  word(6, 3),
                                  word(8, 3),
                              }));
  // Sorted by digit: 0 0 | 1 1 | 2 2 | 3 3 from positions 2 3 | 0 7 | 1 6 | 4 5.
  EXPECT_EQ(model.ranks, (std::vector<std::uint32_t>{2, 4, 0, 1, 6, 7, 5, 3}));
  EXPECT_EQ(model.ranks, stable_ranks(digits));
}

// With 8-bit counters four fields share a word, and the carry adds three shifted copies of the
// block total: field 3 receives the totals of fields 0, 1 and 2.
TEST(Stage05RankModel, CarryCrossesThreeFieldsWithEightBitCounters) {
  // 2-bit digits, 8-bit counters: one lane, field = digit. One thread, eight keys.
  const std::vector<std::uint32_t> digits = {3, 0, 2, 1, 3, 3, 0, 2};
  const auto model = model_packed_rank(digits, 1, 8, 2, 8);
  EXPECT_EQ(model.lanes, 1);
  EXPECT_EQ(model.fields_per_word, 4);
  // counts per field (digit): 0 -> 2, 1 -> 1, 2 -> 2, 3 -> 3
  EXPECT_EQ(model.before_scan, (std::vector<std::uint32_t>{0x03020102u}));
  EXPECT_EQ(model.block_total, 0x03020102u);
  // carry = total << 8 + total << 16 + total << 24: field f gets the counts of digits below f.
  EXPECT_EQ(model.carry, (0x03020102u << 8) + (0x03020102u << 16) + (0x03020102u << 24));
  EXPECT_EQ(model.after_scan, (std::vector<std::uint32_t>{0x05030200u}));  // starts 0, 2, 3, 5
  EXPECT_EQ(model.ranks, stable_ranks(digits));
}

// Ranks equal the stable ranks for many tile shapes, digit widths, counter widths and
// distributions of digits (all equal, two values, uniform).
TEST(Stage05RankModel, RanksAreStableRanksForEveryShape) {
  std::mt19937 random(static_cast<std::uint32_t>(sortlab::testing::test_seed()));
  struct Shape {
    int threads, keys_per_thread, radix_bits, counter_bits;
  };
  for (const Shape shape :
       {Shape{32, 1, 1, 16}, Shape{32, 7, 4, 8}, Shape{64, 3, 2, 8}, Shape{128, 4, 4, 16},
        Shape{64, 5, 6, 16}, Shape{32, 8, 8, 16}, Shape{256, 2, 6, 16}, Shape{32, 3, 3, 8}}) {
    const std::size_t items = static_cast<std::size_t>(shape.threads) * shape.keys_per_thread;
    const std::uint32_t digit_count = 1u << shape.radix_bits;
    for (int pattern = 0; pattern < 3; ++pattern) {
      SCOPED_TRACE("threads=" + std::to_string(shape.threads) +
                   " K=" + std::to_string(shape.keys_per_thread) +
                   " r=" + std::to_string(shape.radix_bits) + " counter_bits=" +
                   std::to_string(shape.counter_bits) + " pattern=" + std::to_string(pattern));
      std::vector<std::uint32_t> digits(items);
      for (auto& digit : digits)
        digit = pattern == 0   ? digit_count - 1
                : pattern == 1 ? random() % 2
                               : random() % digit_count;
      const auto model = model_packed_rank(digits, shape.threads, shape.keys_per_thread,
                                           shape.radix_bits, shape.counter_bits);
      ASSERT_EQ(model.ranks, stable_ranks(digits));
    }
  }
}

// The largest tile 8-bit counters allow (255 keys) still ranks correctly with every key in the
// top field, where the carry is largest; 256 keys are refused.
TEST(Stage05RankModel, OverflowBound) {
  const std::vector<std::uint32_t> top(255, 3);
  const auto model = model_packed_rank(top, 255, 1, 2, 8);
  EXPECT_EQ(model.ranks, stable_ranks(top));
  EXPECT_THROW(model_packed_rank(std::vector<std::uint32_t>(256, 3), 256, 1, 2, 8), sortlab::Error);
  // The device sort's tiles fit 16-bit counters with room to spare.
  EXPECT_LT(sortlab::stage05::tile_items_for(4), 1 << 16);
  EXPECT_LT(sortlab::stage05::tile_items_for(8), 1 << 16);
}

// One pass, two tiles: the second one partial, so its padding positions carry the largest digit
// in the counters but get no destination.
TEST(Stage05PassModel, TwoTilesOfOnePass) {
  const std::size_t tile = sortlab::stage05::tile_items_for(4);
  std::vector<std::uint32_t> keys(tile + 5);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::uint32_t>((i * 37) % 64);
  const auto trace = sortlab::stage05::model_pass(keys, 0, 6);
  EXPECT_EQ(trace.num_blocks, 2);
  EXPECT_EQ(trace.num_digits, 64);
  ASSERT_EQ(trace.counters.size(), 2u);
  EXPECT_EQ(trace.counters[1].before_scan.size(), 32u * 256u);
  // Every destination is used once and the output is sorted by the digit.
  std::vector<std::uint32_t> destinations = trace.destinations;
  std::sort(destinations.begin(), destinations.end());
  for (std::size_t i = 0; i < destinations.size(); ++i) ASSERT_EQ(destinations[i], i);
  EXPECT_TRUE(std::is_sorted(trace.keys_out.begin(), trace.keys_out.end()));
  // The second tile's five keys rank 0..4 within it.
  std::vector<std::uint32_t> tail(trace.ranks.end() - 5, trace.ranks.end());
  std::sort(tail.begin(), tail.end());
  EXPECT_EQ(tail, (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
}

template <typename Key>
class Stage05ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, double,
                                   std::uint8_t, __half>;
TYPED_TEST_SUITE(Stage05ModelSort, ModelKeys);

TYPED_TEST(Stage05ModelSort, FullModelSortMatchesReference) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  const sortlab::SortOptions option_sets[] = {
      {}, {0, sortlab::kAllBits, true}, {3, width - 2, false}, {2, 2, false}};
  for (const auto& options : option_sets) {
    for (auto distribution : sortlab::all_distributions()) {
      for (std::size_t n : {0, 1, 2, 33, 4097, 9000}) {
        SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                     " bits=[" + std::to_string(options.begin_bit) + "," +
                     std::to_string(options.end_bit) +
                     ") descending=" + std::to_string(options.descending));
        const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
        const auto sorted = sortlab::stage05::model_sort(keys, options);
        const auto expected = sortlab::reference_sort_keys(keys, options);
        ASSERT_EQ(sorted.size(), keys.size());
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(sorted[i]),
                    sortlab::KeyTraits<Key>::raw_bits(expected[i]))
              << "at " << i;
      }
    }
  }
}

// The bandwidth model at 2^20 u32 keys: a survey read, then 6 passes of 12 bytes per key plus a
// 64 x 256-entry table (16384 entries, 16 scan tiles).
TEST(Stage05BytesModel, SurveyAndSixPasses) {
  const double n = 1 << 20, entries = 64.0 * 256.0;
  // 16 scan tiles: items read and written twice, 16 totals written, scanned (8 bytes each), read
  const double scan = 16.0 * entries + 4.0 * 16 + 8.0 * 16 + 4.0 * 16;
  EXPECT_DOUBLE_EQ(sortlab::stage05::bytes_moved(1 << 20, 4, 0, 32),
                   4.0 * n + 6.0 * (12.0 * n + 8.0 * entries + scan));
  EXPECT_DOUBLE_EQ(sortlab::stage05::bytes_moved(1 << 20, 4, 4, 0), 2.0 * 8.0 * n);
  EXPECT_EQ(sortlab::stage05::num_passes(32), 6);
  EXPECT_EQ(sortlab::stage05::num_passes(64), 11);
  EXPECT_EQ(sortlab::stage05::num_passes(8), 2);
}

// The device sort checks its arguments before anything else (no GPU needed to see that).
TEST(Stage05Arguments, BadArgumentsThrowWithoutAGpu) {
  std::uint32_t fake[2] = {0, 0};
  std::size_t temp_bytes = 0;
  EXPECT_THROW(sortlab::stage05::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1,
                                                          {0, 33, false}),
               sortlab::Error);
  // 2^32 - 1 keys are accepted (a size query), one more is refused.
  EXPECT_NO_THROW(sortlab::stage05::sort_keys<std::uint8_t>(nullptr, temp_bytes, nullptr, nullptr,
                                                            sortlab::stage05::kMaxItems));
  EXPECT_THROW(sortlab::stage05::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1,
                                                          sortlab::stage05::kMaxItems + 1),
               sortlab::Error);
  // Digit widths other than 6 and 7 are not compiled; trace_pass checks its arguments first.
  EXPECT_NO_THROW(sortlab::stage05::validate_config(sortlab::stage05::Config{7}));
  EXPECT_THROW(sortlab::stage05::validate_config(sortlab::stage05::Config{8}), sortlab::Error);
  EXPECT_THROW(sortlab::stage05::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1,
                                                          {}, sortlab::stage05::Config{5}),
               sortlab::Error);
  EXPECT_THROW(sortlab::stage05::trace_pass(std::vector<std::uint32_t>{1, 2}, 32), sortlab::Error);
  EXPECT_THROW(sortlab::stage05::trace_pass(std::vector<std::uint32_t>{1, 2}, 0, 7),
               sortlab::Error);
  // 16-byte values move as 16-byte words: a values pointer that is only 4-byte aligned (legal
  // for a struct of four floats) is refused with a message, not faulted on.
  struct FourFloats {
    float x, y, z, w;
  };
  alignas(16) FourFloats values[3] = {};
  const auto* misaligned = reinterpret_cast<const FourFloats*>(
      reinterpret_cast<const unsigned char*>(values) + sizeof(float));
  const auto sort_four_floats = [&](const FourFloats* in, FourFloats* out) {
    sortlab::stage05::sort_pairs(nullptr, temp_bytes, fake, fake + 1, in, out, 1);
  };
  EXPECT_THROW(sort_four_floats(misaligned, values + 2), sortlab::Error);
  EXPECT_NO_THROW(sort_four_floats(values, values + 2));
  // A query answers without touching the device.
  sortlab::stage05::sort_pairs<std::uint32_t, std::uint64_t>(nullptr, temp_bytes, nullptr, nullptr,
                                                             nullptr, nullptr, 1000);
  EXPECT_GT(temp_bytes, 1000u * 12u);
}

}  // namespace
