/// \file
/// \brief The digit a pass trace is asked for (stages 05 and 08's trace_pass), checked in one
/// place: inside the key, and no wider than the stage's digit.
#pragma once

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "common/key_traits.hpp"

namespace sortlab {

/// Checks the digit of a traced pass of keys of type \p Key: \p first_bit inside the key and
/// \p num_bits from 1 to \p max_bits (the stage's digit width); throws sortlab::Error naming
/// trace_pass and the bad value otherwise. Returns \p num_bits cut to the key's last bit, the
/// width the pass really sorts.
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width asked for
/// \param max_bits widest digit of the stage
template <typename Key>
int checked_trace_digit_bits(int first_bit, int num_bits, int max_bits) {
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits, [&] {
    return "trace_pass: first_bit = " + std::to_string(first_bit) + " is outside [0, " +
           std::to_string(KeyTraits<Key>::kNumBits) + ")";
  });
  require(num_bits >= 1 && num_bits <= max_bits, [&] {
    return "trace_pass: num_bits = " + std::to_string(num_bits) + " is outside 1.." +
           std::to_string(max_bits);
  });
  return std::min(num_bits, KeyTraits<Key>::kNumBits - first_bit);
}

}  // namespace sortlab
