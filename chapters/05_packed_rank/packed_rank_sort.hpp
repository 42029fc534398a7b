/// \file
/// \brief Stage 05: a device-wide LSD radix sort built on the packed-counter block rank (public
/// API). The block-level pieces are device headers: packed_rank.cuh (the rank) and
/// block_radix_sort.cuh (a block sort like cub::BlockRadixSort).
///
/// One sort: a *digit survey* (one read of the keys: the bitwise AND and OR of all ordered keys,
/// which says which digits are the same for every key), then per r-bit digit a pass of three
/// steps, the textbook's count / scan / scatter under CUB's names:
///  1. *upsweep*: every block counts the digits of its tile into the block bucket table
///     (row-major by digit: entry (d, b) at d * num_tiles + b);
///  2. one device-wide exclusive scan of the table (common/device_scan);
///  3. *downsweep*: every block ranks its tile with the packed-counter rank (one increment pass,
///     one raking scan, instead of stage 04's r rounds of the 1-bit split), moves the keys to their
///     ranks in shared memory, and writes every digit's keys as one coalesced run.
/// A pass whose digit is the same for every key is skipped on the device: its kernels see it in
/// the survey and return at once, and the passes that remain choose their source and target
/// arrays so that the last one still lands in keys_out (no host synchronisation).
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort:
/// \snippet tests/stage05/test_stage05_gpu.cpp stage05 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/errors.hpp"
#include "common/sort_options.hpp"
#include "common/value_carrier.hpp"

