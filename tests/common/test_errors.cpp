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
#include "common/trace_digit.hpp"

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

/// A made-up device address: the checks compare pointers and never dereference them. 16 GiB
/// apart, so arrays of up to 2^30 64-bit items never overlap by accident.
inline const void* fake_address(int slot) {
  return reinterpret_cast<const void*>(std::uintptr_t{0x10000000000} +
                                       std::uintptr_t(slot) * (std::uintptr_t{1} << 34));
}

class SortArguments : public ::testing::Test {
 protected:
  const void* scratch_ = fake_address(0);  // any non-null pointer: not a size query
  const void* a_ = fake_address(1);
  const void* b_ = fake_address(2);
  const void* c_ = fake_address(3);
  const void* d_ = fake_address(4);
  /// \p base + \p bytes, for partly overlapping arrays.
  static const void* plus(const void* base, std::ptrdiff_t bytes) {
    return static_cast<const unsigned char*>(base) + bytes;
  }
};

TEST_F(SortArguments, AcceptsValidArguments) {
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, c_, d_));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, kMaxSortItems, {}, a_, b_));
  EXPECT_NO_THROW(
      validate_sort_arguments<std::uint32_t>(scratch_, 5, SortOptions{32, 32, false}, a_, b_));
  EXPECT_NO_THROW(
      validate_sort_arguments<std::uint32_t>(scratch_, 5, SortOptions{0, 32, true}, a_, b_));
  EXPECT_NO_THROW(validate_sort_arguments<double>(scratch_, 5, SortOptions{60, 64, false}, a_, b_));
  // n = 0 needs no memory at all.
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 0, {}, nullptr, nullptr));
  // Adjacent arrays touch but do not overlap; the two inputs may overlap (both are only read).
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, plus(a_, 400)));
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, a_, d_));
}

TEST_F(SortArguments, ASizeQueryNeedsNoPointers) {
  // CUB's idiom: sort_keys(nullptr, bytes, nullptr, nullptr, n) asks for the size.
  EXPECT_NO_THROW(validate_sort_arguments<std::uint32_t>(nullptr, 1000, {}, nullptr, nullptr));
  EXPECT_NO_THROW(require_value_pointers(nullptr, 1000, nullptr, nullptr));
  const SortArrays none = validate_sort_arguments<std::uint32_t>(nullptr, 1000, {}, a_, a_);
  EXPECT_EQ(none.keys_in.bytes, 0u);
  // ... but n and the bit range are still checked.
  EXPECT_THROW(
      validate_sort_arguments<std::uint32_t>(nullptr, kMaxSortItems + 1, {}, nullptr, nullptr),
      Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(nullptr, 10, SortOptions{0, 33, false},
                                                      nullptr, nullptr),
               Error);
}

TEST_F(SortArguments, RejectsTooManyItems) {
  const std::string message = error_message(
      [&] { validate_sort_arguments<std::uint32_t>(scratch_, kMaxSortItems + 1, {}, a_, b_); });
  EXPECT_TRUE(contains(message, std::to_string(kMaxSortItems))) << message;
  EXPECT_TRUE(contains(message, std::to_string(kMaxSortItems + 1))) << message;
  EXPECT_EQ(kMaxSortItems, std::size_t{1} << 30);
  // A sort with 64-bit offsets passes its own limit.
  const std::size_t big = (std::size_t{1} << 31) + 1;
  EXPECT_NO_THROW(
      validate_sort_arguments<std::uint8_t>(scratch_, big, {}, a_, b_, nullptr, nullptr, big));
  EXPECT_THROW(
      validate_sort_arguments<std::uint8_t>(scratch_, big + 1, {}, a_, b_, nullptr, nullptr, big),
      Error);
}

TEST_F(SortArguments, RejectsBadBitRanges) {
  const SortOptions bad[] = {
      {0, 33, false}, {-1, 32, false}, {9, 8, false}, {0, -2, false}, {40, kAllBits, false}};
  for (const SortOptions& options : bad) {
    const std::string message = error_message(
        [&] { validate_sort_arguments<std::uint32_t>(scratch_, 10, options, a_, b_); });
    EXPECT_TRUE(contains(message, "begin_bit")) << message;
  }
  // The limit is the key's own width.
  EXPECT_THROW(
      validate_sort_arguments<std::uint8_t>(scratch_, 10, SortOptions{0, 9, false}, a_, b_), Error);
  EXPECT_THROW(validate_sort_arguments<__half>(scratch_, 10, SortOptions{0, 17, false}, a_, b_),
               Error);
  // Bit ranges are checked even when there is nothing to sort.
  EXPECT_THROW(
      validate_sort_arguments<std::uint32_t>(scratch_, 0, SortOptions{0, 33, false}, a_, b_),
      Error);
}

