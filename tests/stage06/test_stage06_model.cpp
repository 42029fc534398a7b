/// \file
/// \brief Stage 06 CPU tests (no GPU needed): the size-class thresholds, the power-of-two bins
/// and the classification, the bitonic network of the small and warp bins entry by entry at
/// every width, the tile shapes, the block kernels' padding key, the large
/// class's radix passes tile by tile, the reference segmented sort on begin/end offsets (gaps,
/// empty and out-of-order segments), the whole model against the reference, the scratch size
/// query and the id lists' room, and the host-side argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "chapters/06_segmented_sort/bitonic_network.hpp"
#include "chapters/06_segmented_sort/segmented_model.hpp"
#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/size_classes.hpp"
#include "chapters/06_segmented_sort/sort_rows.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/reference.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage06 = sortlab::stage06;
using stage06::SizeClass;
using Offsets = std::vector<std::uint32_t>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Raw bits of keys, so that comparisons see NaNs and -0.0 exactly.
template <typename Key>
std::vector<std::uint64_t> raw_bits(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits;
  for (const Key& key : keys) bits.push_back(sortlab::KeyTraits<Key>::raw_bits(key));
  return bits;
}

/// A few bit ranges and both directions.
std::vector<sortlab::SortOptions> option_cases(int key_bits) {
  return {{0, sortlab::kAllBits, false},
          {0, sortlab::kAllBits, true},
          {3, key_bits - 5, false},
          {1, 9, true},
          {0, 0, false},
          {key_bits - 1, key_bits, true}};
}

// ---------------------------------------------------------------------------------------------
// Size classes.

TEST(Stage06SizeClasses, ThresholdsAtEveryBoundary) {
  EXPECT_EQ(stage06::classify_size(0, 4), SizeClass::kNone);
  EXPECT_EQ(stage06::classify_size(1, 4), SizeClass::kSmall);
  EXPECT_EQ(stage06::classify_size(stage06::kSmallMaxItems, 4), SizeClass::kSmall);
  EXPECT_EQ(stage06::classify_size(stage06::kSmallMaxItems + 1, 4), SizeClass::kMedium);
  EXPECT_EQ(stage06::classify_size(4096, 4), SizeClass::kMedium);
  EXPECT_EQ(stage06::classify_size(4097, 4), SizeClass::kLarge);
  EXPECT_EQ(stage06::classify_size(2048, 8), SizeClass::kMedium);
  EXPECT_EQ(stage06::classify_size(2049, 8), SizeClass::kLarge);
  EXPECT_EQ(stage06::classify_size(1u << 30, 8), SizeClass::kLarge);
  // The medium class ends at the block sort's tile, which is what its kernel sorts at once.
  EXPECT_EQ(stage06::medium_max_items(4),
            static_cast<std::uint32_t>(stage06::kBlockThreads * stage06::block_keys_per_thread(4)));
  EXPECT_EQ(stage06::medium_max_items(8), 2048u);
  EXPECT_STREQ(stage06::to_string(SizeClass::kSmall), "small");
  EXPECT_STREQ(stage06::to_string(SizeClass::kMedium), "medium");
  EXPECT_STREQ(stage06::to_string(SizeClass::kLarge), "large");
  EXPECT_STREQ(stage06::to_string(SizeClass::kNone), "none");
}

TEST(Stage06SizeClasses, SegmentSizeOfEmptyReversedAndOutOfRangeSegments) {
  EXPECT_EQ(stage06::segment_size(5, 9, 10), 4u);
  EXPECT_EQ(stage06::segment_size(5, 5, 10), 0u);   // empty
  EXPECT_EQ(stage06::segment_size(9, 5, 10), 0u);   // end before begin: empty (CUB's rule)
  EXPECT_EQ(stage06::segment_size(5, 11, 10), 0u);  // past the input: ignored, never read
  EXPECT_EQ(stage06::segment_size(0, 10, 10), 10u);
  EXPECT_EQ(stage06::classify_segment(5, 11, 10, 4), SizeClass::kNone);
  EXPECT_EQ(stage06::classify_segment(0, 4097, 5000, 4), SizeClass::kLarge);
}

// Every bin edge: bin b holds 2^(b-1) + 1 .. 2^b keys, its class, and the 8-byte keys' end.
TEST(Stage06Bins, EveryPowerOfTwoEdge) {
  EXPECT_EQ(stage06::classify_bin(0, 4), stage06::kNoBin);
  EXPECT_EQ(stage06::classify_bin(1, 4), 0);
  for (int bin = 1; bin < stage06::kLargeBin; ++bin) {
    const std::uint32_t top = std::uint32_t{1} << bin;
    EXPECT_EQ(stage06::bin_max_items(bin), top);
    EXPECT_EQ(stage06::bin_min_items(bin), top / 2 + 1);
    EXPECT_EQ(stage06::classify_bin(top, 4), bin) << "size " << top;
    EXPECT_EQ(stage06::classify_bin(top / 2 + 1, 4), bin) << "size " << top / 2 + 1;
    EXPECT_EQ(stage06::classify_bin(top / 2, 4), bin - 1) << "size " << top / 2;
    const std::size_t key_bytes = 4;
    const stage06::SizeClass expected = bin < 6    ? SizeClass::kSmall
                                        : bin < 13 ? SizeClass::kMedium
                                                   : SizeClass::kLarge;
    EXPECT_EQ(stage06::classify_size(top, key_bytes), expected) << "size " << top;
    EXPECT_EQ(stage06::class_of_bin(bin), expected);
  }
  EXPECT_EQ(stage06::classify_bin(4097, 4), stage06::kLargeBin);
  EXPECT_EQ(stage06::classify_bin(2048, 8), 11);
  EXPECT_EQ(stage06::classify_bin(2049, 8), stage06::kLargeBin);
  EXPECT_EQ(stage06::classify_bin(2049, 4), 12);
  EXPECT_EQ(stage06::classify_bin(1u << 30, 2), stage06::kLargeBin);
  EXPECT_EQ(stage06::class_of_bin(stage06::kNoBin), SizeClass::kNone);
  EXPECT_EQ(stage06::bin_lower_bound(stage06::kLargeBin, 4), 4097u);
  EXPECT_EQ(stage06::bin_lower_bound(stage06::kLargeBin, 8), 2049u);
  EXPECT_EQ(stage06::bin_lower_bound(0, 4), 1u);
  // The groups and keys per lane of the small and warp bins.
  for (int bin = 0; bin < stage06::kNumSmallBins; ++bin)
    EXPECT_EQ(stage06::small_group_lanes(bin), 1 << bin);
  EXPECT_EQ(stage06::warp_keys_per_lane(6), 2);
  EXPECT_EQ(stage06::warp_keys_per_lane(7), 4);
  EXPECT_EQ(stage06::warp_keys_per_lane(8), 8);
}

