/// \file
/// \brief The copy `make sort-profile` profiles beside the sorts: n u32 keys read once and
/// written once by one kernel (16-byte accesses, 4 per thread, loads before stores), so the
/// sorts' kernels are compared with a copy of the same keys measured by the same counters under
/// the same conditions (caches flushed, clocks not locked). A cudaMemcpyAsync would not do: Nsight
/// Compute profiles kernels only.
///
///   copy_reference N     (N a multiple of 4; sort_profile.sh passes 2^LOG2_N)
///
/// Built by sort_profile.sh with the build's nvcc, not by CMake: it is a measuring tool of the
/// profile, not part of the library.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;

__global__ void __launch_bounds__(kThreads)
    copy_reference_kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                          unsigned long long vectors) {
  const unsigned long long first =
      static_cast<unsigned long long>(blockIdx.x) * kThreads * kVectorsPerThread + threadIdx.x;
  uint4 items[kVectorsPerThread];
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const unsigned long long index = first + static_cast<unsigned long long>(i) * kThreads;
    if (index < vectors) items[i] = in[index];
  }
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const unsigned long long index = first + static_cast<unsigned long long>(i) * kThreads;
    if (index < vectors) out[index] = items[i];
  }
}

bool check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "copy_reference: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long n = argc == 2 ? std::strtoull(argv[1], nullptr, 10) : 0;
  if (n == 0 || n % 4 != 0) {
    std::fprintf(stderr, "usage: copy_reference N   (N u32 keys, a multiple of 4)\n");
    return 2;
  }
  const unsigned long long bytes = n * 4, vectors = bytes / sizeof(uint4);
  void* in = nullptr;
  void* out = nullptr;
  if (!check(cudaMalloc(&in, bytes), "cudaMalloc") || !check(cudaMalloc(&out, bytes), "cudaMalloc"))
    return 1;
  if (!check(cudaMemset(in, 0x5a, bytes), "cudaMemset")) return 1;
  const unsigned long long per_block =
      static_cast<unsigned long long>(kThreads) * kVectorsPerThread;
  const unsigned blocks = static_cast<unsigned>((vectors + per_block - 1) / per_block);
  copy_reference_kernel<<<blocks, kThreads>>>(static_cast<const uint4*>(in),
                                              static_cast<uint4*>(out), vectors);
  if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), "copy")) return 1;
  unsigned first_word = 0;
  if (!check(cudaMemcpy(&first_word, out, sizeof(first_word), cudaMemcpyDeviceToHost), "check"))
    return 1;
  if (first_word != 0x5a5a5a5au) {
    std::fprintf(stderr, "copy_reference: the copy is wrong (0x%08x)\n", first_word);
    return 1;
  }
  std::printf("copy_reference: copied %llu u32 keys (%llu bytes) in %u blocks\n", n, bytes, blocks);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
