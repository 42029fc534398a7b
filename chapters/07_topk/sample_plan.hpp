/// \file
/// \brief The sampled bound of the several-blocks-per-row schedule: a lower bound on the k-th
/// value, found from a sample of the row, so that one read of the row keeps only the values at
/// or above it and every digit pass after reads that short list instead of the row.
///
/// Radix select reads a row once per digit until a pass's prefix leaves few enough candidates to
/// filter into a list; on uniform floats, whose top digit is the same for half the row, that is
/// three reads of the row (README). A sample says where the k-th value lies before any pass
/// runs: among S values drawn from the row, about S k / n are at or above it, so the sample's
/// r-th largest value, with r a few standard deviations above S k / n, is at most the k-th value
/// with high probability, and about r n / S values of the row are at or above it. One read then
/// copies those values (in column order) into the candidate list, and pass 0 starts from the
/// list. Whether it worked is known exactly after that read: it did when the list holds at least
/// k values and nothing overflowed (then the k-th value and everything the gather needs are in
/// it: every answer is at least the k-th value, which is at least the bound); otherwise pass 0
/// reads the row as before, and the sample cost one extra read. A sample whose bound is shared by
/// many values (few distinct values, all equal) predicts the overflow, and then the read is
/// skipped. Everything here is host and device code, so the CPU model takes the same sample, the
/// same bound and the same decision as the kernels.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "chapters/07_topk/select_key.hpp"

