/// \file
/// \brief sort_rows(): torch.sort(x, dim=-1, stable=True) as one segmented pair sort. Three
/// steps on the caller's stream: (1) each element's column as a u32 value, the row offsets and,
/// for floating keys, a copy of the keys with every NaN made the positive quiet NaN (PyTorch's
/// "NaN is the largest value"); (2) stage 06's segmented pair sort, one segment per row, of
/// those keys (integer keys: the input itself) into values_out, the columns into scratch; (3)
/// the columns widened to int64 into indices_out and, for floating keys, values_out gathered
/// from the input by them, so the values keep their exact input bits. The columns move through
/// the sort as 4-byte values (int64 ones made every pass move 4 more bytes per element:
/// 2026-11-27, rows of 1000 took 2.67 ms against the pair sort's 1.48).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/sort_rows.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/memory_ranges.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage06 {
namespace {

/// The bits of +infinity of a floating key type (0 for integer keys, which have no NaN).
template <typename Key>
constexpr typename KeyTraits<Key>::Bits infinity_bits() {
  if constexpr (std::is_same_v<Key, float>) return 0x7F800000u;
  if constexpr (std::is_same_v<Key, double>) return 0x7FF0000000000000ull;
  if constexpr (std::is_same_v<Key, __half>) return 0x7C00u;
  if constexpr (std::is_same_v<Key, __nv_bfloat16>) return 0x7F80u;
  return 0;
}

/// \p key, or the positive quiet NaN when \p key is any NaN (exponent all ones, mantissa not
/// zero, either sign): the one NaN every radix pass puts above +inf.
template <typename Key>
__device__ __forceinline__ Key with_canonical_nan(Key key) {
  using Traits = KeyTraits<Key>;
  if constexpr (!Traits::kIsFloating) {
    return key;
  } else {
    using Bits = typename Traits::Bits;
    constexpr Bits kInfinity = infinity_bits<Key>();
    constexpr Bits kQuietNan = static_cast<Bits>(kInfinity | (kInfinity >> 1));
    const Bits bits = Traits::raw_bits(key);
    const bool is_nan = static_cast<Bits>(bits & ~Traits::kHighBit) > kInfinity;
    return is_nan ? Traits::from_raw_bits(kQuietNan) : key;
  }
}

constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over \p items.
unsigned grid_for(std::size_t items) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((items + kThreads - 1) / kThreads, 1, std::size_t{65535}));
}

/// Whether sort_rows() sorts a copy of the keys (floating keys: NaNs made canonical) and gathers
/// the values afterwards; integer keys sort as they are.
template <typename Key>
inline constexpr bool kCanonicalCopy = KeyTraits<Key>::kIsFloating;

/// Step 1: each element's column, the row offsets and, for floating keys, the keys to sort
/// (NaNs made canonical).
template <typename Key>
__global__ void __launch_bounds__(kThreads)
    prepare_rows_kernel(const Key* input, Key* keys, std::uint32_t* columns,
                        std::uint32_t* row_offsets, std::size_t rows, std::size_t cols) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = rows * cols;
  for (std::size_t i = first; i < n; i += stride) {
    if constexpr (kCanonicalCopy<Key>) keys[i] = with_canonical_nan(input[i]);
    columns[i] = static_cast<std::uint32_t>(i % cols);
  }
  for (std::size_t r = first; r <= rows; r += stride)
    row_offsets[r] = static_cast<std::uint32_t>(r * cols);
}

/// Step 3: every index widened to int64 and, for floating keys, every output value from the
/// input element its column names.
template <typename Key>
__global__ void __launch_bounds__(kThreads)
    finish_rows_kernel(const Key* input, Key* values_out, const std::uint32_t* sorted_columns,
                       std::int64_t* indices_out, std::size_t n, std::size_t cols) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint32_t column = sorted_columns[i];
    indices_out[i] = static_cast<std::int64_t>(column);
    if constexpr (kCanonicalCopy<Key>) values_out[i] = input[i - i % cols + column];
  }
}

/// The scratch of one sort_rows call.
struct RowsScratch {
  std::size_t keys, columns, sorted_columns, row_offsets, inner;
  std::size_t inner_bytes;  ///< what the segmented sort's size query asked for
  ScratchLayout layout;
};

template <typename Key>
RowsScratch plan_rows_scratch(std::size_t rows, std::size_t cols) {
  const std::size_t n = rows * cols;
  RowsScratch scratch{};
  scratch.keys = scratch.layout.add<Key>(kCanonicalCopy<Key> ? n : 0);
  scratch.columns = scratch.layout.add<std::uint32_t>(n);
  scratch.sorted_columns = scratch.layout.add<std::uint32_t>(n);
  scratch.row_offsets = scratch.layout.add<std::uint32_t>(n > 0 ? rows + 1 : 0);
  std::size_t inner_bytes = 0;
  sort_pairs<Key, std::uint32_t>(nullptr, inner_bytes, nullptr, nullptr,
                                 static_cast<const std::uint32_t*>(nullptr), nullptr, n,
                                 n > 0 ? rows : 0, nullptr, nullptr);
  scratch.inner = scratch.layout.add<unsigned char>(inner_bytes);
  scratch.inner_bytes = inner_bytes;
  return scratch;
}

}  // namespace

