/// \file
/// \brief Verifiers: is the output sorted, a permutation of the input and (for pairs) stable?
/// Each failure names the first wrong index, so a broken sort points at its own bug.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "common/key_traits.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"

namespace sortlab {

/// Outcome of a verification; converts to true when the output is right.
struct VerifyResult {
  bool ok = true;                   ///< true when every check passed
  std::size_t first_bad_index = 0;  ///< first output index that is wrong (when !ok)
  std::string message;              ///< what is wrong, in words (when !ok)
  /// True when the output is right.
  explicit operator bool() const noexcept { return ok; }
};

namespace detail {
/// The raw bits of \p key as "0x...", for messages.
template <typename Key>
std::string hex_bits(Key key) {
  std::ostringstream out;
  out << "0x" << std::hex << static_cast<std::uint64_t>(KeyTraits<Key>::raw_bits(key));
  return out.str();
}

/// A value for a failure message: its number for arithmetic types, its bytes in hex ("0x" then
/// byte 0 first) for others (a 16-byte struct).
template <typename Value>
std::string value_text(const Value& value) {
  std::ostringstream out;
  if constexpr (std::is_arithmetic_v<Value>) {
    out << +value;
  } else {
    unsigned char bytes[sizeof(Value)];
    std::memcpy(bytes, &value, sizeof(Value));
    out << "0x" << std::hex;
    for (unsigned char byte : bytes) out << (byte < 16 ? "0" : "") << +byte;
  }
  return out.str();
}

/// Whether two values are the same: == for arithmetic types, the same bytes for others (a sort
/// only moves values, so every byte must arrive).
template <typename Value>
bool same_value(const Value& a, const Value& b) {
  if constexpr (std::is_arithmetic_v<Value>)
    return a == b;
  else
    return std::memcmp(&a, &b, sizeof(Value)) == 0;
}

/// A key for a failure message: its value and its raw bits, "12 (bits 0xc)", so a student sees
/// the number they sorted and the bits a radix pass reads. Types without a host operator<<
/// (__half, __nv_bfloat16) show their bits only.
template <typename Key>
std::string key_text(Key key) {
  if constexpr (std::is_arithmetic_v<Key>) {
    std::ostringstream out;
    out << +key << " (bits " << hex_bits(key) << ')';
    return out.str();
  } else {
    return hex_bits(key);
  }
}

/// A failed VerifyResult at \p index with \p message.
inline VerifyResult failure(std::size_t index, const std::string& message) {
  return VerifyResult{false, index, message};
}

/// First output position holding a key the input does not have that many times.
template <typename Key>
VerifyResult first_non_permutation(const std::vector<Key>& input, const std::vector<Key>& output) {
  std::unordered_map<std::uint64_t, std::int64_t> remaining;
  for (const Key& key : input) ++remaining[KeyTraits<Key>::raw_bits(key)];
  for (std::size_t i = 0; i < output.size(); ++i) {
    auto& count = remaining[KeyTraits<Key>::raw_bits(output[i])];
    if (--count < 0)
      return failure(i, "output is not a permutation of the input: key " + key_text(output[i]) +
                            " at index " + std::to_string(i) +
                            " occurs more often than in the input");
  }
  return failure(0, "output is not a permutation of the input");
}
}  // namespace detail

/// Checks that \p output is \p input sorted by \p options: same size, every neighbour pair in
/// order, and the same multiset of key bit patterns.
template <typename Key>
VerifyResult verify_sorted_keys(const std::vector<Key>& input, const std::vector<Key>& output,
                                const SortOptions& options = {}) {
  if (input.size() != output.size())
    return detail::failure(0, "output has " + std::to_string(output.size()) + " keys, input " +
                                  std::to_string(input.size()));
  for (std::size_t i = 1; i < output.size(); ++i) {
    if (sort_bits(output[i - 1], options) > sort_bits(output[i], options))
      return detail::failure(
          i, "not sorted at index " + std::to_string(i) + ": " + detail::key_text(output[i - 1]) +
                 " at index " + std::to_string(i - 1) + " before " + detail::key_text(output[i]));
  }
  using Bits = typename KeyTraits<Key>::Bits;
  std::vector<Bits> in_bits(input.size()), out_bits(output.size());
  for (std::size_t i = 0; i < input.size(); ++i) {
    in_bits[i] = KeyTraits<Key>::raw_bits(input[i]);
    out_bits[i] = KeyTraits<Key>::raw_bits(output[i]);
  }
  std::sort(in_bits.begin(), in_bits.end());
  std::sort(out_bits.begin(), out_bits.end());
  if (in_bits != out_bits) return detail::first_non_permutation(input, output);
  return {};
}

/// verify_sorted_keys() plus stability: keys with equal sort bits but different bit patterns
/// (-0.0 and +0.0; keys that differ only outside [begin_bit, end_bit)) keep their input order.
/// Every sortlab sort is stable, so the output must equal the stable reference bit for bit.
/// \param input keys before sorting
/// \param output keys after sorting
/// \param options the bit range and direction the sort used
template <typename Key>
VerifyResult verify_stably_sorted_keys(const std::vector<Key>& input,
                                       const std::vector<Key>& output,
                                       const SortOptions& options = {}) {
  if (VerifyResult sorted = verify_sorted_keys(input, output, options); !sorted) return sorted;
  const std::vector<Key> expected = reference_sort_keys(input, options);
  for (std::size_t i = 0; i < output.size(); ++i) {
    if (KeyTraits<Key>::raw_bits(output[i]) != KeyTraits<Key>::raw_bits(expected[i]))
      return detail::failure(i, "key at index " + std::to_string(i) + " is " +
                                    detail::key_text(output[i]) + " but the stable order has " +
                                    detail::key_text(expected[i]) +
                                    ": keys with equal sort bits lost their input order");
  }
  return {};
}

/// Checks key-value output against the stable reference: sorted, a permutation of the input pairs,
/// and equal keys in input order. With values from iota_values() a value names its input position.
template <typename Key, typename Value>
VerifyResult verify_sorted_pairs(const std::vector<Key>& input_keys,
                                 const std::vector<Value>& input_values,
                                 const std::vector<Key>& output_keys,
                                 const std::vector<Value>& output_values,
                                 const SortOptions& options = {}) {
  if (output_values.size() != output_keys.size() || input_values.size() != input_keys.size())
    return detail::failure(0, "keys and values differ in size");
  if (VerifyResult keys = verify_sorted_keys(input_keys, output_keys, options); !keys) return keys;
  std::vector<Key> expected_keys;
  std::vector<Value> expected_values;
  reference_sort_pairs(input_keys, input_values, expected_keys, expected_values, options);
  for (std::size_t i = 0; i < output_keys.size(); ++i) {
    const bool same_key =
        KeyTraits<Key>::raw_bits(output_keys[i]) == KeyTraits<Key>::raw_bits(expected_keys[i]);
    if (!same_key || !detail::same_value(output_values[i], expected_values[i])) {
      std::ostringstream message;
      message << "pair at index " << i << " is (" << detail::key_text(output_keys[i]) << ", "
              << detail::value_text(output_values[i]) << ") but the stable order has ("
              << detail::key_text(expected_keys[i]) << ", "
              << detail::value_text(expected_values[i])
              << "): values did not travel with their keys, or equal keys lost input order";
      return detail::failure(i, message.str());
    }
  }
  return {};
}

}  // namespace sortlab
