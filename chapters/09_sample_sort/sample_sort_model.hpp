/// \file
/// \brief Stage 09's CPU model: sample sort across P ranks (one per GPU), the whole algorithm on
/// the host, phase by phase, so the splitter rule, the partition and the merge order can be
/// tested without any GPU (and are what the GPU version must reproduce).
///
/// The phases, for P ranks holding consecutive shards of the input:
///  1. local sort: every rank sorts its shard (stably);
///  2. samples: every rank picks s samples of its sorted shard, the last element of each of s + 1
///     nearly equal pieces, as tuples (key, rank, index in the sorted shard);
///  3. all-gather: every rank sees all P * s samples and sorts them by (key, rank, index);
///  4. splitters: sample number (i + 1) * s - 1 of that order, for i = 0 .. P - 2;
///  5. partition: rank r cuts its sorted shard at each splitter (a binary search per splitter);
///  6. exchange: piece b of rank r goes to rank b;
///  7. merge: rank b merges the P runs it received in source-rank order.
///
/// Because (key, rank, index) is a total order in which no two elements tie, a bucket holds exactly
/// s samples whatever the keys are: all-equal keys split as evenly as distinct ones. A bucket
/// touches at most c_r + 1 pieces of rank r when c_r of r's samples fall in it, and the c_r sum to
/// s, so no rank receives more than (s + P) * ceil(m / (s + 1)) elements, m the largest shard
/// (bucket_bound()). And since a shard is a consecutive slice of the input, the order (key, rank,
/// index) is the order (key, input position): the result is the stable sort.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

