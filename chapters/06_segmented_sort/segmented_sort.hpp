/// \file
/// \brief Stage 06: segmented sort by segment size class (public API).
///
/// Sorts many independent segments of one key array in one call, the job behind
/// `torch.sort(x, dim=-1)` and CUB's `DeviceSegmentedSort`. Segment s is the items
/// [begin_offsets[s], end_offsets[s]); the two offset arrays live on the device, and the segments
/// may be empty, listed in any order, and need not be contiguous nor cover the input. Output
/// positions outside every segment are never written: they keep what the caller left there.
///
/// One sort, all queued on the caller's stream with no host work per segment:
///  1. zero the per-bin list counters (one memset);
///  2. a *classify kernel* (one thread per segment) puts each segment in a power-of-two bin
///     (size_classes.hpp), sorts the small ones (1 .. 32 keys) on the spot with sub-warp groups
///     as wide as their bin (1, 2, 4, 8, 16 or 32 lanes, one key per lane, a bitonic network on
///     (key, position), several segments per warp), and appends every other segment's id to its
///     bin's list (block-aggregated atomics: one per block and bin);
///  3. one launch per kernel after it, its grid sized on the host from an upper bound of its
///     lists' counts (which only the device knows); warps or blocks stride over the lists and
///     those with nothing to do exit at once:
///     - warp bins (33 .. 256 keys): one warp per segment, 2, 4 or 8 keys per lane, a bitonic
///       network over registers and shuffles, staged through shared memory;
///     - tile bins (257 .. 4096 keys, 2048 for 8-byte keys): one block per segment, stage 05's
///       BlockRadixSort on a tile of 512, 1024, 2048 or 4096 keys (one kernel per tile);
///     - huge (4097 keys and more, kHugeMinItems): many blocks per segment, one tile of 4096
///       keys each (2048 for 8-byte keys): a plan kernel lists the huge segments and numbers
///       their tiles, a clear kernel zeroes the counts and status words they use, one histogram
///       kernel counts every pass's digits, then per 8-bit pass one kernel in which each tile
///       is ranked by a warp multi-split and finds its place by a look-back over its segment's
///       earlier tiles (stage 08's onesweep pass, per segment);
///     - large (8-byte keys of 2049 .. 4096, and every segment of 4097 keys and more when the
///       segments average under kHugeMinAverageItems keys, so that the huge path is not
///       queued): one block per segment, LSD radix passes of 6-bit digits through a scratch
///       copy.
/// No bin pads a segment to more than twice its size.
///
/// Usage follows CUB's temp-storage convention: query the scratch size, allocate it, sort.
/// \snippet tests/stage06/test_stage06_gpu.cpp stage06 usage
///
/// Status: the power-of-two bins and the huge path pass the stage06 GPU suite and
/// compute-sanitizer on an H100 (2026-11-25); 1.41-10.7x the best of CUB and torch.sort on
/// 2^26 pairs (1.41x at 65536 keys per segment, 1.42x at 4096; README).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "chapters/06_segmented_sort/size_classes.hpp"
#include "common/errors.hpp"
#include "common/scratch_layout.hpp"
#include "common/sort_options.hpp"
#include "common/value_carrier.hpp"

