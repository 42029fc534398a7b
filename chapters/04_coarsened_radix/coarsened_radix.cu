/// \file
/// \brief Stage 04 host launcher: ceil(bits / r) passes of count -> table scan -> local split and
/// scatter, ping-ponging between keys_out and a scratch copy so the last pass lands in keys_out.
/// The runtime Config::keys_per_thread picks one of the compiled kernel instantiations.
#include <algorithm>
#include <type_traits>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix_kernels.cuh"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage04 {
namespace {

static_assert(sizeof(kSupportedKeysPerThread) / sizeof(int) == 5,
              "dispatch_keys_per_thread() below lists every supported value; keep them in sync");

/// Calls \p body with std::integral_constant<int, K> for the runtime \p keys_per_thread, so the
/// kernels see K as a compile-time constant. One case per kSupportedKeysPerThread entry.
template <typename Body>
void dispatch_keys_per_thread(int keys_per_thread, Body&& body) {
  switch (keys_per_thread) {
    case 1:
      return body(std::integral_constant<int, 1>{});
    case 2:
      return body(std::integral_constant<int, 2>{});
    case 4:
      return body(std::integral_constant<int, 4>{});
    case 8:
      return body(std::integral_constant<int, 8>{});
    case 16:
      return body(std::integral_constant<int, 16>{});
    default:
      validate_config(Config{kMinRadixBits, keys_per_thread});  // throws with the list
  }
  throw Error("stage04: unsupported keys_per_thread");
}

/// Blocks (tiles) of a pass over \p n keys.
std::size_t blocks_for(std::size_t n, const Config& config) {
  const std::size_t tile = static_cast<std::size_t>(kThreadsPerBlock) * config.keys_per_thread;
  return (n + tile - 1) / tile;
}

/// Entries of the widest block bucket table of a sort: 2^r rows, one column per block.
std::size_t table_entries_for(std::size_t n, const Config& config) {
  return (std::size_t{1} << config.radix_bits) * blocks_for(n, config);
}

/// The scratch one sort needs, in one allocation.
struct Scratch {
  std::size_t alternate_keys, alternate_values, table, scan_temp;
  ScratchLayout layout;
};

template <typename Key>
Scratch plan_scratch(std::size_t n, bool with_values, const Config& config) {
  const std::size_t entries = table_entries_for(n, config);
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<std::uint32_t>(with_values ? n : 0);
  // One table, scanned in place: the scatter kernel recovers a block's counts from the gaps
  // between consecutive scanned entries, so the unscanned table need not be kept.
  scratch.table = scratch.layout.add<std::uint32_t>(entries);
  scratch.scan_temp = scratch.layout.add<unsigned char>(device_exclusive_sum_temp_bytes(entries));
  return scratch;
}

/// What one pass reads and writes. digits and local_sorted are null except when tracing.
template <typename Key>
struct Pass {
  const Key* keys_in;
  Key* keys_out;
  const std::uint32_t* values_in;  ///< null for a keys-only sort
  std::uint32_t* values_out;       ///< null for a keys-only sort
  std::uint32_t* table;            ///< 2^num_bits x num_blocks entries
  void* scan_temp;
  std::size_t scan_temp_bytes;
  std::size_t n;
  int first_bit;
  int num_bits;
  bool descending;
  Config config;
  std::uint32_t* digits;
  Key* local_sorted;
  cudaStream_t stream;

