/// \file
/// \brief Stage 08 CPU model: the status word, a small pass by hand (in order and out of order,
/// with the look-back's text), the one-read histograms of every digit place, the look-back's
/// invariants under many completion orders, and the model sort against the stable reference for
/// many key types, distributions and sizes.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cmath>
#include <numeric>
#include <random>

#include "chapters/08_onesweep/onesweep_model.hpp"
#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "chapters/08_onesweep/pass_roles.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/support/key_types.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage08 = sortlab::stage08;
using sortlab::TileFlag;

/// The pack of (flag, count), one word each.
std::vector<std::uint32_t> words(TileFlag flag, const std::vector<std::uint32_t>& counts) {
  std::vector<std::uint32_t> packed;
  for (std::uint32_t count : counts) packed.push_back(sortlab::pack_status(flag, count));
  return packed;
}

// A flag and a 30-bit count share one word, and each comes back out unchanged.
TEST(Stage08StatusWord, FlagAndCountShareOneWord) {
  for (TileFlag flag : {TileFlag::kNotReady, TileFlag::kAggregate, TileFlag::kPrefix})
    for (std::uint32_t count : {0u, 1u, 4096u, (1u << 30) - 1u}) {
      const std::uint32_t word = sortlab::pack_status(flag, count);
      EXPECT_EQ(sortlab::status_flag(word), flag);
      EXPECT_EQ(sortlab::status_count(word), count);
    }
  // Zeroed memory reads as "not ready": the sort clears the words with a memset.
  EXPECT_EQ(sortlab::status_flag(0u), TileFlag::kNotReady);
  EXPECT_EQ(sortlab::pack_status(TileFlag::kPrefix, 5), 0x80000005u);
}

// Eleven keys, 2-bit digits (key & 3), tiles of 4 keys: three tiles, the last one partial. The
// keys are digit + 4 * index, so the output shows which key went where.
//   tile 0: indices 0-3  digits 1 3 0 1   counts (1 2 0 1)
//   tile 1: indices 4-7  digits 2 1 1 0   counts (1 2 1 0)
//   tile 2: indices 8-10 digits 3 3 2     counts (0 0 1 2)
std::vector<std::uint32_t> hand_keys() {
  const std::vector<std::uint32_t> digits = {1, 3, 0, 1, 2, 1, 1, 0, 3, 3, 2};
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < digits.size(); ++i) keys.push_back(digits[i] + 4 * i);
  return keys;
}

