/// \file
/// \brief The CCCL (CUB / Thrust) version the baselines were compiled against, for the JSON
/// context: a CUB update can move every "vs CUB" ratio, so the page names the version.
#include <thrust/version.h>
#include <cub/version.cuh>

#include <string>

#include "bench/table/baselines.hpp"

namespace sortlab::bench {

std::string cccl_version() {
  return "CUB " + std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) +
         "." + std::to_string(CUB_SUBMINOR_VERSION) + ", Thrust " +
         std::to_string(THRUST_MAJOR_VERSION) + "." + std::to_string(THRUST_MINOR_VERSION) + "." +
         std::to_string(THRUST_SUBMINOR_VERSION);
}

}  // namespace sortlab::bench