// No segment is padded to more than twice its size (issue 17), and every tile holds exactly its
// bin's width: for every size up to the largest tile the bin's width is below 2 x size.
TEST(Stage06Bins, NoBinPadsASegmentToMoreThanTwiceItsSize) {
  for (std::size_t key_bytes : {std::size_t{2}, std::size_t{4}, std::size_t{8}})
    for (std::uint32_t size = 1; size <= stage06::medium_max_items(key_bytes); ++size) {
      const int bin = stage06::classify_bin(size, key_bytes);
      ASSERT_LT(bin, stage06::kLargeBin) << "size " << size;
      ASSERT_GE(stage06::bin_max_items(bin), size);
      ASSERT_LT(stage06::bin_max_items(bin), 2 * size + (size == 1 ? 1u : 0u)) << "size " << size;
      if (bin >= stage06::kFirstTileBin) {
        ASSERT_TRUE(stage06::tile_bin_exists(bin, key_bytes));
      }
    }
  for (int bin = stage06::kFirstTileBin; bin < stage06::kLargeBin; ++bin) {
    const stage06::TileShape shape = stage06::tile_shape(bin);
    EXPECT_EQ(static_cast<std::uint32_t>(shape.threads * shape.keys_per_thread),
              stage06::bin_max_items(bin));
    EXPECT_EQ(shape.threads % 32, 0);
    EXPECT_GE(shape.radix_bits, 1);
    EXPECT_LE(shape.radix_bits, 8);
  }
  EXPECT_FALSE(stage06::tile_bin_exists(12, 8));
  EXPECT_TRUE(stage06::tile_bin_exists(12, 4));
  EXPECT_TRUE(stage06::tile_bin_exists(11, 8));
}

// A tile with wide passes (tile_wide_bits(): r + 1 bits first, then r) sorts any number of bits
// in as few passes as (r + 1)-bit digits need, with every narrow pass whole once there are wide
// ones; 32 bits at r = 6 are 7, 7, 6, 6, 6. A shape without wide passes takes none.
TEST(Stage06Bins, WidePassesAreTheFewestPasses) {
  for (const int r : {3, 4, 5, 6, 7}) {
    const stage06::TileShape shape{256, 16, r, r + 1};
    for (int bits = 0; bits <= 64; ++bits) {
      const int wide = stage06::tile_wide_bits(shape, bits);
      const int narrow = bits - wide;
      ASSERT_GE(wide, 0);
      ASSERT_LE(wide, bits);
      ASSERT_EQ(wide % (r + 1), 0) << "r " << r << ", bits " << bits;
      if (wide > 0) {
        ASSERT_EQ(narrow % r, 0) << "r " << r << ", bits " << bits;
      }
      const int passes = wide / (r + 1) + (narrow + r - 1) / r;
      ASSERT_EQ(passes, (bits + r) / (r + 1)) << "r " << r << ", bits " << bits;
    }
  }
  EXPECT_EQ(stage06::tile_wide_bits(stage06::TileShape{256, 16, 6, 7}, 32), 14);
  EXPECT_EQ(stage06::tile_wide_bits(stage06::TileShape{256, 16, 6, 7}, 16), 0);
  EXPECT_EQ(stage06::tile_wide_bits(stage06::TileShape{256, 16, 6, 7}, 64), 28);
  EXPECT_EQ(stage06::tile_wide_bits(stage06::TileShape{256, 16, 6, 0}, 32), 0);
}

// The model puts every segment in exactly one bin list, consistent with its class.
TEST(Stage06Classification, EverySegmentWithWorkIsInExactlyOneBin) {
  std::mt19937_64 random(sortlab::testing::test_seed());
  const std::size_t n = 100000;
  Offsets begin, end;
  for (int s = 0; s < 5000; ++s) {
    const auto b = static_cast<std::uint32_t>(random() % n);
    begin.push_back(b);
    end.push_back(b + static_cast<std::uint32_t>(random() % 5000));  // may run past n
  }
  for (std::size_t key_bytes : {std::size_t{4}, std::size_t{8}}) {
    const auto classes = stage06::model_classify(begin, end, n, key_bytes);
    std::vector<int> seen(begin.size(), 0);
    for (int bin = 0; bin < stage06::kNumBins; ++bin)
      for (std::uint32_t s : classes.bin_ids[bin]) {
        ++seen[s];
        EXPECT_EQ(classes.bin_of[s], bin);
        EXPECT_EQ(stage06::class_of_bin(bin), classes.class_of[s]);
      }
    for (std::size_t s = 0; s < begin.size(); ++s) {
      const std::uint32_t size = stage06::segment_size(begin[s], end[s], n);
      EXPECT_EQ(classes.bin_of[s], stage06::classify_bin(size, key_bytes)) << "segment " << s;
      EXPECT_EQ(seen[s], size == 0 ? 0 : 1) << "segment " << s;
    }
  }
}

TEST(Stage06Classification, EverySegmentWithWorkIsInExactlyOneList) {
  std::mt19937_64 random(sortlab::testing::test_seed());
  const std::size_t n = 200000;
  Offsets begin, end;
  for (int s = 0; s < 3000; ++s) {
    const std::uint32_t b = static_cast<std::uint32_t>(random() % n);
    const std::uint32_t size_choice = static_cast<std::uint32_t>(random() % 6);
    const std::uint32_t sizes[] = {0, 1, 32, 33, 4096, 4097};
    begin.push_back(b);
    end.push_back(b + sizes[size_choice]);  // may run past n: then ignored
  }
  begin.push_back(7);  // reversed: empty
  end.push_back(3);
  const auto classes = stage06::model_classify(begin, end, n, 4);
  ASSERT_EQ(classes.class_of.size(), begin.size());
  std::vector<int> seen(begin.size(), 0);
  for (int c = 0; c < stage06::kNumSizeClasses; ++c)
    for (std::uint32_t s : classes.ids[c]) {
      ++seen[s];
      EXPECT_EQ(classes.class_of[s], static_cast<SizeClass>(c));
    }
  for (std::size_t s = 0; s < begin.size(); ++s) {
    const SizeClass expected = stage06::classify_segment(begin[s], end[s], n, 4);
    EXPECT_EQ(classes.class_of[s], expected) << "segment " << s;
    EXPECT_EQ(seen[s], expected == SizeClass::kNone ? 0 : 1) << "segment " << s;
  }
  EXPECT_EQ(classes.class_of.back(), SizeClass::kNone);
  EXPECT_THROW(stage06::model_classify({1, 2}, {3}, n, 4), sortlab::Error);
}

// ---------------------------------------------------------------------------------------------
// The small class's bitonic network.