TEST(Stage08PassModel, ThreeTilesByHandInOrder) {
  const auto model = stage08::model_pass(hand_keys(), 0, 2, false, nullptr, 4);
  const auto& trace = model.trace;
  EXPECT_EQ(trace.num_tiles, 3);
  EXPECT_EQ(trace.num_digits, 4);
  EXPECT_EQ(trace.digits, (std::vector<std::uint32_t>{1, 3, 0, 1, 2, 1, 1, 0, 3, 3, 2}));
  EXPECT_EQ(trace.histogram, (std::vector<std::uint32_t>{2, 4, 2, 3}));
  EXPECT_EQ(trace.digit_starts, (std::vector<std::uint32_t>{0, 2, 6, 8}));
  EXPECT_EQ(trace.tile_counts, (std::vector<std::uint32_t>{1, 2, 0, 1,  //
                                                           1, 2, 1, 0,  //
                                                           0, 0, 1, 2}));
  EXPECT_EQ(trace.exclusive_prefixes, (std::vector<std::uint32_t>{0, 0, 0, 0,  //
                                                                  1, 2, 0, 1,  //
                                                                  2, 4, 1, 1}));
  EXPECT_EQ(trace.ranks, (std::vector<std::uint32_t>{1, 3, 0, 2, 3, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(trace.destinations, (std::vector<std::uint32_t>{2, 8, 0, 3, 6, 4, 5, 1, 9, 10, 7}));
  EXPECT_EQ(trace.keys_out, (std::vector<std::uint32_t>{8, 28, 1, 13, 21, 25, 18, 42, 7, 35, 39}));
  // In order every look-back reads one prefix; the last tile publishes no prefix.
  EXPECT_EQ(stage08::describe_lookback(model.lookback, trace.tile_counts),
            "tile 0 publishes prefix (1 2 0 1)\n"
            "tile 1 publishes aggregate (1 2 1 0)\n"
            "tile 1 reads tile 0: prefix (1 2 0 1)\n"
            "tile 1 publishes prefix (2 4 1 1)\n"
            "tile 2 publishes aggregate (0 0 1 2)\n"
            "tile 2 reads tile 1: prefix (2 4 1 1)\n");
  EXPECT_EQ(trace.final_status, model.lookback.final_status);
  EXPECT_EQ(model.lookback.final_status[0], sortlab::pack_status(TileFlag::kPrefix, 1));
  EXPECT_EQ(model.lookback.final_status[4], sortlab::pack_status(TileFlag::kPrefix, 2));
  EXPECT_EQ(model.lookback.final_status[8], sortlab::pack_status(TileFlag::kAggregate, 0));
}

// The same pass with tiles finishing out of order: tile 2 publishes before tile 0 has, reads
// tile 1's aggregate, finds tile 0 not ready and waits, then reads tile 0's prefix. The offsets
// (and so the output) are the same as in order. This is the README's walk-through.
TEST(Stage08PassModel, ThreeTilesByHandOutOfOrder) {
  const stage08::LookbackSchedule schedule{{1, 2, 2, 2, 0, 2, 1}};
  const auto model = stage08::model_pass(hand_keys(), 0, 2, false, &schedule, 4);
  const auto in_order = stage08::model_pass(hand_keys(), 0, 2, false, nullptr, 4);
  EXPECT_EQ(stage08::describe_lookback(model.lookback, model.trace.tile_counts),
            "tile 1 publishes aggregate (1 2 1 0)\n"
            "tile 2 publishes aggregate (0 0 1 2)\n"
            "tile 2 reads tile 1: aggregate (1 2 1 0)\n"
            "tile 2 reads tile 0: not ready, waits\n"
            "tile 0 publishes prefix (1 2 0 1)\n"
            "tile 2 reads tile 0: prefix (1 2 0 1)\n"
            "tile 1 reads tile 0: prefix (1 2 0 1)\n"
            "tile 1 publishes prefix (2 4 1 1)\n");
  ASSERT_EQ(model.lookback.reads[2].size(), 3u);
  EXPECT_EQ(model.lookback.reads[2][1].flag, TileFlag::kNotReady);
  EXPECT_TRUE(model.lookback.reads[2][1].words.empty());
  EXPECT_EQ(model.lookback.reads[2][0].words, words(TileFlag::kAggregate, {1, 2, 1, 0}));
  EXPECT_EQ(model.lookback.reads[2][2].words, words(TileFlag::kPrefix, {1, 2, 0, 1}));
  EXPECT_EQ(model.trace.exclusive_prefixes, in_order.trace.exclusive_prefixes);
  EXPECT_EQ(model.trace.keys_out, in_order.trace.keys_out);
}

// The histograms of every digit place from one read equal a count per place, each scan starts
// at 0 and is exclusive, and the last place of a range that is not a multiple of 8 bits is
// narrower.
template <typename Key>
class Stage08Histograms : public ::testing::Test {};
using HistogramKeys = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t>;
TYPED_TEST_SUITE(Stage08Histograms, HistogramKeys, sortlab::testing::KeyName);

TYPED_TEST(Stage08Histograms, OneReadGivesEveryPlace) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  const auto keys = sortlab::generate_keys<Key>(sortlab::Distribution::kUniform, 5000, seed);
  for (const sortlab::SortOptions options :
       {sortlab::SortOptions{}, sortlab::SortOptions{3, width - 3, false},
        sortlab::SortOptions{0, sortlab::kAllBits, true}, sortlab::SortOptions{5, 6, false}}) {
    SCOPED_TRACE("bits [" + std::to_string(options.begin_bit) + ", " +
                 std::to_string(options.end_bit) + ") seed=" + std::to_string(seed));
    const auto histograms = stage08::model_histograms(keys, options);
    const auto resolved = sortlab::resolve<Key>(options);
    const int bits = resolved.end_bit - resolved.begin_bit;
    ASSERT_EQ(histograms.num_places, (bits + 7) / 8);
    for (int place = 0; place < histograms.num_places; ++place) {
      const int first_bit = resolved.begin_bit + 8 * place;
      EXPECT_EQ(histograms.first_bits[place], first_bit);
      EXPECT_EQ(histograms.widths[place], std::min(8, resolved.end_bit - first_bit));
      std::vector<std::uint32_t> count(256, 0);
      for (const Key& key : keys)
        ++count[sortlab::radix_digit(key, first_bit, histograms.widths[place],
                                     resolved.descending)];
      const std::vector<std::uint32_t> got(histograms.counts.begin() + 256 * place,
                                           histograms.counts.begin() + 256 * (place + 1));
      EXPECT_EQ(got, count);
      std::uint32_t running = 0;
      for (int d = 0; d < 256; ++d) {
        EXPECT_EQ(histograms.starts[256 * place + d], running);
        running += count[d];
      }
      EXPECT_EQ(running, keys.size());
    }
  }
}

/// Checks what every look-back must satisfy, whatever the order of its steps.
void expect_lookback_invariants(const stage08::LookbackModel& model,
                                const std::vector<std::uint32_t>& tile_counts) {
  const std::size_t digits = static_cast<std::size_t>(model.num_digits);
  const std::size_t tiles = model.num_tiles;
  std::vector<std::uint32_t> before(digits, 0);
  for (std::size_t b = 0; b < tiles; ++b) {
    SCOPED_TRACE("tile " + std::to_string(b));
    // 1. The exclusive prefix is the sum of the aggregates of the tiles before it.
    for (std::size_t d = 0; d < digits; ++d)
      ASSERT_EQ(model.exclusive_prefixes[b * digits + d], before[d]) << "digit " << d;
    // 2. The walk goes from b-1 downwards, one tile per aggregate, staying on a tile while it
    //    waits, and ends on a prefix; tile 0 reads nothing.
    const auto& reads = model.reads[b];
    if (b == 0) {
      ASSERT_TRUE(reads.empty());
    } else {
      ASSERT_FALSE(reads.empty());
      std::uint32_t expected = static_cast<std::uint32_t>(b - 1);
      for (std::size_t r = 0; r < reads.size(); ++r) {
        ASSERT_EQ(reads[r].predecessor, expected) << "read " << r;
        if (reads[r].flag == TileFlag::kAggregate) --expected;
        if (r + 1 < reads.size()) {
          ASSERT_NE(reads[r].flag, TileFlag::kPrefix) << "read " << r;
        }
      }
      ASSERT_EQ(reads.back().flag, TileFlag::kPrefix);
      // 3. What a reader sees is what the tile published: its counts, or its inclusive prefix.
      for (const auto& read : reads) {
        if (read.flag == TileFlag::kNotReady) continue;
        for (std::size_t d = 0; d < digits; ++d) {
          const std::uint32_t expect =
              read.flag == TileFlag::kAggregate
                  ? tile_counts[read.predecessor * digits + d]
                  : model.exclusive_prefixes[read.predecessor * digits + d] +
                        tile_counts[read.predecessor * digits + d];
          ASSERT_EQ(sortlab::status_count(read.words[d]), expect);
          ASSERT_EQ(sortlab::status_flag(read.words[d]), read.flag);
        }
      }
    }
    // 4. The final words: prefixes everywhere but the last tile, which keeps its aggregate.
    const TileFlag final_flag = b == 0 || b + 1 < tiles ? TileFlag::kPrefix : TileFlag::kAggregate;
    for (std::size_t d = 0; d < digits; ++d) {
      const std::uint32_t count = tile_counts[b * digits + d];
      ASSERT_EQ(
          model.final_status[b * digits + d],
          sortlab::pack_status(
              final_flag, final_flag == TileFlag::kPrefix && b > 0 ? before[d] + count : count));
    }
    for (std::size_t d = 0; d < digits; ++d) before[d] += tile_counts[b * digits + d];
  }
  // 5. Every tile publishes exactly once or twice: once for tile 0 and the last tile, twice
  //    (aggregate, then prefix) for the others.
  std::vector<int> publications(tiles, 0);
  for (const auto& event : model.events)
    if (event.kind == stage08::LookbackEventKind::kPublishAggregate ||
        event.kind == stage08::LookbackEventKind::kPublishPrefix)
      ++publications[event.tile];
  for (std::size_t b = 0; b < tiles; ++b)
    EXPECT_EQ(publications[b], b == 0 || b + 1 == tiles ? 1 : 2) << "tile " << b;
}

std::vector<std::uint32_t> random_tile_counts(std::size_t tiles, int digits, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::uint32_t> counts(tiles * digits);
  for (auto& count : counts) count = static_cast<std::uint32_t>(random() % 17);
  return counts;
}

TEST(Stage08Lookback, InvariantsHoldInEveryCompletionOrder) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t tiles : {1, 2, 3, 7, 64, 300}) {
    const auto counts = random_tile_counts(tiles, 4, seed + tiles);
    std::vector<std::pair<std::string, stage08::LookbackSchedule>> schedules = {
        {"in order", stage08::in_order_schedule(tiles)},
        {"aggregates first", stage08::aggregates_first_schedule(tiles)},
        {"none (round robin)", {}}};
    for (std::uint64_t s = 0; s < 20; ++s)
      schedules.push_back({"random " + std::to_string(s),
                           stage08::random_schedule(tiles, seed + 1000 * s, (s % 5 + 1) * tiles)});
    for (const auto& [name, schedule] : schedules) {
      SCOPED_TRACE(std::to_string(tiles) + " tiles, schedule " + name +
                   ", seed=" + std::to_string(seed));
      const auto model = stage08::model_lookback(counts, 4, schedule);
      expect_lookback_invariants(model, counts);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// In order, each tile reads exactly its predecessor's prefix: the cheapest look-back.
TEST(Stage08Lookback, InOrderReadsOnePrefixPerTile) {
  const auto counts = random_tile_counts(50, 8, 7);
  const auto model = stage08::model_lookback(counts, 8, stage08::in_order_schedule(50));
  for (std::size_t b = 1; b < 50; ++b) {
    ASSERT_EQ(model.reads[b].size(), 1u);
    EXPECT_EQ(model.reads[b][0].predecessor, b - 1);
    EXPECT_EQ(model.reads[b][0].flag, TileFlag::kPrefix);
  }
}

// Aggregates first: every tile publishes before any look-back reads anything, so no tile ever
// finds a predecessor not ready.
TEST(Stage08Lookback, AggregatesFirstNeverWaits) {
  const auto counts = random_tile_counts(20, 4, 11);
  const auto model = stage08::model_lookback(counts, 4, stage08::aggregates_first_schedule(20));
  for (std::size_t e = 0; e < 20; ++e)
    EXPECT_NE(model.events[e].kind, stage08::LookbackEventKind::kRead) << "event " << e;
  for (const auto& event : model.events) EXPECT_NE(event.kind, stage08::LookbackEventKind::kWait);
  expect_lookback_invariants(model, counts);
}

// A walk over many aggregates: tile 0 publishes last, so tile 5 (stepped right after tiles 1-5
// published) reads the aggregates of 4, 3, 2, 1, waits on 0, then reads its prefix.
TEST(Stage08Lookback, LongWalkOverAggregates) {
  const auto counts = random_tile_counts(6, 2, 3);
  const stage08::LookbackSchedule schedule{{1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 0, 5}};
  const auto model = stage08::model_lookback(counts, 2, schedule);
  ASSERT_EQ(model.reads[5].size(), 6u);
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(model.reads[5][r].predecessor, 4 - r);
    EXPECT_EQ(model.reads[5][r].flag, TileFlag::kAggregate);
  }
  EXPECT_EQ(model.reads[5][4].flag, TileFlag::kNotReady);
  EXPECT_EQ(model.reads[5][5].flag, TileFlag::kPrefix);
  expect_lookback_invariants(model, counts);
}

TEST(Stage08Lookback, RejectsCountsThatDoNotFitThirtyBits) {
  EXPECT_THROW(stage08::model_lookback({1u << 30}, 1, {}), sortlab::Error);
  EXPECT_THROW(stage08::model_lookback({1, 2, 3}, 2, {}), sortlab::Error);
  EXPECT_THROW(stage08::model_lookback({1, 2}, 1, {{5}}), sortlab::Error);
}

// One pass: ranks are the stable ranks inside each tile, destinations a permutation, the output
// stable by digit, whatever the schedule; every key with the same digit is a copy.
TEST(Stage08PassModel, PassIsAStableCountingSortByDigit) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = stage08::trace_tile_items_for(4);  // a traced pass's (the device's)
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, tile - 1, tile, tile + 1, 3 * tile + 5}) {
    for (const auto distribution :
         {sortlab::Distribution::kUniform, sortlab::Distribution::kAllEqual}) {
      SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed));
      const auto keys = sortlab::generate_keys<std::uint32_t>(distribution, n, seed + n);
      const std::size_t tiles = (n + tile - 1) / tile;
      const auto schedule = stage08::random_schedule(tiles, seed, 2 * tiles);
      const auto model = stage08::model_pass(keys, 8, 8, false, &schedule);
      const auto& trace = model.trace;
      EXPECT_EQ(trace.tile_items, tile);
      EXPECT_EQ(trace.num_tiles, static_cast<int>(tiles));
      std::vector<bool> hit(n, false);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_LT(trace.destinations[i], n);
        ASSERT_FALSE(hit[trace.destinations[i]]);
        hit[trace.destinations[i]] = true;
      }
      EXPECT_EQ(trace.keys_out, sortlab::reference_sort_keys(keys, {8, 16, false}));
      for (std::size_t b = 0; b < tiles; ++b) {  // ranks: stable inside the tile
        const std::size_t first = b * tile, count = std::min<std::size_t>(tile, n - first);
        for (std::size_t p = 0; p < count; ++p) {
          std::uint32_t rank = 0;
          for (std::size_t q = 0; q < count; ++q) {
            const auto dq = trace.digits[first + q], dp = trace.digits[first + p];
            rank += dq < dp || (dq == dp && q < p);
          }
          ASSERT_EQ(trace.ranks[first + p], rank) << "tile " << b << " position " << p;
          if (p > 64) break;  // enough positions per tile; the sort check covers the rest
        }
      }
      if (distribution == sortlab::Distribution::kAllEqual) {
        EXPECT_EQ(trace.keys_out, keys);
      }
    }
  }
}

