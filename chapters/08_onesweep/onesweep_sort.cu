/// \file
/// \brief Stage 08 host launcher: zero the histograms and tile counters, one histogram kernel for
/// every digit place, one scan kernel, then per place: zero the status words, one onesweep kernel.
/// The trace of one pass, the bytes-moved model, and explicit instantiations for stage 05's 12 key
/// types (8- to 64-bit integers, f16, bf16, f32, f64) with u32, u64 and i64 values.
///
/// Verified on the H100 (ctest -L stage08, compute-sanitizer).
#include <algorithm>
#include <string>
#include <type_traits>

#include "chapters/08_onesweep/onesweep_kernels.cuh"
#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_properties.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage08 {
namespace {

/// Tiles of a pass over \p n keys of type Key.
template <typename Key>
std::size_t tiles_for(std::size_t n) {
  const std::size_t tile = tile_items_for(sizeof(Key));
  return (n + tile - 1) / tile;
}

/// Blocks of the histogram kernel: one per kHistogramThreads * kHistogramKeysPerThread keys, so
/// that 2^20 keys already fill the GPU, but at most kHistogramBlocksPerSm per SM (each block ends
/// with up to places x 256 global atomics). Asks the driver for the SM count (no synchronisation).
unsigned histogram_blocks(std::size_t n) {
  const std::size_t per_block =
      static_cast<std::size_t>(kHistogramThreads) * kHistogramKeysPerThread;
  const std::size_t most = std::size_t{multiprocessor_count()} * kHistogramBlocksPerSm;
  return static_cast<unsigned>(std::clamp<std::size_t>((n + per_block - 1) / per_block, 1, most));
}

/// The scratch one sort needs, in one allocation. The histograms and the tile counters are
/// adjacent so that one memset zeroes both.
struct Scratch {
  std::size_t alternate_keys, alternate_values, counts_and_counters, digit_starts, tile_status;
  ScratchLayout layout;
};

/// Entries before the tile counters in the counts_and_counters array.
constexpr std::size_t histogram_entries(int places) {
  return static_cast<std::size_t>(places) * kDigits;
}

template <typename Key, typename Value>
Scratch plan_scratch(std::size_t n, bool with_values, int places) {
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<Value>(with_values ? n : 0);
  // places x kDigits counters, then one tile counter per pass.
  scratch.counts_and_counters =
      scratch.layout.add<std::uint32_t>(histogram_entries(places) + places);
  scratch.digit_starts = scratch.layout.add<std::uint32_t>(histogram_entries(places));
  // One pass's status words: every pass clears and reuses them.
  scratch.tile_status = scratch.layout.add<std::uint32_t>(tiles_for<Key>(n) * kDigits);
  return scratch;
}

/// Queues one pass: clear the status words, run the onesweep kernel.
template <typename Key, typename Value, bool kHasValues>
void launch_pass(const PassArrays<Key, Value>& arrays, const PassParams& params,
                 const OnesweepTrace& trace, cudaStream_t stream) {
  SORTLAB_CUDA_CHECK(
      cudaMemsetAsync(params.tile_status, 0,
                      std::size_t{params.num_tiles} * kDigits * sizeof(std::uint32_t), stream));
  onesweep_kernel<Key, Value, kHasValues>
      <<<params.num_tiles, kThreadsPerBlock, 0, stream>>>(arrays, params, trace);
  SORTLAB_CHECK_LAUNCH();
}

template <typename Key, typename Value, bool kHasValues>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, const SortOptions& options,
          const Config& config, cudaStream_t stream) {
  validate_config(config);
  const SortArrays checked = validate_sort_arguments<Key, Value>(
      temp_storage, n, options, keys_in, keys_out, values_in, values_out, kMaxItems);
  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  const int places = num_passes(num_bits);
  const Scratch scratch = plan_scratch<Key, Value>(n, kHasValues, places);
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const auto& layout = scratch.layout;
  const PingPongArrays<Key, Value> arrays = make_ping_pong_arrays(
      keys_in, keys_out, layout.get<Key>(temp_storage, scratch.alternate_keys),
      kHasValues ? values_in : nullptr, values_out,
      layout.get<Value>(temp_storage, scratch.alternate_values));
  if (num_bits == 0 || n == 1) {  // nothing to reorder: the output is the input
    copy_input_to_output(arrays, n, stream);
    return;
  }

  // Histograms of every place from one read, and their scans. The counters start at zero on
  // every call: the sort clears them itself, so a reused scratch needs nothing from the caller.
  std::uint32_t* counts = layout.get<std::uint32_t>(temp_storage, scratch.counts_and_counters);
  std::uint32_t* tile_counters = counts + histogram_entries(places);
  std::uint32_t* digit_starts = layout.get<std::uint32_t>(temp_storage, scratch.digit_starts);
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(
      counts, 0, (histogram_entries(places) + places) * sizeof(std::uint32_t), stream));
  histogram_kernel<Key><<<histogram_blocks(n), kHistogramThreads, 0, stream>>>(
      keys_in, n, SortBits{resolved.begin_bit, resolved.end_bit, resolved.descending}, counts);
  SORTLAB_CHECK_LAUNCH();
  scan_histograms_kernel<<<places, kDigits, 0, stream>>>(counts, digit_starts);
  SORTLAB_CHECK_LAUNCH();

  // One onesweep kernel per place, ping-ponging so that the last pass writes keys_out.
  PassParams params;
  params.descending = resolved.descending;
  params.n = n;
  params.num_tiles = static_cast<std::uint32_t>(tiles_for<Key>(n));
  params.tile_status = layout.get<std::uint32_t>(temp_storage, scratch.tile_status);
  run_ping_pong_passes(places, arrays,
                       [&](int pass, const Key* source_keys, Key* target_keys,
                           const Value* source_values, Value* target_values) {
                         params.first_bit = resolved.begin_bit + pass * kRadixBits;
                         params.num_bits =
                             std::min(kRadixBits, resolved.end_bit - params.first_bit);
                         params.digit_starts = digit_starts + histogram_entries(pass);
                         params.tile_counter = tile_counters + pass;
                         launch_pass<Key, Value, kHasValues>(
                             {source_keys, target_keys, source_values, target_values}, params,
                             OnesweepTrace{}, stream);
                       });
}

}  // namespace

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, const Config& config,
               cudaStream_t stream) {
  sort<Key, KeysOnly, false>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr, nullptr,
                             n, options, config, stream);
}

