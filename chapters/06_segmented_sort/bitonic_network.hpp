/// \file
/// \brief The small class's sorting network: a bitonic sort of 32 entries, one per lane of a
/// warp, written as host-device rules so that the kernel and the CPU model run the same steps.
///
/// An entry is (sort bits of the key, the key's position in its segment). Positions are all
/// different, so comparing (bits, position) lexicographically is a *total* order, and any
/// correct sorting network then yields the one stable order: equal keys keep their input order
/// although a bitonic network by itself is not stable. Lanes past the end of the segment hold
/// (all ones, lane), which sorts after every real entry (its position is larger than theirs).
///
/// The network for 32 lanes has log2(32) = 5 merge phases k = 2, 4, 8, 16, 32 and inside phase k
/// the steps j = k/2, ..., 1: 1 + 2 + 3 + 4 + 5 = 15 steps. In every step lane l exchanges with
/// lane l ^ j (one shuffle) and keeps the smaller or the larger entry (bitonic_keeps_min()).
#pragma once

#include <cstdint>

#include "common/key_traits.hpp"

namespace sortlab::stage06 {

/// Entries of the network: the lanes of one warp.
inline constexpr int kNetworkWidth = 32;

/// Steps of the network for kNetworkWidth lanes.
inline constexpr int kNetworkSteps = 15;

/// Whether lane \p lane keeps the smaller of the two entries in step (\p phase, \p step) of the
/// bitonic network. In phase k the lanes form runs of k entries that alternate between ascending
/// (lane & k == 0) and descending; in an ascending run the lower lane of a pair (lane & j == 0)
/// keeps the minimum, in a descending run the maximum. The last phase (k = 32) is one ascending
/// run: the whole warp ends ascending.
/// \param lane the lane, 0..31
/// \param phase k, a power of two from 2 to 32
/// \param step j, a power of two below k
SORTLAB_HOST_DEVICE constexpr bool bitonic_keeps_min(unsigned lane, unsigned phase, unsigned step) {
  const bool ascending_run = (lane & phase) == 0u;
  const bool lower_lane = (lane & step) == 0u;
  return ascending_run == lower_lane;
}

/// (bits, position) before (other_bits, other_position): the network's total order.
/// \param bits sort bits of one entry
/// \param position its position in the segment
/// \param other_bits sort bits of the other entry
/// \param other_position its position
template <typename Bits>
SORTLAB_HOST_DEVICE constexpr bool entry_before(Bits bits, std::uint32_t position, Bits other_bits,
                                                std::uint32_t other_position) {
  return bits < other_bits || (bits == other_bits && position < other_position);
}

/// What a key sorts by in the network: bits [begin_bit, begin_bit + num_bits) of its ordered bits
/// (complemented for a descending sort), exactly as common/reference.hpp's sort_bits(), in the
/// key's own width.
/// \param key the key
/// \param begin_bit first bit of the ordered key to sort by
/// \param num_bits bits to sort by (0 .. key bits)
/// \param descending largest first
template <typename Key>
SORTLAB_HOST_DEVICE typename KeyTraits<Key>::Bits network_sort_bits(Key key, int begin_bit,
                                                                    int num_bits, bool descending) {
  using Bits = typename KeyTraits<Key>::Bits;
  if (num_bits <= 0) return Bits{0};
  const Bits shifted = static_cast<Bits>(KeyTraits<Key>::to_ordered(key, descending) >> begin_bit);
  if (num_bits >= KeyTraits<Key>::kNumBits) return shifted;
  return static_cast<Bits>(shifted & static_cast<Bits>((Bits{1} << num_bits) - 1u));
}

}  // namespace sortlab::stage06
