/// \file
/// \brief Stage 06 segmented sort on the GPU (run on the H100):
/// every segment mix of issue 17 (all sizes 0 or 1; equal sizes 8, 32, 128, 1000, 4096, 65536;
/// uniform random sizes; power-law sizes with a few huge segments; empty segments between full
/// ones; gaps between segments, listed out of order, one past the input; every class boundary;
/// every power-of-two bin edge 1 .. 4097, and warps full of one small bin)
/// for u32, i32, f32 and u64 keys and every harness distribution, against the CPU reference on
/// poisoned outputs (positions outside every segment must keep the poison); pairs stable with
/// u32 and u64 values; descending and bit ranges; a reused, misaligned scratch; a sort on its own
/// stream while the legacy stream is held; CUDA graph capture and replay. Sizes honour
/// SORTLAB_TEST_MAX_N (a layout with more items is skipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "chapters/06_segmented_sort/segmented_model.hpp"
#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/sort_rows.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_properties.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/segments.hpp"
#include "tests/support/legacy_stream_blocker.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage06 = sortlab::stage06;
using Offsets = std::vector<std::uint32_t>;
using sortlab::DeviceBuffer;
using sortlab::SortOptions;
using sortlab::testing::case_label;
using sortlab::testing::max_test_n;
using sortlab::testing::test_seed;

// ---------------------------------------------------------------------------------------------
// Segment layouts.

/// A segmented input's shape: n items and the segments' begin and end offsets.
struct Layout {
  std::string name;  ///< for messages
  std::size_t n = 0;
  Offsets begin, end;
};

/// Contiguous segments from common/segments.hpp's offsets (segment s = [o[s], o[s+1])).
Layout contiguous(const std::string& name, const Offsets& offsets) {
  Layout layout{name, offsets.back(), {}, {}};
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    layout.begin.push_back(offsets[s]);
    layout.end.push_back(offsets[s + 1]);
  }
  return layout;
}

/// Contiguous segments of the given sizes.
Layout from_sizes(const std::string& name, const std::vector<std::uint32_t>& sizes) {
  Offsets offsets{0};
  for (std::uint32_t size : sizes) offsets.push_back(offsets.back() + size);
  return contiguous(name, offsets);
}

/// The segments of \p layout listed in a random order (the sort must not assume ascending
/// offsets).
Layout shuffled(Layout layout, std::mt19937_64& random) {
  std::vector<std::size_t> order(layout.begin.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), random);
  Layout result{layout.name + ", listed out of order", layout.n, {}, {}};
  for (std::size_t i : order) {
    result.begin.push_back(layout.begin[i]);
    result.end.push_back(layout.end[i]);
  }
  return result;
}

/// Segment sizes taken in order while they fit in \p budget items (at least the first one when
/// it fits).
std::vector<std::uint32_t> within_budget(const std::vector<std::uint32_t>& sizes,
                                         std::size_t budget) {
  std::vector<std::uint32_t> kept;
  std::size_t total = 0;
  for (std::uint32_t size : sizes)
    if (total + size <= budget) {
      kept.push_back(size);
      total += size;
    }
  return kept;
}

/// Segments at every bin edge (size_classes.hpp: bin b holds 2^(b-1) + 1 .. 2^b keys), each
/// layout at most 4200 items so that the sanitizer runs (SORTLAB_TEST_MAX_N=4200) keep them all,
/// listed out of order, with a one-item gap after every segment (a gap must keep the poison):
/// - sizes 1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257 (every small and warp
///   bin at both ends, and the first tile bin's bottom);
/// - 512, 513, 1024, 1025 (the 512- and 1024-key tiles at both ends);
/// - 2048, 2049 (the 2048-key tile's top; 4096's bottom for 4-byte keys, large for 8-byte);
/// - 4096 with a few small ones (the 4096-key tile's top; large for 8-byte keys);
/// - 4097 (the smallest large segment of 4-byte keys);
/// - every size 1 .. 32 five times in random order (warps of the classify kernel that hold
///   segments of several small bins at once, and bins whose segments need several rounds);
/// - 40 segments of 32, 70 of 8 and 90 of 2 keys in that order (whole warps of one small bin:
///   full rounds, more rounds than a warp keeps in flight, a partial last round).
std::vector<Layout> bin_edge_layouts(std::uint64_t seed) {
  std::mt19937_64 random(seed ^ 0xB1u);
  const auto with_gaps = [&random](const std::string& name, std::vector<std::uint32_t> sizes,
                                   bool shuffle) {
    if (shuffle) std::shuffle(sizes.begin(), sizes.end(), random);
    Layout layout{name, 0, {}, {}};
    std::uint32_t at = 0;
    for (std::uint32_t size : sizes) {
      layout.begin.push_back(at);
      layout.end.push_back(at + size);
      at += size + 1;
    }
    layout.n = at;
    return layout;
  };
  std::vector<Layout> layouts;
  layouts.push_back(with_gaps("bin edges 1 to 257",
                              {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257},
                              true));
  layouts.push_back(with_gaps("bin edges 512 to 1025", {512, 513, 1024, 1025}, true));
  layouts.push_back(with_gaps("bin edges 2048 and 2049", {2048, 2049}, true));
  layouts.push_back(with_gaps("bin edge 4096", {4096, 64, 33, 1}, true));
  layouts.push_back(with_gaps("bin edge 4097", {4097}, false));
  {
    std::vector<std::uint32_t> sizes;
    for (int copy = 0; copy < 5; ++copy)
      for (std::uint32_t size = 1; size <= 32; ++size) sizes.push_back(size);
    layouts.push_back(with_gaps("every small size five times", sizes, true));
  }
  {
    std::vector<std::uint32_t> sizes(40, 32);
    sizes.insert(sizes.end(), 70, 8);
    sizes.insert(sizes.end(), 90, 2);
    layouts.push_back(with_gaps("whole warps of one small bin", sizes, false));
  }
  return layouts;
}

