/// \file
/// \brief spread_shared_bytes(): the padded size keeps at most ceil(blocks / SMs) blocks on an
/// SM, and leaves sizes alone that already do.
#include <gtest/gtest.h>

#include <cstddef>

#include "common/spread_blocks.hpp"

namespace sortlab {
namespace {

/// An H100's or H200's shared memory: 228 KiB an SM, 227 KiB a block at most, 1 KiB reserved.
constexpr SharedMemoryLimits kHopper{228 * 1024, 227 * 1024, 1024};
constexpr std::size_t kHopperSms = 132;

/// How many blocks of \p bytes dynamic shared memory one SM holds, by shared memory alone.
std::size_t blocks_per_sm(std::size_t bytes, const SharedMemoryLimits& limits) {
  return limits.per_sm / (bytes + limits.per_block_overhead);
}

TEST(SpreadSharedBytes, FewerBlocksThanSmsTakeOneSmEach) {
  // Stage 07's one-block finish with its 8192-entry list of f32 (about 67 KiB: three to an SM).
  const std::size_t needed = 67 * 1024;
  ASSERT_EQ(blocks_per_sm(needed, kHopper), 3u);
  for (std::size_t blocks : {1u, 16u, 64u, 131u, 132u}) {
    const std::size_t bytes = spread_shared_bytes(needed, blocks, kHopperSms, kHopper);
    EXPECT_EQ(blocks_per_sm(bytes, kHopper), 1u) << blocks << " blocks";
    EXPECT_GE(bytes, needed);
    EXPECT_EQ(bytes % kSpreadSharedGranule, 0u);
  }
}

TEST(SpreadSharedBytes, TwiceTheSmsTakeTwoAnSm) {
  const std::size_t needed = 67 * 1024;
  for (std::size_t blocks : {133u, 200u, 264u}) {
    const std::size_t bytes = spread_shared_bytes(needed, blocks, kHopperSms, kHopper);
    EXPECT_EQ(blocks_per_sm(bytes, kHopper), 2u) << blocks << " blocks";
    EXPECT_GT(bytes, needed);
  }
}

TEST(SpreadSharedBytes, SizesThatAlreadySpreadStay) {
  const std::size_t needed = 67 * 1024;  // three to an SM
  EXPECT_EQ(spread_shared_bytes(needed, 265, kHopperSms, kHopper), needed);
  EXPECT_EQ(spread_shared_bytes(needed, 100000, kHopperSms, kHopper), needed);
  // One to an SM already: nothing to add.
  EXPECT_EQ(spread_shared_bytes(150 * 1024, 10, kHopperSms, kHopper), 150 * 1024u);
}

TEST(SpreadSharedBytes, SmallBlocksArePaddedToTheWantedCount) {
  // A block of 20 KiB: ten to an SM by shared memory.
  const std::size_t needed = 20 * 1024;
  ASSERT_EQ(blocks_per_sm(needed, kHopper), 10u);
  // Up to 9 wanted an SM (1188 blocks) the padding keeps one more out; from 10 (1189 blocks
  // and more) the size already does.
  for (std::size_t blocks : {1u, 132u, 133u, 396u, 397u, 1000u, 1188u, 1189u, 1320u, 5000u}) {
    const std::size_t wanted = (blocks + kHopperSms - 1) / kHopperSms;
    const std::size_t bytes = spread_shared_bytes(needed, blocks, kHopperSms, kHopper);
    const std::size_t fit = blocks_per_sm(bytes, kHopper);
    if (wanted + 1 <= blocks_per_sm(needed, kHopper))
      EXPECT_EQ(fit, wanted) << blocks << " blocks";
    else
      EXPECT_EQ(bytes, needed) << blocks << " blocks";
  }
}

TEST(SpreadSharedBytes, NeverAsksPastTheBlockLimit) {
  // A device whose blocks may take at most 48 KiB cannot pad 20 KiB to half its SM.
  constexpr SharedMemoryLimits kSmallOptin{228 * 1024, 48 * 1024, 1024};
  EXPECT_EQ(spread_shared_bytes(20 * 1024, 10, kHopperSms, kSmallOptin), 20 * 1024u);
  // The kernel's static shared memory counts against the SM: with 40 KiB of it (41 KiB with
  // the reserve), 3 blocks of 30 KiB dynamic fit (213 KiB); one block an SM asks for about 73.
  constexpr SharedMemoryLimits kStatic{228 * 1024, 187 * 1024, 41 * 1024};
  const std::size_t bytes = spread_shared_bytes(30 * 1024, 10, kHopperSms, kStatic);
  EXPECT_EQ(blocks_per_sm(bytes, kStatic), 1u);
  EXPECT_LE(bytes, kStatic.per_block_optin);
}

// Every padded size over a sweep of sizes, block counts and SM counts: never below the need,
// never past the block limit, exactly the wanted count an SM where it pads, and where it does
// not, either the need already keeps one more out or no size could (the wanted count would not
// fit after the granule's rounding, or the block limit is too low).
TEST(SpreadSharedBytes, SweepKeepsItsPromises) {
  const SharedMemoryLimits devices[] = {kHopper,
                                        {164 * 1024, 163 * 1024, 1024},  // an A100
                                        {100 * 1024, 99 * 1024, 1024},
                                        {228 * 1024, 187 * 1024, 41 * 1024}};
  for (const SharedMemoryLimits& limits : devices)
    for (std::size_t sms : {1u, 2u, 108u, 132u})
      for (std::size_t needed = 0; needed <= limits.per_block_optin; needed += 997)
        for (std::size_t blocks = 1; blocks <= 3000; blocks += blocks < 300 ? 1 : 37) {
          const std::size_t bytes = spread_shared_bytes(needed, blocks, sms, limits);
          const std::size_t wanted = (blocks + sms - 1) / sms;
          ASSERT_GE(bytes, needed);
          if (bytes == needed) {
            // Unpadded: either no more than wanted fit already, or padding could not work.
            const bool already = blocks_per_sm(needed, limits) <= wanted;
            const std::size_t crowded =
                limits.per_sm / (wanted + 1) + 1 - limits.per_block_overhead;
            const std::size_t rounded =
                (crowded + kSpreadSharedGranule - 1) / kSpreadSharedGranule * kSpreadSharedGranule;
            const bool impossible = rounded > limits.per_block_optin ||
                                    wanted * (rounded + limits.per_block_overhead) > limits.per_sm;
            ASSERT_TRUE(already || impossible)
                << needed << " bytes, " << blocks << " blocks, " << sms << " SMs";
            continue;
          }
          ASSERT_LE(bytes, limits.per_block_optin);
          ASSERT_EQ(bytes % kSpreadSharedGranule, 0u);
          ASSERT_EQ(blocks_per_sm(bytes, limits), wanted)
              << needed << " bytes, " << blocks << " blocks, " << sms << " SMs";
        }
}

TEST(SpreadSharedBytes, NoBlocksOrNoSmsChangeNothing) {
  EXPECT_EQ(spread_shared_bytes(1000, 0, kHopperSms, kHopper), 1000u);
  EXPECT_EQ(spread_shared_bytes(1000, 5, 0, kHopper), 1000u);
}

}  // namespace
}  // namespace sortlab
