/// \file
/// \brief Stage 07 host launcher: check the arguments (all before the first CUDA call, so a
/// rejected call changes nothing), answer the size query, launch one block per row. Explicit
/// instantiations for f32, u32, i32, f64, i64, f16 and bf16 values.
///
/// Status: the single-block schedule is verified on an H100 (2026-11-23: all 45 stage07 ctest
/// tests pass, compute-sanitizer memcheck and racecheck clean); no speed measured yet.
#include <string>

#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_kernels.cuh"
#include "common/errors.hpp"
#include "common/memory_ranges.hpp"
#include "common/sort_options.hpp"

namespace sortlab::stage07 {

ScratchPlan plan_scratch(std::size_t num_rows, std::size_t row_length, std::size_t k) {
  // The single-block schedule keeps its state in shared memory: no arrays. The arguments are
  // what the several-blocks-per-row schedule will size its per-block counts by.
  (void)num_rows;
  (void)row_length;
  (void)k;
  return ScratchPlan{};
}

template <typename T>
void topk(void* temp_storage, std::size_t& temp_storage_bytes, const T* values_in,
          std::size_t num_rows, std::size_t row_length, std::size_t k, T* values_out,
          std::int64_t* indices_out, const TopkOptions& options, cudaStream_t stream) {
  // Shape checks hold for the size query too: a query for an impossible call is an error, not a
  // size.
  require(row_length <= kMaxRowLength, [&] {
    return "topk: row_length = " + std::to_string(row_length) + " exceeds the maximum of " +
           std::to_string(kMaxRowLength);
  });
  require(num_rows <= kMaxRows, [&] {
    return "topk: num_rows = " + std::to_string(num_rows) + " exceeds the maximum of " +
           std::to_string(kMaxRows) + " (one block per row)";
  });
  // Both limits are 2^31 - 1, so rows x length could reach 2^62: bounded here, the byte sizes
  // of the arrays below cannot wrap.
  require(num_rows == 0 || row_length <= (std::size_t{1} << 40) / num_rows, [&] {
    return "topk: num_rows x row_length = " + std::to_string(num_rows) + " x " +
           std::to_string(row_length) + " is more than 2^40 values";
  });
  require(k <= row_length, [&] {
    return "topk: k = " + std::to_string(k) +
           " is larger than row_length = " + std::to_string(row_length);
  });
  require(!options.sorted || k <= kMaxSortedK, [&] {
    return "topk: sorted output supports k <= " + std::to_string(kMaxSortedK) +
           " (one tile of the block sort), got k = " + std::to_string(k) +
           "; ask for sorted = false and sort the k results separately";
  });
  const ScratchPlan plan = plan_scratch(num_rows, row_length, k);
  const std::size_t need = plan.bytes();
  if (answer_size_query(temp_storage, temp_storage_bytes, need)) return;
  const std::size_t answers = num_rows * k;
  if (answers == 0) return;  // k = 0 or no rows: the empty result, nothing to write

  require(values_in != nullptr && values_out != nullptr && indices_out != nullptr,
          "topk: values_in, values_out and indices_out must not be null");
  require_apart("topk",
                {MemoryRange{values_out, answers * sizeof(T), "values_out"},
                 MemoryRange{indices_out, answers * sizeof(std::int64_t), "indices_out"},
                 MemoryRange{temp_storage, need, "temp_storage"}},
                {MemoryRange{values_in, num_rows * row_length * sizeof(T), "values_in"}});

  TopkArrays<T> arrays{};
  arrays.values_in = values_in;
  arrays.values_out = values_out;
  arrays.indices_out = indices_out;
  arrays.row_length = static_cast<std::uint32_t>(row_length);
  arrays.k = static_cast<std::uint32_t>(k);
  arrays.largest = options.largest;
  arrays.sorted = options.sorted;
  topk_rows_kernel<T><<<static_cast<unsigned>(num_rows), kBlockThreads, 0, stream>>>(arrays);
  SORTLAB_CHECK_LAUNCH();
}

// One instantiation per supported value type, here and only here (compile time).
#define SORTLAB_STAGE07_INSTANTIATE(T)                                                            \
  template void topk<T>(void*, std::size_t&, const T*, std::size_t, std::size_t, std::size_t, T*, \
                        std::int64_t*, const TopkOptions&, cudaStream_t);
SORTLAB_STAGE07_INSTANTIATE(float)
SORTLAB_STAGE07_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE07_INSTANTIATE(std::int32_t)
SORTLAB_STAGE07_INSTANTIATE(double)
SORTLAB_STAGE07_INSTANTIATE(std::int64_t)
SORTLAB_STAGE07_INSTANTIATE(__half)
SORTLAB_STAGE07_INSTANTIATE(__nv_bfloat16)
#undef SORTLAB_STAGE07_INSTANTIATE

}  // namespace sortlab::stage07