// In every step each lane and its partner (lane ^ j) make opposite choices, one keeps the
// minimum and the other the maximum, so no entry is lost or duplicated.
TEST(Stage06BitonicNetwork, PartnersAlwaysKeepOppositeEnds) {
  int steps = 0;
  for (unsigned phase = 2; phase <= stage06::kNetworkWidth; phase <<= 1)
    for (unsigned step = phase >> 1; step > 0; step >>= 1) {
      ++steps;
      for (unsigned lane = 0; lane < stage06::kNetworkWidth; ++lane)
        EXPECT_NE(stage06::bitonic_keeps_min(lane, phase, step),
                  stage06::bitonic_keeps_min(lane ^ step, phase, step))
            << "phase " << phase << " step " << step << " lane " << lane;
    }
  EXPECT_EQ(steps, stage06::kNetworkSteps);
  // The last phase is one ascending run: lower lanes keep the minimum.
  EXPECT_TRUE(stage06::bitonic_keeps_min(0, 32, 16));
  EXPECT_FALSE(stage06::bitonic_keeps_min(16, 32, 16));
}

// By the 0-1 principle a comparator network sorts everything if it sorts every 0/1 input; 2^32
// inputs are too many here, so all inputs with a 0/1 run structure of up to two boundaries and
// many random ones are checked.
TEST(Stage06BitonicNetwork, SortsZeroOneInputs) {
  std::mt19937_64 random(sortlab::testing::test_seed());
  auto check = [](std::uint32_t pattern) {
    std::vector<std::uint32_t> keys(32);
    for (int i = 0; i < 32; ++i) keys[i] = (pattern >> i) & 1u;
    const auto order = stage06::model_bitonic_network(keys);
    std::vector<std::uint32_t> sorted;
    for (auto p : order) sorted.push_back(keys[p]);
    std::vector<std::uint32_t> positions = order;  // every lane's entry exactly once
    std::sort(positions.begin(), positions.end());
    for (std::uint32_t i = 0; i < positions.size(); ++i)
      if (positions[i] != i) return false;
    return std::is_sorted(sorted.begin(), sorted.end());
  };
  for (int a = 0; a <= 32; ++a)
    for (int b = a; b <= 32; ++b) {
      std::uint32_t pattern = 0;
      for (int i = a; i < b; ++i) pattern |= 1u << i;
      ASSERT_TRUE(check(pattern)) << "pattern " << pattern;
      ASSERT_TRUE(check(~pattern)) << "pattern " << ~pattern;
    }
  for (int i = 0; i < 20000; ++i) {
    const auto pattern = static_cast<std::uint32_t>(random());
    ASSERT_TRUE(check(pattern)) << "pattern " << pattern;
  }
}

template <typename Key>
void expect_network_is_stable_sort() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution : sortlab::all_distributions())
    for (std::size_t size = 0; size <= 32; ++size)
      for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits)) {
        const auto keys = sortlab::generate_keys<Key>(distribution, size, seed + size);
        const auto expected =
            stage06::reference_segment_order(keys, 0, static_cast<std::uint32_t>(size), options);
        ASSERT_EQ(stage06::model_bitonic_network(keys, options), expected)
            << sortlab::testing::case_label(size, sortlab::to_string(distribution), seed)
            << " bits [" << options.begin_bit << ", " << options.end_bit << ") "
            << (options.descending ? "descending" : "ascending");
      }
}

TEST(Stage06BitonicNetwork, EqualsTheStableOrderU32) {
  expect_network_is_stable_sort<std::uint32_t>();
}
TEST(Stage06BitonicNetwork, EqualsTheStableOrderI32) {
  expect_network_is_stable_sort<std::int32_t>();
}
TEST(Stage06BitonicNetwork, EqualsTheStableOrderF32) {
  expect_network_is_stable_sort<float>();
}
TEST(Stage06BitonicNetwork, EqualsTheStableOrderU64) {
  expect_network_is_stable_sort<std::uint64_t>();
}

TEST(Stage06BitonicNetwork, RefusesMoreThanOneWarp) {
  EXPECT_THROW(stage06::model_bitonic_network(std::vector<std::uint32_t>(33)), sortlab::Error);
}

// Every width a kernel uses (1 .. 256) and every size it can give that width (up to the width,
// not only the bin's own sizes) sorts into the stable order: the 0/1 inputs with up to two
// boundaries, and every distribution.
TEST(Stage06BitonicNetwork, EveryWidthSortsZeroOneInputs) {
  for (std::size_t width = 1; width <= stage06::kWarpMaxItems; width *= 2) {
    EXPECT_EQ(stage06::bitonic_steps(static_cast<unsigned>(width)),
              [&] {
                int log = 0;
                while ((std::size_t{1} << log) < width) ++log;
                return log * (log + 1) / 2;
              }())
        << "width " << width;
    const std::size_t stride = width >= 128 ? 3 : 1;  // fewer patterns for the widest
    for (std::size_t a = 0; a <= width; a += stride)
      for (std::size_t b = a; b <= width; b += stride) {
        std::vector<std::uint32_t> keys(width);
        for (std::size_t i = 0; i < width; ++i) keys[i] = (i >= a && i < b) ? 1u : 0u;
        const auto order = stage06::model_bitonic_entries(keys, {}, width);
        ASSERT_EQ(order, stage06::reference_segment_order(
                             keys, 0, static_cast<std::uint32_t>(width), sortlab::SortOptions{}))
            << "width " << width << " ones in [" << a << ", " << b << ")";
      }
  }
  EXPECT_EQ(stage06::bitonic_steps(32), stage06::kNetworkSteps);
}

template <typename Key>
void expect_every_width_is_stable_sort() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution : sortlab::all_distributions())
    for (std::size_t width = 1; width <= stage06::kWarpMaxItems; width *= 2)
      for (std::size_t size : {width / 2, width / 2 + 1, width - 1, width})
        for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits)) {
          if (size > width) continue;
          const auto keys = sortlab::generate_keys<Key>(distribution, size, seed + size);
          ASSERT_EQ(
              stage06::model_bitonic_entries(keys, options, width),
              stage06::reference_segment_order(keys, 0, static_cast<std::uint32_t>(size), options))
              << sortlab::testing::case_label(size, sortlab::to_string(distribution), seed)
              << " width " << width;
        }
}

TEST(Stage06BitonicNetwork, EveryWidthEqualsTheStableOrderU32) {
  expect_every_width_is_stable_sort<std::uint32_t>();
}
TEST(Stage06BitonicNetwork, EveryWidthEqualsTheStableOrderF32) {
  expect_every_width_is_stable_sort<float>();
}
TEST(Stage06BitonicNetwork, EveryWidthEqualsTheStableOrderU64) {
  expect_every_width_is_stable_sort<std::uint64_t>();
}