// The whole model sort equals the stable reference for many key types, distributions and
// sizes (0, 1, one tile, one tile + 1, many tiles), with the device's tile and with small tiles
// (many tiles, long look-backs) in every completion order, ascending, descending and bit ranges.
template <typename Key>
class Stage08ModelSort : public ::testing::Test {};
using ModelKeys = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t,
                                   double, std::uint16_t, std::uint8_t, __half>;
TYPED_TEST_SUITE(Stage08ModelSort, ModelKeys, sortlab::testing::KeyName);

TYPED_TEST(Stage08ModelSort, MatchesTheStableReference) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  const std::size_t device_tile = stage08::tile_items_for(sizeof(Key));
  const auto distributions = {
      sortlab::Distribution::kUniform,     sortlab::Distribution::kEntropyReduced,
      sortlab::Distribution::kFewDistinct, sortlab::Distribution::kAllEqual,
      sortlab::Distribution::kReversed,    sortlab::Distribution::kFloatSpecials};
  struct Shape {
    std::size_t tile, n;
  };
  const std::vector<Shape> shapes = {{device_tile, 0},
                                     {device_tile, 1},
                                     {device_tile, device_tile},
                                     {device_tile, device_tile + 1},
                                     {device_tile, 5 * device_tile + 17},
                                     {7, 0},
                                     {7, 1},
                                     {7, 7},
                                     {7, 8},
                                     {7, 500},
                                     {64, 2000}};
  for (const Shape& shape : shapes) {
    for (const auto distribution : distributions) {
      for (const auto schedule :
           {stage08::ScheduleKind::kInOrder, stage08::ScheduleKind::kAggregatesFirst,
            stage08::ScheduleKind::kRandom}) {
        for (const sortlab::SortOptions options :
             {sortlab::SortOptions{}, sortlab::SortOptions{0, sortlab::kAllBits, true},
              sortlab::SortOptions{2, width - 1, false}}) {
          SCOPED_TRACE(
              sortlab::testing::case_label(shape.n, sortlab::to_string(distribution), seed) +
              " tile=" + std::to_string(shape.tile) +
              " schedule=" + std::to_string(static_cast<int>(schedule)) + " bits=[" +
              std::to_string(options.begin_bit) + "," + std::to_string(options.end_bit) +
              ") descending=" + std::to_string(options.descending));
          const auto keys = sortlab::generate_keys<Key>(distribution, shape.n, seed + shape.n);
          const auto sorted = stage08::model_sort(keys, options, shape.tile, schedule, seed);
          const auto result = sortlab::verify_stably_sorted_keys(keys, sorted, options);
          ASSERT_TRUE(result.ok) << result.message;
        }
      }
    }
  }
}

