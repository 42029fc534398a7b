/// \file
/// \brief Stage 08: onesweep, an LSD radix sort with one kernel per digit place (public API).
///
/// One sort:
///  1. a *histogram kernel* reads the keys once and counts the digits of **every** digit place
///     (4 histograms of 256 counters for 32-bit keys and 8-bit digits);
///  2. a *scan kernel* turns each histogram into the global start of every digit, and marks the
///     passes whose digit is the same for every key: those are skipped (pass_roles.hpp);
///  3. per digit place, one *onesweep kernel*: every block takes the next tile from an atomic
///     tile counter (so tiles start in order), counts its digits, ranks it by the digit
///     (warp-level multi-split, lanes matched by ballots), publishes its per-digit counts in status
///     words (tile_status.hpp), finds the keys of each digit in the tiles before it by a *decoupled
///     look-back* over its predecessors' words, and scatters the tile through shared memory to
///     coalesced runs.
/// Each pass reads and writes the keys once; stage 05's upsweep / scan / downsweep reads them
/// twice. Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs"
/// (2022), is the method; CUB's DeviceRadixSort (stage 00) is its production form.
///
/// Status: correct on the H100 and an H200 (ctest -L stage08, compute-sanitizer); 0.99-1.19x CUB by
/// type from 2^20 up on the H200 (see the README). Pair sorts need the shared memory of sm_80 or
/// sm_90 (up to 110 KiB per block); elsewhere they stop with an error that says so.
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort. The
/// scratch holds the look-back's status words and tile counters too, and the sort zeroes them
/// itself on the stream: a scratch may be reused by any number of sorts without the caller
/// clearing anything.
/// \snippet tests/stage08/test_stage08_gpu.cpp stage08 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/errors.hpp"
#include "common/sort_options.hpp"
#include "common/tile_status.hpp"
#include "common/value_carrier.hpp"

