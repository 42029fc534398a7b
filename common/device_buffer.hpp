/// \file
/// \brief DeviceBuffer: an owning, typed, RAII wrapper around cudaMalloc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace sortlab {

/// Owns `size()` elements of device memory; freed when the buffer goes out of scope.
/// Stages, tests and benchmarks never call cudaMalloc/cudaFree themselves.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;

  /// Allocates room for \p count elements (uninitialised).
  explicit DeviceBuffer(std::size_t count) { resize(count); }

  /// Allocates and copies \p host to the device.
  explicit DeviceBuffer(const std::vector<T>& host) {
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
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor
  }

  /// Frees the old storage and allocates \p count elements (uninitialised).
  void resize(std::size_t count) {
    if (data_ != nullptr) SORTLAB_CUDA_CHECK(cudaFree(data_));
    data_ = nullptr;
    size_ = 0;
    if (count > 0)
      SORTLAB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    size_ = count;
  }

  /// Copies \p host (which must have size() elements) to the device.
  void upload(const std::vector<T>& host) {
    require(host.size() == size_, "DeviceBuffer::upload: host vector size differs from buffer");
    if (size_ > 0)
      SORTLAB_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }

  /// Copies the whole buffer back to a new host vector.
  std::vector<T> download() const {
    std::vector<T> host(size_);
    if (size_ > 0)
      SORTLAB_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  /// Sets every byte to \p byte_value. Tests poison outputs with 0xAB-like patterns so that an
  /// element the sort forgot to write cannot pass by accident.
  void fill_bytes(int byte_value, cudaStream_t stream = nullptr) {
    if (size_ > 0) SORTLAB_CUDA_CHECK(cudaMemsetAsync(data_, byte_value, bytes(), stream));
  }

  /// Device pointer (nullptr when empty).
  T* data() noexcept { return data_; }
  /// Device pointer (nullptr when empty).
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return size_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace sortlab