// Every key with the same digit in one place (but not in the others): that place's pass is a
// copy, and the sort is still right. (The GPU runs such passes too: no pass is skipped yet.)
TEST(Stage08ModelSort, EveryKeyTheSameDigitInOnePlace) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  const std::size_t tile = stage08::tile_items_for(4);
  std::vector<std::uint32_t> keys(3 * tile + 1);
  for (auto& key : keys) key = (static_cast<std::uint32_t>(random()) & 0xFF00FFFFu) | 0x00AB0000u;
  const auto histograms = stage08::model_histograms(keys);
  EXPECT_EQ(histograms.counts[2 * 256 + 0xAB], keys.size());
  const auto pass = stage08::model_pass(keys, 16, 8, false, nullptr, tile);
  EXPECT_EQ(pass.trace.keys_out, keys);
  for (std::size_t b = 0; b < 4; ++b)
    EXPECT_EQ(pass.trace.exclusive_prefixes[b * 256 + 0xAB], std::min<std::size_t>(b, 3) * tile);
  const auto sorted = stage08::model_sort(keys);
  EXPECT_TRUE(sortlab::verify_stably_sorted_keys(keys, sorted).ok);
}

// The warp multi-split rank by hand: one warp of 32 lanes, 2 keys per thread, 2-bit digits. Step 0
// holds positions 0-31, step 1 positions 32-63; in each step the lanes with equal digits form a
// group and count together.
TEST(Stage08WarpRank, OneWarpByHand) {
  std::vector<std::uint32_t> digits(64);
  for (std::size_t p = 0; p < 64; ++p) digits[p] = p % 4 == 3 ? 3u : (p < 32 ? 1u : 0u);
  // step 0: 8 threes (lanes 3, 7, ...), 24 ones; step 1: 8 threes, 24 zeros.
  const auto model = stage08::model_warp_rank(digits, 32, 2, 4);
  EXPECT_EQ(model.warp_counts, (std::vector<std::uint32_t>{24, 24, 0, 16}));
  EXPECT_EQ(model.tile_digit_start, (std::vector<std::uint32_t>{0, 24, 48, 48}));
  EXPECT_EQ(model.ranks[0], 24u);   // the first one
  EXPECT_EQ(model.ranks[3], 48u);   // the first three
  EXPECT_EQ(model.ranks[32], 0u);   // the first zero (step 1) ranks before every one of step 0
  EXPECT_EQ(model.ranks[35], 56u);  // step 1's first three follows step 0's eight
  EXPECT_EQ(model.ranks[63], 63u);
}

