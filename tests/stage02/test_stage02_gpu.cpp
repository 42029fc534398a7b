/// \file
/// \brief Stage 02 on the GPU: the shared device sort suite, plus every intermediate array of a
/// pass (digits, local split, block bucket table, its scan, destinations, output) compared with
/// the CPU model.
#include <gtest/gtest.h>

#include <algorithm>

#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort_model.hpp"
#include "common/device_buffer.hpp"
#include "tests/stage02/stage02_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/first_mismatch.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

using sortlab::testing::Stage02Sorter;

using sortlab::testing::SortCase;
using Stage02Cases =
    ::testing::Types<SortCase<Stage02Sorter, std::uint32_t>, SortCase<Stage02Sorter, std::int32_t>,
                     SortCase<Stage02Sorter, float>>;

template <typename Key>
class Stage02Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage02Trace, TraceKeys);

// Every array of one GPU pass equals the CPU model's, for sizes across tile boundaries (the
// kernels' tile is 256 keys, the table scan's tile 1024 entries) and for several bits.
TYPED_TEST(Stage02Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  constexpr std::size_t kTile = sortlab::stage02::kTileItems;
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t n : sortlab::testing::capped(
           {1, kTile - 1, kTile, kTile + 1, 5 * kTile + 3, (std::size_t{1} << 20) + 3})) {
    for (auto distribution :
         {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct}) {
      const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
      for (int bit : {0, 7, 31}) {
        for (bool descending : {false, true}) {
          SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                       " bit=" + std::to_string(bit) + " descending=" + std::to_string(descending));
          const auto gpu = sortlab::stage02::trace_pass(keys, bit, descending);
          const auto cpu = sortlab::stage02::model_pass(keys, bit, descending);
          ASSERT_EQ(gpu.num_blocks, cpu.num_blocks);
          ASSERT_EQ(gpu.num_buckets, cpu.num_buckets);
          ASSERT_EQ(gpu.tile_items, cpu.tile_items);
          using sortlab::testing::same_keys;
          using sortlab::testing::same_per_key;
          using sortlab::testing::same_table;
          ASSERT_TRUE(same_per_key("digits", gpu.digits, cpu.digits, kTile));
          ASSERT_TRUE(same_keys("local_sorted", gpu.local_sorted, cpu.local_sorted, kTile));
          ASSERT_TRUE(same_table("block_bucket_table", gpu.block_bucket_table,
                                 cpu.block_bucket_table, cpu.num_blocks));
          ASSERT_TRUE(
              same_table("scanned_table", gpu.scanned_table, cpu.scanned_table, cpu.num_blocks));
          ASSERT_TRUE(
              same_per_key("destinations", gpu.destinations, cpu.destinations, kTile, &cpu.digits));
          ASSERT_TRUE(same_keys("keys_out", gpu.keys_out, cpu.keys_out, 0));
        }
      }
    }
  }
}

TYPED_TEST(Stage02Trace, EmptyPassHasNoBlocks) {
  using Key = TypeParam;
  const auto gpu = sortlab::stage02::trace_pass(std::vector<Key>{}, 3);
  const auto cpu = sortlab::stage02::model_pass(std::vector<Key>{}, 3);
  EXPECT_EQ(gpu.num_blocks, 0);
  EXPECT_EQ(gpu.num_buckets, cpu.num_buckets);
  EXPECT_EQ(gpu.tile_items, cpu.tile_items);
  EXPECT_TRUE(gpu.block_bucket_table.empty());
  EXPECT_TRUE(gpu.keys_out.empty());
}

// The usage example the Doxygen page of coalesced_sort.hpp shows.
TEST(Stage02Usage, SortsAHandfulOfKeys) {
  //! [stage02 usage]
  const std::vector<std::uint32_t> host_keys = {7, 3, 9, 3, 0, 12};
  sortlab::DeviceBuffer<std::uint32_t> keys_in(host_keys), keys_out(host_keys.size());
  std::size_t temp_bytes = 0;  // 1. ask how much scratch the sort needs
  sortlab::stage02::sort_keys<std::uint32_t>(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                             host_keys.size());
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage02::sort_keys<std::uint32_t>(temp.data(), temp_bytes, keys_in.data(),  // 3. sort
                                             keys_out.data(), host_keys.size());
  //! [stage02 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<std::uint32_t>{0, 3, 3, 7, 9, 12}));
}

// Tracing runs on a stream of its own: it must finish, complete, while the legacy default stream
// is held by another kernel (it never queues work there nor waits for the whole device).
TEST(Stage02Trace, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return sortlab::stage02::trace_pass(keys, 3); });
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage02, DeviceSortSuite, Stage02Cases);
}  // namespace sortlab::testing
