/// \file
/// \brief The key types the harness supports, as GoogleTest type lists with short names
/// ("u32", "f16", ...) for typed tests.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sortlab::testing {

/// Names typed-test instances after their key type ("u32" instead of "3").
struct KeyName {
  /// Short name of key type T.
  template <typename T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
    if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
    if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
    if constexpr (std::is_same_v<T, std::uint64_t>) return "u64";
    if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
    if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
    if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
    if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
    if constexpr (std::is_same_v<T, float>) return "f32";
    if constexpr (std::is_same_v<T, double>) return "f64";
    if constexpr (std::is_same_v<T, __half>) return "f16";
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
    return "unknown";
  }
};

/// Every key type of common/key_traits.hpp.
using AllKeyTypes = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                                     std::int8_t, std::int16_t, std::int32_t, std::int64_t, float,
                                     double, __half, __nv_bfloat16>;
/// The floating key types.
using FloatingKeyTypes = ::testing::Types<float, double, __half, __nv_bfloat16>;

}  // namespace sortlab::testing