/// Stable ranks by digit, the slow obvious way.
std::vector<std::uint32_t> stable_ranks(const std::vector<std::uint32_t>& digits) {
  std::vector<std::uint32_t> ranks(digits.size());
  for (std::size_t i = 0; i < digits.size(); ++i)
    for (std::size_t j = 0; j < digits.size(); ++j)
      ranks[i] += digits[j] < digits[i] || (digits[j] == digits[i] && j < i);
  return ranks;
}

// The warp-striped positions and the scans over warps and digits make the warp multi-split rank
// the stable rank, for full and partial tiles, every shape, few and many digit values.
TEST(Stage08WarpRank, EqualsTheStableRank) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  struct Shape {
    int threads, keys_per_thread, digits;
  };
  for (const Shape shape : {Shape{256, 16, 256}, Shape{256, 8, 256}, Shape{64, 3, 16},
                            Shape{32, 1, 2}, Shape{128, 5, 256}}) {
    const std::size_t tile = static_cast<std::size_t>(shape.threads) * shape.keys_per_thread;
    for (std::size_t count : {tile, tile - 1, tile / 2 + 3, std::size_t{1}, std::size_t{0}}) {
      for (std::uint32_t distinct : {1u, 2u, static_cast<std::uint32_t>(shape.digits)}) {
        SCOPED_TRACE("threads=" + std::to_string(shape.threads) + " K=" +
                     std::to_string(shape.keys_per_thread) + " count=" + std::to_string(count) +
                     " distinct=" + std::to_string(distinct) + " seed=" + std::to_string(seed));
        std::vector<std::uint32_t> digits(count);
        for (auto& d : digits) d = static_cast<std::uint32_t>(random() % distinct);
        const auto model =
            stage08::model_warp_rank(digits, shape.threads, shape.keys_per_thread, shape.digits);
        ASSERT_EQ(model.ranks, stable_ranks(digits));
      }
    }
  }
  const auto slot = stage08::warp_slot(3 * 512 + 2 * 32 + 5, 16);
  EXPECT_EQ(slot.warp, 3u);
  EXPECT_EQ(slot.step, 2u);
  EXPECT_EQ(slot.lane, 5u);
}

