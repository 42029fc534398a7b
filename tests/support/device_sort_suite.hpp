/// \file
/// \brief The GPU test suite every device sort in sortlab must pass.
///
/// A stage's test file describes its sort with a small "sorter" struct and instantiates the suite
/// for its key types:
/// \code
/// struct Stage01Sorter {
///   static constexpr std::size_t kTileItems = 256;  // the stage's block tile, for boundary sizes
///   template <typename Key>
///   static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
///                         const sortlab::SortOptions& options, cudaStream_t stream);
///   template <typename Key>
///   static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
///                          const std::uint32_t* values_in, std::uint32_t* values_out,
///                          std::size_t n, const sortlab::SortOptions& options, cudaStream_t
///                          stream);
/// };
/// using Stage01Cases = ::testing::Types<sortlab::testing::SortCase<Stage01Sorter, std::uint32_t>,
/// ...>; INSTANTIATE_TYPED_TEST_SUITE_P(Stage01, DeviceSortSuite, Stage01Cases); \endcode Every run
/// poisons the outputs and the scratch, draws fresh keys (seed printed on failure), and checks
/// order, permutation and (for pairs) stability against the CPU reference.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/sort_options.hpp"
#include "common/verify.hpp"
#include "tests/support/test_inputs.hpp"

namespace sortlab::testing {

/// Byte written over outputs and scratch before every run, so unwritten elements are caught.
inline constexpr int kPoisonByte = 0xA5;

/// One (sorter, key type) combination of the suite.
template <typename SorterT, typename KeyT>
struct SortCase {
  using Sorter = SorterT;  ///< the stage's sorter struct
  using Key = KeyT;        ///< the key type
};

/// The sorts promise not to modify their input (keys_in is const): check it bit for bit.
/// \param device_input the input buffer after the sort
/// \param host_input what was uploaded
template <typename T>
void expect_input_untouched(const DeviceBuffer<T>& device_input, const std::vector<T>& host_input) {
  const std::vector<T> after = device_input.download();
  ASSERT_EQ(after.size(), host_input.size());
  for (std::size_t i = 0; i < after.size(); ++i)
    ASSERT_EQ(KeyTraits<T>::raw_bits(after[i]), KeyTraits<T>::raw_bits(host_input[i]))
        << "the sort modified its input at index " << i;
}

/// Runs Sorter's keys-only sort on \p keys (scratch and output poisoned) and verifies the result.
template <typename Sorter, typename Key>
void expect_sorts_keys(const std::vector<Key>& keys, const SortOptions& options = {}) {
  DeviceBuffer<Key> keys_in(keys);
  DeviceBuffer<Key> keys_out(keys.size());
  keys_out.fill_bytes(kPoisonByte);
  std::size_t temp_bytes = 0;
  Sorter::template sort_keys<Key>(nullptr, temp_bytes, keys_in.data(), keys_out.data(), keys.size(),
                                  options, nullptr);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  temp.fill_bytes(kPoisonByte);
  Sorter::template sort_keys<Key>(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                  keys.size(), options, nullptr);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const VerifyResult result = verify_stably_sorted_keys(keys, keys_out.download(), options);
  EXPECT_TRUE(result.ok) << result.message;
  expect_input_untouched(keys_in, keys);
}

/// Runs Sorter's pair sort with values 0..n-1 and verifies order, permutation and stability.
template <typename Sorter, typename Key>
void expect_sorts_pairs(const std::vector<Key>& keys, const SortOptions& options = {}) {
  const std::vector<std::uint32_t> values = iota_values(keys.size());
  DeviceBuffer<Key> keys_in(keys);
  DeviceBuffer<std::uint32_t> values_in(values);
  DeviceBuffer<Key> keys_out(keys.size());
  DeviceBuffer<std::uint32_t> values_out(keys.size());
  keys_out.fill_bytes(kPoisonByte);
  values_out.fill_bytes(kPoisonByte);
  std::size_t temp_bytes = 0;
  Sorter::template sort_pairs<Key>(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                   values_in.data(), values_out.data(), keys.size(), options,
                                   nullptr);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  temp.fill_bytes(kPoisonByte);
  Sorter::template sort_pairs<Key>(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                   values_in.data(), values_out.data(), keys.size(), options,
                                   nullptr);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const VerifyResult result =
      verify_sorted_pairs(keys, values, keys_out.download(), values_out.download(), options);
  EXPECT_TRUE(result.ok) << result.message;
  expect_input_untouched(keys_in, keys);
  expect_input_untouched(values_in, values);
}

/// Typed fixture: TypeParam is a SortCase.
template <typename Case>
class DeviceSortSuite : public ::testing::Test {};
/// Declares the suite; a stage instantiates it with INSTANTIATE_TYPED_TEST_SUITE_P.
TYPED_TEST_SUITE_P(DeviceSortSuite);

/// Whether Sorter maps -0.0 and +0.0 to one bit pattern *inside* partial descending bit ranges
/// the way sortlab does (descending = complement of ascending). CUB picks the other of the two
/// neighbouring patterns for descending sorts, which is equally valid for full-width sorts but
/// orders zeros differently against denormals when a bit range cuts through them; a Sorter
/// declares `static constexpr bool kSortlabZeroConvention = false;` to skip that one case.
template <typename Sorter, typename = void>
struct UsesSortlabZeroConvention : std::true_type {};
template <typename Sorter>
struct UsesSortlabZeroConvention<Sorter, std::void_t<decltype(Sorter::kSortlabZeroConvention)>>
    : std::bool_constant<Sorter::kSortlabZeroConvention> {};

/// Distributions used at large sizes (all of them at small sizes).
inline std::vector<Distribution> large_size_distributions() {
  return {Distribution::kUniform, Distribution::kEntropyReduced, Distribution::kFewDistinct,
          Distribution::kReversed, Distribution::kFloatSpecials};
}

/// Keys only: every distribution at every small size (tile boundaries included).
TYPED_TEST_P(DeviceSortSuite, KeysAllDistributionsSmallSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : all_distributions())
    for (std::size_t n : small_sizes(Sorter::kTileItems)) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_keys<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Keys only: 2^20 and 2^24 keys for the distributions that stress a radix sort most.
TYPED_TEST_P(DeviceSortSuite, KeysLargeSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : large_size_distributions())
    for (std::size_t n : large_sizes()) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_keys<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Pairs: every distribution at every small size; values must travel with their keys, stably.
TYPED_TEST_P(DeviceSortSuite, PairsAreStableSmallSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : all_distributions())
    for (std::size_t n : small_sizes(Sorter::kTileItems)) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_pairs<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Pairs at 2^20 and 2^24: uniform and few distinct keys (long runs of ties).
TYPED_TEST_P(DeviceSortSuite, PairsAreStableLargeSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : {Distribution::kUniform, Distribution::kFewDistinct})
    for (std::size_t n : large_sizes()) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_pairs<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Descending order, partial bit ranges (the other bits keep input order) and empty ranges.
TYPED_TEST_P(DeviceSortSuite, DescendingAndBitRanges) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  const int width = KeyTraits<Key>::kNumBits;
  const SortOptions option_sets[] = {
      {0, kAllBits, true},       // descending, all bits
      {0, 4, false},             // low nibble only: the rest must keep input order
      {3, width - 5, false},     // a window in the middle
      {width - 8, width, true},  // top byte, descending
      {5, 5, false},             // empty bit range: output is a copy of the input
  };
  for (const SortOptions& options : option_sets)
    for (Distribution distribution :
         {Distribution::kUniform, Distribution::kFewDistinct, Distribution::kFloatSpecials})
      for (std::size_t n : capped({0, 1, 33, 1000, 3 * Sorter::kTileItems + 7, 100003})) {
        const bool partial_descending = options.descending && options.end_bit != kAllBits &&
                                        (options.begin_bit > 0 || options.end_bit < width);
        if (!UsesSortlabZeroConvention<Sorter>::value && partial_descending &&
            distribution == Distribution::kFloatSpecials && KeyTraits<Key>::kIsFloating)
          continue;
        SCOPED_TRACE(case_label(n, to_string(distribution), seed) +
                     " begin_bit=" + std::to_string(options.begin_bit) +
                     " end_bit=" + std::to_string(options.end_bit) +
                     " descending=" + std::to_string(options.descending));
        const auto keys = generate_keys<Key>(distribution, n, seed + n);
        expect_sorts_keys<Sorter>(keys, options);
        expect_sorts_pairs<Sorter>(keys, options);
        if (::testing::Test::HasFailure()) return;
      }
}

