/// \file
/// \brief Implementation of the hierarchical device-wide exclusive sum.
#include "common/block_scan.cuh"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/scratch_layout.hpp"
#include "common/sort_options.hpp"

namespace sortlab {
namespace {

constexpr int kScanThreads = 256;
constexpr int kScanItemsPerThread = static_cast<int>(kDeviceScanTileItems) / kScanThreads;

/// Step 1: each block scans one tile; thread t owns items [t*4, t*4+4) of the tile.
__global__ void __launch_bounds__(kScanThreads)
    scan_tiles_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* tile_totals,
                      std::size_t n) {
  __shared__ BlockScanStorage<kScanThreads> scan_storage;
  const std::size_t first = blockIdx.x * kDeviceScanTileItems +
                            static_cast<std::size_t>(threadIdx.x) * kScanItemsPerThread;
  std::uint32_t items[kScanItemsPerThread];
  std::uint32_t thread_sum = 0;
#pragma unroll
  for (int i = 0; i < kScanItemsPerThread; ++i) {
    items[i] = first + i < n ? in[first + i] : 0u;
    thread_sum += items[i];
  }
  std::uint32_t tile_total = 0;
  std::uint32_t running = block_exclusive_sum(thread_sum, scan_storage, tile_total);
#pragma unroll
  for (int i = 0; i < kScanItemsPerThread; ++i) {
    if (first + i < n) out[first + i] = running;
    running += items[i];
  }
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = tile_total;
}

/// Step 3: add the scanned total of all earlier tiles to every item of this tile.
__global__ void __launch_bounds__(kScanThreads)
    add_tile_offsets_kernel(std::uint32_t* out, const std::uint32_t* tile_offsets, std::size_t n) {
  const std::uint32_t offset = tile_offsets[blockIdx.x];
  const std::size_t first = blockIdx.x * kDeviceScanTileItems;
  for (std::size_t i = first + threadIdx.x; i < n && i < first + kDeviceScanTileItems;
       i += kScanThreads)
    out[i] += offset;
}

std::size_t tiles_for(std::size_t n) {
  return (n + kDeviceScanTileItems - 1) / kDeviceScanTileItems;
}

/// One array of tile totals per level of the recursion.
ScratchLayout scan_layout(std::size_t n) {
  ScratchLayout layout;
  for (std::size_t level = tiles_for(n); level > 1; level = tiles_for(level))
    layout.add<std::uint32_t>(level);
  return layout;
}

void scan_level(const ScratchLayout& layout, void* temp_storage, std::size_t level,
                const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t stream) {
  const std::size_t tiles = tiles_for(n);
  if (tiles <= 1) {
    scan_tiles_kernel<<<1, kScanThreads, 0, stream>>>(in, out, nullptr, n);
    SORTLAB_CHECK_LAUNCH();
    return;
  }
  std::uint32_t* tile_totals = layout.get<std::uint32_t>(temp_storage, level);
  scan_tiles_kernel<<<static_cast<unsigned>(tiles), kScanThreads, 0, stream>>>(in, out, tile_totals,
                                                                               n);
  SORTLAB_CHECK_LAUNCH();
  scan_level(layout, temp_storage, level + 1, tile_totals, tile_totals, tiles, stream);
  add_tile_offsets_kernel<<<static_cast<unsigned>(tiles), kScanThreads, 0, stream>>>(
      out, tile_totals, n);
  SORTLAB_CHECK_LAUNCH();
}

}  // namespace

std::size_t device_exclusive_sum_temp_bytes(std::size_t n) {
  return scan_layout(n).total_bytes();
}

double device_exclusive_sum_bytes(std::size_t n) {
  const std::size_t tiles = tiles_for(n);
  const double items = static_cast<double>(n);
  if (tiles <= 1) return 8.0 * items;  // scan_tiles_kernel: read and write every item
  const double totals = static_cast<double>(tiles);
  return 8.0 * items + 4.0 * totals           // scan the tiles, write their totals
         + device_exclusive_sum_bytes(tiles)  // scan the totals in place
         + 8.0 * items + 4.0 * totals;        // add back: read and write items, read offsets
}

void device_exclusive_sum(void* temp_storage, std::size_t temp_storage_bytes,
                          const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                          cudaStream_t stream) {
  if (n == 0) return;
  require(in != nullptr && out != nullptr, "device_exclusive_sum: null input or output");
  require(tiles_for(n) <= 0x7fffffffu, "device_exclusive_sum: n too large");
  const ScratchLayout layout = scan_layout(n);
  validate_temp_storage(temp_storage, temp_storage_bytes, layout.total_bytes());
  scan_level(layout, temp_storage, 0, in, out, n, stream);
}

}  // namespace sortlab
