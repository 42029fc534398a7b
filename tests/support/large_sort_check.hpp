/// \file
/// \brief One keys and one pairs sort at a sort's largest supported size (2^30 keys for stages
/// 01-04), checked completely but in linear time: the CPU reference sort of 2^30 keys would take
/// minutes, so the check uses what a stable sort's output must satisfy instead.
///
/// - keys only: the output is in order, and it is a permutation of the input (two independent
///   64-bit multiset fingerprints of the raw key bits agree; a lost or duplicated key changes
///   them except with negligible probability);
/// - pairs, with values 0..n-1: the values are a permutation of 0..n-1 (a bitmap), each output
///   key is the input key its value names (so keys and values travelled together), keys are in
///   order, and equal keys have increasing values (stability). Together these say exactly "the
///   stable sort of the input".
///
/// Programs using it carry the ctest label `large` and run only with SORTLAB_RUN_LARGE=1.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"
#include "tests/support/test_inputs.hpp"

namespace sortlab::testing {

/// A 64-bit mixing function (splitmix64's finaliser): distinct inputs give unrelated outputs.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Two order-independent fingerprints of a multiset of keys (sums of two mixes of the raw bits).
template <typename Key>
std::pair<std::uint64_t, std::uint64_t> multiset_fingerprint(const std::vector<Key>& keys) {
  std::uint64_t first = 0, second = 0;
  for (const Key& key : keys) {
    const std::uint64_t bits = KeyTraits<Key>::raw_bits(key);
    first += mix64(bits);
    second += mix64(bits ^ 0x5DEECE66Dull) * 0x2545F4914F6CDD1Dull;
  }
  return {first, second};
}

/// Sorts \p n keys of \p distribution with Sorter's keys-only sort and checks the result.
template <typename Sorter, typename Key>
void expect_large_keys_sort(std::size_t n, Distribution distribution, const SortOptions& options) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(case_label(n, to_string(distribution), seed));
  const std::vector<Key> keys = generate_keys<Key>(distribution, n, seed);
  std::vector<Key> sorted;
  {
    DeviceBuffer<Key> keys_in(keys), keys_out(n);
    keys_out.poison();
    std::size_t temp_bytes = 0;
    Sorter::template sort_keys<Key>(nullptr, temp_bytes, nullptr, nullptr, n, options, nullptr);
    DeviceBuffer<unsigned char> temp(temp_bytes);
    temp.poison();
    Sorter::template sort_keys<Key>(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), n,
                                    options, nullptr);
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    sorted = keys_out.download();
  }
  ASSERT_EQ(sorted.size(), n);
  for (std::size_t i = 1; i < n; ++i)
    ASSERT_LE(sort_bits(sorted[i - 1], options), sort_bits(sorted[i], options))
        << "keys out of order at index " << i;
  EXPECT_EQ(multiset_fingerprint(sorted), multiset_fingerprint(keys))
      << "the output is not a permutation of the input";
}

/// Sorts \p n keys of \p distribution with values 0..n-1 and checks the stable sort exactly.
template <typename Sorter, typename Key>
void expect_large_pairs_sort(std::size_t n, Distribution distribution, const SortOptions& options) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(case_label(n, to_string(distribution), seed));
  ASSERT_LE(n, std::size_t{1} << 32) << "values 0..n-1 must fit in 32 bits";
  const std::vector<Key> keys = generate_keys<Key>(distribution, n, seed);
  std::vector<Key> sorted_keys;
  std::vector<std::uint32_t> sorted_values;
  {
    DeviceBuffer<Key> keys_in(keys), keys_out(n);
    DeviceBuffer<std::uint32_t> values_in(iota_values(n)), values_out(n);
    keys_out.poison();
    values_out.poison();
    std::size_t temp_bytes = 0;
    Sorter::template sort_pairs<Key>(nullptr, temp_bytes, nullptr, nullptr,
                                     static_cast<const std::uint32_t*>(nullptr), nullptr, n,
                                     options, nullptr);
    DeviceBuffer<unsigned char> temp(temp_bytes);
    temp.poison();
    Sorter::template sort_pairs<Key>(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                     values_in.data(), values_out.data(), n, options, nullptr);
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    sorted_keys = keys_out.download();
    sorted_values = values_out.download();
  }
  std::vector<std::uint64_t> seen((n + 63) / 64, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t origin = sorted_values[i];
    ASSERT_LT(origin, n) << "value at index " << i << " is not one of 0..n-1";
    ASSERT_EQ(seen[origin / 64] >> (origin % 64) & 1u, 0u)
        << "value " << origin << " appears twice (second time at index " << i << ")";
    seen[origin / 64] |= std::uint64_t{1} << (origin % 64);
    ASSERT_EQ(KeyTraits<Key>::raw_bits(sorted_keys[i]), KeyTraits<Key>::raw_bits(keys[origin]))
        << "key at index " << i << " is not the input key its value " << origin << " names";
    if (i == 0) continue;
    const auto before = sort_bits(sorted_keys[i - 1], options);
    const auto here = sort_bits(sorted_keys[i], options);
    ASSERT_LE(before, here) << "keys out of order at index " << i;
    if (before == here) {
      ASSERT_LT(sorted_values[i - 1], origin) << "equal keys lost input order at index " << i;
    }
  }
}

}  // namespace sortlab::testing
