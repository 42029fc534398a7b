/// \file
/// \brief Stage 07 CPU model: radix select pass by pass (each pass's digit histogram, the
/// chosen digit, k narrowing), the gather that follows it, and the reference top-k (a partial
/// sort with the same NaN and tie rules) that the model and the GPU tests compare against.
///
/// The model uses the kernels' own host-device rules (select_key.hpp, select_digits.hpp), so a
/// CPU test of the model checks the very transform and narrowing the GPU runs. Plain C++: no
/// CUDA compiler and no GPU needed.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/select_digits.hpp"
#include "chapters/07_topk/select_key.hpp"
#include "chapters/07_topk/topk.hpp"
#include "common/errors.hpp"

namespace sortlab::stage07 {

/// One pass of radix select, as the kernel computes it in shared memory.
struct SelectPass {
  int shift = 0;  ///< lowest bit of this pass's digit
  /// How many candidates (values matching the prefix before this pass) have each digit.
  std::array<std::uint64_t, kNumDigits> histogram{};
  std::uint64_t candidates = 0;  ///< values matching the prefix before this pass
  std::uint32_t digit = 0;       ///< the chosen digit: its bucket holds the k-th value
  std::uint64_t above = 0;       ///< candidates in buckets above the chosen one (taken for sure)
  std::uint64_t k_before = 0;    ///< rank of the k-th value among the candidates, before
  std::uint64_t k_after = 0;     ///< its rank inside the chosen bucket: k_before - above
};

/// Radix select of one row: every pass, and what it found.
template <typename T>
struct SelectTrace {
  using Bits = typename SelectKey<T>::Bits;  ///< select bits
  std::vector<SelectPass> passes;            ///< the passes, top digit first
  Bits kth_bits = 0;                         ///< select bits of the k-th best value
  std::uint64_t beyond = 0;                  ///< values strictly better than the k-th value
  std::uint64_t equal_taken = 0;             ///< values equal to it that the result takes
};

/// Radix select of \p row for the \p k-th best value (1 <= k <= row length), the way the kernel
/// does it: per pass, count the digits of the candidates, walk the buckets from the top digit
/// down until they hold k values, fix that digit, and narrow k to the rank inside its bucket.
/// After the last pass the prefix is the k-th value's select bits, and k is how many values
/// equal to it the result takes. Throws sortlab::Error unless 1 <= k <= row length.
/// \param row the values of one row
/// \param k rank of the value to find (1 = the best)
/// \param largest true for the k largest, false for the k smallest
template <typename T>
SelectTrace<T> model_radix_select(const std::vector<T>& row, std::size_t k, bool largest) {
  using Bits = typename SelectKey<T>::Bits;
  require(k >= 1 && k <= row.size(), [&] {
    return "model_radix_select: need 1 <= k <= row length, got k = " + std::to_string(k) +
           " for a row of " + std::to_string(row.size());
  });
  SelectTrace<T> trace;
  SelectPrefix<Bits> prefix;
  std::uint64_t k_left = k;
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    SelectPass step;
    step.shift = digit_shift<T>(pass);
    for (const T& value : row) {
      const Bits bits = SelectKey<T>::bits(value, largest);
      if (!prefix.matches(bits)) continue;
      ++step.histogram[digit_at(bits, step.shift)];
      ++step.candidates;
    }
    // The kernel does this walk as one block scan of the reversed histogram: thread t holds
    // digit 255 - t, and the thread whose exclusive sum is below k and inclusive sum reaches k
    // owns the digit.
    step.k_before = k_left;
    std::uint64_t above = 0;
    for (int digit = kNumDigits - 1; digit >= 0; --digit) {
      const std::uint64_t count = step.histogram[static_cast<std::size_t>(digit)];
      if (above < k_left && above + count >= k_left) {
        step.digit = static_cast<std::uint32_t>(digit);
        break;
      }
      above += count;
    }
    step.above = above;
    k_left -= above;
    step.k_after = k_left;
    prefix.fix(step.digit, step.shift);
    trace.passes.push_back(step);
  }
  trace.kth_bits = prefix.desired;
  trace.equal_taken = k_left;
  trace.beyond = k - k_left;
  return trace;
}