/// Stage 08: onesweep with decoupled look-back.
namespace sortlab::stage08 {

/// What this stage adds to the ladder (the benchmark label and the results table will use it).
inline constexpr const char kSummary[] =
    "onesweep: all digit histograms in one read, one kernel per 8-bit digit place, warp "
    "multi-split rank, decoupled look-back over per-digit tile status words";

// ---- The tile constants, all in one place -------------------------------------------------------

/// Digit width of a pass: 8 bits, 256 digit values (4 passes for 32-bit keys).
inline constexpr int kRadixBits = 8;

/// The digit widths the kernels are compiled for (Config::radix_bits).
inline constexpr int kSupportedRadixBits[] = {8};

/// Digit values of a pass: rows of every histogram, status words per tile.
inline constexpr int kDigits = 1 << kRadixBits;

/// Threads per block of the onesweep kernel. Threads 0 .. kDigits - 1 each publish and look back
/// for one digit value, so there are at least kDigits.
inline constexpr int kThreadsPerBlock = 384;
static_assert(kThreadsPerBlock >= kDigits && kThreadsPerBlock % 32 == 0,
              "one thread per digit in the look-back, whole warps");

/// Predecessors whose status words a look-back thread reads at once (one round trip for up to
/// this many tiles of the walk).
inline constexpr int kLookbackWindow = 4;

/// Whether the look-back runs right after the tile's counts are published (its prefix is out
/// sooner for the tiles after it) or after the rank and the scatter to shared (its latency hides
/// behind them).
inline constexpr bool kLookBackBeforeRank = false;

/// Nanoseconds a look-back thread sleeps before it reads a status word that was not ready again
/// (0: spin without sleeping).
inline constexpr unsigned kLookbackBackoffNs = 0;

/// Warps per block of the onesweep kernel.
inline constexpr int kWarpsPerBlock = kThreadsPerBlock / 32;

/// Keys per thread of the onesweep kernel for keys of \p key_bytes bytes and values of
/// \p value_bytes (0 for a keys-only sort). Keys only: 20 for keys of up to 4 bytes (7680-key
/// tiles, CUB's sm90 tile for 32-bit keys), 16 for 8-byte keys (6144; CUB's is 384 x 15). Pairs,
/// whose values are copied to shared memory without passing through registers (the kernel's
/// "stage values"), so that they take larger tiles than the keys alone: 24 for keys and values of
/// up to 4 bytes (9216-key tiles), 20 for keys of up to 4 bytes with 8-byte values, 16 for 8-byte
/// keys. Measured (README, points 7-10 and 14): u32 keys at 2^28 on the H100 5.75 ms with 20 at
/// three blocks per SM (24 no longer fits beside the counters at three blocks; 16 took 6.12); u64
/// keys 20.7 ms with 8 at three blocks, 19.1 with 12, 17.1 with 16 and 16.8 with 20 at two (20
/// spilled in pair sorts); with staged values on an H200, u32 pairs at 2^28 7.82 ms with 20, 7.47
/// with 24, 7.35 with 28 (but 6% slower than 24 at 2^20), (f32, i64) pairs 10.23 with 16, 9.73
/// with 20, 9.98 with 18.
/// \param key_bytes sizeof(Key)
/// \param value_bytes sizeof(Value), 0 for a keys-only sort
constexpr int keys_per_thread_for(std::size_t key_bytes, std::size_t value_bytes = 0) {
  if (key_bytes > 4) return 16;
  if (value_bytes == 0) return 20;
  return value_bytes <= 4 ? 24 : 20;
}

/// Keys per tile of the onesweep kernel.
/// \param key_bytes sizeof(Key)
/// \param value_bytes sizeof(Value), 0 for a keys-only sort
constexpr int tile_items_for(std::size_t key_bytes, std::size_t value_bytes = 0) {
  return kThreadsPerBlock * keys_per_thread_for(key_bytes, value_bytes);
}

/// Onesweep blocks an SM should hold at once; __launch_bounds__ then caps the registers at
/// 65536 / (blocks * 384): 56 per thread for three blocks, 80 for two. Keys-only sorts of keys
/// of up to 4 bytes take three (the keys go to shared memory as they are ranked, so no ranks are
/// held); pair sorts, whose tiles with the values beside them fill the shared memory of two
/// blocks, and 8-byte keys, whose 16 keys per thread alone take 32 registers, take two. Measured
/// at 2^28 (README): u32 keys 7.03 ms at three blocks against 7.60 at two (H100); u32 pairs with
/// staged values 8.38 ms at three blocks (20 keys per thread, 56 registers and spills) against
/// 7.76 at two (H200); u64 keys 25.3 ms at three blocks with 15 keys per thread, 17.1 at two with
/// 16 (H100).
/// \param has_values whether the sort moves values
/// \param key_bytes sizeof(Key)
constexpr int onesweep_blocks_per_sm(bool has_values, std::size_t key_bytes) {
  return has_values || key_bytes > 4 ? 2 : 3;
}

/// Keys per tile of a traced pass (trace_pass() and the CPU model's default): the pass runs as a
/// pair sort whose values are the keys' input positions (u32), so its tile is that sort's.
/// \param key_bytes sizeof(Key)
constexpr int trace_tile_items_for(std::size_t key_bytes) {
  return tile_items_for(key_bytes, sizeof(std::uint32_t));
}

/// Threads per block of the histogram kernel.
inline constexpr int kHistogramThreads = 256;

/// Keys per histogram thread in the grid's size: the grid is ceil(n / (kHistogramThreads *
/// kHistogramKeysPerThread)) blocks, at most kHistogramBlocksPerSm per SM, so that 2^20 keys
/// already fill the GPU. Also the keys each thread loads at once (a grid stride apart) before it
/// counts them when the keys are not 16-byte aligned.
inline constexpr int kHistogramKeysPerThread = 8;

/// 16-byte words of keys each histogram thread loads at once (a grid stride apart) before it
/// counts them, when the keys are 16-byte aligned. Measured on the H100 (README, point 11) against
/// 8 single-key loads: 2^28 u32 keys 5.625 ms against 5.646, 2^20 0.0746 against 0.0760; 2 words
/// took 5.628 and 0.0760.
inline constexpr int kHistogramWordsPerThread = 4;

/// Most histogram blocks per SM (more would only add global atomics at the end).
inline constexpr int kHistogramBlocksPerSm = 4;

/// Most keys one onesweep launch handles: the whole tiles of up to 2^30 keys. Inside a launch
/// every count is 32-bit and the status words hold 30-bit counts (tile_status.hpp), which is
/// enough: the last tile, whose inclusive prefix could reach 2^30, never publishes it. A larger
/// sort runs each pass as several launches over consecutive *chunks* of this many keys, each
/// with its own histograms, tile counter and status words; the scan kernel gives every chunk
/// 64-bit digit starts that count the keys of the chunks before it, so the output positions are
/// 64-bit while everything inside a launch stays 32-bit.
/// \param key_bytes sizeof(Key)
/// \param value_bytes sizeof(Value), 0 for a keys-only sort
constexpr std::size_t chunk_items_for(std::size_t key_bytes, std::size_t value_bytes = 0) {
  return kMaxSortItems / static_cast<std::size_t>(tile_items_for(key_bytes, value_bytes)) *
         static_cast<std::size_t>(tile_items_for(key_bytes, value_bytes));
}

/// Most keys one sort accepts: 2^36 (64-bit offsets, up to 64 chunks per pass). Beyond
/// stages 01-05's 2^30; more than fits an 80 GB GPU for any key type.
inline constexpr std::size_t kMaxItems = std::size_t{1} << 36;

/// Number of passes (digit places) of a sort of \p num_bits bits: ceil(num_bits / r).
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param radix_bits digit width r
constexpr int num_passes(int num_bits, int radix_bits = kRadixBits) {
  return (num_bits + radix_bits - 1) / radix_bits;
}

/// Tuning of the device sort.
struct Config {
  /// Digit width r of a pass: 8 (the only width compiled so far; see kSupportedRadixBits).
  int radix_bits = kRadixBits;
  /// Keys per chunk (one launch per pass and chunk): 0 for chunk_items_for(sizeof(Key),
  /// sizeof(Value)), just under 2^30; otherwise a positive multiple of the tile
  /// (tile_items_for(sizeof(Key), sizeof(Value)); for keys only, value bytes 0), at most that.
  /// Small values exist so that tests run the multi-chunk path (64-bit offsets) on a few thousand
  /// keys.
  std::size_t chunk_items = 0;
};

/// Throws sortlab::Error unless \p config.radix_bits is one of kSupportedRadixBits.
/// \param config the configuration to check
inline void validate_config(const Config& config) {
  bool supported = false;
  for (int bits : kSupportedRadixBits) supported = supported || bits == config.radix_bits;
  require(supported, [&] {
    return "stage08: Config::radix_bits = " + std::to_string(config.radix_bits) +
           " is not supported; use 8";
  });
}

// ---- The device sort ----------------------------------------------------------------------------

/// Sorts \p n keys from \p keys_in into \p keys_out (stable). Call with \p temp_storage ==
/// nullptr to set \p temp_storage_bytes and return without sorting. No allocation and no host
/// synchronisation happen inside the call; the work is queued on \p stream. The scratch's status
/// words and tile counters are zeroed by the sort on \p stream, so it may be reused freely.
/// Supported Key: std::uint8_t .. std::uint64_t, std::int8_t .. std::int64_t, __half,
/// __nv_bfloat16, float, double.
/// Throws sortlab::Error on bad arguments.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not overlap keys_in or the scratch)
/// \param n number of keys, 0 to kMaxItems (2^36)
/// \param options bit range and direction
/// \param config digit width (see Config)
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               const Config& config = {}, cudaStream_t stream = nullptr);

