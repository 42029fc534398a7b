/// \file
/// \brief Stage 05 block-level sort on the GPU: a kernel loads one tile per block in a blocked
/// arrangement, sorts it with BlockRadixSort and stores it (blocked or striped); the result of
/// every block must equal the stable CPU reference of its tile. Several tile shapes (including
/// 8-bit counters and keys per thread that do not divide 32), key types, both directions, bit
/// ranges, keys only and pairs.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/reference.hpp"
#include "tests/stage05/record_key.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

using sortlab::stage05::BlockRadixSort;
using sortlab::stage05::NullType;

/// How the test kernel calls the sort.
struct BlockSortCall {
  int begin_bit;
  int end_bit;
  bool descending;
  bool striped;  ///< sort_blocked_to_striped instead of sort / sort_descending
};

/// One tile per block: load blocked, sort, store in the arrangement the call asks for.
template <typename Sort, typename Key, typename Value, int kThreads, int kKeysPerThread>
__global__ void block_sort_kernel(const Key* keys_in, Key* keys_out, const Value* values_in,
                                  Value* values_out, BlockSortCall call) {
  __shared__ typename Sort::TempStorage storage;
  constexpr int kTile = kThreads * kKeysPerThread;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTile;
  Key keys[kKeysPerThread];
  Value values[kKeysPerThread];
  for (int i = 0; i < kKeysPerThread; ++i) {
    keys[i] = keys_in[tile_first + threadIdx.x * kKeysPerThread + i];
    if constexpr (Sort::kHasValues)
      values[i] = values_in[tile_first + threadIdx.x * kKeysPerThread + i];
  }
  Sort sort(storage);
  if constexpr (Sort::kHasValues) {
    if (call.striped)
      sort.sort_blocked_to_striped(keys, values, call.descending, call.begin_bit, call.end_bit);
    else if (call.descending)
      sort.sort_descending(keys, values, call.begin_bit, call.end_bit);
    else
      sort.sort(keys, values, call.begin_bit, call.end_bit);
  } else {
    if (call.striped)
      sort.sort_blocked_to_striped(keys, call.descending, call.begin_bit, call.end_bit);
    else if (call.descending)
      sort.sort_descending(keys, call.begin_bit, call.end_bit);
    else
      sort.sort(keys, call.begin_bit, call.end_bit);
  }
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::size_t position = call.striped ? threadIdx.x + static_cast<std::size_t>(i) * kThreads
                                              : threadIdx.x * kKeysPerThread + i;
    keys_out[tile_first + position] = keys[i];
    if constexpr (Sort::kHasValues) values_out[tile_first + position] = values[i];
  }
}

/// One configuration of the block sort under test.
template <typename KeyT, int kThreadsT, int kKeysPerThreadT, int kRadixBitsT = 4,
          int kCounterBitsT = 16, typename ValueT = std::uint32_t>
struct BlockShape {
  using Key = KeyT;
  using Value = ValueT;
  static constexpr int kThreads = kThreadsT;
  static constexpr int kKeysPerThread = kKeysPerThreadT;
  static constexpr int kRadixBits = kRadixBitsT;
  static constexpr int kCounterBits = kCounterBitsT;
  static std::string name() {
    return "threads=" + std::to_string(kThreads) + " K=" + std::to_string(kKeysPerThread) +
           " r=" + std::to_string(kRadixBits) + " counter_bits=" + std::to_string(kCounterBits);
  }
};

/// The value of item \p i: its tile position for integer values (the reference then shows where
/// each key came from), for the 16-byte struct two 64-bit words that spread \p i over all 16
/// bytes, so a sort that moved only part of a value fails.
template <typename Value>
Value block_test_value(std::size_t i, std::size_t tile_items) {
  if constexpr (std::is_integral_v<Value>) {
    return static_cast<Value>(i % tile_items);
  } else {
    static_assert(sizeof(Value) == 16, "integers or a 16-byte struct");
    const std::uint64_t halves[2] = {i * 0x9E3779B97F4A7C15ull, ~i * 0xC2B2AE3D27D4EB4Full};
    Value value;
    std::memcpy(&value, halves, sizeof(value));
    return value;
  }
}

