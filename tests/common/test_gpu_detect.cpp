/// \file
/// \brief How a GPU test program starts: run with a GPU, skip without one, fail without one when
/// SORTLAB_REQUIRE_GPU=1 (a GPU machine with a broken driver must not end a test run green).
#include <gtest/gtest.h>

#include <string>

#include "common/gpu_detect.hpp"

namespace sortlab {
namespace {

TEST(GpuTestStart, RunsWithAGpuWhateverTheVariableSays) {
  EXPECT_EQ(decide_gpu_test_start(true, nullptr), GpuTestStart::kRun);
  EXPECT_EQ(decide_gpu_test_start(true, "1"), GpuTestStart::kRun);
}

TEST(GpuTestStart, SkipsWithoutAGpuUnlessOneIsRequired) {
  EXPECT_EQ(decide_gpu_test_start(false, nullptr), GpuTestStart::kSkip);
  EXPECT_EQ(decide_gpu_test_start(false, ""), GpuTestStart::kSkip);
  EXPECT_EQ(decide_gpu_test_start(false, "0"), GpuTestStart::kSkip);
  EXPECT_EQ(decide_gpu_test_start(false, "1"), GpuTestStart::kFail);
}

TEST(GpuTestStart, MessagesSayWhatHappenedAndWhy) {
  const std::string reason = "CUDA driver version is insufficient for CUDA runtime version";
  const std::string skip = no_gpu_message(GpuTestStart::kSkip, reason);
  EXPECT_NE(skip.find("no CUDA GPU: GPU test skipped"), std::string::npos) << skip;
  EXPECT_NE(skip.find(reason), std::string::npos) << skip;
  EXPECT_NE(skip.find("ctest -L cpu"), std::string::npos) << skip;
  const std::string fail = no_gpu_message(GpuTestStart::kFail, reason);
  EXPECT_NE(fail.find("FAILED"), std::string::npos) << fail;
  EXPECT_NE(fail.find("SORTLAB_REQUIRE_GPU"), std::string::npos) << fail;
  EXPECT_NE(fail.find(reason), std::string::npos) << fail;
}

}  // namespace
}  // namespace sortlab