/// One block of the cluster-per-row schedule at the start of one pass (cluster_rows.cuh): what its
/// filter would keep, counted directly (the values of its span whose fixed digits are at least
/// the prefix), and what the kernel predicts from its own counts before deciding to filter (its
/// values found beyond the k-th value by the earlier passes plus its count of the digit just
/// chosen). The kernel filters only when `predicted` fits its list, so the two must be equal.
struct ClusterFilterStep {
  std::size_t block = 0;        ///< block of the row's cluster (span `block`)
  int pass = 0;                 ///< the pass that would filter (1 .. passes - 1)
  std::uint64_t predicted = 0;  ///< beyond so far + this block's count of the chosen digit
  std::uint64_t kept = 0;       ///< values with (bits & mask) >= desired, counted
};

/// The cluster schedule's filter decisions for one row cut into spans of \p span values: for
/// every block and every pass from 1 on, ClusterFilterStep (predicted and counted). The prefix
/// is model_radix_select()'s, which the cluster's blocks all compute from the summed counts.
/// \param row the values of one row
/// \param k rank of the k-th value (1 .. row length)
/// \param largest true for the k largest
/// \param span values per block (at least 1)
template <typename T>
std::vector<ClusterFilterStep> model_cluster_filter(const std::vector<T>& row, std::size_t k,
                                                    bool largest, std::size_t span) {
  using Bits = typename SelectKey<T>::Bits;
  require(span >= 1, "model_cluster_filter: span must be at least 1");
  const SelectTrace<T> trace = model_radix_select(row, k, largest);
  const std::size_t blocks = (row.size() + span - 1) / span;
  std::vector<ClusterFilterStep> steps;
  for (std::size_t block = 0; block < blocks; ++block) {
    const std::size_t first = block * span, last = std::min(row.size(), first + span);
    SelectPrefix<Bits> prefix;  // before pass p
    std::uint64_t beyond_so_far = 0;
    std::array<std::uint64_t, kNumDigits> previous{};  // this block's counts of pass p - 1
    for (int pass = 0; pass < num_passes<T>(); ++pass) {
      const int shift = digit_shift<T>(pass);
      if (pass > 0) {
        // What the kernel computes at the start of pass p, after pass p - 1 fixed its digit.
        const std::uint32_t chosen = trace.passes[static_cast<std::size_t>(pass - 1)].digit;
        for (std::uint32_t digit = chosen + 1; digit < kNumDigits; ++digit)
          beyond_so_far += previous[digit];
        ClusterFilterStep step;
        step.block = block;
        step.pass = pass;
        step.predicted = beyond_so_far + previous[chosen];
        for (std::size_t i = first; i < last; ++i) {
          const Bits bits = SelectKey<T>::bits(row[i], largest);
          if (static_cast<Bits>(bits & prefix.mask) >= prefix.desired) ++step.kept;
        }
        steps.push_back(step);
      }
      previous.fill(0);
      for (std::size_t i = first; i < last; ++i) {
        const Bits bits = SelectKey<T>::bits(row[i], largest);
        if (prefix.matches(bits)) ++previous[digit_at(bits, shift)];
      }
      prefix.fix(trace.passes[static_cast<std::size_t>(pass)].digit, shift);
    }
  }
  return steps;
}

/// The answer sort the cluster schedule could use instead of block 0's block sort (README, "Next",
/// item 3a; a model of a planned step, not of a kernel that exists yet): each block orders only
/// its own answers (best first, ties by slot: the slot is the answer's place in the unsorted
/// output, which is column order within the beyond and the equal values), then an answer's
/// place in the sorted output is its rank in its own block plus, for every other block, how many
/// of that block's answers go before it, found by a binary search in that block's ordered
/// answers. Slots are unique, so the places are a permutation, and they equal a stable sort by
/// select bits. Returns the place of every answer, indexed by slot.
/// \param bits select bits of the answers, indexed by slot (the unsorted output's order)
/// \param block_of_slot the block that wrote each answer
/// \param blocks blocks in the cluster
template <typename Bits>
std::vector<std::size_t> model_cluster_sort_places(const std::vector<Bits>& bits,
                                                   const std::vector<std::size_t>& block_of_slot,
                                                   std::size_t blocks) {
  require(bits.size() == block_of_slot.size(), "model_cluster_sort_places: one block per answer");
  // "a goes before b": better bits, or equal bits and a lower slot.
  const auto before = [&](std::size_t a, std::size_t b) {
    return bits[a] != bits[b] ? bits[a] > bits[b] : a < b;
  };
  std::vector<std::vector<std::size_t>> ordered(blocks);  // each block's slots, ordered
  for (std::size_t slot = 0; slot < bits.size(); ++slot) {
    require(block_of_slot[slot] < blocks, "model_cluster_sort_places: block out of range");
    ordered[block_of_slot[slot]].push_back(slot);
  }
  for (auto& slots : ordered) std::sort(slots.begin(), slots.end(), before);
  std::vector<std::size_t> places(bits.size());
  for (std::size_t block = 0; block < blocks; ++block)
    for (std::size_t rank = 0; rank < ordered[block].size(); ++rank) {
      const std::size_t slot = ordered[block][rank];
      std::size_t place = rank;
      for (std::size_t other = 0; other < blocks; ++other) {
        if (other == block) continue;
        const auto& theirs = ordered[other];
        place += static_cast<std::size_t>(
            std::lower_bound(theirs.begin(), theirs.end(), slot, before) - theirs.begin());
      }
      places[slot] = place;
    }
  return places;
}