/// Every segment mix of issue 17, small enough for the whole suite to take well under a minute
/// on an H100 (most of the time is the CPU reference). Each layout shrinks to SORTLAB_TEST_MAX_N
/// items where it can and keeps its character: under the device check's sanitizer cap (4200)
/// the class-boundary and gap layouts still hold a small, a medium and a large (4097-key)
/// segment; only the equal-size layouts that cannot hold two segments are dropped.
std::vector<Layout> all_layouts(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::size_t cap = max_test_n();
  const auto budget = [cap](std::size_t wanted) { return std::min(wanted, cap); };
  std::vector<Layout> layouts;
  {  // all sizes 0 or 1
    std::vector<std::uint32_t> sizes(budget(5000));
    for (auto& size : sizes) size = static_cast<std::uint32_t>(random() % 2);
    layouts.push_back(from_sizes("sizes 0 or 1", sizes));
  }
  for (std::uint32_t size : {8u, 32u, 128u, 1000u, 4096u, 65536u}) {  // equal sizes
    if (2 * std::size_t{size} > cap) continue;
    const auto count =
        static_cast<std::uint32_t>(std::max<std::size_t>(2, budget(1u << 17) / size));
    layouts.push_back(
        from_sizes("equal " + std::to_string(size), std::vector<std::uint32_t>(count, size)));
  }
  layouts.push_back(contiguous("uniform random sizes",
                               sortlab::generate_segment_offsets(
                                   budget(1u << 17), 300, sortlab::SegmentShape::kRandom, seed)));
  layouts.push_back(contiguous(
      "power-law sizes", sortlab::generate_segment_offsets(
                             budget(1u << 18), 2000, sortlab::SegmentShape::kPowerLaw, seed)));
  {  // empty segments between full ones
    std::vector<std::uint32_t> sizes;
    for (int s = 0; s < 200; ++s) {
      sizes.push_back(1 + static_cast<std::uint32_t>(random() % 5000));
      for (std::uint64_t e = random() % 4; e > 0; --e) sizes.push_back(0);
    }
    layouts.push_back(
        from_sizes("empty segments between full ones", within_budget(sizes, budget(1u << 18))));
  }
  for (Layout& layout : bin_edge_layouts(seed)) layouts.push_back(std::move(layout));
  {  // every class boundary (the large one first, so that a small cap keeps it), out of order
    const std::vector<std::uint32_t> sizes = {1,    2,    31,   32,   33,   4097, 2049,
                                              2048, 2047, 4096, 4095, 8192, 12289};
    layouts.push_back(shuffled(from_sizes("class boundaries", within_budget(sizes, cap)), random));
  }
  {  // gaps between segments, listed out of order, plus one past the input and a reversed one
    Layout gaps{"gaps between segments", 0, {}, {}};
    const std::size_t room = budget(1u << 18) - std::min<std::size_t>(cap, 64);  // tail gap
    std::uint32_t at = 0;
    for (int s = 0; s < 400; ++s) {
      const auto gap = s == 0 ? 0u : static_cast<std::uint32_t>(random() % 50);
      const std::uint32_t classes[] = {1 + static_cast<std::uint32_t>(random() % 32),
                                       33 + static_cast<std::uint32_t>(random() % 1000),
                                       4097 + static_cast<std::uint32_t>(random() % 6000)};
      // The first segment is large (4097 keys, so that a cap of 4200 keeps it), then one in ten.
      const std::uint32_t size = s == 0 ? 4097u : classes[random() % 10 == 0 ? 2 : random() % 2];
      if (at + gap + size > room) continue;
      at += gap;
      gaps.begin.push_back(at);
      gaps.end.push_back(at + size);
      at += size;
    }
    gaps.n = std::min<std::size_t>(at + 17, cap);  // a gap at the end too
    gaps.begin.push_back(at + 5);                  // past the input: ignored, nothing written
    gaps.end.push_back(at + 40);
    gaps.begin.push_back(at + 10);  // end before begin: empty
    gaps.end.push_back(at + 2);
    layouts.push_back(shuffled(gaps, random));
  }
  std::vector<Layout> kept;  // a layout that cannot shrink to the cap is left out
  for (auto& layout : layouts)
    if (layout.n <= cap && !layout.begin.empty()) kept.push_back(std::move(layout));
  return kept;
}

// ---------------------------------------------------------------------------------------------
// One sort against the reference.

/// The poison byte as a whole key or value, what the reference prefills its outputs with.
template <typename T>
T poison_value() {
  T value;
  // Through void*: __half and __nv_bfloat16 are trivially copyable, but not trivial classes.
  std::memset(static_cast<void*>(&value), sortlab::kPoisonByte, sizeof(T));
  return value;
}

/// Values for pair sorts: distinct, spread over all 64 bits for 8-byte values.
template <typename Value>
std::vector<Value> test_values(std::size_t n) {
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] =
        sizeof(Value) >= 8 ? static_cast<Value>(i * 0x9E3779B97F4A7C15ull) : static_cast<Value>(i);
  return values;
}

/// "segment 3 [10, 20) of size class small" for the segment holding \p index, or "outside
/// every segment".
template <typename Key>
std::string where(const Layout& layout, std::size_t index) {
  for (std::size_t s = 0; s < layout.begin.size(); ++s)
    if (layout.begin[s] <= index && index < layout.end[s] && layout.end[s] <= layout.n)
      return "segment " + std::to_string(s) + " [" + std::to_string(layout.begin[s]) + ", " +
             std::to_string(layout.end[s]) + ") of size class " +
             stage06::to_string(
                 stage06::classify_segment(layout.begin[s], layout.end[s], layout.n, sizeof(Key)));
  return "outside every segment (must keep the poison)";
}

/// How a run calls the sort.
struct RunSettings {
  std::size_t scratch_offset = 0;  ///< misaligns the scratch pointer
  cudaStream_t stream = nullptr;   ///< the sort's stream
  int min_bin = 0;  ///< pairs only: sort_pairs_with_min_bin() with this bin when above 0
};

/// Sorts \p keys (and values when kPairs) in \p layout's segments with poisoned outputs and
/// scratch, and compares every output position with the reference bit for bit; checks that the
/// input is unchanged and nothing was written past the scratch.
template <typename Key, typename Value, bool kPairs>
void expect_segmented_sort(const std::vector<Key>& keys, const Layout& layout,
                           const SortOptions& options, const RunSettings& settings = {}) {
  const std::size_t n = layout.n;
  ASSERT_EQ(keys.size(), n);
  const std::size_t num_segments = layout.begin.size();
  const cudaStream_t stream = settings.stream;
  const std::vector<Value> values = test_values<Value>(n);
  DeviceBuffer<Key> keys_in(keys), keys_out(n);
  DeviceBuffer<Value> values_in(values), values_out(n);
  DeviceBuffer<std::uint32_t> begin(layout.begin), end(layout.end);
  // The uploads ran on the legacy stream; the sort may run on a non-blocking one.
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  keys_out.fill_bytes(sortlab::kPoisonByte, stream);
  values_out.fill_bytes(sortlab::kPoisonByte, stream);

  const auto sort_pairs = [&](void* scratch, std::size_t& bytes) {
    if (settings.min_bin > 0)
      stage06::sort_pairs_with_min_bin(scratch, bytes, keys_in.data(), keys_out.data(),
                                       values_in.data(), values_out.data(), n, num_segments,
                                       begin.data(), end.data(), settings.min_bin, options, stream);
    else
      stage06::sort_pairs(scratch, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                          values_out.data(), n, num_segments, begin.data(), end.data(), options,
                          stream);
  };
  std::size_t temp_bytes = 0;
  if constexpr (kPairs)
    sort_pairs(nullptr, temp_bytes);
  else
    stage06::sort_keys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                       begin.data(), end.data(), options, stream);
  const std::size_t canary = 4096;
  DeviceBuffer<unsigned char> temp(settings.scratch_offset + temp_bytes + canary);
  temp.fill_bytes(sortlab::kPoisonByte, stream);
  void* scratch = temp.data() + settings.scratch_offset;
  if constexpr (kPairs)
    sort_pairs(scratch, temp_bytes);
  else
    stage06::sort_keys(scratch, temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                       begin.data(), end.data(), options, stream);
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SORTLAB_CUDA_CHECK(cudaGetLastError());

  std::vector<Key> expected_keys(n, poison_value<Key>());
  std::vector<Value> expected_values(n, poison_value<Value>());
  stage06::reference_segmented_sort(keys, kPairs ? &values : nullptr, layout.begin, layout.end,
                                    options, expected_keys, kPairs ? &expected_values : nullptr);
  const std::vector<Key> got_keys = keys_out.download();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(got_keys[i]),
              sortlab::KeyTraits<Key>::raw_bits(expected_keys[i]))
        << "key at index " << i << ", " << where<Key>(layout, i);
  if constexpr (kPairs) {
    const std::vector<Value> got_values = values_out.download();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got_values[i], expected_values[i])
          << "value at index " << i << ", " << where<Key>(layout, i)
          << ": values did not travel with their keys, or equal keys lost input order";
  }
  const std::vector<Key> input_after = keys_in.download();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(input_after[i]),
              sortlab::KeyTraits<Key>::raw_bits(keys[i]))
        << "the sort modified its input at index " << i;
  const std::vector<unsigned char> scratch_bytes = temp.download();
  for (std::size_t i = 0; i < settings.scratch_offset; ++i)
    ASSERT_EQ(scratch_bytes[i], sortlab::kPoisonByte) << "the sort wrote before its scratch";
  for (std::size_t i = settings.scratch_offset + temp_bytes; i < scratch_bytes.size(); ++i)
    ASSERT_EQ(scratch_bytes[i], sortlab::kPoisonByte) << "the sort wrote past its scratch";
}

