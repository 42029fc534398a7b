/// \file
/// \brief Options every sort in sortlab accepts, and the argument checks they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/memory_ranges.hpp"

namespace sortlab {

/// Largest number of items stages 01-04 accept (2^30): 32-bit offsets suffice below it. A sort
/// with 64-bit offsets passes its own limit to validate_sort_arguments().
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

/// The byte ranges of the arrays one sort call names, for the scratch overlap check.
struct SortArrays {
  MemoryRange keys_in;     ///< the input keys
  MemoryRange keys_out;    ///< the output keys
  MemoryRange values_in;   ///< the input values (empty for a keys-only sort)
  MemoryRange values_out;  ///< the output values (empty for a keys-only sort)
};

/// Checks the arguments of a device sort; throws sortlab::Error with a message naming what is
/// wrong and the value it got. A size query (\p temp_storage null) checks only \p n and the
/// bit range, so `sort_keys(nullptr, bytes, nullptr, nullptr, n)` works as in CUB; a real call
/// also checks the pointers and that no output overlaps another array. Builds no message
/// unless it throws. \p values_in / \p values_out are both null for a keys-only sort.
/// \tparam Key key type
/// \tparam Value value type (its size sets the values' byte ranges)
/// \param temp_storage caller's scratch, or null for a size query
/// \param n number of items
/// \param options sort options (already resolved or not)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values or nullptr
/// \param values_out device output values or nullptr
/// \param max_items the largest n this sort supports
/// \return the arrays' byte ranges, for answer_size_query() (empty ranges for a query)
template <typename Key, typename Value = std::uint32_t>
SortArrays validate_sort_arguments(const void* temp_storage, std::size_t n,
                                   const SortOptions& options, const void* keys_in,
                                   const void* keys_out, const void* values_in = nullptr,
                                   const void* values_out = nullptr,
                                   std::size_t max_items = kMaxSortItems) {
  const SortOptions resolved = resolve<Key>(options);
  const int width = KeyTraits<Key>::kNumBits;
  require(n <= max_items, [&] {
    return "sort: n = " + std::to_string(n) + " exceeds this sort's maximum of " +
           std::to_string(max_items) + " items";
  });
  require(resolved.begin_bit >= 0 && resolved.begin_bit <= resolved.end_bit &&
              resolved.end_bit <= width,
          [&] {
            return "sort: need 0 <= begin_bit <= end_bit <= " + std::to_string(width) +
                   ", got begin_bit = " + std::to_string(resolved.begin_bit) +
                   ", end_bit = " + std::to_string(resolved.end_bit);
          });
  if (temp_storage == nullptr || n == 0) return {};
  require(keys_in != nullptr && keys_out != nullptr, "sort: key pointers must not be null");
  require(keys_in != keys_out, "sort: in-place sorting is not supported (keys_out == keys_in)");
  require((values_in == nullptr) == (values_out == nullptr),
          "sort: give both value pointers or neither");
  if (values_in != nullptr)
    require(values_in != values_out,
            "sort: in-place sorting is not supported (values_out == values_in)");
  const std::size_t value_bytes = values_in != nullptr ? n * sizeof(Value) : 0;
  const SortArrays arrays{{keys_in, n * sizeof(Key), "keys_in"},
                          {keys_out, n * sizeof(Key), "keys_out"},
                          {values_in, value_bytes, "values_in"},
                          {values_out, value_bytes, "values_out"}};
  require_apart("sort", {arrays.keys_out, arrays.values_out}, {arrays.keys_in, arrays.values_in});
  return arrays;
}

/// Checks that the caller's scratch is large enough; throws sortlab::Error otherwise.
/// \param temp_storage caller's scratch pointer
/// \param have bytes the caller passed
/// \param need bytes the sort requires
inline void validate_temp_storage(const void* temp_storage, std::size_t have, std::size_t need) {
  require(need == 0 || temp_storage != nullptr, [&] {
    return "sort: temp_storage is null but the sort needs " + std::to_string(need) + " bytes";
  });
  require(have >= need, [&] {
    return "sort: temp_storage_bytes = " + std::to_string(have) + " but the sort needs " +
           std::to_string(need) + " bytes (query it first with temp_storage = nullptr)";
  });
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

/// answer_size_query() for a sort call, which also rejects scratch that overlaps any of the
/// call's arrays (the bytes the sort uses, [temp_storage, temp_storage + need)).
/// \param temp_storage caller's scratch pointer, or null to ask for the size
/// \param temp_storage_bytes in: bytes the caller passed; out (query only): bytes needed
/// \param need bytes the sort requires
/// \param arrays what validate_sort_arguments() returned
inline bool answer_size_query(const void* temp_storage, std::size_t& temp_storage_bytes,
                              std::size_t need, const SortArrays& arrays) {
  if (answer_size_query(temp_storage, temp_storage_bytes, need)) return true;
  require_apart("sort", {MemoryRange{temp_storage, need, "temp_storage"}},
                {arrays.keys_in, arrays.keys_out, arrays.values_in, arrays.values_out});
  return false;
}

/// sort_pairs' own check: a pair sort needs both value pointers (validate_sort_arguments()
/// accepts two null ones, which mean keys only). A size query needs none. Throws
/// sortlab::Error.
/// \param temp_storage caller's scratch, or null for a size query
/// \param n number of items (nothing is needed for 0)
/// \param values_in device input values
/// \param values_out device output values
inline void require_value_pointers(const void* temp_storage, std::size_t n, const void* values_in,
                                   const void* values_out) {
  require(temp_storage == nullptr || n == 0 || (values_in != nullptr && values_out != nullptr),
          "sort_pairs: value pointers must not be null");
}

}  // namespace sortlab