/// The sort step of both schedules: a stable sort of a row's answers by select bits, best first,
/// as stage 05's block sort does on the GPU, so equal values keep the gather's column order.
/// \param largest true for the k largest, false for the k smallest
/// \param values the row's answers, sorted in place
/// \param indices their columns, permuted the same way
template <typename T>
void model_sort_answers(bool largest, std::vector<T>& values, std::vector<std::int64_t>& indices) {
  const std::size_t k = values.size();
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return SelectKey<T>::bits(values[a], largest) > SelectKey<T>::bits(values[b], largest);
  });
  std::vector<T> sorted_values(k);
  std::vector<std::int64_t> sorted_indices(k);
  for (std::size_t j = 0; j < k; ++j) {
    sorted_values[j] = values[order[j]];
    sorted_indices[j] = indices[order[j]];
  }
  values.swap(sorted_values);
  indices.swap(sorted_indices);
}

/// The model's top-k of one row, the way the kernel gathers it: select the k-th value, then in
/// column order write every value strictly better than it to positions 0 .. beyond - 1 and the
/// first `equal_taken` values equal to it after them (the kernel finds each position with a
/// block-wide exclusive scan of the two flags). With \p sorted, a stable sort of that by select
/// bits, best first, as stage 05's block sort does on the GPU: equal values stay in column
/// order. For 1 <= k <= row length.
/// \param row the values of one row
/// \param k values to pick
/// \param options largest or smallest, sorted or not
/// \param values receives the k values
/// \param indices receives their k columns
template <typename T>
void model_topk_row(const std::vector<T>& row, std::size_t k, const TopkOptions& options,
                    std::vector<T>& values, std::vector<std::int64_t>& indices) {
  using Bits = typename SelectKey<T>::Bits;
  const SelectTrace<T> trace = model_radix_select(row, k, options.largest);
  values.assign(k, T{});
  indices.assign(k, -1);
  std::uint64_t beyond_written = 0, equal_written = 0;
  for (std::size_t column = 0; column < row.size(); ++column) {
    const Bits bits = SelectKey<T>::bits(row[column], options.largest);
    std::uint64_t at = k;  // k: not taken
    if (bits > trace.kth_bits)
      at = beyond_written++;
    else if (bits == trace.kth_bits && equal_written < trace.equal_taken)
      at = trace.beyond + equal_written++;
    if (at < k) {
      values[at] = row[column];
      indices[at] = static_cast<std::int64_t>(column);
    }
  }
  if (!options.sorted) return;
  model_sort_answers(options.largest, values, indices);
}

/// The sample pass's bound for \p row (sample_plan.hpp): the select bits of the `plan.rank`-th
/// largest of the row's `plan.samples` samples (sample_column()), and how many samples are at
/// or above them. \p plan must be enabled.
/// \param row the values of one row
/// \param plan sample_plan() for the row
/// \param largest the direction
template <typename T>
std::pair<std::uint64_t, std::uint32_t> model_sample_bound(const std::vector<T>& row,
                                                           const SamplePlan& plan, bool largest) {
  using Bits = typename SelectKey<T>::Bits;
  std::vector<Bits> samples(plan.samples);
  for (std::uint32_t i = 0; i < plan.samples; ++i)
    samples[i] = SelectKey<T>::bits(
        row[sample_column(i, plan.log2_samples, static_cast<std::uint32_t>(row.size()))], largest);
  std::sort(samples.begin(), samples.end(), std::greater<Bits>());
  const Bits bound = samples[plan.rank - 1];
  const auto at_or_above = static_cast<std::uint32_t>(
      std::count_if(samples.begin(), samples.end(), [&](Bits bits) { return bits >= bound; }));
  return {static_cast<std::uint64_t>(bound), at_or_above};
}