// The kernels' arrangement of the network (lanes x registers: one entry per lane for the small
// bins' groups of 1 .. 32 lanes, 2, 4 or 8 per lane of a warp for the warp bins, and a few more
// splits) gives the same order as the network entry by entry.
TEST(Stage06BitonicNetwork, LanesAndRegistersGiveTheSameOrder) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t lanes = 1; lanes <= 32; lanes *= 2)
    for (std::size_t items = 1; items * lanes <= stage06::kWarpMaxItems; items *= 2)
      for (auto distribution :
           {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct})
        for (bool descending : {false, true}) {
          const std::size_t width = lanes * items;
          for (std::size_t size : {width / 2 + 1, width - 1, width}) {
            if (size == 0 || size > width) continue;
            const auto keys =
                sortlab::generate_keys<std::uint64_t>(distribution, size, seed + size);
            const sortlab::SortOptions options{0, sortlab::kAllBits, descending};
            ASSERT_EQ(stage06::model_lanes_network(keys, options, lanes, items),
                      stage06::model_bitonic_entries(keys, options, width))
                << lanes << " lanes x " << items << " items, size " << size;
          }
        }
  EXPECT_THROW(stage06::model_lanes_network(std::vector<std::uint32_t>(9), {}, 2, 4),
               sortlab::Error);
}

// The warp bins' network, every size 33 .. 256 at its bin's width, against the stable order.
template <typename Key>
void expect_warp_network_is_stable_sort() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution :
       {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
        sortlab::Distribution::kAllEqual, sortlab::Distribution::kFloatSpecials})
    for (std::size_t size = stage06::kSmallMaxItems + 1; size <= stage06::kWarpMaxItems; ++size)
      for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits)) {
        const auto keys = sortlab::generate_keys<Key>(distribution, size, seed + size);
        EXPECT_EQ(stage06::model_network_width(size),
                  stage06::bin_max_items(
                      stage06::classify_bin(static_cast<std::uint32_t>(size), sizeof(Key))));
        ASSERT_EQ(
            stage06::model_warp_network(keys, options),
            stage06::reference_segment_order(keys, 0, static_cast<std::uint32_t>(size), options))
            << sortlab::testing::case_label(size, sortlab::to_string(distribution), seed);
      }
}

TEST(Stage06WarpNetwork, EqualsTheStableOrderU32) {
  expect_warp_network_is_stable_sort<std::uint32_t>();
}
TEST(Stage06WarpNetwork, EqualsTheStableOrderI32) {
  expect_warp_network_is_stable_sort<std::int32_t>();
}
TEST(Stage06WarpNetwork, EqualsTheStableOrderF64) {
  expect_warp_network_is_stable_sort<double>();
}

TEST(Stage06WarpNetwork, RefusesWhatNoWarpBinHolds) {
  EXPECT_THROW(stage06::model_warp_network(std::vector<std::uint32_t>(257)), sortlab::Error);
  EXPECT_THROW(stage06::model_warp_network(std::vector<std::uint32_t>(40), {}, 32), sortlab::Error);
  EXPECT_THROW(stage06::model_bitonic_network(std::vector<std::uint32_t>(5), {}, 4),
               sortlab::Error);
  EXPECT_THROW(stage06::model_bitonic_network(std::vector<std::uint32_t>(3), {}, 64),
               sortlab::Error);
  EXPECT_THROW(stage06::model_bitonic_entries(std::vector<std::uint32_t>(3), {}, 6),
               sortlab::Error);
  // The kernels' widths: the bin's.
  EXPECT_EQ(stage06::model_network_width(0), 1u);
  EXPECT_EQ(stage06::model_network_width(1), 1u);
  EXPECT_EQ(stage06::model_network_width(5), 8u);
  EXPECT_EQ(stage06::model_network_width(33), 64u);
  EXPECT_EQ(stage06::model_network_width(256), 256u);
}

// ---------------------------------------------------------------------------------------------
// The padding of the block kernels.

template <typename Key>
void expect_padding_sorts_last() {
  const int key_bits = sortlab::KeyTraits<Key>::kNumBits;
  const auto keys = sortlab::generate_keys<Key>(sortlab::Distribution::kFloatSpecials, 2000,
                                                sortlab::testing::test_seed());
  for (const auto& options : option_cases(key_bits)) {
    const sortlab::SortOptions resolved = sortlab::resolve<Key>(options);
    const int num_bits = resolved.end_bit - resolved.begin_bit;
    const std::uint64_t all_ones =
        num_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << num_bits) - 1;
    const Key padding = stage06::model_padding_key<Key>(options.descending);
    // Its sort bits are the largest there are, so no real key sorts after it, and a stable sort
    // keeps it behind every real key equal to it.
    EXPECT_EQ(sortlab::sort_bits(padding, options), all_ones)
        << "bits [" << resolved.begin_bit << ", " << resolved.end_bit << ")";
    for (const Key& key : keys)
      ASSERT_LE(sortlab::sort_bits(key, options), sortlab::sort_bits(padding, options));
  }
}

TEST(Stage06Padding, SortsLastInEveryDirectionAndBitRange) {
  expect_padding_sorts_last<std::uint32_t>();
  expect_padding_sorts_last<std::int32_t>();
  expect_padding_sorts_last<float>();
  expect_padding_sorts_last<std::uint64_t>();
  // The keys themselves: the largest value ascending, the smallest descending (NaNs for floats).
  EXPECT_EQ(stage06::model_padding_key<std::uint32_t>(false), 0xFFFFFFFFu);
  EXPECT_EQ(stage06::model_padding_key<std::uint32_t>(true), 0u);
  EXPECT_EQ(stage06::model_padding_key<std::int32_t>(false), std::numeric_limits<int>::max());
  EXPECT_EQ(stage06::model_padding_key<std::int32_t>(true), std::numeric_limits<int>::min());
  EXPECT_EQ(sortlab::KeyTraits<float>::raw_bits(stage06::model_padding_key<float>(false)),
            0x7FFFFFFFu);
  EXPECT_EQ(sortlab::KeyTraits<float>::raw_bits(stage06::model_padding_key<float>(true)),
            0xFFFFFFFFu);
}

// ---------------------------------------------------------------------------------------------
// The large class's passes.

// One pass sends every key to its stable rank by digit, whatever the tile size.
TEST(Stage06LargePass, DestinationsAreTheStableRanksByDigit) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t n : {1, 2, 7, 100, 4096, 4097, 10000})
    for (std::size_t tile : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4096}})
      for (bool descending : {false, true}) {
        const auto keys =
            sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kFewDistinct, n, seed + n);
        const auto destination = stage06::model_large_pass(keys, 4, 6, descending, tile);
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return sortlab::radix_digit(keys[a], 4, 6, descending) <
                 sortlab::radix_digit(keys[b], 4, 6, descending);
        });
        for (std::size_t p = 0; p < n; ++p)
          ASSERT_EQ(destination[order[p]], p)
              << "n=" << n << " tile=" << tile << " descending=" << descending << " seed=" << seed;
      }
}

