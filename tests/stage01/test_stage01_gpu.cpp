/// \file
/// \brief Stage 01 on the GPU: the shared device sort suite, plus every intermediate array of a
/// pass compared with the CPU model.
#include <gtest/gtest.h>

#include <algorithm>

#include "chapters/01_scan_sort/scan_sort.hpp"
#include "chapters/01_scan_sort/scan_sort_model.hpp"
#include "common/device_buffer.hpp"
#include "tests/stage01/stage01_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/first_mismatch.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

using sortlab::testing::Stage01Sorter;

using sortlab::testing::SortCase;
using Stage01Cases =
    ::testing::Types<SortCase<Stage01Sorter, std::uint32_t>, SortCase<Stage01Sorter, std::int32_t>,
                     SortCase<Stage01Sorter, float>>;

template <typename Key>
class Stage01Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(Stage01Trace, TraceKeys);

// Every array of one GPU pass equals the CPU model's, for sizes across block boundaries
// (the scan's tile is 1024, the kernels' block 256) and for several bits.
TYPED_TEST(Stage01Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  // (capped by SORTLAB_TEST_MAX_N, which the compute-sanitizer runs set low)
  for (std::size_t n : sortlab::testing::capped({1, 17, 255, 256, 1025, 5000, (1u << 20) | 3})) {
    for (int bit : {0, 7, 31}) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE(sortlab::testing::case_label(n, "uniform", seed) +
                     " bit=" + std::to_string(bit) + " descending=" + std::to_string(descending));
        const auto keys = sortlab::generate_keys<Key>(sortlab::Distribution::kUniform, n, seed + n);
        const auto gpu = sortlab::stage01::trace_pass(keys, bit, descending);
        const auto cpu = sortlab::stage01::model_pass(keys, bit, descending);
        // No blocks here (tile 0): stage 01's passes are device-wide.
        ASSERT_TRUE(sortlab::testing::same_per_key("bits", gpu.bits, cpu.bits, 0));
        ASSERT_TRUE(
            sortlab::testing::same_per_key("ones before", gpu.ones_before, cpu.ones_before, 0));
        ASSERT_TRUE(sortlab::testing::same_per_key("destinations", gpu.destinations,
                                                   cpu.destinations, 0, &cpu.bits));
        // Bit for bit: both are the same stable split.
        ASSERT_TRUE(
            sortlab::testing::same_keys("keys after the pass", gpu.keys_out, cpu.keys_out, 0));
      }
    }
  }
}

// The usage example the Doxygen page of scan_sort.hpp shows.
TEST(Stage01Usage, SortsAHandfulOfKeys) {
  //! [stage01 usage]
  const std::vector<std::uint32_t> host_keys = {7, 3, 9, 3, 0, 12};
  sortlab::DeviceBuffer<std::uint32_t> keys_in(host_keys), keys_out(host_keys.size());
  std::size_t temp_bytes = 0;  // 1. ask how much scratch the sort needs
  sortlab::stage01::sort_keys<std::uint32_t>(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                             host_keys.size());
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it
  sortlab::stage01::sort_keys<std::uint32_t>(temp.data(), temp_bytes, keys_in.data(),  // 3. sort
                                             keys_out.data(), host_keys.size());
  //! [stage01 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<std::uint32_t>{0, 3, 3, 7, 9, 12}));
}

// Tracing runs on a stream of its own: it must finish, complete, while the legacy default stream
// is held by another kernel (it never queues work there nor waits for the whole device).
TEST(Stage01Trace, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return sortlab::stage01::trace_pass(keys, 3); });
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage01, DeviceSortSuite, Stage01Cases);
}  // namespace sortlab::testing
