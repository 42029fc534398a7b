/// \file
/// \brief Stage 00: the vendor baseline. cub::DeviceRadixSort behind the same API as every
/// sortlab stage, so tests, benchmarks and `sortlab run` treat it as one more rung of the ladder.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/sort_options.hpp"

/// Stage 00: CUB's DeviceRadixSort (onesweep on recent GPUs), the number to beat.
namespace sortlab::stage00 {

/// What this entry is (the benchmark label and the results table use it).
inline constexpr const char kSummary[] =
    "CUB DeviceRadixSort (onesweep, 8-bit digits): the baseline";

/// Sorts keys with cub::DeviceRadixSort::SortKeys / SortKeysDescending. Same contract as
/// sortlab::stage01::sort_keys (query with temp_storage == nullptr, then sort).
/// Supported Key: std::uint32_t, std::int32_t, float.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param n number of keys
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, const SortOptions& options = {},
               cudaStream_t stream = nullptr);

/// Sorts key-value pairs with cub::DeviceRadixSort::SortPairs / SortPairsDescending (stable).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values
/// \param values_out device output values
/// \param n number of pairs
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                std::size_t n, const SortOptions& options = {}, cudaStream_t stream = nullptr);

/// Bytes CUB's onesweep moves: one read of the keys for the up-front histograms, then per 8-bit
/// pass one read and one write of keys and values.
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
/// \param num_bits bits sorted
double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits);

}  // namespace sortlab::stage00
