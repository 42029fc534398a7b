/// \file
/// \brief Implementation of the sampler.
#include <chrono>
#include <string>

#include "bench/timing/sampler.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

/// Owns the executable graphs of kGraph mode, one per input set, captured on first use.
class GraphCache {
 public:
  explicit GraphCache(std::size_t slots) : execs_(slots, nullptr) {}
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;
  ~GraphCache() {
    for (cudaGraphExec_t exec : execs_)
      if (exec != nullptr) cudaGraphExecDestroy(exec);
  }

  /// The graph of launch(stream, slot), captured from the stream the first time it is asked for.
  cudaGraphExec_t get(const Launch& launch, cudaStream_t stream, std::size_t slot) {
    if (execs_[slot] != nullptr) return execs_[slot];
    SORTLAB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      launch(stream, slot);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave the stream usable
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    SORTLAB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    const cudaError_t status = cudaGraphInstantiate(&execs_[slot], graph, 0);
    cudaGraphDestroy(graph);
    SORTLAB_CUDA_CHECK(status);
    return execs_[slot];
  }

 private:
  std::vector<cudaGraphExec_t> execs_;
};

}  // namespace

Sampler::Sampler(double blocker_timeout_seconds) {
  SORTLAB_CUDA_CHECK(cudaStreamCreate(&stream_));
  SORTLAB_CUDA_CHECK(cudaEventCreate(&start_));
  SORTLAB_CUDA_CHECK(cudaEventCreate(&stop_));
  l2_bytes_ = device_l2_bytes();
  flusher_ = std::make_unique<L2Flusher>(l2_bytes_);
  blocker_ = std::make_unique<StreamBlocker>(blocker_timeout_seconds);
}

Sampler::~Sampler() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaStreamDestroy(stream_);
}

double Sampler::sample(const Launch& launch, std::size_t slot, const SamplerOptions& options,
                       cudaGraphExec_t graph) {
  if (options.flush_l2) flusher_->flush(stream_, options.flush_method);
  switch (options.mode) {
    case TimingMode::kBlocking:
    case TimingMode::kGraph:
      // Both hold the stream, so the start event and the work behind it start together however
      // long the host takes to queue them (one graph launch, or the call's own launches).
      blocker_->block(stream_);
      try {
        SORTLAB_CUDA_CHECK(cudaEventRecord(start_, stream_));
        if (options.mode == TimingMode::kGraph) {
          SORTLAB_CUDA_CHECK(cudaGraphLaunch(graph, stream_));
        } else {
          launch(stream_, slot);
        }
        SORTLAB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
      } catch (...) {
        blocker_->release();
        cudaStreamSynchronize(stream_);
        throw;
      }
      blocker_->release();
      break;
    case TimingMode::kEvents:
      // The old method: the start event is recorded on an idle GPU.
      SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
      SORTLAB_CUDA_CHECK(cudaEventRecord(start_, stream_));
      launch(stream_, slot);
      SORTLAB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
      break;
  }
  SORTLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
  if (options.mode != TimingMode::kEvents && blocker_->timed_out())
    throw BlockingTimeout(
        "the blocking kernel timed out: the timed call waited for the host (a synchronising CUDA "
        "call?); measure it with --timing=events");
  float milliseconds = 0.0f;
  SORTLAB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_));
  return milliseconds;
}

Measurement Sampler::measure(const Launch& launch, std::size_t slots,
                             const SamplerOptions& options) {
  require(slots > 0, "Sampler::measure: at least one input set is needed");
  // The warm-up calls also load every kernel of the call: with lazy module loading the first
  // launch of a kernel synchronises the context, which behind a held stream would wait for the
  // blocking kernel's timeout.
  for (int call = 0; call < options.warmup_calls; ++call)
    launch(stream_, static_cast<std::size_t>(call) % slots);
  SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));

  GraphCache graphs(options.mode == TimingMode::kGraph ? slots : 0);
  Measurement measurement;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t index = 0;; ++index) {
    const std::size_t slot = index % slots;
    cudaGraphExec_t graph = nullptr;
    if (options.mode == TimingMode::kGraph) {
      graph = graphs.get(launch, stream_, slot);
    }
    measurement.samples_ms.push_back(sample(launch, slot, options, graph));
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
    measurement.stop = options.rule.decide(measurement.samples_ms, elapsed.count());
    if (measurement.stop != StopReason::kContinue) break;
  }
  measurement.summary = summarize(measurement.samples_ms);
  return measurement;
}

Sampler& shared_sampler() {
  // Deliberately never destroyed: its destructor would run after the CUDA runtime has shut down.
  static Sampler* sampler = new Sampler();
  return *sampler;
}

}  // namespace sortlab::bench::timing
