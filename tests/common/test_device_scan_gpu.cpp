/// \file
/// \brief The hierarchical device scan (common/device_scan) on the GPU, against a CPU prefix sum.
///
/// Every stage's table scan runs through it, so it is tested on its own: sizes across the
/// 1024-item tile and across the 1024-tile boundary where the recursion needs a third level,
/// counts that make the sums carry past 16 bits, in place and out of place, and bad arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "tests/support/test_inputs.hpp"

namespace sortlab {
namespace {

constexpr std::size_t kTile = kDeviceScanTileItems;

std::vector<std::uint32_t> random_counts(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint32_t> count(0,
                                                     1000);  // sums pass 2^16 fast, stay below 2^32
  std::vector<std::uint32_t> counts(n);
  for (auto& c : counts) c = count(random);
  return counts;
}

std::vector<std::uint32_t> cpu_exclusive_sum(const std::vector<std::uint32_t>& counts) {
  std::vector<std::uint32_t> sums(counts.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    sums[i] = running;
    running += counts[i];
  }
  return sums;
}

std::vector<std::size_t> scan_sizes() {
  return testing::capped({1, 2, 255, 256, 1023, kTile, kTile + 1, 3 * kTile + 7, kTile * kTile - 1,
                          kTile * kTile, kTile * kTile + 1, kTile * kTile * 3 + 12345});
}

TEST(DeviceScan, MatchesTheCpuPrefixSumOutOfPlace) {
  const std::uint64_t seed = testing::test_seed();
  for (std::size_t n : scan_sizes()) {
    SCOPED_TRACE(testing::case_label(n, "counts 0..1000", seed));
    const auto counts = random_counts(n, seed + n);
    DeviceBuffer<std::uint32_t> in(counts), out(n + 1);
    out.fill_bytes(0xAB);  // poison, including one item past the end that must stay untouched
    DeviceBuffer<unsigned char> temp(device_exclusive_sum_temp_bytes(n));
    device_exclusive_sum(temp.data(), temp.bytes(), in.data(), out.data(), n);
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    auto result = out.download();
    EXPECT_EQ(result.back(), 0xABABABABu) << "the scan wrote past the end";
    result.pop_back();
    ASSERT_EQ(result, cpu_exclusive_sum(counts));
    EXPECT_EQ(in.download(), counts) << "the input was modified";
  }
}

TEST(DeviceScan, MatchesTheCpuPrefixSumInPlace) {
  const std::uint64_t seed = testing::test_seed();
  for (std::size_t n : scan_sizes()) {
    SCOPED_TRACE(testing::case_label(n, "counts 0..1000", seed));
    const auto counts = random_counts(n, seed ^ n);
    DeviceBuffer<std::uint32_t> data(counts);
    DeviceBuffer<unsigned char> temp(device_exclusive_sum_temp_bytes(n));
    device_exclusive_sum(temp.data(), temp.bytes(), data.data(), data.data(), n);
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(data.download(), cpu_exclusive_sum(counts));
  }
}

TEST(DeviceScan, EmptyInputIsANoOp) {
  EXPECT_NO_THROW(device_exclusive_sum(nullptr, 0, nullptr, nullptr, 0));
}

TEST(DeviceScan, BadArgumentsAreClearErrors) {
  const std::size_t n = 3 * kTile;
  DeviceBuffer<std::uint32_t> data(n);
  DeviceBuffer<unsigned char> temp(device_exclusive_sum_temp_bytes(n));
  ASSERT_GT(temp.bytes(), 0u);
  EXPECT_THROW(device_exclusive_sum(temp.data(), temp.bytes(), nullptr, data.data(), n), Error);
  EXPECT_THROW(device_exclusive_sum(temp.data(), temp.bytes(), data.data(), nullptr, n), Error);
  EXPECT_THROW(device_exclusive_sum(temp.data(), temp.bytes() - 1, data.data(), data.data(), n),
               Error);
  EXPECT_THROW(device_exclusive_sum(nullptr, temp.bytes(), data.data(), data.data(), n), Error);
}

}  // namespace
}  // namespace sortlab
