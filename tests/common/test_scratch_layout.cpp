/// \file
/// \brief ScratchLayout: arrays are aligned, inside the total, and never overlap.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/scratch_layout.hpp"

namespace sortlab {
namespace {

/// Byte offset of slot \p slot of \p layout from the aligned start of \p storage.
template <typename T>
std::size_t offset_of(const ScratchLayout& layout, std::size_t slot,
                      std::vector<unsigned char>& storage) {
  return static_cast<std::size_t>(
      reinterpret_cast<unsigned char*>(layout.get<T>(storage.data(), slot)) -
      ScratchLayout::aligned_base(storage.data()));
}

/// Bytes of the arrays alone: total_bytes() less the alignment slack.
std::size_t arrays_bytes(const ScratchLayout& layout) {
  return layout.total_bytes() == 0 ? 0 : layout.total_bytes() - (ScratchLayout::kAlignment - 1);
}

TEST(ScratchLayout, EmptyNeedsNothing) {
  const ScratchLayout layout;
  EXPECT_EQ(layout.total_bytes(), 0u);
  EXPECT_EQ(ScratchLayout::kAlignment, 256u);
}

TEST(ScratchLayout, ArraysStartOnTheAlignmentAndFollowEachOther) {
  ScratchLayout layout;
  EXPECT_EQ(layout.add<std::uint32_t>(10), 0u);  // 40 bytes -> 256
  EXPECT_EQ(layout.add<double>(32), 1u);         // exactly 256 bytes
  EXPECT_EQ(layout.add<char>(257), 2u);          // 257 bytes -> 512
  EXPECT_EQ(layout.add<std::uint64_t>(0), 3u);   // empty: takes no room
  EXPECT_EQ(layout.add<std::uint16_t>(1), 4u);   // 2 bytes -> 256
  EXPECT_EQ(arrays_bytes(layout), 256u + 256u + 512u + 0u + 256u);

  std::vector<unsigned char> storage(layout.total_bytes());
  EXPECT_EQ(offset_of<std::uint32_t>(layout, 0, storage), 0u);
  EXPECT_EQ(offset_of<double>(layout, 1, storage), 256u);
  EXPECT_EQ(offset_of<char>(layout, 2, storage), 512u);
  EXPECT_EQ(offset_of<std::uint64_t>(layout, 3, storage), 1024u);
  EXPECT_EQ(offset_of<std::uint16_t>(layout, 4, storage), 1024u);
}

TEST(ScratchLayout, RandomLayoutsNeverOverlap) {
  std::mt19937_64 engine(2024);
  for (int trial = 0; trial < 200; ++trial) {
    ScratchLayout layout;
    std::vector<std::size_t> bytes;
    const int arrays = 1 + static_cast<int>(engine() % 12);
    for (int a = 0; a < arrays; ++a) {
      const std::size_t count = engine() % 3000;
      if (engine() % 2) {
        layout.add<std::uint32_t>(count);
        bytes.push_back(count * sizeof(std::uint32_t));
      } else {
        layout.add<std::uint8_t>(count);
        bytes.push_back(count);
      }
    }
    std::vector<unsigned char> storage(layout.total_bytes() + 1);
    EXPECT_EQ(arrays_bytes(layout) % ScratchLayout::kAlignment, 0u);
    const std::size_t slack =
        static_cast<std::size_t>(ScratchLayout::aligned_base(storage.data()) - storage.data());
    std::size_t previous_end = 0;
    std::size_t sum = 0;
    for (std::size_t slot = 0; slot < bytes.size(); ++slot) {
      const std::size_t begin = offset_of<unsigned char>(layout, slot, storage);
      ASSERT_EQ(begin % ScratchLayout::kAlignment, 0u) << "slot " << slot;
      ASSERT_GE(begin, previous_end) << "slot " << slot << " overlaps the one before";
      ASSERT_LE(slack + begin + bytes[slot], layout.total_bytes())
          << "slot " << slot << " runs past the end";
      previous_end = begin + bytes[slot];
      sum += bytes[slot];
    }
    // Padding is less than one alignment unit per array.
    EXPECT_LT(arrays_bytes(layout), sum + bytes.size() * ScratchLayout::kAlignment);
  }
}

TEST(ScratchLayout, TypedPointersAreAlignedForTheirType) {
  ScratchLayout layout;
  const std::size_t bytes_slot = layout.add<char>(3);
  const std::size_t doubles_slot = layout.add<double>(5);
  alignas(256) static unsigned char storage[1024];
  ASSERT_LE(layout.total_bytes(), sizeof(storage));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(layout.get<double>(storage, doubles_slot)) % 256, 0u);
  EXPECT_EQ(static_cast<void*>(layout.get<char>(storage, bytes_slot)), static_cast<void*>(storage));
}

// Callers sub-allocate scratch from pools: at every misalignment the arrays still start on the
// boundary, and everything fits inside the bytes total_bytes() asked for.
TEST(ScratchLayout, RealignsAnyScratchPointerInsideTheBytesItAskedFor) {
  ScratchLayout layout;
  layout.add<std::uint32_t>(100);
  const std::size_t last = layout.add<double>(33);
  const std::size_t last_bytes = 33 * sizeof(double);
  alignas(256) static unsigned char storage[4096];
  for (std::size_t offset = 0; offset < 2 * ScratchLayout::kAlignment; ++offset) {
    unsigned char* base = storage + offset;
    for (std::size_t slot = 0; slot < layout.size(); ++slot)
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(layout.get<unsigned char>(base, slot)) %
                    ScratchLayout::kAlignment,
                0u)
          << "offset " << offset << " slot " << slot;
    const unsigned char* end = layout.get<unsigned char>(base, last) + last_bytes;
    ASSERT_LE(end, base + layout.total_bytes()) << "offset " << offset;
  }
}

TEST(ScratchLayout, HoldsAFixedNumberOfArrays) {
  ScratchLayout layout;
  for (std::size_t i = 0; i < ScratchLayout::kMaxArrays; ++i) layout.add<int>(1);
  EXPECT_THROW(layout.add<int>(1), Error);
}

TEST(ScratchLayout, UnknownSlotThrows) {
  ScratchLayout layout;
  layout.add<int>(4);
  std::vector<unsigned char> storage(layout.total_bytes());
  EXPECT_THROW(layout.get<int>(storage.data(), 1), std::out_of_range);
}

}  // namespace
}  // namespace sortlab