// Everything a caller can get wrong is caught on the host, before any device work; a size query
// needs no GPU, and the scratch holds the alternate keys, the status words and the counters.
TEST(Stage08Arguments, BadArgumentsThrowWithoutAGpu) {
  std::uint32_t fake[2] = {0, 0};
  std::size_t temp_bytes = 0;
  EXPECT_THROW(
      stage08::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1, {0, 33, false}),
      sortlab::Error);
  EXPECT_THROW(stage08::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1,
                                                 stage08::kMaxItems + 1),
               sortlab::Error);
  EXPECT_THROW(stage08::sort_keys<std::uint32_t>(nullptr, temp_bytes, fake, fake + 1, 1, {},
                                                 stage08::Config{6}),
               sortlab::Error);
  EXPECT_THROW(stage08::trace_pass(std::vector<std::uint32_t>{1, 2}, 32), sortlab::Error);
  EXPECT_THROW(stage08::trace_pass(std::vector<std::uint32_t>{1, 2}, 0, 9), sortlab::Error);
  // A query answers without touching the device.
  const std::size_t n = 1'000'000;
  stage08::sort_keys<std::uint32_t>(nullptr, temp_bytes, nullptr, nullptr, n);
  const std::size_t tile = stage08::tile_items_for(4), wide_tile = stage08::tile_items_for(8);
  const std::size_t tiles = (n + tile - 1) / tile;
  EXPECT_GE(temp_bytes, 4 * n + 4 * 256 * tiles + 4 * (4 * 256 + 4 + 1) + 8 * 4 * 256);
  std::size_t pairs_bytes = 0;
  stage08::sort_pairs<std::uint32_t, std::uint64_t>(nullptr, pairs_bytes, nullptr, nullptr, nullptr,
                                                    nullptr, n);
  EXPECT_GE(pairs_bytes, temp_bytes + 8 * n);
  std::size_t wide_bytes = 0;  // 64-bit keys: 8 places, half-size tiles
  stage08::sort_keys<std::uint64_t>(nullptr, wide_bytes, nullptr, nullptr, n);
  EXPECT_GE(wide_bytes, 8 * n + 4 * 256 * ((n + wide_tile - 1) / wide_tile) + 4 * (8 * 256 + 8));
}

