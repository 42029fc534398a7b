/// \file
/// \brief Is there a usable CUDA device? GPU tests use this to report "skipped" on machines
/// without one (ctest SKIP_RETURN_CODE) instead of failing or, worse, passing.
#pragma once

#include <string>

namespace sortlab {

/// Exit code a GPU test returns when there is no GPU; ctest's SKIP_RETURN_CODE is set to it.
inline constexpr int kSkipReturnCode = 77;

/// True when at least one CUDA device is present and the driver works.
bool gpu_available();

/// Why no GPU is usable (CUDA's message), or the device's name when one is.
std::string gpu_description();

/// What a GPU test program does at start.
enum class GpuTestStart {
  kRun,   ///< a GPU is present: run the tests
  kSkip,  ///< no GPU: exit with kSkipReturnCode (ctest reports the tests as skipped)
  kFail,  ///< no GPU although SORTLAB_REQUIRE_GPU=1 asked for one: exit with failure
};

/// Decides how a GPU test program starts. \p require_gpu is the value of the environment
/// variable SORTLAB_REQUIRE_GPU (null when unset): a GPU machine whose driver is broken must not
/// end a test run green, so the device check sets it to 1 and "no GPU" becomes a failure.
/// \param gpu_present whether gpu_available() found a device
/// \param require_gpu SORTLAB_REQUIRE_GPU's value, or null
GpuTestStart decide_gpu_test_start(bool gpu_present, const char* require_gpu);

/// The line a GPU test program prints when it finds no GPU, saying why (CUDA's own reason)
/// and what happens: "no CUDA GPU: GPU test skipped (CUDA driver version is insufficient...)".
/// \param start kSkip or kFail
/// \param reason gpu_description() on the machine without a GPU
std::string no_gpu_message(GpuTestStart start, const std::string& reason);

/// Short name of device 0 suitable for a file name, e.g. "NVIDIA-H100-80GB-HBM3".
std::string gpu_file_name();

}  // namespace sortlab
