/// \file
/// \brief The device sort suite run on stage 00 (cub::DeviceRadixSort).
#include "chapters/00_cub/cub_sort.hpp"
#include "tests/support/device_sort_suite.hpp"

namespace {

struct CubSorter {
  static constexpr std::size_t kTileItems = 256 * 18;  // CUB's onesweep tile on sm_90 (roughly)
  // CUB represents both zeros by the other neighbouring pattern in descending sorts (see
  // cub/block/radix_rank_sort_operations.cuh): only visible in partial-bit-range float sorts.
  static constexpr bool kSortlabZeroConvention = false;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage00::sort_keys(temp, bytes, in, out, n, options, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         const sortlab::SortOptions& options, cudaStream_t stream) {
    sortlab::stage00::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, options,
                                 stream);
  }
};

using sortlab::testing::SortCase;
using CubCases = ::testing::Types<SortCase<CubSorter, std::uint32_t>,
                                  SortCase<CubSorter, std::int32_t>, SortCase<CubSorter, float>>;

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage00, DeviceSortSuite, CubCases);
}  // namespace sortlab::testing
