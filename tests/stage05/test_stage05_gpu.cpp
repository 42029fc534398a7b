/// \file
/// \brief Stage 05 device sort on the GPU: the shared device sort suite for every key type, pairs
/// with 64-bit values (int64 indices), trivial passes skipped, every intermediate array of a pass
/// against the CPU model, and the usage snippet. The block-level sort has its own file
/// (test_stage05_block.cu).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <random>

#include "chapters/05_packed_rank/packed_rank_model.hpp"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/device_buffer.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/stage05/stage05_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/key_types.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

using sortlab::testing::Stage05Sorter;

template <typename Key>
using SorterFor = sortlab::testing::Stage05SorterFor<Key>;

using sortlab::testing::SixteenByteValue;
using sortlab::testing::SortCase;
template <typename Key>
using Case = SortCase<SorterFor<Key>, Key>;
using Stage05Cases =
    ::testing::Types<Case<std::uint32_t>, Case<std::int32_t>, Case<float>, Case<std::uint64_t>,
                     Case<std::int64_t>, Case<double>, Case<std::uint16_t>, Case<std::int16_t>,
                     Case<std::uint8_t>, Case<std::int8_t>, Case<__half>, Case<__nv_bfloat16>,
                     // 64-bit values: int64 indices (torch.sort) and u64
                     SortCase<SorterFor<float>, float, std::int64_t>,
                     SortCase<SorterFor<std::uint32_t>, std::uint32_t, std::uint64_t>,
                     SortCase<SorterFor<double>, double, std::int64_t>,
                     // 7-bit digits (128-thread blocks): 5 passes for 32-bit keys, 10 for 64-bit,
                     // and a 1-bit last pass for 8-bit keys
                     SortCase<Stage05Sorter<4, 7>, std::uint32_t>,
                     SortCase<Stage05Sorter<8, 7>, std::uint64_t, std::int64_t>,
                     SortCase<Stage05Sorter<1, 7>, std::int8_t>,
                     // 16-byte struct values (2048-key tiles at r = 6, 1536 at r = 7)
                     SortCase<Stage05Sorter<4, 6, 16>, std::uint32_t, SixteenByteValue>,
                     SortCase<Stage05Sorter<8, 6, 16>, double, SixteenByteValue>,
                     SortCase<Stage05Sorter<2, 7, 16>, __half, SixteenByteValue>>;

/// The raw bits of keys, so that comparisons see NaNs and -0.0 exactly.
template <typename Key>
std::vector<std::uint64_t> raw_bits(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    bits[i] = sortlab::KeyTraits<Key>::raw_bits(keys[i]);
  return bits;
}

/// Runs stage 05's pair sort with values of type Value = their input index and checks the
/// result against the stable reference.
template <typename Key, typename Value>
void expect_pairs_sorted(const std::vector<Key>& keys, const sortlab::SortOptions& options = {}) {
  const std::size_t n = keys.size();
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i);
  sortlab::DeviceBuffer<Key> keys_in(keys), keys_out(n);
  sortlab::DeviceBuffer<Value> values_in(values), values_out(n);
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  values_out.fill_bytes(sortlab::testing::kPoisonByte);
  std::size_t temp_bytes = 0;
  sortlab::stage05::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                               values_in.data(), values_out.data(), n, options);
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);
  temp.fill_bytes(sortlab::testing::kPoisonByte);
  sortlab::stage05::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                               values_in.data(), values_out.data(), n, options);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto result = sortlab::verify_sorted_pairs(keys, values, keys_out.download(),
                                                   values_out.download(), options);
  EXPECT_TRUE(result.ok) << result.message;
}

