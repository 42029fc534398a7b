/// \file
/// \brief Stage 08 device sort on the GPU (run on the H100): the shared device sort suite for all
/// 12 key types (u32 values; u64 and i64 values for some), the look-back
/// under stress (one tile, one tile + 1 key, many tiles, every key the same digit, repeated runs
/// reusing one scratch that the caller never clears), keys at every offset from a 16-byte
/// boundary (the histogram's word loads), one pass against the CPU model, and the usage snippet.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>

#include "chapters/08_onesweep/onesweep_model.hpp"
#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"
#include "tests/stage08/stage08_sorter.hpp"
#include "tests/support/device_sort_suite.hpp"
#include "tests/support/first_mismatch.hpp"
#include "tests/support/key_types.hpp"
#include "tests/support/legacy_stream_blocker.hpp"

namespace {

namespace stage08 = sortlab::stage08;

template <typename Key, typename Value = std::uint32_t>
using SorterFor = sortlab::testing::Stage08SorterFor<Key, Value>;

using sortlab::testing::SortCase;
template <typename Key, typename Value = std::uint32_t>
using Case = SortCase<SorterFor<Key, Value>, Key, Value>;
using Stage08Cases =
    ::testing::Types<Case<std::uint32_t>, Case<std::int32_t>, Case<float>, Case<std::uint64_t>,
                     Case<std::uint32_t, std::uint64_t>, Case<std::uint64_t, std::uint64_t>,
                     Case<std::int64_t>, Case<double>, Case<std::uint16_t>, Case<std::int16_t>,
                     Case<std::uint8_t>, Case<std::int8_t>, Case<__half>, Case<__nv_bfloat16>,
                     // int64 indices, as torch.sort returns them; 8-bit keys with 8-byte values
                     // (the widest values beside the narrowest keys)
                     Case<float, std::int64_t>, Case<std::uint8_t, std::uint64_t>>;

/// The raw bits of keys, so that comparisons see NaNs and -0.0 exactly.
template <typename Key>
std::vector<std::uint64_t> raw_bits(const std::vector<Key>& keys) {
  std::vector<std::uint64_t> bits(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    bits[i] = sortlab::KeyTraits<Key>::raw_bits(keys[i]);
  return bits;
}

/// Sorts pairs (values = input index) with one scratch \p temp, which is reused as it is left.
template <typename Key>
void expect_pairs_sorted_with(sortlab::DeviceBuffer<unsigned char>& temp,
                              const std::vector<Key>& keys,
                              const sortlab::SortOptions& options = {}) {
  const std::size_t n = keys.size();
  const std::vector<std::uint32_t> values = sortlab::iota_values(n);
  sortlab::DeviceBuffer<Key> keys_in(keys), keys_out(n);
  sortlab::DeviceBuffer<std::uint32_t> values_in(values), values_out(n);
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  values_out.fill_bytes(sortlab::testing::kPoisonByte);
  std::size_t temp_bytes = 0;
  stage08::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n, options);
  if (temp.size() < temp_bytes) temp.resize(temp_bytes);
  temp_bytes = temp.size();
  stage08::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n, options);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto result = sortlab::verify_sorted_pairs(keys, values, keys_out.download(),
                                                   values_out.download(), options);
  EXPECT_TRUE(result.ok) << result.message;
}

// The look-back under stress: one tile (no look-back), one tile + 1 key (one look-back over a
// one-key tile), many tiles (long chains), every key the same digit (one digit's chain carries
// everything, the others are zeros), each run after the other in one scratch that is never
// cleared by the test: the status words and tile counters the previous run left must not leak.
TEST(Stage08Lookback, StressCasesReuseOneScratch) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = stage08::tile_items_for(4, 4);  // the pair sort's (u32 values)
  sortlab::DeviceBuffer<unsigned char> temp(1);
  temp.fill_bytes(sortlab::testing::kPoisonByte);
  std::mt19937_64 random(seed);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t n : sortlab::testing::capped(
             {tile, tile + 1, 2 * tile - 1, 1000 * tile + 7, tile, tile + 1})) {
      SCOPED_TRACE(sortlab::testing::case_label(n, "stress", seed) +
                   " round=" + std::to_string(round));
      const auto uniform =
          sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, n, seed + n);
      expect_pairs_sorted_with(temp, uniform);
      std::vector<std::uint32_t> one_digit(n);  // bits 8-15 the same everywhere
      for (auto& key : one_digit)
        key = (static_cast<std::uint32_t>(random()) & 0xFFFF00FFu) | 0x5A00u;
      expect_pairs_sorted_with(temp, one_digit);
      const std::vector<std::uint32_t> all_equal(n, 0xDEADBEEFu);
      expect_pairs_sorted_with(temp, all_equal);
      expect_pairs_sorted_with(temp, uniform, {0, sortlab::kAllBits, true});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// The sort captured once in a CUDA graph and replayed on new keys: everything it needs zeroed