/// Stage 09: sample sort across GPUs.
namespace sortlab::stage09 {

/// A sample or a splitter: a key's ordered bits for the direction of the sort (descending keys
/// complemented, so one ascending comparison serves both), the rank it came from and its index in
/// that rank's sorted shard. No two elements of a sort have the same tuple.
struct SampleTuple {
  std::uint64_t ordered_key;  ///< KeyTraits::to_ordered(key, descending), widened
  std::uint32_t rank;         ///< the rank that holds the element
  std::uint64_t index;        ///< its position in that rank's sorted shard
  /// Lexicographic (key, rank, index).
  friend bool operator<(const SampleTuple& a, const SampleTuple& b) {
    return std::tie(a.ordered_key, a.rank, a.index) < std::tie(b.ordered_key, b.rank, b.index);
  }
};

/// The most elements any rank receives with \p samples_per_rank samples per rank, \p ranks ranks
/// and a largest shard of \p largest_shard elements: (s + P) * ceil(m / (s + 1)).
/// \param samples_per_rank s
/// \param ranks P
/// \param largest_shard m
inline std::size_t bucket_bound(std::size_t samples_per_rank, std::size_t ranks,
                                std::size_t largest_shard) {
  return (samples_per_rank + ranks) * ((largest_shard + samples_per_rank) / (samples_per_rank + 1));
}

/// Samples per rank by default: 16P, so that a bucket holds at most about (1 + 1/16) n / P
/// elements, but no more than 1024 samples in all (the GPU ranks them in one block).
/// \param ranks P
inline std::size_t default_samples_per_rank(std::size_t ranks) {
  return std::max<std::size_t>(1, std::min<std::size_t>(16 * ranks, 1024 / ranks));
}

/// The shard of rank \p rank of \p ranks when \p n elements are split as evenly as possible: its
/// first element and its size (the first n % P ranks get one more).
/// \param n total elements
/// \param ranks P
/// \param rank r
inline std::pair<std::size_t, std::size_t> shard_of(std::size_t n, std::size_t ranks,
                                                    std::size_t rank) {
  const std::size_t base = n / ranks, extra = n % ranks;
  const std::size_t first = rank * base + std::min(rank, extra);
  return {first, base + (rank < extra ? 1 : 0)};
}

/// Where the s samples of a sorted shard of \p shard_size elements sit: the last element of each of
/// the first s of s + 1 pieces, piece j ending at ceil((j + 1) m / (s + 1)) - 1. A piece may be
/// empty when m < s + 1; its sample is then the element before it (or, for an empty shard, none:
/// index -1, a tuple smaller than every element of the rank).
/// \param shard_size m
/// \param samples_per_rank s
inline std::vector<std::int64_t> sample_positions(std::size_t shard_size,
                                                  std::size_t samples_per_rank) {
  std::vector<std::int64_t> positions(samples_per_rank);
  for (std::size_t j = 0; j < samples_per_rank; ++j)
    positions[j] = static_cast<std::int64_t>(((j + 1) * shard_size + samples_per_rank) /
                                             (samples_per_rank + 1)) -
                   1;
  return positions;
}

/// Everything the model records about one sort, phase by phase (for the tests and a future
/// `sortlab trace --stage 9`).
template <typename Key, typename Value>
struct SampleSortRun {
  std::vector<SampleTuple> samples;            ///< all P * s samples, sorted (phase 3)
  std::vector<SampleTuple> splitters;          ///< the P - 1 splitters (phase 4)
  std::vector<std::vector<std::size_t>> cuts;  ///< per rank: P + 1 cut points of its shard
  std::vector<std::vector<std::size_t>> sent;  ///< per rank: elements sent to each rank
  std::vector<std::vector<Key>> keys;          ///< per rank: its part of the result
  std::vector<std::vector<Value>> values;      ///< per rank: the values alongside
};

/// Runs the whole algorithm on the host for \p ranks virtual ranks.
/// \param keys the input (rank r holds shard_of(n, P, r))
/// \param values one value per key (travel with their keys; empty for keys only)
/// \param ranks P, at least 1
/// \param samples_per_rank s, at least 1
/// \param options direction and bit range (only the bits in range decide the order)
template <typename Key, typename Value>
SampleSortRun<Key, Value> model_sample_sort(const std::vector<Key>& keys,
                                            const std::vector<Value>& values, std::size_t ranks,
                                            std::size_t samples_per_rank,
                                            const SortOptions& options = {}) {
  require(ranks >= 1, "sample sort: at least one rank");
  require(samples_per_rank >= 1, "sample sort: at least one sample per rank");
  require(values.empty() || values.size() == keys.size(), "sample sort: one value per key");
  const SortOptions resolved = resolve<Key>(options);
  const int width = resolved.end_bit - resolved.begin_bit;
  const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  const auto ordered = [&](Key key) {
    return (static_cast<std::uint64_t>(KeyTraits<Key>::to_ordered(key, resolved.descending)) >>
            resolved.begin_bit) &
           mask;
  };
  const bool with_values = !values.empty();
  const std::size_t n = keys.size();
  SampleSortRun<Key, Value> run;

  // 1. Local sort of every shard (stable); keep each element's input position.
  std::vector<std::vector<std::size_t>> sorted(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto [first, size] = shard_of(n, ranks, r);
    sorted[r].resize(size);
    for (std::size_t i = 0; i < size; ++i) sorted[r][i] = first + i;
    std::stable_sort(sorted[r].begin(), sorted[r].end(), [&](std::size_t a, std::size_t b) {
      return ordered(keys[a]) < ordered(keys[b]);
    });
  }
  // An empty shard still gives s samples (the collective has a fixed size): (0, r, 0), which no
  // element ties with, since rank r holds none.
  const auto tuple_of = [&](std::size_t r, std::int64_t index) {
    if (index < 0) return SampleTuple{0, static_cast<std::uint32_t>(r), 0};
    return SampleTuple{ordered(keys[sorted[r][static_cast<std::size_t>(index)]]),
                       static_cast<std::uint32_t>(r), static_cast<std::uint64_t>(index)};
  };
  // 2-3. Samples, gathered and sorted.
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::int64_t position : sample_positions(sorted[r].size(), samples_per_rank))
      run.samples.push_back(tuple_of(r, position));
  std::sort(run.samples.begin(), run.samples.end());
  // 4. Splitters.
  for (std::size_t i = 0; i + 1 < ranks; ++i)
    run.splitters.push_back(run.samples[(i + 1) * samples_per_rank - 1]);
  // 5. Partition: elements with tuple <= splitter i go to ranks <= i.
  run.cuts.assign(ranks, std::vector<std::size_t>(ranks + 1, 0));
  run.sent.assign(ranks, std::vector<std::size_t>(ranks, 0));
  for (std::size_t r = 0; r < ranks; ++r) {
    std::vector<std::size_t>& cut = run.cuts[r];
    cut[ranks] = sorted[r].size();
    for (std::size_t i = 0; i + 1 < ranks; ++i) {
      const SampleTuple& splitter = run.splitters[i];
      // The first position whose tuple is greater than the splitter (binary search).
      std::size_t low = 0, high = sorted[r].size();
      while (low < high) {
        const std::size_t middle = (low + high) / 2;
        if (splitter < tuple_of(r, static_cast<std::int64_t>(middle)))
          high = middle;
        else
          low = middle + 1;
      }
      cut[i + 1] = low;
    }
    for (std::size_t b = 0; b < ranks; ++b) run.sent[r][b] = cut[b + 1] - cut[b];
  }
  // 6-7. Exchange and merge: rank b takes piece b of every rank, in source-rank order, and
  // merges them by (key, source rank, index), which is what a stable merge of the runs in
  // source-rank order does.
  run.keys.assign(ranks, {});
  run.values.assign(ranks, {});
  for (std::size_t b = 0; b < ranks; ++b) {
    std::vector<SampleTuple> received;
    std::vector<std::size_t> positions;
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::size_t i = run.cuts[r][b]; i < run.cuts[r][b + 1]; ++i)
        received.push_back(tuple_of(r, static_cast<std::int64_t>(i)));
    std::sort(received.begin(), received.end());
    for (const SampleTuple& element : received) {
      const std::size_t input = sorted[element.rank][element.index];
      run.keys[b].push_back(keys[input]);
      if (with_values) run.values[b].push_back(values[input]);
    }
  }
  return run;
}