template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                const SortOptions& options, const Config& config, cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  using Carrier = ValueCarrier<sizeof(Value)>;
  static_assert(kCarriableValue<Value>,
                "values must be trivially copyable and no more aligned than their size");
  sort<Key, Carrier, true>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                           reinterpret_cast<const Carrier*>(values_in),
                           reinterpret_cast<Carrier*>(values_out), n, options, config, stream);
}

template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, int num_bits,
                          bool descending) {
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits, [&] {
    return "trace_pass: first_bit = " + std::to_string(first_bit) + " is outside [0, " +
           std::to_string(KeyTraits<Key>::kNumBits) + ")";
  });
  require(num_bits >= 1 && num_bits <= kRadixBits, [&] {
    return "trace_pass: num_bits = " + std::to_string(num_bits) + " is outside 1.." +
           std::to_string(kRadixBits);
  });
  num_bits = std::min(num_bits, KeyTraits<Key>::kNumBits - first_bit);
  const std::size_t n = keys.size();
  require(n <= kMaxItems,
          [&] { return "trace_pass: " + std::to_string(n) + " keys is more than 2^30"; });
  const std::size_t tiles = tiles_for<Key>(n);
  const std::size_t digits = std::size_t{1} << num_bits;
  PassTrace<Key> trace;
  trace.num_tiles = static_cast<int>(tiles);
  trace.num_digits = static_cast<int>(digits);
  trace.tile_items = tile_items_for(sizeof(Key));
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
  DeviceBuffer<std::uint32_t> counts(kDigits + 1, s), starts(kDigits, s);
  DeviceBuffer<std::uint32_t> status(tiles * kDigits, s), tile_counts(tiles * kDigits, s),
      prefixes(tiles * kDigits, s);
  for (auto* buffer : {&values_out, &digits_of, &ranks, &starts, &tile_counts, &prefixes})
    buffer->poison();
  keys_out.poison();
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), s));

  histogram_kernel<Key><<<histogram_blocks(n), kHistogramThreads, 0, s>>>(
      keys_in.data(), n, SortBits{first_bit, first_bit + num_bits, descending}, counts.data());
  SORTLAB_CHECK_LAUNCH();
  scan_histograms_kernel<<<1, kDigits, 0, s>>>(counts.data(), starts.data());
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
  launch_pass<Key, std::uint32_t, true>(
      {keys_in.data(), keys_out.data(), values_in.data(), values_out.data()}, params,
      OnesweepTrace{digits_of.data(), ranks.data(), tile_counts.data(), prefixes.data()}, s);
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
  trace.digit_starts = first_digits(starts.download());
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

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config) {
  validate_config(config);
  const double items = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0 || n <= 1) return 2.0 * items * tuple_bytes;  // nothing to sort: a copy
  const std::size_t tile = static_cast<std::size_t>(tile_items_for(key_bytes));
  const double status_bytes = 4.0 * kDigits * static_cast<double>((n + tile - 1) / tile);
  double total = items * static_cast<double>(key_bytes);  // the histograms' one read
  for (int pass = 0; pass < num_passes(num_bits, config.radix_bits); ++pass)
    total += 2.0 * items * tuple_bytes + 3.0 * status_bytes;  // clear, publish, look back
  return total;
}

// One instantiation per supported key and value type, here and only here (CI compile time).
#define SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, Value)                                          \
  template void sort_pairs<Key, Value>(void*, std::size_t&, const Key*, Key*, const Value*,    \
                                       Value*, std::size_t, const SortOptions&, const Config&, \
                                       cudaStream_t);
#define SORTLAB_STAGE08_INSTANTIATE(Key)                                           \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t, \
                               const SortOptions&, const Config&, cudaStream_t);   \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::uint32_t)                            \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::uint64_t)                            \
  SORTLAB_STAGE08_INSTANTIATE_PAIRS(Key, std::int64_t)                             \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, int, bool);
SORTLAB_STAGE08_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE08_INSTANTIATE(std::int32_t)
SORTLAB_STAGE08_INSTANTIATE(float)
SORTLAB_STAGE08_INSTANTIATE(std::uint64_t)
SORTLAB_STAGE08_INSTANTIATE(std::int64_t)
SORTLAB_STAGE08_INSTANTIATE(double)
SORTLAB_STAGE08_INSTANTIATE(std::uint16_t)
SORTLAB_STAGE08_INSTANTIATE(std::int16_t)
SORTLAB_STAGE08_INSTANTIATE(std::uint8_t)
SORTLAB_STAGE08_INSTANTIATE(std::int8_t)
SORTLAB_STAGE08_INSTANTIATE(__half)
SORTLAB_STAGE08_INSTANTIATE(__nv_bfloat16)
#undef SORTLAB_STAGE08_INSTANTIATE
#undef SORTLAB_STAGE08_INSTANTIATE_PAIRS

}  // namespace sortlab::stage08
