/// \file
/// \brief Stage 05's sorts and pass trace of i16 keys (keys only and every value carrier): one
/// key type per file, so that the key types compile in parallel (packed_rank_sort_launch.cuh).
#include "chapters/05_packed_rank/packed_rank_sort_launch.cuh"

namespace sortlab::stage05 {
SORTLAB_STAGE05_INSTANTIATE(std::int16_t)
}  // namespace sortlab::stage05