// ---------------------------------------------------------------------------------------------
// The suites.

template <typename Key>
class Stage06Segmented : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t,
                                  double, __half, __nv_bfloat16>;
// Named by index (Stage06Segmented/0 is u32), as the device check's sanitizer filter expects.
TYPED_TEST_SUITE(Stage06Segmented, KeyTypes);

// Keys only, every layout and every distribution, ascending.
TYPED_TEST(Stage06Segmented, KeysEveryLayoutAndDistribution) {
  using Key = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const Layout& layout : all_layouts(seed))
    for (auto distribution : sortlab::all_distributions()) {
      SCOPED_TRACE(layout.name + ": " +
                   case_label(layout.n, sortlab::to_string(distribution), seed));
      const auto keys = sortlab::generate_keys<Key>(distribution, layout.n, seed + layout.n);
      expect_segmented_sort<Key, std::uint32_t, false>(keys, layout, {});
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Pairs: values travel with their keys and equal keys keep input order, in both directions,
// with distributions full of ties; u32 values, and u64 values for u32 and u64 keys.
TYPED_TEST(Stage06Segmented, PairsAreStableEveryLayout) {
  using Key = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const Layout& layout : all_layouts(seed))
    for (auto distribution : {sortlab::Distribution::kFewDistinct, sortlab::Distribution::kAllEqual,
                              sortlab::Distribution::kFloatSpecials})
      for (bool descending : {false, true}) {
        SCOPED_TRACE(layout.name + ": " +
                     case_label(layout.n, sortlab::to_string(distribution), seed) +
                     (descending ? " descending" : " ascending"));
        const auto keys = sortlab::generate_keys<Key>(distribution, layout.n, seed + layout.n);
        const SortOptions options{0, sortlab::kAllBits, descending};
        expect_segmented_sort<Key, std::uint32_t, true>(keys, layout, options);
        if constexpr (std::is_unsigned_v<Key>)
          expect_segmented_sort<Key, std::uint64_t, true>(keys, layout, options);
        if (::testing::Test::HasFatalFailure()) return;
      }
}

