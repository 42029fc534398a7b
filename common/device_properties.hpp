/// \file
/// \brief Properties of the current CUDA device that launchers size their grids by.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "common/errors.hpp"

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

}  // namespace sortlab
