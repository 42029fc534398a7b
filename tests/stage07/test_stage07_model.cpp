/// \file
/// \brief Stage 07 CPU tests (no GPU needed): the select-bits transform (NaN largest, -0.0 equal
/// to +0.0, the smallest direction), radix select pass by pass on a worked example and its
/// invariants on random rows, the model's top-k against the partial-sort reference for every
/// value type and harness distribution (ties, NaN and infinities, k = 1, k = row length, rows
/// of length 1, largest and smallest, sorted and unsorted), and topk()'s size query and
/// host-side argument checks. (The GPU suite, test_stage07_gpu.cpp, passed on an H100 on
/// 2026-11-23 for the single-block schedule.)
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "chapters/07_topk/select_digits.hpp"
#include "chapters/07_topk/select_key.hpp"
#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_model.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "tests/support/key_types.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage07 = sortlab::stage07;
using stage07::SelectKey;
using stage07::TopkOptions;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Runs \p call and expects a sortlab::Error whose message contains \p part. A CudaError (also a
/// sortlab::Error) would mean the call got past its checks to a CUDA call, so it fails the test.
void expect_error(const std::function<void()>& call, const std::string& part) {
  try {
    call();
    ADD_FAILURE() << "no sortlab::Error (expected one mentioning \"" << part << "\")";
  } catch (const sortlab::CudaError& error) {
    ADD_FAILURE() << "the call reached CUDA instead of being rejected: " << error.what();
  } catch (const sortlab::Error& error) {
    EXPECT_TRUE(contains(error.what(), part)) << error.what();
  }
}

// ---- The select-bits transform ------------------------------------------------------------------

TEST(Stage07SelectKey, EveryNanIsTheLargestAndEqualToEveryOtherNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float negative_nan = -nan;
  const float payload_nan = sortlab::bit_cast<float>(0x7f800001u);  // a signalling pattern
  const float inf = std::numeric_limits<float>::infinity();
  for (float value : {nan, negative_nan, payload_nan}) {
    EXPECT_TRUE(SelectKey<float>::is_nan(value));
    EXPECT_EQ(SelectKey<float>::bits(value, true), 0xffffffffu);
    EXPECT_GT(SelectKey<float>::bits(value, true), SelectKey<float>::bits(inf, true));
    // Smallest: NaN is the worst, below +inf's complement and everything else.
    EXPECT_EQ(SelectKey<float>::bits(value, false), 0u);
  }
  EXPECT_FALSE(SelectKey<float>::is_nan(inf));
  EXPECT_FALSE(SelectKey<float>::is_nan(-inf));
  EXPECT_TRUE(SelectKey<double>::is_nan(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(SelectKey<double>::is_nan(std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(SelectKey<__half>::is_nan(sortlab::bit_cast<__half>(std::uint16_t{0xfe00})));
  EXPECT_FALSE(SelectKey<__half>::is_nan(sortlab::bit_cast<__half>(std::uint16_t{0x7c00})));
  EXPECT_TRUE(
      SelectKey<__nv_bfloat16>::is_nan(sortlab::bit_cast<__nv_bfloat16>(std::uint16_t{0xffc1})));
  EXPECT_FALSE(
      SelectKey<__nv_bfloat16>::is_nan(sortlab::bit_cast<__nv_bfloat16>(std::uint16_t{0xff80})));
  EXPECT_FALSE(SelectKey<std::int32_t>::is_nan(-1));
}

// The same rules for the other floating types, checked by hand (the GPU reference uses
// SelectKey too, so only these checks catch a wrong transform for them).
TEST(Stage07SelectKey, WideAndHalfFloatsFollowTheSameRules) {
  const double dnan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(SelectKey<double>::bits(dnan, true), ~std::uint64_t{0});
  EXPECT_EQ(SelectKey<double>::bits(-dnan, true), ~std::uint64_t{0});
  EXPECT_EQ(SelectKey<double>::bits(dnan, false), 0u);
  EXPECT_LT(SelectKey<double>::bits(-1.5, true), SelectKey<double>::bits(-0.0, true));
  EXPECT_EQ(SelectKey<double>::bits(-0.0, true), SelectKey<double>::bits(0.0, true));
  EXPECT_LT(SelectKey<double>::bits(0.0, true), SelectKey<double>::bits(2.0, true));
  EXPECT_LT(SelectKey<double>::bits(2.0, true),
            SelectKey<double>::bits(std::numeric_limits<double>::infinity(), true));
  const auto half = [](float value) { return __float2half(value); };
  EXPECT_EQ(SelectKey<__half>::bits(half(std::numeric_limits<float>::quiet_NaN()), true),
            std::uint16_t{0xffff});
  EXPECT_LT(SelectKey<__half>::bits(half(-3.0f), true), SelectKey<__half>::bits(half(1.0f), true));
  EXPECT_EQ(SelectKey<__half>::bits(half(-0.0f), true), SelectKey<__half>::bits(half(0.0f), true));
  const auto bf16 = [](float value) { return __float2bfloat16(value); };
  EXPECT_EQ(SelectKey<__nv_bfloat16>::bits(bf16(std::numeric_limits<float>::quiet_NaN()), true),
            std::uint16_t{0xffff});
  EXPECT_LT(SelectKey<__nv_bfloat16>::bits(bf16(-3.0f), true),
            SelectKey<__nv_bfloat16>::bits(bf16(1.0f), true));
  EXPECT_GT(SelectKey<__nv_bfloat16>::bits(bf16(-3.0f), false),
            SelectKey<__nv_bfloat16>::bits(bf16(1.0f), false));
}

TEST(Stage07SelectKey, OrderIsTheSortOrderWithZerosEqual) {
  const std::vector<float> ascending = {
      -std::numeric_limits<float>::infinity(), -1e30f, -1.0f, -1e-45f, 0.0f, 1e-45f, 1.0f, 1e30f,
      std::numeric_limits<float>::infinity()};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(SelectKey<float>::bits(ascending[i], true),
              SelectKey<float>::bits(ascending[i + 1], true));
    EXPECT_GT(SelectKey<float>::bits(ascending[i], false),
              SelectKey<float>::bits(ascending[i + 1], false));
  }
  EXPECT_EQ(SelectKey<float>::bits(-0.0f, true), SelectKey<float>::bits(0.0f, true));
  EXPECT_LT(SelectKey<std::int32_t>::bits(-5, true), SelectKey<std::int32_t>::bits(3, true));
  EXPECT_EQ(SelectKey<std::uint32_t>::bits(7u, false), ~7u);
}

TEST(Stage07SelectDigits, PassesWalkTheDigitsFromTheTop) {
  EXPECT_EQ(stage07::num_passes<float>(), 4);
  EXPECT_EQ(stage07::num_passes<double>(), 8);
  EXPECT_EQ(stage07::num_passes<__half>(), 2);
  EXPECT_EQ(stage07::digit_shift<float>(0), 24);
  EXPECT_EQ(stage07::digit_shift<float>(3), 0);
  EXPECT_EQ(stage07::digit_at(0x12345678u, 24), 0x12u);
  EXPECT_EQ(stage07::digit_at(0x12345678u, 0), 0x78u);
  stage07::SelectPrefix<std::uint32_t> prefix;
  EXPECT_TRUE(prefix.matches(0xdeadbeefu));
  prefix.fix(0x12, 24);
  EXPECT_TRUE(prefix.matches(0x12ffffffu));
  EXPECT_FALSE(prefix.matches(0x13000000u));
}

// ---- Radix select pass by pass ----------------------------------------------------------------

// u32 values, the 3rd largest. The top digits: 0x01 (once), 0x02 (three times: the k-th is
// among them), 0x03 (once). Pass 0 fixes 0x02 and narrows k from 3 to 2 (one value above);
// pass 1 sees only the three 0x02.. values.
TEST(Stage07RadixSelect, WorkedExample) {
  const std::vector<std::uint32_t> row = {0x02000005u, 0x01ffffffu, 0x03000000u, 0x02000007u,
                                          0x02000005u};
  const auto trace = stage07::model_radix_select(row, 3, true);
  ASSERT_EQ(trace.passes.size(), 4u);
  const auto& first = trace.passes[0];
  EXPECT_EQ(first.shift, 24);
  EXPECT_EQ(first.candidates, 5u);
  EXPECT_EQ(first.histogram[0x01], 1u);
  EXPECT_EQ(first.histogram[0x02], 3u);
  EXPECT_EQ(first.histogram[0x03], 1u);
  EXPECT_EQ(first.digit, 0x02u);
  EXPECT_EQ(first.above, 1u);
  EXPECT_EQ(first.k_before, 3u);
  EXPECT_EQ(first.k_after, 2u);
  EXPECT_EQ(trace.passes[1].candidates, 3u);
  EXPECT_EQ(trace.passes[1].digit, 0x00u);
  const auto& last = trace.passes[3];
  EXPECT_EQ(last.histogram[0x07], 1u);
  EXPECT_EQ(last.histogram[0x05], 2u);
  EXPECT_EQ(last.digit, 0x05u);  // 0x03000000 and 0x02000007 are above: the 3rd is 0x02000005
  EXPECT_EQ(last.k_after, 1u);
  EXPECT_EQ(trace.kth_bits, 0x02000005u);
  EXPECT_EQ(trace.beyond, 2u);
  EXPECT_EQ(trace.equal_taken, 1u);  // of the two equal values, only column 0 is taken

  std::vector<std::uint32_t> values;
  std::vector<std::int64_t> indices;
  stage07::model_topk_row(row, 3, TopkOptions{true, true}, values, indices);
  EXPECT_EQ(values, (std::vector<std::uint32_t>{0x03000000u, 0x02000007u, 0x02000005u}));
  EXPECT_EQ(indices, (std::vector<std::int64_t>{2, 3, 0}));
  stage07::model_topk_row(row, 3, TopkOptions{true, false}, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{2, 3, 0}));  // beyond in column order, then equal
}

/// The invariants of every pass on random rows: the histogram holds exactly the candidates, the
/// chosen bucket's values are the next pass's candidates, k stays inside the chosen bucket, and
/// the last prefix is the reference's k-th value.
template <typename T>
void check_select_invariants(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (sortlab::Distribution distribution : sortlab::all_distributions()) {
    for (std::size_t length : {1u, 2u, 33u, 700u}) {
      const auto row = sortlab::generate_keys<T>(distribution, length, seed + length);
      for (bool largest : {true, false}) {
        const std::size_t k = 1 + random() % length;
        SCOPED_TRACE(sortlab::testing::case_label(length, sortlab::to_string(distribution), seed) +
                     " k=" + std::to_string(k) + (largest ? " largest" : " smallest"));
        const auto trace = stage07::model_radix_select(row, k, largest);
        std::uint64_t candidates = length;
        for (const auto& pass : trace.passes) {
          std::uint64_t sum = 0;
          for (std::uint64_t count : pass.histogram) sum += count;
          ASSERT_EQ(sum, candidates);
          ASSERT_EQ(pass.candidates, candidates);
          ASSERT_GE(pass.k_after, 1u);
          ASSERT_LE(pass.k_after, pass.histogram[pass.digit]);
          ASSERT_EQ(pass.k_before - pass.above, pass.k_after);
          candidates = pass.histogram[pass.digit];
        }
        std::vector<T> values;
        std::vector<std::int64_t> indices;
        stage07::reference_topk(row, 1, length, k, largest, values, indices);
        ASSERT_EQ(trace.kth_bits, SelectKey<T>::bits(values[k - 1], largest));
        ASSERT_EQ(trace.beyond + trace.equal_taken, k);
        ASSERT_LE(trace.equal_taken, candidates);  // the last bucket holds every equal value
      }
    }
  }
}

template <typename T>
class Stage07Typed : public ::testing::Test {};
using TopkTypes = ::testing::Types<float, std::uint32_t, std::int32_t, double, std::int64_t, __half,
                                   __nv_bfloat16>;
TYPED_TEST_SUITE(Stage07Typed, TopkTypes, sortlab::testing::KeyName);

TYPED_TEST(Stage07Typed, RadixSelectInvariants) {
  check_select_invariants<TypeParam>(sortlab::testing::test_seed());
}

// The model (radix select, then the gather, then the stable sort) against the partial sort, on
// every distribution, for k = 1, 2, half, length - 1 and length, several rows at once.
TYPED_TEST(Stage07Typed, ModelEqualsTheReference) {
  using T = TypeParam;
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (sortlab::Distribution distribution : sortlab::all_distributions()) {
    for (std::size_t length : {1u, 2u, 7u, 256u, 257u, 1500u}) {
      const std::size_t rows = 3;
      const auto input = sortlab::generate_keys<T>(distribution, rows * length, seed ^ length);
      std::vector<std::size_t> ks = {1, 2, length / 2, length - 1, length};
      for (std::size_t k : ks) {
        if (k == 0 || k > length) continue;
        for (bool largest : {true, false}) {
          std::vector<T> want_values, got_values;
          std::vector<std::int64_t> want_indices, got_indices;
          stage07::reference_topk(input, rows, length, k, largest, want_values, want_indices);
          for (bool sorted : {true, false}) {
            SCOPED_TRACE(
                sortlab::testing::case_label(length, sortlab::to_string(distribution), seed) +
                " k=" + std::to_string(k) + (largest ? " largest" : " smallest") +
                (sorted ? " sorted" : " unsorted"));
            stage07::model_topk(input, rows, length, k, TopkOptions{largest, sorted}, got_values,
                                got_indices);
            const std::string difference = stage07::compare_topk(
                want_values, want_indices, got_values, got_indices, rows, k, sorted);
            ASSERT_TRUE(difference.empty()) << difference;
          }
        }
      }
    }
  }
}

// ---- Ties, NaN and infinities by hand ---------------------------------------------------------

TEST(Stage07Model, TiesAtTheKthValueTakeTheLowestColumns) {
  // Eleven 5s: two better values (9, 7) leave room for three 5s, the ones at columns 1, 2, 4.
  const std::vector<std::int32_t> row = {1, 5, 5, 9, 5, 5, 5, 7, 5, 5, 5, 5, 5, 5};
  std::vector<std::int32_t> values;
  std::vector<std::int64_t> indices;
  stage07::model_topk_row(row, 5, TopkOptions{true, true}, values, indices);
  EXPECT_EQ(values, (std::vector<std::int32_t>{9, 7, 5, 5, 5}));
  EXPECT_EQ(indices, (std::vector<std::int64_t>{3, 7, 1, 2, 4}));
  std::vector<std::int32_t> want_values;
  std::vector<std::int64_t> want_indices;
  stage07::reference_topk(row, 1, row.size(), 5, true, want_values, want_indices);
  EXPECT_EQ(want_indices, indices);
  // All equal: the first k columns, in order.
  stage07::model_topk_row(std::vector<std::int32_t>(100, 4), 10, TopkOptions{false, false}, values,
                          indices);
  for (std::size_t j = 0; j < 10; ++j) EXPECT_EQ(indices[j], static_cast<std::int64_t>(j));
}

TEST(Stage07Model, NanIsLargestInfinitiesAndSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> row = {1.0f, nan, -inf, inf, -nan, 0.0f, -0.0f};
  std::vector<float> values;
  std::vector<std::int64_t> indices;
  stage07::model_topk_row(row, 3, TopkOptions{true, true}, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{1, 4, 3}));  // both NaNs (by column), then +inf
  EXPECT_TRUE(std::isnan(values[0]) && !std::signbit(values[0]));
  EXPECT_TRUE(std::isnan(values[1]) && std::signbit(values[1]));  // the input's bits come out
  stage07::model_topk_row(row, 3, TopkOptions{false, true}, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{2, 5, 6}));  // -inf, then +0.0 and -0.0 by column
  EXPECT_TRUE(std::signbit(values[2]));
  stage07::model_topk_row(row, 7, TopkOptions{false, true}, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{2, 5, 6, 0, 3, 1, 4}));  // NaNs last
}