/// What candidate filtering did in one pass of the several-blocks-per-row model.
struct FilterPass {
  bool read_lists = false;   ///< the blocks read their segments of the previous pass's list
  bool wrote_lists = false;  ///< the pass filtered: it wrote the next pass's list
  std::uint64_t read = 0;    ///< entries the pass read over the row's blocks (the row, or lists)
  /// Entries the pass kept (when it filtered): the answers found so far and the prefix's
  /// candidates, as the last block of the previous pass predicted them.
  std::uint64_t kept = 0;
};

/// What the several-blocks-per-row schedule computes for one row, recorded for tests: the
/// per-block tallies (answers better than the k-th value, values equal to it), the offsets
/// scanned from them in block order, and what candidate filtering did in every pass.
struct BlockedGather {
  SamplePlan sample;                  ///< the sample pass's plan (sample_plan(); may be disabled)
  std::uint64_t sample_bound = 0;     ///< its bound: the sample's rank-th largest select bits
  std::uint32_t at_or_above = 0;      ///< samples at or above the bound
  bool sample_read = false;           ///< the sample pass read the row (it predicted no overflow)
  bool sampled = false;               ///< it worked: pass 0 read its list
  std::uint64_t sample_kept = 0;      ///< values of the row at or above the bound
  std::vector<std::uint64_t> beyond;  ///< per block: values better than the k-th value
  std::vector<std::uint64_t> equal;   ///< per block: values equal to it
  std::vector<std::uint64_t> beyond_before;  ///< exclusive sum of beyond in block order
  std::vector<std::uint64_t> equal_before;   ///< exclusive sum of equal in block order
  std::uint64_t capacity = 0;                ///< entries of one candidate list of the row
  std::vector<FilterPass> passes;            ///< every digit pass, top digit first
  bool gather_from_lists = false;            ///< the gather read the last pass's list
  /// Entries the gather's inputs hold over the row's blocks (list segments or spans); the
  /// gather reads at most these (it stops once a block has written its answers).
  std::uint64_t gather_input = 0;
};

