/// \file
/// \brief Stage 05 host launcher: the survey, then ceil(bits / r) passes of upsweep -> table scan
/// -> downsweep, every one queued whether or not it will run (the kernels decide on the device),
/// and the copy for a sort in which no pass runs; and the trace of one pass.
///
/// Templates only: each file of `instances/` instantiates them for one key type
/// (SORTLAB_STAGE05_INSTANTIATE), so that the 12 key types compile in parallel.
/// packed_rank_sort.cu holds the bytes-moved model, which does not depend on the types.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "chapters/05_packed_rank/packed_rank_sort_kernels.cuh"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/scratch_layout.hpp"
#include "common/trace_digit.hpp"

namespace sortlab::stage05 {
/// The launcher's own helpers: only the files of instances/ include this header, each for one
/// key type (a named namespace, not an anonymous one, so that the public templates below mean
/// the same in every file that instantiates them; left out of the reading guide, as the
/// anonymous namespace was).
namespace launcher {

/// Tiles of a pass over \p n keys of type Key (with values of \p value_bytes bytes) and digits
/// of \p radix_bits bits.
template <typename Key>
std::size_t tiles_for(std::size_t n, int radix_bits = kRadixBits, std::size_t value_bytes = 0) {
  const std::size_t tile = tile_items_for(sizeof(Key), radix_bits, value_bytes);
  return (n + tile - 1) / tile;
}

/// Entries of the block bucket table: 2^r rows, one column per tile.
template <typename Key>
std::size_t table_entries_for(std::size_t n, int radix_bits = kRadixBits,
                              std::size_t value_bytes = 0) {
  return (std::size_t{1} << radix_bits) * tiles_for<Key>(n, radix_bits, value_bytes);
}

/// Blocks of the survey and copy kernels: enough to fill the GPU, each thread folding many keys.
inline unsigned grid_stride_blocks(std::size_t n) {
  const std::size_t per_block = static_cast<std::size_t>(kSurveyThreads) * 16;
  return static_cast<unsigned>(std::clamp<std::size_t>((n + per_block - 1) / per_block, 1, 2048));
}

/// The scratch one sort needs, in one allocation.
struct Scratch {
  std::size_t alternate_keys, alternate_values, table, scan_temp, survey;
  ScratchLayout layout;
};

template <typename Key, typename Value>
Scratch plan_scratch(std::size_t n, bool with_values, int radix_bits) {
  const std::size_t entries =
      table_entries_for<Key>(n, radix_bits, with_values ? sizeof(Value) : 0);
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<Value>(with_values ? n : 0);
  // One table, scanned in place: the downsweep takes each tile's digit starts from its own rank,
  // so only the scanned table (global starts) is needed.
  scratch.table = scratch.layout.add<std::uint32_t>(entries);
  scratch.scan_temp = scratch.layout.add<unsigned char>(device_exclusive_sum_temp_bytes(entries));
  scratch.survey = scratch.layout.add<Survey>(1);
  return scratch;
}

/// Everything one pass's launches need.
template <typename Key, typename Value>
struct PassLaunch {
  PassPlan plan;
  SortBuffers<Key, Value> arrays;
  std::uint32_t* table;
  void* scan_temp;
  std::size_t scan_temp_bytes;
  std::size_t n;
  bool descending;
  cudaStream_t stream;
  std::uint32_t* digits = nullptr;  ///< trace only
  DownsweepTrace<Key> trace{};      ///< trace only
};

template <typename Key, typename Value, bool kHasValues, typename Tiling>
void run_pass(const PassLaunch<Key, Value>& launch, int pass) {
  constexpr std::size_t kValueBytes = kHasValues ? sizeof(Value) : 0;
  const unsigned tiles =
      static_cast<unsigned>(tiles_for<Key>(launch.n, Tiling::kRadixBits, kValueBytes));
  upsweep_kernel<Key, Value, Tiling><<<tiles, Tiling::kThreads, 0, launch.stream>>>(
      launch.plan, pass, launch.arrays, launch.table, launch.n, launch.descending, launch.digits);
  SORTLAB_CHECK_LAUNCH();
  device_exclusive_sum(launch.scan_temp, launch.scan_temp_bytes, launch.table, launch.table,
                       table_entries_for<Key>(launch.n, Tiling::kRadixBits, kValueBytes),
                       launch.stream);
  downsweep_kernel<Key, Value, kHasValues, Tiling><<<tiles, Tiling::kThreads, 0, launch.stream>>>(
      launch.plan, pass, launch.arrays, launch.table, launch.n, launch.descending, launch.trace);
  SORTLAB_CHECK_LAUNCH();
}

template <typename Key, typename Value, bool kHasValues>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, const SortOptions& options,
          const Config& config, cudaStream_t stream) {
  constexpr std::size_t kValueBytes = kHasValues ? sizeof(Value) : 0;
  validate_config(config);
  const SortArrays checked = validate_sort_arguments<Key, Value>(
      temp_storage, n, options, keys_in, keys_out, values_in, values_out, kMaxItems);
  const Scratch scratch = plan_scratch<Key, Value>(n, kHasValues, config.radix_bits);
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  const auto& layout = scratch.layout;
  SortBuffers<Key, Value> arrays{
      keys_in,   keys_out,   layout.get<Key>(temp_storage, scratch.alternate_keys),
      values_in, values_out, layout.get<Value>(temp_storage, scratch.alternate_values)};
  if (num_bits == 0 || n == 1) {  // nothing to reorder: the output is the input
    SORTLAB_CUDA_CHECK(
        cudaMemcpyAsync(keys_out, keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
    if constexpr (kHasValues)
      SORTLAB_CUDA_CHECK(cudaMemcpyAsync(values_out, values_in, n * sizeof(Value),
                                         cudaMemcpyDeviceToDevice, stream));
    return;
  }

  // The survey: AND starts at all ones, OR at zero.
  Survey* survey = layout.get<Survey>(temp_storage, scratch.survey);
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(&survey->all_and, 0xFF, sizeof(survey->all_and), stream));
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(&survey->all_or, 0, sizeof(survey->all_or), stream));
  survey_kernel<Key><<<grid_stride_blocks(n), kSurveyThreads, 0, stream>>>(keys_in, n, survey);
  SORTLAB_CHECK_LAUNCH();

  PassLaunch<Key, Value> launch{};
  launch.plan = PassPlan{resolved.begin_bit, resolved.end_bit, config.radix_bits, survey};
  launch.arrays = arrays;
  launch.table = layout.get<std::uint32_t>(temp_storage, scratch.table);
  launch.scan_temp = layout.get<unsigned char>(temp_storage, scratch.scan_temp);
  launch.scan_temp_bytes =
      device_exclusive_sum_temp_bytes(table_entries_for<Key>(n, config.radix_bits, kValueBytes));
  launch.n = n;
  launch.descending = resolved.descending;
  launch.stream = stream;
  for (int pass = 0; pass < num_passes(num_bits, config.radix_bits); ++pass) {
    if (config.radix_bits == 7)
      run_pass<Key, Value, kHasValues, DeviceTiling<Key, 7, kValueBytes>>(launch, pass);
    else
      run_pass<Key, Value, kHasValues, DeviceTiling<Key, 6, kValueBytes>>(launch, pass);
  }
  copy_when_every_pass_is_trivial_kernel<Key, Value, kHasValues>
      <<<grid_stride_blocks(n), kSurveyThreads, 0, stream>>>(launch.plan, arrays, n);
  SORTLAB_CHECK_LAUNCH();
}

}  // namespace launcher

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, const Config& config,
               cudaStream_t stream) {
  launcher::sort<Key, NullType, false>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr,
                                       nullptr, n, options, config, stream);
}