// (histograms, tile counters, status words) it zeroes itself inside the graph, it allocates
// nothing and never waits for the host, so every replay must be right on its own.
TEST(Stage08Graph, CapturedOnceReplayedOnNewKeys) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t n =
      sortlab::testing::capped({5 * stage08::tile_items_for(4) + 17, 1000}).front();
  SCOPED_TRACE(sortlab::testing::case_label(n, "graph", seed));
  const sortlab::CudaStream stream;
  sortlab::DeviceBuffer<std::uint32_t> keys_in(n, stream.get()), keys_out(n, stream.get());
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  sortlab::DeviceBuffer<std::uint32_t> values_in(values, stream.get()), values_out(n, stream.get());
  std::size_t temp_bytes = 0;
  stage08::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n);
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes, stream.get());
  temp.fill_bytes(sortlab::testing::kPoisonByte, stream.get());  // nothing zeroed by the caller
  stream.synchronize();

  cudaGraph_t graph = nullptr;
  SORTLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  stage08::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n, {}, {}, stream.get());
  SORTLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  SORTLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

  for (const auto distribution :
       {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
        sortlab::Distribution::kAllEqual}) {
    SCOPED_TRACE(sortlab::to_string(distribution));
    const auto keys = sortlab::generate_keys<std::uint32_t>(distribution, n, seed + n);
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(keys_in.data(), keys.data(), n * sizeof(std::uint32_t),
                                       cudaMemcpyHostToDevice, stream.get()));
    keys_out.fill_bytes(sortlab::testing::kPoisonByte, stream.get());
    values_out.fill_bytes(sortlab::testing::kPoisonByte, stream.get());
    SORTLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    stream.synchronize();
    std::vector<std::uint32_t> expected_keys, expected_values;
    sortlab::reference_sort_pairs(keys, values, expected_keys, expected_values);
    EXPECT_EQ(keys_out.download(), expected_keys);
    EXPECT_EQ(values_out.download(), expected_values) << "the sort must be stable";
  }
  SORTLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SORTLAB_CUDA_CHECK(cudaGraphDestroy(graph));
}

/// Sorts \p keys alone with \p keys_config and as pairs (values = input index) with
/// \p pairs_config, through a poisoned scratch into poisoned outputs, and checks both against the
/// stable reference.
template <typename Key, typename Value = std::uint32_t>
void expect_sorts_with_config(const std::vector<Key>& keys, const sortlab::SortOptions& options,
                              const stage08::Config& keys_config,
                              const stage08::Config& pairs_config) {
  const std::size_t n = keys.size();
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i);
  sortlab::DeviceBuffer<Key> keys_in(keys), keys_out(n);
  sortlab::DeviceBuffer<Value> values_in(values), values_out(n);
  std::size_t keys_bytes = 0, pairs_bytes = 0;
  stage08::sort_keys(nullptr, keys_bytes, keys_in.data(), keys_out.data(), n, options, keys_config);
  stage08::sort_pairs(nullptr, pairs_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n, options, pairs_config);
  sortlab::DeviceBuffer<unsigned char> temp(std::max(keys_bytes, pairs_bytes));
  temp.fill_bytes(sortlab::testing::kPoisonByte);
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  stage08::sort_keys(temp.data(), keys_bytes, keys_in.data(), keys_out.data(), n, options,
                     keys_config);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto keys_result = sortlab::verify_sorted_keys(keys, keys_out.download(), options);
  EXPECT_TRUE(keys_result.ok) << "keys only: " << keys_result.message;
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  values_out.fill_bytes(sortlab::testing::kPoisonByte);
  stage08::sort_pairs(temp.data(), pairs_bytes, keys_in.data(), keys_out.data(), values_in.data(),
                      values_out.data(), n, options, pairs_config);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto pairs_result = sortlab::verify_sorted_pairs(keys, values, keys_out.download(),
                                                         values_out.download(), options);
  EXPECT_TRUE(pairs_result.ok) << "pairs: " << pairs_result.message;
}

