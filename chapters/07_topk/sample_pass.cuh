/// \file
/// \brief The sample pass of the several-blocks-per-row schedule (sample_plan.hpp says why), and
/// the one-block finish of rows whose sampled lists one block holds (topk_sampled_rows_kernel):
/// every block of a row draws the row's sample, finds the bound (the sample's r-th largest
/// select bits) and copies the values of its span at or above the bound, in column order, into
/// its region of the row's candidate list 1; pass 0 then reads those regions instead of the row
/// (topk_count_pass_kernel). Phases:
/// - **prefetch** (inputs of at most a sixth of the L2, prefetch_spans_for()): each warp asks the
///   L2 for its part of the span, which then arrives while the next two phases wait;
/// - **sample**: S values of the row at sample_column(); the same S in every block of the row,
///   so every block finds the same bound without talking to the others;
/// - **bound**: a radix select of the samples' r-th largest select bits, the digit passes of
///   radix_select_row() on S values held in registers (sample_bound(), in topk_kernels.cuh: one
///   block per row draws the same sample);
/// - **filter**: each warp reads its contiguous part of the span (16-byte loads where the part is
///   aligned) and writes the values at or above the bound to its own region of the list, in
///   column order, with a warp scan; no barrier orders the warps, so loads stay in flight as in
///   the count phase. A warp whose values do not fit its region counts on and marks the row as
///   failed; so does every block when the sample predicts an overflow (then no block reads).
#pragma once

#include <cstdint>
#include <cstring>

#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/topk_kernels.cuh"
#include "common/l2_prefetch.cuh"

namespace sortlab::stage07 {

/// Phase **filter** for one warp (all 32 lanes call it): copies every value of
/// `row[part_begin, part_end)` whose select bits are at least \p bound, with its column, to
/// `out_values` / `out_columns` in column order, writing at most \p cap entries; returns how
/// many there are (possibly more than \p cap: the caller then knows the region overflowed).
/// Most steps keep nothing, and one vote skips their scan. With \p kCountBeyond it also counts
/// the part's values strictly beyond the bound into \p beyond (the same in every lane).
template <typename T, bool kCountBeyond = false>
__device__ __forceinline__ std::uint32_t warp_filter_at_or_above(
    const T* row, std::uint32_t part_begin, std::uint32_t part_end,
    typename SelectKey<T>::Bits bound, bool largest, T* out_values, std::uint32_t* out_columns,
    std::uint32_t cap, std::uint32_t* beyond = nullptr) {
  using Bits = typename SelectKey<T>::Bits;
  constexpr std::uint32_t kPerVector = sizeof(uint4) / sizeof(T);
  constexpr int kVectors = kCountVectorsPerThread;
  const unsigned lane = threadIdx.x & 31u;
  std::uint32_t written = 0;  // the same in every lane
  std::uint32_t lane_beyond = 0;
  // One lane's entries of one step, ranked: where the lane's first kept entry goes.
  const auto place = [&](std::uint32_t kept_here) {
    const std::uint32_t inclusive = warp_inclusive_sum(kept_here);
    const std::uint32_t at = written + inclusive - kept_here;
    written += __shfl_sync(0xffffffffu, inclusive, 31);
    return at;
  };
  const std::uint32_t length = part_end - part_begin;
  const T* part = row + part_begin;
  std::uint32_t done = 0;  // values of the part handled by the word loop
  if (reinterpret_cast<std::uintptr_t>(part) % sizeof(uint4) == 0) {
    const uint4* words = reinterpret_cast<const uint4*>(part);
    const std::uint32_t whole = length / kPerVector;
    for (std::uint32_t step = 0; step < whole; step += 32u * kVectors) {
      uint4 loaded[kVectors];
#pragma unroll
      for (int u = 0; u < kVectors; ++u) {
        const std::uint32_t w = step + static_cast<std::uint32_t>(u) * 32u + lane;
        loaded[u] = w < whole ? words[w] : make_uint4(0u, 0u, 0u, 0u);
      }
      std::uint32_t kept[kVectors];
      bool any = false;
#pragma unroll
      for (int u = 0; u < kVectors; ++u) {
        const std::uint32_t w = step + static_cast<std::uint32_t>(u) * 32u + lane;
        T items[kPerVector];
        memcpy(items, &loaded[u], sizeof(uint4));
        kept[u] = 0;
#pragma unroll
        for (std::uint32_t e = 0; e < kPerVector; ++e) {
          const Bits bits = SelectKey<T>::bits(items[e], largest);
          if (w < whole && bits >= bound) kept[u] |= 1u << e;
          if constexpr (kCountBeyond) lane_beyond += w < whole && bits > bound ? 1u : 0u;
        }
        any = any || kept[u] != 0;
      }
      if (!__any_sync(0xffffffffu, any)) continue;
#pragma unroll
      for (int u = 0; u < kVectors; ++u) {
        const std::uint32_t w = step + static_cast<std::uint32_t>(u) * 32u + lane;
        std::uint32_t at = place(static_cast<std::uint32_t>(__popc(kept[u])));
        T items[kPerVector];
        memcpy(items, &loaded[u], sizeof(uint4));
#pragma unroll
        for (std::uint32_t e = 0; e < kPerVector; ++e) {
          if ((kept[u] >> e) & 1u) {
            if (at < cap) {
              out_values[at] = items[e];
              out_columns[at] = part_begin + w * kPerVector + e;
            }
            ++at;
          }
        }
      }
    }
    done = whole * kPerVector;
  }
  // The rest one value per lane: all of an unaligned part, the tail of an aligned one.
  constexpr int kItems = kFilterItemsPerThread;
  for (std::uint32_t step = done; step < length; step += 32u * kItems) {
    T items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = step + static_cast<std::uint32_t>(j) * 32u + lane;
      items[j] = i < length ? part[i] : T{};
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = step + static_cast<std::uint32_t>(j) * 32u + lane;
      const Bits bits = SelectKey<T>::bits(items[j], largest);
      const bool keep = i < length && bits >= bound;
      if constexpr (kCountBeyond) lane_beyond += i < length && bits > bound ? 1u : 0u;
      const std::uint32_t at = place(keep ? 1u : 0u);
      if (keep && at < cap) {
        out_values[at] = items[j];
        out_columns[at] = part_begin + i;
      }
    }
  }
  if constexpr (kCountBeyond)
    *beyond = __shfl_sync(0xffffffffu, warp_inclusive_sum(lane_beyond), 31);
  return written;
}

