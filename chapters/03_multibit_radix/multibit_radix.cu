/// \file
/// \brief Stage 03 host launcher: ceil(bits / r) passes of count, table scan and scatter,
/// ping-ponging between keys_out and a scratch copy so that the last pass lands in keys_out.
#include <algorithm>
#include <numeric>

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/03_multibit_radix/multibit_radix_kernels.cuh"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage03 {
namespace {

/// Blocks (tiles) for n keys: the columns of the block bucket table.
std::size_t blocks_for(std::size_t n) {
  return (n + kTileItems - 1) / kTileItems;
}

/// Entries of the block bucket table of a pass with \p num_bits digit bits.
std::size_t table_entries(std::size_t n, int num_bits) {
  return (std::size_t{1} << num_bits) * blocks_for(n);
}

/// The scratch one sort needs, in one allocation. The table is sized for the widest pass
/// (min(r, bit range) bits); a narrower last pass uses its first rows.
struct Scratch {
  std::size_t alternate_keys, alternate_values, table, scan_temp;
  ScratchLayout layout;
};

template <typename Key>
Scratch plan_scratch(std::size_t n, bool with_values, int widest_pass_bits) {
  const std::size_t entries = widest_pass_bits > 0 ? table_entries(n, widest_pass_bits) : 0;
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<std::uint32_t>(with_values ? n : 0);
  scratch.table = scratch.layout.add<std::uint32_t>(entries);
  scratch.scan_temp = scratch.layout.add<unsigned char>(device_exclusive_sum_temp_bytes(entries));
  return scratch;
}

/// Arrays trace_pass wants filled (all null in a normal sort).
template <typename Key>
struct PassDebug {
  std::uint32_t* digits = nullptr;  ///< digit of each key
  Key* local_sorted = nullptr;      ///< each tile after the local split
};

/// One pass: count, scan the table, scatter. The scan may run in place
/// (block_bucket_table == scanned_table); trace_pass keeps both.
template <typename Key>
void run_pass(const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
              std::uint32_t* values_out, std::uint32_t* block_bucket_table,
              std::uint32_t* scanned_table, void* scan_temp, std::size_t scan_temp_bytes,
              std::size_t n, int first_bit, int num_bits, bool descending,
              const PassDebug<Key>& debug, cudaStream_t stream) {
  const unsigned num_blocks = static_cast<unsigned>(blocks_for(n));
  // 1. count: one histogram column of the block bucket table per block
  count_digits_kernel<Key><<<num_blocks, kThreadsPerBlock, count_shared_bytes(num_bits), stream>>>(
      keys_in, block_bucket_table, n, first_bit, num_bits, descending, debug.digits);
  SORTLAB_CHECK_LAUNCH();
  // 2. scan: one exclusive sum over the whole row-major table gives each (d, b) its global start
  device_exclusive_sum(scan_temp, scan_temp_bytes, block_bucket_table, scanned_table,
                       table_entries(n, num_bits), stream);
  // 3. scatter: local split, local bucket starts, coalesced writes
  const std::size_t shared = scatter_shared_bytes(num_bits);
  if (values_in != nullptr) {
    local_sort_scatter_kernel<Key, true><<<num_blocks, kThreadsPerBlock, shared, stream>>>(
        keys_in, keys_out, values_in, values_out, scanned_table, n, first_bit, num_bits, descending,
        debug.local_sorted);
  } else {
    local_sort_scatter_kernel<Key, false><<<num_blocks, kThreadsPerBlock, shared, stream>>>(
        keys_in, keys_out, nullptr, nullptr, scanned_table, n, first_bit, num_bits, descending,
        debug.local_sorted);
  }
  SORTLAB_CHECK_LAUNCH();
}

template <typename Key>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
          const SortOptions& options, const Config& config, cudaStream_t stream, bool with_values) {
  const SortArrays checked = validate_sort_arguments<Key>(temp_storage, n, options, keys_in,
                                                          keys_out, values_in, values_out);
  validate_config(config);
  const SortOptions resolved = resolve<Key>(options);
  const int range_bits = resolved.end_bit - resolved.begin_bit;
  const Scratch scratch =
      plan_scratch<Key>(n, with_values, std::min(config.radix_bits, range_bits));
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const auto& layout = scratch.layout;
  const auto arrays = make_ping_pong_arrays(
      keys_in, keys_out, layout.get<Key>(temp_storage, scratch.alternate_keys), values_in,
      values_out, layout.get<std::uint32_t>(temp_storage, scratch.alternate_values));
  const int passes = num_passes(range_bits, config);
  if (passes == 0 || n == 1) {  // nothing to reorder: the output is the input
    copy_input_to_output(arrays, n, stream);
    return;
  }
  std::uint32_t* table = layout.get<std::uint32_t>(temp_storage, scratch.table);
  void* scan_temp = layout.get<unsigned char>(temp_storage, scratch.scan_temp);
  // The widest pass's scan needs the most scratch; narrower tables need no more.
  const std::size_t scan_temp_bytes =
      device_exclusive_sum_temp_bytes(table_entries(n, std::min(config.radix_bits, range_bits)));
  // ceil(bits / r) passes, least significant digit first; the pass loop picks the arrays.
  run_ping_pong_passes(passes, arrays,
                       [&](int pass, const Key* source_keys, Key* target_keys,
                           const std::uint32_t* source_values, std::uint32_t* target_values) {
                         const int first_bit = resolved.begin_bit + pass * config.radix_bits;
                         // The last pass is narrower when r does not divide the bit range.
                         const int num_bits =
                             std::min(config.radix_bits, resolved.end_bit - first_bit);
                         run_pass<Key>(source_keys, target_keys, source_values, target_values,
                                       table, table, scan_temp, scan_temp_bytes, n, first_bit,
                                       num_bits, resolved.descending, PassDebug<Key>{}, stream);
                       });
}

}  // namespace

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, const Config& config,
               cudaStream_t stream) {
  sort<Key>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr, nullptr, n, options,
            config, stream, /*with_values=*/false);
}

