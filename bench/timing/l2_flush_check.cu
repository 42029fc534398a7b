/// \file
/// \brief `l2_flush_check`: what the L2 flush itself costs the call it precedes. Times a read
/// and a device-to-device copy of 4, 16, 64 and 256 MiB with the Sampler, after no flush (the
/// same input every sample, so a small one stays in the L2), after the write flush (the
/// method before 2026-11-28) and after the read flush (the default), and prints a markdown
/// table of p10, median and p90. A flush that evicts leaves the no-flush row of 4 or 16 MiB
/// faster than its own; a flush that leaves dirty lines behind charges their write-back to the
/// call (the write rows slower than the read rows). docs/results/README.md, "The L2 flush".
#include <cstdio>
#include <string>
#include <vector>

#include "bench/timing/sampler.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"

namespace {

using namespace sortlab;
using namespace sortlab::bench::timing;

/// Reads every 16-byte word of the input, like the first pass of a sort; writes nothing.
__global__ void read_input_kernel(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned fold = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 word = words[i];
    fold ^= word.x ^ word.y ^ word.z ^ word.w;
  }
  if (fold == 0x5eedf00du) *sink = fold;  // never: keeps the loads
}

struct Row {
  const char* name;
  bool flush;
  FlushMethod method;
};

}  // namespace

int main() {
  try {
    Sampler& sampler = shared_sampler();
    int device = 0, sms = 0;
    SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
    SORTLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    cudaDeviceProp properties{};
    SORTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    const std::vector<Row> rows = {{"none (input cached)", false, FlushMethod::kRead},
                                   {"write (before 2026-11-28)", true, FlushMethod::kWrite},
                                   {"read (default)", true, FlushMethod::kRead}};
    std::printf("L2 flush check on %s (L2 %zu MiB): milliseconds, p10 / median / p90\n\n",
                properties.name, sampler.l2_bytes() >> 20);
    std::printf(
        "| MiB | call | flush | p10 | median | p90 | samples "
        "|\n|---:|---|---|---:|---:|---:|---:|\n");
    for (const std::size_t mib : {4, 16, 64, 256}) {
      const std::size_t bytes = mib << 20;
      DeviceBuffer<unsigned char> input(bytes), output(bytes);
      DeviceBuffer<unsigned> sink(1);
      input.fill_bytes(0x3c);
      output.fill_bytes(0);
      SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
      const Launch read = [&](cudaStream_t stream, std::size_t) {
        read_input_kernel<<<static_cast<unsigned>(sms) * 8, 256, 0, stream>>>(
            reinterpret_cast<const uint4*>(input.data()), bytes / sizeof(uint4), sink.data());
        SORTLAB_CUDA_CHECK(cudaGetLastError());
      };
      const Launch copy = [&](cudaStream_t stream, std::size_t) {
        SORTLAB_CUDA_CHECK(
            cudaMemcpyAsync(output.data(), input.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      };
      for (const auto& [call_name, call] :
           {std::pair<const char*, const Launch*>{"read", &read}, {"copy", &copy}}) {
        for (const Row& row : rows) {
          SamplerOptions options;
          options.flush_l2 = row.flush;
          options.flush_method = row.method;
          options.rule.min_samples = 30;
          options.rule.max_seconds = 0.3;
          const Measurement m = sampler.measure(*call, 1, options);
          std::printf("| %zu | %s | %s | %.4f | %.4f | %.4f | %zu |\n", mib, call_name, row.name,
                      m.summary.p10, m.summary.median, m.summary.p90, m.summary.count);
        }
      }
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "l2_flush_check: %s\n", error.what());
    return 1;
  }
}