/// The sample pass; grid = num_rows x blocks_per_row, launched after the row states are zeroed
/// and before pass 0, only when `arrays.sample.enabled`. Each block finds the row's bound
/// (**sample**, **bound**) and, unless the sample predicts an overflow, filters its span
/// (**filter**): warp w of block b writes to entries `(b x kSampleWarps + w) x warp_cap` on of
/// the row's list 1, its count to the block's counts in the scratch (word w, read by pass 0
/// before it writes its own counts there), and adds it to the row's `fill[1]`; a warp that
/// overflowed, or a block whose sample predicts an overflow, sets `sample_failed`. Pass 0 reads
/// the lists exactly when nothing failed and `fill[1]` reaches k.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm)
    topk_sample_pass_kernel(MultiBlockArrays<T> arrays) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  static_assert(kSampleWarps == kBlockThreads / 32, "every warp of the block filters");
  __shared__ typename TopkStorage<Bits>::Select storage;
  const auto [slot, row_index, block, begin, end] = block_span(arrays);
  const T* row = arrays.values_in + row_index * arrays.row_length;
  RowState* state = arrays.row_states + row_index;
  const std::uint32_t warp = threadIdx.x >> 5;
  std::uint32_t part_begin = 0, part_end = 0;
  warp_part(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), warp, part_begin,
            part_end);
  // The part's bytes travel to the L2 while the draw and the bound wait on their latency.
  if (arrays.prefetch_spans)
    prefetch_to_l2(row + part_begin, std::size_t{part_end - part_begin} * sizeof(T));

  const std::uint32_t at_or_above =
      sample_bound<T>(row, arrays.row_length, arrays.sample, arrays.largest, storage);
  const Bits bound = storage.desired;
  if (bound_predicts_overflow(at_or_above, arrays.sample.samples, arrays.row_length,
                              arrays.list_capacity)) {
    if (threadIdx.x == 0) {
      atomicOr(&state->sample_failed, kSamplePredictsOverflow);
      // For topk_sampled_rows_kernel, which tries the bound as the k-th value (pass 0 does not
      // read `desired`).
      if (block == 0) state->desired = bound;
    }
    // count at the bound: the row's blocks in parallel, so that the one-block finish needs no
    // read of the row to know whether the bound is the k-th value.
    if (arrays.count_at_bound) {
      std::uint32_t beyond = 0, equal = 0;
      block_for_each_value<kBlockThreads, kCountVectorsPerThread>(
          row + begin, static_cast<std::uint32_t>(end - begin), [&](const T& value) {
            const Bits bits = SelectKey<T>::bits(value, arrays.largest);
            beyond += bits > bound ? 1u : 0u;
            equal += bits == bound ? 1u : 0u;
          });
      std::uint32_t beyond_total = 0, equal_total = 0;
      block_exclusive_sum<kBlockThreads>(beyond, storage.scan, beyond_total);
      block_exclusive_sum<kBlockThreads>(equal, storage.scan, equal_total);
      if (threadIdx.x == 0) {
        atomicAdd(&state->fill[0], beyond_total);
        atomicAdd(&state->fill[1], beyond_total + equal_total);
      }
    }
    return;
  }
  // Every block of the row found the same bound; one keeps it for topk_sampled_rows_kernel,
  // which re-reads the parts of overflowed regions (the digit passes do not read it there).
  if (block == 0 && threadIdx.x == 0) state->desired = bound;
  const std::size_t region = row_index * arrays.list_capacity +
                             (block * kSampleWarps + warp) * std::size_t{arrays.sample.warp_cap};
  // With the one-block finish after it, the values strictly beyond the bound are counted too
  // (fill[0]), so that a row whose list overflows can still be gathered at the bound.
  std::uint32_t beyond = 0;
  const std::uint32_t kept =
      arrays.count_at_bound
          ? warp_filter_at_or_above<T, true>(
                row, part_begin, part_end, bound, arrays.largest, arrays.list_values[1] + region,
                arrays.list_columns[1] + region, arrays.sample.warp_cap, &beyond)
          : warp_filter_at_or_above<T>(row, part_begin, part_end, bound, arrays.largest,
                                       arrays.list_values[1] + region,
                                       arrays.list_columns[1] + region, arrays.sample.warp_cap);
  if ((threadIdx.x & 31u) == 0) {
    if (arrays.count_at_bound) atomicAdd(&state->fill[0], beyond);
    arrays.counts[slot * kNumDigits + warp] = kept;
    if (kept > arrays.sample.warp_cap) atomicOr(&state->sample_failed, kSampleRegionOverflowed);
    atomicAdd(&state->fill[1], kept);
  }
}

