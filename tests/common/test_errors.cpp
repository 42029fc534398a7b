/// \file
/// \brief Error reporting and argument checks: CUDA failures name the call, file, line and CUDA's
/// message; bad sort arguments are rejected with sortlab::Error. Needs no GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/errors.hpp"
#include "common/sort_options.hpp"

namespace sortlab {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The message of the sortlab::Error \p action throws; fails the test if it throws none.
template <typename Action>
std::string error_message(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected sortlab::Error, nothing was thrown";
  return {};
}

cudaError_t returns(cudaError_t code) {
  return code;
}

TEST(CudaCheck, FailingCallThrowsCudaErrorNamingCallFileLineAndMessage) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    SORTLAB_CUDA_CHECK(returns(cudaErrorInvalidValue));
    FAIL() << "SORTLAB_CUDA_CHECK did not throw";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
    EXPECT_TRUE(contains(message, "`returns(cudaErrorInvalidValue)`")) << message;
    EXPECT_TRUE(contains(message, "test_errors.cpp:" + std::to_string(line))) << message;
    EXPECT_TRUE(contains(message, "cudaErrorInvalidValue (")) << message;  // CUDA's name
    EXPECT_TRUE(contains(message, cudaGetErrorString(cudaErrorInvalidValue))) << message;
    EXPECT_TRUE(contains(message, "invalid argument")) << message;
  }
}

TEST(CudaCheck, DirectErrorCodeAndOtherCodes) {
  EXPECT_THROW(SORTLAB_CUDA_CHECK(cudaErrorInvalidValue), CudaError);
  try {
    SORTLAB_CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "SORTLAB_CUDA_CHECK did not throw";
  } catch (const Error& error) {  // a CudaError is a sortlab::Error
    EXPECT_TRUE(contains(error.what(), "cudaErrorMemoryAllocation")) << error.what();
    EXPECT_TRUE(contains(error.what(), "out of memory")) << error.what();
  }
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(SORTLAB_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(check_cuda(cudaSuccess, "call", "file", 1));
}

TEST(CudaCheck, CheckCudaUsesTheGivenLocation) {
  try {
    check_cuda(cudaErrorInvalidDevice, "cudaSetDevice(99)", "somewhere.cu", 321);
    FAIL() << "check_cuda did not throw";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorInvalidDevice);
    EXPECT_TRUE(contains(error.what(), "`cudaSetDevice(99)` failed at somewhere.cu:321"))
        << error.what();
  }
}

TEST(ErrorTypes, Hierarchy) {
  EXPECT_TRUE((std::is_base_of_v<std::runtime_error, Error>));
  EXPECT_TRUE((std::is_base_of_v<Error, CudaError>));
}

TEST(Require, ThrowsErrorWithTheMessage) {
  EXPECT_NO_THROW(require(true, "unused"));
  EXPECT_EQ(error_message([] { require(false, "k must be positive"); }), "k must be positive");
}

// ---------------------------------------------------------------------------------------------
// validate_sort_arguments and validate_temp_storage.

class SortArguments : public ::testing::Test {
 protected:
  // Host addresses stand in for device pointers: the checks only compare them.
  std::uint32_t a_[4] = {};
  std::uint32_t b_[4] = {};
  std::uint32_t c_[4] = {};
  std::uint32_t d_[4] = {};
};

