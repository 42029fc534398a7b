/// \file
/// \brief Options every sort in sortlab accepts, and the argument checks they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "common/key_traits.hpp"

namespace sortlab {

/// Largest number of items a sortlab sort accepts (2^30); 32-bit offsets suffice below it.
inline constexpr std::size_t kMaxSortItems = std::size_t{1} << 30;

/// Marker for "up to the key's last bit" in SortOptions::end_bit.
inline constexpr int kAllBits = -1;

/// What to sort by and in which direction (CUB's begin_bit/end_bit convention).
struct SortOptions {
  int begin_bit = 0;        ///< first bit of the ordered key to sort by
  int end_bit = kAllBits;   ///< one past the last bit; kAllBits means the key's width
  bool descending = false;  ///< largest first (still stable)
};

/// SortOptions with kAllBits resolved to the width of Key.
template <typename Key>
SortOptions resolve(SortOptions options) {
  if (options.end_bit == kAllBits) options.end_bit = KeyTraits<Key>::kNumBits;
  return options;
}

/// Checks the arguments of a device sort; throws sortlab::Error with a message naming what is
/// wrong. \p values_in / \p values_out may be null for a keys-only sort.
/// \param n number of items
/// \param options sort options (already resolved or not)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values or nullptr
/// \param values_out device output values or nullptr
template <typename Key>
void validate_sort_arguments(std::size_t n, const SortOptions& options, const void* keys_in,
                             const void* keys_out, const void* values_in = nullptr,
                             const void* values_out = nullptr) {
  const SortOptions resolved = resolve<Key>(options);
  const int width = KeyTraits<Key>::kNumBits;
  require(n <= kMaxSortItems,
          "sort: n = " + std::to_string(n) + " exceeds the supported maximum of 2^30 items");
  require(resolved.begin_bit >= 0 && resolved.begin_bit <= resolved.end_bit &&
              resolved.end_bit <= width,
          "sort: need 0 <= begin_bit <= end_bit <= " + std::to_string(width) +
              ", got begin_bit = " + std::to_string(resolved.begin_bit) +
              ", end_bit = " + std::to_string(resolved.end_bit));
  if (n == 0) return;
  require(keys_in != nullptr && keys_out != nullptr, "sort: key pointers must not be null");
  require(keys_in != keys_out, "sort: in-place sorting is not supported (keys_out == keys_in)");
  require((values_in == nullptr) == (values_out == nullptr),
          "sort: give both value pointers or neither");
  if (values_in != nullptr)
    require(values_in != values_out,
            "sort: in-place sorting is not supported (values_out == values_in)");
}

/// Checks that the caller's scratch is large enough; throws sortlab::Error otherwise.
/// \param temp_storage caller's scratch pointer
/// \param have bytes the caller passed
/// \param need bytes the sort requires
inline void validate_temp_storage(const void* temp_storage, std::size_t have, std::size_t need) {
  require(need == 0 || temp_storage != nullptr,
          "sort: temp_storage is null but the sort needs " + std::to_string(need) + " bytes");
  require(have >= need, "sort: temp_storage_bytes = " + std::to_string(have) +
                            " but the sort needs " + std::to_string(need) +
                            " bytes (query it first with temp_storage = nullptr)");
}

/// CUB's temp-storage convention, once for every stage: a call with a null \p temp_storage is a
/// size query, which stores \p need in \p temp_storage_bytes and returns true (the caller then
/// returns at once); any other call checks the scratch with validate_temp_storage() and returns
/// false (the caller goes on to sort).
/// \param temp_storage caller's scratch pointer, or null to ask for the size
/// \param temp_storage_bytes in: bytes the caller passed; out (query only): bytes needed
/// \param need bytes the sort requires
inline bool answer_size_query(const void* temp_storage, std::size_t& temp_storage_bytes,
                              std::size_t need) {
  if (temp_storage == nullptr) {
    temp_storage_bytes = need;
    return true;
  }
  validate_temp_storage(temp_storage, temp_storage_bytes, need);
  return false;
}

/// sort_pairs' own check: a pair sort needs both value pointers (validate_sort_arguments()
/// accepts two null ones, which mean keys only). Throws sortlab::Error.
/// \param n number of items (nothing is needed for 0)
/// \param values_in device input values
/// \param values_out device output values
inline void require_value_pointers(std::size_t n, const void* values_in, const void* values_out) {
  require(n == 0 || (values_in != nullptr && values_out != nullptr),
          "sort_pairs: value pointers must not be null");
}

}  // namespace sortlab