template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options, const Config& config,
                cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  sort<Key>(temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, n, options,
            config, stream, /*with_values=*/true);
}

template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int first_bit, const Config& config,
                          bool descending) {
  validate_config(config);
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits, [&] {
    return "trace_pass: first_bit = " + std::to_string(first_bit) + " is outside [0, " +
           std::to_string(KeyTraits<Key>::kNumBits) + ")";
  });
  require(keys.size() <= kMaxSortItems,
          [&] { return "trace_pass: " + std::to_string(keys.size()) + " keys is more than 2^30"; });
  const int num_bits = std::min(config.radix_bits, KeyTraits<Key>::kNumBits - first_bit);
  const std::size_t n = keys.size();
  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(blocks_for(n));
  trace.num_buckets = 1 << num_bits;
  trace.tile_items = kTileItems;
  if (n == 0) return trace;

  // Run the pass as a pair sort with values 0..n-1: value j of the output names the input
  // position of output key j, which inverts into each input key's destination.
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), std::uint32_t{0});
  const std::size_t entries = table_entries(n, num_bits);
  // A private non-blocking stream and stream-ordered buffers: tracing never waits on (or
  // holds up) other work on the GPU. Every array the pass must fill starts poisoned.
  const CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<Key> keys_in(keys, s), keys_out(n, s), local_sorted(n, s);
  DeviceBuffer<std::uint32_t> values_in(positions, s), values_out(n, s), digits(n, s);
  DeviceBuffer<std::uint32_t> table(entries, s), scanned(entries, s);
  DeviceBuffer<unsigned char> scan_temp(device_exclusive_sum_temp_bytes(entries), s);
  keys_out.poison();
  local_sorted.poison();
  for (auto* buffer : {&values_out, &digits, &table, &scanned}) buffer->poison();
  PassDebug<Key> debug;
  debug.digits = digits.data();
  debug.local_sorted = local_sorted.data();
  run_pass<Key>(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), table.data(),
                scanned.data(), scan_temp.data(), scan_temp.bytes(), n, first_bit, num_bits,
                descending, debug, s);
  stream.synchronize();

  trace.digits = digits.download();
  trace.local_sorted = local_sorted.download();
  trace.block_bucket_table = table.download();
  trace.scanned_table = scanned.download();
  trace.keys_out = keys_out.download();
  const std::vector<std::uint32_t> came_from = values_out.download();
  trace.destinations.assign(n, 0);
  for (std::size_t j = 0; j < n; ++j)
    trace.destinations[came_from[j]] = static_cast<std::uint32_t>(j);
  return trace;
}

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config) {
  validate_config(config);
  const double keys = static_cast<double>(n);
  if (num_bits <= 0) return keys * 2.0 * static_cast<double>(key_bytes + value_bytes);  // a copy
  double total = 0.0;
  for (int done = 0; done < num_bits; done += config.radix_bits) {
    const int pass_bits = std::min(config.radix_bits, num_bits - done);
    const std::size_t entries = table_entries(n, pass_bits);
    const double table_bytes = 4.0 * static_cast<double>(entries);
    total += keys * key_bytes + table_bytes                    // count: keys in, table out
             + device_exclusive_sum_bytes(entries)             // scan of the table
             + keys * (key_bytes + value_bytes) + table_bytes  // scatter: tuples, starts in
             + keys * (key_bytes + value_bytes);               // scatter: tuples out
  }
  return total;
}

/// One instantiation per supported key type, here and only here (tests and tools link them).
#define SORTLAB_STAGE03_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t,              \
                               const SortOptions&, const Config&, cudaStream_t);                \
  template void sort_pairs<Key>(void*, std::size_t&, const Key*, Key*, const std::uint32_t*,    \
                                std::uint32_t*, std::size_t, const SortOptions&, const Config&, \
                                cudaStream_t);                                                  \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, const Config&, bool);
SORTLAB_STAGE03_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE03_INSTANTIATE(std::int32_t)
SORTLAB_STAGE03_INSTANTIATE(float)
#undef SORTLAB_STAGE03_INSTANTIATE

}  // namespace sortlab::stage03