/// Sorts \p tiles tiles of random keys on the GPU and compares every tile with the reference.
template <typename Shape, bool kWithValues>
void expect_block_sort(int tiles, sortlab::Distribution distribution, const BlockSortCall& call,
                       std::uint64_t seed) {
  using Key = typename Shape::Key;
  using Value = std::conditional_t<kWithValues, typename Shape::Value, NullType>;
  using Sort = BlockRadixSort<Key, Shape::kThreads, Shape::kKeysPerThread, Value, Shape::kRadixBits,
                              Shape::kCounterBits>;
  constexpr std::size_t kTile = Shape::kThreads * Shape::kKeysPerThread;
  const std::size_t n = kTile * tiles;
  const auto keys = sortlab::generate_keys<Key>(distribution, n, seed);
  std::vector<typename Shape::Value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = block_test_value<typename Shape::Value>(i, kTile);
  sortlab::DeviceBuffer<Key> keys_in(keys), keys_out(n);
  sortlab::DeviceBuffer<typename Shape::Value> values_in(values), values_out(n);
  keys_out.fill_bytes(0xA5);
  values_out.fill_bytes(0xA5);
  block_sort_kernel<Sort, Key, Value, Shape::kThreads, Shape::kKeysPerThread>
      <<<tiles, Shape::kThreads>>>(keys_in.data(), keys_out.data(),
                                   reinterpret_cast<const Value*>(values_in.data()),
                                   reinterpret_cast<Value*>(values_out.data()), call);
  SORTLAB_CHECK_LAUNCH();
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto got_keys = keys_out.download();
  const auto got_values = values_out.download();
  const sortlab::SortOptions options{call.begin_bit, call.end_bit, call.descending};
  for (int b = 0; b < tiles; ++b) {
    const std::vector<Key> tile(keys.begin() + b * kTile, keys.begin() + (b + 1) * kTile);
    const std::vector<typename Shape::Value> tile_values(values.begin() + b * kTile,
                                                         values.begin() + (b + 1) * kTile);
    std::vector<Key> expected_keys;
    std::vector<typename Shape::Value> expected_values;
    sortlab::reference_sort_pairs(tile, tile_values, expected_keys, expected_values, options);
    for (std::size_t p = 0; p < kTile; ++p) {
      const std::size_t at = b * kTile + p;
      ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(got_keys[at]),
                sortlab::KeyTraits<Key>::raw_bits(expected_keys[p]))
          << "tile " << b << " position " << p;
      if (kWithValues)
        ASSERT_EQ(std::memcmp(&got_values[at], &expected_values[p], sizeof(expected_values[p])), 0)
            << "tile " << b << " position " << p << ": values lost their keys or their order";
    }
  }
}

template <typename Shape>
class Stage05BlockSort : public ::testing::Test {};

using BlockShapes = ::testing::Types<
    // cub::BlockRadixSort's common shapes with its default 4-bit digit
    BlockShape<std::uint32_t, 128, 8>, BlockShape<float, 256, 16>,
    BlockShape<std::uint64_t, 128, 4, 4, 16, std::uint64_t>,
    // a 16-byte struct value (moved through shared memory as it is)
    BlockShape<std::uint32_t, 128, 4, 4, 16, sortlab::testing::SixteenByteValue>,
    // keys per thread that do not divide 32, one warp, wider digits
    BlockShape<std::int32_t, 64, 7, 5>, BlockShape<__half, 32, 3, 6>,
    BlockShape<std::uint8_t, 64, 5, 8>, BlockShape<double, 64, 2, 3>,
    BlockShape<__nv_bfloat16, 128, 4, 1>,
    // 8-bit counters, four to a word: tiles of at most 255 keys
    BlockShape<std::uint16_t, 64, 3, 4, 8>, BlockShape<std::int64_t, 32, 7, 2, 8>>;
TYPED_TEST_SUITE(Stage05BlockSort, BlockShapes);

// Keys and pairs, ascending and descending, blocked and striped, full and partial bit ranges, an
// empty range, every distribution; three tiles per launch so each block sorts its own tile.
TYPED_TEST(Stage05BlockSort, EveryCallMatchesTheStableReference) {
  using Shape = TypeParam;
  const int width = sortlab::KeyTraits<typename Shape::Key>::kNumBits;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const BlockSortCall calls[] = {
      {0, width, false, false}, {0, width, true, false},         {0, width, false, true},
      {0, width, true, true},   {1, width - 1, false, false},    {2, 5, true, true},
      {3, 3, false, true},      {width - 5, width, true, false},
  };
  for (const BlockSortCall& call : calls)
    for (auto distribution : sortlab::all_distributions()) {
      SCOPED_TRACE(Shape::name() + " " +
                   sortlab::testing::case_label(0, sortlab::to_string(distribution), seed) +
                   " bits=[" + std::to_string(call.begin_bit) + "," + std::to_string(call.end_bit) +
                   ") descending=" + std::to_string(call.descending) +
                   " striped=" + std::to_string(call.striped));
      expect_block_sort<Shape, false>(3, distribution, call, seed);
      expect_block_sort<Shape, true>(3, distribution, call, seed + 1);
      if (::testing::Test::HasFailure()) return;
    }
}

}  // namespace

