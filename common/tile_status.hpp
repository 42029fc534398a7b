/// \file
/// \brief The look-back's status word: one 32-bit word per (tile, digit) that holds a flag in its
/// top 2 bits and a count in its low 30, so that a single load sees both.
///
/// A tile publishes, for every digit, first its *aggregate* (how many of its own keys have that
/// digit) and later its *inclusive prefix* (how many keys with that digit are in it and in every
/// tile before it). A tile looking back reads its predecessors' words. If the flag and the count
/// lived in two words, a reader could see a new flag with an old count (nothing orders two
/// relaxed stores as another SM sees them); in one word, the store is one transaction and the
/// reader sees either the old word or the new one. Stage 08's host model (onesweep_model.hpp) and
/// its kernels (onesweep_kernels.cuh) use these same functions, so the model's records are the
/// words the GPU stores. Stage 06's huge path keeps one status word per (tile of a segment, digit)
/// the same way.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#include <cuda/atomic>
#endif

#include "common/key_traits.hpp"  // SORTLAB_HOST_DEVICE

namespace sortlab {

/// What a tile has published for one digit so far.
enum class TileFlag : std::uint32_t {
  kNotReady = 0,   ///< nothing yet: a reader must wait (spin) on this tile
  kAggregate = 1,  ///< the tile's own count: a reader adds it and looks further back
  kPrefix = 2,     ///< the inclusive prefix: a reader adds it and stops
};

/// Bits of the count in a status word.
inline constexpr int kStatusCountBits = 30;
/// Mask of the count bits.
inline constexpr std::uint32_t kStatusCountMask = (1u << kStatusCountBits) - 1u;

/// The status word holding \p flag and \p count (count < 2^30: see kStatusCountBits).
/// \param flag what is published
/// \param count the aggregate or inclusive prefix
SORTLAB_HOST_DEVICE constexpr std::uint32_t pack_status(TileFlag flag, std::uint32_t count) {
  return static_cast<std::uint32_t>(flag) << kStatusCountBits | (count & kStatusCountMask);
}

/// The flag of status word \p word.
/// \param word a status word
SORTLAB_HOST_DEVICE constexpr TileFlag status_flag(std::uint32_t word) {
  return static_cast<TileFlag>(word >> kStatusCountBits);
}

/// The count of status word \p word.
/// \param word a status word
SORTLAB_HOST_DEVICE constexpr std::uint32_t status_count(std::uint32_t word) {
  return word & kStatusCountMask;
}

/// "not ready", "aggregate" or "prefix": the flag's name, for traces and messages.
/// \param flag a flag
inline const char* to_string(TileFlag flag) {
  switch (flag) {
    case TileFlag::kNotReady:
      return "not ready";
    case TileFlag::kAggregate:
      return "aggregate";
    case TileFlag::kPrefix:
      return "prefix";
  }
  return "invalid";
}

#ifdef __CUDACC__
/// A relaxed, device-scope view of status word \p index of \p words, for the kernels' loads and
/// stores: one 32-bit access, which no other SM can see half done, and which the compiler may not
/// keep in a register while a look-back spins on it.
/// \param words the status words
/// \param index the word
__device__ __forceinline__ cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> status_word(
    std::uint32_t* words, std::size_t index) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[index]);
}
#endif

}  // namespace sortlab
