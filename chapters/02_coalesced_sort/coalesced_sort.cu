/// \file
/// \brief Stage 02 host launcher: per bit, count kernel -> scan of the block bucket table ->
/// split-and-scatter kernel, ping-ponging between keys_out and a scratch copy so that the last
/// pass lands in keys_out.
#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort_kernels.cuh"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage02 {
namespace {

/// Blocks (= tiles) for n keys. n <= 2^30 gives at most 2^22 blocks, well inside a grid.
std::uint32_t blocks_for(std::size_t n) {
  return static_cast<std::uint32_t>((n + kTileItems - 1) / kTileItems);
}

/// Entries of the block bucket table: one count per (bucket, block).
std::size_t table_entries(std::size_t n) {
  return kNumBuckets * std::size_t{blocks_for(n)};
}

/// The scratch one sort needs, in one allocation.
struct Scratch {
  std::size_t alternate_keys, alternate_values, table, scanned_table, scan_temp;
  ScratchLayout layout;
};

template <typename Key>
Scratch plan_scratch(std::size_t n, bool with_values) {
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<std::uint32_t>(with_values ? n : 0);
  scratch.table = scratch.layout.add<std::uint32_t>(table_entries(n));
  scratch.scanned_table = scratch.layout.add<std::uint32_t>(table_entries(n));
  scratch.scan_temp =
      scratch.layout.add<unsigned char>(device_exclusive_sum_temp_bytes(table_entries(n)));
  return scratch;
}

/// Optional outputs of one pass that only trace_pass asks for (all null in a sort).
template <typename Key>
struct PassDebug {
  std::uint32_t* digits = nullptr;        ///< the bit of every input key
  Key* local_sorted = nullptr;            ///< every tile after the local split
  std::uint32_t* destinations = nullptr;  ///< where every input key went
};

/// One pass: count kernel, scan of the block bucket table, split-and-scatter kernel.
template <typename Key>
void run_pass(const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
              std::uint32_t* values_out, std::uint32_t* table, std::uint32_t* scanned_table,
              void* scan_temp, std::size_t scan_temp_bytes, std::size_t n, int bit, bool descending,
              const PassDebug<Key>& debug, cudaStream_t stream) {
  const std::uint32_t num_blocks = blocks_for(n);
  // Step 1: every block writes its column of the block bucket table.
  count_tile_buckets_kernel<Key><<<num_blocks, kThreadsPerBlock, 0, stream>>>(
      keys_in, n, bit, descending, num_blocks, table, debug.digits);
  SORTLAB_CHECK_LAUNCH();
  // Step 2: one exclusive scan of the row-major table gives every (bucket, block) its start.
  device_exclusive_sum(scan_temp, scan_temp_bytes, table, scanned_table,
                       kNumBuckets * std::size_t{num_blocks}, stream);
  // Step 3: local split in shared memory, then coalesced runs to global memory.
  if (values_in != nullptr) {
    split_and_scatter_kernel<Key, true><<<num_blocks, kThreadsPerBlock, 0, stream>>>(
        keys_in, keys_out, values_in, values_out, n, bit, descending, num_blocks, scanned_table,
        debug.local_sorted, debug.destinations);
  } else {
    split_and_scatter_kernel<Key, false><<<num_blocks, kThreadsPerBlock, 0, stream>>>(
        keys_in, keys_out, nullptr, nullptr, n, bit, descending, num_blocks, scanned_table,
        debug.local_sorted, debug.destinations);
  }
  SORTLAB_CHECK_LAUNCH();
}

template <typename Key>
void sort(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
          const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
          const SortOptions& options, cudaStream_t stream, bool with_values) {
  const SortArrays checked = validate_sort_arguments<Key>(temp_storage, n, options, keys_in,
                                                          keys_out, values_in, values_out);
  const Scratch scratch = plan_scratch<Key>(n, with_values);
  if (answer_size_query(temp_storage, temp_storage_bytes, scratch.layout.total_bytes(), checked))
    return;
  if (n == 0) return;

  const SortOptions resolved = resolve<Key>(options);
  const int passes = resolved.end_bit - resolved.begin_bit;
  const auto& layout = scratch.layout;
  const auto arrays = make_ping_pong_arrays(
      keys_in, keys_out, layout.get<Key>(temp_storage, scratch.alternate_keys), values_in,
      values_out, layout.get<std::uint32_t>(temp_storage, scratch.alternate_values));
  if (passes == 0 || n == 1) {  // nothing to reorder: the output is the input
    copy_input_to_output(arrays, n, stream);
    return;
  }
  std::uint32_t* table = layout.get<std::uint32_t>(temp_storage, scratch.table);
  std::uint32_t* scanned_table = layout.get<std::uint32_t>(temp_storage, scratch.scanned_table);
  void* scan_temp = layout.get<unsigned char>(temp_storage, scratch.scan_temp);
  const std::size_t scan_temp_bytes = device_exclusive_sum_temp_bytes(table_entries(n));
  // One pass per bit, least significant first; the pass loop picks each pass's arrays.
  run_ping_pong_passes(passes, arrays,
                       [&](int pass, const Key* source_keys, Key* target_keys,
                           const std::uint32_t* source_values, std::uint32_t* target_values) {
                         run_pass(source_keys, target_keys, source_values, target_values, table,
                                  scanned_table, scan_temp, scan_temp_bytes, n,
                                  resolved.begin_bit + pass, resolved.descending, PassDebug<Key>{},
                                  stream);
                       });
}

}  // namespace

