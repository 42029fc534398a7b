/// \file
/// \brief Implementation of GPU detection.
#include "common/gpu_detect.hpp"

#include <cuda_runtime_api.h>

#include <cctype>

namespace sortlab {

bool gpu_available() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error so later checks start clean
    return false;
  }
  return count > 0;
}

std::string gpu_description() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA device present";
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return "CUDA device 0 (unreadable)";
  return properties.name;
}

GpuTestStart decide_gpu_test_start(bool gpu_present, const char* require_gpu) {
  if (gpu_present) return GpuTestStart::kRun;
  const bool required =
      require_gpu != nullptr && std::string(require_gpu) != "" && std::string(require_gpu) != "0";
  return required ? GpuTestStart::kFail : GpuTestStart::kSkip;
}

std::string no_gpu_message(GpuTestStart start, const std::string& reason) {
  if (start == GpuTestStart::kFail)
    return "FAILED: no CUDA GPU, and SORTLAB_REQUIRE_GPU=1 says this machine must have one (" +
           reason + ")";
  return "no CUDA GPU: GPU test skipped (" + reason +
         "); the CPU tests run with `ctest -L cpu` or `make test-cpu`";
}

std::string gpu_file_name() {
  std::string name = gpu_available() ? gpu_description() : std::string("no-gpu");
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '-';
  return name;
}

}  // namespace sortlab
