/// \file
/// \brief Warp multi-split: the rank of each lane's key among the keys of its digit, from one
/// ballot per digit bit and one shared-memory atomic per group of equal digits.
///
/// The rank that stage 08's onesweep pass and stage 06's huge pass use (CUB calls its form
/// BlockRadixRankMatch). In one step every lane of a warp holds one key; the lanes whose digits
/// are equal find each other, the highest of them moves the warp's counter of that digit on by
/// the group's size, and every lane's rank is the counter's old value plus the group's lanes
/// below it. Steps taken in key order give a stable rank. Stage 08's README (points 8, 9 and
/// 11) measures it against the match instruction, CUB's atomicOr match and stage 05's packed
/// counters.
#pragma once

#include <cstdint>

namespace sortlab {

/// The lanes of the warp whose digit equals this lane's, as a bit mask: what __match_any_sync
/// returns, built from one ballot per digit bit (each lane keeps the lanes that agree with it on
/// that bit). On the H100 the ballots are much faster than the match instruction, whose long
/// latency stalled every rank step (Nsight Compute: half of all stall samples). Each bit is four
/// instructions of PTX (test the bit, ballot on it, complement the ballot where the bit is clear,
/// AND): written in C++ the same step compiled to more, and the rank is where a sort pass's
/// instructions go. Every lane of the warp must call it.
/// \param digit this lane's digit, below 2^kBits
template <int kBits>
__device__ __forceinline__ std::uint32_t lanes_with_same_digit(std::uint32_t digit) {
  std::uint32_t peers = 0xffffffffu;
#pragma unroll
  for (int bit = 0; bit < kBits; ++bit) {
    std::uint32_t agree;
    asm("{\n\t.reg .pred has_bit;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 has_bit, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, has_bit, 0xffffffff;\n\t"
        "@!has_bit not.b32 %0, %0;\n\t}"
        : "=r"(agree)
        : "r"(digit), "r"(1u << bit));
    peers &= agree;
  }
  return peers;
}

/// One step of the warp multi-split: this lane's rank among the warp's keys of its digit, and the
/// warp's counter of that digit moved on past the lanes of the step that hold it. The counter's
/// value before the step plus the lanes of the same digit below this one: the lanes of a step
/// are ranked in lane order, so steps taken in key order rank stably. Every lane of the warp must
/// call it, the same step at the same time.
/// \param digit this lane's digit, below 2^kBits
/// \param counted false for a lane whose digit has no counter (a past-the-end lane given a digit
///        of its own): its group moves no counter, and its rank means nothing
/// \param warp_digit_counters this warp's counters, one per digit (shared memory; the caller
///        seeds them, e.g. with where the warp's first key of each digit goes)
/// \param lane this thread's lane (threadIdx.x % 32 in a 1-D block)
template <int kBits>
__device__ __forceinline__ std::uint32_t warp_multisplit_rank(std::uint32_t digit, bool counted,
                                                              std::uint32_t* warp_digit_counters,
                                                              std::uint32_t lane) {
  const std::uint32_t peers = lanes_with_same_digit<kBits>(digit);
  const std::uint32_t leader = 31u - __clz(peers);
  std::uint32_t first = 0;
  if (counted && lane == leader)
    first = atomicAdd(warp_digit_counters + digit, static_cast<std::uint32_t>(__popc(peers)));
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  return __shfl_sync(0xffffffffu, first, leader) + __popc(peers & lanes_below);
}

}  // namespace sortlab