/// expect_sorts_with_config() with chunks of \p tiles tiles each: the keys-only sort's tiles for
/// it, the pair sort's for the pairs (a pair sort's tile may be larger: its values bypass the
/// registers).
template <typename Key, typename Value = std::uint32_t>
void expect_sorts_in_chunks_of(std::size_t tiles, const std::vector<Key>& keys,
                               const sortlab::SortOptions& options = {}) {
  expect_sorts_with_config<Key, Value>(
      keys, options, stage08::Config{8, tiles * stage08::tile_items_for(sizeof(Key))},
      stage08::Config{8, tiles * stage08::tile_items_for(sizeof(Key), sizeof(Value))});
}

// Past 2^30 keys each pass runs as several launches over chunks, with 64-bit digit starts per
// chunk. Chunks of one tile force that path on a few tiles: a last chunk of one key, chunks whose
// keys all share a digit (their histograms hold one count), every key equal (no pass runs: pass
// 0 copies, chunk by chunk), 8-byte keys with 8-byte values, and 4-byte keys with 8-byte values.
// A chunk holds one tile of the sort it is given to: the pair sorts' tiles are the larger.
TEST(Stage08Chunks, OneTileChunksSortLikeOneChunk) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  // Sizes past one, two and five tiles of the keys-only sort and of the pair sort (u32 values),
  // so that both run chunks of one tile with a last chunk of one key.
  const std::size_t tile = stage08::tile_items_for(4), pair_tile = stage08::tile_items_for(4, 4);
  std::mt19937_64 random(seed);
  for (std::size_t n : sortlab::testing::capped(
           {tile + 1, pair_tile + 1, 2 * tile + 5, 2 * pair_tile + 5, 5 * pair_tile + 17})) {
    SCOPED_TRACE(sortlab::testing::case_label(n, "chunks of one tile", seed));
    const auto uniform =
        sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, n, seed + n);
    expect_sorts_in_chunks_of(1, uniform);
    expect_sorts_in_chunks_of(1, uniform, {0, sortlab::kAllBits, true});
    expect_sorts_in_chunks_of(1, uniform, {4, 20, false});
    std::vector<std::uint32_t> one_digit(n);  // bits 8-15 the same everywhere
    for (auto& key : one_digit)
      key = (static_cast<std::uint32_t>(random()) & 0xFFFF00FFu) | 0x5A00u;
    expect_sorts_in_chunks_of(1, one_digit);
    expect_sorts_in_chunks_of(1, std::vector<std::uint32_t>(n, 0xDEADBEEFu));
    const auto wide =
        sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kFewDistinct, n, seed + n);
    expect_sorts_in_chunks_of<std::uint64_t, std::uint64_t>(1, wide);
    const auto floats =
        sortlab::generate_keys<float>(sortlab::Distribution::kFewDistinct, n, seed + n);
    expect_sorts_in_chunks_of<float, std::int64_t>(1, floats);
    if (::testing::Test::HasFailure()) return;
  }
  // 32-bit keys with 4-byte values take 9216-key tiles where their keys-only sort takes 7680: a
  // chunk of both (46080 keys: 5 pair tiles, 6 key tiles) runs the path for both at once.
  const std::size_t both = std::lcm(tile, pair_tile);
  ASSERT_NE(pair_tile, tile);
  for (std::size_t n : sortlab::testing::capped({both + 1, 3 * both + pair_tile + 5})) {
    SCOPED_TRACE(sortlab::testing::case_label(n, "chunks of 5 pair tiles", seed));
    const auto uniform =
        sortlab::generate_keys<float>(sortlab::Distribution::kFewDistinct, n, seed + n);
    expect_sorts_with_config(uniform, {}, stage08::Config{8, both}, stage08::Config{8, both});
    expect_sorts_with_config(uniform, {0, sortlab::kAllBits, true}, stage08::Config{8, both},
                             stage08::Config{8, both});
    if (::testing::Test::HasFailure()) return;
  }
}

