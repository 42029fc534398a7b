/// \file
/// \brief The GPU test suite every device sort in sortlab must pass.
///
/// A stage's test file describes its sort with a small "sorter" struct and instantiates the suite
/// for its key types:
/// \code
/// struct Stage01Sorter {
///   static constexpr std::size_t kTileItems = 256;  // the stage's block tile, for boundary sizes
///   // (optional: kKeysTileItems, the keys-only sort's tile where it differs from the pairs')
///   template <typename Key>
///   static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
///                         const sortlab::SortOptions& options, cudaStream_t stream);
///   template <typename Key>
///   static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
///                          const std::uint32_t* values_in, std::uint32_t* values_out,
///                          std::size_t n, const sortlab::SortOptions& options, cudaStream_t
///                          stream);
/// };
/// using Stage01Cases = ::testing::Types<sortlab::testing::SortCase<Stage01Sorter, std::uint32_t>,
/// ...>; INSTANTIATE_TYPED_TEST_SUITE_P(Stage01, DeviceSortSuite, Stage01Cases); \endcode Every run
/// poisons the outputs and the scratch, draws fresh keys (seed printed on failure), and checks
/// order, permutation and (for pairs) stability against the CPU reference. The outputs and the
/// scratch are allocated one tile longer than asked, and that canary tail must come back
/// untouched. A third SortCase parameter picks the value type of pair sorts (default u32); a
/// sorter whose sort_pairs takes other value types declares it as
/// `template <typename Key, typename Value> static void sort_pairs(...)`.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/sort_options.hpp"
#include "common/verify.hpp"
#include "tests/support/legacy_stream_blocker.hpp"
#include "tests/support/test_inputs.hpp"

namespace sortlab::testing {

/// Byte written over outputs and scratch before every run, so unwritten elements are caught.
inline constexpr int kPoisonByte = sortlab::kPoisonByte;

/// One (sorter, key type, value type) combination of the suite.
template <typename SorterT, typename KeyT, typename ValueT = std::uint32_t>
struct SortCase {
  using Sorter = SorterT;  ///< the stage's sorter struct
  using Key = KeyT;        ///< the key type
  using Value = ValueT;    ///< the value type of pair sorts
};

/// Values for a pair sort of \p n items: distinct, and for 8-byte types spread over all 64 bits
/// (an odd multiplier is a bijection modulo 2^64), so a sort that moved only the low half of a
/// value fails. A 16-byte struct gets two such words with different multipliers, so every one of
/// its bytes varies and the first eight alone tell the values apart.
template <typename Value>
std::vector<Value> make_test_values(std::size_t n) {
  static_assert(std::is_integral_v<Value> || std::is_same_v<Value, SixteenByteValue>,
                "the suite's pair values are integers or SixteenByteValue");
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Value, SixteenByteValue>) {
      const std::uint64_t halves[2] = {i * 0x9E3779B97F4A7C15ull, ~i * 0xC2B2AE3D27D4EB4Full};
      std::memcpy(&values[i], halves, sizeof(halves));
    } else {
      values[i] = sizeof(Value) >= 8 ? static_cast<Value>(i * 0x9E3779B97F4A7C15ull)
                                     : static_cast<Value>(i);
    }
  }
  return values;
}

/// The sorts promise not to modify their input (keys_in is const): check it bit for bit.
/// \param device_input the input buffer after the sort
/// \param host_input what was uploaded
template <typename T>
void expect_input_untouched(const DeviceBuffer<T>& device_input, const std::vector<T>& host_input) {
  const std::vector<T> after = device_input.download();
  ASSERT_EQ(after.size(), host_input.size());
  for (std::size_t i = 0; i < after.size(); ++i)
    ASSERT_EQ(std::memcmp(&after[i], &host_input[i], sizeof(T)), 0)
        << "the sort modified its input at index " << i;
}

/// Expects the bytes of \p buffer from \p first_byte on to still hold kPoisonByte: the canary
/// tail past the n items (or the scratch bytes) the sort was given.
/// \param buffer the buffer to check
/// \param first_byte where the canary starts
/// \param what "keys_out" ... for the message
template <typename T>
void expect_canary_intact(const DeviceBuffer<T>& buffer, std::size_t first_byte, const char* what) {
  std::vector<unsigned char> bytes(buffer.bytes());
  if (bytes.empty()) return;
  SORTLAB_CUDA_CHECK(cudaMemcpy(bytes.data(), buffer.data(), bytes.size(), cudaMemcpyDeviceToHost));
  for (std::size_t i = first_byte; i < bytes.size(); ++i)
    ASSERT_EQ(bytes[i], kPoisonByte)
        << "the sort wrote byte " << (i - first_byte) << " past the end of " << what << " ("
        << first_byte << " bytes were its to write)";
}

