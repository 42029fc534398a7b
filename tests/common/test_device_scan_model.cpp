/// \file
/// \brief The device scan's host-side sizing: scratch bytes and the traffic it charges to the
/// stages' bandwidth models (no GPU needed).
#include <gtest/gtest.h>

#include <cstddef>

#include "common/device_scan.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab {
namespace {

constexpr std::size_t kTile = kDeviceScanTileItems;

TEST(DeviceScanSizing, OneTileNeedsNoScratchAndMovesEachItemOnce) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, kTile - 1, kTile}) {
    EXPECT_EQ(device_exclusive_sum_temp_bytes(n), 0u) << n;
    EXPECT_DOUBLE_EQ(device_exclusive_sum_bytes(n), 8.0 * static_cast<double>(n)) << n;
  }
}

/// Bytes a ScratchLayout adds so that any scratch pointer can be realigned inside it.
constexpr std::size_t kSlack = ScratchLayout::kAlignment - 1;

TEST(DeviceScanSizing, TwoLevelsReadAndWriteEveryItemTwice) {
  const std::size_t n = 3 * kTile + 5;  // 4 tiles; their totals fit one tile
  // 4 totals, plus the slack that realigns an unaligned scratch pointer
  EXPECT_EQ(device_exclusive_sum_temp_bytes(n), ScratchLayout::kAlignment + kSlack);
  // items: scan (8) + add-back (8); totals: written (4), scanned (8), read back (4)
  EXPECT_DOUBLE_EQ(device_exclusive_sum_bytes(n), 16.0 * n + 16.0 * 4);
}

TEST(DeviceScanSizing, ThreeLevelsWhenTheTotalsNeedMoreThanOneTile) {
  const std::size_t n = kTile * kTile + 1;  // kTile + 1 tiles -> 2 tiles of totals
  const std::size_t tiles = kTile + 1;
  const double totals_scan = 16.0 * tiles + 16.0 * 2;  // the totals are a two-level scan
  EXPECT_DOUBLE_EQ(device_exclusive_sum_bytes(n), 16.0 * n + 8.0 * tiles + totals_scan);
  EXPECT_EQ(device_exclusive_sum_temp_bytes(n),
            ((tiles * 4 + 255) / 256) * 256 + ScratchLayout::kAlignment + kSlack);
}

TEST(DeviceScanSizing, TrafficGrowsWithSizeButStaysNearSixteenBytesPerItem) {
  double previous = 0.0;
  for (std::size_t n = 1; n <= (std::size_t{1} << 30); n = n * 3 + 1) {
    const double bytes = device_exclusive_sum_bytes(n);
    EXPECT_GT(bytes, previous) << n;
    EXPECT_LE(bytes, 16.1 * static_cast<double>(n) + 64.0) << n;
    previous = bytes;
  }
}

}  // namespace
}  // namespace sortlab