/// The model of the several-blocks-per-row schedule for one row cut into spans of
/// \p values_per_block values (the last span may be shorter), step by step as the kernels do
/// it, candidate filtering included:
/// - per pass, every block adds to its tally the values the previous pass put above the chosen
///   digit, then counts the candidates of its input into its own histogram. Its input is its
///   span of the row, or, when the previous pass filtered, its segment of that pass's list;
/// - a pass *filters* when the last block of the previous pass found that the row's entries
///   whose fixed digits are at least the new prefix (the answers so far, k - k_left, plus the
///   chosen bucket's count) fit list_capacity_for(): every block then reserves exactly its own
///   share (its tally plus its count of the chosen digit) in the row's list, in any order (here
///   the last block first, to show the order does not matter), and copies those entries, in its
///   input's order (so in column order), into its segment. The model checks that what a block
///   copies is what it reserved and that the segments fit;
/// - the row's digit is chosen from the sum of the block histograms; after the last pass each
///   block's beyond and equal counts are scanned in block order, and each block gathers its
///   segment of the last list (when the last pass filtered) or its span at those offsets.
/// - before pass 0, when sample_plan() allows it (`options.sample`), the sample pass: the bound
///   from the row's sample (model_sample_bound()); unless it predicts an overflow, each block's
///   warps keep the values of their parts (warp_part()) at or above it, and it worked when no
///   warp kept more than its region (`warp_cap`) and the row kept at least k. Then pass 0 reads
///   each block's kept values (in column order) instead of its span and copies them all into
///   list 0, and every later pass filters.
/// The result must be model_topk_row()'s, element for element (also unsorted): the tests check
/// that. For 1 <= k <= row length and values_per_block >= 1.
/// \param row the values of one row
/// \param k values to pick
/// \param options largest or smallest, sorted or not
/// \param values_per_block span of one block
/// \param values receives the k values
/// \param indices receives their k columns
/// \param record when not null, receives the per-block tallies, offsets and filter passes
/// \param capacity entries of one candidate list; 0: list_capacity_for(row length), as the
///        kernels use (the tests pass others to reach every case on short rows)
template <typename T>
void model_topk_row_blocks(const std::vector<T>& row, std::size_t k, const TopkOptions& options,
                           std::size_t values_per_block, std::vector<T>& values,
                           std::vector<std::int64_t>& indices, BlockedGather* record = nullptr,
                           std::size_t capacity = 0) {
  using Bits = typename SelectKey<T>::Bits;
  require(k >= 1 && k <= row.size() && values_per_block >= 1, [&] {
    return "model_topk_row_blocks: need 1 <= k <= row length and a span of at least 1, got k = " +
           std::to_string(k) + ", length " + std::to_string(row.size()) + ", span " +
           std::to_string(values_per_block);
  });
  if (capacity == 0) capacity = list_capacity_for(row.size());
  const std::size_t blocks = (row.size() + values_per_block - 1) / values_per_block;
  const auto span_begin = [&](std::size_t b) { return b * values_per_block; };
  const auto span_end = [&](std::size_t b) {
    return std::min(row.size(), (b + 1) * values_per_block);
  };
  /// One entry of a candidate list: a value and its column.
  struct Entry {
    T value;
    std::size_t column;
  };
  // Each block's input of the current pass: its span, or its segment of the previous list.
  const auto span_entries = [&](std::size_t b) {
    std::vector<Entry> entries;
    for (std::size_t i = span_begin(b); i < span_end(b); ++i) entries.push_back({row[i], i});
    return entries;
  };
  std::vector<Entry> lists[2] = {std::vector<Entry>(capacity), std::vector<Entry>(capacity)};
  std::vector<std::size_t> segment_offset(blocks, 0), segment_count(blocks, 0);
  const auto segment_entries = [&](int list, std::size_t b) {
    const auto first = lists[list].begin() + static_cast<std::ptrdiff_t>(segment_offset[b]);
    return std::vector<Entry>(first, first + static_cast<std::ptrdiff_t>(segment_count[b]));
  };

  std::vector<std::array<std::uint64_t, kNumDigits>> counts(blocks);
  BlockedGather gather;
  gather.capacity = capacity;
  gather.beyond.assign(blocks, 0);
  gather.equal.assign(blocks, 0);
  SelectPrefix<Bits> prefix;
  std::uint64_t k_left = k;
  std::uint32_t chosen = 0;
  bool filters_next = false;  // the row state's flag for the next pass (none before pass 1)
  std::uint64_t kept_next = 0;
  // The sample pass: its kept values go to list 1, one segment per block (the kernels put each
  // warp's part in a region of its own; pass 0 reads them in warp order, which is this order).
  // The model has no L2: kAuto runs the sample pass as kOn does (a GPU test that compares with
  // the model asks for kOn or kOff, or its input is larger than the L2).
  gather.sample = sample_plan(row.size(), k, blocks, capacity, options.sample != TopkSample::kOff);
  if (gather.sample.enabled) {
    const auto [bound, at_or_above] = model_sample_bound(row, gather.sample, options.largest);
    gather.sample_bound = bound;
    gather.at_or_above = at_or_above;
    gather.sample_read = !bound_predicts_overflow(at_or_above, gather.sample.samples,
                                                  static_cast<std::uint32_t>(row.size()),
                                                  static_cast<std::uint32_t>(capacity));
    bool overflow = false;
    std::size_t fill = 0;
    for (std::size_t b = 0; gather.sample_read && b < blocks; ++b) {
      segment_offset[b] = fill;
      for (std::uint32_t w = 0; w < kSampleWarps; ++w) {
        std::uint32_t part_begin = 0, part_end = 0;
        warp_part(static_cast<std::uint32_t>(span_begin(b)),
                  static_cast<std::uint32_t>(span_end(b)), w, part_begin, part_end);
        std::size_t warp_kept = 0;
        for (std::size_t i = part_begin; i < part_end; ++i) {
          if (SelectKey<T>::bits(row[i], options.largest) < bound) continue;
          ++warp_kept;
          if (fill < capacity) lists[1][fill++] = Entry{row[i], i};
        }
        overflow = overflow || warp_kept > gather.sample.warp_cap;
        gather.sample_kept += warp_kept;
      }
      segment_count[b] = fill - segment_offset[b];
    }
    gather.sampled = gather.sample_read && !overflow && gather.sample_kept >= k;
    filters_next = gather.sampled;  // pass 0 copies the whole list
    kept_next = gather.sampled ? gather.sample_kept : 0;
  }
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    const int shift = digit_shift<T>(pass);
    FilterPass step;
    step.read_lists = pass > 0 ? gather.passes.back().wrote_lists : gather.sampled;
    step.wrote_lists = filters_next;
    step.kept = filters_next ? kept_next : 0;
    const int in = (pass - 1) & 1, out = pass & 1;
    std::size_t fill = 0;  // the row's reservation counter of the list this pass writes
    for (std::size_t b = blocks; b-- > 0;) {  // the reservations in reverse block order
      // tally: the previous pass's counts of this block above the digit it chose
      std::uint64_t matching = 0;
      if (pass > 0) {
        for (std::uint32_t d = chosen + 1; d < kNumDigits; ++d) gather.beyond[b] += counts[b][d];
        matching = counts[b][chosen];
      }
      const std::vector<Entry> input = step.read_lists ? segment_entries(in, b) : span_entries(b);
      step.read += input.size();
      counts[b].fill(0);  // count
      std::vector<Entry> kept;
      for (const Entry& entry : input) {
        const Bits bits = SelectKey<T>::bits(entry.value, options.largest);
        if (prefix.matches(bits)) ++counts[b][digit_at(bits, shift)];
        if (static_cast<Bits>(bits & prefix.mask) >= prefix.desired) kept.push_back(entry);
      }
      if (!step.wrote_lists) continue;
      // reserve what the tally predicts (pass 0: the sample pass's entries), then filter into
      // the segment
      const std::uint64_t reserved = pass == 0 ? input.size() : gather.beyond[b] + matching;
      require(kept.size() == reserved, [&] {
        return "model_topk_row_blocks: block " + std::to_string(b) + " of pass " +
               std::to_string(pass) + " keeps " + std::to_string(kept.size()) +
               " entries but reserved " + std::to_string(reserved);
      });
      require(fill + kept.size() <= capacity,
              "model_topk_row_blocks: a segment overflows the list");
      segment_offset[b] = fill;
      segment_count[b] = kept.size();
      std::copy(kept.begin(), kept.end(), lists[out].begin() + static_cast<std::ptrdiff_t>(fill));
      fill += kept.size();
    }
    // choose digit: the last block to arrive sums the row's histograms
    std::uint64_t above = 0, bucket = 0;
    for (int digit = kNumDigits - 1; digit >= 0; --digit) {
      std::uint64_t count = 0;
      for (std::size_t b = 0; b < blocks; ++b) count += counts[b][static_cast<std::size_t>(digit)];
      if (above < k_left && above + count >= k_left) {
        chosen = static_cast<std::uint32_t>(digit);
        bucket = count;
        break;
      }
      above += count;
    }
    k_left -= above;
    prefix.fix(chosen, shift);
    // ... and decides whether the next pass filters: the answers so far plus the bucket
    kept_next = (k - k_left) + bucket;
    filters_next = pass + 1 < num_passes<T>() && kept_next <= capacity;
    gather.passes.push_back(step);
  }
  // plan the gather: the last pass's share of each block, then scans in block order
  gather.beyond_before.assign(blocks, 0);
  gather.equal_before.assign(blocks, 0);
  std::uint64_t beyond_running = 0, equal_running = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::uint32_t d = chosen + 1; d < kNumDigits; ++d) gather.beyond[b] += counts[b][d];
    gather.equal[b] = counts[b][chosen];
    gather.beyond_before[b] = beyond_running;
    gather.equal_before[b] = equal_running;
    beyond_running += gather.beyond[b];
    equal_running += gather.equal[b];
  }
  const Bits kth_bits = prefix.desired;
  const std::uint64_t equal_wanted = k_left, beyond_wanted = k - k_left;
  gather.gather_from_lists = gather.passes.back().wrote_lists;
  // gather: every block at its own offsets, in any block order, from its list segment or span
  values.assign(k, T{});
  indices.assign(k, -1);
  const int last_list = (num_passes<T>() - 1) & 1;
  for (std::size_t b = blocks; b-- > 0;) {  // backwards on purpose: no block waits for another
    const std::vector<Entry> input =
        gather.gather_from_lists ? segment_entries(last_list, b) : span_entries(b);
    gather.gather_input += input.size();
    std::uint64_t beyond_done = 0, equal_done = 0;
    for (const Entry& entry : input) {
      const Bits bits = SelectKey<T>::bits(entry.value, options.largest);
      std::uint64_t at = k;
      if (bits > kth_bits) {
        at = gather.beyond_before[b] + beyond_done++;
      } else if (bits == kth_bits) {
        const std::uint64_t rank = gather.equal_before[b] + equal_done++;
        if (rank < equal_wanted) at = beyond_wanted + rank;
      }
      if (at < k) {
        values[at] = entry.value;
        indices[at] = static_cast<std::int64_t>(entry.column);
      }
    }
  }
  if (record != nullptr) *record = gather;
  if (!options.sorted) return;
  model_sort_answers(options.largest, values, indices);
}