/// For a row whose sampled list did not work (the sample predicted an overflow: many of its
/// values share the bound, few distinct values; or the row kept more than the list holds): the
/// sample pass's blocks counted the row's values beyond the bound and equal to it
/// (\p beyond_total, \p equal_total). When the bound is the k-th value itself
/// (beyond < k <= beyond + equal, the usual case for such rows), the answers are every value
/// beyond it and the k - beyond lowest columns equal to it: phase **gather** walks the row with
/// that plan, stopping once all are written, and the answers are sorted, in place of
/// radix_select_row()'s digit passes over the row. Returns false, having written nothing, when
/// the bound is not the k-th value. All threads of the block call it.
/// \param arrays the call's arrays
/// \param row_index the block's row
/// \param bound the sample pass's bound (RowState::desired), select bits
/// \param beyond_total values of the row beyond the bound (RowState::fill[0])
/// \param equal_total values of the row equal to it (RowState::fill[1] less fill[0])
/// \param storage the block's shared storage (select scratch and answer sort)
template <typename T, typename Storage>
__device__ __forceinline__ bool gather_at_sampled_bound(
    const TopkArrays<T>& arrays, std::size_t row_index, typename SelectKey<T>::Bits bound,
    std::uint32_t beyond_total, std::uint32_t equal_total, Storage& storage) {
  using Bits = typename SelectKey<T>::Bits;
  const std::uint32_t k = arrays.k;
  if (!bound_is_kth(beyond_total, equal_total, k)) return false;
  // gather
  GatherPlan<Bits> plan;
  plan.kth_bits = bound;
  plan.beyond_wanted = beyond_total;
  plan.equal_wanted = k - beyond_total;
  plan.beyond_first = 0;
  plan.beyond_in_span = beyond_total;  // the whole row is the span
  plan.equal_first = 0;
  plan.equal_in_span = equal_total;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  const ValueSource<T> whole_row{row, nullptr, 0, arrays.row_length};
  T* values_out = arrays.values_out + row_index * k;
  std::int64_t* indices_out = arrays.indices_out + row_index * k;
  gather_span<T, false>(whole_row, arrays.largest, plan, values_out, indices_out,
                        storage.work.select.scan);
  if (!arrays.sorted || k == 1) return true;
  __syncthreads();  // the answers are written before the sort reads them
  sort_answers_for_k<T>(values_out, indices_out, k, arrays.largest, storage.sort);
  return true;
}

