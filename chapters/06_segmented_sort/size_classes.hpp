/// \file
/// \brief Stage 06's segment size classes and their thresholds, all in one place.
///
/// One algorithm cannot serve a million segments of 8 keys and eight segments of a million keys,
/// so every segment is put in a *size class*, and each class has a kernel shaped for it:
///
/// | class  | segment size (4-byte keys)  | who sorts one segment                         |
/// |--------|-----------------------------|-----------------------------------------------|
/// | small  | 1 .. 32                     | one warp: a bitonic network, one key per lane  |
/// | medium | 33 .. 4096 (one block tile) | one block: stage 05's BlockRadixSort           |
/// | large  | 4097 ..                     | one block: radix passes through global scratch |
///
/// Empty segments (and segments whose end lies past the input, see classify_segment()) belong to
/// no class: nothing is launched for them. 8-byte keys have a tile of 2048 keys, so their medium
/// class ends at 2048.
///
/// This header is plain C++ with host-device functions: the classify kernel and the CPU model
/// (segmented_model.hpp) call the very same classify_segment().
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/key_traits.hpp"  // SORTLAB_HOST_DEVICE

/// Stage 06: segmented sort by segment size class.
namespace sortlab::stage06 {

/// The classes that have work. Their values index the per-class counters and id lists in the
/// scratch.
enum class SizeClass : std::uint32_t {
  kSmall = 0,   ///< one warp per segment
  kMedium = 1,  ///< one block per segment, one tile
  kLarge = 2,   ///< one block per segment, several tiles per radix pass (the slow path)
  kNone = 3,    ///< empty or invalid: nothing to sort
};

/// Number of classes with work (kSmall, kMedium, kLarge).
inline constexpr int kNumSizeClasses = 3;

// ---- The thresholds and the block shapes they follow from --------------------------------------

/// Largest segment of the small class: one key per lane of one warp. A bitonic network of 32
/// lanes takes 15 compare-exchange steps of one shuffle each; longer segments would need several
/// keys per lane (a later refinement, with finer bins as issue 17 asks).
inline constexpr std::uint32_t kSmallMaxItems = 32;

/// Threads per block of the medium and large kernels (8 warps). The small kernel uses the same
/// block size, one segment per warp.
inline constexpr int kBlockThreads = 256;

/// Warps per block.
inline constexpr int kWarpsPerBlock = kBlockThreads / 32;

/// Digit width of the block radix sort of the medium and large classes, and of the large class's
/// global passes: 2^6 packed 16-bit counters per thread are 33 KiB of shared memory at 256
/// threads, as in stage 05's device sort.
inline constexpr int kBlockRadixBits = 6;

/// Keys per thread of the block sort for a key of \p key_bytes bytes: 16 for keys of up to 4
/// bytes (4096-key tiles), 8 for 8-byte keys (2048 keys: the same 16 KiB of keys per tile, in
/// the same registers), as in stage 05.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int block_keys_per_thread(std::size_t key_bytes) {
  return key_bytes <= 4 ? 16 : 8;
}

/// Keys of one block tile: the largest segment of the medium class.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::uint32_t medium_max_items(std::size_t key_bytes) {
  return static_cast<std::uint32_t>(kBlockThreads * block_keys_per_thread(key_bytes));
}

/// Size of a segment as the sort sees it: end - begin when begin < end <= n, else 0. A segment
/// with end <= begin is empty (CUB's convention). One whose end lies past the input is a caller
/// error that the sort cannot report without a host synchronisation; it is treated as empty so
/// that no kernel reads or writes outside the arrays.
/// \param begin first item of the segment
/// \param end one past its last item
/// \param n number of items in the arrays
SORTLAB_HOST_DEVICE constexpr std::uint32_t segment_size(std::uint32_t begin, std::uint32_t end,
                                                         std::size_t n) {
  return (begin < end && end <= n) ? end - begin : 0u;
}

/// The class of a segment of \p size items, for keys of \p key_bytes bytes.
/// \param size the segment's size (segment_size())
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr SizeClass classify_size(std::uint32_t size, std::size_t key_bytes) {
  if (size == 0) return SizeClass::kNone;
  if (size <= kSmallMaxItems) return SizeClass::kSmall;
  if (size <= medium_max_items(key_bytes)) return SizeClass::kMedium;
  return SizeClass::kLarge;
}

/// The class of the segment [begin, end) of an input of \p n items.
/// \param begin first item of the segment
/// \param end one past its last item
/// \param n number of items in the arrays
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr SizeClass classify_segment(std::uint32_t begin, std::uint32_t end,
                                                         std::size_t n, std::size_t key_bytes) {
  return classify_size(segment_size(begin, end, n), key_bytes);
}

/// Short name of a class ("small", "medium", "large", "none") for messages and traces.
/// \param size_class the class
constexpr const char* to_string(SizeClass size_class) {
  switch (size_class) {
    case SizeClass::kSmall:
      return "small";
    case SizeClass::kMedium:
      return "medium";
    case SizeClass::kLarge:
      return "large";
    default:
      return "none";
  }
}

static_assert(kSmallMaxItems == 32, "the small kernel holds one key per lane of one warp");
static_assert(medium_max_items(4) == 4096 && medium_max_items(8) == 2048,
              "the medium class ends at one block tile");
static_assert(kSmallMaxItems < medium_max_items(8), "the classes must not overlap");

}  // namespace sortlab::stage06
