/// \file
/// \brief DeviceBuffer: an owning, typed, RAII wrapper around cudaMalloc.
///
/// A buffer made without a stream uses cudaMalloc/cudaFree and synchronous copies, which order
/// themselves after all work on the legacy default stream. A buffer made with a stream uses the
/// stream-ordered allocator (cudaMallocAsync/cudaFreeAsync) and asynchronous copies on that
/// stream followed by a wait on that stream alone, so code that must never wait on other
/// streams (the stages' trace functions) can still use buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace sortlab {

/// Byte written over buffers that a kernel is expected to fill (test outputs, scratch, trace
/// arrays), so an element the kernel forgot to write shows up as 0xA5A5... instead of passing.
inline constexpr int kPoisonByte = 0xA5;

/// Owns `size()` elements of device memory; freed when the buffer goes out of scope.
/// Stages, tests and benchmarks never call cudaMalloc/cudaFree themselves.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;

  /// Allocates room for \p count elements (uninitialised).
  explicit DeviceBuffer(std::size_t count) { resize(count); }

  /// Allocates room for \p count elements (uninitialised), ordered on \p stream.
  DeviceBuffer(std::size_t count, cudaStream_t stream) : stream_(stream), stream_ordered_(true) {
    resize(count);
  }

  /// Allocates and copies \p host to the device.
  explicit DeviceBuffer(const std::vector<T>& host) {
    resize(host.size());
    upload(host);
  }

  /// Allocates and copies \p host to the device, ordered on \p stream.
  DeviceBuffer(const std::vector<T>& host, cudaStream_t stream)
      : stream_(stream), stream_ordered_(true) {
    resize(host.size());
    upload(host);
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over \p other's storage; \p other is left empty.
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  /// Frees this buffer's storage and takes over \p other's.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~DeviceBuffer() { release(); }

  /// Frees the old storage and allocates \p count elements (uninitialised).
  void resize(std::size_t count) {
    if (data_ != nullptr) {
      if (stream_ordered_)
        SORTLAB_CUDA_CHECK(cudaFreeAsync(data_, stream_));
      else
        SORTLAB_CUDA_CHECK(cudaFree(data_));
    }
    data_ = nullptr;
    size_ = 0;
    if (count > 0) {
      if (stream_ordered_)
        SORTLAB_CUDA_CHECK(
            cudaMallocAsync(reinterpret_cast<void**>(&data_), count * sizeof(T), stream_));
      else
        SORTLAB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    size_ = count;
  }

  /// Copies \p host (which must have size() elements) to the device.
  void upload(const std::vector<T>& host) {
    require(host.size() == size_, "DeviceBuffer::upload: host vector size differs from buffer");
    if (size_ == 0) return;
    if (stream_ordered_) {
      SORTLAB_CUDA_CHECK(
          cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream_));
      SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    } else {
      SORTLAB_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
  }

  /// Copies the whole buffer back to a new host vector.
  std::vector<T> download() const {
    std::vector<T> host(size_);
    if (size_ == 0) return host;
    if (stream_ordered_) {
      SORTLAB_CUDA_CHECK(
          cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream_));
      SORTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    } else {
      SORTLAB_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    }
    return host;
  }

  /// Sets every byte to \p byte_value. Tests poison outputs with 0xAB-like patterns so that an
  /// element the sort forgot to write cannot pass by accident.
  /// \param byte_value the byte to write
  /// \param stream the stream to order it on (a stream-ordered buffer's own stream if null)
  void fill_bytes(int byte_value, cudaStream_t stream = nullptr) {
    if (stream == nullptr && stream_ordered_) stream = stream_;
    if (size_ > 0) SORTLAB_CUDA_CHECK(cudaMemsetAsync(data_, byte_value, bytes(), stream));
  }

  /// fill_bytes(kPoisonByte): marks every element as "not yet written".
  void poison() { fill_bytes(kPoisonByte); }

  /// Device pointer (nullptr when empty).
  T* data() noexcept { return data_; }
  /// Device pointer (nullptr when empty).
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return size_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  void release() noexcept {  // no throw from a destructor
    if (data_ == nullptr) return;
    if (stream_ordered_)
      cudaFreeAsync(data_, stream_);
    else
      cudaFree(data_);
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(stream_, other.stream_);
    std::swap(stream_ordered_, other.stream_ordered_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;  ///< the stream allocations and copies are ordered on
  bool stream_ordered_ = false;    ///< true: cudaMallocAsync/cudaFreeAsync on stream_
};

}  // namespace sortlab
