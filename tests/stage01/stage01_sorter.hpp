/// \file
/// \brief The stage 01 sort as the shared test suites call it (tests/support/device_sort_suite.hpp
/// and large_sort_check.hpp): one sorter struct for the GPU test and the large test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/01_scan_sort/scan_sort.hpp"
#include "common/sort_options.hpp"

namespace sortlab::testing {

/// The stage 01 sort as the shared suites call it.
struct Stage01Sorter {
  static constexpr std::size_t kTileItems = sortlab::stage01::kThreadsPerBlock;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage01::sort_keys(temp, bytes, in, out, n, options, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage01::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, options,
                                 stream);
  }
};

}  // namespace sortlab::testing
