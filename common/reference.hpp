/// \file
/// \brief CPU reference sorts: std::stable_sort on the ordered key bits. Every GPU result in the
/// test suite is compared against these.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

namespace sortlab {

/// The part of \p key a sort with \p options orders by: bits [begin_bit, end_bit) of the ordered
/// bits, complemented for descending order. Keys with equal sort bits are "equal" and a stable
/// sort keeps them in input order.
template <typename Key>
std::uint64_t sort_bits(Key key, const SortOptions& options) {
  // Not radix_digit(): it returns 32 bits, which would drop the high half of 64-bit keys.
  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  if (num_bits <= 0) return 0;
  const std::uint64_t ordered = KeyTraits<Key>::to_ordered(key, resolved.descending);
  const std::uint64_t shifted = ordered >> resolved.begin_bit;
  return num_bits >= 64 ? shifted : shifted & ((std::uint64_t{1} << num_bits) - 1);
}

/// The input positions in stable sorted order.
template <typename Key>
std::vector<std::size_t> reference_sorted_order(const std::vector<Key>& keys,
                                                const SortOptions& options = {}) {
  std::vector<std::uint64_t> bits(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) bits[i] = sort_bits(keys[i], options);
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&bits](std::size_t a, std::size_t b) { return bits[a] < bits[b]; });
  return order;
}

/// Stable CPU sort of \p keys.
template <typename Key>
std::vector<Key> reference_sort_keys(const std::vector<Key>& keys,
                                     const SortOptions& options = {}) {
  const auto order = reference_sorted_order(keys, options);
  std::vector<Key> sorted(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = keys[order[i]];
  return sorted;
}

/// Stable CPU sort of key-value pairs; writes \p sorted_keys and \p sorted_values.
template <typename Key, typename Value>
void reference_sort_pairs(const std::vector<Key>& keys, const std::vector<Value>& values,
                          std::vector<Key>& sorted_keys, std::vector<Value>& sorted_values,
                          const SortOptions& options = {}) {
  require(keys.size() == values.size(), "reference_sort_pairs: keys and values differ in size");
  const auto order = reference_sorted_order(keys, options);
  sorted_keys.resize(keys.size());
  sorted_values.resize(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    sorted_values[i] = values[order[i]];
  }
}

}  // namespace sortlab