template <typename Key>
void sort_rows(void* temp_storage, std::size_t& temp_storage_bytes, const Key* input,
               Key* values_out, std::int64_t* indices_out, std::size_t rows, std::size_t cols,
               bool descending, cudaStream_t stream) {
  require(cols <= 0xFFFFFFFFu,
          [&] { return "sort_rows: cols = " + std::to_string(cols) + " is more than 2^32 - 1"; });
  require(rows == 0 || cols <= kMaxItems / rows, [&] {
    return "sort_rows: rows * cols = " + std::to_string(rows) + " * " + std::to_string(cols) +
           " is more than " + std::to_string(kMaxItems) + " elements";
  });
  const std::size_t n = rows * cols;
  const RowsScratch scratch = plan_rows_scratch<Key>(rows, cols);
  if (temp_storage == nullptr) {
    temp_storage_bytes = scratch.layout.total_bytes();
    return;
  }
  require(temp_storage_bytes >= scratch.layout.total_bytes(), [&] {
    return "sort_rows: temp_storage_bytes = " + std::to_string(temp_storage_bytes) +
           " is less than the " + std::to_string(scratch.layout.total_bytes()) +
           " bytes the size query returned";
  });
  if (n == 0) return;
  require(input != nullptr && values_out != nullptr && indices_out != nullptr,
          "sort_rows: null input, values_out or indices_out");
  require_apart("sort_rows",
                {MemoryRange{values_out, n * sizeof(Key), "values_out"},
                 MemoryRange{indices_out, n * sizeof(std::int64_t), "indices_out"},
                 MemoryRange{temp_storage, temp_storage_bytes, "temp_storage"}},
                {MemoryRange{input, n * sizeof(Key), "input"}});

  const ScratchLayout& layout = scratch.layout;
  Key* keys = layout.get<Key>(temp_storage, scratch.keys);  // unused for integer keys
  auto* columns = layout.get<std::uint32_t>(temp_storage, scratch.columns);
  auto* sorted_columns = layout.get<std::uint32_t>(temp_storage, scratch.sorted_columns);
  auto* row_offsets = layout.get<std::uint32_t>(temp_storage, scratch.row_offsets);
  void* inner = layout.get<unsigned char>(temp_storage, scratch.inner);
  std::size_t inner_bytes = scratch.inner_bytes;

  prepare_rows_kernel<Key><<<grid_for(std::max(n, rows + 1)), kThreads, 0, stream>>>(
      input, keys, columns, row_offsets, rows, cols);
  SORTLAB_CHECK_LAUNCH();
  sort_pairs<Key, std::uint32_t>(inner, inner_bytes, kCanonicalCopy<Key> ? keys : input, values_out,
                                 columns, sorted_columns, n, rows, row_offsets, row_offsets + 1,
                                 SortOptions{0, kAllBits, descending}, stream);
  finish_rows_kernel<Key><<<grid_for(n), kThreads, 0, stream>>>(input, values_out, sorted_columns,
                                                                indices_out, n, cols);
  SORTLAB_CHECK_LAUNCH();
}

// One instantiation per supported key type, here and only here: each reuses instances/'s
// (Key, u32) pair sort, so only the two small kernels above are compiled per key.
#define SORTLAB_STAGE06_INSTANTIATE_ROWS(Key)                                                     \
  template void sort_rows<Key>(void*, std::size_t&, const Key*, Key*, std::int64_t*, std::size_t, \
                               std::size_t, bool, cudaStream_t);
SORTLAB_STAGE06_INSTANTIATE_ROWS(float)
SORTLAB_STAGE06_INSTANTIATE_ROWS(double)
SORTLAB_STAGE06_INSTANTIATE_ROWS(__half)
SORTLAB_STAGE06_INSTANTIATE_ROWS(__nv_bfloat16)
SORTLAB_STAGE06_INSTANTIATE_ROWS(std::int32_t)
SORTLAB_STAGE06_INSTANTIATE_ROWS(std::int64_t)
SORTLAB_STAGE06_INSTANTIATE_ROWS(std::uint32_t)
SORTLAB_STAGE06_INSTANTIATE_ROWS(std::uint64_t)
#undef SORTLAB_STAGE06_INSTANTIATE_ROWS

}  // namespace sortlab::stage06