// Every bin edge alone (what the sanitizer filter of the device check selects): keys and
// pairs (u32 values, and u64 values for unsigned keys), both directions, a few distributions.
TYPED_TEST(Stage06Segmented, EveryBinEdgeKeysAndPairs) {
  using Key = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const Layout& layout : bin_edge_layouts(seed)) {
    if (layout.n > max_test_n()) continue;
    for (auto distribution : {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
                              sortlab::Distribution::kAllEqual})
      for (bool descending : {false, true}) {
        SCOPED_TRACE(layout.name + ": " +
                     case_label(layout.n, sortlab::to_string(distribution), seed) +
                     (descending ? " descending" : " ascending"));
        const auto keys = sortlab::generate_keys<Key>(distribution, layout.n, seed + layout.n);
        const SortOptions options{0, sortlab::kAllBits, descending};
        expect_segmented_sort<Key, std::uint32_t, false>(keys, layout, options);
        expect_segmented_sort<Key, std::uint32_t, true>(keys, layout, options);
        if constexpr (std::is_unsigned_v<Key>)
          expect_segmented_sort<Key, std::uint64_t, true>(keys, layout, options);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

// The measurement knob of the bin sweep (sort_pairs_with_min_bin()): every segment that a bin
// below min_bin would take is sorted by bin min_bin's kernel, padded to its width; for every
// bin from 1 (pairs of lanes) to the largest tile, on the bin edges of 1 to 257 keys, 512 to
// 1025, 4096 and one large segment, so that each kernel sorts segments far below its bin (one
// key in the 4096-key tile), and the lists take more segments than their usual room. Stable
// pairs, both directions, keys with float specials; u64 keys up to their largest tile (2048).
TYPED_TEST(Stage06Segmented, EveryBinSortsTheSmallerBinsSegments) {
  using Key = TypeParam;
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed ^ 0x5EEDu);
  const std::vector<std::uint32_t> sizes = {1,  2,  3,    4,    5,   8,   9,    16,  17,  32,
                                            33, 64, 65,   128,  129, 256, 257,  512, 513, 0,
                                            1,  1,  1024, 1025, 2,   7,   4096, 3,   0,   5000};
  const Layout layout = shuffled(from_sizes("bin edges", sizes), random);
  if (layout.n > max_test_n()) GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  const auto keys =
      sortlab::generate_keys<Key>(sortlab::Distribution::kFloatSpecials, layout.n, seed);
  for (int min_bin = 1; min_bin < stage06::kLargeBin; ++min_bin) {
    if (!stage06::valid_min_bin(min_bin, sizeof(Key))) continue;
    for (bool descending : {false, true}) {
      SCOPED_TRACE(case_label(layout.n, "float specials", seed) + ", min_bin " +
                   std::to_string(min_bin) + (descending ? " descending" : " ascending"));
      RunSettings settings;
      settings.min_bin = min_bin;
      expect_segmented_sort<Key, std::uint32_t, true>(keys, layout,
                                                      {0, sortlab::kAllBits, descending}, settings);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Descending keys and bit ranges (no bits, one bit, a range across the digit boundaries).
TYPED_TEST(Stage06Segmented, DescendingAndBitRanges) {
  using Key = TypeParam;
  const int bits = sortlab::KeyTraits<Key>::kNumBits;
  const std::uint64_t seed = test_seed();
  const std::vector<SortOptions> cases = {{0, sortlab::kAllBits, true},
                                          {0, 0, false},
                                          {bits - 1, bits, false},
                                          {3, bits - 2, true},
                                          // Crosses the 8-bit digit boundary; for 16-bit keys
                                          // it ends one bit short of the top.
                                          {5, std::min(17, bits - 1), false}};
  for (const Layout& layout : all_layouts(seed))
    for (const SortOptions& options : cases) {
      SCOPED_TRACE(layout.name + ": " + case_label(layout.n, "uniform", seed) + " bits [" +
                   std::to_string(options.begin_bit) + ", " + std::to_string(options.end_bit) +
                   ")" + (options.descending ? " descending" : ""));
      const auto keys =
          sortlab::generate_keys<Key>(sortlab::Distribution::kUniform, layout.n, seed + layout.n);
      expect_segmented_sort<Key, std::uint32_t, true>(keys, layout, options);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Every kernel after the classification strides: its grid is capped at an SM's worth of threads
// per SM, and a warp or block sorts segment after segment. The layouts above never fill a grid,
// so here each list holds about twice its kernel's cap of segments at the smallest size of its
// bin (which also fills those lists exactly to their room): warps and blocks sort a second
// segment, reusing their shared memory. About 15 M items on an H100.
TEST(Stage06SegmentedGpu, EveryKernelSortsMoreSegmentsThanItsGridHolds) {
  const std::uint64_t seed = test_seed();
  const std::size_t sms = sortlab::multiprocessor_count();
  // (segment size, segments): the warp kernel (64 warps per SM), the tile kernels of 128 threads
  // (16 blocks per SM) and 256 threads (8), the large class (4 blocks per SM); twice each cap.
  const std::vector<std::pair<std::uint32_t, std::size_t>> bins = {
      {33, 2 * 64 * sms},  {257, 2 * 16 * sms}, {513, 2 * 16 * sms},
      {1025, 2 * 8 * sms}, {2049, 2 * 8 * sms}, {4097, 2 * 4 * sms}};
  std::vector<std::uint32_t> sizes;
  for (const auto& [size, count] : bins) sizes.insert(sizes.end(), count, size);
  const Layout layout = from_sizes("grids over full", sizes);
  if (layout.n > sortlab::testing::max_test_n())
    GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  SCOPED_TRACE(case_label(layout.n, "few distinct", seed));
  const auto keys =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kFewDistinct, layout.n, seed);
  expect_segmented_sort<std::uint32_t, std::uint32_t, true>(keys, layout, {});
  expect_segmented_sort<std::uint32_t, std::uint32_t, true>(keys, layout,
                                                            {0, sortlab::kAllBits, true});
}

// The tile kernels copy a block's next segment into shared memory in the background while they
// sort the current one (cp.async for 4- and 8-byte keys and values, plain copies for 2-byte
// keys). Per tile bin, a layout of a quarter more segments than the kernel's grid holds, of
// random sizes inside the bin, so that some blocks sort a second segment (which segments share
// a block depends on the order the classify kernel listed them in): a segment's padding must
// not pick up what a longer segment before it left in the slots. Descending pairs with u32 and u64
// values, u64 keys (8-byte copies; their tiles end at 2048) and f16 keys (no cp.async). Under
// SORTLAB_TEST_MAX_N=1100000 (the device check's sanitizer cap for it) only the 512-key tile's
// layout runs.
TEST(Stage06SegmentedGpu, TileKernelsPrefetchTheNextSegment) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed ^ 0x7E57u);
  const std::size_t sms = sortlab::multiprocessor_count();
  int layouts_run = 0;
  for (int bin = stage06::kFirstTileBin; bin < stage06::kLargeBin; ++bin) {
    // The launcher caps a tile kernel's grid at 2048 threads per SM.
    const std::size_t grid = sms * (2048 / stage06::tile_shape(bin).threads);
    const std::uint32_t low = stage06::bin_max_items(bin) / 2 + 1,
                        high = stage06::bin_max_items(bin);
    std::vector<std::uint32_t> sizes(grid + 1 + grid / 4);
    for (auto& size : sizes) size = low + static_cast<std::uint32_t>(random() % (high - low + 1));
    sizes[0] = high;  // a full tile, then (most likely) a shorter one in the same block
    Layout layout = from_sizes("tile bin " + std::to_string(bin) + " over its grid", sizes);
    if (layout.n > max_test_n()) continue;
    ++layouts_run;
    SCOPED_TRACE(case_label(layout.n, "uniform", seed));
    const SortOptions descending{0, sortlab::kAllBits, true};
    expect_segmented_sort<float, std::uint32_t, true>(
        sortlab::generate_keys<float>(sortlab::Distribution::kUniform, layout.n, seed), layout,
        descending);
    expect_segmented_sort<std::uint32_t, std::uint64_t, true>(
        sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kFewDistinct, layout.n, seed),
        layout, {});
    expect_segmented_sort<__half, std::uint32_t, true>(
        sortlab::generate_keys<__half>(sortlab::Distribution::kUniform, layout.n, seed), layout,
        {});
    if (stage06::tile_bin_exists(bin, sizeof(std::uint64_t)))
      expect_segmented_sort<std::uint64_t, std::uint32_t, true>(
          sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kUniform, layout.n, seed),
          layout, descending);
    if (::testing::Test::HasFailure()) return;
  }
  if (layouts_run == 0) GTEST_SKIP() << "every layout is over SORTLAB_TEST_MAX_N";
}

// The 2048- and 4096-key tiles sort any bit range in passes of the shape's widths; a shape with
// wide passes (TileShape::wide_radix_bits) splits the range between two block sorts at a
// multiple of the wide width, and the narrow sort may get no bits at all (a range of 7, 14, 21
// or 28 bits at widths 7 and 6). Ranges of every length that matters for widths 6 and 7, at the
// bottom and at the top of the key, both directions, pairs (stable); f32 with float specials
// (-0.0 and +0.0, NaNs of both signs, infinities), u32, and u64 (the 2048-key tile).
TEST(Stage06SegmentedGpu, TileSortsEveryBitRangeLength) {
  const std::uint64_t seed = test_seed();
  const Layout layout =
      from_sizes("one segment in each of bins 11 and 12, and a full 4096", {4096, 2500, 1100});
  if (layout.n > max_test_n()) GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  const auto run = [&](auto key_tag, sortlab::Distribution distribution) {
    using Key = decltype(key_tag);
    const int bits = sortlab::KeyTraits<Key>::kNumBits;
    const auto keys = sortlab::generate_keys<Key>(distribution, layout.n, seed);
    for (const int length : {1, 6, 7, 8, 12, 13, 14, 20, 21, 27, 28, 32})
      for (const int begin : {0, bits - length})
        for (const bool descending : {false, true}) {
          if (length > bits) continue;
          SCOPED_TRACE(case_label(layout.n, sortlab::to_string(distribution), seed) + ", " +
                       std::to_string(bits) + "-bit keys, bits [" + std::to_string(begin) + ", " +
                       std::to_string(begin + length) + ")" + (descending ? " descending" : ""));
          expect_segmented_sort<Key, std::uint32_t, true>(keys, layout,
                                                          {begin, begin + length, descending});
          if (::testing::Test::HasFatalFailure()) return;
        }
  };
  run(float{}, sortlab::Distribution::kFloatSpecials);
  run(std::uint32_t{}, sortlab::Distribution::kUniform);
  run(std::uint64_t{}, sortlab::Distribution::kUniform);
}

// Huge segments among others (the huge-path tests' layout): the smallest huge segment, one tile
// plus one key more, one just below the threshold (with kHugeMinItems = 4097: the 4096-key tile
// for 4-byte keys, the large kernel's two 2048-key tiles for 8-byte keys) and one with a partial
// last tile, mixed with small and medium segments, gaps and an empty segment, listed out of
// order.
Layout huge_mixed_layout(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::uint32_t huge = stage06::kHugeMinItems;
  Layout layout{"huge segments", 0, {}, {}};
  std::uint32_t at = 0;
  for (std::uint32_t size :
       {huge, 7u, huge + 4097u, 0u, huge - 1, 1000u, 3 * huge + 12345u, huge + 1, 33u}) {
    at += static_cast<std::uint32_t>(random() % 3);  // gaps keep the poison
    layout.begin.push_back(at);
    layout.end.push_back(at + size);
    at += size;
  }
  layout.n = at + 5;
  return shuffled(layout, random);
}

// Huge segments (at least kHugeMinItems keys) are sorted by many blocks each, one pass at a time
// (one histogram kernel, then one kernel per pass: a block per tile of 4096 keys, a look-back
// over the tiles before it in its segment) in huge_mixed_layout(); keys and stable pairs,
// descending with a bit range, 8-byte keys (2048-key tiles) with 8-byte values, and few distinct
// keys (long runs of equal keys across tiles).
TEST(Stage06SegmentedGpu, HugeSegmentsManyBlocksEach) {
  const std::uint64_t seed = test_seed();
  const Layout layout = huge_mixed_layout(seed);
  if (layout.n > sortlab::testing::max_test_n())
    GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  SCOPED_TRACE(case_label(layout.n, "huge segments", seed));
  const auto uniform =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, layout.n, seed);
  expect_segmented_sort<std::uint32_t, std::uint32_t, false>(uniform, layout, {});
  expect_segmented_sort<std::uint32_t, std::uint32_t, true>(uniform, layout, {});
  const auto few =
      sortlab::generate_keys<float>(sortlab::Distribution::kFewDistinct, layout.n, seed + 1);
  expect_segmented_sort<float, std::uint32_t, true>(few, layout, {0, sortlab::kAllBits, true});
  expect_segmented_sort<float, std::uint32_t, true>(few, layout, {3, 29, true});
  const auto wide = sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kFewDistinct,
                                                          layout.n, seed + 2);
  expect_segmented_sort<std::uint64_t, std::uint64_t, true>(wide, layout, {});
}

