// split_at_words() (common/word_split.hpp), the arithmetic every 16-byte reader and copier of the
// project shares, against a walk over the array's bytes: every start address modulo 16 that a
// value of the width can have, every length up to a few words past the first boundary.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/word_split.hpp"

namespace {

/// What the split must be, found value by value: the head ends at the first value that starts
/// on a 16-byte boundary; a word is whole when all 16 of its bytes belong to the array.
template <std::size_t kValueBytes>
void expect_split_matches_walk(std::uintptr_t address, std::uint32_t size) {
  std::uint32_t head = size;
  for (std::uint32_t i = 0; i < size; ++i)
    if ((address + i * kValueBytes) % 16 == 0) {
      head = i;
      break;
    }
  const std::uintptr_t end = address + std::uintptr_t{size} * kValueBytes;
  std::uint32_t words = 0;
  for (std::uintptr_t word = address + std::uintptr_t{head} * kValueBytes; word + 16 <= end;
       word += 16)
    ++words;
  const auto split = sortlab::split_at_words<kValueBytes>(address, size);
  SCOPED_TRACE("value bytes " + std::to_string(kValueBytes) + ", address % 16 = " +
               std::to_string(address % 16) + ", size " + std::to_string(size));
  EXPECT_EQ(split.head, head);
  EXPECT_EQ(split.words, words);
  EXPECT_EQ(split.tail_begin(), head + words * (16 / kValueBytes));
  EXPECT_LE(split.tail_begin(), size);
  EXPECT_LT(size - split.tail_begin(), 16 / kValueBytes)
      << "after the last whole word, fewer values than one word holds";
}

template <std::size_t kValueBytes>
void check_every_offset_and_size() {
  for (std::uintptr_t offset = 0; offset < 16; offset += kValueBytes)
    for (std::uint32_t size = 0; size <= 80; ++size)
      expect_split_matches_walk<kValueBytes>(std::uintptr_t{4096} + offset, size);
}

TEST(WordSplit, EveryOffsetAndSizeOfOneByteValues) {
  check_every_offset_and_size<1>();
}
TEST(WordSplit, EveryOffsetAndSizeOfTwoByteValues) {
  check_every_offset_and_size<2>();
}
TEST(WordSplit, EveryOffsetAndSizeOfFourByteValues) {
  check_every_offset_and_size<4>();
}
TEST(WordSplit, EveryOffsetAndSizeOfEightByteValues) {
  check_every_offset_and_size<8>();
}
TEST(WordSplit, SixteenByteValuesAreWordsThemselves) {
  check_every_offset_and_size<16>();
}

// The pointer overload takes the array's own address.
TEST(WordSplit, PointerOverloadUsesTheAddress) {
  alignas(16) std::uint16_t values[40] = {};
  // The array starts at values[3]; the split counts from there (its index i is values[3 + i]).
  const auto split = sortlab::split_at_words(values + 3, 30);
  EXPECT_EQ(split.head, 5u);           // 0..4 (values[3..7]) precede the boundary at values[8]
  EXPECT_EQ(split.words, 3u);          // 5..28 (values[8..31])
  EXPECT_EQ(split.tail_begin(), 29u);  // 29 (values[32]) is the tail
}

}  // namespace