// 64-bit values (what torch.sort returns as indices) and 32-bit ones, across tile boundaries and
// in both directions.
TEST(Stage05Pairs, SixtyFourBitValuesTravelWithTheirKeys) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t n : sortlab::testing::capped({1, 4095, 4096, 4097, 3 * 4096 + 11, 300001})) {
    for (bool descending : {false, true}) {
      SCOPED_TRACE(sortlab::testing::case_label(n, "uniform/few", seed) +
                   " descending=" + std::to_string(descending));
      const auto floats =
          sortlab::generate_keys<float>(sortlab::Distribution::kFewDistinct, n, seed + n);
      expect_pairs_sorted<float, std::int64_t>(floats, {0, sortlab::kAllBits, descending});
      const auto wide =
          sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kUniform, n, seed + n);
      expect_pairs_sorted<std::uint64_t, std::uint64_t>(wide, {0, sortlab::kAllBits, descending});
      const auto halves =
          sortlab::generate_keys<__half>(sortlab::Distribution::kFloatSpecials, n, seed + n);
      expect_pairs_sorted<__half, std::int64_t>(halves, {0, sortlab::kAllBits, descending});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Inputs where some or all passes have one digit for every key: the kernels skip those passes on
// the device, and the passes that remain must still end in keys_out.
TEST(Stage05SkippedPasses, ResultIsRightWhateverPassesAreSkipped) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  const std::size_t n = std::min<std::size_t>(100003, sortlab::testing::max_test_n());
  // Masks of the bits that vary: one pass (bits 0-5), the two ends of the key, every other
  // pass, a single bit, and none at all (every pass trivial: the copy kernel runs).
  for (std::uint32_t varying :
       {0x3Fu, 0xFC00003Fu, 0x00FC0FC0u, 0x0003F03Fu, 0x80000000u, 0x00001000u, 0u, 0xFFFFFFFFu}) {
    for (bool descending : {false, true}) {
      SCOPED_TRACE("varying bits " + std::to_string(varying) +
                   " descending=" + std::to_string(descending) + " seed=" + std::to_string(seed));
      std::vector<std::uint32_t> keys(n);
      const std::uint32_t fixed = static_cast<std::uint32_t>(random()) & ~varying;
      for (auto& key : keys) key = fixed | (static_cast<std::uint32_t>(random()) & varying);
      sortlab::testing::expect_sorts_keys<SorterFor<std::uint32_t>>(
          keys, {0, sortlab::kAllBits, descending});
      expect_pairs_sorted<std::uint32_t, std::uint32_t>(keys, {0, sortlab::kAllBits, descending});
      // A bit range that starts inside a varying pass and ends in a constant one.
      expect_pairs_sorted<std::uint32_t, std::uint32_t>(keys, {4, 29, descending});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

template <typename Key>
class Stage05Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, float, std::uint64_t, __half>;
TYPED_TEST_SUITE(Stage05Trace, TraceKeys, sortlab::testing::KeyName);

// Every array of one GPU pass equals the CPU model's: digits, table, scanned table, the packed
// counter words before and after the raking scan and the carry of every tile, ranks, the tile
// after the local scatter, destinations and output.
TYPED_TEST(Stage05Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = sortlab::stage05::tile_items_for(sizeof(Key));
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  for (std::size_t n : sortlab::testing::capped({1, tile - 1, tile, tile + 1, 5 * tile + 3})) {
    for (int first_bit : {0, 7, width - 3}) {
      for (int num_bits : {6, 3}) {
        for (bool descending : {false, true}) {
          const auto distribution = (n + first_bit) % 2 ? sortlab::Distribution::kUniform
                                                        : sortlab::Distribution::kFewDistinct;
          SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                       " first_bit=" + std::to_string(first_bit) + " num_bits=" +
                       std::to_string(num_bits) + " descending=" + std::to_string(descending));
          const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
          const auto gpu = sortlab::stage05::trace_pass(keys, first_bit, num_bits, descending);
          const auto cpu = sortlab::stage05::model_pass(keys, first_bit, num_bits, descending);
          ASSERT_EQ(gpu.num_blocks, cpu.num_blocks);
          ASSERT_EQ(gpu.num_digits, cpu.num_digits);
          ASSERT_EQ(gpu.tile_items, cpu.tile_items);
          ASSERT_EQ(gpu.lanes, cpu.lanes);
          ASSERT_EQ(gpu.fields_per_word, cpu.fields_per_word);
          ASSERT_EQ(gpu.digits, cpu.digits);
          ASSERT_EQ(gpu.block_bucket_table, cpu.block_bucket_table);
          ASSERT_EQ(gpu.scanned_table, cpu.scanned_table);
          ASSERT_EQ(gpu.counters.size(), cpu.counters.size());
          for (std::size_t b = 0; b < gpu.counters.size(); ++b) {
            SCOPED_TRACE("tile " + std::to_string(b));
            ASSERT_EQ(gpu.counters[b].before_scan, cpu.counters[b].before_scan);
            ASSERT_EQ(gpu.counters[b].after_scan, cpu.counters[b].after_scan);
            ASSERT_EQ(gpu.counters[b].carry, cpu.counters[b].carry);
          }
          ASSERT_EQ(gpu.ranks, cpu.ranks);
          ASSERT_EQ(raw_bits(gpu.local_sorted), raw_bits(cpu.local_sorted));
          ASSERT_EQ(gpu.destinations, cpu.destinations);
          ASSERT_EQ(raw_bits(gpu.keys_out), raw_bits(cpu.keys_out));
        }
      }
    }
  }
}

// Tracing runs on a stream of its own: it must finish, complete, while the legacy default stream
// is held by another kernel (it never queues work there nor waits for the whole device).
TEST(Stage05TraceStream, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return sortlab::stage05::trace_pass(keys, 3); });
}

// An empty input has a trace with no blocks.
TEST(Stage05TraceEmpty, EmptyInput) {
  const auto trace = sortlab::stage05::trace_pass(std::vector<std::uint32_t>{}, 0);
  EXPECT_EQ(trace.num_blocks, 0);
  EXPECT_TRUE(trace.keys_out.empty());
}

// The usage example the Doxygen page of packed_rank_sort.hpp shows.
TEST(Stage05Usage, SortsAHandfulOfPairs) {
  //! [stage05 usage]
  const std::vector<float> host_keys = {2.5f, -1.0f, 0.0f, 2.5f, -7.0f};
  const std::vector<std::int64_t> host_indices = {0, 1, 2, 3, 4};
  sortlab::DeviceBuffer<float> keys_in(host_keys), keys_out(host_keys.size());
  sortlab::DeviceBuffer<std::int64_t> indices_in(host_indices), indices_out(host_keys.size());
  std::size_t temp_bytes = 0;  // 1. ask how much scratch the sort needs
  sortlab::stage05::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                               indices_in.data(), indices_out.data(), host_keys.size());
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage05::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),  // 3.
                               indices_in.data(), indices_out.data(), host_keys.size());
  //! [stage05 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<float>{-7.0f, -1.0f, 0.0f, 2.5f, 2.5f}));
  EXPECT_EQ(indices_out.download(), (std::vector<std::int64_t>{4, 1, 2, 0, 3}));
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage05, DeviceSortSuite, Stage05Cases);
}  // namespace sortlab::testing
