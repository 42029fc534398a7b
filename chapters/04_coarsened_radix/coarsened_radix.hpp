/// \file
/// \brief Stage 04: the multi-bit radix sort of stage 03 with thread coarsening (PMPP 13.6)
/// (public API).
///
/// The passes are stage 03's: r-bit digits, a count kernel that writes the *block bucket table*
/// (row-major by bucket: entry (bucket d, block b) at `d * num_blocks + b`), one device-wide
/// exclusive scan of that table, and a scatter kernel that sorts its tile by digit in shared
/// memory and writes every bucket as one coalesced run. What changes is how much one thread
/// does: each of the kThreadsPerBlock threads owns Config::keys_per_thread (K) keys, so a
/// block's tile holds `256 * K` keys instead of 256. Then
///  - there are K times fewer blocks, so the table, and the scan over it, are K times smaller;
///  - a bucket of a tile holds K times more keys, so the global writes come in K times longer
///    coalesced runs (about `256 * K / 2^r` keys: 128 keys = 512 bytes at the defaults);
///  - each block-wide scan of the local split ranks K keys per thread instead of one, so its
///    barriers and shuffles are paid once per K keys.
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort:
/// \snippet tests/stage04/test_stage04_gpu.cpp stage04 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/sort_options.hpp"

/// Stage 04: thread-coarsened multi-bit radix sort (PMPP 13.6).
namespace sortlab::stage04 {

/// What this stage adds to the ladder (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "thread coarsening: 8 keys per thread (2048-key tiles), r=4 digits, 8x smaller bucket "
    "table, 8x longer coalesced runs (8 passes)";

/// Threads per block of the count and scatter kernels.
inline constexpr int kThreadsPerBlock = 256;

/// Narrowest digit a pass may use.
inline constexpr int kMinRadixBits = 1;

/// Widest digit a pass may use: 2^8 = 256 buckets, one per thread of a block, so a block's
/// bucket starts come out of one block-wide scan.
inline constexpr int kMaxRadixBits = 8;

/// Most buckets a pass can have (2^kMaxRadixBits): the size of the per-bucket shared arrays.
inline constexpr int kMaxBuckets = 1 << kMaxRadixBits;

/// The default digit width: 16 buckets, 8 passes over 32-bit keys. Stage 03's default is r = 5
/// (7 passes); stage 04 keeps the textbook's r = 4 so that its keys-per-thread sweep isolates
/// coarsening (the README compares against stage 03 at r = 4 as well).
inline constexpr int kDefaultRadixBits = 4;

/// The keys-per-thread values the kernels are compiled for. The kernels take K as a template
/// argument so that a thread's K keys live in registers (an array indexed by a runtime value
/// would be pushed to local memory); the launcher maps the runtime Config::keys_per_thread to
/// one of these instantiations.
inline constexpr int kSupportedKeysPerThread[] = {1, 2, 4, 8, 16};

/// The largest supported keys per thread (16: a 4096-key tile, 16.5 KiB of keys in shared memory).
inline constexpr int kMaxKeysPerThread = 16;

/// The default keys per thread: 2048-key tiles. On an H100 K = 8 and K = 16 are within a few
/// percent of each other at 2^24..2^28 keys (README's sweep); 8 keeps a block at 40 registers per
/// thread and 9.3 KiB of shared memory, and still gives 8192 blocks at 2^24 keys.
inline constexpr int kDefaultKeysPerThread = 8;

/// Keys per block tile at the default configuration (kThreadsPerBlock * kDefaultKeysPerThread).
inline constexpr int kDefaultTileItems = kThreadsPerBlock * kDefaultKeysPerThread;

static_assert(kMaxBuckets <= kThreadsPerBlock,
              "the scatter kernel gives every bucket of a block its own thread");

/// Tuning knobs of this stage.
struct Config {
  /// Digit width r in bits (1..8): each pass sorts by r bits, using 2^r buckets per block.
  int radix_bits = kDefaultRadixBits;
  /// Keys each thread owns (K; one of kSupportedKeysPerThread): a tile is 256 * K keys.
  int keys_per_thread = kDefaultKeysPerThread;
};

/// True when \p keys_per_thread is one of kSupportedKeysPerThread.
/// \param keys_per_thread the value to check
inline constexpr bool is_supported_keys_per_thread(int keys_per_thread) {
  for (int supported : kSupportedKeysPerThread)
    if (supported == keys_per_thread) return true;
  return false;
}

/// Throws sortlab::Error unless `config.radix_bits` is within kMinRadixBits..kMaxRadixBits and
/// `config.keys_per_thread` is one of kSupportedKeysPerThread.
/// \param config the configuration to check
inline void validate_config(const Config& config) {
  require(config.radix_bits >= kMinRadixBits && config.radix_bits <= kMaxRadixBits,
          "stage04: Config::radix_bits = " + std::to_string(config.radix_bits) +
              " is outside the supported range " + std::to_string(kMinRadixBits) + ".." +
              std::to_string(kMaxRadixBits));
  if (!is_supported_keys_per_thread(config.keys_per_thread)) {
    std::string supported;
    for (int k : kSupportedKeysPerThread)
      supported += (supported.empty() ? "" : ", ") + std::to_string(k);
    throw Error("stage04: Config::keys_per_thread = " + std::to_string(config.keys_per_thread) +
                " is not supported; use one of " + supported);
  }
}

/// Keys per block tile: kThreadsPerBlock * keys_per_thread. Throws on an invalid \p config.
/// \param config digit width and keys per thread
inline std::size_t tile_items(const Config& config = {}) {
  validate_config(config);
  return static_cast<std::size_t>(kThreadsPerBlock) *
         static_cast<std::size_t>(config.keys_per_thread);
}

/// Number of passes a sort of \p num_bits bits takes: ceil(num_bits / r).
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width (keys per thread does not matter here)
inline int num_passes(int num_bits, const Config& config = {}) {
  validate_config(config);
  return (num_bits + config.radix_bits - 1) / config.radix_bits;
}

/// Sorts \p n keys from \p keys_in into \p keys_out (stable).
/// Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return without sorting.
/// Supported Key: std::uint32_t, std::int32_t, float. Throws sortlab::Error on bad arguments,
/// including an invalid Config (see validate_config()).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not alias keys_in)
/// \param n number of keys, 0 to 2^30
/// \param options bit range and direction
/// \param config digit width r and keys per thread K
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
/// \param config digit width r and keys per thread K
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
  std::size_t tile_items = 0;         ///< keys per block tile (256 * K)
  std::vector<std::uint32_t> digits;  ///< digit of each input key (input order)
  /// Each tile after the local split (sorted by digit, stable), tile b at [b*tile_items, ...);
  /// n entries in all (the last tile may be partial).
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
/// \param config digit width r and keys per thread K
/// \param descending sort by the complemented digit (descending order)
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, const Config& config = {},
                          bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design. Per pass of w bits,
/// with B = 2^w buckets and ceil(n / (256 K)) blocks: the count kernel reads the keys and writes
/// the table (B entries per block), the scan of the table moves
/// device_exclusive_sum_bytes(entries) (it reads and writes the table about twice), the scatter
/// kernel reads keys, values and the block's B table entries and writes keys and values.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width r and keys per thread K
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config = {});

}  // namespace sortlab::stage04