template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options, cudaStream_t stream) {
  sort<Key>(temp_storage, temp_storage_bytes, keys_in, keys_out, nullptr, nullptr, n, options,
            stream, /*with_values=*/false);
}

template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options, cudaStream_t stream) {
  require_value_pointers(temp_storage, n, values_in, values_out);
  sort<Key>(temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, n, options,
            stream, /*with_values=*/true);
}

template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int bit, bool descending) {
  require(bit >= 0 && bit < KeyTraits<Key>::kNumBits, [&] {
    return "trace_pass: bit = " + std::to_string(bit) + " is outside [0, " +
           std::to_string(KeyTraits<Key>::kNumBits) + ")";
  });
  const std::size_t n = keys.size();
  require(n <= kMaxSortItems,
          [&] { return "trace_pass: " + std::to_string(n) + " keys is more than 2^30"; });
  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(blocks_for(n));
  trace.num_buckets = kNumBuckets;
  trace.tile_items = kTileItems;
  if (n == 0) return trace;
  // A private non-blocking stream and stream-ordered buffers: tracing never waits on (or
  // holds up) other work on the GPU. Every array the pass must fill starts poisoned.
  const CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<Key> keys_in(keys, s), keys_out(n, s), local_sorted(n, s);
  DeviceBuffer<std::uint32_t> digits(n, s), destinations(n, s), table(table_entries(n), s),
      scanned_table(table_entries(n), s);
  DeviceBuffer<unsigned char> scan_temp(device_exclusive_sum_temp_bytes(table_entries(n)), s);
  keys_out.poison();
  local_sorted.poison();
  for (auto* buffer : {&digits, &destinations, &table, &scanned_table}) buffer->poison();
  PassDebug<Key> debug;
  debug.digits = digits.data();
  debug.local_sorted = local_sorted.data();
  debug.destinations = destinations.data();
  run_pass<Key>(keys_in.data(), keys_out.data(), nullptr, nullptr, table.data(),
                scanned_table.data(), scan_temp.data(), scan_temp.bytes(), n, bit, descending,
                debug, s);
  stream.synchronize();
  trace.digits = digits.download();
  trace.local_sorted = local_sorted.download();
  trace.block_bucket_table = table.download();
  trace.scanned_table = scanned_table.download();
  trace.destinations = destinations.download();
  trace.keys_out = keys_out.download();
  return trace;
}

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits) {
  const double keys = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0) return 2.0 * keys * tuple_bytes;            // nothing to sort: a copy
  const double entries = static_cast<double>(table_entries(n));  // 2 counts per tile
  const double per_pass = keys * key_bytes + 4.0 * entries       // count: keys in, table out
                          + device_exclusive_sum_bytes(table_entries(n))  // scan of the table
                          + 2.0 * keys * tuple_bytes + 4.0 * entries;     // scatter: tuples, starts
  return per_pass * num_bits;
}

// One instantiation per supported key type, here and only here (tests and tools link them).
// Hidden from Doxygen: the instantiations would be listed as undocumented copies of the API.
/// \cond SORTLAB_INSTANTIATIONS
#define SORTLAB_STAGE02_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t,              \
                               const SortOptions&, cudaStream_t);                               \
  template void sort_pairs<Key>(void*, std::size_t&, const Key*, Key*, const std::uint32_t*,    \
                                std::uint32_t*, std::size_t, const SortOptions&, cudaStream_t); \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, bool);
SORTLAB_STAGE02_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE02_INSTANTIATE(std::int32_t)
SORTLAB_STAGE02_INSTANTIATE(float)
#undef SORTLAB_STAGE02_INSTANTIATE
/// \endcond

}  // namespace sortlab::stage02