namespace {

using sortlab::testing::ByYThenX;
using sortlab::testing::concatenated_order;
using sortlab::testing::Record;

constexpr int kRecordThreads = 64;
constexpr int kRecordKeysPerThread = 5;

/// One tile of records per block, sorted through the decomposer: keys only (blocked or striped
/// output) or with u32 values.
template <bool kWithValues>
__global__ void record_sort_kernel(const Record* in, Record* out, const std::uint32_t* values_in,
                                   std::uint32_t* values_out, BlockSortCall call) {
  using Sort = BlockRadixSort<Record, kRecordThreads, kRecordKeysPerThread,
                              std::conditional_t<kWithValues, std::uint32_t, NullType>>;
  __shared__ typename Sort::TempStorage storage;
  constexpr int kK = kRecordKeysPerThread;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kRecordThreads * kK;
  Record keys[kK];
  std::uint32_t values[kK];
  for (int i = 0; i < kK; ++i) {
    keys[i] = in[tile_first + threadIdx.x * kK + i];
    if constexpr (kWithValues) values[i] = values_in[tile_first + threadIdx.x * kK + i];
  }
  Sort sort(storage);
  if constexpr (kWithValues)
    sort.sort(keys, values, ByYThenX{}, call.descending, call.striped, call.begin_bit,
              call.end_bit);
  else if (call.striped)
    sort.sort_blocked_to_striped(keys, ByYThenX{}, call.descending, call.begin_bit, call.end_bit);
  else if (call.descending)
    sort.sort_descending(keys, ByYThenX{}, call.begin_bit, call.end_bit);
  else
    sort.sort(keys, ByYThenX{}, call.begin_bit, call.end_bit);
  for (int i = 0; i < kK; ++i) {
    const std::size_t position = call.striped
                                     ? threadIdx.x + static_cast<std::size_t>(i) * kRecordThreads
                                     : threadIdx.x * kK + i;
    out[tile_first + position] = keys[i];
    if constexpr (kWithValues) values_out[tile_first + position] = values[i];
  }
}

// A struct of two key members and a payload member, sorted through a decomposer: both
// directions, blocked and striped, all bits, a range that straddles the two members, and pairs;
// every tile equals the stable sort by the members' ordered bits side by side, payload included.
TEST(Stage05BlockSortDecomposer, RecordsSortByTheirMembers) {
  constexpr std::size_t kTile = kRecordThreads * kRecordKeysPerThread;
  constexpr int kTiles = 3;
  const std::uint64_t seed = sortlab::testing::test_seed();
  std::mt19937_64 random(seed);
  std::vector<Record> records(kTile * kTiles);
  for (std::size_t i = 0; i < records.size(); ++i) {
    // Few distinct ys (ties to keep stable), xs with -0.0, +0.0 and NaN among them.
    const float xs[] = {0.0f, -0.0f, 1.5f, -2.0f, std::numeric_limits<float>::quiet_NaN()};
    records[i] = {static_cast<std::int32_t>(random() % 7) - 3,
                  i % 2 ? xs[random() % 5] : static_cast<float>(random() % 1000) - 500.0f,
                  static_cast<std::uint16_t>(i)};
  }
  std::vector<std::uint32_t> values(records.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  for (const BlockSortCall call :
       {BlockSortCall{0, 64, false, false}, BlockSortCall{0, 64, true, true},
        BlockSortCall{20, 50, false, true}, BlockSortCall{0, -1, true, false}}) {
    for (bool with_values : {false, true}) {
      SCOPED_TRACE("bits=[" + std::to_string(call.begin_bit) + "," + std::to_string(call.end_bit) +
                   ") descending=" + std::to_string(call.descending) +
                   " striped=" + std::to_string(call.striped) +
                   " values=" + std::to_string(with_values) + " seed=" + std::to_string(seed));
      sortlab::DeviceBuffer<Record> in(records), out(records.size());
      sortlab::DeviceBuffer<std::uint32_t> values_in(values), values_out(values.size());
      out.fill_bytes(0xA5);
      values_out.fill_bytes(0xA5);
      if (with_values)
        record_sort_kernel<true><<<kTiles, kRecordThreads>>>(
            in.data(), out.data(), values_in.data(), values_out.data(), call);
      else
        record_sort_kernel<false>
            <<<kTiles, kRecordThreads>>>(in.data(), out.data(), nullptr, nullptr, call);
      SORTLAB_CHECK_LAUNCH();
      SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
      const auto got = out.download();
      const auto got_values = values_out.download();
      const int end_bit = call.end_bit < 0 ? 64 : call.end_bit;
      const sortlab::SortOptions options{call.begin_bit, end_bit, call.descending};
      for (int b = 0; b < kTiles; ++b) {
        // The reference: a stable sort of the tile's concatenated orders as u64 keys.
        std::vector<std::uint64_t> orders(kTile);
        for (std::size_t p = 0; p < kTile; ++p)
          orders[p] = concatenated_order(records[b * kTile + p]);
        const auto order = sortlab::reference_sorted_order(orders, options);
        for (std::size_t p = 0; p < kTile; ++p) {
          const Record& expected = records[b * kTile + order[p]];
          const Record& actual = got[b * kTile + p];
          ASSERT_EQ(sortlab::bit_cast<std::uint32_t>(actual.x),
                    sortlab::bit_cast<std::uint32_t>(expected.x))
              << "tile " << b << " position " << p;
          ASSERT_EQ(actual.y, expected.y) << "tile " << b << " position " << p;
          ASSERT_EQ(actual.tag, expected.tag) << "tile " << b << " position " << p;
          if (with_values) ASSERT_EQ(got_values[b * kTile + p], values[b * kTile + order[p]]);
        }
      }
    }
  }
}

}  // namespace
