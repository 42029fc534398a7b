/// \file
/// \brief The bitonic network of the small and warp bins, written as host-device rules so that
/// the kernels and the CPU model run the same steps.
///
/// A network of width N (a power of two: 1 .. 32 for the small bins, 64 .. 256 for the warp
/// bins) sorts N *entries* (sort bits of a key, the key's position in its segment). Positions
/// are all different, so comparing (bits, position) lexicographically is a *total* order, and
/// any correct sorting network then yields the one stable order: equal keys keep their input
/// order although a bitonic network by itself is not stable. Entries past the end of the
/// segment hold (all ones, index), which sorts after every real entry (its position is larger
/// than theirs).
///
/// The network has log2(N) merge phases k = 2, 4, .., N and inside phase k the steps
/// j = k/2, .., 1: log2(N) (log2(N) + 1) / 2 steps (15 for 32 entries). In every step entry x
/// meets entry x ^ j and keeps the smaller or the larger of the two (bitonic_keeps_min()). Where
/// the entries live is the kernels' business: one per lane of a group of N lanes (small bins:
/// partner x ^ j is one shuffle away), or N / 32 per lane of a warp, lane l holding entries
/// l * K .. l * K + K - 1 (warp bins: steps j < K stay in a lane's registers, the others are
/// shuffles with lane l ^ (j / K)). The rule depends on the entry index x alone.
#pragma once

#include <cstdint>

#include "common/key_traits.hpp"

namespace sortlab::stage06 {

/// Entries of the widest one-key-per-lane network: the lanes of one warp.
inline constexpr int kNetworkWidth = 32;

/// Steps of the network for kNetworkWidth entries.
inline constexpr int kNetworkSteps = 15;

/// Steps of a bitonic network of \p width entries (a power of two): log2(w) (log2(w) + 1) / 2.
/// \param width entries, a power of two
constexpr int bitonic_steps(unsigned width) {
  int log = 0;
  while ((1u << log) < width) ++log;
  return log * (log + 1) / 2;
}

/// Whether entry \p entry keeps the smaller of the two entries it meets in step (\p phase,
/// \p step) of the bitonic network. In phase k the entries form runs of k that alternate
/// between ascending (entry & k == 0) and descending; in an ascending run the lower entry of a
/// pair (entry & j == 0) keeps the minimum, in a descending run the maximum. The last phase
/// (k = the width) is one ascending run: the whole network ends ascending.
/// \param entry the entry's index in the network, 0 .. width - 1
/// \param phase k, a power of two from 2 to the width
/// \param step j, a power of two below k
SORTLAB_HOST_DEVICE constexpr bool bitonic_keeps_min(unsigned entry, unsigned phase,
                                                     unsigned step) {
  const bool ascending_run = (entry & phase) == 0u;
  const bool lower_entry = (entry & step) == 0u;
  return ascending_run == lower_entry;
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
