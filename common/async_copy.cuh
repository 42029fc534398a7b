/// \file
/// \brief Global-to-shared copies that do not stall the thread that starts them (`cp.async`,
/// sm_80 and later).
///
/// A plain copy through shared memory (`shared[i] = global[i]`) stalls its thread at the store
/// until the load's data has come from DRAM. A block that sorts one tile after another then
/// waits for every tile's keys before it can start on them. With `cp.async` the copy runs in
/// the background: the block starts the next tile's copy, sorts the current one, and waits only
/// when it needs the next tile, so the DRAM latency hides behind the sort.
///
/// \code
/// async_copy(&next_tile[slot], &source[p]);  // per element, any number of them
/// async_copy_commit();                        // closes this thread's group of copies
/// ...                                         // other work, on other shared memory
/// async_copy_wait_all();                      // this thread's copies have landed
/// __syncthreads();                            // and every thread's are visible to the block
/// \endcode
#pragma once

#include <cuda_pipeline_primitives.h>

namespace sortlab {

/// Whether an element of type \p T can travel by one `cp.async` of its own size: 4, 8 or 16
/// bytes, aligned to that size. Other types (2-byte keys, odd-sized structs) take a plain load
/// and store, which is correct but waits for the load.
template <typename T>
inline constexpr bool kAsyncCopyable = (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) &&
                                       alignof(T) == sizeof(T);

/// Starts copying `*source` (global memory) into `*target` (shared memory). The value is
/// visible to this thread after async_copy_wait_all(), to the block after that and a barrier;
/// nothing may read or write `*target` before then.
/// \param target element in shared memory
/// \param source element in global memory
template <typename T>
__device__ __forceinline__ void async_copy(T* target, const T* source) {
  if constexpr (kAsyncCopyable<T>)
    __pipeline_memcpy_async(target, source, sizeof(T));
  else
    *target = *source;
}

/// Closes the group of copies this thread started since its last commit.
__device__ __forceinline__ void async_copy_commit() {
  __pipeline_commit();
}

/// Waits until every copy this thread started has landed in shared memory.
__device__ __forceinline__ void async_copy_wait_all() {
  __pipeline_wait_prior(0);
}

}  // namespace sortlab