/// How one suite run calls the sort: an offset that misaligns the scratch pointer, and the stream.
struct RunSettings {
  std::size_t scratch_offset = 0;  ///< bytes between the allocation and the scratch pointer
  cudaStream_t stream = nullptr;   ///< stream of the sort (null: the legacy default stream)
};

/// Scratch for one sort: poisoned, with a canary tail of one tile after the bytes asked for.
struct PoisonedScratch {
  /// \param bytes what the sort asked for
  /// \param settings where the pointer starts inside the allocation
  /// \param canary_bytes length of the canary tail
  PoisonedScratch(std::size_t bytes, const RunSettings& settings, std::size_t canary_bytes)
      : allocation(settings.scratch_offset + bytes + canary_bytes),
        end_of_scratch(settings.scratch_offset + bytes) {
    allocation.fill_bytes(kPoisonByte);
  }
  /// The pointer the sort gets.
  void* pointer(const RunSettings& settings) { return allocation.data() + settings.scratch_offset; }
  DeviceBuffer<unsigned char> allocation;  ///< offset, scratch and canary
  std::size_t end_of_scratch;              ///< first canary byte
};

/// Runs Sorter's keys-only sort on \p keys (scratch and output poisoned, canaries after both)
/// and verifies the result.
template <typename Sorter, typename Key>
void expect_sorts_keys(const std::vector<Key>& keys, const SortOptions& options = {},
                       const RunSettings& settings = {}) {
  const std::size_t n = keys.size();
  const std::size_t canary = Sorter::kTileItems;
  DeviceBuffer<Key> keys_in(keys);
  DeviceBuffer<Key> keys_out(n + canary);
  keys_out.fill_bytes(kPoisonByte);
  std::size_t temp_bytes = 0;
  // The size query needs no pointers (CUB's idiom).
  Sorter::template sort_keys<Key>(nullptr, temp_bytes, static_cast<const Key*>(nullptr), nullptr, n,
                                  options, settings.stream);
  PoisonedScratch temp(temp_bytes, settings, 256);
  Sorter::template sort_keys<Key>(temp.pointer(settings), temp_bytes, keys_in.data(),
                                  keys_out.data(), n, options, settings.stream);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> sorted = keys_out.download();
  sorted.resize(n);
  const VerifyResult result = verify_stably_sorted_keys(keys, sorted, options);
  EXPECT_TRUE(result.ok) << result.message;
  expect_canary_intact(keys_out, n * sizeof(Key), "keys_out");
  expect_canary_intact(temp.allocation, temp.end_of_scratch, "temp_storage");
  expect_input_untouched(keys_in, keys);
}

/// Runs Sorter's pair sort with distinct values and verifies order, permutation and stability.
template <typename Sorter, typename Key, typename Value = std::uint32_t>
void expect_sorts_pairs(const std::vector<Key>& keys, const SortOptions& options = {},
                        const RunSettings& settings = {}) {
  const std::size_t n = keys.size();
  const std::size_t canary = Sorter::kTileItems;
  const std::vector<Value> values = make_test_values<Value>(n);
  DeviceBuffer<Key> keys_in(keys);
  DeviceBuffer<Value> values_in(values);
  DeviceBuffer<Key> keys_out(n + canary);
  DeviceBuffer<Value> values_out(n + canary);
  keys_out.fill_bytes(kPoisonByte);
  values_out.fill_bytes(kPoisonByte);
  std::size_t temp_bytes = 0;
  Sorter::template sort_pairs<Key>(nullptr, temp_bytes, static_cast<const Key*>(nullptr), nullptr,
                                   static_cast<const Value*>(nullptr), nullptr, n, options,
                                   settings.stream);
  PoisonedScratch temp(temp_bytes, settings, 256);
  Sorter::template sort_pairs<Key>(temp.pointer(settings), temp_bytes, keys_in.data(),
                                   keys_out.data(), values_in.data(), values_out.data(), n, options,
                                   settings.stream);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> sorted_keys = keys_out.download();
  std::vector<Value> sorted_values = values_out.download();
  sorted_keys.resize(n);
  sorted_values.resize(n);
  const VerifyResult result =
      verify_sorted_pairs(keys, values, sorted_keys, sorted_values, options);
  EXPECT_TRUE(result.ok) << result.message;
  expect_canary_intact(keys_out, n * sizeof(Key), "keys_out");
  expect_canary_intact(values_out, n * sizeof(Value), "values_out");
  expect_canary_intact(temp.allocation, temp.end_of_scratch, "temp_storage");
  expect_input_untouched(keys_in, keys);
  expect_input_untouched(values_in, values);
}

