/// \file
/// \brief Errors and CUDA call checking shared by every stage, test and benchmark.
///
/// Every CUDA runtime call in sortlab goes through SORTLAB_CUDA_CHECK, and every kernel
/// launch is followed by SORTLAB_CHECK_LAUNCH, so a failure surfaces as an exception that
/// names the call, the file, the line and CUDA's own message instead of as garbage later.
#pragma once

#include <cuda_runtime_api.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace sortlab {

/// Bad arguments or an unsupported request: the caller can fix it.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime call returned something other than cudaSuccess.
class CudaError : public Error {
 public:
  /// \param call the source text of the failing call
  /// \param file source file of the call
  /// \param line source line of the call
  /// \param code the CUDA error code
  CudaError(const char* call, const char* file, int line, cudaError_t code)
      : Error(describe(call, file, line, code)), code_(code) {}

  /// The CUDA error code the call returned.
  cudaError_t code() const noexcept { return code_; }

 private:
  static std::string describe(const char* call, const char* file, int line, cudaError_t code) {
    std::ostringstream message;
    message << "CUDA call `" << call << "` failed at " << file << ":" << line << ": "
            << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ")";
    return message.str();
  }
  cudaError_t code_;
};

/// Throws sortlab::CudaError when \p code is not cudaSuccess.
/// \param code value returned by the call
/// \param call source text of the call
/// \param file file of the call
/// \param line line of the call
inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    // A failed runtime call also leaves its error as the thread's last error; left there, the
    // next SORTLAB_CHECK_LAUNCH() (cudaGetLastError()) would blame an unrelated launch for it.
    (void)cudaGetLastError();
    throw CudaError(call, file, line, code);
  }
}

/// Throws sortlab::Error with \p message when \p condition is false.
/// \param condition what must hold
/// \param message what the caller did wrong
inline void require(bool condition, const char* message) {
  if (!condition) throw Error(message);
}

/// Throws sortlab::Error with \p message when \p condition is false.
/// \param condition what must hold
/// \param message what the caller did wrong
inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

/// Throws sortlab::Error with the message \p make_message() returns when \p condition is false.
/// The message is built only on failure, so checks on a sort's hot path cost no allocation:
/// `require(n <= limit, [&] { return "n = " + std::to_string(n) + " is too large"; });`
/// \param condition what must hold
/// \param make_message callable returning the message (a std::string)
template <typename MakeMessage,
          typename = std::enable_if_t<std::is_invocable_r_v<std::string, MakeMessage&>>>
void require(bool condition, MakeMessage&& make_message) {
  if (!condition) throw Error(make_message());
}

}  // namespace sortlab

/// Check a CUDA runtime call; throws sortlab::CudaError on failure.
#define SORTLAB_CUDA_CHECK(call) ::sortlab::check_cuda((call), #call, __FILE__, __LINE__)

/// Check the launch that just happened (bad configuration, missing kernel image, ...).
/// Kernel faults that occur later are reported by the next checked call on the stream.
#define SORTLAB_CHECK_LAUNCH() \
  ::sortlab::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