namespace sortlab::stage06 {

/// What this stage adds to the ladder (for a future benchmark label and results table).
inline constexpr const char kSummary[] =
    "segmented sort by power-of-two size bins: sub-warp bitonic networks (<= 32 keys, several "
    "segments per warp), warp bitonic networks (<= 256 keys), block radix sort tiles of 512 to "
    "4096 keys, block radix passes for larger segments, a onesweep per segment for huge ones";

/// Most items one sort accepts: 2^30, the shared limit of 32-bit offsets.
inline constexpr std::size_t kMaxItems = kMaxSortItems;

/// Most segments one sort accepts (segment ids are 32-bit; segments may be empty, so there can
/// be more segments than items).
inline constexpr std::size_t kMaxSegments = std::size_t{1} << 30;

/// The scratch of one sort, in one caller-owned allocation (common/scratch_layout.hpp).
struct ScratchPlan {
  std::size_t alternate_keys;    ///< slot: n keys, the large class's ping-pong buffer
  std::size_t alternate_values;  ///< slot: n values (pairs only)
  std::size_t list_counts;       ///< slot: kNumListBins counters, zeroed by every sort
  std::size_t list_ids;          ///< slot: the id lists of the bins above the small ones
  /// Where list l (bin kFirstWarpBin + l) starts in the list_ids slot, in ids.
  std::size_t list_offset[kNumListBins];
  /// Ids list l has room for: min(num_segments, n / smallest size of its bin), since segments
  /// do not overlap (0 for the 4096-key tile of 8-byte keys, which does not exist).
  std::size_t list_capacity[kNumListBins];
  /// Huge segments the huge path has room for (huge_capacity(); 0 when huge_path_queued() says
  /// the sort does not queue the path).
  std::size_t huge_capacity;
  /// Tiles of the huge segments at most (huge_max_tiles()).
  std::size_t huge_max_tiles;
  /// Passes the huge path's counts and status words have room for (huge_max_passes()).
  std::size_t huge_max_passes;
  /// slot: the huge path's counts (2), ids (huge_capacity) and first tiles (huge_capacity)
  std::size_t huge_lists;
  /// slot: the huge path's digit counts of every pass of every huge segment (huge_capacity x
  /// huge_max_passes x 2^kHugeDigitBits), the status words of every tile in every pass
  /// (huge_max_passes x huge_max_tiles x 2^kHugeDigitBits), then a tile counter per pass.
  /// Every sort zeroes on the device what it uses of them: the rows of the segments that turn
  /// out huge and of their tiles (the clear kernel), and the counters (the plan kernel).
  std::size_t huge_zeroed;
  /// Chunks the huge path's split route can list (huge_chunk_capacity(); 0 without the path).
  std::size_t huge_chunk_capacity;
  /// slot: per route (radix, split), its listed segments and their tiles, packed in 64 bits
  std::size_t huge_route_count;
  /// slot: kNumListBins chunk list counters, then per route huge_capacity entries (huge-list
  /// indices) and as many first tiles
  std::size_t huge_route_words;
  /// slot: the chunks' ids, first items and ends (huge_chunk_capacity each)
  std::size_t huge_chunks;
  ScratchLayout layout;  ///< the arrays, aligned
};

/// The scratch layout of a sort of \p n items in \p num_segments segments: a size query returns
/// its total_bytes(). Pure host arithmetic (no CUDA call), so the CPU tests check it.
/// \param n number of items
/// \param num_segments number of segments
/// \param key_bytes sizeof(Key)
/// \param value_bytes sizeof(Value), 0 for a keys-only sort
/// \param min_bin the smallest bin a segment may take (sort_pairs_with_min_bin(); 0 for the
/// sorts): that bin's list has room for a segment of every size below it too
ScratchPlan plan_scratch(std::size_t n, std::size_t num_segments, std::size_t key_bytes,
                         std::size_t value_bytes, int min_bin = 0);

/// 32-bit words of \p plan's huge_zeroed slot: huge_max_passes x (1 + (huge_capacity +
/// huge_max_tiles) x 2^kHugeDigitBits), 0 when the plan reserves no huge path. Pure host
/// arithmetic. \param plan a plan from plan_scratch()
std::size_t huge_zeroed_words(const ScratchPlan& plan);

/// Sorts every segment [begin_offsets[s], end_offsets[s]) of \p keys_in into the same positions
/// of \p keys_out (stable; positions outside every segment are not written). Call with \p
/// temp_storage == nullptr to set \p temp_storage_bytes and return (no other pointer is needed
/// for that). No allocation and no host synchronisation happen inside the call; the work is
/// queued on \p stream, so the call can be captured in a CUDA graph.
///
/// Preconditions the sort cannot check without reading device memory: segments do not overlap
/// one another. A segment with end <= begin is empty; one with end > n is ignored (left
/// unwritten) rather than read out of bounds.
/// Supported Key: std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double,
/// __half, __nv_bfloat16.
/// Throws sortlab::Error on bad arguments (null pointers, n or num_segments too large, a bad bit
/// range, scratch too small, overlapping arrays).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys (not modified)
/// \param keys_out device output keys (must not overlap keys_in, the offsets or the scratch)
/// \param n number of items in keys_in and keys_out, 0 to 2^30
/// \param num_segments number of segments, 0 to 2^30
/// \param begin_offsets device array of num_segments first items
/// \param end_offsets device array of num_segments one-past-last items (may alias
/// begin_offsets + 1 for contiguous segments)
/// \param options bit range and direction
/// \param stream CUDA stream the work is queued on
template <typename Key>
void sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
               Key* keys_out, std::size_t n, std::size_t num_segments,
               const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
               const SortOptions& options = {}, cudaStream_t stream = nullptr);

/// Sorts key-value pairs segment by segment (stable: equal keys keep their input order, values
/// travel with their keys). Same contract as sort_keys(); value positions outside every segment
/// are not written either. Supported Value: std::uint32_t, std::uint64_t (any trivially copyable
/// type of 4 or 8 bytes moves as one of them).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values
/// \param values_out device output values
/// \param n number of pairs, 0 to 2^30
/// \param num_segments number of segments, 0 to 2^30
/// \param begin_offsets device array of num_segments first items
/// \param end_offsets device array of num_segments one-past-last items
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key, typename Value>
void sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                Key* keys_out, const Value* values_in, NotDeduced<Value>* values_out, std::size_t n,
                std::size_t num_segments, const std::uint32_t* begin_offsets,
                const std::uint32_t* end_offsets, const SortOptions& options = {},
                cudaStream_t stream = nullptr);

/// sort_pairs() with a measurement knob: every non-empty segment that a bin below \p min_bin
/// would sort goes to bin \p min_bin instead, whose kernel pads it to that bin's width (large
/// segments keep their class). bench_stage06's bin sweep times each bin's kernel on segments of
/// the bins below it with this, which is how the bin edges were chosen; a sort has no other use
/// for it. The scratch must be queried with the same \p min_bin. Throws sortlab::Error when
/// \p min_bin is no bin for Key (valid_min_bin()), besides sort_pairs()'s errors.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values
/// \param values_out device output values
/// \param n number of pairs, 0 to 2^30
/// \param num_segments number of segments, 0 to 2^30
/// \param begin_offsets device array of num_segments first items
/// \param end_offsets device array of num_segments one-past-last items
/// \param min_bin the smallest bin a segment may take: 0 (sort_pairs()) to 12
/// \param options bit range and direction
/// \param stream CUDA stream
template <typename Key, typename Value>
void sort_pairs_with_min_bin(void* temp_storage, std::size_t& temp_storage_bytes,
                             const Key* keys_in, Key* keys_out, const Value* values_in,
                             NotDeduced<Value>* values_out, std::size_t n, std::size_t num_segments,
                             const std::uint32_t* begin_offsets, const std::uint32_t* end_offsets,
                             int min_bin, const SortOptions& options = {},
                             cudaStream_t stream = nullptr);

}  // namespace sortlab::stage06
