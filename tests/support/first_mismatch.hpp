/// \file
/// \brief Assertions for a GPU pass against its CPU model that report the first difference a
/// student can act on: the array, the first differing index, its block (index / tile) or its
/// (digit, block) table entry, the model's value and the GPU's, and how many elements differ.
/// `ASSERT_EQ(gpu.digits, cpu.digits)` would print the first 32 elements of both vectors (of
/// 2^20), which says neither where nor which block went wrong.
///
///     ASSERT_TRUE(sortlab::testing::same_per_key("destinations", gpu.destinations,
///                                                cpu.destinations, cpu.tile_items, &cpu.digits));
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/key_traits.hpp"
#include "common/verify.hpp"

namespace sortlab::testing {

/// \cond INTERNAL
namespace mismatch_detail {

/// The shared scan: sizes, then the first index where \p same fails and how many do.
/// \p describe turns a value into text, \p where says what an index is ("block 3, ...").
template <typename T, typename Same, typename Describe, typename Where>
::testing::AssertionResult first_mismatch(const std::string& what, const std::vector<T>& gpu,
                                          const std::vector<T>& model, Same same, Describe describe,
                                          Where where) {
  if (gpu.size() != model.size())
    return ::testing::AssertionFailure() << what << ": the GPU gave " << gpu.size()
                                         << " elements, the CPU model " << model.size();
  std::size_t first = gpu.size(), differing = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (same(gpu[i], model[i])) continue;
    if (differing++ == 0) first = i;
  }
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " differ from the CPU model at " << differing << " of " << gpu.size()
         << " positions; the first is index " << first << where(first) << ": the model has "
         << describe(model[first]) << ", the GPU " << describe(gpu[first]);
}

}  // namespace mismatch_detail
/// \endcond

/// Compares a per-key array of numbers (digits, destinations, ...) of a GPU pass with the CPU
/// model's. A failure names the first differing index, its block and position in the block's
/// tile, the key's digit when \p digits is given, both values and the number of differences.
/// \param what the array's name, for the message
/// \param gpu the GPU's array
/// \param model the CPU model's array
/// \param tile_items keys per block tile (0: no blocks, e.g. stage 01's device-wide passes)
/// \param digits the model's digit of each element (same order), or nullptr
inline ::testing::AssertionResult same_per_key(const std::string& what,
                                               const std::vector<std::uint32_t>& gpu,
                                               const std::vector<std::uint32_t>& model,
                                               std::size_t tile_items,
                                               const std::vector<std::uint32_t>* digits = nullptr) {
  return mismatch_detail::first_mismatch(
      what, gpu, model, [](std::uint32_t a, std::uint32_t b) { return a == b; },
      [](std::uint32_t value) { return std::to_string(value); },
      [&](std::size_t i) {
        std::ostringstream where;
        if (tile_items > 0)
          where << " (block " << i / tile_items << ", position " << i % tile_items
                << " of its tile";
        if (digits != nullptr && i < digits->size())
          where << (tile_items > 0 ? ", " : " (") << "digit " << (*digits)[i];
        if (tile_items > 0 || (digits != nullptr && i < digits->size())) where << ')';
        return where.str();
      });
}

/// Compares an array of keys (keys out, a block's locally sorted tile) of a GPU pass with the CPU
/// model's bit for bit (NaNs equal to themselves, -0.0 unequal to +0.0). A failure names the
/// first differing index, its block and position in the tile, both keys (value and bits) and the
/// number of differences.
/// \param what the array's name, for the message
/// \param gpu the GPU's keys
/// \param model the CPU model's keys
/// \param tile_items keys per block tile (0: no blocks)
template <typename Key>
::testing::AssertionResult same_keys(const std::string& what, const std::vector<Key>& gpu,
                                     const std::vector<Key>& model, std::size_t tile_items) {
  return mismatch_detail::first_mismatch(
      what, gpu, model,
      [](const Key& a, const Key& b) {
        return KeyTraits<Key>::raw_bits(a) == KeyTraits<Key>::raw_bits(b);
      },
      [](const Key& key) { return sortlab::detail::key_text(key); },
      [&](std::size_t i) {
        if (tile_items == 0) return std::string();
        return " (block " + std::to_string(i / tile_items) + ", position " +
               std::to_string(i % tile_items) + " of its tile)";
      });
}

/// Compares a block bucket table (or its scan) of a GPU pass with the CPU model's; entry
/// (digit d, block b) is at d * num_blocks + b. A failure names the first differing entry as
/// (digit, block), both values and the number of differences.
/// \param what the table's name, for the message
/// \param gpu the GPU's table
/// \param model the CPU model's table
/// \param num_blocks blocks of the pass (the table's row length)
inline ::testing::AssertionResult same_table(const std::string& what,
                                             const std::vector<std::uint32_t>& gpu,
                                             const std::vector<std::uint32_t>& model,
                                             int num_blocks) {
  const std::size_t row = num_blocks > 0 ? static_cast<std::size_t>(num_blocks) : 1;
  return mismatch_detail::first_mismatch(
      what, gpu, model, [](std::uint32_t a, std::uint32_t b) { return a == b; },
      [](std::uint32_t value) { return std::to_string(value); },
      [&](std::size_t i) {
        return " = (digit " + std::to_string(i / row) + ", block " + std::to_string(i % row) + ")";
      });
}

}  // namespace sortlab::testing
