/// \file
/// \brief ScratchLayout: carve one caller-owned scratch allocation into aligned typed arrays.
///
/// sortlab's device sorts follow CUB's temp-storage convention: call once with a null scratch
/// pointer to learn the size, allocate, call again to sort. Each sort describes its scratch as a
/// list of arrays with a ScratchLayout, so the query and the run can never disagree.
///
/// Callers often sub-allocate the scratch from a larger pool, so its start need not be aligned.
/// Like CUB, the layout asks for `kAlignment - 1` bytes of slack and rounds the caller's pointer
/// up inside them: every array is aligned whatever pointer the caller passes. The layout holds a
/// fixed number of slots and never allocates, so planning a sort costs no heap traffic.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/errors.hpp"

namespace sortlab {

/// A list of arrays placed one after another in a single scratch allocation.
class ScratchLayout {
 public:
  /// Every array starts on this boundary (enough for any vector load).
  static constexpr std::size_t kAlignment = 256;
  /// Most arrays one layout holds (sorts use a handful; the device scan one per level).
  static constexpr std::size_t kMaxArrays = 16;

  /// Adds an array of \p count elements of T; returns its slot number for get().
  /// Throws sortlab::Error past kMaxArrays arrays.
  template <typename T>
  std::size_t add(std::size_t count) {
    require(count_ < kMaxArrays, "ScratchLayout: more than kMaxArrays arrays");
    offsets_[count_] = arrays_bytes_;
    arrays_bytes_ += round_up(count * sizeof(T));
    return count_++;
  }

  /// Total bytes the scratch must have: the arrays plus the slack that lets get() align an
  /// unaligned scratch pointer (0 when every array is empty).
  std::size_t total_bytes() const noexcept {
    return arrays_bytes_ == 0 ? 0 : arrays_bytes_ + kAlignment - 1;
  }

  /// Number of arrays added so far.
  std::size_t size() const noexcept { return count_; }

  /// The array in \p slot, inside the scratch that starts at \p base (any alignment).
  /// Throws std::out_of_range for a slot that was never added.
  template <typename T>
  T* get(void* base, std::size_t slot) const {
    if (slot >= count_) throw std::out_of_range("ScratchLayout::get: no such slot");
    return reinterpret_cast<T*>(aligned_base(base) + offsets_[slot]);
  }

  /// \p base rounded up to kAlignment: where the first array starts.
  static unsigned char* aligned_base(void* base) {
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(base);
    return static_cast<unsigned char*>(base) + (round_up(address) - address);
  }

 private:
  static constexpr std::size_t round_up(std::size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  std::array<std::size_t, kMaxArrays> offsets_{};
  std::size_t count_ = 0;
  std::size_t arrays_bytes_ = 0;
};

}  // namespace sortlab
