/// \file
/// \brief main() for GPU test programs: skip (exit 77) without a GPU, or fail when
/// SORTLAB_REQUIRE_GPU=1 says there must be one; run the tests with one.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/gpu_detect.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // Listing the tests (ctest discovery) must work on machines without a GPU too.
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  const sortlab::GpuTestStart start =
      sortlab::decide_gpu_test_start(sortlab::gpu_available(), std::getenv("SORTLAB_REQUIRE_GPU"));
  if (start != sortlab::GpuTestStart::kRun) {
    std::printf("%s\n", sortlab::no_gpu_message(start, sortlab::gpu_description()).c_str());
    return start == sortlab::GpuTestStart::kSkip ? sortlab::kSkipReturnCode : 1;
  }
#ifdef SORTLAB_LARGE_TEST_MAIN
  // Programs of the `large` label sort 2^30 keys: tens of GB of GPU memory and minutes of
  // host-side checking, so they run only when asked for (the device check asks).
  const char* run_large = std::getenv("SORTLAB_RUN_LARGE");
  if (run_large == nullptr || std::string(run_large) != "1") {
    std::printf(
        "large GPU test skipped: it sorts 2^30 keys (about 30 GB of GPU memory); run it with "
        "SORTLAB_RUN_LARGE=1 (`make test-large`)\n");
    return sortlab::kSkipReturnCode;
  }
#endif
  return RUN_ALL_TESTS();
}
