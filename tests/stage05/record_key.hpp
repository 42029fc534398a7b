/// \file
/// \brief The user-defined key the stage 05 tests sort through a decomposer: a struct of two key
/// members (y, then x) and a payload member (tag) that must travel with its key.
#pragma once

#include <cuda/std/tuple>

#include <cstdint>

#include "common/key_traits.hpp"

namespace sortlab::testing {

/// A user-defined key: y then x; tag is payload inside the key object, not part of the order.
struct Record {
  std::int32_t y;     ///< most significant key member
  float x;            ///< least significant key member
  std::uint16_t tag;  ///< not part of the key
};

/// Exposes (y, x), most significant first, as cub::BlockRadixSort's decomposers do.
struct ByYThenX {
  /// The key members of \p record.
  __host__ __device__ ::cuda::std::tuple<std::int32_t&, float&> operator()(Record& record) const {
    return {record.y, record.x};
  }
};

/// The record's key as one 64-bit ordered value: y's ordered bits above x's.
/// \param record the record
inline std::uint64_t concatenated_order(const Record& record) {
  return std::uint64_t{KeyTraits<std::int32_t>::to_ordered(record.y)} << 32 |
         KeyTraits<float>::to_ordered(record.x);
}

}  // namespace sortlab::testing