TEST(Stage07Model, EmptyResultsAndShapeErrors) {
  std::vector<float> values = {1.0f};
  std::vector<std::int64_t> indices = {1};
  stage07::model_topk(std::vector<float>(12), 3, 4, 0, TopkOptions{}, values, indices);
  EXPECT_TRUE(values.empty() && indices.empty());
  stage07::model_topk(std::vector<float>{}, 0, 4, 2, TopkOptions{}, values, indices);
  EXPECT_TRUE(values.empty() && indices.empty());
  expect_error(
      [] {
        std::vector<float> v;
        std::vector<std::int64_t> i;
        stage07::model_topk(std::vector<float>(12), 3, 4, 5, TopkOptions{}, v, i);
      },
      "larger than row_length");
  expect_error([] { stage07::model_radix_select(std::vector<float>(3), 0, true); }, "1 <= k");
}

// ---- The public API's host side: size query and argument checks ------------------------------

TEST(Stage07Arguments, SizeQueryNeedsNoPointersAndAtLeastOneByte) {
  for (std::size_t rows : {0u, 1u, 1000u})
    for (std::size_t k : {0u, 1u, 64u}) {
      std::size_t bytes = 0;
      stage07::topk<float>(nullptr, bytes, nullptr, rows, 4096, k, nullptr, nullptr);
      // This schedule keeps everything on chip: the scratch is the one byte that makes the
      // second call's pointer non-null, so that it runs instead of asking again.
      EXPECT_EQ(bytes, 1u);
    }
}