TEST_F(SortArguments, AcceptsValidArguments) {
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(100, {}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(100, {}, a_, b_, c_, d_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(kMaxSortItems, {}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(5, SortOptions{32, 32, false}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(5, SortOptions{0, 32, true}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<double>(5, SortOptions{60, 64, false}, a_, b_));
  // n = 0 needs no memory at all.
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(0, {}, nullptr, nullptr));
}

TEST_F(SortArguments, RejectsTooManyItems) {
  const std::string message =
      error_message([&] { validate_sort_arguments<std::uint32_t>(kMaxSortItems + 1, {}, a_, b_); });
  EXPECT_TRUE(contains(message, "2^30")) << message;
  EXPECT_TRUE(contains(message, std::to_string(kMaxSortItems + 1))) << message;
  EXPECT_EQ(kMaxSortItems, std::size_t{1} << 30);
}

TEST_F(SortArguments, RejectsBadBitRanges) {
  const SortOptions bad[] = {
      {0, 33, false}, {-1, 32, false}, {9, 8, false}, {0, -2, false}, {40, kAllBits, false}};
  for (const SortOptions& options : bad) {
    const std::string message =
        error_message([&] { validate_sort_arguments<std::uint32_t>(10, options, a_, b_); });
    EXPECT_TRUE(contains(message, "begin_bit")) << message;
  }
  // The limit is the key's own width.
  EXPECT_THROW(validate_sort_arguments<std::uint8_t>(10, SortOptions{0, 9, false}, a_, b_), Error);
  EXPECT_THROW(validate_sort_arguments<__half>(10, SortOptions{0, 17, false}, a_, b_), Error);
  // Bit ranges are checked even when there is nothing to sort.
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(0, SortOptions{0, 33, false}, a_, b_), Error);
}

TEST_F(SortArguments, RejectsNullPointers) {
  EXPECT_TRUE(contains(
      error_message([&] { validate_sort_arguments<std::uint32_t>(10, {}, nullptr, b_); }), "null"));
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(10, {}, a_, nullptr), Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(10, {}, a_, b_, c_, nullptr), Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(10, {}, a_, b_, nullptr, d_), Error);
}

TEST_F(SortArguments, RejectsInPlace) {
  EXPECT_TRUE(contains(
      error_message([&] { validate_sort_arguments<std::uint32_t>(10, {}, a_, a_); }), "in-place"));
  EXPECT_TRUE(contains(
      error_message([&] { validate_sort_arguments<std::uint32_t>(10, {}, a_, b_, c_, c_); }),
      "in-place"));
}

TEST(TempStorage, AcceptsEnough) {
  unsigned char scratch[64] = {};
  EXPECT_NO_THROW(validate_temp_storage(scratch, 64, 64));
  EXPECT_NO_THROW(validate_temp_storage(scratch, 100, 64));
  EXPECT_NO_THROW(validate_temp_storage(nullptr, 0, 0));  // a sort that needs no scratch
}

TEST(TempStorage, RejectsTooLittleOrNull) {
  unsigned char scratch[64] = {};
  const std::string small = error_message([&] { validate_temp_storage(scratch, 63, 64); });
  EXPECT_TRUE(contains(small, "63")) << small;
  EXPECT_TRUE(contains(small, "64")) << small;
  EXPECT_THROW(validate_temp_storage(scratch, 0, 1), Error);
  const std::string null = error_message([] { validate_temp_storage(nullptr, 64, 64); });
  EXPECT_TRUE(contains(null, "null")) << null;
}

TEST(TempStorage, ANullPointerIsASizeQueryAnythingElseIsChecked) {
  std::size_t bytes = 7;
  EXPECT_TRUE(answer_size_query(nullptr, bytes, 512));
  EXPECT_EQ(bytes, 512u);
  unsigned char scratch[64] = {};
  bytes = 64;
  EXPECT_FALSE(answer_size_query(scratch, bytes, 64));
  EXPECT_EQ(bytes, 64u);  // a real call leaves the size alone
  EXPECT_THROW(answer_size_query(scratch, bytes, 65), Error);
}

TEST(SortPairsArguments, BothValuePointersAreRequired) {
  std::uint32_t values[2] = {};
  EXPECT_NO_THROW(require_value_pointers(2, values, values + 1));
  EXPECT_NO_THROW(require_value_pointers(0, nullptr, nullptr));  // nothing to sort
  const std::string message = error_message([] { require_value_pointers(2, nullptr, nullptr); });
  EXPECT_TRUE(contains(message, "value pointers")) << message;
  EXPECT_THROW(require_value_pointers(2, values, nullptr), Error);
}

}  // namespace
}  // namespace sortlab
