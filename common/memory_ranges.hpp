/// \file
/// \brief MemoryRange and the overlap checks of a sort's arrays and scratch.
///
/// A sort's kernels read their inputs through `__restrict__` pointers and write outputs that
/// later passes read again, so two arrays that share even one byte give undefined results, not
/// an error. The argument checks therefore compare the byte ranges of every array a call
/// names and reject any overlap with a message that names both arrays and their addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>

#include "common/errors.hpp"

namespace sortlab {

/// Bytes [begin, begin + bytes) of device memory, with the argument name for messages.
struct MemoryRange {
  const void* begin = nullptr;  ///< first byte (null for an absent array)
  std::size_t bytes = 0;        ///< length in bytes (0 for an absent or empty array)
  const char* name = "";        ///< the argument's name, e.g. "keys_out"
};

/// Whether \p a and \p b share at least one byte (empty ranges share none).
/// \param a one range
/// \param b the other range
inline bool overlaps(const MemoryRange& a, const MemoryRange& b) {
  if (a.bytes == 0 || b.bytes == 0 || a.begin == nullptr || b.begin == nullptr) return false;
  const std::uintptr_t a_begin = reinterpret_cast<std::uintptr_t>(a.begin);
  const std::uintptr_t b_begin = reinterpret_cast<std::uintptr_t>(b.begin);
  return a_begin < b_begin + b.bytes && b_begin < a_begin + a.bytes;
}

/// "keys_out [0x7f..00, +4096 B)" for messages.
/// \param range the range to describe
inline std::string describe(const MemoryRange& range) {
  std::ostringstream text;
  text << range.name << " [" << range.begin << ", +" << range.bytes << " B)";
  return text.str();
}

/// Throws sortlab::Error when any range in \p written overlaps another range in \p written or
/// any range in \p read. Ranges that are only read may overlap each other (reading twice is
/// harmless). Builds no message unless it throws.
/// \param context prefix of the message, e.g. "sort"
/// \param written ranges the call writes
/// \param read ranges the call only reads
inline void require_apart(const char* context, std::initializer_list<MemoryRange> written,
                          std::initializer_list<MemoryRange> read) {
  for (const MemoryRange* a = written.begin(); a != written.end(); ++a) {
    for (const MemoryRange* b = a + 1; b != written.end(); ++b)
      require(!overlaps(*a, *b), [&] {
        return std::string(context) + ": " + describe(*a) + " overlaps " + describe(*b) +
               "; every output must be a separate allocation or a disjoint part of one";
      });
    for (const MemoryRange& b : read)
      require(!overlaps(*a, b), [&] {
        return std::string(context) + ": " + describe(*a) + " overlaps " + describe(b) +
               " (in-place or partly overlapping sorts are not supported)";
      });
  }
}

}  // namespace sortlab
