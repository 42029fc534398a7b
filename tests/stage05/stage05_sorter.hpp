/// \file
/// \brief The stage 05 sort as the shared test suites call it (tests/support/device_sort_suite.hpp
/// and large_sort_check.hpp): one sorter struct for the GPU test and the large test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/sort_options.hpp"

namespace sortlab::testing {

/// Stage 05's device sort for keys of kKeyBytes bytes, digits of kRadixBits bits and (pair
/// sorts) values of kValueBytes bytes. The tile depends on all three (16-byte values halve it),
/// so the sorter is a template on them (the suite reads kTileItems for its boundary sizes and
/// kMaxItems for its too-many-keys case). sort_pairs deduces its value type from values_in
/// alone, so the suite's size queries may pass a plain nullptr for values_out.
template <std::size_t kKeyBytes, int kRadixBits = sortlab::stage05::kRadixBits,
          std::size_t kValueBytes = 0>
struct Stage05Sorter {
  static constexpr sortlab::stage05::Config kConfig{kRadixBits};
  static constexpr std::size_t kTileItems = static_cast<std::size_t>(
      sortlab::stage05::tile_items_for(kKeyBytes, kRadixBits, kValueBytes));
  static constexpr std::size_t kMaxItems = sortlab::stage05::kMaxItems;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage05::sort_keys(temp, bytes, in, out, n, options, kConfig, stream);
  }
  template <typename Key, typename Value>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const Value* values_in, sortlab::NotDeduced<Value>* values_out,
                         std::size_t n, const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage05::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, options,
                                 kConfig, stream);
  }
};

/// The default sorter for keys of type Key.
template <typename Key>
using Stage05SorterFor = Stage05Sorter<sizeof(Key)>;

}  // namespace sortlab::testing