template <typename Key>
void expect_large_segment_sorts() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (auto distribution : sortlab::all_distributions())
    for (std::size_t n : {0, 1, 33, 1000, 5000})
      for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits))
        for (std::size_t tile : {std::size_t{13}, std::size_t{256}, std::size_t{2048}}) {
          const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
          const auto expected =
              stage06::reference_segment_order(keys, 0, static_cast<std::uint32_t>(n), options);
          ASSERT_EQ(stage06::model_large_segment(keys, options, tile), expected)
              << sortlab::testing::case_label(n, sortlab::to_string(distribution), seed)
              << " tile=" << tile << " bits [" << options.begin_bit << ", " << options.end_bit
              << ") " << (options.descending ? "descending" : "ascending");
        }
}

TEST(Stage06LargeSegment, PassesEqualTheStableOrderU32) {
  expect_large_segment_sorts<std::uint32_t>();
}
TEST(Stage06LargeSegment, PassesEqualTheStableOrderF32) {
  expect_large_segment_sorts<float>();
}
TEST(Stage06LargeSegment, PassesEqualTheStableOrderI32) {
  expect_large_segment_sorts<std::int32_t>();
}
TEST(Stage06LargeSegment, PassesEqualTheStableOrderU64) {
  expect_large_segment_sorts<std::uint64_t>();
}

// ---------------------------------------------------------------------------------------------
// The reference and the whole model.

// Twelve items, four segments listed out of order, one empty, one reversed (empty), one past
// the input (ignored), and gaps: positions 0, 5 and 10-11 are in no segment and keep the 99s.
TEST(Stage06Reference, GapsEmptyAndOutOfOrderSegmentsByHand) {
  const std::vector<std::uint32_t> keys = {7, 3, 2, 3, 1, 8, 5, 4, 4, 0, 6, 9};
  const std::vector<std::uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const Offsets begin = {6, 1, 3, 9, 8};
  const Offsets end = {10, 5, 3, 2, 13};
  std::vector<std::uint32_t> keys_out(12, 99), values_out(12, 99);
  stage06::reference_segmented_sort(keys, &values, begin, end, {}, keys_out, &values_out);
  EXPECT_EQ(keys_out, (std::vector<std::uint32_t>{99, 1, 2, 3, 3, 99, 0, 4, 4, 5, 99, 99}));
  // Equal keys keep their input order: 3 (1) before 3 (3), 4 (7) before 4 (8).
  EXPECT_EQ(values_out, (std::vector<std::uint32_t>{99, 4, 2, 1, 3, 99, 9, 7, 8, 6, 99, 99}));
  std::vector<std::uint32_t> descending(12, 99);
  stage06::reference_segmented_sort<std::uint32_t>(keys, nullptr, begin, end, {0, -1, true},
                                                   descending);
  EXPECT_EQ(descending, (std::vector<std::uint32_t>{99, 3, 3, 2, 1, 99, 5, 4, 4, 0, 99, 99}));
}

template <typename Key>
void expect_model_equals_reference() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  const std::size_t n = 30000;
  // Segments of every class with gaps between them, listed in random order; a few empty.
  Offsets begin, end;
  const std::uint32_t sizes[] = {0, 1, 2, 31, 32, 33, 100, 2048, 2049, 4096, 4097, 9000};
  std::uint32_t at = 0;
  for (std::uint32_t size : sizes) {
    at += static_cast<std::uint32_t>(random() % 5);  // a gap
    if (at + size > n) break;
    begin.push_back(at);
    end.push_back(at + size);
    at += size;
  }
  std::vector<std::size_t> order(begin.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), random);
  Offsets shuffled_begin, shuffled_end;
  for (std::size_t i : order) {
    shuffled_begin.push_back(begin[i]);
    shuffled_end.push_back(end[i]);
  }
  for (auto distribution : sortlab::all_distributions())
    for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits)) {
      const auto keys = sortlab::generate_keys<Key>(distribution, n, seed);
      const Key poison = sortlab::KeyTraits<Key>::from_raw_bits(
          static_cast<typename sortlab::KeyTraits<Key>::Bits>(0xA5A5A5A5A5A5A5A5ull));
      std::vector<Key> expected(n, poison), modelled(n, poison);
      stage06::reference_segmented_sort<Key>(keys, nullptr, shuffled_begin, shuffled_end, options,
                                             expected);
      const auto classes =
          stage06::model_segmented_sort(keys, shuffled_begin, shuffled_end, options, modelled, 512);
      ASSERT_EQ(raw_bits(modelled), raw_bits(expected))
          << sortlab::testing::case_label(n, sortlab::to_string(distribution), seed);
      std::size_t with_work = 0;
      for (const auto& ids : classes.ids) with_work += ids.size();
      EXPECT_EQ(with_work + 1, shuffled_begin.size());  // all but the empty one
    }
}

TEST(Stage06Model, EqualsTheReferenceU32) {
  expect_model_equals_reference<std::uint32_t>();
}
TEST(Stage06Model, EqualsTheReferenceF32) {
  expect_model_equals_reference<float>();
}
TEST(Stage06Model, EqualsTheReferenceU64) {
  expect_model_equals_reference<std::uint64_t>();
}

// Segments of every bin edge (and several of each small size, as a warp of the classify kernel
// sees them), with gaps, in random order: the model, bin by bin, equals the reference, and the
// bins it reports are the edges' bins.
template <typename Key>
void expect_model_equals_reference_at_every_bin_edge() {
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  std::vector<std::uint32_t> sizes;
  for (int bin = 0; bin <= 12; ++bin) {
    sizes.push_back(std::uint32_t{1} << bin);
    sizes.push_back((std::uint32_t{1} << bin) + 1);
  }
  for (std::uint32_t size = 1; size <= 32; ++size) sizes.insert(sizes.end(), 3, size);
  std::shuffle(sizes.begin(), sizes.end(), random);
  Offsets begin, end;
  std::uint32_t at = 0;
  for (std::uint32_t size : sizes) {
    at += static_cast<std::uint32_t>(random() % 3);  // a gap, or none
    begin.push_back(at);
    end.push_back(at + size);
    at += size;
  }
  const std::size_t n = at + 5;
  for (auto distribution : {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
                            sortlab::Distribution::kAllEqual})
    for (const auto& options : option_cases(sortlab::KeyTraits<Key>::kNumBits)) {
      const auto keys = sortlab::generate_keys<Key>(distribution, n, seed);
      const Key poison = sortlab::KeyTraits<Key>::from_raw_bits(
          static_cast<typename sortlab::KeyTraits<Key>::Bits>(0xA5A5A5A5A5A5A5A5ull));
      std::vector<Key> expected(n, poison), modelled(n, poison);
      stage06::reference_segmented_sort<Key>(keys, nullptr, begin, end, options, expected);
      const auto classes = stage06::model_segmented_sort(keys, begin, end, options, modelled);
      ASSERT_EQ(raw_bits(modelled), raw_bits(expected))
          << sortlab::testing::case_label(n, sortlab::to_string(distribution), seed);
      for (std::size_t s = 0; s < begin.size(); ++s)
        ASSERT_EQ(classes.bin_of[s], stage06::classify_bin(end[s] - begin[s], sizeof(Key)));
      for (int bin = 0; bin < stage06::kNumBins; ++bin)
        if (bin != stage06::kLargeBin && stage06::tile_bin_exists(bin, sizeof(Key))) {
          EXPECT_FALSE(classes.bin_ids[bin].empty()) << "no segment in bin " << bin;
        }
    }
}