/// Sorts \p keys alone and as pairs (values = input index) with the keys, their output and the
/// values \p offset elements into their allocations, and checks the results and that nothing
/// outside [offset, offset + n) of any output was written.
template <typename Key>
void expect_sorts_from_offset(const std::vector<Key>& keys, std::size_t offset) {
  const std::size_t n = keys.size(), room = n + offset + 1;
  const std::vector<std::uint32_t> values = sortlab::iota_values(n);
  sortlab::DeviceBuffer<Key> keys_in(room), keys_out(room);
  sortlab::DeviceBuffer<std::uint32_t> values_in(room), values_out(room);
  SORTLAB_CUDA_CHECK(
      cudaMemcpy(keys_in.data() + offset, keys.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
  SORTLAB_CUDA_CHECK(cudaMemcpy(values_in.data() + offset, values.data(), n * sizeof(std::uint32_t),
                                cudaMemcpyHostToDevice));
  std::size_t keys_bytes = 0, pairs_bytes = 0;
  stage08::sort_keys(nullptr, keys_bytes, keys_in.data() + offset, keys_out.data() + offset, n);
  stage08::sort_pairs(nullptr, pairs_bytes, keys_in.data() + offset, keys_out.data() + offset,
                      values_in.data() + offset, values_out.data() + offset, n);
  sortlab::DeviceBuffer<unsigned char> temp(std::max(keys_bytes, pairs_bytes));
  temp.fill_bytes(sortlab::testing::kPoisonByte);
  // Only [offset, offset + n) of an output may change.
  const auto inside = [&](const auto& whole) {
    using T = typename std::decay_t<decltype(whole)>::value_type;
    std::vector<T> middle(whole.begin() + offset, whole.begin() + offset + n);
    std::vector<unsigned char> outside;
    for (std::size_t i = 0; i < whole.size(); ++i)
      if (i < offset || i >= offset + n) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(&whole[i]);
        outside.insert(outside.end(), bytes, bytes + sizeof(T));
      }
    EXPECT_TRUE(std::all_of(outside.begin(), outside.end(), [](unsigned char b) {
      return b == sortlab::testing::kPoisonByte;
    })) << "the sort wrote outside its output range";
    return middle;
  };
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  stage08::sort_keys(temp.data(), keys_bytes, keys_in.data() + offset, keys_out.data() + offset, n);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto keys_result = sortlab::verify_sorted_keys(keys, inside(keys_out.download()));
  EXPECT_TRUE(keys_result.ok) << "keys only: " << keys_result.message;
  keys_out.fill_bytes(sortlab::testing::kPoisonByte);
  values_out.fill_bytes(sortlab::testing::kPoisonByte);
  stage08::sort_pairs(temp.data(), pairs_bytes, keys_in.data() + offset, keys_out.data() + offset,
                      values_in.data() + offset, values_out.data() + offset, n);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const auto pairs_result = sortlab::verify_sorted_pairs(keys, values, inside(keys_out.download()),
                                                         inside(values_out.download()));
  EXPECT_TRUE(pairs_result.ok) << "pairs: " << pairs_result.message;
}

// The histogram kernel reads 16-byte words when the keys start on a 16-byte boundary (and the
// keys after the last whole word one by one), and single keys otherwise. Keys that start at every
// offset from that boundary, with every remainder of keys after the last word, sort alike: u32
// (4 keys a word), u8 (16) and u64 (2).
TEST(Stage08Histogram, KeysAtEveryOffsetFromAWordBoundary) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = stage08::tile_items_for(4);
  for (std::size_t n :
       sortlab::testing::capped({1, 2, 3, 5, 17, tile + 3, 3 * tile + 2, 1000003})) {
    const auto at_offsets = [&](auto key_tag, const std::string& type,
                                std::initializer_list<std::size_t> offsets) {
      const auto keys =
          sortlab::generate_keys<decltype(key_tag)>(sortlab::Distribution::kUniform, n, seed + n);
      for (std::size_t offset : offsets) {
        SCOPED_TRACE(
            sortlab::testing::case_label(n, type + " at offset " + std::to_string(offset), seed));
        expect_sorts_from_offset(keys, offset);
      }
    };
    at_offsets(std::uint32_t{}, "u32", {0, 1, 2, 3});
    at_offsets(std::uint8_t{}, "u8", {0, 1, 7, 15});
    at_offsets(std::uint64_t{}, "u64", {0, 1});
    if (::testing::Test::HasFailure()) return;
  }
}