/// The value of type T whose select bits (SelectKey<T>::bits(value, \p largest)) are \p bits:
/// SelectKey::unique_value(), and for the bits several values share, +0.0 (the zeros' bits) or
/// the NaN with every payload bit set (the NaNs'). The tests build rows digit by digit with it.
/// \param bits select bits
/// \param largest the direction the bits are for
template <typename T>
T value_from_select_bits(typename SelectKey<T>::Bits bits, bool largest) {
  using Bits = typename SelectKey<T>::Bits;
  using Traits = KeyTraits<T>;
  T value{};
  if (SelectKey<T>::unique_value(bits, largest, value)) return value;
  const Bits ordered = largest ? bits : static_cast<Bits>(~bits);
  return Traits::from_raw_bits(ordered == Traits::kHighBit ? Bits{0}
                                                           : static_cast<Bits>(~Traits::kHighBit));
}

/// A row of \p length values built to put candidate filtering at its edges: \p high values
/// whose select bits start with digit 0xf0, \p middle values starting with 0xe0 and the rest
/// with 0x10 (every value finite, none -0.0), the lower bits random, the columns shuffled. For
/// k <= high, pass 0 chooses digit 0xf0 and pass 1 keeps `high` entries; for k = high + 1 (and
/// middle >= 1) it chooses 0xe0 and pass 1 keeps `high + middle` entries (the high ones are
/// answers already, and travel in the list). Pass 1 filters exactly when that count is at most
/// list_capacity_for(length). Needs high + middle <= length.
/// \param length values in the row
/// \param high values in the best group
/// \param middle values in the second group
/// \param largest the direction the row is built for
/// \param seed random lower bits and columns
template <typename T>
std::vector<T> filter_edge_row(std::size_t length, std::size_t high, std::size_t middle,
                               bool largest, std::uint64_t seed) {
  using Bits = typename SelectKey<T>::Bits;
  require(high + middle <= length, "filter_edge_row: high + middle > length");
  constexpr int kTop = SelectKey<T>::kNumBits - kDigitBits;
  std::mt19937_64 random(seed);
  std::vector<std::size_t> columns(length);
  std::iota(columns.begin(), columns.end(), std::size_t{0});
  std::shuffle(columns.begin(), columns.end(), random);
  std::vector<T> row(length);
  for (std::size_t i = 0; i < length; ++i) {
    const Bits top = i < high ? Bits{0xf0} : i < high + middle ? Bits{0xe0} : Bits{0x10};
    const Bits low = static_cast<Bits>(random() & ((Bits{1} << kTop) - 1));
    row[columns[i]] = value_from_select_bits<T>(static_cast<Bits>((top << kTop) | low), largest);
  }
  return row;
}