/// Most list regions (blocks_per_row x kSampleWarps) of a row that topk_sampled_rows_kernel
/// gathers: one per thread.
inline constexpr std::uint32_t kMaxSampledRegions = kBlockThreads;

/// Dynamic shared memory of topk_sampled_rows_kernel for values of type T and a list of
/// \p kEntries.
template <typename T, std::size_t kEntries>
constexpr std::size_t sampled_rows_shared_bytes() {
  return sizeof(SampledRowsStorage<T, kEntries>);
}

/// After the sample pass, one block per row finishes the row (topk() picks this where
/// sampled_rows_fit_one_block(): the sample leaves each row a list one block's shared memory
/// holds). Phases:
/// - **collect**: the row's list regions, in (block, warp) order and so in column order, into the
///   shared list (an exclusive scan of their counts places them);
/// - **re-read**: a region that overflowed (its count, which is exact, is past its capacity) is
///   filled from its warp's part of the row instead, by one warp against the same bound: rows
///   whose large values crowd into a few parts (a rising row: all of them in the last part)
///   cost a re-read of those parts, not of the row;
/// - **select**, **gather**, **sort**: as one block per row does from its own sample read
///   (select_gather_sort_row()), so no digit pass of several blocks, and no launch per pass, is
///   needed.
/// A row whose sample failed otherwise (it predicted an overflow, so nothing was filtered, or the
/// list holds fewer than k or more than \p kEntries) is gathered at the bound when the bound is
/// the k-th value (gather_at_sampled_bound(): the sample pass counted the row at the bound), and
/// otherwise selected from the whole row by its block: correct, but four reads of the row by one
/// block. Launch num_rows blocks after the sample
/// pass, with `multi` the sample pass's arrays.
template <typename T, std::size_t kEntries>
__global__ void __launch_bounds__(kBlockThreads)
    topk_sampled_rows_kernel(TopkArrays<T> arrays, MultiBlockArrays<T> multi) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Bits = typename SelectKey<T>::Bits;
  // Dynamic: sampled_rows_shared_bytes<T, kEntries>() of them.
  extern __shared__ __align__(16) unsigned char sampled_rows_bytes[];
  auto& storage = *reinterpret_cast<SampledRowsStorage<T, kEntries>*>(sampled_rows_bytes);
  static_assert(kMaxSampledRegions <= kNumDigits, "the regions' offsets use the select's counters");
  // Where each region's entries start in the list, in the select's counters (radix_select_row()
  // zeroes them before its first count), so the kernel needs no more shared memory than one
  // block per row.
  std::uint32_t* region_first = storage.work.select.counts;
  const std::size_t row_index = blockIdx.x;
  RowState* state = multi.row_states + row_index;
  const std::uint32_t regions = multi.blocks_per_row * kSampleWarps;
  const std::uint32_t region = threadIdx.x;
  const std::uint32_t failed = __ldcg(&state->sample_failed);
  // The sample pass wrote each warp's count to word `warp` of its block's counts, unless the
  // sample predicted an overflow: then no block of the row filtered, and the words hold whatever
  // an earlier call left there, so they are not read.
  const bool filtered = (failed & kSamplePredictsOverflow) == 0;
  const std::uint32_t entries =
      filtered && region < regions
          ? __ldcg(&multi.counts[(row_index * multi.blocks_per_row + region / kSampleWarps) *
                                     kNumDigits +
                                 region % kSampleWarps])
          : 0u;
  std::uint32_t total = 0;
  region_first[region] =
      block_exclusive_sum<kBlockThreads>(entries, storage.work.select.scan, total);
  // The host picks this kernel only where the regions fit (one per thread); checked here too,
  // so a wrong pick reads the row instead of past region_first.
  const bool worked = filtered && total >= arrays.k &&
                      total <= static_cast<std::uint32_t>(kEntries) &&
                      regions <= kMaxSampledRegions;
  // The list did not work: with few distinct values the sample predicted an overflow, or the row
  // kept more than the list holds. Try the bound as the k-th value (the sample pass counted the
  // row's values beyond it into fill[0] and at or above it into fill[1]); a bound above the
  // k-th value (fewer than k kept) fails that test.
  if (!worked) {
    const Bits bound = static_cast<Bits>(__ldcg(&state->desired));
    const std::uint32_t beyond = __ldcg(&state->fill[0]);
    if (gather_at_sampled_bound<T>(arrays, row_index, bound, beyond,
                                   __ldcg(&state->fill[1]) - beyond, storage)) {
      if (threadIdx.x == 0) state->listed = kListedAtBound;
      return;
    }
  }
  // For the tests (compare_filter_flags()): 1 when this block selects from the sampled list, 2
  // when it re-read overflowed parts for it, 0 when it reads the row (3: above).
  if (threadIdx.x == 0) state->listed = worked ? (failed == 0 ? 1u : 2u) : 0u;
  __syncthreads();  // region_first is written
  const std::uint32_t cap = multi.sample.warp_cap;
  // Entries of region r (its count: exact even when it overflowed).
  const auto region_entries = [&](std::uint32_t r) {
    return (r + 1 < regions ? region_first[r + 1] : total) - region_first[r];
  };
  if (worked) {
    // collect: kCollectBatch entries per thread, their loads all issued before the first store,
    // so that a thread waits on the memory once per batch, not once per entry (one at a time,
    // the stores waiting on their loads were the finish's largest stall: 12% of its samples at
    // 128 x 128256, k = 2048; Nsight Compute, session 24).
    constexpr std::uint32_t kCollectBatch = 8;
    for (std::uint32_t batch = 0; batch < total; batch += kBlockThreads * kCollectBatch) {
      T got_values[kCollectBatch];
      std::uint32_t got_columns[kCollectBatch];
      bool got[kCollectBatch];
#pragma unroll
      for (std::uint32_t b = 0; b < kCollectBatch; ++b) {
        const std::uint32_t i = batch + b * kBlockThreads + threadIdx.x;
        got[b] = false;
        if (i >= total) continue;
        // The region of entry i: region_first[low] <= i < region_first[low + 1] (or the total),
        // found with region_first[high] > i kept true without reading it at high = regions.
        std::uint32_t low = 0, high = regions;
        while (high - low > 1) {
          const std::uint32_t middle = (low + high) / 2;
          if (region_first[middle] <= i)
            low = middle;
          else
            high = middle;
        }
        if (region_entries(low) > cap) continue;  // re-read below
        const std::size_t from =
            row_index * multi.list_capacity + std::size_t{low} * cap + (i - region_first[low]);
        got_values[b] = multi.list_values[1][from];
        got_columns[b] = multi.list_columns[1][from];
        got[b] = true;
      }
#pragma unroll
      for (std::uint32_t b = 0; b < kCollectBatch; ++b) {
        const std::uint32_t i = batch + b * kBlockThreads + threadIdx.x;
        if (!got[b]) continue;
        storage.work.list.values()[i] = got_values[b];
        storage.work.list.columns[i] = got_columns[b];
      }
    }
    // re-read
    if (failed != 0) {
      const T* row = arrays.values_in + row_index * arrays.row_length;
      const Bits bound = static_cast<Bits>(__ldcg(&state->desired));
      for (std::uint32_t r = threadIdx.x >> 5; r < regions; r += kBlockThreads / 32) {
        const std::uint32_t count = region_entries(r);
        if (count <= cap) continue;
        const std::uint32_t begin = (r / kSampleWarps) * multi.values_per_block;
        std::uint32_t part_begin = 0, part_end = 0;
        warp_part(begin, static_cast<std::uint32_t>(span_end(begin, multi)), r % kSampleWarps,
                  part_begin, part_end);
        warp_filter_at_or_above<T>(row, part_begin, part_end, bound, arrays.largest,
                                   storage.work.list.values() + region_first[r],
                                   storage.work.list.columns + region_first[r], count);
      }
    }
  }
  __syncthreads();  // the list is written before radix_select_row() reads it
  select_gather_sort_row<T>(arrays, row_index, worked ? total : ~0u, storage);
}

}  // namespace sortlab::stage07
