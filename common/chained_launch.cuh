/// \file
/// \brief Chained launches: a kernel that lets the next kernel of its stream start launching
/// while it runs (Hopper's programmatic dependent launch), so a sort of many short or idle
/// kernels does not pay each one's launch latency in full.
///
/// A stream normally starts a kernel only once the kernel before it has finished, and the gap
/// between the two (the launch of the second one's grid) is a few microseconds. A sort whose
/// size classes are known only on the device queues a kernel for every class, and most of them
/// find nothing to do: on stage 06's 2^26 pairs in segments of 4096 keys, twelve of its
/// fourteen kernels. A kernel launched by launch_chained() may be scheduled as soon as every
/// block of the kernel before it has called chain_to_previous_kernel() (which each block does
/// first), and each of its own blocks then waits in chain_to_previous_kernel() until the kernel
/// before has finished and its writes are visible. The order of the stream's work is the same
/// as without chaining; only the launches overlap.
///
/// The rule that keeps this correct: a kernel launched by launch_chained() calls
/// chain_to_previous_kernel() in every block, before it reads or writes anything that an earlier
/// kernel of the stream writes or reads, and before any block returns (a grid whose blocks all
/// returned early would count as finished while its predecessor still runs, and a kernel after
/// it would stop waiting too soon). A build that lists an architecture below sm_90
/// (SORTLAB_CHAINED_LAUNCHES = 0, set by CMakeLists.txt) launches plainly, and there
/// chain_to_previous_kernel() does nothing: kernels compiled for that architecture have no wait
/// in them, and an H100 can run them (from PTX). A build for sm_90 and newer only has no kernel
/// image for an older GPU, so it never chains on one.
///
/// One pitfall: a chained kernel's blocks are placed while the kernel before it still runs, on
/// whichever SMs free up first and as many to an SM as fit there. A kernel of a few heavy blocks
/// can then crowd onto a few SMs while the rest idle; common/spread_blocks.hpp keeps them apart.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "common/errors.hpp"

#ifndef SORTLAB_CHAINED_LAUNCHES
/// Whether launch_chained() may chain (1) or launches plainly (0): CMakeLists.txt sets it to 1
/// only when every architecture it builds for is sm_90 or newer; without it, plain launches.
#define SORTLAB_CHAINED_LAUNCHES 0
#endif

namespace sortlab {

/// Called first in every block of a kernel launched by launch_chained(): lets the next kernel of
/// the stream begin launching, then waits until the kernel before this one has finished and its
/// memory operations are visible. Does nothing in a kernel launched without chaining, whose
/// predecessor has finished before it starts.
__device__ __forceinline__ void chain_to_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches \p kernel on \p stream so that it may start while the stream's previous kernel is
/// still running (programmatic stream serialization); \p kernel must call
/// chain_to_previous_kernel() first in every block. A launch error surfaces as an exception,
/// as SORTLAB_CHECK_LAUNCH() does for a plain launch. Allowed while the stream is being captured
/// into a CUDA graph (the chaining becomes a programmatic edge of the graph).
/// \param kernel the kernel
/// \param grid blocks
/// \param block threads per block
/// \param shared_bytes dynamic shared memory per block
/// \param stream the stream
/// \param args the kernel's arguments
template <typename... Params, typename... Args>
void launch_chained(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                    cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute chaining[1];
  chaining[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  chaining[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = chaining;
  config.numAttrs = SORTLAB_CHAINED_LAUNCHES ? 1 : 0;
  SORTLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

/// launch_chained() for a kernel whose blocks run in thread-block clusters of \p cluster_blocks
/// (sm_90; the grid a multiple of it): the cluster dimension is a launch attribute, so the
/// cluster size may differ from call to call. Chained like launch_chained(), with the same rule.
/// \param kernel the kernel
/// \param grid blocks (a multiple of \p cluster_blocks)
/// \param block threads per block
/// \param shared_bytes dynamic shared memory per block
/// \param cluster_blocks blocks per cluster
/// \param stream the stream
/// \param args the kernel's arguments
template <typename... Params, typename... Args>
void launch_chained_in_clusters(void (*kernel)(Params...), unsigned grid, unsigned block,
                                std::size_t shared_bytes, unsigned cluster_blocks,
                                cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attributes[2];
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = cluster_blocks;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = 1;
  attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[1].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attributes;
  config.numAttrs = SORTLAB_CHAINED_LAUNCHES ? 2 : 1;
  SORTLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace sortlab
