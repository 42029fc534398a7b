/// \file
/// \brief Stage 07: top-k by radix select (public API).
///
/// For every row of a row-major `num_rows x row_length` matrix on the device, the k largest (or
/// smallest) values and their column indices, the job of `torch.topk(x, k, dim=-1)`: sampling
/// over a vocabulary of logits, retrieval, beam search.
///
/// The rules, the same on the GPU and in the CPU model (topk_model.hpp):
/// - **Order**: the ordered bits of common/key_traits.hpp (-0.0 equals +0.0), except that
///   **every NaN is the largest value** (PyTorch's rule; select_key.hpp). With `largest = false`
///   NaNs are therefore the last values chosen.
/// - **Ties**: values equal to the k-th value are taken lowest column first, so the result is
///   one well-defined set (and, sorted, one well-defined sequence): best first, equal values by
///   ascending column.
/// - **Unsorted output** (`sorted = false`): the values better than the k-th value in column
///   order, then the values equal to it in column order. Deterministic, but callers should
///   treat it as a set: a later schedule may order it differently.
/// - **Edge cases**: k > row_length is a sortlab::Error (this includes k > 0 on empty rows);
///   k = 0 or num_rows = 0 is an empty result (nothing is written, as torch.topk returns empty
///   tensors). Sorted output needs k <= kMaxSortedK (one tile of stage 05's block sort); a
///   larger k with `sorted = true` is a sortlab::Error for now (README: next steps).
///
/// One block per row (the single-block schedule, PyTorch's sbtopk): the block reads its row once
/// per 8-bit digit (four times for 32-bit values) to narrow down the k-th value, and once more
/// to gather the answers. Usage follows CUB's temp-storage convention:
/// \snippet tests/stage07/test_stage07_gpu.cpp stage07 usage
///
/// Status: the single-block schedule is verified on an H100 (2026-11-23: all 45 stage07 ctest
/// tests pass, compute-sanitizer memcheck and racecheck clean); no speed measured yet.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/scratch_layout.hpp"

namespace sortlab::stage07 {

/// What this stage adds to the ladder (for a future benchmark label and results table).
inline constexpr const char kSummary[] =
    "top-k by radix select: one block per row, 8-bit digits most significant first, gather "
    "through block scans, stage 05's block sort for sorted output";

/// Threads of every stage 07 block: one per digit of a pass (select_digits.hpp), so choosing
/// the digit is one block-wide scan.
inline constexpr int kBlockThreads = 256;
/// Keys per thread of the block sort that orders the k results.
inline constexpr int kSortKeysPerThread = 8;
/// Largest k that `sorted = true` accepts: one tile of the block sort.
inline constexpr std::size_t kMaxSortedK = std::size_t{kBlockThreads} * kSortKeysPerThread;
/// Longest row: counts and columns are 32-bit inside the kernels (int64 indices come out).
inline constexpr std::size_t kMaxRowLength = (std::size_t{1} << 31) - 1;
/// Most rows: one block per row, and a grid holds at most 2^31 - 1 blocks.
inline constexpr std::size_t kMaxRows = (std::size_t{1} << 31) - 1;

/// Largest or smallest, sorted or not.
struct TopkOptions {
  bool largest = true;  ///< the k largest values (false: the k smallest)
  bool sorted = true;   ///< best first, ties by column (false: the set in the documented order)
};

/// The scratch of one call. The single-block schedule keeps everything on chip and needs none,
/// but a call with a null scratch pointer is a size query, so every call asks for at least one
/// byte: the caller's second call then always runs. The several-blocks-per-row schedule will add
/// its per-block digit counts here.
struct ScratchPlan {
  ScratchLayout layout;  ///< the arrays, aligned (none yet)
  /// Bytes a size query returns: the layout's, and at least 1.
  std::size_t bytes() const noexcept {
    return layout.total_bytes() > 0 ? layout.total_bytes() : std::size_t{1};
  }
};

/// The scratch layout of a top-k of \p num_rows rows of \p row_length values, \p k per row.
/// Pure host arithmetic (no CUDA call), so the CPU tests check it.
/// \param num_rows rows
/// \param row_length values per row
/// \param k values picked per row
ScratchPlan plan_scratch(std::size_t num_rows, std::size_t row_length, std::size_t k);

/// For every row r, the k best values of `values_in[r * row_length .. (r + 1) * row_length)`
/// into `values_out[r * k .. (r + 1) * k)` and their columns into the same positions of
/// `indices_out`. Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return
/// (no other pointer is needed for that). No allocation and no host synchronisation happen
/// inside the call; the work is queued on \p stream, so the call can be captured in a CUDA graph.
///
/// Supported T: float, std::uint32_t, std::int32_t, double, std::int64_t, __half, __nv_bfloat16.
/// Throws sortlab::Error on bad arguments, before any CUDA call: k > row_length, too many rows or
/// too long a row, `sorted` with k > kMaxSortedK, null pointers, arrays that overlap (outputs,
/// input, scratch), or a scratch smaller than the query said.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param values_in device input, num_rows x row_length, row-major (not modified)
/// \param num_rows rows, 0 to kMaxRows
/// \param row_length values per row, 0 to kMaxRowLength
/// \param k values to pick per row, 0 to row_length
/// \param values_out device output, num_rows x k
/// \param indices_out device output, num_rows x k columns (0 .. row_length - 1)
/// \param options largest or smallest, sorted or not
/// \param stream CUDA stream the work is queued on
template <typename T>
void topk(void* temp_storage, std::size_t& temp_storage_bytes, const T* values_in,
          std::size_t num_rows, std::size_t row_length, std::size_t k, T* values_out,
          std::int64_t* indices_out, const TopkOptions& options = {},
          cudaStream_t stream = nullptr);

}  // namespace sortlab::stage07
