/// \file
/// \brief The timing core on the GPU: a kernel of known length is measured as that length in every
/// mode; host gaps between launches are timed by the old method and not by the blocking kernel;
/// a call that waits for the host is caught by the blocking kernel's timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/timing/buffer_plan.hpp"
#include "bench/timing/l2_flush.hpp"
#include "bench/timing/sampler.hpp"
#include "bench/timing/stream_blocker.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

/// One thread busy for about nanoseconds (the GPU's global timer).
__global__ void busy_kernel(unsigned long long nanoseconds) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

/// A launch of one busy kernel of \p microseconds.
Launch busy(double microseconds) {
  return [microseconds](cudaStream_t stream, std::size_t) {
    busy_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(microseconds * 1e3));
    SORTLAB_CHECK_LAUNCH();
  };
}

SamplerOptions options_for(TimingMode mode) {
  SamplerOptions options;
  options.mode = mode;
  options.rule.max_seconds = 0.2;
  return options;
}

TEST(SamplerGpu, AKernelOfKnownLengthMeasuresThatLengthInEveryMode) {
  Sampler sampler;
  for (TimingMode mode : {TimingMode::kBlocking, TimingMode::kGraph, TimingMode::kEvents}) {
    const Measurement measurement = sampler.measure(busy(200.0), 3, options_for(mode));
    const SampleSummary& summary = measurement.summary;
    EXPECT_GE(summary.count, 10u) << to_string(mode);
    EXPECT_GE(summary.median, 0.199) << to_string(mode);
    EXPECT_LT(summary.median, 0.230) << to_string(mode);
    EXPECT_LE(summary.min, summary.p10);
    EXPECT_LE(summary.p10, summary.median);
    EXPECT_LE(summary.median, summary.p90);
  }
}

TEST(SamplerGpu, TheBlockingKernelKeepsHostGapsOutOfTheTimedRegion) {
  // 20 kernels of 10 us with 500 us of host time between their launches: the GPU works 0.2 ms,
  // the host takes 10 ms to queue it all.
  const Launch gappy = [](cudaStream_t stream, std::size_t) {
    for (int k = 0; k < 20; ++k) {
      busy_kernel<<<1, 1, 0, stream>>>(10000);
      SORTLAB_CHECK_LAUNCH();
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  };
  Sampler sampler;
  SamplerOptions options = options_for(TimingMode::kBlocking);
  options.rule.min_samples = 5;
  const double held = sampler.measure(gappy, 1, options).summary.median;
  options.mode = TimingMode::kEvents;
  const double idle = sampler.measure(gappy, 1, options).summary.median;
  EXPECT_LT(held, 1.0);  // ~0.2 ms of GPU work plus launch latency
  EXPECT_GT(idle, 5.0);  // the old method times the host's 10 ms
}

TEST(SamplerGpu, ACallThatWaitsForTheHostTimesOutTheBlockingKernel) {
  Sampler sampler(0.05);
  const Launch synchronizing = [](cudaStream_t stream, std::size_t) {
    SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  SamplerOptions options = options_for(TimingMode::kBlocking);
  options.warmup_calls = 0;
  EXPECT_THROW(sampler.measure(synchronizing, 1, options), BlockingTimeout);
  // The sampler is usable afterwards.
  EXPECT_GE(sampler.measure(busy(50.0), 1, options_for(TimingMode::kBlocking)).summary.count, 10u);
}

TEST(StreamBlockerGpu, ReleasedInTimeIsNotATimeout) {
  cudaStream_t stream{};
  SORTLAB_CUDA_CHECK(cudaStreamCreate(&stream));
  StreamBlocker blocker(1.0);
  blocker.block(stream);
  blocker.release();
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_FALSE(blocker.timed_out());
  StreamBlocker impatient(0.01);
  impatient.block(stream);
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // never released: it must give up
  EXPECT_TRUE(impatient.timed_out());
  SORTLAB_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(L2FlusherGpu, ReadsOrWritesTwiceTheL2) {
  const std::size_t l2 = device_l2_bytes();
  EXPECT_GT(l2, 0u);
  L2Flusher flusher(l2);
  EXPECT_EQ(flusher.bytes(), l2_flush_bytes(l2));
  flusher.flush(nullptr);  // read, the default
  flusher.flush(nullptr, FlushMethod::kWrite);
  flusher.flush(nullptr, FlushMethod::kRead);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace sortlab::bench::timing
