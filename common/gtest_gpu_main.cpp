/// \file
/// \brief main() for GPU test programs: skip (exit 77) without a GPU, run the tests with one.
#include <gtest/gtest.h>

#include <cstdio>

#include "common/gpu_detect.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // Listing the tests (ctest discovery) must work on machines without a GPU too.
  if (!GTEST_FLAG_GET(list_tests) && !sortlab::gpu_available()) {
    std::printf("SKIPPED: %s; this GPU test needs a CUDA device.\n",
                sortlab::gpu_description().c_str());
    return sortlab::kSkipReturnCode;
  }
  return RUN_ALL_TESTS();
}