// Every running mask of four places: byte p of every key is random when bit p of the mask is set
// and one constant otherwise, so exactly the set passes run (pass_roles.hpp), in every parity of
// running passes; mask 0 (every key equal) makes pass 0 a copy. Keys alone, stable pairs, and
// descending.
TEST(Stage08SkippedPasses, EveryRunningMaskOfFourPlaces) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t n =
      sortlab::testing::capped({3 * stage08::tile_items_for(4) + 7, 1000}).front();
  std::mt19937_64 random(seed);
  for (std::uint32_t mask = 0; mask < 16; ++mask) {
    SCOPED_TRACE(sortlab::testing::case_label(n, "running mask " + std::to_string(mask), seed));
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) {
      const auto bits = static_cast<std::uint32_t>(random());
      key = 0;
      for (int place = 0; place < 4; ++place) {
        const std::uint32_t byte = (mask >> place) & 1u ? (bits >> (8 * place)) & 0xFFu : 0xA5u;
        key |= byte << (8 * place);
      }
    }
    expect_sorts_with_config(keys, {}, {}, {});
    expect_sorts_with_config(keys, {0, sortlab::kAllBits, true}, {}, {});
    if (::testing::Test::HasFailure()) return;
  }
}

// Repeated keys-only sorts through the same scratch give the same, right, answer every time.
TEST(Stage08Lookback, RepeatedRunsAreIdentical) {
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t n = std::min<std::size_t>(3'000'017, sortlab::testing::max_test_n());
  const auto keys = sortlab::generate_keys<float>(sortlab::Distribution::kFewDistinct, n, seed);
  sortlab::DeviceBuffer<float> keys_in(keys), keys_out(n);
  std::size_t temp_bytes = 0;
  stage08::sort_keys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), n);
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);
  const auto expected = sortlab::reference_sort_keys(keys);
  for (int run = 0; run < 20; ++run) {
    keys_out.fill_bytes(sortlab::testing::kPoisonByte);
    stage08::sort_keys(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), n);
    ASSERT_EQ(raw_bits(keys_out.download()), raw_bits(expected))
        << "run " << run << " seed=" << seed;
  }
}

/// Compares a per-(tile, digit) array of a GPU pass (entry b * num_digits + d) with the CPU
/// model's; a failure names the first differing tile and digit, both values (status words as
/// flag and count) and how many entries differ.
::testing::AssertionResult same_per_tile_digit(const std::string& what,
                                               const std::vector<std::uint32_t>& gpu,
                                               const std::vector<std::uint32_t>& model,
                                               int num_digits, bool status_words = false) {
  if (gpu.size() != model.size())
    return ::testing::AssertionFailure()
           << what << ": the GPU has " << gpu.size() << " entries, the model " << model.size();
  const auto text = [&](std::uint32_t value) {
    return status_words ? std::string(sortlab::to_string(sortlab::status_flag(value))) + " " +
                              std::to_string(sortlab::status_count(value))
                        : std::to_string(value);
  };
  std::size_t first = gpu.size(), differing = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != model[i]) {
      first = std::min(first, i);
      ++differing;
    }
  if (differing == 0) return ::testing::AssertionSuccess();
  const std::size_t digits = static_cast<std::size_t>(num_digits);
  return ::testing::AssertionFailure()
         << what << ": tile " << first / digits << ", digit " << first % digits
         << ": the model has " << text(model[first]) << ", the GPU " << text(gpu[first]) << " ("
         << differing << " of " << gpu.size() << " entries differ)";
}

template <typename Key>
class Stage08Trace : public ::testing::Test {};
using TraceKeys = ::testing::Types<std::uint32_t, float, std::uint64_t, std::uint8_t, __half>;
TYPED_TEST_SUITE(Stage08Trace, TraceKeys, sortlab::testing::KeyName);