/// One step of phase 7's pairwise merges: the sorted runs [first, middle) and [middle, last) of
/// the round's source buffer merged into the same range of the other buffer (middle == last: a
/// run without a partner, copied).
struct MergeStep {
  std::size_t first;   ///< where the first run starts
  std::size_t middle;  ///< where it ends and the second starts
  std::size_t last;    ///< where the second ends
};

/// Phase 7's plan for P received runs with \p bounds (P + 1 offsets, the runs side by side in
/// source-rank order): ceil(log2 P) rounds, each merging runs 2j and 2j + 1 of the round before;
/// round i reads the buffer round i - 1 wrote (round 0 reads the received keys). Empty for one run.
/// Host arithmetic: the GPU version (merge_runs() in sample_sort.cu) runs these steps with
/// cub::DeviceMerge, and the CPU test runs them with std::merge.
/// \param bounds the runs' offsets: bounds[0] = 0, bounds[P] = the keys received
inline std::vector<std::vector<MergeStep>> merge_rounds(std::vector<std::size_t> bounds) {
  std::vector<std::vector<MergeStep>> rounds;
  while (bounds.size() > 2) {
    const std::size_t runs = bounds.size() - 1;
    std::vector<MergeStep> steps;
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r < runs; r += 2) {
      const std::size_t last = r + 1 < runs ? bounds[r + 2] : bounds[r + 1];
      steps.push_back(MergeStep{bounds[r], bounds[r + 1], last});
      merged.push_back(last);
    }
    rounds.push_back(std::move(steps));
    bounds = std::move(merged);
  }
  return rounds;
}

}  // namespace sortlab::stage09
