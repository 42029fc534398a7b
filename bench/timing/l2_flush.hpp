/// \file
/// \brief L2Flusher: evicts the GPU's L2 cache before each timing sample by reading a buffer
/// larger than it, so no sample starts with its inputs (or the previous sample's outputs) cached,
/// and none starts with dirty lines whose write-back it would be charged for.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "bench/timing/timing_mode.hpp"
#include "common/device_buffer.hpp"

namespace sortlab::bench::timing {

/// The current device's L2 cache size in bytes (cudaDevAttrL2CacheSize).
std::size_t device_l2_bytes();

/// Owns a device buffer of l2_flush_bytes() and reads (or writes) all of it on demand.
class L2Flusher {
 public:
  /// Allocates the flush buffer for an L2 of \p l2_bytes and writes it once (so a read flush
  /// reads defined bytes).
  /// \param l2_bytes the GPU's L2 size (device_l2_bytes())
  explicit L2Flusher(std::size_t l2_bytes);

  /// Queues a flush of the whole buffer on \p stream: a kernel reading every 16-byte word
  /// (FlushMethod::kRead), or a write (FlushMethod::kWrite; the byte value changes every call
  /// so no layer can skip an unchanged write). Queue it before the timed region.
  /// \param stream the stream the timed work runs on
  /// \param method read (default) or write
  void flush(cudaStream_t stream, FlushMethod method = FlushMethod::kRead);

  /// Size of the flush buffer in bytes.
  std::size_t bytes() const { return buffer_.size(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
  DeviceBuffer<unsigned> sink_;  ///< written by the read kernel only on an impossible fold
  unsigned read_blocks_ = 0;     ///< the read kernel's grid: enough blocks to fill every SM
  int fill_value_ = 0;
};

}  // namespace sortlab::bench::timing
