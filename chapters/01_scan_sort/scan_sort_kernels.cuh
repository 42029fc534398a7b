/// \file
/// \brief Stage 01 kernels: step 1 (bits) and step 3 (scatter) of one pass. Step 2, the scan,
/// is common/device_scan (a hierarchical scan in separate launches, so it is correct for any n).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/key_traits.hpp"

namespace sortlab::stage01 {

/// Step 1: one thread per key writes the key's bit \p bit (of its ordered bits) to \p bits.
template <typename Key>
__global__ void extract_bit_kernel(const Key* keys, std::uint32_t* bits, std::size_t n, int bit,
                                   bool descending) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // lab:begin gpu extract_bit
  // lab:task Thread i (of n) writes the bit `bit` of keys[i] to bits[i] (radix_digit, as in the
  // lab:task CPU model).
  if (i < n) bits[i] = radix_digit(keys[i], bit, 1, descending);
  // lab:end
}

/// Step 3: one thread per key moves it to its destination (the textbook's formulas).
/// total_ones is read from the device (last "ones before" plus last bit) so the host never waits.
/// \p destinations may be null; `trace_pass` passes an array to record them.
template <typename Key, bool kHasValues>
__global__ void scatter_by_bit_kernel(const Key* keys_in, Key* keys_out,
                                      const std::uint32_t* values_in, std::uint32_t* values_out,
                                      const std::uint32_t* bits, const std::uint32_t* ones_before,
                                      std::size_t n, std::uint32_t* destinations) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // lab:begin gpu scatter_by_bit
  // lab:task Write keys_in[i] (and values_in[i] when kHasValues) to its destination: the
  // lab:task textbook's two formulas, with total_ones = ones_before[n - 1] + bits[n - 1] read on
  // lab:task the device. Record the destination in destinations[i] when that array is not null.
  const std::uint32_t total_ones = ones_before[n - 1] + bits[n - 1];
  const std::uint32_t index = static_cast<std::uint32_t>(i);
  const std::uint32_t destination =
      bits[i] == 0 ? index - ones_before[i]
                   : static_cast<std::uint32_t>(n) - total_ones + ones_before[i];
  keys_out[destination] = keys_in[i];
  if constexpr (kHasValues) values_out[destination] = values_in[i];
  if (destinations != nullptr) destinations[i] = destination;
  // lab:end
}

}  // namespace sortlab::stage01