namespace sortlab::stage07 {

/// Most values a row's sample takes (16 per thread of a 256-thread block).
inline constexpr std::uint32_t kMaxSamples = 4096;
/// Most values the sample of a row of at most kShortRowMaxLength values takes. Each block of a
/// row draws the whole sample (so that every block finds the same bound alone), one scattered
/// 32-byte sector per value: 4096 of them are 128 KB of sectors per block, where a block of 16
/// rows of 128256 in 32 blocks each reads a span of 8-16 KB (session 28, Nsight Compute: the
/// sample pass took twice the finish after it). With 2048 (session 29, against 4096) the k = 50
/// LLM shapes of rows of 128256 and 151936 took up to 10% less time, the rows set's 1024 rows of
/// 65536 at k = 64 and 256 7-8% less, k = 1024 and 2048 of such rows -3% to +1.4%; 1024 made bf16
/// rows fall back (a bound shared by many values). Only plans that expect short lists take it
/// (kShortRowMaxExpectedEntries); longer rows keep kMaxSamples.
inline constexpr std::uint32_t kShortRowMaxSamples = 2048;
/// Longest row that takes at most kShortRowMaxSamples samples.
inline constexpr std::size_t kShortRowMaxLength = std::size_t{1} << 18;
/// Most entries the smaller sample's plan may expect a row to keep: half of the smallest list a
/// row is finished in (kOneBlockListEntries, checked in topk.hpp). A smaller sample keeps more
/// values for the same k, so past this it could move a row to a larger list, or out of the
/// one-block finish (a review found k = 2177-2670 of 151936 would lose it); at or below it, the
/// 4096-sample plan fits every list the smaller one fits, so no row changes its finish.
inline constexpr std::size_t kShortRowMaxExpectedEntries = 1024;
/// A sample takes at most one value in this many of the row, so that drawing it costs a small
/// part of one read of the row.
inline constexpr std::uint32_t kSampleStride = 16;
/// Fewest samples worth a bound: below this the rule keeps the plain passes.
inline constexpr std::uint32_t kMinSamples = 64;
/// Standard deviations between the expected count of samples above the k-th value and the rank
/// r of the bound (sample_plan()). More keeps more values than the answer needs; fewer makes the
/// row fall back to a full read more often. With 4096 samples and k = 1024 or 2048 of a 128256
/// row, 3 fails (the bound above the k-th value) about once in 2500 rows, 4 once in 70000 (the
/// binomial tail), for 6-9% more values kept. Session 21 went back from 3 to 4: the bench's own
/// inputs had such a row in one of two batches of 128 rows, and there the one-block finish
/// (topk_sampled_rows_kernel) reads the row in one block, 0.21 ms against 0.08 for the batch;
/// 3 had saved 1% at k = 1% of a long row (2026-11-25), where a fallback costs little.
inline constexpr double kBoundDeviations = 4.0;
/// Warps of a block that filter the row against the bound: each owns a contiguous part of the
/// block's span and writes its own part of the block's list region, so no barrier orders them.
inline constexpr std::uint32_t kSampleWarps = 8;

/// Bits of RowState::sample_failed. The sample predicted more values at or above its bound than
/// the row's list holds, so no block filtered (nothing of the row is in the list).
inline constexpr std::uint32_t kSamplePredictsOverflow = 1u;
/// A warp kept more values than its region holds: the other regions are complete, and the
/// region's count is exact (topk_sampled_rows_kernel re-reads only that warp's part).
inline constexpr std::uint32_t kSampleRegionOverflowed = 2u;

/// RowState::listed on the path TopkPath::kSampledOneBlock when the sampled list did not work
/// (the sample predicted an overflow, or the row kept more than the list holds) and the bound
/// is the k-th value: the row's block gathered the answers from the row at the bound, without a
/// digit pass (gather_at_sampled_bound()).
inline constexpr std::uint32_t kListedAtBound = 3u;

/// What the host decided for a call (the same for every row: it depends on the shape and k).
struct SamplePlan {
  bool enabled = false;        ///< the sample pass runs before pass 0
  std::uint32_t samples = 0;   ///< S: values drawn from each row (a power of two)
  int log2_samples = 0;        ///< log2 of S
  std::uint32_t rank = 0;      ///< r: the bound is the sample's r-th largest select bits
  std::uint32_t warp_cap = 0;  ///< entries each filtering warp may write (its list region)
};

/// The sample plan with at most \p most_samples samples (sample_plan() says which): S is the
/// largest power of two up to \p most_samples and row_length / kSampleStride,
/// mu = S k / row_length of them are expected above the k-th value, and the bound is the
/// sample's r-th largest with r = ceil(mu + kBoundDeviations sqrt(mu) + 4): for the bound to
/// exceed the k-th value, at least r samples must, which is four standard deviations and more
/// past the mean. The row keeps about r row_length / S values; the plan is enabled when that is
/// at most half the list, when S is at least kMinSamples, and when each of the blocks'
/// kSampleWarps warps gets at least one entry of the list. Parameters as sample_plan()'s.
/// \param most_samples the most samples S may take (a power of two)
/// \param row_length values per row
/// \param k answers per row, 1 .. row_length
/// \param blocks_per_row blocks of the row (at least 1)
/// \param list_capacity entries of one candidate list of a row
inline SamplePlan sample_plan_of_at_most(std::size_t most_samples, std::size_t row_length,
                                         std::size_t k, std::size_t blocks_per_row,
                                         std::size_t list_capacity) {
  SamplePlan plan;
  // A power of two, so that the strata's bounds are shifts (sample_column()).
  std::size_t samples = most_samples;
  while (samples > row_length / kSampleStride) samples /= 2;
  if (samples < kMinSamples) return plan;
  const double mu =
      static_cast<double>(samples) * static_cast<double>(k) / static_cast<double>(row_length);
  const double rank = std::ceil(mu + kBoundDeviations * std::sqrt(mu) + 4.0);
  if (rank > static_cast<double>(samples)) return plan;
  const double kept = rank * static_cast<double>(row_length) / static_cast<double>(samples);
  if (2.0 * kept > static_cast<double>(list_capacity)) return plan;
  const std::size_t warp_cap = list_capacity / (blocks_per_row * kSampleWarps);
  if (warp_cap == 0) return plan;
  plan.enabled = true;
  plan.samples = static_cast<std::uint32_t>(samples);
  while ((std::size_t{1} << plan.log2_samples) < samples) ++plan.log2_samples;
  plan.rank = static_cast<std::uint32_t>(rank);
  plan.warp_cap = static_cast<std::uint32_t>(warp_cap);
  return plan;
}

/// Entries a row is expected to keep with \p plan: rank x row_length / samples (0 for a
/// disabled plan).
/// \param plan a sample plan
/// \param row_length values per row
inline double sample_plan_expected_entries(const SamplePlan& plan, std::size_t row_length) {
  if (!plan.enabled || plan.samples == 0) return 0.0;
  return static_cast<double>(plan.rank) * static_cast<double>(row_length) /
         static_cast<double>(plan.samples);
}

/// The sample plan for rows of \p row_length values, \p k answers, \p blocks_per_row blocks per
/// row and candidate lists of \p list_capacity entries per row (list_capacity_for()):
/// sample_plan_of_at_most() with kShortRowMaxSamples for rows of at most kShortRowMaxLength
/// values whose smaller-sample plan is enabled and expects at most kShortRowMaxExpectedEntries
/// entries (the k = 50 LLM shapes, the rows set's 1024 x 65536 at k = 64 and 256), else with
/// kMaxSamples (longer rows, k = 1024 and 2048 of the vocabularies, k = 300 of 151936). Pure host
/// and device arithmetic (CPU-tested); \p wanted false gives a disabled plan (topk() passes
/// TopkOptions::sample, with kAuto resolved against the input's size).
/// \param row_length values per row
/// \param k answers per row, 1 .. row_length
/// \param blocks_per_row blocks of the row (at least 1)
/// \param list_capacity entries of one candidate list of a row
/// \param wanted TopkOptions::sample
inline SamplePlan sample_plan(std::size_t row_length, std::size_t k, std::size_t blocks_per_row,
                              std::size_t list_capacity, bool wanted) {
  if (!wanted || k == 0 || blocks_per_row == 0) return SamplePlan{};
  if (row_length <= kShortRowMaxLength) {
    const SamplePlan fewer =
        sample_plan_of_at_most(kShortRowMaxSamples, row_length, k, blocks_per_row, list_capacity);
    if (fewer.enabled && sample_plan_expected_entries(fewer, row_length) <=
                             static_cast<double>(kShortRowMaxExpectedEntries))
      return fewer;
  }
  return sample_plan_of_at_most(kMaxSamples, row_length, k, blocks_per_row, list_capacity);
}

/// Whether the rows of a sample pass are finished by one block each (topk_sampled_rows_kernel)
/// instead of the digit passes of several blocks: the list the plan expects, about
/// rank x row_length / samples entries per row, is at most half of \p shared_entries (the shared
/// list of one block; the spread around the expectation then rarely overflows it), and the row's
/// list regions, blocks_per_row x kSampleWarps, are at most \p max_regions. A region that
/// overflows costs its block a re-read of that warp's part; a row whose list holds too few or
/// too many entries anyway is read whole by its block: correct, but slower. Pure host and
/// device arithmetic (CPU-tested).
/// \param plan the call's sample plan (sample_plan()); false when disabled
/// \param row_length values per row
/// \param blocks_per_row blocks of the row in the sample pass
/// \param shared_entries entries of one block's shared candidate list (kOneBlockListEntries)
/// \param max_regions regions one block can gather (kMaxSampledRegions)
inline bool sampled_rows_fit_one_block(const SamplePlan& plan, std::size_t row_length,
                                       std::size_t blocks_per_row, std::size_t shared_entries,
                                       std::size_t max_regions) {
  if (!plan.enabled || plan.samples == 0) return false;
  const double expected = sample_plan_expected_entries(plan, row_length);
  return 2.0 * expected <= static_cast<double>(shared_entries) &&
         blocks_per_row * kSampleWarps <= max_regions;
}

/// Column of sample \p i of the 2^\p log2_samples samples drawn from a row of \p row_length
/// values: one position in each of S equal strata of the row (stratum i is
/// [i n / S, (i + 1) n / S)), picked inside its stratum by a fixed integer hash of i.
/// Stratified, so a sorted or a periodic row is sampled evenly; fixed, so the model and every
/// block of a row draw the same sample.
/// \param i sample number, 0 .. S - 1
/// \param log2_samples log2 of S (SamplePlan::log2_samples; S at most row_length)
/// \param row_length values per row
SORTLAB_HOST_DEVICE inline std::uint32_t sample_column(std::uint32_t i, int log2_samples,
                                                       std::uint32_t row_length) {
  // No division: S is a power of two, and the hash is scaled into the stratum by a multiply
  // (a 64-bit division and a remainder per sample cost the first version of the sample pass
  // more than its loads: 30 us per call on a row of 128256 values).
  const std::uint64_t low = (std::uint64_t{i} * row_length) >> log2_samples;
  const std::uint64_t high = ((std::uint64_t{i} + 1) * row_length) >> log2_samples;
  std::uint32_t hash = i * 0x9E3779B1u;
  hash ^= hash >> 15;
  hash *= 0x85EBCA77u;
  hash ^= hash >> 13;
  return static_cast<std::uint32_t>(low + ((std::uint64_t{hash} * (high - low)) >> 32));
}

/// The part of a block's span [\p span_begin, \p span_end) that filtering warp \p warp owns:
/// kSampleWarps contiguous parts of a multiple of 32 values each (so a part of a 16-byte aligned
/// span starts on a 16-byte boundary too), the last ones possibly shorter or empty.
/// \param span_begin first column of the span
/// \param span_end one past its last column
/// \param warp 0 .. kSampleWarps - 1
/// \param part_begin receives the part's first column
/// \param part_end receives one past its last column
SORTLAB_HOST_DEVICE inline void warp_part(std::uint32_t span_begin, std::uint32_t span_end,
                                          std::uint32_t warp, std::uint32_t& part_begin,
                                          std::uint32_t& part_end) {
  const std::uint32_t length = span_end - span_begin;
  const std::uint32_t per_warp = ((length + kSampleWarps - 1) / kSampleWarps + 31u) / 32u * 32u;
  const std::uint64_t begin = std::uint64_t{span_begin} + std::uint64_t{warp} * per_warp;
  const std::uint64_t end = begin + per_warp;
  part_begin = static_cast<std::uint32_t>(begin < span_end ? begin : span_end);
  part_end = static_cast<std::uint32_t>(end < span_end ? end : span_end);
}

/// Whether a bound that \p at_or_above of the \p samples samples reach predicts more entries than
/// \p list_capacity (at_or_above x row_length / samples > list_capacity): then the row's values
/// share the bound too often (few distinct values), and the sample pass skips its read.
/// \param at_or_above samples whose select bits are at least the bound
/// \param samples S
/// \param row_length values per row
/// \param list_capacity entries of one candidate list of the row
SORTLAB_HOST_DEVICE inline bool bound_predicts_overflow(std::uint32_t at_or_above,
                                                        std::uint32_t samples,
                                                        std::uint32_t row_length,
                                                        std::uint32_t list_capacity) {
  return std::uint64_t{at_or_above} * row_length > std::uint64_t{list_capacity} * samples;
}

/// Whether a bound is a row's k-th value, given how many of the row's values lie strictly beyond
/// it (\p beyond) and how many equal it (\p equal): fewer than k beyond, at least k at or beyond.
/// Then the answers are every value beyond the bound and the k - beyond lowest columns equal to
/// it, with no digit pass. Both sampled fallbacks ask it (gather_at_sampled_bound() and the
/// cluster's bound_is_kth_over_cluster()); written without beyond + equal, which could wrap.
/// \param beyond values of the row beyond the bound
/// \param equal values of the row equal to it
/// \param k answers per row
SORTLAB_HOST_DEVICE inline bool bound_is_kth(std::uint32_t beyond, std::uint32_t equal,
                                             std::uint32_t k) {
  return beyond < k && k - beyond <= equal;
}

/// The sample pass prefetches its spans into the L2 when the whole input takes at most this
/// fraction of the L2 (prefetch_spans_for()).
inline constexpr std::size_t kPrefetchSpansL2Fraction = 6;

/// Whether the sample pass should ask the L2 for each warp's part of its span before it draws
/// the sample (common/l2_prefetch.cuh), so the part's bytes arrive while the draw and the bound
/// wait on their own latency: only while the whole input (\p input_bytes) takes at most a
/// kPrefetchSpansL2Fraction-th of the L2 (\p l2_bytes), so that what is fetched is still there
/// when the filter reads it. Measured on an H200 (50 MB L2; session 25): 16 rows of 128256
/// values (f32 and bf16) and of 151936 (bf16) at k = 50, 4-8 MB, 4-6% faster, no shape slower;
/// with the limit at 16 MB, 128 rows of 32000 f32 and 256 of 32000 bf16 were 5-6% slower, and
/// with none, most inputs of 32 MB and more 2-19% slower (what is fetched then leaves the L2
/// before its use, and the prefetch competes with the sample's scattered loads).
/// \param input_bytes rows x row_length x the value's bytes
/// \param l2_bytes the device's L2 (l2_cache_bytes(); 0: no prefetch of any non-empty input)
constexpr bool prefetch_spans_for(std::size_t input_bytes, std::size_t l2_bytes) {
  return input_bytes <= l2_bytes / kPrefetchSpansL2Fraction;
}

}  // namespace sortlab::stage07
