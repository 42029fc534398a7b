/// \file
/// \brief Keeping a chained kernel's few heavy blocks apart: the shared memory to ask for so
/// that no SM is given more of them than an even spread would give it.
///
/// A kernel launched by launch_chained() (common/chained_launch.cuh) is placed while the kernel
/// before it still runs, one block at a time wherever an SM has room. When it has only a few
/// blocks, each a long chain of latencies (one block per row of a batch, say), the SMs whose
/// earlier blocks finish first take several of them at once, and the SMs that free up later
/// find none left: 64 blocks may run three to an SM on about 22 SMs while 110 SMs idle. A block
/// that asks for more dynamic shared memory than it uses cannot share an SM past the count its
/// bytes allow, so the same launch spreads the blocks as an unchained one would, and keeps the
/// chaining's hidden launch latency. Stage 07's one-block finish of sampled rows uses it.
///
/// Where launches are not chained (builds that list an architecture before sm_90), the padding
/// buys nothing and costs only the L1 it takes from the blocks. It counts on every SM of the
/// device being available: where a process gets fewer (MPS with an SM limit, green contexts),
/// blocks kept to one an SM may need a second wave.
#pragma once

#include <cstddef>

namespace sortlab {

/// Where a kernel's blocks are placed by shared memory: the SM's bytes and each block's bytes
/// beyond its dynamic ones.
struct SharedMemoryLimits {
  std::size_t per_sm;              ///< shared memory of one SM (228 KiB on an H100)
  std::size_t per_block_optin;     ///< the most one block may ask for (227 KiB on an H100)
  std::size_t per_block_overhead;  ///< static shared memory plus the system's reserve (1 KiB)
};

/// Granularity of the spread sizes spread_shared_bytes() returns (bytes): the SMs' unit of
/// shared memory allocation since Volta, so a size rounded to it is what a block is given.
inline constexpr std::size_t kSpreadSharedGranule = 128;

/// The dynamic shared memory to launch \p blocks blocks with, each needing \p needed_bytes, so
/// that no SM of \p sms can hold more than ceil(blocks / sms) of them at once: \p needed_bytes
/// when shared memory already keeps that many from fitting (or the blocks are more than the
/// SMs hold anyway), otherwise the smallest multiple of kSpreadSharedGranule at which one block
/// more no longer fits. Never below \p needed_bytes, never above `per_block_optin`. Other
/// limits (registers, threads) only lower the count further.
/// \param needed_bytes dynamic shared memory the kernel uses per block
/// \param blocks blocks of the launch
/// \param sms SMs of the device
/// \param limits the device's shared memory
constexpr std::size_t spread_shared_bytes(std::size_t needed_bytes, std::size_t blocks,
                                          std::size_t sms, const SharedMemoryLimits& limits) {
  if (blocks == 0 || sms == 0) return needed_bytes;
  const std::size_t per_sm_wanted = (blocks + sms - 1) / sms;
  // The smallest block footprint at which per_sm_wanted + 1 blocks exceed the SM.
  const std::size_t crowded_footprint = limits.per_sm / (per_sm_wanted + 1) + 1;
  if (needed_bytes + limits.per_block_overhead >= crowded_footprint) return needed_bytes;
  std::size_t bytes = crowded_footprint - limits.per_block_overhead;
  bytes = (bytes + kSpreadSharedGranule - 1) / kSpreadSharedGranule * kSpreadSharedGranule;
  // The wanted count must still fit, and the size must be one a block may ask for.
  if (per_sm_wanted * (bytes + limits.per_block_overhead) > limits.per_sm ||
      bytes > limits.per_block_optin)
    return needed_bytes;
  return bytes;
}

}  // namespace sortlab
