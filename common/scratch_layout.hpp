/// \file
/// \brief ScratchLayout: carve one caller-owned scratch allocation into aligned typed arrays.
///
/// sortlab's device sorts follow CUB's temp-storage convention: call once with a null scratch
/// pointer to learn the size, allocate, call again to sort. Each sort describes its scratch as a
/// list of arrays with a ScratchLayout, so the query and the run can never disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sortlab {

/// A list of arrays placed one after another in a single scratch allocation.
class ScratchLayout {
 public:
  /// Every array starts on this boundary (enough for any vector load).
  static constexpr std::size_t kAlignment = 256;

  /// Adds an array of \p count elements of T; returns its slot number for get().
  template <typename T>
  std::size_t add(std::size_t count) {
    offsets_.push_back(total_);
    total_ += round_up(count * sizeof(T));
    return offsets_.size() - 1;
  }

  /// Total bytes the scratch must have.
  std::size_t total_bytes() const noexcept { return total_; }

  /// The array in \p slot, inside the scratch that starts at \p base.
  template <typename T>
  T* get(void* base, std::size_t slot) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offsets_.at(slot));
  }

 private:
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  std::vector<std::size_t> offsets_;
  std::size_t total_ = 0;
};

}  // namespace sortlab