/// Stage 05: packed-counter rank (CUB's BlockRadixRank), block sort and device sort.
namespace sortlab::stage05 {

/// What this stage adds to the ladder (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "packed-counter rank: one increment pass and one raking scan rank a 4096-key tile by a "
    "6-bit digit (CUB's BlockRadixRank), upsweep/scan/downsweep, trivial passes skipped";

// ---- The device sort's tile constants, all in one place ---------------------------------------

/// Digit width of a pass by default. The rank keeps 2^r 16-bit counters per thread, packed two to
/// a word: 2^(r-1) words + 1 padding word per thread, 33 KiB of shared memory at r = 6 and 256
/// threads. 32-bit keys take 6 passes.
inline constexpr int kRadixBits = 6;

/// The digit widths the device sort is compiled for (Config::radix_bits). r = 7 needs 66 KiB of
/// counters at 256 threads, beyond a block's static shared memory, so it runs 128-thread blocks
/// (the same 33 KiB) with more keys per thread: 5 passes for 32-bit keys instead of 6.
inline constexpr int kSupportedRadixBits[] = {6, 7};

/// Digit values of a pass at the default width (2^kRadixBits): rows of the block bucket table.
inline constexpr int kDigits = 1 << kRadixBits;

/// Width of one packed counter of the device sort's rank.
inline constexpr int kCounterBits = 16;

/// The most keys one sort takes: 2^32 - 1. Positions are 64-bit everywhere (a tile's first key,
/// every load and store), while the block bucket table keeps 32-bit entries: a count or a
/// scanned start is at most n, so 32 bits hold it exactly up to this limit (and the downsweep's
/// unsigned "start minus local start plus position" arithmetic is exact modulo 2^32). Past it the
/// table would need 64-bit entries; stage 08 goes to 2^36.
inline constexpr std::size_t kMaxItems = 0xFFFFFFFFu;

/// Threads per block of the upsweep and downsweep kernels for digits of \p radix_bits bits.
/// \param radix_bits digit width (one of kSupportedRadixBits)
constexpr int threads_for(int radix_bits) {
  return radix_bits <= 6 ? 256 : 128;
}

/// Threads per block at the default digit width.
inline constexpr int kThreadsPerBlock = threads_for(kRadixBits);

/// Keys per thread for a key of \p key_bytes bytes and a value of \p value_bytes bytes (0 for a
/// keys-only sort). At r = 6: 16 for keys of up to 4 bytes (4096-key tiles), 8 for 8-byte keys
/// (2048-key tiles: the same 16 KiB of keys per tile, in the same registers). 16-byte values also
/// take 8: the tile passes through shared memory one array at a time, and 4096 16-byte values
/// (64 KiB) would not fit a block's 48 KiB of static shared memory. At r = 7 (128 threads) one
/// and a half times that, so that a tile's raking scan (65 words per thread) is spread over more
/// keys.
/// \param key_bytes sizeof(Key)
/// \param radix_bits digit width (one of kSupportedRadixBits)
/// \param value_bytes sizeof(Value) of a pair sort, 0 for keys only
constexpr int keys_per_thread_for(std::size_t key_bytes, int radix_bits = kRadixBits,
                                  std::size_t value_bytes = 0) {
  const int base = key_bytes <= 4 && value_bytes <= 8 ? 16 : 8;
  return radix_bits <= 6 ? base : base * 3 / 2;
}

/// Keys per block tile for a key of \p key_bytes bytes (and values of \p value_bytes bytes).
/// \param key_bytes sizeof(Key)
/// \param radix_bits digit width (one of kSupportedRadixBits)
/// \param value_bytes sizeof(Value) of a pair sort, 0 for keys only
constexpr int tile_items_for(std::size_t key_bytes, int radix_bits = kRadixBits,
                             std::size_t value_bytes = 0) {
  return threads_for(radix_bits) * keys_per_thread_for(key_bytes, radix_bits, value_bytes);
}

/// Number of passes a sort of \p num_bits bits takes before skipping: ceil(num_bits / r).
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param radix_bits digit width r
constexpr int num_passes(int num_bits, int radix_bits = kRadixBits) {
  return (num_bits + radix_bits - 1) / radix_bits;
}

/// One compiled shape of the device sort's kernels, from the functions above.
/// \tparam Key the key type
/// \tparam kRadixBitsT digit width (one of kSupportedRadixBits)
/// \tparam kValueBytes size of a value of a pair sort, 0 for keys only
template <typename Key, int kRadixBitsT, std::size_t kValueBytes = 0>
struct DeviceTiling {
  static constexpr int kRadixBits = kRadixBitsT;            ///< digit width
  static constexpr int kDigits = 1 << kRadixBits;           ///< digit values
  static constexpr int kThreads = threads_for(kRadixBits);  ///< threads per block
  static constexpr int kKeysPerThread =
      keys_per_thread_for(sizeof(Key), kRadixBits, kValueBytes);  ///< K
  static constexpr int kTileItems = kThreads * kKeysPerThread;    ///< keys per tile
  /// Downsweep blocks an SM should hold at once: __launch_bounds__ then caps the registers at
  /// 65536 / (blocks * threads): 85 at r = 6 (3 blocks of 256), 128 at r = 7 (4 blocks of 128,
  /// whose 24 keys per thread would spill at 85). Either way 12288 keys per SM are in flight.
  static constexpr int kDownsweepBlocksPerSm = kThreads == 256 ? 3 : 4;
};

/// Tuning of the device sort.
struct Config {
  /// Digit width r of a pass: 6 (default) or 7 (see kSupportedRadixBits).
  int radix_bits = kRadixBits;
};

/// Throws sortlab::Error unless \p config.radix_bits is one of kSupportedRadixBits.
/// \param config the configuration to check
inline void validate_config(const Config& config) {
  bool supported = false;
  for (int bits : kSupportedRadixBits) supported = supported || bits == config.radix_bits;
  require(supported, [&] {
    return "stage05: Config::radix_bits = " + std::to_string(config.radix_bits) +
           " is not supported; use 6 or 7";
  });
}

// ---- The device sort ----------------------------------------------------------------------------

/// Sorts \p n keys from \p keys_in into \p keys_out (stable). Call with \p temp_storage ==
/// nullptr to set \p temp_storage_bytes and return without sorting. No allocation and no host
/// synchronisation happen inside the call; the work is queued on \p stream.
/// Supported Key: std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
/// std::int16_t, std::int32_t, std::int64_t, __half, __nv_bfloat16, float, double.
/// Throws sortlab::Error on bad arguments.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not alias keys_in)
/// \param n number of keys, 0 to kMaxItems (2^32 - 1)
/// \param options bit range and direction
/// \param config digit width (see Config)
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               const Config& config = {}, cudaStream_t stream = nullptr);

/// Sorts key-value pairs by key (stable: equal keys keep their input order). Same contract as
/// sort_keys(). Value: any trivially copyable type of 4, 8 or 16 bytes (u32 and f32, u64 and
/// int64 indices, a 16-byte struct), moved as an unsigned integer of its size (ValueCarrier), so
/// every value type of one size shares one set of kernels; the values arrays must be aligned to
/// that carrier (4, 8 or 16 bytes: cudaMalloc'd arrays are), or the call throws.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values
/// \param values_out device output values
/// \param n number of pairs, 0 to kMaxItems (2^32 - 1)
/// \param options bit range and direction
/// \param config digit width (see Config)
/// \param stream CUDA stream
template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                const SortOptions& options = {}, const Config& config = {},
                cudaStream_t stream = nullptr);

