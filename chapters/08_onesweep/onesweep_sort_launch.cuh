/// \file
/// \brief Stage 08 host launcher: zero the histograms, tile counters and running mask; per chunk
/// (just under 2^30 keys), one histogram kernel for every digit place; one scan kernel; then per
/// place and chunk: zero the status words, one onesweep kernel (which returns at once if the scan
/// found its place trivial). And the trace of one pass.
///
/// Templates only: each file of `instances/` instantiates them for one of stage 05's 12 key types
/// (8- to 64-bit integers, f16, bf16, f32, f64) with u32, u64 and i64 values
/// (SORTLAB_STAGE08_INSTANTIATE), so that the key types compile in parallel. onesweep_sort.cu
/// holds the bytes-moved model, which does not depend on the types.
///
/// Verified on the H100 (ctest -L stage08, compute-sanitizer) and, with the staged pair values
/// (README point 14), on an H200.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/08_onesweep/onesweep_kernels.cuh"
#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_properties.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"
#include "common/trace_digit.hpp"

namespace sortlab::stage08 {
/// The launcher's own helpers: only the files of instances/ include this header, each for one
/// key type (a named namespace, not an anonymous one, so that the public templates below mean
/// the same in every file that instantiates them; left out of the reading guide, as the
/// anonymous namespace was).
namespace launcher {

/// Keys per tile of a sort of Key (with values of Value when kHasValues): the kernel's tile.
template <typename Key, typename Value, bool kHasValues>
inline constexpr std::size_t kTileOf = OnesweepTile<Key, Value, kHasValues>::kTileItems;

/// Tiles of a launch over \p n keys of type Key (with values of Value when kHasValues).
template <typename Key, typename Value, bool kHasValues>
std::size_t tiles_for(std::size_t n) {
  constexpr std::size_t tile = kTileOf<Key, Value, kHasValues>;
  return (n + tile - 1) / tile;
}

/// Blocks of the histogram kernel: one per kHistogramThreads * kHistogramKeysPerThread keys, so
/// that 2^20 keys already fill the GPU, but at most kHistogramBlocksPerSm per SM (each block ends
/// with up to places x 256 global atomics). Asks the driver for the SM count (no synchronisation).
inline unsigned histogram_blocks(std::size_t n) {
  const std::size_t per_block =
      static_cast<std::size_t>(kHistogramThreads) * kHistogramKeysPerThread;
  const std::size_t most = std::size_t{multiprocessor_count()} * kHistogramBlocksPerSm;
  return static_cast<unsigned>(std::clamp<std::size_t>((n + per_block - 1) / per_block, 1, most));
}

/// Keys per chunk of a sort of Key (with values of Value when kHasValues): Config::chunk_items,
/// checked, or the default.
template <typename Key, typename Value, bool kHasValues>
std::size_t chunk_items(const Config& config) {
  constexpr std::size_t tile = kTileOf<Key, Value, kHasValues>;
  const std::size_t largest = chunk_items_for(sizeof(Key), kHasValues ? sizeof(Value) : 0);
  if (config.chunk_items == 0) return largest;
  require(config.chunk_items % tile == 0 && config.chunk_items <= largest, [&] {
    return "stage08: Config::chunk_items = " + std::to_string(config.chunk_items) +
           " must be 0 or a multiple of the " + std::to_string(tile) + "-key tile up to " +
           std::to_string(largest);
  });
  return config.chunk_items;
}

/// The scratch one sort needs, in one allocation. The histograms, the tile counters and the
/// running mask are adjacent so that one memset zeroes them all.
struct Scratch {
  std::size_t alternate_keys, alternate_values, counts_and_counters, digit_starts, chunk_starts,
      tile_status;
  ScratchLayout layout;
};

/// Entries of the per-chunk histograms.
constexpr std::size_t histogram_entries(std::size_t chunks, int places) {
  return chunks * static_cast<std::size_t>(places) * kDigits;
}

template <typename Key, typename Value, bool kHasValues>
Scratch plan_scratch(std::size_t n, int places, std::size_t chunk) {
  const std::size_t chunks = n == 0 ? 1 : (n + chunk - 1) / chunk;
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<Value>(kHasValues ? n : 0);
  // chunks x places x kDigits counters, one tile counter per (chunk, pass), the running mask.
  scratch.counts_and_counters = scratch.layout.add<std::uint32_t>(
      histogram_entries(chunks, places) + chunks * static_cast<std::size_t>(places) + 1);
  scratch.digit_starts = scratch.layout.add<std::uint64_t>(histogram_entries(1, places));
  // Where chunks 1, 2, ... of the pass under way start each digit (every pass reuses them).
  scratch.chunk_starts = scratch.layout.add<std::uint64_t>(histogram_entries(chunks - 1, 1));
  // One launch's status words: every launch clears and reuses them.
  scratch.tile_status = scratch.layout.add<std::uint32_t>(
      tiles_for<Key, Value, kHasValues>(std::min(n, chunk)) * kDigits);
  return scratch;
}

/// Queues one launch: clear the status words, run the onesweep kernel (\p kTraced: the variant
/// that writes \p trace, for trace_pass only).
template <typename Key, typename Value, bool kHasValues, bool kTraced = false>
void launch_pass(const PassArrays<Key, Value>& arrays, const PassParams& params,
                 const OnesweepTrace& trace, cudaStream_t stream) {
  SORTLAB_CUDA_CHECK(
      cudaMemsetAsync(params.tile_status, 0,
                      std::size_t{params.num_tiles} * kDigits * sizeof(std::uint32_t), stream));
  // The tiles are sized for the shared memory of sm_80 and sm_90 (164 and 228 KiB per SM); a pair
  // sort's block takes up to 110 KiB, more than sm_86 and sm_89 give a block (99 KiB), and there
  // allow_dynamic_shared_memory() stops with an error that says so.
  constexpr std::size_t kBytes = sizeof(typename OnesweepTile<Key, Value, kHasValues>::Storage);
  allow_dynamic_shared_memory<onesweep_kernel<Key, Value, kHasValues, kTraced>, kBytes>();
  onesweep_kernel<Key, Value, kHasValues, kTraced>
      <<<params.num_tiles, kThreadsPerBlock, kBytes, stream>>>(arrays, params, trace);
  SORTLAB_CHECK_LAUNCH();
}

template <typename Key, typename Value, bool kHasValues>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, const SortOptions& options,
          const Config& config, cudaStream_t stream) {
  validate_config(config);
  const std::size_t chunk = chunk_items<Key, Value, kHasValues>(config);
  const SortArrays checked = validate_sort_arguments<Key, Value>(
      temp_storage, n, options, keys_in, keys_out, values_in, values_out, kMaxItems);
  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  const int places = num_passes(num_bits);
  const Scratch scratch = plan_scratch<Key, Value, kHasValues>(n, places, chunk);
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const auto& layout = scratch.layout;
  const PingPongArrays<Key, Value> ping_pong = make_ping_pong_arrays(
      keys_in, keys_out, layout.get<Key>(temp_storage, scratch.alternate_keys),
      kHasValues ? values_in : nullptr, values_out,
      layout.get<Value>(temp_storage, scratch.alternate_values));
  if (num_bits == 0 || n == 1) {  // nothing to reorder: the output is the input
    copy_input_to_output(ping_pong, n, stream);
    return;
  }
  const PassArrays<Key, Value> arrays{ping_pong.keys_in,        ping_pong.keys_out,
                                      ping_pong.alternate_keys, ping_pong.values_in,
                                      ping_pong.values_out,     ping_pong.alternate_values};

  // Histograms of every place from one read per chunk, and their scans. The counters start at
  // zero on every call: the sort clears them itself, so a reused scratch needs nothing from the
  // caller.
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::uint32_t* counts = layout.get<std::uint32_t>(temp_storage, scratch.counts_and_counters);
  std::uint32_t* tile_counters = counts + histogram_entries(chunks, places);
  std::uint32_t* running_passes = tile_counters + chunks * places;
  std::uint64_t* digit_starts = layout.get<std::uint64_t>(temp_storage, scratch.digit_starts);
  std::uint64_t* chunk_starts = layout.get<std::uint64_t>(temp_storage, scratch.chunk_starts);
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(
      counts, 0, (histogram_entries(chunks, places) + chunks * places + 1) * sizeof(std::uint32_t),
      stream));
  const SortBits bits{resolved.begin_bit, resolved.end_bit, resolved.descending};
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * chunk, chunk_n = std::min(chunk, n - first);
    histogram_kernel<Key><<<histogram_blocks(chunk_n), kHistogramThreads, 0, stream>>>(
        keys_in + first, chunk_n, bits, counts + histogram_entries(c, places));
    SORTLAB_CHECK_LAUNCH();
  }
  scan_histograms_kernel<<<places, kDigits, 0, stream>>>(counts, static_cast<int>(chunks), places,
                                                         n, digit_starts, running_passes);
  SORTLAB_CHECK_LAUNCH();

  // Every pass is queued, one launch per chunk; a pass the scan found trivial returns at once,
  // and the ones that run ping-pong so that the last of them writes keys_out (pass_roles.hpp).
  // Chunk c > 0 starts its digits where chunk c - 1's last tile said (chunk_starts).
  PassParams params;
  params.descending = resolved.descending;
  params.tile_status = layout.get<std::uint32_t>(temp_storage, scratch.tile_status);
  params.running_passes = running_passes;
  for (int pass = 0; pass < places; ++pass) {
    params.pass = pass;
    params.first_bit = resolved.begin_bit + pass * kRadixBits;
    params.num_bits = std::min(kRadixBits, resolved.end_bit - params.first_bit);
    for (std::size_t c = 0; c < chunks; ++c) {
      params.chunk_first = c * chunk;
      params.n = std::min(chunk, n - params.chunk_first);
      params.num_tiles = static_cast<std::uint32_t>(tiles_for<Key, Value, kHasValues>(params.n));
      params.digit_starts =
          c == 0 ? digit_starts + std::size_t{kDigits} * pass : chunk_starts + (c - 1) * kDigits;
      params.next_chunk_starts = c + 1 < chunks ? chunk_starts + c * kDigits : nullptr;
      params.tile_counter = tile_counters + c * places + pass;
      launch_pass<Key, Value, kHasValues>(arrays, params, OnesweepTrace{}, stream);
    }
  }
}

}  // namespace launcher

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, const Config& config,
               cudaStream_t stream) {
  launcher::sort<Key, KeysOnly, false>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr,
                                       nullptr, n, options, config, stream);
}