// Each limit alone allows 2^31 - 1, but not both at once: the byte sizes of the arrays would
// wrap. The call is refused with a message, even as a size query.
TEST(Stage07Arguments, RowsTimesLengthIsBounded) {
  std::size_t bytes = 0;
  try {
    stage07::topk<float>(nullptr, bytes, nullptr, stage07::kMaxRows, stage07::kMaxRowLength, 1,
                         nullptr, nullptr);
    ADD_FAILURE() << "a 2^62-value input was accepted";
  } catch (const sortlab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("more than 2^40 values"), std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(stage07::topk<float>(nullptr, bytes, nullptr, std::size_t{1} << 20,
                                       std::size_t{1} << 20, 1, nullptr, nullptr));
}

TEST(Stage07Arguments, EmptyResultsNeedNoCudaCall) {
  std::size_t bytes = 1;
  unsigned char scratch[1] = {};
  // k = 0 and zero rows return before any check of the pointers and before any CUDA call.
  EXPECT_NO_THROW(stage07::topk<float>(scratch, bytes, nullptr, 5, 10, 0, nullptr, nullptr));
  EXPECT_NO_THROW(stage07::topk<std::int32_t>(scratch, bytes, nullptr, 0, 10, 3, nullptr, nullptr));
}

TEST(Stage07Arguments, RejectedBeforeAnyCudaCall) {
  // Host arrays stand in for device ones: every call below must throw before touching them.
  static float input[64];
  static float output[64];
  static std::int64_t indices[64];
  static unsigned char scratch[16];
  std::size_t bytes = sizeof(scratch);
  const TopkOptions unsorted{true, false};
  expect_error([&] { stage07::topk<float>(nullptr, bytes, nullptr, 1, 4, 5, nullptr, nullptr); },
               "larger than row_length");
  expect_error([&] { stage07::topk<float>(nullptr, bytes, nullptr, 1, 0, 1, nullptr, nullptr); },
               "larger than row_length");
  expect_error(
      [&] {
        stage07::topk<float>(nullptr, bytes, nullptr, 1, std::size_t{1} << 31, 1, nullptr, nullptr);
      },
      "row_length");
  expect_error(
      [&] {
        stage07::topk<float>(nullptr, bytes, nullptr, std::size_t{1} << 31, 4, 1, nullptr, nullptr);
      },
      "num_rows");
  expect_error(
      [&] {
        stage07::topk<float>(nullptr, bytes, nullptr, 1, 5000, stage07::kMaxSortedK + 1, nullptr,
                             nullptr);
      },
      "sorted output supports k <=");
  std::size_t query = 0;  // unsorted output has no such limit
  EXPECT_NO_THROW(stage07::topk<float>(nullptr, query, nullptr, 1, 5000, stage07::kMaxSortedK + 1,
                                       nullptr, nullptr, unsorted));
  expect_error([&] { stage07::topk<float>(scratch, bytes, nullptr, 2, 32, 4, output, indices); },
               "must not be null");
  expect_error([&] { stage07::topk<float>(scratch, bytes, input, 2, 32, 4, output, nullptr); },
               "must not be null");
  std::size_t too_few = 0;
  expect_error([&] { stage07::topk<float>(scratch, too_few, input, 2, 32, 4, output, indices); },
               "temp_storage_bytes");
  expect_error([&] { stage07::topk<float>(scratch, bytes, input, 2, 32, 4, input, indices); },
               "values_out");
  expect_error(
      [&] {
        stage07::topk<float>(scratch, bytes, input, 2, 32, 4, output,
                             reinterpret_cast<std::int64_t*>(output + 4));
      },
      "overlaps");
  expect_error(
      [&] {
        stage07::topk<float>(reinterpret_cast<unsigned char*>(indices), bytes, input, 2, 32, 4,
                             output, indices);
      },
      "temp_storage");
}

}  // namespace
