/// \file
/// \brief `torch.sort(x, dim=-1, stable=True)` on the GPU: every row of a row-major matrix sorted,
/// with the sorted values and the int64 column each came from (stage 06's segmented sort, one
/// segment per row).
///
/// PyTorch orders floating keys by value with NaN as the largest value (ascending: NaNs last;
/// descending: first) and -0.0 equal to +0.0; a stable sort keeps equal keys, and NaNs, in their
/// input order. The radix sorts of this project order NaNs by their bits instead (a NaN with the
/// sign bit set sorts below -inf), so sort_rows() sorts a copy of the keys in which every NaN is
/// the positive quiet NaN and then gathers the returned values from the input by their indices:
/// the values keep their exact input bits, NaN payloads included.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

/// Stage 06: segmented sort by size class.
namespace sortlab::stage06 {

/// Sorts every row of the \p rows x \p cols row-major matrix \p input (stable), writing the sorted
/// rows to \p values_out and, for every output element, the column of the input element it came
/// from to \p indices_out (torch.sort's `indices`). Call with \p temp_storage == nullptr to set \p
/// temp_storage_bytes and return. No allocation and no host synchronisation happen inside the
/// call; the work is queued on \p stream.
/// Supported Key: float, double, __half, __nv_bfloat16, std::int32_t, std::int64_t,
/// std::uint32_t, std::uint64_t (for integers the NaN rule has nothing to do).
/// Throws sortlab::Error on bad arguments (null pointers, rows * cols above 2^30, more than
/// 2^32 - 1 columns, overlapping arrays, scratch too small).
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param input device matrix, rows x cols, row-major (not modified)
/// \param values_out device matrix receiving the sorted rows
/// \param indices_out device matrix receiving each output element's input column
/// \param rows number of rows (0 allowed)
/// \param cols number of columns (0 allowed)
/// \param descending largest first (NaNs first), as torch.sort(descending=True)
/// \param stream CUDA stream
template <typename Key>
void sort_rows(void* temp_storage, std::size_t& temp_storage_bytes, const Key* input,
               Key* values_out, std::int64_t* indices_out, std::size_t rows, std::size_t cols,
               bool descending = false, cudaStream_t stream = nullptr);

}  // namespace sortlab::stage06