template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                const SortOptions& options, const Config& config, cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  using Carrier = ValueCarrier<sizeof(Value)>;
  static_assert(kCarriableValue<Value>,
                "values must be trivially copyable and no more aligned than their size");
  launcher::sort<Key, Carrier, true>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                                     reinterpret_cast<const Carrier*>(values_in),
                                     reinterpret_cast<Carrier*>(values_out), n, options, config,
                                     stream);
}

template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, int num_bits,
                          bool descending) {
  num_bits = checked_trace_digit_bits<Key>(first_bit, num_bits, kRadixBits);
  const std::size_t n = keys.size();
  constexpr std::size_t kValueBytes = sizeof(std::uint32_t);
  require(n <= chunk_items_for(sizeof(Key), kValueBytes), [&] {
    return "trace_pass: " + std::to_string(n) + " keys is more than one chunk (" +
           std::to_string(chunk_items_for(sizeof(Key), kValueBytes)) + ")";
  });
  // The pass runs as a pair sort with u32 values: its tile is that sort's, which the CPU model
  // takes by default too.
  const std::size_t tiles = launcher::tiles_for<Key, std::uint32_t, true>(n);
  static_assert(launcher::kTileOf<Key, std::uint32_t, true> == trace_tile_items_for(sizeof(Key)));
  const std::size_t digits = std::size_t{1} << num_bits;
  PassTrace<Key> trace;
  trace.num_tiles = static_cast<int>(tiles);
  trace.num_digits = static_cast<int>(digits);
  trace.tile_items = trace_tile_items_for(sizeof(Key));
  if (n == 0) return trace;

  // The pass runs as a pair sort with values 0..n-1: value j landing at position p says that
  // input key j went to p. One place, from the input to the output, on a private non-blocking
  // stream with stream-ordered buffers; every array the pass must fill starts poisoned.
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = static_cast<std::uint32_t>(i);
  const CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<Key> keys_in(keys, s), keys_out(n, s);
  DeviceBuffer<std::uint32_t> values_in(iota, s), values_out(n, s), digits_of(n, s), ranks(n, s);
  DeviceBuffer<std::uint32_t> counts(kDigits + 1, s);
  DeviceBuffer<std::uint64_t> starts(kDigits, s);
  DeviceBuffer<std::uint32_t> status(tiles * kDigits, s), tile_counts(tiles * kDigits, s),
      prefixes(tiles * kDigits, s);
  for (auto* buffer : {&values_out, &digits_of, &ranks, &tile_counts, &prefixes}) buffer->poison();
  starts.poison();
  keys_out.poison();
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), s));

  histogram_kernel<Key><<<launcher::histogram_blocks(n), kHistogramThreads, 0, s>>>(
      keys_in.data(), n, SortBits{first_bit, first_bit + num_bits, descending}, counts.data());
  SORTLAB_CHECK_LAUNCH();
  // One chunk, one place; the pass runs even if its digit is the same for every key (no mask).
  scan_histograms_kernel<<<1, kDigits, 0, s>>>(counts.data(), 1, 1, n, starts.data(), nullptr);
  SORTLAB_CHECK_LAUNCH();
  PassParams params;
  params.first_bit = first_bit;
  params.num_bits = num_bits;
  params.descending = descending;
  params.n = n;
  params.num_tiles = static_cast<std::uint32_t>(tiles);
  params.digit_starts = starts.data();
  params.tile_status = status.data();
  params.tile_counter = counts.data() + kDigits;
  launcher::launch_pass<Key, std::uint32_t, true, /*kTraced=*/true>(
      {keys_in.data(), keys_out.data(), nullptr, values_in.data(), values_out.data(), nullptr},
      params, OnesweepTrace{digits_of.data(), ranks.data(), tile_counts.data(), prefixes.data()},
      s);
  stream.synchronize();

  // Only the first 2^w digits exist in a pass of w < 8 bits.
  const auto first_digits = [&](const std::vector<std::uint32_t>& per_tile) {
    std::vector<std::uint32_t> kept;
    for (std::size_t b = 0; b < per_tile.size() / kDigits; ++b)
      kept.insert(kept.end(), per_tile.begin() + b * kDigits,
                  per_tile.begin() + b * kDigits + digits);
    return kept;
  };
  trace.histogram = first_digits(counts.download());  // the tile counter's word is dropped too
  std::vector<std::uint32_t> starts32;                // below 2^30 in a one-chunk trace
  const std::vector<std::uint64_t> starts64 = starts.download();
  for (const std::uint64_t start : starts64) starts32.push_back(static_cast<std::uint32_t>(start));
  trace.digit_starts = first_digits(starts32);
  trace.tile_counts = first_digits(tile_counts.download());
  trace.exclusive_prefixes = first_digits(prefixes.download());
  trace.final_status = first_digits(status.download());
  trace.digits = digits_of.download();
  trace.ranks = ranks.download();
  trace.keys_out = keys_out.download();
  const std::vector<std::uint32_t> origin = values_out.download();
  trace.destinations.resize(n);
  for (std::size_t p = 0; p < n; ++p) trace.destinations[origin[p]] = static_cast<std::uint32_t>(p);
  return trace;
}

/// Instantiates sort_pairs<Key, Value>: a helper of SORTLAB_STAGE08_INSTANTIATE.
#define SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, Value)                                          \
  template void sort_pairs<Key, Value>(void*, std::size_t&, const Key*, Key*, const Value*,    \
                                       Value*, std::size_t, const SortOptions&, const Config&, \
                                       cudaStream_t);
/// One instantiation of the public sorts and the pass trace for key type \p Key (keys only, u32,
/// u64 and i64 values), in the file of instances/ for that type and nowhere else (compile time).
#define SORTLAB_STAGE08_INSTANTIATE(Key)                                           \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t, \
                               const SortOptions&, const Config&, cudaStream_t);   \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::uint32_t)                            \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::uint64_t)                            \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::int64_t)                             \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, int, bool);

}  // namespace sortlab::stage08