/// Throws sortlab::Error unless \p input holds `num_rows * row_length` values and
/// k <= row_length (the shape rules of topk()).
/// \param caller function name for the message
/// \param input_size values in the input
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick
inline void require_topk_shape(const char* caller, std::size_t input_size, std::size_t num_rows,
                               std::size_t row_length, std::size_t k) {
  require(input_size == num_rows * row_length, [&] {
    return std::string(caller) + ": input has " + std::to_string(input_size) +
           " values but num_rows * row_length = " + std::to_string(num_rows * row_length);
  });
  require(k <= row_length, [&] {
    return std::string(caller) + ": k = " + std::to_string(k) +
           " is larger than row_length = " + std::to_string(row_length);
  });
}

/// The model's top-k of every row (model_topk_row() row by row): `num_rows x k` values and
/// columns, row-major. k = 0 or no rows give empty outputs.
/// \param input num_rows x row_length values, row-major
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick
/// \param options largest or smallest, sorted or not
/// \param values receives num_rows x k values
/// \param indices receives num_rows x k columns
template <typename T>
void model_topk(const std::vector<T>& input, std::size_t num_rows, std::size_t row_length,
                std::size_t k, const TopkOptions& options, std::vector<T>& values,
                std::vector<std::int64_t>& indices) {
  require_topk_shape("model_topk", input.size(), num_rows, row_length, k);
  values.clear();
  indices.clear();
  if (k == 0) return;
  std::vector<T> row, row_values;
  std::vector<std::int64_t> row_indices;
  for (std::size_t r = 0; r < num_rows; ++r) {
    const auto first = input.begin() + static_cast<std::ptrdiff_t>(r * row_length);
    row.assign(first, first + static_cast<std::ptrdiff_t>(row_length));
    model_topk_row(row, k, options, row_values, row_indices);
    values.insert(values.end(), row_values.begin(), row_values.end());
    indices.insert(indices.end(), row_indices.begin(), row_indices.end());
  }
}