TEST(Stage06Model, EqualsTheReferenceAtEveryBinEdgeU32) {
  expect_model_equals_reference_at_every_bin_edge<std::uint32_t>();
}
TEST(Stage06Model, EqualsTheReferenceAtEveryBinEdgeF32) {
  expect_model_equals_reference_at_every_bin_edge<float>();
}
TEST(Stage06Model, EqualsTheReferenceAtEveryBinEdgeU64) {
  expect_model_equals_reference_at_every_bin_edge<std::uint64_t>();
}

// ---------------------------------------------------------------------------------------------
// The host side of the sort: size queries and argument checks (no CUDA call is reached).

/// Ids the lists need room for, computed here from the bin edges written out by hand: list
/// bins 64, 128, 256, 512, 1024, 2048, 4096 (4-byte keys only) and large, each min(segments,
/// n / its smallest size).
std::size_t expected_list_room(std::size_t n, std::size_t segments, std::size_t key_bytes) {
  const std::size_t smallest4[] = {33, 65, 129, 257, 513, 1025, 2049, 4097};
  const std::size_t smallest8[] = {33, 65, 129, 257, 513, 1025, 0, 2049};
  std::size_t total = 0;
  for (int l = 0; l < 8; ++l) {
    const std::size_t smallest = key_bytes <= 4 ? smallest4[l] : smallest8[l];
    if (smallest > 0) total += std::min(segments, n / smallest);
  }
  return total;
}

// The huge path is queued when n items can make a huge segment and the segments average at least
// kHugeMinAverageItems keys (measured: below that its fixed cost outweighs what it can win).
TEST(Stage06Scratch, HugePathQueuedOnlyForLargeAverages) {
  const std::size_t huge = stage06::kHugeMinItems, average = stage06::kHugeMinAverageItems;
  EXPECT_FALSE(stage06::huge_path_queued(huge - 1, 1));  // no segment can be huge
  EXPECT_TRUE(stage06::huge_path_queued(huge, 1));
  EXPECT_TRUE(stage06::huge_path_queued(std::size_t{1} << 26, (std::size_t{1} << 26) / average));
  EXPECT_FALSE(
      stage06::huge_path_queued(std::size_t{1} << 26, (std::size_t{1} << 26) / average + 1));
  EXPECT_FALSE(stage06::huge_path_queued(std::size_t{1} << 26, std::size_t{1} << 23));
  // The benchmark's mixes: equal segments of 8 and 32 keys do not queue it, of 128 keys and a
  // power-law mix averaging about 126 keys do.
  EXPECT_FALSE(stage06::huge_path_queued(std::size_t{1} << 26, (std::size_t{1} << 26) / 32));
  EXPECT_TRUE(stage06::huge_path_queued(std::size_t{1} << 26, (std::size_t{1} << 26) / 128));
  EXPECT_TRUE(stage06::huge_path_queued(std::size_t{1} << 26, 531474));
}

TEST(Stage06Scratch, ListRoomOfEveryBin) {
  for (std::size_t n :
       {std::size_t{0}, std::size_t{32}, std::size_t{33}, std::size_t{5000}, std::size_t{1} << 26})
    for (std::size_t segments : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 23})
      for (std::size_t key_bytes : {std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
        const auto plan = stage06::plan_scratch(n, segments, key_bytes, 4);
        std::size_t offset = 0;
        for (int l = 0; l < stage06::kNumListBins; ++l) {
          const int bin = stage06::kFirstWarpBin + l;
          const bool exists = bin != stage06::kLargeBin - 1 || key_bytes <= 4;
          const std::size_t room =
              exists ? std::min(segments, n / stage06::bin_lower_bound(bin, key_bytes)) : 0;
          EXPECT_EQ(plan.list_capacity[l], room) << "bin " << bin << " n=" << n;
          EXPECT_EQ(plan.list_offset[l], offset) << "bin " << bin << " n=" << n;
          offset += room;
        }
        EXPECT_EQ(offset, expected_list_room(n, segments, key_bytes));
      }
  // Equal segments of 8 keys (2^23 of them in 2^26 items) need no list at all beyond what
  // n / 33 allows: the small bins have none.
  const auto plan = stage06::plan_scratch(std::size_t{1} << 26, std::size_t{1} << 23, 4, 4);
  EXPECT_EQ(plan.list_capacity[0], (std::size_t{1} << 26) / 33);
}

