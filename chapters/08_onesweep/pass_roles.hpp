/// \file
/// \brief Which passes of a sort run, and which arrays each one reads and writes, decided on the
/// GPU from the histograms: a pass whose digit is the same for every key is skipped.
///
/// The histogram kernel has counted every digit place before the first pass starts. If one digit
/// of place p holds all n keys, pass p would move every key to where it already is: it is
/// skipped (low-entropy keys, such as u32 keys below 2^16, skip their upper passes). The host
/// cannot know this without waiting for the GPU, so it queues every pass, and each pass's blocks
/// read the scan kernel's *running mask* (bit p set: pass p runs) and return at once when their
/// pass does not run.
///
/// The passes that do run still ping-pong between the caller's output and the scratch copy, so
/// that the last of them writes the output: with m running passes, the i-th (0-based) reads the
/// input when i = 0 and otherwise what the one before it wrote, and writes the output when
/// m - 1 - i is even, the scratch copy when it is odd. When no pass runs (every key equal in the
/// sorted bits), pass 0 copies the input to the output instead.
#pragma once

#include <cstdint>

#include "common/key_traits.hpp"  // SORTLAB_HOST_DEVICE

namespace sortlab::stage08 {

/// One of the three arrays (of keys, and of values) a sort touches.
enum class SortArray : std::uint32_t {
  kInput,      ///< the caller's input (never written)
  kOutput,     ///< the caller's output
  kAlternate,  ///< the scratch copy
};

/// What one pass does.
struct PassRole {
  bool runs = true;                       ///< false: skipped (or, when nothing runs, a copy)
  bool copies = false;                    ///< no pass runs and this is pass 0: copy in to out
  SortArray source = SortArray::kInput;   ///< what the pass reads
  SortArray target = SortArray::kOutput;  ///< what the pass writes
};

/// Set bits of \p word: one POPC instruction on the GPU (every thread of a pass evaluates its
/// role, so a 32-step loop here cost the kernel over 10% on the H100).
/// \param word any 32-bit word
SORTLAB_HOST_DEVICE inline int count_set_bits(std::uint32_t word) {
#ifdef __CUDA_ARCH__
  return __popc(word);
#else
  return __builtin_popcount(word);
#endif
}

/// The role of pass \p pass given the running mask \p running (bit p set: pass p runs).
/// \param running the scan kernel's running mask
/// \param pass pass index (digit place), 0 to 31
SORTLAB_HOST_DEVICE inline PassRole pass_role(std::uint32_t running, int pass) {
  PassRole role;
  if (running == 0) {  // every place trivial: the sorted output is the input
    role.runs = false;
    role.copies = pass == 0;
    return role;
  }
  if (((running >> pass) & 1u) == 0) {
    role.runs = false;
    return role;
  }
  // Running passes in all, and before this one.
  const int count = count_set_bits(running);
  const int index = count_set_bits(running & ((1u << pass) - 1u));
  // Running pass i writes the output when count - 1 - i is even: the last one always does.
  role.source = index == 0                 ? SortArray::kInput
                : (count - index) % 2 == 0 ? SortArray::kOutput
                                           : SortArray::kAlternate;
  role.target = (count - 1 - index) % 2 == 0 ? SortArray::kOutput : SortArray::kAlternate;
  return role;
}

}  // namespace sortlab::stage08
