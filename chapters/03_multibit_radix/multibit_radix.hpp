/// \file
/// \brief Stage 03: multi-bit radix sort of PMPP 13.5 (public API).
///
/// Each pass sorts by an r-bit digit instead of one bit, so a 32-bit key needs ceil(32/r)
/// passes instead of 32. One pass has three launches:
///  1. **count**: every block of kThreadsPerBlock threads (one key each) builds a histogram of its
///     2^r digits in shared memory and writes it into the *block bucket table*, row-major by
///     bucket: entry (bucket d, block b) at `d * num_blocks + b`;
///  2. **scan**: one device-wide exclusive sum over the whole table gives every (d, b) the first
///     output position of block b's keys with digit d (all of bucket 0 first, block by block,
///     then all of bucket 1, ...);
///  3. **scatter**: every block reloads its tile, sorts it by digit in shared memory (r rounds of
///     the 1-bit split of stage 02), finds where each digit starts inside the tile (exclusive scan
///     of the block's 2^r counts) and writes the tile out: thread t writes local key t to
///     `scanned_table[d * num_blocks + b] + (t - local_start[d])`, so consecutive threads write
///     consecutive addresses within a bucket.
///
/// The price of wider digits is a table with 2^r rows and buckets that hold fewer keys per block
/// (256 / 2^r on average), so the writes of one block split into more, shorter runs.
/// When r does not divide the bit range the last pass is narrower.
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort:
/// \snippet tests/stage03/test_stage03_gpu.cpp stage03 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/sort_options.hpp"

/// Stage 03: multi-bit radix sort (PMPP 13.5).
namespace sortlab::stage03 {

/// What this stage adds to the ladder (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "r-bit digits (default 5): per-block 2^r bucket table, one table scan, local split, "
    "coalesced scatter (7 passes)";

/// Threads per block of the count and scatter kernels.
inline constexpr int kThreadsPerBlock = 256;

/// Keys per thread: one, as in the textbook's kernel (stage 04 coarsens this).
inline constexpr int kKeysPerThread = 1;

/// Keys per block tile: each block counts, sorts locally and writes this many keys; one column
/// of the block bucket table per tile.
inline constexpr std::size_t kTileItems =
    static_cast<std::size_t>(kThreadsPerBlock) * kKeysPerThread;

/// Narrowest digit a pass may use (r = 1 is stage 02's 1-bit split plus a bucket table).
inline constexpr int kMinRadixBits = 1;

/// Widest digit a pass may use: 2^8 = 256 buckets, one per thread of a block, so the block's
/// bucket counts can be scanned with one block-wide scan.
inline constexpr int kMaxRadixBits = 8;

/// The default digit width, the fastest in the r sweep at 2^24 keys on an H100 (at 2^20, r = 6
/// and 7 are a few percent faster: see the README's sweep tables). The local split costs one
/// 1-bit round per key bit whatever r is (ceil(32/r) passes x r rounds), so a wider digit saves
/// whole passes of key traffic almost for free until the table (2^r rows) and the shorter runs
/// per bucket bite: at r = 5 a 256-key tile has 32 buckets of about 8 keys, one 32-byte sector
/// per run, in 7 passes (six 5-bit digits, then one 2-bit digit) over 32-bit keys.
inline constexpr int kDefaultRadixBits = 5;

static_assert((1 << kMaxRadixBits) <= kThreadsPerBlock,
              "the scatter kernel gives every bucket of a block its own thread");

/// Tuning knobs of this stage.
struct Config {
  /// Digit width r in bits (1..8): each pass sorts by r bits, using 2^r buckets per block.
  int radix_bits = kDefaultRadixBits;
};

/// Throws sortlab::Error unless `config.radix_bits` is within kMinRadixBits..kMaxRadixBits.
/// \param config the configuration to check
inline void validate_config(const Config& config) {
  require(config.radix_bits >= kMinRadixBits && config.radix_bits <= kMaxRadixBits,
          "stage03: Config::radix_bits = " + std::to_string(config.radix_bits) +
              " is outside the supported range " + std::to_string(kMinRadixBits) + ".." +
              std::to_string(kMaxRadixBits));
}

/// Number of passes a sort of \p num_bits bits takes: ceil(num_bits / r).
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width
/// \return the number of passes (0 for an empty bit range)
inline int num_passes(int num_bits, const Config& config = {}) {
  validate_config(config);
  return (num_bits + config.radix_bits - 1) / config.radix_bits;
}

/// Sorts \p n keys from \p keys_in into \p keys_out (stable).
/// Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return without sorting.
/// Supported Key: std::uint32_t, std::int32_t, float. Throws sortlab::Error on bad arguments,
/// including a Config::radix_bits outside 1..8.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not alias keys_in)
/// \param n number of keys, 0 to 2^30
/// \param options bit range and direction
/// \param config digit width r
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               const Config& config = {}, cudaStream_t stream = nullptr);

/// Sorts key-value pairs by key (stable: equal keys keep their input order).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values (32-bit payloads)
/// \param values_out device output values
/// \param n number of pairs, 0 to 2^30
/// \param options bit range and direction
/// \param config digit width r
/// \param stream CUDA stream
template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options = {}, const Config& config = {},
                cudaStream_t stream = nullptr);

/// One pass's arrays, as the textbook figures show them (host copies).
template <typename Key>
struct PassTrace {
  int num_blocks = 0;                 ///< blocks (tiles) in the pass
  int num_buckets = 0;                ///< 2^w for a pass of w digit bits
  std::size_t tile_items = 0;         ///< keys per block tile
  std::vector<std::uint32_t> digits;  ///< digit of each input key (input order)
  /// Each tile after the local split (sorted by digit, stable), tile b at [b*tile_items, ...).
  std::vector<Key> local_sorted;
  /// The block bucket table: count of digit d in block b at d*num_blocks+b.
  std::vector<std::uint32_t> block_bucket_table;
  /// Exclusive scan of the table: global start of (d, b).
  std::vector<std::uint32_t> scanned_table;
  std::vector<std::uint32_t> destinations;  ///< where each input key went (input order)
  std::vector<Key> keys_out;                ///< keys after the pass
};

/// Runs one pass on the GPU for \p keys (digit bits [first_bit, first_bit + w) with
/// w = min(r, key bits - first_bit)) and returns its intermediate arrays.
/// Used by the tests (against the CPU model) and by `sortlab trace`.
/// \param keys input keys (host)
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param config digit width r
/// \param descending sort by the complemented digit (descending order)
/// \return the pass's arrays, copied to the host
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, const Config& config = {},
                          bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design. Per pass of w bits,
/// with B = 2^w buckets and n/256 blocks: the count kernel reads the keys and writes the table
/// (B entries per block), the scan of the table moves device_exclusive_sum_bytes(entries), the
/// scatter kernel reads keys,
/// values and the block's B table entries and writes keys and values.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width r
/// \return bytes read plus bytes written
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config = {});

}  // namespace sortlab::stage03