/// Typed fixture: TypeParam is a SortCase.
template <typename Case>
class DeviceSortSuite : public ::testing::Test {};
/// Declares the suite; a stage instantiates it with INSTANTIATE_TYPED_TEST_SUITE_P.
TYPED_TEST_SUITE_P(DeviceSortSuite);

/// Whether Sorter maps -0.0 and +0.0 to one bit pattern *inside* partial descending bit ranges
/// the way sortlab does (descending = complement of ascending). CUB picks the other of the two
/// neighbouring patterns for descending sorts, which is equally valid for full-width sorts but
/// orders zeros differently against denormals when a bit range cuts through them; a Sorter
/// declares `static constexpr bool kSortlabZeroConvention = false;` to skip that one case.
template <typename Sorter, typename = void>
struct UsesSortlabZeroConvention : std::true_type {};
template <typename Sorter>
struct UsesSortlabZeroConvention<Sorter, std::void_t<decltype(Sorter::kSortlabZeroConvention)>>
    : std::bool_constant<Sorter::kSortlabZeroConvention> {};

/// The most items Sorter accepts: `Sorter::kMaxItems` where the sorter declares it (sorts with
/// 64-bit offsets), else kMaxSortItems (2^30).
template <typename Sorter, typename = void>
struct MaxItemsOf : std::integral_constant<std::size_t, kMaxSortItems> {};
template <typename Sorter>
struct MaxItemsOf<Sorter, std::void_t<decltype(Sorter::kMaxItems)>>
    : std::integral_constant<std::size_t, Sorter::kMaxItems> {};

/// The tile of Sorter's keys-only sort, for its boundary sizes: `Sorter::kKeysTileItems` where the
/// sorter declares it (a sort whose pairs take a tile of another size), else kTileItems.
template <typename Sorter, typename = void>
struct KeysTileItemsOf : std::integral_constant<std::size_t, Sorter::kTileItems> {};
template <typename Sorter>
struct KeysTileItemsOf<Sorter, std::void_t<decltype(Sorter::kKeysTileItems)>>
    : std::integral_constant<std::size_t, Sorter::kKeysTileItems> {};

/// Distributions used at large sizes (all of them at small sizes).
inline std::vector<Distribution> large_size_distributions() {
  return {Distribution::kUniform, Distribution::kEntropyReduced, Distribution::kFewDistinct,
          Distribution::kReversed, Distribution::kFloatSpecials};
}

/// Keys only: every distribution at every small size (tile boundaries included).
TYPED_TEST_P(DeviceSortSuite, KeysAllDistributionsSmallSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : all_distributions())
    for (std::size_t n : small_sizes(KeysTileItemsOf<Sorter>::value)) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_keys<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Keys only: 2^20 and 2^24 keys for the distributions that stress a radix sort most.
TYPED_TEST_P(DeviceSortSuite, KeysLargeSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : large_size_distributions())
    for (std::size_t n : large_sizes()) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_keys<Sorter>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Pairs: every distribution at every small size; values must travel with their keys, stably.
TYPED_TEST_P(DeviceSortSuite, PairsAreStableSmallSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : all_distributions())
    for (std::size_t n : small_sizes(Sorter::kTileItems)) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_pairs<Sorter, Key, Value>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Pairs at 2^20 and 2^24: uniform and few distinct keys (long runs of ties).
TYPED_TEST_P(DeviceSortSuite, PairsAreStableLargeSizes) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::uint64_t seed = test_seed();
  for (Distribution distribution : {Distribution::kUniform, Distribution::kFewDistinct})
    for (std::size_t n : large_sizes()) {
      SCOPED_TRACE(case_label(n, to_string(distribution), seed));
      expect_sorts_pairs<Sorter, Key, Value>(generate_keys<Key>(distribution, n, seed + n));
      if (::testing::Test::HasFailure()) return;
    }
}

