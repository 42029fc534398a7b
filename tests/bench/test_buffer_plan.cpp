/// \file
/// \brief The buffer plan: rotating inputs exceed the L2 at every size, the flush size, the copy
/// floor and the copies' worth column.
#include <gtest/gtest.h>

#include <cstddef>

#include "bench/timing/buffer_plan.hpp"

namespace sortlab::bench::timing {
namespace {

constexpr std::size_t kH100L2 = 50 * (std::size_t{1} << 20);
constexpr std::size_t kPlentyOfMemory = std::size_t{60} << 30;

TEST(RotatingBufferCount, InputsExceedTheL2AtEverySizeForKeysAndPairs) {
  for (int log2_n = 0; log2_n <= 30; ++log2_n) {
    for (std::size_t bytes_per_key : {4u, 8u}) {  // keys only, keys + values
      const std::size_t per_input = (std::size_t{1} << log2_n) * bytes_per_key;
      const std::size_t count = rotating_buffer_count(per_input, kH100L2, kPlentyOfMemory);
      EXPECT_GT(count * per_input, kRotatingL2Multiple * kH100L2) << log2_n;
      EXPECT_GE(count, 1u);
      // Never more than needed: one set fewer would not exceed the multiple.
      if (count > 1) {
        EXPECT_LE((count - 1) * per_input, kRotatingL2Multiple * kH100L2) << log2_n;
      }
    }
  }
}

TEST(RotatingBufferCount, TheOldCapOf64NoLongerLeavesSmallSizesInTheL2) {
  // 2^16 u32 keys: 256 KiB each; 64 of them (16 MiB) sat in the 50 MB L2.
  const std::size_t count = rotating_buffer_count(std::size_t{1} << 18, kH100L2, kPlentyOfMemory);
  EXPECT_GT(count, 64u);
  EXPECT_EQ(count, 401u);
}

TEST(RotatingBufferCount, IsBoundedByTheMemoryBudgetButNeverZero) {
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_EQ(rotating_buffer_count(gib, kH100L2, kPlentyOfMemory), 1u);  // 2^28 keys: one is enough
  EXPECT_EQ(rotating_buffer_count(std::size_t{1} << 20, kH100L2, std::size_t{10} << 20), 10u);
  EXPECT_EQ(rotating_buffer_count(2 * gib, kH100L2, gib), 1u);  // larger than the budget
  EXPECT_EQ(rotating_buffer_count(0, kH100L2, kPlentyOfMemory), 2 * kH100L2 + 1);
}

TEST(L2Flush, WritesTwiceTheL2) {
  EXPECT_EQ(l2_flush_bytes(kH100L2), 2 * kH100L2);
}

TEST(CopyFloor, ReadsAndWritesEveryKeyAndValueOnce) {
  EXPECT_EQ(copy_floor_bytes(1024, 4, 0), 4096u);
  EXPECT_EQ(copy_floor_bytes(1024, 4, 4), 8192u);
  EXPECT_EQ(copy_floor_bytes(std::size_t{1} << 28, 4, 4), std::size_t{2} << 30);
}

TEST(CopiesWorth, IsSortTimeOverCopyTimeAndDoesNotRewardMovingMoreBytes) {
  EXPECT_DOUBLE_EQ(copies_worth(6.0, 0.5), 12.0);
  EXPECT_DOUBLE_EQ(copies_worth(1.0, 1.0), 1.0);
  EXPECT_EQ(copies_worth(1.0, 0.0), 0.0);
  // Two designs against the same copy: the slower one is worth more copies, whatever bytes it
  // claims to move (the old "% of copy BW" ranked a 20x slower design first).
  const double copy_ms = 0.2;
  EXPECT_GT(copies_worth(130.0, copy_ms), copies_worth(6.4, copy_ms));
}

}  // namespace
}  // namespace sortlab::bench::timing
