/// \file
/// \brief Stage 01 CPU model: the same three steps as the GPU pass, one array each, so a test
/// (or a student) can compare every intermediate array with the kernel's.
#pragma once

#include <cstdint>
#include <vector>

#include "chapters/01_scan_sort/scan_sort.hpp"
#include "common/key_traits.hpp"

namespace sortlab::stage01 {

/// One pass of the 1-bit scan sort on the CPU, written as the textbook states it.
/// \param keys input keys
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit
template <typename Key>
PassTrace<Key> model_pass(const std::vector<Key>& keys, int bit, bool descending = false) {
  const std::size_t n = keys.size();
  PassTrace<Key> trace;
  trace.bits.resize(n);
  trace.ones_before.resize(n);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);
  // lab:begin cpu model_pass
  // lab:task Fill the four arrays of the pass for the n keys: trace.bits[i], the key's bit
  // lab:task (radix_digit(keys[i], bit, 1, descending)); trace.ones_before, the exclusive scan
  // lab:task of the bits; trace.destinations[i], i - ones_before[i] for a 0 and
  // lab:task (n - total ones) + ones_before[i] for a 1; trace.keys_out[destinations[i]] = keys[i].
  // lab:stub static_cast<void>(bit);
  // lab:stub static_cast<void>(descending);
  // Step 1: the bit each key is split on.
  for (std::size_t i = 0; i < n; ++i) trace.bits[i] = radix_digit(keys[i], bit, 1, descending);
  // Step 2: exclusive scan, "how many ones come before me".
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    trace.ones_before[i] = running;
    running += trace.bits[i];
  }
  const std::uint32_t total_ones = running;
  // Step 3: zeros keep their order at the front, ones keep their order after all zeros.
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t index = static_cast<std::uint32_t>(i);
    trace.destinations[i] = trace.bits[i] == 0
                                ? index - trace.ones_before[i]
                                : static_cast<std::uint32_t>(n) - total_ones + trace.ones_before[i];
    trace.keys_out[trace.destinations[i]] = keys[i];
  }
  // lab:end
  return trace;
}

/// The whole sort on the CPU: model_pass for every bit of [begin_bit, end_bit).
/// \param keys input keys
/// \param options bit range and direction
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {}) {
  const SortOptions resolved = resolve<Key>(options);
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; ++bit)
    keys = model_pass(keys, bit, resolved.descending).keys_out;
  return keys;
}

}  // namespace sortlab::stage01