// The huge path's passes take kHugeDigitBits-bit digits, the large kernel's kBlockRadixBits: bit
// ranges whose huge pass counts are odd (1 and 3: pass 0 writes the output, or the one pass
// reads the input and writes the output) and differ from the large kernel's, last passes
// narrower than a digit that still take two block-sort rounds (7 bits: 6 + 1), both directions,
// float specials (-0.0 and +0.0, NaNs, infinities), 16-bit and 64-bit keys; all stable pairs.
TEST(Stage06SegmentedGpu, HugeSegmentsDigitWidthsAndParity) {
  const std::uint64_t seed = test_seed();
  const Layout layout = huge_mixed_layout(seed);
  if (layout.n > sortlab::testing::max_test_n())
    GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  const auto specials =
      sortlab::generate_keys<float>(sortlab::Distribution::kFloatSpecials, layout.n, seed + 3);
  for (bool descending : {false, true})
    for (const auto& bits :
         {std::pair{0, 8}, std::pair{0, 7}, std::pair{4, 21}, std::pair{3, 29}, std::pair{0, 32}}) {
      SCOPED_TRACE(case_label(layout.n, "float specials", seed) + ", bits " +
                   std::to_string(bits.first) + ".." + std::to_string(bits.second) +
                   (descending ? ", descending" : ""));
      expect_segmented_sort<float, std::uint32_t, true>(specials, layout,
                                                        {bits.first, bits.second, descending});
      if (::testing::Test::HasFatalFailure()) return;
    }
  SCOPED_TRACE(case_label(layout.n, "wide and narrow keys", seed));
  const auto doubles =
      sortlab::generate_keys<double>(sortlab::Distribution::kFloatSpecials, layout.n, seed + 4);
  expect_segmented_sort<double, std::uint32_t, true>(doubles, layout, {1, 64, true});
  const auto wide =
      sortlab::generate_keys<std::int64_t>(sortlab::Distribution::kUniform, layout.n, seed + 5);
  expect_segmented_sort<std::int64_t, std::uint32_t, true>(wide, layout, {0, 40, false});
  const auto halves =
      sortlab::generate_keys<__half>(sortlab::Distribution::kFloatSpecials, layout.n, seed + 6);
  expect_segmented_sort<__half, std::uint32_t, true>(halves, layout, {});
}

// When the segments average fewer than kHugeMinAverageItems keys the huge path is not queued,
// and the large kernel sorts every large segment with one block: the only way segments of 4-byte
// keys reach it, since every larger one is huge otherwise (kHugeMinItems = 4097). Two of them
// among 10000 segments of 1 to 10 keys (about 32 keys per segment on average): the smallest
// huge one plus one key (two tiles and one key) and one of 2^18 + 5 keys (65 tiles); u32 keys
// with stable values, f32 keys descending over a bit range, u64 keys (2048-key tiles) with
// values.
TEST(Stage06SegmentedGpu, HugeSegmentAmongSmallOnesTakesOneBlock) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed);
  std::vector<std::uint32_t> sizes;
  for (int s = 0; s < 10000; ++s) sizes.push_back(1 + static_cast<std::uint32_t>(random() % 10));
  sizes.insert(sizes.begin() + 1717, (std::uint32_t{1} << 18) + 5);
  sizes.insert(sizes.begin() + 4242, stage06::kHugeMinItems + 1);
  const Layout layout = from_sizes("huge among small", sizes);
  ASSERT_LT(layout.n / sizes.size(), stage06::kHugeMinAverageItems);
  if (layout.n > sortlab::testing::max_test_n())
    GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  SCOPED_TRACE(case_label(layout.n, "few distinct", seed));
  const auto keys =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kFewDistinct, layout.n, seed);
  expect_segmented_sort<std::uint32_t, std::uint32_t, true>(keys, layout, {});
  const auto floats =
      sortlab::generate_keys<float>(sortlab::Distribution::kFloatSpecials, layout.n, seed + 1);
  expect_segmented_sort<float, std::uint32_t, false>(floats, layout, {2, 30, true});
  const auto wide =
      sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kUniform, layout.n, seed + 2);
  expect_segmented_sort<std::uint64_t, std::uint32_t, true>(wide, layout, {});
}