/// Descending order, partial bit ranges (the other bits keep input order) and empty ranges.
TYPED_TEST_P(DeviceSortSuite, DescendingAndBitRanges) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::uint64_t seed = test_seed();
  const int width = KeyTraits<Key>::kNumBits;
  const SortOptions option_sets[] = {
      {0, kAllBits, true},       // descending, all bits
      {0, 4, false},             // low nibble only: the rest must keep input order
      {3, width - 5, false},     // a window in the middle
      {width - 8, width, true},  // top byte, descending
      {5, 5, false},             // empty bit range: output is a copy of the input
  };
  for (const SortOptions& options : option_sets)
    for (Distribution distribution :
         {Distribution::kUniform, Distribution::kFewDistinct, Distribution::kFloatSpecials})
      for (std::size_t n : capped({0, 1, 33, 1000, 3 * Sorter::kTileItems + 7, 100003})) {
        const bool partial_descending = options.descending && options.end_bit != kAllBits &&
                                        (options.begin_bit > 0 || options.end_bit < width);
        if (!UsesSortlabZeroConvention<Sorter>::value && partial_descending &&
            distribution == Distribution::kFloatSpecials && KeyTraits<Key>::kIsFloating)
          continue;
        SCOPED_TRACE(case_label(n, to_string(distribution), seed) +
                     " begin_bit=" + std::to_string(options.begin_bit) +
                     " end_bit=" + std::to_string(options.end_bit) +
                     " descending=" + std::to_string(options.descending));
        const auto keys = generate_keys<Key>(distribution, n, seed + n);
        expect_sorts_keys<Sorter>(keys, options);
        expect_sorts_pairs<Sorter, Key, Value>(keys, options);
        if (::testing::Test::HasFailure()) return;
      }
}

/// The scratch may start anywhere (callers sub-allocate it from pools): at every alignment the
/// sort must realign inside the bytes it asked for, never fault or write outside them.
TYPED_TEST_P(DeviceSortSuite, AcceptsMisalignedScratch) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::uint64_t seed = test_seed();
  for (std::size_t offset : {1, 4, 8, 136})
    for (std::size_t n : capped({1000, 2 * Sorter::kTileItems + 1})) {
      SCOPED_TRACE(case_label(n, "uniform", seed) + " scratch_offset=" + std::to_string(offset));
      const auto keys = generate_keys<Key>(Distribution::kUniform, n, seed + n);
      RunSettings settings;
      settings.scratch_offset = offset;
      expect_sorts_keys<Sorter>(keys, {}, settings);
      expect_sorts_pairs<Sorter, Key, Value>(keys, {}, settings);
      if (::testing::Test::HasFailure()) return;
    }
}

