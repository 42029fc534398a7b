/// \file
/// \brief Stage 01: the 1-bit scan sort of PMPP 13.3 (public API).
///
/// One pass per key bit. Each pass has the three steps of the textbook's figure 13.4:
///  1. **bits**: one thread per key writes the key's current bit;
///  2. **scan**: a device-wide exclusive sum of the bits gives each key its "ones before";
///  3. **scatter**: a key with bit 0 goes to `i - ones_before[i]`, a key with bit 1 goes to
///     `(n - total_ones) + ones_before[i]`.
///
/// Because every pass keeps keys with equal bits in input order, the sort is stable, and after
/// the last pass the keys are sorted (LSD radix sort with 1-bit digits).
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort:
/// \snippet tests/stage01/test_stage01_gpu.cpp stage01 usage
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/sort_options.hpp"

/// Stage 01: 1-bit scan sort (PMPP 13.3).
namespace sortlab::stage01 {

/// What this stage adds to the ladder (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "1-bit split per pass: bits, device-wide scan, scatter (32 passes)";

/// Threads per block of the bit-extraction and scatter kernels (one key per thread).
inline constexpr int kThreadsPerBlock = 256;

/// Sorts \p n keys from \p keys_in into \p keys_out (stable).
/// Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return without sorting.
/// Supported Key: std::uint32_t, std::int32_t, float. Throws sortlab::Error on bad arguments.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not alias keys_in)
/// \param n number of keys, 0 to 2^30
/// \param options bit range and direction
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               cudaStream_t stream = nullptr);

/// Sorts key-value pairs by key (stable: equal keys keep their input order).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values (32-bit payloads)
/// \param values_out device output values
/// \param n number of pairs, 0 to 2^30
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options = {}, cudaStream_t stream = nullptr);

/// The arrays of one pass, as the textbook's figure shows them (host copies).
template <typename Key>
struct PassTrace {
  std::vector<std::uint32_t> bits;          ///< the bit each key is split on
  std::vector<std::uint32_t> ones_before;   ///< exclusive scan of bits
  std::vector<std::uint32_t> destinations;  ///< where each key is written
  std::vector<Key> keys_out;                ///< the keys after the pass
};

/// Runs one pass (bit \p bit) on the GPU for \p keys and returns its intermediate arrays.
/// Used by the tests (against the CPU model) and by `sortlab trace`.
/// \param keys input keys (host)
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit (descending order)
template <typename Key>
PassTrace<Key> trace_pass(const std::vector<Key>& keys, int bit, bool descending = false);

/// Bytes one full sort moves through device memory, by this stage's design: per bit, the bit
/// kernel reads keys and writes bits, the device scan of the bits moves
/// device_exclusive_sum_bytes(n) (about 16 bytes per key), the scatter reads keys, values, bits
/// and ones-before and writes keys and values. With no bits to sort, the sort is a copy.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted (end_bit - begin_bit)
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits);

}  // namespace sortlab::stage01
