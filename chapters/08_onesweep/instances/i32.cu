/// \file
/// \brief Stage 08's sorts and pass trace of i32 keys (keys only, u32, u64 and i64 values): one
/// key type per file, so that the key types compile in parallel (onesweep_sort_launch.cuh).
#include "chapters/08_onesweep/onesweep_sort_launch.cuh"

namespace sortlab::stage08 {
SORTLAB_STAGE08_INSTANTIATE(std::int32_t)
}  // namespace sortlab::stage08