template <typename Key, typename Carrier>
void sort_carried_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                        Key* keys_out, const Carrier* values_in, Carrier* values_out, std::size_t n,
                        const SortOptions& options, const Config& config, cudaStream_t stream) {
  launcher::sort<Key, Carrier, true>(temp_storage, temp_storage_bytes, keys_in, keys_out, values_in,
                                     values_out, n, options, config, stream);
}

template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, int num_bits,
                          bool descending) {
  num_bits = checked_trace_digit_bits<Key>(first_bit, num_bits, kRadixBits);
  const std::size_t n = keys.size();
  require(n <= kMaxSortItems,
          [&] { return "trace_pass: " + std::to_string(n) + " keys is more than 2^30"; });
  using Tiling = DeviceTiling<Key, kRadixBits>;  // traces show the default tiling
  constexpr int kK = Tiling::kKeysPerThread;
  using Shape = PackedRankShape<kThreadsPerBlock, kK, kRadixBits, kCounterBits>;
  PassTrace<Key> trace;
  trace.num_digits = 1 << num_bits;
  trace.tile_items = tile_items_for(sizeof(Key));
  trace.num_blocks = static_cast<int>(launcher::tiles_for<Key>(n));
  trace.threads = kThreadsPerBlock;
  trace.keys_per_thread = kK;
  trace.lanes = Shape::kLanes;
  trace.fields_per_word = Shape::kFieldsPerWord;
  if (n == 0) return trace;

  // The pass runs as a pair sort with values 0..n-1: value j landing at position p says that
  // input key j went to p. One pass, forced (no survey), from the input to the output, on a
  // private non-blocking stream with stream-ordered buffers (tracing never waits on, or holds
  // up, other work on the GPU); every array the pass must fill starts poisoned.
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = static_cast<std::uint32_t>(i);
  const std::size_t tiles = launcher::tiles_for<Key>(n);
  const std::size_t words = tiles * Shape::kLanes * kThreadsPerBlock;
  const CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<Key> keys_in(keys, s), keys_out(n, s), local_sorted(n, s);
  DeviceBuffer<std::uint32_t> values_in(iota, s), values_out(n, s), digits(n, s), ranks(n, s);
  DeviceBuffer<std::uint32_t> before(words, s), after(words, s), carries(tiles, s);
  DeviceBuffer<std::uint32_t> table(launcher::table_entries_for<Key>(n), s);
  DeviceBuffer<unsigned char> scan_temp(device_exclusive_sum_temp_bytes(table.size()), s);
  for (auto* buffer : {&values_out, &digits, &ranks, &before, &after, &carries, &table})
    buffer->poison();
  keys_out.poison();
  local_sorted.poison();

  launcher::PassLaunch<Key, std::uint32_t> launch{};
  launch.plan = PassPlan{first_bit, first_bit + num_bits, kRadixBits, nullptr};
  launch.arrays = {keys_in.data(),   keys_out.data(),   nullptr,
                   values_in.data(), values_out.data(), nullptr};
  launch.table = table.data();
  launch.scan_temp = scan_temp.data();
  launch.scan_temp_bytes = scan_temp.bytes();
  launch.n = n;
  launch.descending = descending;
  launch.stream = s;
  launch.digits = digits.data();
  launch.trace = {before.data(), after.data(), carries.data(), ranks.data(), local_sorted.data()};

  upsweep_kernel<Key, std::uint32_t, Tiling>
      <<<static_cast<unsigned>(tiles), Tiling::kThreads, 0, s>>>(
          launch.plan, 0, launch.arrays, launch.table, n, descending, launch.digits);
  SORTLAB_CHECK_LAUNCH();
  // The table has kDigits rows; a pass of w < r bits only uses the first 2^w. (download()
  // waits for the stream, so this is the table before the in-place scan.)
  const std::vector<std::uint32_t> full_table = table.download();
  trace.block_bucket_table.assign(
      full_table.begin(),
      full_table.begin() + static_cast<std::ptrdiff_t>(trace.num_digits * tiles));
  device_exclusive_sum(launch.scan_temp, launch.scan_temp_bytes, launch.table, launch.table,
                       table.size(), s);
  downsweep_kernel<Key, std::uint32_t, true, Tiling>
      <<<static_cast<unsigned>(tiles), Tiling::kThreads, 0, s>>>(
          launch.plan, 0, launch.arrays, launch.table, n, descending, launch.trace);
  SORTLAB_CHECK_LAUNCH();
  stream.synchronize();
  const std::vector<std::uint32_t> full_scanned = table.download();
  trace.scanned_table.assign(
      full_scanned.begin(),
      full_scanned.begin() + static_cast<std::ptrdiff_t>(trace.num_digits * tiles));
  trace.digits = digits.download();
  trace.ranks = ranks.download();
  trace.local_sorted = local_sorted.download();
  trace.keys_out = keys_out.download();
  const std::vector<std::uint32_t> all_before = before.download(), all_after = after.download(),
                                   all_carries = carries.download();
  const std::size_t per_tile = static_cast<std::size_t>(Shape::kLanes) * kThreadsPerBlock;
  for (std::size_t b = 0; b < tiles; ++b) {
    TileCounters counters;
    counters.before_scan.assign(all_before.begin() + b * per_tile,
                                all_before.begin() + (b + 1) * per_tile);
    counters.after_scan.assign(all_after.begin() + b * per_tile,
                               all_after.begin() + (b + 1) * per_tile);
    counters.carry = all_carries[b];
    trace.counters.push_back(std::move(counters));
  }
  const std::vector<std::uint32_t> origin = values_out.download();
  trace.destinations.resize(n);
  for (std::size_t position = 0; position < n; ++position)
    trace.destinations[origin[position]] = static_cast<std::uint32_t>(position);
  return trace;
}

/// Instantiates sort_carried_pairs<Key, Carrier>: a helper of SORTLAB_STAGE05_INSTANTIATE.
#define SORTLAB_STAGE05_INSTANTIATE_PAIRS(Key, Carrier)                                 \
  template void sort_carried_pairs<Key, Carrier>(void*, std::size_t&, const Key*, Key*, \
                                                 const Carrier*, Carrier*, std::size_t, \
                                                 const SortOptions&, const Config&, cudaStream_t);
/// One instantiation of the public sorts and the pass trace for key type \p Key with every value
/// carrier (4, 8 and 16 bytes: sort_pairs() in the header maps every value type onto one of
/// them), in the file of instances/ for that type and nowhere else (compile time).
#define SORTLAB_STAGE05_INSTANTIATE(Key)                                           \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t, \
                               const SortOptions&, const Config&, cudaStream_t);   \
  SORTLAB_STAGE05_INSTANTIATE_PAIRS(Key, std::uint32_t)                            \
  SORTLAB_STAGE05_INSTANTIATE_PAIRS(Key, std::uint64_t)                            \
  SORTLAB_STAGE05_INSTANTIATE_PAIRS(Key, Bytes16)                                  \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, int, bool);

}  // namespace sortlab::stage05