// Skipped passes (pass_roles.hpp): for every running mask of up to 8 places, the passes that
// run form one chain: the first reads the input, each later one reads what the one before it
// wrote, none writes the array it reads or the input, and the last writes the output; the
// skipped ones do nothing, and with nothing running pass 0 copies.
TEST(Stage08PassRoles, EveryMaskChainsFromInputToOutput) {
  using stage08::SortArray;
  for (std::uint32_t mask = 0; mask < 256; ++mask) {
    SCOPED_TRACE("running mask " + std::to_string(mask));
    SortArray last_written = SortArray::kInput;
    int running = 0;
    for (int pass = 0; pass < 8; ++pass) {
      const stage08::PassRole role = stage08::pass_role(mask, pass);
      const bool should_run = ((mask >> pass) & 1u) != 0;
      ASSERT_EQ(role.runs, should_run);
      ASSERT_EQ(role.copies, mask == 0 && pass == 0);
      if (!role.runs) continue;
      ++running;
      EXPECT_EQ(role.source, last_written);
      EXPECT_NE(role.target, role.source);
      EXPECT_NE(role.target, SortArray::kInput);
      last_written = role.target;
    }
    EXPECT_EQ(running, __builtin_popcount(mask));
    if (mask != 0) {
      EXPECT_EQ(last_written, SortArray::kOutput);
    }
  }
  // By hand: places 1 and 3 of four run: 1 goes input -> scratch, 3 scratch -> output.
  EXPECT_EQ(stage08::pass_role(0b1010, 1).source, stage08::SortArray::kInput);
  EXPECT_EQ(stage08::pass_role(0b1010, 1).target, stage08::SortArray::kAlternate);
  EXPECT_EQ(stage08::pass_role(0b1010, 3).source, stage08::SortArray::kAlternate);
  EXPECT_EQ(stage08::pass_role(0b1010, 3).target, stage08::SortArray::kOutput);
}

// Chunks: whole tiles, at most 2^30 keys (the 30-bit counts of the status words), and a sort of
// more keys than one chunk asks for one set of histograms and tile counters per chunk, 64-bit
// starts for every chunk after the first, but status words for one chunk only.
TEST(Stage08Chunks, WholeTilesUpTo2Pow30AndTheScratchGrowsPerChunk) {
  for (std::size_t key_bytes : {1, 2, 4, 8}) {
    const std::size_t chunk = stage08::chunk_items_for(key_bytes);
    const std::size_t tile = stage08::tile_items_for(key_bytes);
    EXPECT_EQ(chunk % tile, 0u);
    EXPECT_LE(chunk, std::size_t{1} << 30);
    EXPECT_GT(chunk + tile, std::size_t{1} << 30);
  }
  const std::size_t tile = stage08::tile_items_for(4);
  std::size_t one_chunk = 0, three_chunks = 0;
  const std::size_t n = 2 * tile + 1;
  stage08::sort_keys<std::uint32_t>(nullptr, one_chunk, nullptr, nullptr, n);
  stage08::sort_keys<std::uint32_t>(nullptr, three_chunks, nullptr, nullptr, n, {},
                                    stage08::Config{8, tile});
  // Two more chunks: 2 x 4 places x 256 counts (4 bytes), 2 x 4 tile counters, 2 x 256 chunk
  // starts (8 bytes), less the status words of two tiles (4 bytes x 256 each).
  const std::size_t more = 2 * 4 * 256 * 4 + 2 * 4 * 4 + 2 * 256 * 8;
  const std::size_t fewer = 2 * 256 * 4;
  // Every array is rounded up to 256 bytes, so each of the 5 may move either way by that much.
  EXPECT_GE(three_chunks + fewer + 5 * 256, one_chunk + more);
  EXPECT_LE(three_chunks + fewer, one_chunk + more + 5 * 256);
  // A chunk that is not a whole number of tiles, or past the largest, is a clear error.
  EXPECT_THROW(stage08::sort_keys<std::uint32_t>(nullptr, one_chunk, nullptr, nullptr, n, {},
                                                 stage08::Config{8, tile + 1}),
               sortlab::Error);
  EXPECT_THROW(
      stage08::sort_keys<std::uint32_t>(nullptr, one_chunk, nullptr, nullptr, n, {},
                                        stage08::Config{8, stage08::chunk_items_for(4) + tile}),
      sortlab::Error);
  // 2^31 + 1 one-byte keys are accepted (a size query), past the 2^30 of stages 01-05.
  std::size_t big = 0;
  EXPECT_NO_THROW(
      stage08::sort_keys<std::uint8_t>(nullptr, big, nullptr, nullptr, (std::size_t{1} << 31) + 1));
  EXPECT_GE(big, (std::size_t{1} << 31) + 1);
}