// More tiles of huge segments than the pass kernel's grid holds (2 blocks per SM, 264 on an
// H100) and than the histogram kernel's (8 per SM, 1056): three segments of 2^22 + 77 keys,
// 3075 tiles of 4096 keys, so every block takes many tiles from the pass's counter, of
// different segments, and the look-back walks across 1025 tiles per segment. About 12.6 M items.
TEST(Stage06SegmentedGpu, HugeSegmentsMoreTilesThanThePassGridHolds) {
  const std::uint64_t seed = test_seed();
  const Layout layout = from_sizes("three huge segments",
                                   std::vector<std::uint32_t>(3, (std::uint32_t{1} << 22) + 77));
  if (layout.n > sortlab::testing::max_test_n())
    GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
  SCOPED_TRACE(case_label(layout.n, "uniform", seed));
  const auto keys =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, layout.n, seed);
  expect_segmented_sort<std::uint32_t, std::uint32_t, true>(keys, layout, {});
}

// Keys of a huge segment whose most significant 8 bits take the digit values 0, 1, ... with
// bucket_sizes[d] keys each (the other bits random), shuffled.
template <typename Key>
std::vector<Key> keys_with_top_digits(const std::vector<std::uint32_t>& bucket_sizes,
                                      std::mt19937_64& random) {
  constexpr int kBits = 8 * sizeof(Key);
  std::vector<Key> keys;
  for (std::size_t d = 0; d < bucket_sizes.size(); ++d)
    for (std::uint32_t i = 0; i < bucket_sizes[d]; ++i) {
      const std::uint64_t low = random() & ((std::uint64_t{1} << (kBits - 8)) - 1);
      keys.push_back(static_cast<Key>((std::uint64_t{d} << (kBits - 8)) | low));
    }
  std::shuffle(keys.begin(), keys.end(), random);
  return keys;
}

// The huge path's split route: a huge segment whose last pass (its most significant digit)
// leaves no bucket larger than the largest tile (huge_bucket_max_items(): 4096 keys, 2048 for
// 8-byte keys) takes that pass alone, from the input to the output; neighbouring buckets are
// then packed greedily into chunks of at most a tile, which the largest tile bin's kernel sorts
// in place. Buckets at every edge of the packing (alone at the largest tile, empty digits
// between full ones, runs that end one key short of or one key past a tile: 4095 + 1, 2048 +
// 2049), a segment one key over the edge (the radix route) and one of all-equal keys beside
// them, gaps; ascending and descending pairs (stable), a range that cuts the top digit to 6 bits
// (buckets merge by pairs of digit values) and one that starts at bit 3 (the last pass's digit
// is 5 bits wide: buckets merge by eights, and the first segment's first one is too big), u64
// keys (2048-key chunks), keys alone.
TEST(Stage06SegmentedGpu, HugeSegmentsSplitIntoBuckets) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed);
  const auto run = [&](auto key_tag) {
    using Key = decltype(key_tag);
    const std::uint32_t edge = stage06::huge_bucket_max_items(sizeof(Key));
    const std::vector<std::vector<std::uint32_t>> segments_buckets = {
        {edge, 0, 1, 32, 33, 0, 0, 256, 257, 2048, 2049 % (edge + 1), edge - 1, edge},  // split
        {3, edge + 1, 70},                                                              // radix
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 600, 9000, 4000},  // radix
        {100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100,
         100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100,
         100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100}};  // 4500 keys in 45
                                                                             // buckets
    Layout layout{"split and radix routes", 0, {}, {}};
    std::vector<Key> keys;
    std::uint32_t at = 0;
    for (const auto& buckets : segments_buckets) {
      const std::vector<Key> segment = keys_with_top_digits<Key>(buckets, random);
      const std::uint32_t gap = static_cast<std::uint32_t>(random() % 5);
      keys.resize(keys.size() + gap, Key{7});  // outside every segment: keeps the poison
      at += gap;
      layout.begin.push_back(at);
      layout.end.push_back(at + static_cast<std::uint32_t>(segment.size()));
      keys.insert(keys.end(), segment.begin(), segment.end());
      at += static_cast<std::uint32_t>(segment.size());
    }
    // All equal keys: one bucket of the whole segment, the radix route.
    layout.begin.push_back(at);
    layout.end.push_back(at + 3 * edge);
    keys.resize(keys.size() + 3 * edge, Key{42});
    at += 3 * edge;
    layout.n = at;
    ASSERT_GE(layout.n / layout.begin.size(), stage06::kHugeMinAverageItems);
    if (layout.n > sortlab::testing::max_test_n())
      GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
    const Layout listed = shuffled(layout, random);
    constexpr int kBits = 8 * sizeof(Key);
    for (const SortOptions& options :
         {SortOptions{}, SortOptions{0, kBits, true}, SortOptions{0, kBits - 2, false},
          SortOptions{3, kBits, true}}) {
      SCOPED_TRACE(case_label(listed.n, "top digits set", seed) + ", " + std::to_string(kBits) +
                   "-bit keys, bits " + std::to_string(options.begin_bit) + ".." +
                   std::to_string(options.end_bit) + (options.descending ? " descending" : ""));
      expect_segmented_sort<Key, std::uint32_t, true>(keys, listed, options);
      if (::testing::Test::HasFatalFailure()) return;
    }
    expect_segmented_sort<Key, std::uint32_t, false>(keys, listed, {});
  };
  run(std::uint32_t{});
  run(std::uint64_t{});
}

