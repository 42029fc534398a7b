/// \file
/// \brief Stage 04 on the GPU: the shared device sort suite (default configuration and several
/// digit widths and keys per thread), plus every intermediate array of a pass compared with the
/// CPU model.
#include <gtest/gtest.h>

#include <algorithm>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix_model.hpp"
#include "common/device_buffer.hpp"
#include "tests/stage04/stage04_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/first_mismatch.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

using sortlab::testing::DefaultSorter;
using sortlab::testing::Stage04Sorter;

using sortlab::stage04::Config;

static_assert(DefaultSorter::kTileItems == sortlab::stage04::kDefaultTileItems);

using sortlab::testing::SortCase;
using Stage04Cases = ::testing::Types<
    // the default configuration for every key type
    SortCase<DefaultSorter, std::uint32_t>, SortCase<DefaultSorter, std::int32_t>,
    SortCase<DefaultSorter, float>,
    // r = 1: 32 passes of the 1-bit split with a 2-row table
    SortCase<Stage04Sorter<1, 8>, std::uint32_t>,
    // r = 3 does not divide 32: the last pass has 2 bits
    SortCase<Stage04Sorter<3, 4>, std::int32_t>,
    // r = 8 with the largest tile: 256 buckets, 4096 keys per block
    SortCase<Stage04Sorter<8, 16>, float>,
    // one key per thread (stage 03's tile) and two keys per thread
    SortCase<Stage04Sorter<5, 1>, std::uint32_t>, SortCase<Stage04Sorter<6, 2>, std::uint32_t>,
    SortCase<Stage04Sorter<4, 16>, std::int32_t>>;

template <typename Key>
class Stage04Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage04Trace, TraceKeys);

// Every array of one GPU pass equals the CPU model's, for sizes around the tile boundaries,
// several digit positions (bit 30 with r = 4 is a narrower 2-bit pass), both directions and
// several configurations.
TYPED_TEST(Stage04Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (const Config config : {Config{}, Config{3, 1}, Config{8, 16}, Config{1, 2}}) {
    const std::size_t tile = sortlab::stage04::tile_items(config);
    // (capped by SORTLAB_TEST_MAX_N, which the compute-sanitizer runs set low)
    for (std::size_t n : sortlab::testing::capped(
             {1, tile - 1, tile, tile + 1, 5 * tile + 3, (std::size_t{1} << 20) + 3})) {
      for (int first_bit : {0, 13, 30}) {
        for (bool descending : {false, true}) {
          // Uniform keys for odd n + first_bit, else few distinct (long runs of equal digits).
          const auto distribution = (n + first_bit) % 2 ? sortlab::Distribution::kUniform
                                                        : sortlab::Distribution::kFewDistinct;
          SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                       " r=" + std::to_string(config.radix_bits) +
                       " K=" + std::to_string(config.keys_per_thread) + " first_bit=" +
                       std::to_string(first_bit) + " descending=" + std::to_string(descending));
          const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
          const auto gpu = sortlab::stage04::trace_pass(keys, first_bit, config, descending);
          const auto cpu = sortlab::stage04::model_pass(keys, first_bit, config, descending);
          ASSERT_EQ(gpu.num_blocks, cpu.num_blocks);
          ASSERT_EQ(gpu.num_buckets, cpu.num_buckets);
          ASSERT_EQ(gpu.tile_items, cpu.tile_items);
          using sortlab::testing::same_keys;
          using sortlab::testing::same_per_key;
          using sortlab::testing::same_table;
          ASSERT_TRUE(same_per_key("digits", gpu.digits, cpu.digits, tile));
          ASSERT_TRUE(same_table("block_bucket_table", gpu.block_bucket_table,
                                 cpu.block_bucket_table, cpu.num_blocks));
          ASSERT_TRUE(
              same_table("scanned_table", gpu.scanned_table, cpu.scanned_table, cpu.num_blocks));
          ASSERT_TRUE(same_keys("local_sorted", gpu.local_sorted, cpu.local_sorted, tile));
          ASSERT_TRUE(
              same_per_key("destinations", gpu.destinations, cpu.destinations, tile, &cpu.digits));
          ASSERT_TRUE(same_keys("keys_out", gpu.keys_out, cpu.keys_out, 0));
        }
      }
    }
  }
}

// An empty input has a trace with no blocks.
TEST(Stage04Trace, EmptyInput) {
  const auto trace = sortlab::stage04::trace_pass(std::vector<std::uint32_t>{}, 0);
  EXPECT_EQ(trace.num_blocks, 0);
  EXPECT_TRUE(trace.keys_out.empty());
}

// Every supported keys per thread sorts the same input to the same (stable) result.
TEST(Stage04KeysPerThread, EverySupportedValueSorts) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t n = 3 * 4096 + 123;
  const auto keys = sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, n, seed);
  const auto values = sortlab::iota_values(n);
  sortlab::DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(n), values_in(values), values_out(n);
  for (int k : sortlab::stage04::kSupportedKeysPerThread) {
    SCOPED_TRACE("keys_per_thread=" + std::to_string(k) + " seed=" + std::to_string(seed));
    const Config config{4, k};
    // Fresh poison for every K: a kernel that writes nothing must not pass on the output
    // that the previous K left behind.
    keys_out.poison();
    values_out.poison();
    std::size_t temp_bytes = 0;
    sortlab::stage04::sort_pairs<std::uint32_t>(nullptr, temp_bytes, keys_in.data(),
                                                keys_out.data(), values_in.data(),
                                                values_out.data(), n, {}, config);
    sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);
    sortlab::stage04::sort_pairs<std::uint32_t>(temp.data(), temp_bytes, keys_in.data(),
                                                keys_out.data(), values_in.data(),
                                                values_out.data(), n, {}, config);
    const auto result =
        sortlab::verify_sorted_pairs(keys, values, keys_out.download(), values_out.download());
    ASSERT_TRUE(result.ok) << result.message;
  }
}

// The usage example the Doxygen page of coarsened_radix.hpp shows.
TEST(Stage04Usage, SortsAHandfulOfKeys) {
  //! [stage04 usage]
  const std::vector<std::uint32_t> host_keys = {7, 3, 9, 3, 0, 12};
  sortlab::DeviceBuffer<std::uint32_t> keys_in(host_keys), keys_out(host_keys.size());
  const sortlab::stage04::Config config{/*radix_bits=*/4, /*keys_per_thread=*/8};
  std::size_t temp_bytes = 0;  // 1. ask how much scratch the sort needs
  sortlab::stage04::sort_keys<std::uint32_t>(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                             host_keys.size(), {}, config);
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage04::sort_keys<std::uint32_t>(temp.data(), temp_bytes, keys_in.data(),  // 3. sort
                                             keys_out.data(), host_keys.size(), {}, config);
  //! [stage04 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<std::uint32_t>{0, 3, 3, 7, 9, 12}));
}

// Tracing runs on a stream of its own: it must finish, complete, while the legacy default stream
// is held by another kernel (it never queues work there nor waits for the whole device).
TEST(Stage04Trace, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return sortlab::stage04::trace_pass(keys, 3); });
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage04, DeviceSortSuite, Stage04Cases);
}  // namespace sortlab::testing