TEST(Stage06Scratch, SizeQueryNeedsNoPointersAndMatchesThePlan) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 30})
    for (std::size_t segments : {std::size_t{1}, std::size_t{77}, std::size_t{1} << 20}) {
      std::size_t keys_bytes = 0, pairs_bytes = 0;
      stage06::sort_keys<float>(nullptr, keys_bytes, nullptr, nullptr, n, segments, nullptr,
                                nullptr);
      stage06::sort_pairs<std::uint64_t, std::uint64_t>(
          nullptr, pairs_bytes, nullptr, nullptr, nullptr, nullptr, n, segments, nullptr, nullptr);
      EXPECT_EQ(keys_bytes, stage06::plan_scratch(n, segments, 4, 0).layout.total_bytes());
      EXPECT_EQ(pairs_bytes, stage06::plan_scratch(n, segments, 8, 8).layout.total_bytes());
      // The alternate keys (and values) cover every item; the id lists have room for every
      // segment of their bins that n items can make (no list for the small bins).
      const std::size_t ids4 = expected_list_room(n, segments, 4);
      const std::size_t ids8 = expected_list_room(n, segments, 8);
      EXPECT_GE(keys_bytes, n * 4 + ids4 * 4);
      EXPECT_GE(pairs_bytes, n * 16 + ids8 * 4);
      // Plus the huge path's lists, counts and status words, when the sort queues that path (n
      // items can make a huge segment and the segments average kHugeMinAverageItems or more):
      // a tile counter per pass, 2^kHugeDigitBits counts per pass per huge segment and status
      // words per pass per tile, with ceil(32 / kHugeDigitBits) passes for 4-byte keys and
      // tiles of 4096 keys.
      const auto plan4 = stage06::plan_scratch(n, segments, 4, 0);
      EXPECT_EQ(plan4.huge_capacity,
                stage06::huge_path_queued(n, segments)
                    ? std::min<std::size_t>(segments, n / stage06::kHugeMinItems)
                    : 0u);
      EXPECT_EQ(plan4.huge_max_tiles,
                plan4.huge_capacity == 0 ? 0 : n / 4096 + plan4.huge_capacity);
      const std::size_t huge_passes = (32 + stage06::kHugeDigitBits - 1) / stage06::kHugeDigitBits;
      const std::size_t huge_digits = std::size_t{1} << stage06::kHugeDigitBits;
      EXPECT_EQ(plan4.huge_max_passes, plan4.huge_capacity == 0 ? 0u : huge_passes);
      const std::size_t zeroed =
          plan4.huge_capacity == 0
              ? 0
              : huge_passes * (1 + huge_digits * (plan4.huge_capacity + plan4.huge_max_tiles));
      EXPECT_EQ(stage06::huge_zeroed_words(plan4), zeroed);
      // The split route: two 64-bit route counts, 8 chunk list counters, two routes' entries and
      // first tiles, and three words per chunk (greedy chunks of at most 4096 keys: at most
      // 2 floor(n / 4097) + one per huge segment).
      const std::size_t chunks =
          plan4.huge_capacity == 0 ? 0 : 2 * (n / 4097) + plan4.huge_capacity;
      EXPECT_EQ(plan4.huge_chunk_capacity, chunks);
      const std::size_t huge_bytes =
          plan4.huge_capacity == 0
              ? 0
              : (2 * plan4.huge_capacity + 2 + zeroed) * 4 + 2 * 8 +
                    (stage06::kNumListBins + 4 * plan4.huge_capacity) * 4 + 3 * chunks * 4;
      EXPECT_LT(keys_bytes,
                n * 4 + ids4 * 4 + huge_bytes + 10 * sortlab::ScratchLayout::kAlignment);
      // Never more than the eight lists of num_segments ids each, and about n / 16 ids at most.
      EXPECT_LE(ids4, 8 * segments);
      EXPECT_LE(ids4, n / 16 + 8);
    }
  // Many small segments around one huge one: the large kernel sorts it, and the scratch holds
  // nothing for the huge path (2^26 items in 2^21 segments average 32 each).
  const std::size_t mixed_n = std::size_t{1} << 26, mixed_segments = std::size_t{1} << 21;
  ASSERT_FALSE(stage06::huge_path_queued(mixed_n, mixed_segments));
  const auto mixed = stage06::plan_scratch(mixed_n, mixed_segments, 4, 4);
  EXPECT_EQ(mixed.huge_capacity, 0u);
  EXPECT_EQ(mixed.huge_max_tiles, 0u);
  EXPECT_EQ(stage06::huge_zeroed_words(mixed), 0u);
  EXPECT_LE(mixed.layout.total_bytes(),
            mixed_n * 8 + (expected_list_room(mixed_n, mixed_segments, 4) + 16) * 4 +
                8 * sortlab::ScratchLayout::kAlignment);
  // Few huge segments: the path is queued and its scratch reserved.
  const auto few = stage06::plan_scratch(std::size_t{1} << 26, 16, 4, 4);
  EXPECT_EQ(few.huge_capacity, 16u);
  EXPECT_EQ(few.huge_max_tiles, (std::size_t{1} << 26) / 4096 + 16);
  // Nothing to sort: no scratch.
  std::size_t bytes = 123;
  stage06::sort_keys<std::uint32_t>(nullptr, bytes, nullptr, nullptr, 0, 5, nullptr, nullptr);
  EXPECT_EQ(bytes, 0u);
  bytes = 123;
  stage06::sort_keys<std::uint32_t>(nullptr, bytes, nullptr, nullptr, 5, 0, nullptr, nullptr);
  EXPECT_EQ(bytes, 0u);
}

// The bin sweep's knob (sort_pairs_with_min_bin()): segments of every smaller bin go to min_bin,
// so its list has room for as many segments as there are (one item each at least), the others
// keep theirs; empty and large segments keep their bins; only bins of the key's tiles exist.
TEST(Stage06Scratch, MinBinListHasRoomForEverySmallerSegment) {
  static_assert(stage06::classify_bin_at_least(1, 4, 9) == 9 &&
                stage06::classify_bin_at_least(300, 4, 9) == 9 &&
                stage06::classify_bin_at_least(600, 4, 9) == 10 &&
                stage06::classify_bin_at_least(0, 4, 9) == stage06::kNoBin &&
                stage06::classify_bin_at_least(5000, 4, 12) == stage06::kLargeBin &&
                stage06::classify_bin_at_least(17, 4, 0) == 5);
  EXPECT_TRUE(stage06::valid_min_bin(12, 4));
  EXPECT_FALSE(stage06::valid_min_bin(12, 8));  // no 4096-key tile for 8-byte keys
  EXPECT_FALSE(stage06::valid_min_bin(stage06::kLargeBin, 4));
  EXPECT_FALSE(stage06::valid_min_bin(-1, 4));
  const std::size_t n = 1 << 20, segments = 1 << 18;
  const auto usual = stage06::plan_scratch(n, segments, 4, 4);
  for (int min_bin = stage06::kFirstWarpBin; min_bin < stage06::kLargeBin; ++min_bin) {
    const auto raised = stage06::plan_scratch(n, segments, 4, 4, min_bin);
    for (int l = 0; l < stage06::kNumListBins; ++l) {
      const int bin = stage06::kFirstWarpBin + l;
      EXPECT_EQ(raised.list_capacity[l], bin == min_bin ? segments : usual.list_capacity[l])
          << "min_bin " << min_bin << ", bin " << bin;
    }
  }
  // Small bins have no list: raising to one changes no room.
  const auto small = stage06::plan_scratch(n, segments, 4, 4, 3);
  for (int l = 0; l < stage06::kNumListBins; ++l)
    EXPECT_EQ(small.list_capacity[l], usual.list_capacity[l]);
}

/// A fake device address: the checks compare addresses and never dereference them.
template <typename T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

/// Expects \p call to throw sortlab::Error whose message contains \p part.
template <typename Call>
void expect_error(Call call, const std::string& part) {
  try {
    call();
    FAIL() << "no error; expected one mentioning '" << part << "'";
  } catch (const sortlab::CudaError& error) {
    FAIL() << "a CUDA call was reached before the check: " << error.what();
  } catch (const sortlab::Error& error) {
    EXPECT_TRUE(contains(error.what(), part)) << error.what();
  }
}