// Overlapping segments break the sort's one precondition it cannot check: the result inside
// them is undefined, but the sort must still return and never write outside every segment (run
// it under compute-sanitizer memcheck to see no access past the arrays). Three layouts of large
// segments, so that the huge path's passes and the large kernel's run on keys another segment
// changed under the counts taken before the first pass (h = kHugeMinItems): (a) three huge
// segments over 3 x h items, all listed; (b) three copies of [h, 2h) in 2h items, one more huge
// segment than the huge path has room for (n / h = 2), with [0, h) outside every segment; (c)
// two overlapping large segments in [h, 3h) among 400 one-key segments, whose average (under
// kHugeMinAverageItems) leaves them to the large kernel, with [0, h) outside every segment.
TEST(Stage06SegmentedGpu, OverlappingSegmentsStayInsideTheirRanges) {
  const std::uint32_t huge = stage06::kHugeMinItems;
  struct Case {
    std::uint32_t n;
    Offsets begin, end;
  };
  Case one_block{3 * huge + 400, {huge, huge + huge / 2}, {2 * huge + huge / 2, 3 * huge}};
  for (std::uint32_t i = 0; i < 400; ++i) {
    one_block.begin.push_back(3 * huge + i);
    one_block.end.push_back(3 * huge + i + 1);
  }
  ASSERT_LT(one_block.n / one_block.begin.size(), stage06::kHugeMinAverageItems);
  for (const Case& layout :
       {Case{3 * huge, {0, huge, 0}, {2 * huge, 3 * huge, 3 * huge}},
        Case{2 * huge, {huge, huge, huge}, {2 * huge, 2 * huge, 2 * huge}}, one_block}) {
    if (layout.n > sortlab::testing::max_test_n())
      GTEST_SKIP() << layout.n << " items is over SORTLAB_TEST_MAX_N";
    SCOPED_TRACE("n = " + std::to_string(layout.n));
    const auto keys = sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform,
                                                            layout.n, test_seed());
    DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(layout.n), values_in(keys),
        values_out(layout.n);
    DeviceBuffer<std::uint32_t> begin(layout.begin), end(layout.end);
    keys_out.fill_bytes(sortlab::kPoisonByte);
    values_out.fill_bytes(sortlab::kPoisonByte);
    std::size_t bytes = 0;
    stage06::sort_pairs(nullptr, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                        values_out.data(), layout.n, layout.begin.size(), begin.data(), end.data());
    DeviceBuffer<unsigned char> temp(bytes);
    stage06::sort_pairs(temp.data(), bytes, keys_in.data(), keys_out.data(), values_in.data(),
                        values_out.data(), layout.n, layout.begin.size(), begin.data(), end.data());
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::uint32_t first_covered = *std::min_element(layout.begin.begin(), layout.begin.end());
    const std::vector<std::uint32_t> out_keys = keys_out.download();
    const std::vector<std::uint32_t> out_values = values_out.download();
    std::uint32_t poison = 0;
    std::memset(&poison, sortlab::kPoisonByte, sizeof(poison));
    for (std::uint32_t i = 0; i < first_covered; ++i) {
      ASSERT_EQ(out_keys[i], poison) << "key written at " << i << ", outside every segment";
      ASSERT_EQ(out_values[i], poison) << "value written at " << i << ", outside every segment";
    }
  }
}

// A scratch that starts at an odd address, on a non-blocking stream.
TEST(Stage06SegmentedGpu, MisalignedScratchOnItsOwnStream) {
  const std::uint64_t seed = test_seed();
  const sortlab::CudaStream stream;
  for (const Layout& layout : all_layouts(seed)) {
    SCOPED_TRACE(layout.name + ": " + case_label(layout.n, "uniform", seed));
    const auto keys =
        sortlab::generate_keys<float>(sortlab::Distribution::kUniform, layout.n, seed);
    expect_segmented_sort<float, std::uint64_t, true>(keys, layout, {}, {1, stream.get()});
    expect_segmented_sort<float, std::uint32_t, false>(keys, layout, {}, {3, stream.get()});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

/// "stage06 usage": the query-then-run convention (the public header's snippet).
TEST(Stage06SegmentedGpu, UsageSnippet) {
  const std::vector<float> host_keys = {3, 1, 2, 9, 8, 7, 5};
  const Offsets host_begin = {0, 3}, host_end = {3, 7};  // segments [0, 3) and [3, 7)
  DeviceBuffer<float> keys_in(host_keys), keys_out(host_keys.size());
  DeviceBuffer<std::uint32_t> begin(host_begin), end(host_end);
  const std::size_t n = host_keys.size(), num_segments = host_begin.size();
  //! [stage06 usage]
  std::size_t temp_bytes = 0;  // 1. ask for the scratch size (no pointer is needed)
  sortlab::stage06::sort_keys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                              begin.data(), end.data());
  DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage06::sort_keys(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), n,
                              num_segments, begin.data(), end.data());  // 3. sort
  //! [stage06 usage]
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(keys_out.download(), (std::vector<float>{1, 2, 3, 5, 7, 8, 9}));
}

// One scratch reused by many sorts of different layouts, never cleared by the caller: the
// class counters and id lists the previous sort left must not leak into the next.
TEST(Stage06SegmentedGpu, ReusedScratchIsNeverClearedByTheCaller) {
  const std::uint64_t seed = test_seed();
  const auto layouts = all_layouts(seed);
  std::size_t most = 0;
  for (const Layout& layout : layouts) {
    std::size_t bytes = 0;
    stage06::sort_pairs<std::uint32_t, std::uint32_t>(nullptr, bytes, nullptr, nullptr, nullptr,
                                                      nullptr, layout.n, layout.begin.size(),
                                                      nullptr, nullptr);
    most = std::max(most, bytes);
  }
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(most, 1));
  temp.fill_bytes(sortlab::kPoisonByte);
  for (int round = 0; round < 2; ++round)
    for (const Layout& layout : layouts) {
      SCOPED_TRACE(layout.name + ": " + case_label(layout.n, "few", seed));
      const std::size_t n = layout.n;
      const auto keys =
          sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kFewDistinct, n, seed);
      const auto values = test_values<std::uint32_t>(n);
      DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(n), values_in(values), values_out(n);
      DeviceBuffer<std::uint32_t> begin(layout.begin), end(layout.end);
      keys_out.fill_bytes(sortlab::kPoisonByte);
      values_out.fill_bytes(sortlab::kPoisonByte);
      std::size_t bytes = temp.size();
      stage06::sort_pairs(temp.data(), bytes, keys_in.data(), keys_out.data(), values_in.data(),
                          values_out.data(), n, layout.begin.size(), begin.data(), end.data());
      SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<std::uint32_t> expected_keys(n, poison_value<std::uint32_t>());
      std::vector<std::uint32_t> expected_values(n, poison_value<std::uint32_t>());
      stage06::reference_segmented_sort(keys, &values, layout.begin, layout.end, {}, expected_keys,
                                        &expected_values);
      ASSERT_EQ(keys_out.download(), expected_keys);
      ASSERT_EQ(values_out.download(), expected_values);
    }
}

