/// \file
/// \brief Stage 09's CPU model: sample sort across P virtual ranks gives the stable sort of the
/// input (keys and values, both directions, a bit range), and no rank receives more than the
/// splitter rule's bound, for uniform, all-equal, few-distinct and Zipf-skewed keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "chapters/09_sample_sort/sample_sort_model.hpp"
#include "common/distributions.hpp"
#include "common/key_traits.hpp"
#include "common/reference.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage09 = sortlab::stage09;

/// Keys whose frequencies follow Zipf's law (exponent 1.2 over 1000 values): a few keys hold
/// most of the input, the case that defeats splitters without a tie-break.
std::vector<std::uint32_t> zipf_keys(std::size_t n, std::uint64_t seed) {
  std::vector<double> weights(1000);
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 1.0 / std::pow(i + 1.0, 1.2);
  std::discrete_distribution<std::uint32_t> pick(weights.begin(), weights.end());
  std::mt19937_64 random(seed);
  std::vector<std::uint32_t> keys(n);
  for (auto& key : keys) key = pick(random) * 2654435761u;  // spread the ranks over the bits
  return keys;
}

/// Runs the model and checks the result against the stable reference, rank by rank, and every
/// rank's size against the bound.
template <typename Key>
void expect_sample_sort(const std::vector<Key>& keys, std::size_t ranks,
                        const sortlab::SortOptions& options = {}) {
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  const std::size_t samples = stage09::default_samples_per_rank(ranks);
  const auto run = stage09::model_sample_sort(keys, values, ranks, samples, options);
  std::vector<Key> expected_keys;
  std::vector<std::uint32_t> expected_values;
  sortlab::reference_sort_pairs(keys, values, expected_keys, expected_values, options);
  const std::size_t bound =
      stage09::bucket_bound(samples, ranks, stage09::shard_of(keys.size(), ranks, 0).second);
  std::size_t at = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    ASSERT_LE(run.keys[r].size(), bound) << "rank " << r << " received more than the bound";
    ASSERT_EQ(run.keys[r].size(), run.values[r].size());
    for (std::size_t i = 0; i < run.keys[r].size(); ++i, ++at) {
      ASSERT_LT(at, expected_keys.size()) << "more elements out than in";
      ASSERT_EQ(sortlab::KeyTraits<Key>::raw_bits(run.keys[r][i]),
                sortlab::KeyTraits<Key>::raw_bits(expected_keys[at]))
          << "rank " << r << " position " << i;
      ASSERT_EQ(run.values[r][i], expected_values[at])
          << "rank " << r << " position " << i << ": not the stable order";
    }
  }
  ASSERT_EQ(at, expected_keys.size()) << "elements lost";
  // What every rank sent adds up to what it held.
  for (std::size_t r = 0; r < ranks; ++r) {
    std::size_t sent = 0;
    for (std::size_t count : run.sent[r]) sent += count;
    EXPECT_EQ(sent, stage09::shard_of(keys.size(), ranks, r).second);
  }
}

