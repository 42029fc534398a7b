/// \file
/// \brief The stage 08 sort as the shared test suites call it (tests/support/device_sort_suite.hpp
/// and large_sort_check.hpp): one sorter struct for the GPU test and the large test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/sort_options.hpp"

namespace sortlab::testing {

/// Stage 08's device sort for keys of kKeyBytes bytes (the tile depends on the key width, and the
/// suite reads kTileItems for its boundary sizes; kMaxItems for its too-many-keys case).
template <std::size_t kKeyBytes>
struct Stage08Sorter {
  static constexpr std::size_t kTileItems =
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

/// The sorter for keys of type Key.
template <typename Key>
using Stage08SorterFor = Stage08Sorter<sizeof(Key)>;

}  // namespace sortlab::testing