// The sort queues everything on its stream and nothing else: captured into a CUDA graph once,
// the graph sorts whatever the input buffers hold each time it is replayed.
TEST(Stage06SegmentedGpu, CudaGraphCaptureAndReplay) {
  const std::uint64_t seed = test_seed();
  const auto layouts = all_layouts(seed);
  const sortlab::CudaStream stream;
  for (const Layout& layout : layouts) {
    if (layout.name.find("power-law") == std::string::npos &&
        layout.name.find("gaps") == std::string::npos)
      continue;  // two layouts with every class are enough
    SCOPED_TRACE(layout.name + ": " + case_label(layout.n, "uniform", seed));
    const std::size_t n = layout.n, num_segments = layout.begin.size();
    DeviceBuffer<float> keys_in(n), keys_out(n);
    DeviceBuffer<std::uint32_t> values_in(test_values<std::uint32_t>(n)), values_out(n);
    DeviceBuffer<std::uint32_t> begin(layout.begin), end(layout.end);
    std::size_t temp_bytes = 0;
    stage06::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                        values_out.data(), n, num_segments, begin.data(), end.data());
    DeviceBuffer<unsigned char> temp(temp_bytes);
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads ran on the legacy stream
    const SortOptions options{0, sortlab::kAllBits, true};

    cudaGraph_t graph = nullptr;
    SORTLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
    stage06::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                        values_out.data(), n, num_segments, begin.data(), end.data(), options,
                        stream.get());
    SORTLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    SORTLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    const auto values = test_values<std::uint32_t>(n);
    for (int replay = 0; replay < 3; ++replay) {
      const auto keys = sortlab::generate_keys<float>(
          replay == 1 ? sortlab::Distribution::kFewDistinct : sortlab::Distribution::kUniform, n,
          seed + static_cast<std::uint64_t>(replay));
      SORTLAB_CUDA_CHECK(cudaMemcpyAsync(keys_in.data(), keys.data(), n * sizeof(float),
                                         cudaMemcpyHostToDevice, stream.get()));
      keys_out.fill_bytes(sortlab::kPoisonByte, stream.get());
      values_out.fill_bytes(sortlab::kPoisonByte, stream.get());
      SORTLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      stream.synchronize();
      std::vector<float> expected_keys(n, poison_value<float>());
      std::vector<std::uint32_t> expected_values(n, poison_value<std::uint32_t>());
      stage06::reference_segmented_sort(keys, &values, layout.begin, layout.end, options,
                                        expected_keys, &expected_values);
      const auto got_keys = keys_out.download();
      const auto got_values = values_out.download();
      bool same = true;
      for (std::size_t i = 0; i < n && same; ++i)
        same = sortlab::KeyTraits<float>::raw_bits(got_keys[i]) ==
                   sortlab::KeyTraits<float>::raw_bits(expected_keys[i]) &&
               got_values[i] == expected_values[i];
      EXPECT_TRUE(same) << "replay " << replay << " differs from the reference";
    }
    SORTLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
    SORTLAB_CUDA_CHECK(cudaGraphDestroy(graph));
    if (::testing::Test::HasFailure()) return;
  }
}

// A sort on a non-blocking stream while the legacy stream is held by a spinning kernel: it must
// finish when only its own stream is waited for (no legacy-stream work, no device-wide wait).
TEST(Stage06SegmentedGpu, SortsOnItsOwnStreamWhileTheLegacyStreamIsBusy) {
  const std::uint64_t seed = test_seed();
  Layout layout;
  for (Layout& candidate : all_layouts(seed))
    if (candidate.name.find("gaps") != std::string::npos) layout = candidate;
  ASSERT_FALSE(layout.begin.empty()) << "SORTLAB_TEST_MAX_N removed the gaps layout";
  const std::size_t n = layout.n, num_segments = layout.begin.size();
  const auto keys = sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, n, seed);
  // Everything that allocates (and so may synchronise the device) happens before the block.
  const sortlab::CudaStream stream;
  DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(n), begin(layout.begin), end(layout.end);
  std::size_t temp_bytes = 0;
  stage06::sort_keys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                     begin.data(), end.data(), {}, stream.get());
  DeviceBuffer<unsigned char> temp(temp_bytes);
  // One unblocked run first: loading the kernels lazily may synchronise the context.
  stage06::sort_keys(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                     begin.data(), end.data(), {}, stream.get());
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  keys_out.fill_bytes(sortlab::kPoisonByte);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> sorted(n);
  bool released_in_time = false, legacy_stream_was_held = false;
  {
    sortlab::testing::LegacyStreamBlocker blocker;
    stage06::sort_keys(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), n, num_segments,
                       begin.data(), end.data(), {}, stream.get());
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(sorted.data(), keys_out.data(), n * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    legacy_stream_was_held = blocker.still_blocking();
    released_in_time = blocker.release();
  }
  EXPECT_TRUE(released_in_time && legacy_stream_was_held)
      << "the sort waited on the legacy default stream or on the whole device";
  std::vector<std::uint32_t> expected(n, poison_value<std::uint32_t>());
  stage06::reference_segmented_sort<std::uint32_t>(keys, nullptr, layout.begin, layout.end, {},
                                                   expected);
  EXPECT_EQ(sorted, expected);
}

// ---- sort_rows: torch.sort(x, dim=-1, stable=True) ------------------------------------------

template <typename Key>
class Stage06SortRows : public ::testing::Test {};
using RowKeyTypes = ::testing::Types<float, double, __half, __nv_bfloat16, std::int32_t>;
TYPED_TEST_SUITE(Stage06SortRows, RowKeyTypes);

// Row shapes across every size class (1 .. 5000 columns, one row, many rows, no rows), keys with
// NaNs of both signs, infinities, -0.0 and +0.0, few distinct values; both directions; the values
// (bit for bit) and the indices against torch's rule written out on the CPU. Outputs poisoned.
TYPED_TEST(Stage06SortRows, MatchesTorchSortEveryShape) {
  using Key = TypeParam;
  const std::uint64_t seed = test_seed();
  struct Shape {
    std::size_t rows, cols;
  };
  const Shape shapes[] = {{0, 5},   {3, 0},    {1, 1},    {5, 7},     {64, 33},
                          {7, 300}, {1, 5000}, {3, 5000}, {1000, 12}, {1, 70000}};
  for (const Shape shape : shapes)
    for (const auto distribution :
         {sortlab::Distribution::kFloatSpecials, sortlab::Distribution::kFewDistinct,
          sortlab::Distribution::kUniform})
      for (const bool descending : {false, true}) {
        const std::size_t n = shape.rows * shape.cols;
        if (n > max_test_n()) continue;  // compute-sanitizer runs cap the size
        SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                     " rows=" + std::to_string(shape.rows) + " cols=" + std::to_string(shape.cols) +
                     " descending=" + std::to_string(descending));
        const auto input = sortlab::generate_keys<Key>(distribution, n, seed + n);
        std::vector<Key> expected_values;
        std::vector<std::int64_t> expected_indices;
        stage06::torch_sort_rows_reference(input, shape.rows, shape.cols, descending,
                                           expected_values, expected_indices);
        DeviceBuffer<Key> input_device(input), values(n);
        DeviceBuffer<std::int64_t> indices(n);
        values.fill_bytes(0xA5);
        indices.fill_bytes(0xA5);
        std::size_t bytes = 0;
        stage06::sort_rows<Key>(nullptr, bytes, nullptr, nullptr, nullptr, shape.rows, shape.cols,
                                descending);
        DeviceBuffer<unsigned char> temp(bytes);
        stage06::sort_rows<Key>(temp.data(), bytes, input_device.data(), values.data(),
                                indices.data(), shape.rows, shape.cols, descending);
        SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
        const auto got_values = values.download();
        const auto got_indices = indices.download();
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(got_indices[i], expected_indices[i]) << "index at " << i;
          ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(got_values[i]),
                    sortlab::KeyTraits<Key>::raw_bits(expected_values[i]))
              << "value at " << i;
        }
        const auto after = input_device.download();
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(after[i]),
                    sortlab::KeyTraits<Key>::raw_bits(input[i]))
              << "sort_rows modified its input at " << i;
      }
}

}  // namespace