// The tile constants the kernels and the launcher share.
TEST(Stage08Constants, TilesAndPasses) {
  EXPECT_EQ(stage08::kDigits, 256);
  // 384 threads (measured on the H100 against 256 and 512; README), 20 keys per thread for keys
  // of up to 32 bits and 16 for 64-bit keys; three blocks per SM for keys of up to 32 bits
  // only, two for pairs and 64-bit keys (all measured).
  EXPECT_EQ(stage08::kThreadsPerBlock, 384);
  EXPECT_EQ(stage08::tile_items_for(4), 384 * 20);
  EXPECT_EQ(stage08::tile_items_for(8), 384 * 16);
  // Pair sorts stage their values in shared memory (no register holds them), so they take larger
  // tiles than the keys alone: 24 keys per thread with values of up to 4 bytes, 20 with 8-byte
  // values, 16 for 8-byte keys (measured, README point 14).
  EXPECT_EQ(stage08::tile_items_for(4, 4), 384 * 24);
  EXPECT_EQ(stage08::tile_items_for(1, 4), 384 * 24);
  EXPECT_EQ(stage08::tile_items_for(4, 8), 384 * 20);
  EXPECT_EQ(stage08::tile_items_for(1, 8), 384 * 20);
  EXPECT_EQ(stage08::tile_items_for(8, 4), 384 * 16);
  EXPECT_EQ(stage08::tile_items_for(8, 8), 384 * 16);
  // A traced pass is a pair sort with u32 values: its tile is that sort's.
  EXPECT_EQ(stage08::trace_tile_items_for(4), stage08::tile_items_for(4, 4));
  EXPECT_EQ(stage08::trace_tile_items_for(8), stage08::tile_items_for(8));
  EXPECT_EQ(stage08::chunk_items_for(4, 8) % stage08::tile_items_for(4, 8), 0u);
  EXPECT_EQ(stage08::chunk_items_for(4, 4) % stage08::tile_items_for(4, 4), 0u);
  EXPECT_EQ(stage08::onesweep_blocks_per_sm(false, 4), 3);
  EXPECT_EQ(stage08::onesweep_blocks_per_sm(true, 4), 2);
  EXPECT_EQ(stage08::onesweep_blocks_per_sm(false, 8), 2);
  EXPECT_EQ(stage08::onesweep_blocks_per_sm(true, 8), 2);
  EXPECT_EQ(stage08::num_passes(32), 4);
  EXPECT_EQ(stage08::num_passes(64), 8);
  EXPECT_EQ(stage08::num_passes(26), 4);
  EXPECT_NO_THROW(stage08::validate_config({}));
  EXPECT_THROW(stage08::validate_config({6}), sortlab::Error);
}

// Bytes by design: one read for the histograms, then per pass the status words cleared, keys
// read and written, status words written and read.
TEST(Stage08BytesModel, OneReadThenFourPasses) {
  const std::size_t n = std::size_t{1} << 24;
  const double tiles = std::ceil(static_cast<double>(n) / stage08::tile_items_for(4));
  const double status = 4.0 * 256 * tiles;
  EXPECT_DOUBLE_EQ(stage08::bytes_moved(n, 4, 0, 32), 4.0 * n + 4 * (2.0 * 4 * n + 3 * status));
  // Pairs: the pair sort's tile (larger), so fewer status words.
  const double pair_tiles = std::ceil(static_cast<double>(n) / stage08::tile_items_for(4, 4));
  const double pair_status = 4.0 * 256 * pair_tiles;
  EXPECT_DOUBLE_EQ(stage08::bytes_moved(n, 4, 4, 32),
                   4.0 * n + 4 * (2.0 * 8 * n + 3 * pair_status));
  EXPECT_DOUBLE_EQ(stage08::bytes_moved(1, 4, 0, 32), 8.0);  // a copy
}

}  // namespace
