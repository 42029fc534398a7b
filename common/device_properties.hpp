/// \file
/// \brief Properties of the current CUDA device that launchers size their grids by.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "common/spread_blocks.hpp"

namespace sortlab {

/// The number of multiprocessors (SMs) of the current device, at least 1. A driver query: no
/// synchronisation and no work on any stream, so a sort may ask it on every call, also while
/// its stream is being captured into a CUDA graph.
inline unsigned multiprocessor_count() {
  int device = 0, sms = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(std::max(sms, 1));
}

/// The L2 cache of the current device in bytes (0 if the driver reports none). A driver query,
/// like multiprocessor_count().
inline std::size_t l2_cache_bytes() {
  int device = 0, bytes = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(std::max(bytes, 0));
}

/// The most shared memory one block of the current device may take once its kernel opts in
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on an H100, 64 KiB on sm_75). A driver
/// query, like multiprocessor_count().
inline std::size_t shared_memory_per_block_optin() {
  int device = 0, bytes = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(std::max(bytes, 0));
}

/// Shared memory of one SM of the target GPU (the H100: 228 KiB, of which each block uses 1 KiB
/// for the system): kernels check the blocks per SM that their __launch_bounds__ ask for against
/// it at compile time.
inline constexpr std::size_t kSharedMemoryPerSm = 228 * 1024;

/// Shared memory the runtime keeps of an SM's for every resident block (1 KiB on sm_80 and
/// sm_90): what a kernel's blocks-per-SM arithmetic adds to each block's own bytes.
inline constexpr std::size_t kSharedMemoryReservedPerBlock = 1024;

/// Runs \p set_attribute once per device (the current one), remembered in \p done_devices (bit
/// d: device d is set up): the kernel attributes below are per device and cost a driver call.
/// \param done_devices the caller's record, one per attribute and kernel
/// \param set_attribute sets the attribute on the current device
template <typename SetAttribute>
void once_per_device(std::atomic<std::uint64_t>& done_devices, SetAttribute&& set_attribute) {
  int device = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if (bit != 0 && (done_devices.load(std::memory_order_relaxed) & bit) != 0) return;
  set_attribute();
  done_devices.fetch_or(bit, std::memory_order_relaxed);
}

/// Lets \p kKernel take \p kBytes of dynamic shared memory per block on the current device
/// (cudaFuncAttributeMaxDynamicSharedMemorySize), once per device. Without it a block gets 48
/// KiB of static and dynamic shared memory together; asking even below that keeps a kernel
/// whose static and dynamic parts add up past 48 KiB from failing at launch. A function
/// attribute, not work on a stream: no synchronisation, and allowed while a stream is being
/// captured into a graph. Throws sortlab::Error, saying how much the device allows, when
/// \p kBytes is more than a block of it may take (tiles sized for one architecture's shared
/// memory on a GPU with less).
template <auto kKernel, std::size_t kBytes>
void allow_dynamic_shared_memory() {
  if constexpr (kBytes > 0) {
    static std::atomic<std::uint64_t> done_devices{0};
    once_per_device(done_devices, [] {
      const std::size_t most = shared_memory_per_block_optin();
      require(kBytes <= most, [&] {
        return "a kernel asks for " + std::to_string(kBytes) +
               " bytes of shared memory per block; this GPU gives a block at most " +
               std::to_string(most);
      });
      SORTLAB_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(kBytes)));
    });
  }
}

/// The shared memory limits that place \p kKernel's blocks on the current device's SMs
/// (common/spread_blocks.hpp): the SM's bytes, the most a block may ask for beside the kernel's
/// static shared memory, and that static memory plus the system's reserve per block. Driver
/// queries, like multiprocessor_count(); the kernel's static bytes are asked once per process,
/// which assumes every device runs the same architecture's image of it.
/// \tparam kKernel the kernel (a __global__ function)
/// \return the current device's limits for \p kKernel
template <auto kKernel>
SharedMemoryLimits shared_memory_limits() {
  static const std::size_t static_bytes = [] {
    cudaFuncAttributes attributes{};
    SORTLAB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kKernel));
    return attributes.sharedSizeBytes;
  }();
  int device = 0, per_sm = 0, reserved = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  SORTLAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  SORTLAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  const std::size_t optin = shared_memory_per_block_optin();
  SharedMemoryLimits limits{};
  limits.per_sm = static_cast<std::size_t>(std::max(per_sm, 0));
  limits.per_block_optin = optin > static_bytes ? optin - static_bytes : 0;
  limits.per_block_overhead = static_bytes + static_cast<std::size_t>(std::max(reserved, 0));
  return limits;
}

/// Lets \p kKernel take any dynamic shared memory up to \p bytes per block on the current
/// device, for a kernel whose launches ask for different sizes (spread_shared_bytes()): sets
/// cudaFuncAttributeMaxDynamicSharedMemorySize once per device, to the most the device allows
/// beside the kernel's static shared memory (\p limits, from shared_memory_limits()), and
/// checks \p bytes against it. A function attribute, like allow_dynamic_shared_memory().
/// \tparam kKernel the kernel (a __global__ function)
/// \param bytes dynamic shared memory the coming launch asks for
/// \param limits shared_memory_limits<kKernel>() of the current device
template <auto kKernel>
void allow_dynamic_shared_memory_up_to(std::size_t bytes, const SharedMemoryLimits& limits) {
  require(bytes <= limits.per_block_optin, [&] {
    return "a launch asks for " + std::to_string(bytes) +
           " bytes of dynamic shared memory per block; this device allows " +
           std::to_string(limits.per_block_optin);
  });
  static std::atomic<std::uint64_t> done_devices{0};
  once_per_device(done_devices, [&] {
    SORTLAB_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(limits.per_block_optin)));
  });
}

/// Lets \p kKernel run in thread-block clusters of more than 8 blocks (up to 16 on an H100;
/// cudaFuncAttributeNonPortableClusterSizeAllowed), once per device. A function attribute, like
/// allow_dynamic_shared_memory().
template <auto kKernel>
void allow_non_portable_clusters() {
  static std::atomic<std::uint64_t> done_devices{0};
  once_per_device(done_devices, [] {
    SORTLAB_CUDA_CHECK(
        cudaFuncSetAttribute(kKernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  });
}

}  // namespace sortlab
