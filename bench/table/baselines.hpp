/// \file
/// \brief Baselines of `make table` beside the ladder: Thrust's sorts and CUB's segmented sorts,
/// registered through the same SortEntry / register_sort() machinery as every stage, so they are
/// timed on the same generated keys, with the same rotating inputs and the same counters.
///
/// Each baseline lives in its own .cu file: every Thrust or CUB instantiation costs about half a
/// minute of compile time, and separate files build in parallel. All of them sort u32 keys only
/// (other key types would multiply that cost and teach nothing new); they skip other key types in
/// the configuration.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench_support.hpp"

namespace sortlab::bench {

/// Segment sizes of the CUB segmented-sort baselines: the same n keys cut into equal segments of
/// this many keys (variant names "seg:128" and "seg:16384"). 128 keys fit one warp's registers;
/// 16384 keys need a whole block (or several passes) per segment.
inline constexpr std::size_t kSegmentSizes[] = {128, 16384};

/// thrust::sort on u32 keys (entry "thrust", keys). Thrust sorts in place, so each run first copies
/// the input keys to the output (cudaMemcpyAsync on the stream), then calls thrust::sort with
/// thrust::cuda::par_nosync on the stream; Thrust's temporary memory comes from the benchmark's
/// scratch (no cudaMalloc inside the timed region). Bytes model: the copy plus stage 00's
/// (Thrust dispatches to the same CUB radix sort).
/// \param config sizes and entropies; registers nothing unless keys-only sorts of u32 are asked for
void register_thrust_sort(const BenchConfig& config);

/// thrust::sort_by_key on u32 keys with u32 values (entry "thrust", pairs): keys and values are
/// copied to the outputs, then sorted in place as for register_thrust_sort().
/// \param config sizes and entropies; registers nothing unless pair sorts of u32 are asked for
void register_thrust_sort_by_key(const BenchConfig& config);

/// cub::DeviceSegmentedRadixSort::SortKeys on u32 keys cut into equal segments of each size in
/// kSegmentSizes (entry "cub-segmented-radix", variants "seg:S"). Segment offsets come from an
/// iterator (offset of segment s = s * S), so no offset array is read. Bytes model: the floor,
/// every key read once and written once.
/// \param config sizes and entropies; registers nothing unless keys-only sorts of u32 are asked for
void register_cub_segmented_radix_sort(const BenchConfig& config);

/// cub::DeviceSegmentedSort::SortKeys (CUB's segmented sort that picks a warp, a block or a
/// radix sort by segment size) on the same segmentations (entry "cub-segmented-sort", variants
/// "seg:S"). Bytes model: the floor, as for register_cub_segmented_radix_sort().
/// \param config sizes and entropies; registers nothing unless keys-only sorts of u32 are asked for
void register_cub_segmented_sort(const BenchConfig& config);

/// "CUB 3.0.1, Thrust 3.0.1": the CCCL version the baselines (and stage 00) are compiled with.
std::string cccl_version();

/// All four baselines above.
/// \param config sizes, entropies, keys and/or pairs
void register_baselines(const BenchConfig& config);

namespace detail {

/// True when \p config asks for u32 keys and for the keys-only (\p pairs false) or pair
/// (\p pairs true) variant.
/// \param config the configuration
/// \param pairs whether the baseline sorts pairs
bool wants_u32(const BenchConfig& config, bool pairs);

/// The floor of any sort's device-memory traffic: every key (and value) read once and written
/// once, 2 * n * (key_bytes + value_bytes).
/// \param n number of keys
/// \param key_bytes size of a key
/// \param value_bytes size of a value (0 for keys only)
double floor_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes);

}  // namespace detail

}  // namespace sortlab::bench
