/// \file
/// \brief Implementation of LegacyStreamBlocker.
#include <chrono>

#include "common/errors.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace sortlab::testing {
namespace {

/// One thread spins until *flag is non-zero or about a minute of GPU clocks has passed (a
/// last guard so that even a lost watchdog cannot hang the GPU).
__global__ void spin_until_released_kernel(const volatile int* flag) {
  const long long start = clock64();
  const long long limit = 120LL * 1000 * 1000 * 1000;  // ~60 s at 2 GHz
  while (*flag == 0 && clock64() - start < limit) {
  }
}

}  // namespace

LegacyStreamBlocker::LegacyStreamBlocker(double watchdog_seconds) {
  void* host = nullptr;
  SORTLAB_CUDA_CHECK(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped));
  host_flag_ = static_cast<volatile int*>(host);
  *host_flag_ = 0;
  SORTLAB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag_), host, 0));
  spin_until_released_kernel<<<1, 1, 0, /*legacy stream*/ 0>>>(device_flag_);
  SORTLAB_CHECK_LAUNCH();
  watchdog_ = std::thread([this, watchdog_seconds] {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool in_time = released_.wait_for(lock, std::chrono::duration<double>(watchdog_seconds),
                                            [this] { return released_by_caller_; });
    if (!in_time) {
      watchdog_fired_ = true;
      *host_flag_ = 1;
    }
  });
}

bool LegacyStreamBlocker::release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!watchdog_fired_) released_by_caller_ = true;
    *host_flag_ = 1;
  }
  released_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  return !watchdog_fired_;
}

bool LegacyStreamBlocker::still_blocking() const {
  return cudaStreamQuery(0) == cudaErrorNotReady;
}

LegacyStreamBlocker::~LegacyStreamBlocker() {
  release();
  cudaStreamSynchronize(0);  // the kernel has exited before its flag is freed
  cudaFreeHost(const_cast<int*>(host_flag_));
}

}  // namespace sortlab::testing