/// A sort on a non-blocking stream while the legacy stream is held by a spinning kernel: the
/// sort must finish and be complete when only its own stream has been waited for, which fails
/// if any of its work (or a host call inside it) waits on the legacy stream or the device.
TYPED_TEST_P(DeviceSortSuite, SortsOnItsOwnStreamWhileTheLegacyStreamIsBusy) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::uint64_t seed = test_seed();
  const std::size_t n = capped({3 * Sorter::kTileItems + 5, 1000}).front();
  SCOPED_TRACE(case_label(n, "uniform", seed));
  const auto keys = generate_keys<Key>(Distribution::kUniform, n, seed);
  const std::vector<Value> values = make_test_values<Value>(n);
  // Everything that allocates (and so may synchronise the device) happens before the block.
  const CudaStream stream;
  DeviceBuffer<Key> keys_in(keys), keys_out(n);
  DeviceBuffer<Value> values_in(values), values_out(n);
  std::size_t keys_bytes = 0, pairs_bytes = 0;
  Sorter::template sort_keys<Key>(nullptr, keys_bytes, keys_in.data(), keys_out.data(), n,
                                  SortOptions{}, stream.get());
  Sorter::template sort_pairs<Key>(nullptr, pairs_bytes, keys_in.data(), keys_out.data(),
                                   values_in.data(), values_out.data(), n, SortOptions{},
                                   stream.get());
  DeviceBuffer<unsigned char> keys_temp(keys_bytes), pairs_temp(pairs_bytes);
  std::vector<Key> sorted_keys(n), pair_keys(n);
  std::vector<Value> pair_values(n);
  // One unblocked run of each sort first: CUDA loads kernels lazily, and loading a kernel may
  // synchronise the whole context, which would wait for the spinning kernel forever (the CUDA
  // programming guide's lazy-loading deadlock). What is tested is the sort, not its first load.
  Sorter::template sort_keys<Key>(keys_temp.data(), keys_bytes, keys_in.data(), keys_out.data(), n,
                                  SortOptions{}, stream.get());
  Sorter::template sort_pairs<Key>(pairs_temp.data(), pairs_bytes, keys_in.data(), keys_out.data(),
                                   values_in.data(), values_out.data(), n, SortOptions{},
                                   stream.get());
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  keys_out.fill_bytes(kPoisonByte);
  values_out.fill_bytes(kPoisonByte);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  // Results are copied back on the sort's stream while the legacy stream is still held: work
  // the sort put on the legacy stream would not have run yet, and the check below would see
  // poison.
  auto download = [&](auto& host, const auto* device) {
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(host[0]),
                                       cudaMemcpyDeviceToHost, stream.get()));
  };
  bool released_in_time = false;
  bool legacy_stream_was_held = false;
  {
    LegacyStreamBlocker blocker;
    Sorter::template sort_keys<Key>(keys_temp.data(), keys_bytes, keys_in.data(), keys_out.data(),
                                    n, SortOptions{}, stream.get());
    download(sorted_keys, keys_out.data());
    stream.synchronize();
    keys_out.fill_bytes(kPoisonByte, stream.get());
    Sorter::template sort_pairs<Key>(pairs_temp.data(), pairs_bytes, keys_in.data(),
                                     keys_out.data(), values_in.data(), values_out.data(), n,
                                     SortOptions{}, stream.get());
    download(pair_keys, keys_out.data());
    download(pair_values, values_out.data());
    stream.synchronize();
    legacy_stream_was_held = blocker.still_blocking();
    released_in_time = blocker.release();
  }
  EXPECT_TRUE(released_in_time && legacy_stream_was_held)
      << "the sort waited on the legacy default stream or on the whole device";
  const VerifyResult keys_result = verify_stably_sorted_keys(keys, sorted_keys);
  EXPECT_TRUE(keys_result.ok) << "keys on a non-blocking stream: " << keys_result.message;
  const VerifyResult pairs_result = verify_sorted_pairs(keys, values, pair_keys, pair_values);
  EXPECT_TRUE(pairs_result.ok) << "pairs on a non-blocking stream: " << pairs_result.message;
}

/// The suite's sizes must reach past one full tile even under SORTLAB_TEST_MAX_N (which the
/// compute-sanitizer runs set low): a racecheck that never sees a full tile proves nothing
/// about the tile's shared-memory phases.
TYPED_TEST_P(DeviceSortSuite, SizeCapCoversOneFullTile) {
  using Sorter = typename TypeParam::Sorter;
  EXPECT_GE(max_test_n(), Sorter::kTileItems + 1)
      << "SORTLAB_TEST_MAX_N = " << max_test_n() << " cuts off this sorter's " << Sorter::kTileItems
      << "-key tile; raise it to at least " << Sorter::kTileItems + 1;
}