/// The pair sort on values already in their carrier type (std::uint32_t, std::uint64_t or
/// Bytes16): what sort_pairs() calls, compiled once per key type and carrier in
/// packed_rank_sort.cu. Same contract as sort_pairs(), pointers already checked.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values, as carriers
/// \param values_out device output values, as carriers
/// \param n number of pairs, 0 to kMaxItems
/// \param options bit range and direction
/// \param config digit width (see Config)
/// \param stream CUDA stream
template <typename Key, typename Carrier>
void sort_carried_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                        Key* keys_out, const Carrier* values_in, Carrier* values_out, std::size_t n,
                        const SortOptions& options, const Config& config, cudaStream_t stream);

template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                const SortOptions& options, const Config& config, cudaStream_t stream) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8 || sizeof(Value) == 16,
                "stage05::sort_pairs moves values of 4, 8 or 16 bytes; sort 32-bit indices and "
                "gather other values afterwards");
  static_assert(kCarriableValue<Value>,
                "values must be trivially copyable and no more aligned than their size");
  using Carrier = ValueCarrier<sizeof(Value)>;
  require_value_pointers(temp_storage, n, values_in, values_out);
  require_carrier_alignment(sizeof(Value), alignof(Carrier), values_in, values_out);
  sort_carried_pairs<Key, Carrier>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                                   reinterpret_cast<const Carrier*>(values_in),
                                   reinterpret_cast<Carrier*>(values_out), n, options, config,
                                   stream);
}

// ---- Tracing one pass ---------------------------------------------------------------------------

/// The packed counters of one tile, as the rank sees them (the padding lane left out).
struct TileCounters {
  /// Packed words before the raking scan: the word of (lane l, thread t) at l * threads + t, each
  /// field f holding thread t's count of digit f * lanes + l.
  std::vector<std::uint32_t> before_scan;
  /// The same words after the raking scan and the carry: field f of (l, t) holds the number of
  /// tile keys before thread t's first key with digit f * lanes + l.
  std::vector<std::uint32_t> after_scan;
  /// The word added to every scanned word to carry field totals upwards.
  std::uint32_t carry = 0;
};

/// One pass's arrays (host copies).
template <typename Key>
struct PassTrace {
  int num_blocks = 0;                 ///< tiles in the pass
  int num_digits = 0;                 ///< 2^w for a pass of w digit bits
  std::size_t tile_items = 0;         ///< keys per tile
  int threads = 0;                    ///< threads per block
  int keys_per_thread = 0;            ///< keys per thread (blocked: thread t holds t*K .. t*K+K-1)
  int lanes = 0;                      ///< counter words per thread (2^(r-1) for 16-bit counters)
  int fields_per_word = 0;            ///< counters per word
  std::vector<std::uint32_t> digits;  ///< digit of each input key (input order)
  /// The block bucket table: count of digit d in tile b at d * num_blocks + b.
  std::vector<std::uint32_t> block_bucket_table;
  /// Exclusive scan of the table: global start of (d, b).
  std::vector<std::uint32_t> scanned_table;
  std::vector<TileCounters> counters;  ///< the rank's packed counters, one entry per tile
  std::vector<std::uint32_t> ranks;    ///< rank of each input key inside its tile
  /// Each tile after the local scatter (sorted stably by digit), tile b at [b*tile_items, ...).
  std::vector<Key> local_sorted;
  std::vector<std::uint32_t> destinations;  ///< where each input key went (input order)
  std::vector<Key> keys_out;                ///< keys after the pass
};

/// Runs one pass on the GPU for \p keys, digit bits [first_bit, first_bit + w) with
/// w = min(r, key bits - first_bit), and returns its intermediate arrays (used by the tests
/// against the CPU model and by `sortlab trace`). The pass is run even when every key has the
/// same digit.
/// \param keys input keys (host), at most 2^30
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param num_bits digit width, 1 to kRadixBits (narrowed to the key's last bit)
/// \param descending sort by the complemented digit (descending order)
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, int num_bits = kRadixBits,
                          bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design: the survey reads the
/// keys once; per pass the upsweep reads the keys and writes the table (2^r entries per tile), the
/// scan moves device_exclusive_sum_bytes(entries), the downsweep reads keys, values and its table
/// entries and writes keys and values. Skipped passes are not counted (uniform keys skip none).
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config = {});

}  // namespace sortlab::stage05
