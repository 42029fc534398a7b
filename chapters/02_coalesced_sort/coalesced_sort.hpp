/// \file
/// \brief Stage 02: the shared-memory, memory-coalesced 1-bit sort of PMPP 13.4 (public API).
///
/// Still one pass per key bit, but the n keys are cut into tiles of kTileItems keys, one block per
/// tile, and each pass has three steps:
///  1. **count**: every block counts the keys of its tile whose bit is 0 and whose bit is 1 and
///     writes the two counts to the *block bucket table*, stored row-major by bucket: all blocks'
///     0-counts, then all blocks' 1-counts (entry (d, b) at `d * num_blocks + b`);
///  2. **scan**: one device-wide exclusive sum over the 2 * num_blocks table entries gives every
///     (bucket, block) pair its global start, because in row-major order the entries before
///     (d, b) are exactly the keys that must land before block b's keys of bucket d;
///  3. **scatter**: every block reloads its tile, splits it locally in shared memory (zeros first,
///     then ones, stable) and writes each bucket's run of keys to consecutive global addresses,
///     so a warp's stores are coalesced instead of scattered.
///
/// Compared with stage 01 the scan shrinks from n bits to 2n/256 counts, and the scatter writes
/// two contiguous runs per tile instead of one scattered key per thread.
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort:
/// \snippet tests/stage02/test_stage02_gpu.cpp stage02 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/sort_options.hpp"

/// Stage 02: shared-memory coalesced 1-bit sort (PMPP 13.4).
namespace sortlab::stage02 {

/// What this stage adds to the ladder (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "1-bit split per pass, local split in shared memory, block bucket table scan, coalesced "
    "writes (32 passes)";

/// Threads per block of the count and scatter kernels.
inline constexpr int kThreadsPerBlock = 256;

/// Keys per thread: one, as in the textbook's figure (stage 04 coarsens this).
inline constexpr int kKeysPerThread = 1;

/// Keys per block tile: each block counts, splits and writes this many keys.
inline constexpr std::size_t kTileItems =
    static_cast<std::size_t>(kThreadsPerBlock) * kKeysPerThread;

/// Buckets per pass: a 1-bit digit splits the keys into the 0-bucket and the 1-bucket.
inline constexpr int kNumBuckets = 2;

/// Sorts \p n keys from \p keys_in into \p keys_out (stable).
/// Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return without sorting.
/// Supported Key: std::uint32_t, std::int32_t, float. Throws sortlab::Error on bad arguments.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not alias keys_in)
/// \param n number of keys, 0 to 2^30
/// \param options bit range and direction
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               cudaStream_t stream = nullptr);

/// Sorts key-value pairs by key (stable: equal keys keep their input order).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values (32-bit payloads)
/// \param values_out device output values
/// \param n number of pairs, 0 to 2^30
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options = {}, cudaStream_t stream = nullptr);

/// One pass's arrays, as the textbook figures show them (host copies).
/// \tparam Key the key type
template <typename Key>
struct PassTrace {
  int num_blocks = 0;                 ///< blocks (tiles) in the pass
  int num_buckets = 0;                ///< buckets per pass: 2 (a 1-bit digit)
  std::size_t tile_items = 0;         ///< keys per block tile
  std::vector<std::uint32_t> digits;  ///< digit (bit) of each input key, in input order
  std::vector<Key>
      local_sorted;  ///< each tile after the local split, tile b at [b*tile_items, ...)
  std::vector<std::uint32_t> block_bucket_table;  ///< counts, entry (d, b) at d*num_blocks+b
  std::vector<std::uint32_t> scanned_table;  ///< exclusive scan of the table: global start of (d,b)
  std::vector<std::uint32_t> destinations;   ///< where each input key went, in input order
  std::vector<Key> keys_out;                 ///< the keys after the pass
};

/// Runs one pass (bit \p bit) on the GPU for \p keys and returns its intermediate arrays.
/// Used by the tests (against the CPU model in coalesced_sort_model.hpp) and by `sortlab trace`.
/// \param keys input keys (host)
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit (descending order)
/// \return every array of the pass, copied to the host
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int bit, bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design. Per bit: the count
/// kernel reads the keys and writes 2 counts per tile; the scan of the table moves
/// device_exclusive_sum_bytes(entries); the scatter kernel reads the keys (and values) and the
/// table and writes keys (and values) once. With no bits to sort, the sort is a copy.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \return bytes read plus bytes written
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits);

}  // namespace sortlab::stage02