// Every array of one GPU pass equals the CPU model's: digits, histogram, digit starts, each
// tile's counts (its aggregate), what each tile's look-back found, the status words it left,
// ranks, destinations, output.
TYPED_TEST(Stage08Trace, PassArraysMatchTheCpuModel) {
  using Key = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  const std::size_t tile = stage08::trace_tile_items_for(sizeof(Key));  // a traced pass's
  const int width = sortlab::KeyTraits<Key>::kNumBits;
  for (std::size_t n : sortlab::testing::capped({1, tile - 1, tile, tile + 1, 37 * tile + 3})) {
    for (int first_bit : {0, 7, width - 3}) {
      for (int num_bits : {8, 3}) {
        for (bool descending : {false, true}) {
          const auto distribution = (n + first_bit) % 2 ? sortlab::Distribution::kUniform
                                                        : sortlab::Distribution::kFewDistinct;
          SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                       " first_bit=" + std::to_string(first_bit) + " num_bits=" +
                       std::to_string(num_bits) + " descending=" + std::to_string(descending));
          const auto keys = sortlab::generate_keys<Key>(distribution, n, seed + n);
          const auto gpu = stage08::trace_pass(keys, first_bit, num_bits, descending);
          const auto cpu = stage08::model_pass(keys, first_bit, num_bits, descending).trace;
          ASSERT_EQ(gpu.num_tiles, cpu.num_tiles);
          ASSERT_EQ(gpu.num_digits, cpu.num_digits);
          ASSERT_EQ(gpu.tile_items, cpu.tile_items);
          using sortlab::testing::same_keys;
          using sortlab::testing::same_per_key;
          const int digits = cpu.num_digits;
          ASSERT_TRUE(same_per_key("digits", gpu.digits, cpu.digits, tile));
          ASSERT_TRUE(same_per_key("histogram", gpu.histogram, cpu.histogram, 0));
          ASSERT_TRUE(same_per_key("digit_starts", gpu.digit_starts, cpu.digit_starts, 0));
          ASSERT_TRUE(same_per_tile_digit("tile_counts", gpu.tile_counts, cpu.tile_counts, digits));
          ASSERT_TRUE(same_per_tile_digit("exclusive_prefixes", gpu.exclusive_prefixes,
                                          cpu.exclusive_prefixes, digits));
          // What each tile published, flags included.
          ASSERT_TRUE(same_per_tile_digit("final_status", gpu.final_status, cpu.final_status,
                                          digits, true));
          ASSERT_TRUE(same_per_key("ranks", gpu.ranks, cpu.ranks, tile, &cpu.digits));
          ASSERT_TRUE(
              same_per_key("destinations", gpu.destinations, cpu.destinations, tile, &cpu.digits));
          ASSERT_TRUE(same_keys("keys_out", gpu.keys_out, cpu.keys_out, 0));
        }
      }
    }
  }
}

// Tracing runs on a stream of its own: it must finish while the legacy default stream is held.
TEST(Stage08TraceStream, NeverWaitsOnTheLegacyStream) {
  sortlab::testing::expect_trace_never_waits_on_the_legacy_stream(
      [](const std::vector<std::uint32_t>& keys) { return stage08::trace_pass(keys, 3); });
}

// An empty input has a trace with no tiles.
TEST(Stage08TraceEmpty, EmptyInput) {
  const auto trace = stage08::trace_pass(std::vector<std::uint32_t>{}, 0);
  EXPECT_EQ(trace.num_tiles, 0);
  EXPECT_TRUE(trace.keys_out.empty());
}

// The usage example the Doxygen page of onesweep_sort.hpp shows.
TEST(Stage08Usage, SortsAHandfulOfPairs) {
  //! [stage08 usage]
  const std::vector<float> host_keys = {2.5f, -1.0f, 0.0f, 2.5f, -7.0f};
  const std::vector<std::uint32_t> host_indices = {0, 1, 2, 3, 4};
  sortlab::DeviceBuffer<float> keys_in(host_keys), keys_out(host_keys.size());
  sortlab::DeviceBuffer<std::uint32_t> indices_in(host_indices), indices_out(host_keys.size());
  std::size_t temp_bytes = 0;  // 1. ask how much scratch the sort needs
  sortlab::stage08::sort_pairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                               indices_in.data(), indices_out.data(), host_keys.size());
  sortlab::DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it (never clear it)
  sortlab::stage08::sort_pairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),  // 3.
                               indices_in.data(), indices_out.data(), host_keys.size());
  //! [stage08 usage]
  EXPECT_EQ(keys_out.download(), (std::vector<float>{-7.0f, -1.0f, 0.0f, 2.5f, 2.5f}));
  EXPECT_EQ(indices_out.download(), (std::vector<std::uint32_t>{4, 1, 2, 0, 3}));
}

}  // namespace

namespace sortlab::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Stage08, DeviceSortSuite, Stage08Cases);
}  // namespace sortlab::testing
