/// \file
/// \brief Stage 06's sorts of f64 keys (keys only, u32 and u64 values): one key type per file,
/// so that the key types compile in parallel (segmented_sort_launch.cuh).
#include "chapters/06_segmented_sort/segmented_sort_launch.cuh"

namespace sortlab::stage06 {
SORTLAB_STAGE06_INSTANTIATE(double)
}  // namespace sortlab::stage06