/// Caller errors throw sortlab::Error: in-place, bad bit range, too many items, small scratch.
TYPED_TEST_P(DeviceSortSuite, RejectsBadArguments) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  DeviceBuffer<Key> keys(16);
  std::size_t temp_bytes = 0;
  // in-place, bad bit ranges, too many items and too little scratch are caller errors
  EXPECT_THROW(Sorter::template sort_keys<Key>(nullptr, temp_bytes, keys.data(), keys.data(), 16,
                                               SortOptions{}, nullptr),
               Error);
  EXPECT_THROW(Sorter::template sort_keys<Key>(nullptr, temp_bytes, keys.data(), keys.data() + 8, 8,
                                               SortOptions{0, 99, false}, nullptr),
               Error);
  EXPECT_THROW(Sorter::template sort_keys<Key>(nullptr, temp_bytes, keys.data(), keys.data() + 8,
                                               kMaxSortItems + 1, SortOptions{}, nullptr),
               Error);
  Sorter::template sort_keys<Key>(nullptr, temp_bytes, keys.data(), keys.data() + 8, 8,
                                  SortOptions{}, nullptr);
  if (temp_bytes > 0) {
    DeviceBuffer<unsigned char> small(temp_bytes);
    std::size_t too_few = temp_bytes - 1;
    EXPECT_THROW(Sorter::template sort_keys<Key>(small.data(), too_few, keys.data(),
                                                 keys.data() + 8, 8, SortOptions{}, nullptr),
                 Error);
  }
}

/// Registers every test of the suite.
REGISTER_TYPED_TEST_SUITE_P(DeviceSortSuite, KeysAllDistributionsSmallSizes, KeysLargeSizes,
                            PairsAreStableSmallSizes, PairsAreStableLargeSizes,
                            DescendingAndBitRanges, RejectsBadArguments);

}  // namespace sortlab::testing