/// The reference top-k, independent of radix select: per row, a partial sort of the columns by
/// (select bits descending, column ascending), a strict total order, so the k first are unique.
/// Always sorted (best first, ties by column); compare an unsorted result with same_topk_set().
/// k = 0 or no rows give empty outputs. Throws sortlab::Error on an inconsistent shape.
/// \param input num_rows x row_length values, row-major
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick (0 to row_length)
/// \param largest true for the k largest, false for the k smallest
/// \param values receives num_rows x k values
/// \param indices receives num_rows x k columns
template <typename T>
void reference_topk(const std::vector<T>& input, std::size_t num_rows, std::size_t row_length,
                    std::size_t k, bool largest, std::vector<T>& values,
                    std::vector<std::int64_t>& indices) {
  require_topk_shape("reference_topk", input.size(), num_rows, row_length, k);
  values.assign(num_rows * k, T{});
  indices.assign(num_rows * k, -1);
  std::vector<std::size_t> columns(row_length);
  for (std::size_t r = 0; r < num_rows; ++r) {
    const T* row = input.data() + r * row_length;
    std::iota(columns.begin(), columns.end(), std::size_t{0});
    std::partial_sort(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(k),
                      columns.end(), [row, largest](std::size_t a, std::size_t b) {
                        const auto bits_a = SelectKey<T>::bits(row[a], largest);
                        const auto bits_b = SelectKey<T>::bits(row[b], largest);
                        return bits_a != bits_b ? bits_a > bits_b : a < b;
                      });
    for (std::size_t j = 0; j < k; ++j) {
      values[r * k + j] = row[columns[j]];
      indices[r * k + j] = static_cast<std::int64_t>(columns[j]);
    }
  }
}

/// Compares a top-k result with the reference's, row by row, as sets of (value bits, column)
/// when \p sorted is false, as sequences when it is true. Values compare by their raw bits (the
/// output must be the input value at that column, so -0.0 and a NaN's payload survive). Returns
/// an empty string when they agree, else a message naming the first row and position that
/// differ.
/// \param expected_values reference values, num_rows x k
/// \param expected_indices reference columns, num_rows x k
/// \param got_values values to check
/// \param got_indices columns to check
/// \param num_rows rows
/// \param k values per row
/// \param sorted compare as sequences (true) or as sets (false)
template <typename T>
std::string compare_topk(const std::vector<T>& expected_values,
                         const std::vector<std::int64_t>& expected_indices,
                         const std::vector<T>& got_values,
                         const std::vector<std::int64_t>& got_indices, std::size_t num_rows,
                         std::size_t k, bool sorted) {
  using Bits = typename SelectKey<T>::Bits;
  if (got_values.size() != num_rows * k || got_indices.size() != num_rows * k)
    return "output has " + std::to_string(got_values.size()) + " values and " +
           std::to_string(got_indices.size()) +
           " indices, expected num_rows * k = " + std::to_string(num_rows * k);
  std::vector<std::pair<std::int64_t, Bits>> want(k), got(k);
  for (std::size_t r = 0; r < num_rows; ++r) {
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t at = r * k + j;
      want[j] = {expected_indices[at], KeyTraits<T>::raw_bits(expected_values[at])};
      got[j] = {got_indices[at], KeyTraits<T>::raw_bits(got_values[at])};
    }
    if (!sorted) {  // as sets: the order of the unsorted output is not part of the contract
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
    }
    for (std::size_t j = 0; j < k; ++j)
      if (want[j] != got[j])
        return "row " + std::to_string(r) + ", " + (sorted ? "position " : "sorted pair ") +
               std::to_string(j) + ": got (column " + std::to_string(got[j].first) + ", bits " +
               std::to_string(static_cast<std::uint64_t>(got[j].second)) + "), expected (column " +
               std::to_string(want[j].first) + ", bits " +
               std::to_string(static_cast<std::uint64_t>(want[j].second)) + ")";
  }
  return {};
}

}  // namespace sortlab::stage07