  unsigned num_blocks() const { return static_cast<unsigned>(blocks_for(n, config)); }
  std::size_t table_entries() const { return (std::size_t{1} << num_bits) * num_blocks(); }
};

/// Step 1: the count kernel fills the block bucket table.
template <typename Key>
void count_step(const Pass<Key>& pass) {
  dispatch_keys_per_thread(pass.config.keys_per_thread, [&](auto keys_per_thread) {
    constexpr int kK = decltype(keys_per_thread)::value;
    count_digits_kernel<Key, kK><<<pass.num_blocks(), kThreadsPerBlock, 0, pass.stream>>>(
        pass.keys_in, pass.table, pass.n, pass.first_bit, pass.num_bits, pass.descending,
        pass.digits);
    SORTLAB_CHECK_LAUNCH();
  });
}

/// Step 2: one exclusive scan of the whole table, in place.
template <typename Key>
void scan_step(const Pass<Key>& pass) {
  device_exclusive_sum(pass.scan_temp, pass.scan_temp_bytes, pass.table, pass.table,
                       pass.table_entries(), pass.stream);
}

/// Step 3: the scatter kernel splits every tile locally and writes it out.
template <typename Key>
void scatter_step(const Pass<Key>& pass) {
  dispatch_keys_per_thread(pass.config.keys_per_thread, [&](auto keys_per_thread) {
    constexpr int kK = decltype(keys_per_thread)::value;
    if (pass.values_in != nullptr) {
      local_sort_scatter_kernel<Key, kK, true>
          <<<pass.num_blocks(), kThreadsPerBlock, 0, pass.stream>>>(
              pass.keys_in, pass.keys_out, pass.values_in, pass.values_out, pass.table, pass.n,
              pass.first_bit, pass.num_bits, pass.descending, pass.local_sorted);
    } else {
      local_sort_scatter_kernel<Key, kK, false>
          <<<pass.num_blocks(), kThreadsPerBlock, 0, pass.stream>>>(
              pass.keys_in, pass.keys_out, nullptr, nullptr, pass.table, pass.n, pass.first_bit,
              pass.num_bits, pass.descending, pass.local_sorted);
    }
    SORTLAB_CHECK_LAUNCH();
  });
}

template <typename Key>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
          const SortOptions& options, const Config& config, cudaStream_t stream, bool with_values) {
  validate_config(config);
  const SortArrays checked = validate_sort_arguments<Key>(temp_storage, n, options, keys_in,
                                                          keys_out, values_in, values_out);
  const Scratch scratch = plan_scratch<Key>(n, with_values, config);
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  const auto& layout = scratch.layout;
  const auto arrays = make_ping_pong_arrays(
      keys_in, keys_out, layout.get<Key>(temp_storage, scratch.alternate_keys), values_in,
      values_out, layout.get<std::uint32_t>(temp_storage, scratch.alternate_values));
  if (num_bits == 0 || n == 1) {  // nothing to reorder: the output is the input
    copy_input_to_output(arrays, n, stream);
    return;
  }

  Pass<Key> pass{};
  pass.table = layout.get<std::uint32_t>(temp_storage, scratch.table);
  pass.scan_temp = layout.get<unsigned char>(temp_storage, scratch.scan_temp);
  pass.scan_temp_bytes = device_exclusive_sum_temp_bytes(table_entries_for(n, config));
  pass.n = n;
  pass.descending = resolved.descending;
  pass.config = config;
  pass.stream = stream;
  // ceil(num_bits / r) passes, least significant digit first; the pass loop picks the arrays.
  run_ping_pong_passes(num_passes(num_bits, config), arrays,
                       [&](int index, const Key* source_keys, Key* target_keys,
                           const std::uint32_t* source_values, std::uint32_t* target_values) {
                         pass.keys_in = source_keys;
                         pass.keys_out = target_keys;
                         pass.values_in = source_values;
                         pass.values_out = target_values;
                         pass.first_bit = resolved.begin_bit + index * config.radix_bits;
                         // The last pass is narrower when r does not divide the bit range.
                         pass.num_bits =
                             std::min(config.radix_bits, resolved.end_bit - pass.first_bit);
                         count_step(pass);
                         scan_step(pass);
                         scatter_step(pass);
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
  const std::size_t n = keys.size();
  require(n <= kMaxSortItems,
          [&] { return "trace_pass: " + std::to_string(n) + " keys is more than 2^30"; });
  PassTrace<Key> trace;
  const int num_bits = std::min(config.radix_bits, KeyTraits<Key>::kNumBits - first_bit);
  trace.num_buckets = 1 << num_bits;
  trace.tile_items = tile_items(config);
  trace.num_blocks = static_cast<int>(blocks_for(n, config));
  if (n == 0) return trace;

  // The pass runs as a pair sort with values 0..n-1: value j landing at position p says that
  // input key j went to p.
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = static_cast<std::uint32_t>(i);
  // A private non-blocking stream and stream-ordered buffers: tracing never waits on (or
  // holds up) other work on the GPU. Every array the pass must fill starts poisoned.
  const CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<Key> keys_in(keys, s), keys_out(n, s), local_sorted(n, s);
  DeviceBuffer<std::uint32_t> values_in(iota, s), values_out(n, s), digits(n, s);
  keys_out.poison();
  local_sorted.poison();
  values_out.poison();
  digits.poison();

  Pass<Key> pass{};
  pass.keys_in = keys_in.data();
  pass.keys_out = keys_out.data();
  pass.values_in = values_in.data();
  pass.values_out = values_out.data();
  pass.n = n;
  pass.first_bit = first_bit;
  pass.num_bits = num_bits;
  pass.descending = descending;
  pass.config = config;
  pass.digits = digits.data();
  pass.local_sorted = local_sorted.data();
  pass.stream = s;
  DeviceBuffer<std::uint32_t> table(pass.table_entries(), s);
  DeviceBuffer<unsigned char> scan_temp(device_exclusive_sum_temp_bytes(pass.table_entries()), s);
  table.poison();
  pass.table = table.data();
  pass.scan_temp = scan_temp.data();
  pass.scan_temp_bytes = scan_temp.bytes();

  count_step(pass);
  trace.block_bucket_table = table.download();  // before the in-place scan overwrites it
  scan_step(pass);
  scatter_step(pass);
  stream.synchronize();
  trace.digits = digits.download();
  trace.scanned_table = table.download();
  trace.local_sorted = local_sorted.download();
  trace.keys_out = keys_out.download();
  const std::vector<std::uint32_t> origin = values_out.download();
  trace.destinations.resize(n);
  for (std::size_t position = 0; position < n; ++position)
    trace.destinations[origin[position]] = static_cast<std::uint32_t>(position);
  return trace;
}

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config) {
  validate_config(config);
  const std::size_t blocks = blocks_for(n, config);
  const double items = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0) return 2.0 * items * tuple_bytes;  // nothing to sort: a copy
  double total = 0.0;
  for (int bit = 0; bit < num_bits; bit += config.radix_bits) {
    const int width = std::min(config.radix_bits, num_bits - bit);
    const std::size_t entries = (std::size_t{1} << width) * blocks;
    const double table_bytes = 4.0 * static_cast<double>(entries);
    total += items * static_cast<double>(key_bytes) + table_bytes;  // count: keys in, table out
    total += device_exclusive_sum_bytes(entries);                   // scan of the table
    total += 2.0 * items * tuple_bytes + table_bytes;  // scatter: tuples in and out, table in
  }
  return total;
}

// One instantiation per supported key type, here and only here (tests and tools link them).
#define SORTLAB_STAGE04_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t,              \
                               const SortOptions&, const Config&, cudaStream_t);                \
  template void sort_pairs<Key>(void*, std::size_t&, const Key*, Key*, const std::uint32_t*,    \
                                std::uint32_t*, std::size_t, const SortOptions&, const Config&, \
                                cudaStream_t);                                                  \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, const Config&, bool);
SORTLAB_STAGE04_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE04_INSTANTIATE(std::int32_t)
SORTLAB_STAGE04_INSTANTIATE(float)
#undef SORTLAB_STAGE04_INSTANTIATE

}  // namespace sortlab::stage04