/// Sorts key-value pairs by key (stable: equal keys keep their input order). Same contract as
/// sort_keys(). Supported Value: std::uint32_t, std::uint64_t, std::int64_t.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values
/// \param values_out device output values
/// \param n number of pairs, 0 to kMaxItems (2^36)
/// \param options bit range and direction
/// \param config digit width (see Config)
/// \param stream CUDA stream
template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                const SortOptions& options = {}, const Config& config = {},
                cudaStream_t stream = nullptr);

// ---- Tracing one pass ---------------------------------------------------------------------------

/// One pass's arrays (host copies). The CPU model (onesweep_model.hpp) fills the same struct,
/// and every field is deterministic: which tile a block ran and how far each look-back walked
/// vary from run to run on the GPU, but the offsets they find do not.
template <typename Key>
struct PassTrace {
  int num_tiles = 0;                  ///< tiles in the pass
  int num_digits = 0;                 ///< 2^w for a pass of w digit bits
  std::size_t tile_items = 0;         ///< keys per tile
  std::vector<std::uint32_t> digits;  ///< digit of each input key (input order)
  /// The pass's histogram over the whole input (one digit place of the all-places histogram).
  std::vector<std::uint32_t> histogram;
  /// Exclusive scan of the histogram: where each digit's keys start in the output.
  std::vector<std::uint32_t> digit_starts;
  /// Keys of digit d in tile b at b * num_digits + d: what tile b publishes as its aggregate.
  std::vector<std::uint32_t> tile_counts;
  /// Keys of digit d in the tiles before b, at b * num_digits + d: what tile b's look-back finds.
  std::vector<std::uint32_t> exclusive_prefixes;
  /// The status words after the pass, at b * num_digits + d (tile_status.hpp): tile 0 and every
  /// tile but the last hold (prefix, inclusive prefix); the last tile (aggregate, its count).
  std::vector<std::uint32_t> final_status;
  std::vector<std::uint32_t> ranks;  ///< rank of each input key inside its tile (stable by digit)
  std::vector<std::uint32_t> destinations;  ///< where each input key went (input order)
  std::vector<Key> keys_out;                ///< keys after the pass
};

/// Runs one pass on the GPU for \p keys, digit bits [first_bit, first_bit + w) with
/// w = min(num_bits, key bits - first_bit) — histogram, scan and one onesweep kernel — and
/// returns its arrays (for the tests against the CPU model and, later, `sortlab trace`). Runs on a
/// private stream with buffers of its own.
/// \param keys input keys (host), at most 2^30
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param num_bits digit width, 1 to kRadixBits (narrowed to the key's last bit)
/// \param descending sort by the complemented digit (descending order)
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, int num_bits = kRadixBits,
                          bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design: the histogram kernel
/// reads the keys once; per pass the status words are zeroed (4 bytes per digit per tile), the
/// onesweep kernel reads keys and values, writes keys and values, and writes and reads its status
/// words (counted once each way); the histograms and their scan are a few KiB and not counted.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
/// \param config digit width
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config = {});

}  // namespace sortlab::stage08