TEST_F(SortArguments, RejectsNullPointers) {
  EXPECT_TRUE(contains(
      error_message([&] { validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, nullptr, b_); }),
      "null"));
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, a_, nullptr), Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, a_, b_, c_, nullptr),
               Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, a_, b_, nullptr, d_),
               Error);
}

TEST_F(SortArguments, RejectsInPlace) {
  EXPECT_TRUE(contains(
      error_message([&] { validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, a_, a_); }),
      "in-place"));
  EXPECT_TRUE(contains(error_message([&] {
                         validate_sort_arguments<std::uint32_t>(scratch_, 10, {}, a_, b_, c_, c_);
                       }),
                       "in-place"));
}

TEST_F(SortArguments, RejectsEveryPartialOverlapAndNamesBothArrays) {
  // keys_out starts one key before the end of keys_in.
  const std::string message = error_message(
      [&] { validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, plus(a_, 396)); });
  EXPECT_TRUE(contains(message, "keys_out")) << message;
  EXPECT_TRUE(contains(message, "keys_in")) << message;
  // keys_out ending one key into keys_in.
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, plus(a_, -396)),
               Error);
  // values_out over keys_out, over keys_in, over values_in; 8-byte values use 8-byte ranges.
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, c_, plus(b_, 200)),
               Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, c_, plus(a_, 4)),
               Error);
  EXPECT_THROW(validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, c_, plus(c_, 399)),
               Error);
  EXPECT_NO_THROW((validate_sort_arguments<std::uint32_t, std::uint32_t>(scratch_, 100, {}, a_, b_,
                                                                         c_, plus(c_, 400))));
  EXPECT_THROW((validate_sort_arguments<std::uint32_t, std::uint64_t>(scratch_, 100, {}, a_, b_, c_,
                                                                      plus(c_, 400))),
               Error);
}

TEST_F(SortArguments, RejectsScratchOverlappingAnyArray) {
  const SortArrays arrays =
      validate_sort_arguments<std::uint32_t>(scratch_, 100, {}, a_, b_, c_, d_);
  for (const void* array : {a_, b_, c_, d_}) {
    std::size_t bytes = 4096;
    const std::string message =
        error_message([&] { answer_size_query(plus(array, 8), bytes, 1024, arrays); });
    EXPECT_TRUE(contains(message, "temp_storage")) << message;
  }
  // Scratch that ends right where an array starts is fine.
  std::size_t bytes = 1024;
  EXPECT_FALSE(answer_size_query(plus(a_, -1024), bytes, 1024, arrays));
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
  unsigned char scratch[1] = {};
  EXPECT_NO_THROW(require_value_pointers(scratch, 2, values, values + 1));
  EXPECT_NO_THROW(require_value_pointers(scratch, 0, nullptr, nullptr));  // nothing to sort
  EXPECT_NO_THROW(require_value_pointers(nullptr, 2, nullptr, nullptr));  // a size query
  const std::string message =
      error_message([&] { require_value_pointers(scratch, 2, nullptr, nullptr); });
  EXPECT_TRUE(contains(message, "value pointers")) << message;
  EXPECT_THROW(require_value_pointers(scratch, 2, values, nullptr), Error);
}

TEST(Require, BuildsALazyMessageOnlyOnFailure) {
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("built");
  };
  EXPECT_NO_THROW(require(true, message));
  EXPECT_EQ(built, 0);
  EXPECT_EQ(error_message([&] { require(false, message); }), "built");
  EXPECT_EQ(built, 1);
}

// Stages 05 and 08's trace_pass check their digit here (common/trace_digit.hpp): the message
// names the bad value, and a digit past the key's end is cut to it.
TEST(TraceDigit, BadDigitsNameTheirValueAndWideOnesAreCut) {
  EXPECT_EQ(checked_trace_digit_bits<std::uint32_t>(0, 8, 8), 8);
  EXPECT_EQ(checked_trace_digit_bits<std::uint32_t>(28, 8, 8), 4);
  EXPECT_EQ(checked_trace_digit_bits<std::uint64_t>(60, 6, 7), 4);
  std::string message = error_message([&] { checked_trace_digit_bits<std::uint32_t>(32, 8, 8); });
  EXPECT_TRUE(contains(message, "first_bit = 32 is outside [0, 32)")) << message;
  message = error_message([&] { checked_trace_digit_bits<std::uint16_t>(-1, 8, 8); });
  EXPECT_TRUE(contains(message, "first_bit = -1 is outside [0, 16)")) << message;
  message = error_message([&] { checked_trace_digit_bits<std::uint32_t>(0, 9, 8); });
  EXPECT_TRUE(contains(message, "num_bits = 9 is outside 1..8")) << message;
  message = error_message([&] { checked_trace_digit_bits<std::uint32_t>(0, 0, 7); });
  EXPECT_TRUE(contains(message, "num_bits = 0 is outside 1..7")) << message;
}

}  // namespace
}  // namespace sortlab