TEST(Stage06Arguments, RejectedBeforeAnyCudaCall) {
  const std::size_t n = 1000, segments = 10;
  std::size_t need = 0;
  // The bin sweep's knob takes bins of the key's kernels only.
  for (int min_bin : {-1, stage06::kLargeBin, 99})
    expect_error(
        [&] {
          std::size_t bytes = 0;
          stage06::sort_pairs_with_min_bin<std::uint32_t, std::uint32_t>(
              nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, segments, nullptr, nullptr,
              min_bin);
        },
        "min_bin = " + std::to_string(min_bin));
  expect_error(
      [&] {
        std::size_t bytes = 0;
        stage06::sort_pairs_with_min_bin<std::uint64_t, std::uint32_t>(
            nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, segments, nullptr, nullptr, 12);
      },
      "min_bin = 12");
  stage06::sort_pairs<std::uint32_t, std::uint32_t>(nullptr, need, nullptr, nullptr, nullptr,
                                                    nullptr, n, segments, nullptr, nullptr);
  auto* keys_in = fake<const std::uint32_t>(0x1000000);
  auto* keys_out = fake<std::uint32_t>(0x2000000);
  auto* values_in = fake<const std::uint32_t>(0x3000000);
  auto* values_out = fake<std::uint32_t>(0x4000000);
  auto* begin = fake<const std::uint32_t>(0x5000000);
  auto* end = fake<const std::uint32_t>(0x6000000);
  void* temp = fake<void>(0x7000000);
  auto run = [&](void* t, std::size_t bytes, const std::uint32_t* ki, std::uint32_t* ko,
                 const std::uint32_t* vi, std::uint32_t* vo, std::size_t items,
                 std::size_t num_segments, const std::uint32_t* b, const std::uint32_t* e,
                 sortlab::SortOptions options = {}) {
    return [=]() mutable {
      stage06::sort_pairs(t, bytes, ki, ko, vi, vo, items, num_segments, b, e, options);
    };
  };
  expect_error(run(temp, need, nullptr, keys_out, values_in, values_out, n, segments, begin, end),
               "key pointers must not be null");
  expect_error(run(temp, need, keys_in, keys_out, nullptr, values_out, n, segments, begin, end),
               "value pointers must not be null");
  expect_error(run(temp, need, keys_in, keys_out, values_in, values_out, n, segments, nullptr, end),
               "begin_offsets and end_offsets must not be null");
  expect_error(
      run(temp, need, keys_in, keys_out, values_in, values_out, n, segments, begin, nullptr),
      "must not be null");
  expect_error(
      run(temp, need - 1, keys_in, keys_out, values_in, values_out, n, segments, begin, end),
      "temp_storage_bytes");
  expect_error(run(temp, need, keys_in, keys_out, values_in, values_out, (std::size_t{1} << 30) + 1,
                   segments, begin, end),
               "exceeds this sort's maximum");
  expect_error(run(nullptr, need, nullptr, nullptr, nullptr, nullptr, n, stage06::kMaxSegments + 1,
                   nullptr, nullptr),
               "num_segments");
  expect_error(run(temp, need, keys_in, keys_out, values_in, values_out, n, segments, begin, end,
                   {4, 40, false}),
               "begin_bit");
  // Overlaps: an output over the offsets, the offsets inside the scratch, in-place keys.
  expect_error(run(temp, need, keys_in, fake<std::uint32_t>(0x5000000 + 8), values_in, values_out,
                   n, segments, begin, end),
               "begin_offsets");
  expect_error(run(temp, need, keys_in, keys_out, values_in, values_out, n, segments,
                   fake<const std::uint32_t>(0x7000000 + 64), end),
               "temp_storage");
  expect_error(run(temp, need, keys_in, const_cast<std::uint32_t*>(keys_in), values_in, values_out,
                   n, segments, begin, end),
               "in-place");
  // A call with nothing to sort checks no pointer and launches nothing.
  std::size_t zero = 0;
  EXPECT_NO_THROW(stage06::sort_pairs(temp, zero, keys_in, keys_out, values_in, values_out, 0,
                                      segments, begin, end));
  EXPECT_NO_THROW(stage06::sort_pairs(temp, zero, keys_in, keys_out, values_in, values_out, n, 0,
                                      nullptr, nullptr));
}

// torch.sort's rule, by hand: NaN (either sign) is the largest value, -0.0 equals +0.0, stable.
TEST(Stage06SortRowsReference, NanLargestZerosEqualStable) {
  const float nan_negative = -std::numeric_limits<float>::quiet_NaN();
  const float nan_positive = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // one row: NaN(-), 1, -0.0, +inf, +0.0, NaN(+), -inf; a second row of two equal keys
  const std::vector<float> input = {nan_negative, 1.0f, -0.0f, inf,  0.0f, nan_positive, -inf,
                                    2.0f,         2.0f, 2.0f,  2.0f, 2.0f, 2.0f,         2.0f};
  std::vector<float> values;
  std::vector<std::int64_t> indices;
  stage06::torch_sort_rows_reference(input, 2, 7, false, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{6, 2, 4, 1, 3, 0, 5, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(std::signbit(values[1]) && values[1] == 0.0f);      // -0.0 kept before +0.0
  EXPECT_TRUE(std::isnan(values[5]) && std::signbit(values[5]));  // the NaNs keep their bits
  stage06::torch_sort_rows_reference(input, 2, 7, true, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{0, 5, 3, 1, 2, 4, 6, 0, 1, 2, 3, 4, 5, 6}));
}

// sort_rows checks its arguments before touching the device.
TEST(Stage06SortRowsArguments, SizesAndPointers) {
  std::size_t bytes = 0;
  EXPECT_NO_THROW(stage06::sort_rows<float>(nullptr, bytes, nullptr, nullptr, nullptr, 4, 1000));
  EXPECT_GT(bytes, 4000u * (4 + 8));
  EXPECT_THROW(stage06::sort_rows<float>(nullptr, bytes, nullptr, nullptr, nullptr,
                                         std::size_t{1} << 16, std::size_t{1} << 15),
               sortlab::Error);  // 2^31 elements
  EXPECT_THROW(
      stage06::sort_rows<float>(nullptr, bytes, nullptr, nullptr, nullptr, 0, std::size_t{1} << 33),
      sortlab::Error);  // more than 2^32 - 1 columns
  float fake[8] = {};
  std::int64_t fake_indices[8] = {};
  std::size_t too_few = 1;
  EXPECT_THROW(stage06::sort_rows<float>(fake, too_few, fake, fake + 4, fake_indices, 2, 2),
               sortlab::Error);  // scratch smaller than the query
  std::size_t query = 0;
  stage06::sort_rows<float>(nullptr, query, nullptr, nullptr, nullptr, 2, 2);
  std::vector<unsigned char> host_scratch(query);
  EXPECT_THROW(
      stage06::sort_rows<float>(host_scratch.data(), query, fake, nullptr, fake_indices, 2, 2),
      sortlab::Error);  // null values_out
  EXPECT_THROW(
      stage06::sort_rows<float>(host_scratch.data(), query, fake, fake, fake_indices, 2, 2),
      sortlab::Error);  // values_out is the input
}

}  // namespace
