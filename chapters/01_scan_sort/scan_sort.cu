/// \file
/// \brief Stage 01 host launcher: one pass per bit, ping-ponging between keys_out and a scratch
/// copy so that the last pass lands in keys_out.
#include "chapters/01_scan_sort/scan_sort.hpp"
#include "chapters/01_scan_sort/scan_sort_kernels.cuh"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_scan.hpp"
#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage01 {
namespace {

/// The scratch one sort needs, in one allocation.
struct Scratch {
  std::size_t alternate_keys, alternate_values, bits, ones_before, scan_temp;
  ScratchLayout layout;
};

template <typename Key>
Scratch plan_scratch(std::size_t n, bool with_values) {
  Scratch scratch{};
  scratch.alternate_keys = scratch.layout.add<Key>(n);
  scratch.alternate_values = scratch.layout.add<std::uint32_t>(with_values ? n : 0);
  scratch.bits = scratch.layout.add<std::uint32_t>(n);
  scratch.ones_before = scratch.layout.add<std::uint32_t>(n);
  scratch.scan_temp = scratch.layout.add<unsigned char>(device_exclusive_sum_temp_bytes(n));
  return scratch;
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

/// One pass: bits, scan, scatter. \p destinations is null except when tracing.
template <typename Key>
void run_pass(const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
              std::uint32_t* values_out, std::uint32_t* bits, std::uint32_t* ones_before,
              void* scan_temp, std::size_t scan_temp_bytes, std::size_t n, int bit, bool descending,
              std::uint32_t* destinations, cudaStream_t stream) {
  extract_bit_kernel<Key>
      <<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys_in, bits, n, bit, descending);
  SORTLAB_CHECK_LAUNCH();
  device_exclusive_sum(scan_temp, scan_temp_bytes, bits, ones_before, n, stream);
  if (values_in != nullptr) {
    scatter_by_bit_kernel<Key, true><<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
        keys_in, keys_out, values_in, values_out, bits, ones_before, n, destinations);
  } else {
    scatter_by_bit_kernel<Key, false><<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
        keys_in, keys_out, nullptr, nullptr, bits, ones_before, n, destinations);
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
  std::uint32_t* bits = layout.get<std::uint32_t>(temp_storage, scratch.bits);
  std::uint32_t* ones_before = layout.get<std::uint32_t>(temp_storage, scratch.ones_before);
  void* scan_temp = layout.get<unsigned char>(temp_storage, scratch.scan_temp);
  const std::size_t scan_temp_bytes = device_exclusive_sum_temp_bytes(n);
  // One pass per bit, least significant first; the pass loop picks each pass's arrays.
  run_ping_pong_passes(passes, arrays,
                       [&](int pass, const Key* source_keys, Key* target_keys,
                           const std::uint32_t* source_values, std::uint32_t* target_values) {
                         run_pass(source_keys, target_keys, source_values, target_values, bits,
                                  ones_before, scan_temp, scan_temp_bytes, n,
                                  resolved.begin_bit + pass, resolved.descending, nullptr, stream);
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
  require(keys.size() <= kMaxSortItems,
          [&] { return "trace_pass: " + std::to_string(keys.size()) + " keys is more than 2^30"; });
  const std::size_t n = keys.size();
  PassTrace<Key> trace;
  if (n == 0) return trace;
  // A private non-blocking stream and stream-ordered buffers: tracing never waits on (or
  // holds up) other work on the GPU. Every array the pass must fill starts poisoned.
  const CudaStream stream;
  DeviceBuffer<Key> keys_in(keys, stream.get()), keys_out(n, stream.get());
  DeviceBuffer<std::uint32_t> bits(n, stream.get()), ones_before(n, stream.get()),
      destinations(n, stream.get());
  DeviceBuffer<unsigned char> scan_temp(device_exclusive_sum_temp_bytes(n), stream.get());
  for (auto* buffer : {&bits, &ones_before, &destinations}) buffer->poison();
  keys_out.poison();
  run_pass<Key>(keys_in.data(), keys_out.data(), nullptr, nullptr, bits.data(), ones_before.data(),
                scan_temp.data(), scan_temp.bytes(), n, bit, descending, destinations.data(),
                stream.get());
  stream.synchronize();
  trace.bits = bits.download();
  trace.ones_before = ones_before.download();
  trace.destinations = destinations.download();
  trace.keys_out = keys_out.download();
  return trace;
}

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits) {
  const double keys = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0) return 2.0 * keys * tuple_bytes;          // nothing to sort: a copy
  const double per_pass = keys * (key_bytes + 4.0)             // bits kernel: key in, bit out
                          + device_exclusive_sum_bytes(n)      // scan of the bits
                          + keys * (2.0 * tuple_bytes + 8.0);  // scatter: tuple in and out,
                                                               // bit and ones_before in
  return per_pass * num_bits;
}

// One instantiation per supported key type, here and only here (tests and tools link them).
#define SORTLAB_STAGE01_INSTANTIATE(Key)                                                        \
  template void sort_keys<Key>(void*, std::size_t&, const Key*, Key*, std::size_t,              \
                               const SortOptions&, cudaStream_t);                               \
  template void sort_pairs<Key>(void*, std::size_t&, const Key*, Key*, const std::uint32_t*,    \
                                std::uint32_t*, std::size_t, const SortOptions&, cudaStream_t); \
  template PassTrace<Key> trace_pass<Key>(const std::vector<Key>&, int, bool);
SORTLAB_STAGE01_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE01_INSTANTIATE(std::int32_t)
SORTLAB_STAGE01_INSTANTIATE(float)
#undef SORTLAB_STAGE01_INSTANTIATE

}  // namespace sortlab::stage01
