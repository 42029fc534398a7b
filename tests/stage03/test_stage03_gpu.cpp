/// \file
/// \brief Stage 03 on the GPU: the shared device sort suite for the default digit width and for
/// r = 1, 3 (does not divide 32), 4 and 8, plus every intermediate array of a pass compared with
/// the CPU model.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/03_multibit_radix/multibit_radix_model.hpp"
#include "common/device_buffer.hpp"
#include "tests/stage03/stage03_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/first_mismatch.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

using sortlab::testing::Stage03Sorter;

using sortlab::testing::SortCase;
template <int kRadixBits>
using CasesFor = ::testing::Types<SortCase<Stage03Sorter<kRadixBits>, std::uint32_t>,
                                  SortCase<Stage03Sorter<kRadixBits>, std::int32_t>,
                                  SortCase<Stage03Sorter<kRadixBits>, float>>;
// The default (r = 5: six 5-bit passes, then a 2-bit pass) on every key type; the other widths
// on fewer types, since the large sizes' CPU verification dominates the suite's run time.
using Stage03DefaultCases = CasesFor<sortlab::stage03::kDefaultRadixBits>;
using Stage03Radix1Cases =  // 32 passes of the 1-bit split, 2-row table
    ::testing::Types<SortCase<Stage03Sorter<1>, std::uint32_t>>;
using Stage03Radix3Cases = CasesFor<3>;  // 10 passes of 3 bits, then a 2-bit pass
using Stage03Radix4Cases =               // 8 passes of 4 bits: r divides 32
    ::testing::Types<SortCase<Stage03Sorter<4>, std::uint32_t>, SortCase<Stage03Sorter<4>, float>>;
using Stage03Radix8Cases =  // 256 buckets: one per thread, ~1 key per bucket
    ::testing::Types<SortCase<Stage03Sorter<8>, std::uint32_t>, SortCase<Stage03Sorter<8>, float>>;

template <typename Key>
class Stage03Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage03Trace, TraceKeys);

// Every array of one GPU pass equals the CPU model's, for sizes across the 256-key tile and the
// scan's 1024-item tile, several digit widths and positions (including a narrower last digit)
// and both directions.
TYPED_TEST(Stage03Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  using sortlab::stage03::Config;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = sortlab::stage03::kTileItems;
  struct Digit {
    int radix_bits, first_bit;
  };
  const Digit digits[] = {{4, 0}, {4, 28}, {3, 30}, {1, 17}, {8, 8}, {5, 29}};
  for (std::size_t n : sortlab::testing::capped(
           {1, tile - 1, tile, tile + 1, 5 * tile + 3, (std::size_t{1} << 20) + 3})) {
    const auto keys = sortlab::generate_keys<Key>(sortlab::Distribution::kUniform, n, seed + n);
    for (const Digit& digit : digits) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE(sortlab::testing::case_label(n, "uniform", seed) +
                     " r=" + std::to_string(digit.radix_bits) + " first_bit=" +
                     std::to_string(digit.first_bit) + " descending=" + std::to_string(descending));
        const Config config{digit.radix_bits};
        const auto gpu = sortlab::stage03::trace_pass(keys, digit.first_bit, config, descending);
        const auto cpu = sortlab::stage03::model_pass(keys, digit.first_bit, config, descending);
        ASSERT_EQ(gpu.num_blocks, cpu.num_blocks);
        ASSERT_EQ(gpu.num_buckets, cpu.num_buckets);
        ASSERT_EQ(gpu.tile_items, cpu.tile_items);
        using sortlab::testing::same_keys;
        using sortlab::testing::same_per_key;
        using sortlab::testing::same_table;
        ASSERT_TRUE(same_per_key("digits", gpu.digits, cpu.digits, tile));
        ASSERT_TRUE(same_keys("local_sorted", gpu.local_sorted, cpu.local_sorted, tile));
        ASSERT_TRUE(same_table("block_bucket_table", gpu.block_bucket_table, cpu.block_bucket_table,
                               cpu.num_blocks));
        ASSERT_TRUE(
            same_table("scanned_table", gpu.scanned_table, cpu.scanned_table, cpu.num_blocks));
        ASSERT_TRUE(
            same_per_key("destinations", gpu.destinations, cpu.destinations, tile, &cpu.digits));
        ASSERT_TRUE(same_keys("keys_out", gpu.keys_out, cpu.keys_out, 0));
      }
    }
  }
}

TEST(Stage03Trace, EmptyInputAndBadArguments) {
  const auto trace = sortlab::stage03::trace_pass(std::vector<std::uint32_t>{}, 0);
  EXPECT_EQ(trace.num_blocks, 0);
  EXPECT_TRUE(trace.keys_out.empty());
  const std::vector<std::uint32_t> keys = {3, 1, 2};
  EXPECT_THROW(sortlab::stage03::trace_pass(keys, 32), sortlab::Error);
  EXPECT_THROW(sortlab::stage03::trace_pass(keys, -1), sortlab::Error);
  EXPECT_THROW(sortlab::stage03::trace_pass(keys, 0, sortlab::stage03::Config{9}), sortlab::Error);
  sortlab::DeviceBuffer<std::uint32_t> in(keys), out(keys.size());
  std::size_t temp_bytes = 0;
  EXPECT_THROW(
      sortlab::stage03::sort_keys<std::uint32_t>(nullptr, temp_bytes, in.data(), out.data(),
                                                 keys.size(), {}, sortlab::stage03::Config{0}),
      sortlab::Error);
}

// The usage example the Doxygen page of multibit_radix.hpp shows.
TEST(Stage03Usage, SortsAHandfulOfKeys) {
  //! [stage03 usage]
  const std::vector<std::uint32_t> host_keys = {7, 3, 9, 3, 0, 12};
  sortlab::DeviceBuffer<std::uint32_t> keys_in(host_keys), keys_out(host_keys.size());
  const sortlab::stage03::Config config{5};  // 5-bit digits: 32 buckets, 7 passes
  std::size_t temp_bytes = 0;                // 1. ask how much scratch the sort needs
  sortlab::stage03::sort_keys<std::uint32_t>(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                             host_keys.size(), {}, config);
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage03::sort_keys<std::uint32_t>(temp.data(), temp_bytes, keys_in.data(),  // 3. sort
                                             keys_out.data(), host_keys.size(), {}, config);
  //! [stage03 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<std::uint32_t>{0, 3, 3, 7, 9, 12}));
}

// Tracing runs on a stream of its own: it must finish, complete, while the legacy default stream
// is held by another kernel (it never queues work there nor waits for the whole device).
TEST(Stage03Trace, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return sortlab::stage03::trace_pass(keys, 3); });
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03, DeviceSortSuite, Stage03DefaultCases);
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03Radix1, DeviceSortSuite, Stage03Radix1Cases);
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03Radix3, DeviceSortSuite, Stage03Radix3Cases);
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03Radix4, DeviceSortSuite, Stage03Radix4Cases);
INSTANTIATE_TYPED_TEST_SUITE_P(Stage03Radix8, DeviceSortSuite, Stage03Radix8Cases);
}  // namespace sortlab::testing
