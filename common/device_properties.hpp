/// \file
/// \brief Properties of the current CUDA device that launchers size their grids by.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>

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

}  // namespace sortlab
