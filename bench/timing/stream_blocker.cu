/// \file
/// \brief Implementation of the stream blocker.
#include <atomic>

#include "bench/timing/stream_blocker.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

/// Nanoseconds of the GPU's global timer.
__device__ unsigned long long global_timer_ns() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// One thread polls the host-pinned release flag (a volatile read goes to host memory every
/// time) until the host sets it, or gives up after timeout_ns and says so in timed_out.
__global__ void spin_until_released(const volatile int* release_flag, volatile int* timed_out,
                                    unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release_flag == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);  // ~1 µs between polls: light on the PCIe link, still prompt
  }
}

}  // namespace

StreamBlocker::StreamBlocker(double timeout_seconds)
    : timeout_ns_(static_cast<unsigned long long>(timeout_seconds * 1e9)) {
  int* flags = nullptr;
  SORTLAB_CUDA_CHECK(
      cudaHostAlloc(reinterpret_cast<void**>(&flags), 2 * sizeof(int), cudaHostAllocMapped));
  release_flag_ = flags;
  timed_out_flag_ = flags + 1;
  *release_flag_ = 1;
  *timed_out_flag_ = 0;
}

StreamBlocker::~StreamBlocker() {
  *release_flag_ = 1;  // never leave a kernel spinning behind us
  cudaFreeHost(const_cast<int*>(release_flag_));
}

void StreamBlocker::block(cudaStream_t stream) {
  *release_flag_ = 0;
  *timed_out_flag_ = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  int* device_flags = nullptr;
  SORTLAB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags),
                                              const_cast<int*>(release_flag_), 0));
  spin_until_released<<<1, 1, 0, stream>>>(device_flags, device_flags + 1, timeout_ns_);
  SORTLAB_CHECK_LAUNCH();
}

void StreamBlocker::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *release_flag_ = 1;
}

bool StreamBlocker::timed_out() const {
  return *timed_out_flag_ != 0;
}

}  // namespace sortlab::bench::timing
