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

/// Short name of device 0 suitable for a file name, e.g. "NVIDIA-H100-80GB-HBM3".
std::string gpu_file_name();

}  // namespace sortlab
