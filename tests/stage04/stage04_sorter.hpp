/// \file
/// \brief The stage 04 sort as the shared test suites call it (tests/support/device_sort_suite.hpp
/// and large_sort_check.hpp): one sorter struct for the GPU test and the large test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "common/sort_options.hpp"

namespace sortlab::testing {

/// Stage 04 with digit width kRadixBits and kKeysPerThread keys per thread.
template <int kRadixBits, int kKeysPerThread>
struct Stage04Sorter {
  static constexpr sortlab::stage04::Config kConfig{kRadixBits, kKeysPerThread};
  static constexpr std::size_t kTileItems =
      static_cast<std::size_t>(sortlab::stage04::kThreadsPerBlock) * kKeysPerThread;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage04::sort_keys(temp, bytes, in, out, n, options, kConfig, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage04::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, options,
                                 kConfig, stream);
  }
};

using DefaultSorter =
    Stage04Sorter<sortlab::stage04::kDefaultRadixBits, sortlab::stage04::kDefaultKeysPerThread>;

}  // namespace sortlab::testing
