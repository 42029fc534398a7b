/// \file
/// \brief The stage 08 sort as the shared test suites call it (tests/support/device_sort_suite.hpp
/// and large_sort_check.hpp): one sorter struct for the GPU test and the large test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/sort_options.hpp"

namespace sortlab::testing {

/// Stage 08's device sort for keys of kKeyBytes bytes whose pair sorts carry values of
/// kValueBytes bytes. The tile depends on both widths: a pair sort's tile (kTileItems) is larger
/// than the keys-only sort's (kKeysTileItems) for keys of up to 4 bytes, since its values bypass
/// the registers, and 8-byte keys take smaller tiles. The suite reads each for the boundary sizes
/// of its own sort, kMaxItems for its too-many-keys case.
template <std::size_t kKeyBytes, std::size_t kValueBytes = 4>
struct Stage08Sorter {
  static constexpr std::size_t kTileItems =
      static_cast<std::size_t>(sortlab::stage08::tile_items_for(kKeyBytes, kValueBytes));
  static constexpr std::size_t kKeysTileItems =
      static_cast<std::size_t>(sortlab::stage08::tile_items_for(kKeyBytes));
  static constexpr std::size_t kMaxItems = sortlab::stage08::kMaxItems;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage08::sort_keys(temp, bytes, in, out, n, options, {}, stream);
  }
  template <typename Key, typename Value>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const Value* values_in, sortlab::NotDeduced<Value>* values_out,
                         std::size_t n, const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage08::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, options,
                                 {}, stream);
  }
};

/// The sorter for keys of type Key with values of type Value.
template <typename Key, typename Value = std::uint32_t>
using Stage08SorterFor = Stage08Sorter<sizeof(Key), sizeof(Value)>;

}  // namespace sortlab::testing