class Stage09Model : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Stage09Model, UniformFewDistinctAllEqualAndZipfKeys) {
  const std::size_t ranks = GetParam();
  const std::uint64_t seed = sortlab::testing::test_seed();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, ranks - 1, ranks + 1, std::size_t{97},
                        std::size_t{5000}, std::size_t{40001}}) {
    for (auto distribution : {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
                              sortlab::Distribution::kAllEqual}) {
      SCOPED_TRACE(sortlab::testing::case_label(n, sortlab::to_string(distribution), seed) +
                   " ranks=" + std::to_string(ranks));
      expect_sample_sort(sortlab::generate_keys<std::uint32_t>(distribution, n, seed + n), ranks);
      if (::testing::Test::HasFailure()) return;
    }
    SCOPED_TRACE("zipf n=" + std::to_string(n) + " ranks=" + std::to_string(ranks));
    expect_sample_sort(zipf_keys(n, seed + n), ranks);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_P(Stage09Model, DescendingFloatsAndABitRange) {
  const std::size_t ranks = GetParam();
  const std::uint64_t seed = sortlab::testing::test_seed();
  const auto floats =
      sortlab::generate_keys<float>(sortlab::Distribution::kFloatSpecials, 6000, seed);
  expect_sample_sort(floats, ranks, {0, sortlab::kAllBits, true});
  const auto wide =
      sortlab::generate_keys<std::uint64_t>(sortlab::Distribution::kUniform, 6000, seed + 1);
  expect_sample_sort(wide, ranks, {8, 20, false});  // only 12 bits decide: long runs of ties
}

INSTANTIATE_TEST_SUITE_P(Ranks, Stage09Model, ::testing::Values(1, 2, 3, 8));

// All keys equal: the tie-break by (rank, index) still splits evenly. With 4 ranks of 250 and 16
// samples each, rank r's last sample is its element 235 (the end of piece 15 of 17), so splitter
// r is (7, r, 235): rank r keeps 0..235 and sends 236..249 to rank r + 1; the last rank keeps all.
TEST(Stage09Splitters, AllEqualKeysSplitByRankAndIndex) {
  const std::vector<std::uint32_t> keys(1000, 7u);
  const std::vector<std::uint32_t> values(1000, 0u);
  const auto run = stage09::model_sample_sort(keys, values, 4, 16);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(run.sent[r][r], 236u) << "rank " << r;
    EXPECT_EQ(run.sent[r][r + 1], 14u) << "rank " << r;
  }
  EXPECT_EQ(run.sent[3][3], 250u);
  EXPECT_EQ(run.keys[0].size(), 236u);
  EXPECT_EQ(run.keys[3].size(), 264u);
  EXPECT_LE(run.keys[3].size(), stage09::bucket_bound(16, 4, 250));
  EXPECT_EQ(stage09::sample_positions(10, 4), (std::vector<std::int64_t>{1, 3, 5, 7}));
  EXPECT_EQ(stage09::sample_positions(0, 2), (std::vector<std::int64_t>{-1, -1}));
  EXPECT_EQ(stage09::bucket_bound(4, 2, 10), 6u * 2u);
  EXPECT_THROW(stage09::model_sample_sort(keys, values, 0, 4), sortlab::Error);
}

// Phase 7's pairwise merges (merge_rounds()) run on the host with std::merge: for P = 1 to 9
// runs of random lengths (empty runs among them), the rounds' steps cover every key once per
// round, each round reads what the one before wrote, and the last buffer holds the whole
// input in order; ceil(log2 P) rounds.
TEST(Stage09Merge, PairwiseRoundsPutTheRunsInOrder) {
  std::mt19937_64 random(20261128);
  for (std::size_t runs = 1; runs <= 9; ++runs) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::size_t> bounds{0};
      std::vector<std::uint32_t> keys;
      for (std::size_t r = 0; r < runs; ++r) {
        const std::size_t length = random() % 4 == 0 ? 0 : random() % 50;
        std::vector<std::uint32_t> run(length);
        for (auto& key : run) key = static_cast<std::uint32_t>(random() % 100);
        std::sort(run.begin(), run.end());
        keys.insert(keys.end(), run.begin(), run.end());
        bounds.push_back(keys.size());
      }
      std::vector<std::uint32_t> buffers[2] = {keys, std::vector<std::uint32_t>(keys.size(), ~0u)};
      const auto rounds = stage09::merge_rounds(bounds);
      std::size_t expected_rounds = 0;
      while ((std::size_t{1} << expected_rounds) < runs) ++expected_rounds;
      ASSERT_EQ(rounds.size(), expected_rounds) << runs << " runs";
      int from = 0;
      for (const auto& round : rounds) {
        std::size_t covered = 0;
        for (const stage09::MergeStep& step : round) {
          ASSERT_EQ(step.first, covered);
          ASSERT_LE(step.first, step.middle);
          ASSERT_LE(step.middle, step.last);
          const auto& in = buffers[from];
          auto& out = buffers[1 - from];
          std::merge(in.begin() + static_cast<std::ptrdiff_t>(step.first),
                     in.begin() + static_cast<std::ptrdiff_t>(step.middle),
                     in.begin() + static_cast<std::ptrdiff_t>(step.middle),
                     in.begin() + static_cast<std::ptrdiff_t>(step.last),
                     out.begin() + static_cast<std::ptrdiff_t>(step.first));
          covered = step.last;
        }
        ASSERT_EQ(covered, keys.size());
        from = 1 - from;
      }
      std::vector<std::uint32_t> want = keys;
      std::sort(want.begin(), want.end());
      EXPECT_EQ(buffers[from], want) << runs << " runs, trial " << trial;
    }
  }
}

}  // namespace