/// Caller errors throw sortlab::Error, through the stage's own sort_keys and sort_pairs: in-place
/// or partly overlapping arrays, scratch overlapping an array, null pointers, bad bit ranges,
/// too many items, too little scratch. A size query needs no pointers at all.
TYPED_TEST_P(DeviceSortSuite, RejectsBadArguments) {
  using Sorter = typename TypeParam::Sorter;
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  constexpr std::size_t n = 64;
  DeviceBuffer<Key> keys(4 * n);
  DeviceBuffer<Value> values(4 * n);
  // Every array (and the scratch, below) starts poisoned and must end so: a call with bad
  // arguments must throw before it launches anything.
  keys.fill_bytes(kPoisonByte);
  values.fill_bytes(kPoisonByte);
  Key* const keys_a = keys.data();
  Key* const keys_b = keys.data() + n;
  Value* const values_a = values.data();
  Value* const values_b = values.data() + n;

  // A size query needs no pointers (CUB's idiom), for keys and for pairs, and asks for as much
  // as a query with pointers.
  std::size_t keys_bytes = 0, keys_bytes_with_pointers = 0, pairs_bytes = 0;
  EXPECT_NO_THROW(Sorter::template sort_keys<Key>(nullptr, keys_bytes, nullptr, nullptr, n,
                                                  SortOptions{}, nullptr));
  Sorter::template sort_keys<Key>(nullptr, keys_bytes_with_pointers, keys_a, keys_b, n,
                                  SortOptions{}, nullptr);
  EXPECT_EQ(keys_bytes, keys_bytes_with_pointers);
  EXPECT_NO_THROW(Sorter::template sort_pairs<Key>(nullptr, pairs_bytes, nullptr, nullptr,
                                                   static_cast<const Value*>(nullptr), nullptr, n,
                                                   SortOptions{}, nullptr));
  std::size_t temp_bytes = std::max(keys_bytes, pairs_bytes);
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  temp.fill_bytes(kPoisonByte);
  void* const scratch = temp.data();

  auto expect_keys_error = [&](const char* what, void* t, const Key* in, Key* out,
                               std::size_t count, SortOptions options = {}) {
    std::size_t bytes = temp_bytes;
    EXPECT_THROW(Sorter::template sort_keys<Key>(t, bytes, in, out, count, options, nullptr), Error)
        << "sort_keys accepted: " << what;
  };
  auto expect_pairs_error = [&](const char* what, void* t, const Key* keys_in, Key* keys_out,
                                const Value* values_in, Value* values_out) {
    std::size_t bytes = temp_bytes;
    EXPECT_THROW(Sorter::template sort_pairs<Key>(t, bytes, keys_in, keys_out, values_in,
                                                  values_out, n, SortOptions{}, nullptr),
                 Error)
        << "sort_pairs accepted: " << what;
  };
  const int width = KeyTraits<Key>::kNumBits;
  expect_keys_error("in-place keys", scratch, keys_a, keys_a, n);
  expect_keys_error("keys_out overlapping keys_in by one key", scratch, keys_a, keys_a + n - 1, n);
  expect_keys_error("keys_out ending inside keys_in", scratch, keys_b, keys_a + 1, n);
  expect_keys_error("null keys_in", scratch, nullptr, keys_b, n);
  expect_keys_error("null keys_out", scratch, keys_a, nullptr, n);
  expect_keys_error("end_bit past the key", scratch, keys_a, keys_b, n,
                    SortOptions{0, width + 1, false});
  expect_keys_error("begin_bit after end_bit", scratch, keys_a, keys_b, n,
                    SortOptions{9, 8, false});
  expect_keys_error("negative begin_bit", scratch, keys_a, keys_b, n, SortOptions{-1, 8, false});
  expect_keys_error("more than the supported items", scratch, keys_a, keys_b,
                    MaxItemsOf<Sorter>::value + 1);
  expect_pairs_error("null values", scratch, keys_a, keys_b, nullptr, nullptr);
  expect_pairs_error("null values_out", scratch, keys_a, keys_b, values_a, nullptr);
  expect_pairs_error("null values_in", scratch, keys_a, keys_b, nullptr, values_b);
  expect_pairs_error("in-place values", scratch, keys_a, keys_b, values_a, values_a);
  expect_pairs_error("values_out overlapping values_in", scratch, keys_a, keys_b, values_a,
                     values_a + 1);
  expect_pairs_error("in-place keys of a pair sort", scratch, keys_a, keys_a, values_a, values_b);
  if (sizeof(Key) == sizeof(Value)) {
    expect_pairs_error("values_out aliasing keys_out", scratch, keys_a, keys_b, values_a,
                       reinterpret_cast<Value*>(keys_b));
  }
  if (temp_bytes > 0) {
    // The scratch must not overlap any array, and must be as large as the query said.
    expect_keys_error("scratch overlapping keys_out", keys_b + n / 2, keys_a, keys_b, n);
    expect_keys_error("scratch overlapping keys_in", keys_a, keys_a, keys_b, n);
    expect_pairs_error("scratch overlapping values_out", values_b, keys_a, keys_b, values_a,
                       values_b);
    std::size_t too_few = keys_bytes - 1;
    EXPECT_THROW(Sorter::template sort_keys<Key>(scratch, too_few, keys_a, keys_b, n, SortOptions{},
                                                 nullptr),
                 Error);
  }
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  expect_canary_intact(keys, 0, "keys (every call had bad arguments)");
  expect_canary_intact(values, 0, "values (every call had bad arguments)");
  expect_canary_intact(temp, 0, "temp_storage (every call had bad arguments)");
}

/// Registers every test of the suite.
REGISTER_TYPED_TEST_SUITE_P(DeviceSortSuite, KeysAllDistributionsSmallSizes, KeysLargeSizes,
                            PairsAreStableSmallSizes, PairsAreStableLargeSizes,
                            DescendingAndBitRanges, AcceptsMisalignedScratch,
                            SortsOnItsOwnStreamWhileTheLegacyStreamIsBusy, SizeCapCoversOneFullTile,
                            RejectsBadArguments);

}  // namespace sortlab::testing
