/// \file
/// \brief A device-wide exclusive sum of 32-bit counts, correct for any n (hierarchical).
///
/// PMPP's chapter 13 listings scan across blocks inside one kernel, which needs a grid-wide
/// barrier that CUDA does not give an ordinary launch. sortlab instead scans in separate
/// launches, the hierarchical scheme of PMPP 11.5:
///  1. scan every tile of 1024 items in its own block and write the tile's total;
///  2. scan the tile totals (recursively, the same way);
///  3. add each tile's scanned total to all its items.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sortlab {

/// Items one block of the device scan handles.
inline constexpr std::size_t kDeviceScanTileItems = 1024;

/// Bytes of scratch device_exclusive_sum() needs for \p n items (0 when one tile suffices).
std::size_t device_exclusive_sum_temp_bytes(std::size_t n);

/// Bytes of device memory one device_exclusive_sum() of \p n items reads and writes: the count
/// the stages' bandwidth models (`bytes_moved`) charge for their scans. A single tile reads and
/// writes each item once (8 bytes per item); more tiles add the tile totals, their own scan and
/// the add-back pass, which reads and writes every item again (16 bytes per item in all).
double device_exclusive_sum_bytes(std::size_t n);

/// out[i] = in[0] + ... + in[i-1], for i < n; \p in and \p out may be the same array.
/// Asynchronous on \p stream; throws sortlab::Error for too little scratch.
/// \param temp_storage scratch of at least device_exclusive_sum_temp_bytes(n) bytes
/// \param temp_storage_bytes size of the scratch
/// \param in device input counts
/// \param out device output prefix sums
/// \param n number of items (at most 2^32 - 1 tiles' worth; sums must fit in 32 bits)
/// \param stream CUDA stream
void device_exclusive_sum(void* temp_storage, std::size_t temp_storage_bytes,
                          const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                          cudaStream_t stream = nullptr);

}  // namespace sortlab
