/// \file
/// \brief The device sort suite run on stage 00 (cub::DeviceRadixSort).
#include "chapters/00_cub/cub_sort.hpp"
#include "tests/stage00/stage00_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"

namespace {

using sortlab::testing::CubSorter;

using sortlab::testing::SortCase;
using CubCases = ::testing::Types<SortCase<CubSorter, std::uint32_t>,
                                  SortCase<CubSorter, std::int32_t>, SortCase<CubSorter, float>>;

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage00, DeviceSortSuite, CubCases);
}  // namespace sortlab::testing
