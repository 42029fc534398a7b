/// \file
/// \brief Stage 07 host launcher: check the arguments (all before the first CUDA call, so a
/// rejected call changes nothing), answer the size query, pick the schedule, launch it. The
/// schedule rule and the scratch plan are pure host arithmetic (CPU-tested). Explicit
/// instantiations for f32, u32, i32, f64, i64, f16 and bf16 values.
///
/// Status: all four schedules and the small-k reductions pass the stage07 GPU suite and
/// compute-sanitizer on sm_90 (H100, 2026-11-28, session 18).
#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "chapters/07_topk/argmax_rows.cuh"
#include "chapters/07_topk/cluster_rows.cuh"
#include "chapters/07_topk/queue_rows.cuh"
#include "chapters/07_topk/sample_pass.cuh"
#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_kernels.cuh"
#include "common/device_properties.hpp"
#include "common/errors.hpp"
#include "common/memory_ranges.hpp"
#include "common/scratch_layout.hpp"
#include "common/sort_options.hpp"

namespace sortlab::stage07 {

namespace {

/// The int32-index variant's last step: narrows \p count int64 column indices to int32 (they are
/// below 2^31); a grid-stride loop.
__global__ void __launch_bounds__(kBlockThreads)
    narrow_indices_kernel(const std::int64_t* wide, std::int32_t* narrow, std::size_t count) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  const std::size_t stride = std::size_t{gridDim.x} * kBlockThreads;
  for (std::size_t i = std::size_t{blockIdx.x} * kBlockThreads + threadIdx.x; i < count;
       i += stride)
    narrow[i] = static_cast<std::int32_t>(wide[i]);
}

/// What the calling thread's last topk() launched (last_topk_path()).
thread_local TopkPath last_path = TopkPath::kNone;

/// ceil(a / b) for b > 0.
std::size_t divide_up(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

/// The SMs behind a multi_block_target() (kBlocksPerSm per SM), at least 1.
std::size_t multiprocessors_of(std::size_t target_blocks) {
  return divide_up(std::max<std::size_t>(target_blocks, 1), kBlocksPerSm);
}

/// Blocks of the cluster kernel with spans of \p span values an SM holds at once by the model:
/// by their shared memory (the span and list or counters, and the static storage of 8-byte
/// values, the largest) and by the kernel's register bound; at least 1.
std::size_t model_blocks_per_sm(std::size_t span, std::size_t value_bytes) {
  const std::size_t block_bytes = cluster_shared_bytes(span, value_bytes) +
                                  cluster_static_bytes<std::uint64_t>() +
                                  kSharedMemoryReservedPerBlock;
  const auto by_registers = static_cast<std::size_t>(cluster_min_blocks_per_sm(value_bytes));
  return std::max<std::size_t>(std::min(kSharedMemoryPerSm / block_bytes, by_registers), 1);
}

/// The split of a row of \p row_length values into spans of \p span values (at most the row,
/// rounded up to whole chunks of kBlockThreads, so every block but a row's last reads whole
/// chunks, and the span fits the kernels' 32-bit arithmetic).
RowSplit split_by_span(std::size_t row_length, std::size_t span) {
  RowSplit split;
  split.several_blocks = true;
  span = std::clamp<std::size_t>(span, 1, std::max<std::size_t>(row_length, 1));
  split.values_per_block = divide_up(span, kBlockThreads) * kBlockThreads;
  split.blocks_per_row = std::max<std::size_t>(divide_up(row_length, split.values_per_block), 1);
  return split;
}

}  // namespace

std::size_t multi_block_target(std::size_t multiprocessors) {
  return std::clamp<std::size_t>(kBlocksPerSm * multiprocessors, 1, kMaxTargetBlocks);
}

bool cluster_schedule_built() {
  return kClusterKernelBuilt;
}

RowSplit cluster_split(std::size_t num_rows, std::size_t row_length, std::size_t value_bytes,
                       std::size_t requested_blocks, std::size_t target_blocks) {
  RowSplit split;
  if (num_rows == 0 || row_length == 0 || value_bytes == 0) return split;
  constexpr std::size_t kSpanRounding = 64;  // values: 16-byte spans for values of 1 to 8 bytes
  const std::size_t max_span = kMaxClusterSpanBytes / value_bytes / kSpanRounding * kSpanRounding;
  const std::size_t fewest = divide_up(row_length, max_span);
  if (fewest > kMaxClusterBlocks) return split;  // no cluster holds the row
  std::size_t blocks = requested_blocks;
  if (blocks == 0)
    blocks = std::min(kPortableClusterBlocks,
                      divide_up(std::max<std::size_t>(target_blocks, 1), num_rows));
  blocks = std::clamp(blocks, fewest, kMaxClusterBlocks);
  split.cluster_per_row = true;
  split.blocks_per_row = blocks;
  split.values_per_block = divide_up(divide_up(row_length, blocks), kSpanRounding) * kSpanRounding;
  return split;
}

RowSplit select_schedule(std::size_t num_rows, std::size_t row_length, const TopkOptions& options,
                         std::size_t target_blocks) {
  RowSplit one;  // one block per row: the span is the row
  one.values_per_block = row_length;
  // A forced cluster schedule needs no scratch: topk() launches it before looking at the split.
  if (options.schedule == TopkSchedule::kOneBlockPerRow ||
      options.schedule == TopkSchedule::kClusterPerRow || num_rows == 0 || row_length == 0)
    return one;
  RowSplit per_warp = one;
  per_warp.warp_per_row = true;
  if (options.schedule == TopkSchedule::kWarpPerRow) return per_warp;
  // What the rule does when it picks one block per row: one warp when the row is short enough.
  const RowSplit one_by_rule = row_length <= kMaxWarpRowLength ? per_warp : one;
  const bool forced = options.schedule == TopkSchedule::kBlocksPerRow;
  if (options.values_per_block != 0) {
    const RowSplit split = split_by_span(row_length, options.values_per_block);
    // The rule still decides whether to split when only the span is given.
    if (forced || (split.blocks_per_row >= 2 && 2 * num_rows < target_blocks)) return split;
    return one_by_rule;
  }
  const std::size_t by_length = divide_up(row_length, kMinValuesPerBlock);
  // Rounded down: the blocks of every row in one wave of target_blocks. Rounding up left a partial
  // second wave that cost a whole one (H100, 2026-11-28: 128 x 128256, k = 50, 5 blocks per row
  // 0.136 ms, 4 blocks 0.105; 64 x 2^20, k = 64, 9 blocks 0.242, 8 blocks 0.176).
  const std::size_t by_grid = std::max<std::size_t>(target_blocks, 1) / num_rows;
  const std::size_t blocks = std::max<std::size_t>(std::min(by_length, by_grid), 1);
  // Enough rows to give every SM two blocks already, or too short a row for two spans.
  if (!forced && (blocks < 2 || 2 * num_rows >= target_blocks)) return one_by_rule;
  return split_by_span(row_length, divide_up(row_length, blocks));
}

namespace {

/// The longest span the rule gives a block of a cluster when rows are many:
/// kClusterRuleMaxSpanValues values, or as many bytes of 2-byte values in rows that clusters of
/// kPortableClusterBlocks hold in such spans (the rows the measurements covered).
std::size_t cluster_rule_max_span(std::size_t value_bytes, std::size_t row_length) {
  const bool measured_bytes =
      value_bytes == 2 && row_length <= kPortableClusterBlocks * kClusterRuleMaxSpanValues;
  return measured_bytes ? 2 * kClusterRuleMaxSpanValues : kClusterRuleMaxSpanValues;
}

/// The rule's cluster size by load (resolve_schedule(), kClusterLoadCostTenths): of the even
/// sizes up to kPortableClusterBlocks, and kMaxClusterBlocks where a row's spans in
/// kPortableClusterBlocks would pass kClusterRuleMaxValuesPerBlock and its own do not, that hold
/// the row in spans of at most \p max_span values and hold the batch at a load of at most
/// kClusterRuleMaxLoad, the one whose span costs least at its load (the smaller on a tie); 0 when
/// none does.
std::size_t cluster_blocks_by_load(std::size_t num_rows, std::size_t row_length,
                                   std::size_t value_bytes, std::size_t max_span,
                                   std::size_t target_blocks, ResidentClusters resident) {
  // 16 blocks only for long rows: on short ones their fixed costs (16 blocks' barriers and
  // remote loads) lose to 8 even where the load favours them (12 x 32000: 17% slower in 16).
  const bool long_rows =
      divide_up(row_length, kPortableClusterBlocks) > kClusterRuleMaxValuesPerBlock;
  std::size_t best_blocks = 0, best_cost = std::numeric_limits<std::size_t>::max();
  for (std::size_t blocks = 2; blocks <= kMaxClusterBlocks; blocks += 2) {
    if (blocks > kPortableClusterBlocks && (blocks != kMaxClusterBlocks || !long_rows)) continue;
    const RowSplit split = cluster_split(num_rows, row_length, value_bytes, blocks, target_blocks);
    // cluster_split() raises a size to the fewest blocks that hold the row: not this size.
    // 16 blocks only with spans no longer than a few rows' (1 x 200000 f32 in 16 blocks of 12544
    // was slower than several blocks per row).
    const std::size_t longest = blocks > kPortableClusterBlocks
                                    ? std::min(max_span, kClusterRuleMaxValuesPerBlock)
                                    : max_span;
    if (!split.cluster_per_row || split.blocks_per_row != blocks ||
        split.values_per_block > longest)
      continue;
    const std::size_t load = cluster_load(split, num_rows, value_bytes, target_blocks, resident);
    if (load == 0) continue;
    std::size_t cost = split.values_per_block * kClusterLoadCostTenths[load - 1];
    if (blocks > kPortableClusterBlocks) cost = cost * kWideClusterCostPercent / 100;
    if (cost < best_cost) {
      best_cost = cost;
      best_blocks = blocks;
    }
  }
  return best_blocks;
}

}  // namespace

RowSplit resolve_schedule(std::size_t num_rows, std::size_t row_length, std::size_t value_bytes,
                          const TopkOptions& options, std::size_t target_blocks,
                          ResidentClusters resident) {
  const RowSplit split = select_schedule(num_rows, row_length, options, target_blocks);
  const bool cluster_wanted = options.schedule == TopkSchedule::kClusterPerRow ||
                              (options.schedule == TopkSchedule::kAuto &&
                               options.values_per_block == 0 && split.several_blocks);
  if (!cluster_wanted || !cluster_schedule_built()) return split;
  RowSplit cluster =
      cluster_split(num_rows, row_length, value_bytes, options.cluster_blocks, target_blocks);
  if (options.schedule == TopkSchedule::kClusterPerRow)
    return cluster.cluster_per_row ? cluster : split;
  // The rule's size (topk.hpp): the size whose spans cost least at the load the batch puts on the
  // SMs (cluster_blocks_by_load()). A few rows: so few that clusters of kPortableClusterBlocks
  // leave SMs idle; their spans must stay within kClusterRuleMaxValuesPerBlock (what the rule
  // keeps for them below).
  const std::size_t by_grid = divide_up(multiprocessors_of(target_blocks), num_rows);
  const bool few_rows = by_grid > kPortableClusterBlocks;
  const std::size_t max_span =
      few_rows ? kClusterRuleMaxValuesPerBlock : cluster_rule_max_span(value_bytes, row_length);
  if (options.cluster_blocks == 0) {
    std::size_t blocks = cluster_blocks_by_load(num_rows, row_length, value_bytes, max_span,
                                                target_blocks, resident);
    if (blocks != 0) {
      cluster = cluster_split(num_rows, row_length, value_bytes, blocks, target_blocks);
    } else {
      // No size holds the batch within kClusterRuleMaxLoad blocks per SM, none keeps its spans
      // within max_span, or a row needs more blocks than kPortableClusterBlocks: the grid's size,
      // or spans of kClusterRuleSpanValues.
      const std::size_t by_span = divide_up(row_length, kClusterRuleSpanValues);
      // At least 2: a cluster of one block was never measured against several blocks per row.
      blocks = std::min(std::max({by_grid, by_span, std::size_t{2}}), kPortableClusterBlocks);
      cluster = cluster_split(num_rows, row_length, value_bytes, blocks, target_blocks);
      // A few rows may spread over the largest cluster to bring their spans down.
      if (cluster.cluster_per_row && cluster.values_per_block > kClusterRuleMaxValuesPerBlock) {
        const RowSplit widest =
            cluster_split(num_rows, row_length, value_bytes, kMaxClusterBlocks, target_blocks);
        // Many rows with such spans: the largest cluster only where its blocks (shorter, more
        // to an SM) take fewer waves (H200, session 30, k = 2048: f32 32 x 151936 0.066 ms in
        // 16 blocks against 0.086 in 8).
        const bool fewer_waves =
            widest.cluster_per_row &&
            cluster_waves(widest, num_rows, value_bytes, target_blocks, resident) <
                cluster_waves(cluster, num_rows, value_bytes, target_blocks, resident);
        if (few_rows || fewer_waves) cluster = widest;
      }
    }
  }
  // A few rows take one wave; their spans decide (kClusterRuleMaxValuesPerBlock). Many rows:
  // the waves, and spans no longer than measured (max_span: kClusterRuleMaxSpanValues, twice that
  // for 2-byte values in rows that cluster_rule_max_span() names). Never a cluster the device
  // cannot hold at all (no waves count it).
  if (!cluster.cluster_per_row) return split;
  const std::size_t waves = cluster_waves(cluster, num_rows, value_bytes, target_blocks, resident);
  const bool kept = waves != std::numeric_limits<std::size_t>::max() &&
                    cluster.values_per_block <= max_span &&
                    (few_rows || waves <= kClusterRuleMaxWaves);
  return kept ? cluster : split;
}

RowSplit sampled_batch_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                             const TopkOptions& options, std::size_t target_blocks) {
  const RowSplit keep;  // several_blocks false: resolve_schedule() decides
  if (options.schedule != TopkSchedule::kAuto || options.values_per_block != 0 ||
      options.cluster_blocks != 0 || options.sample == TopkSample::kOff ||
      num_rows < kSampledBatchMinRows / 4 || row_length < kSampledBatchMinLength)
    return keep;
  const RowSplit split = select_schedule(num_rows, row_length, options, target_blocks);
  if (!split.several_blocks) return keep;
  // topk_sampled_rows_kernel gathers one list region per thread: kSampleWarps per block.
  constexpr std::size_t kMaxBlocks = kMaxSampledRegions / kSampleWarps;
  const RowSplit capped = split.blocks_per_row <= kMaxBlocks
                              ? split
                              : split_by_span(row_length, divide_up(row_length, kMaxBlocks));
  // The thresholds below were measured with a shared list of kOneBlockListEntries (session 20);
  // topk() may then finish rows in one block where kSampledListEntries fits (more k). The last
  // one, for shorter rows, with kSampledListEntries (session 24).
  const SamplePlan plan = sample_plan(row_length, k, capped.blocks_per_row,
                                      list_capacity_for(row_length), /*enabled=*/true);
  const bool fits = sampled_rows_fit_one_block(plan, row_length, capped.blocks_per_row,
                                               kOneBlockListEntries, kMaxSampledRegions);
  const bool long_rows = row_length >= 2 * kSampledBatchMinLength;
  // Fewer rows of up to kSampledBatchClusterMaxLength values: the cluster rule, in a build that
  // has the cluster kernel (without it the sample pass stays, as measured before).
  const bool cluster_rows = cluster_schedule_built() && num_rows <= kSampledBatchClusterMaxRows &&
                            row_length <= kSampledBatchClusterMaxLength;
  if (fits && (num_rows >= kSampledBatchMinRows || (long_rows && !cluster_rows))) return capped;
  // Many shorter rows whose lists only the large list holds (k = 1024, 2048 of 32000): streamed
  // by the sample pass rather than held in the two waves of clusters they would need.
  if (!long_rows && num_rows >= kSampledBatchLargeListMinRows &&
      sampled_rows_fit_one_block(plan, row_length, capped.blocks_per_row, kSampledListEntries,
                                 kMaxSampledRegions))
    return capped;
  if (!fits && num_rows >= kSampledBatchMinRows && long_rows) return split;
  return keep;
}

std::size_t sampled_rows_list_entries(const SamplePlan& plan, std::size_t row_length,
                                      std::size_t blocks_per_row, std::size_t value_bytes,
                                      std::size_t optin_bytes) {
  static_assert(kMaxSampledRegions == kBlockThreads, "one region per thread");
  const auto fits = [&](std::size_t entries) {
    return sampled_rows_fit_one_block(plan, row_length, blocks_per_row, entries,
                                      kMaxSampledRegions);
  };
  if (row_length > kSampledOneBlockMaxLength || !fits(kSampledListEntries)) return 0;
  if (fits(kOneBlockListEntries)) return kOneBlockListEntries;
  // The large list's bytes for this value size (the types of that size have the same storage).
  const std::size_t large_bytes =
      value_bytes == 2   ? sampled_rows_shared_bytes<__half, kSampledListEntries>()
      : value_bytes == 4 ? sampled_rows_shared_bytes<float, kSampledListEntries>()
                         : sampled_rows_shared_bytes<double, kSampledListEntries>();
  return large_bytes <= optin_bytes ? kSampledListEntries : 0;
}

std::size_t sampled_finish_list_entries(const SamplePlan& plan, std::size_t num_rows,
                                        std::size_t row_length, std::size_t blocks_per_row,
                                        std::size_t value_bytes, const TopkOptions& options,
                                        std::size_t optin_bytes) {
  if (options.schedule != TopkSchedule::kAuto) return 0;
  const std::size_t entries =
      sampled_rows_list_entries(plan, row_length, blocks_per_row, value_bytes, optin_bytes);
  const bool rule_split = options.values_per_block == 0;
  if (entries == kSampledListEntries && rule_split && value_bytes == 2 &&
      num_rows < kSampledLargeListMinRows16)
    return 0;
  return entries;
}

SamplePlan cluster_sample_plan(std::size_t num_rows, std::size_t row_length, std::size_t k,
                               std::size_t cluster_blocks, const TopkOptions& options) {
  const bool wanted = options.sample == TopkSample::kOn ||
                      (options.sample == TopkSample::kAuto && num_rows <= kSampledClusterMaxRows);
  return sample_plan(row_length, k, cluster_blocks, kOneBlockListEntries, wanted);
}

RowSplit topk_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                    std::size_t value_bytes, const TopkOptions& options, std::size_t target_blocks,
                    ResidentClusters resident) {
  const RowSplit batch = sampled_batch_split(num_rows, row_length, k, options, target_blocks);
  return batch.several_blocks ? batch
                              : resolve_schedule(num_rows, row_length, value_bytes, options,
                                                 target_blocks, resident);
}

// The answer sort's bytes at the tiles' edges (cluster_sort_bytes() picks the tile that
// sort_answers_for_k() runs).
static_assert(cluster_sort_bytes<std::uint32_t>(1, true) == 0 &&
              cluster_sort_bytes<std::uint32_t>(2048, false) == 0);
static_assert(cluster_sort_bytes<std::uint32_t>(256, true) ==
              sizeof(FewAnswersStorage<std::uint32_t>));
static_assert(cluster_sort_bytes<std::uint32_t>(257, true) ==
                  sizeof(AnswerSort<std::uint32_t, 1>::TempStorage) &&
              cluster_sort_bytes<std::uint32_t>(1024, true) ==
                  sizeof(AnswerSort<std::uint32_t, 1>::TempStorage));
static_assert(cluster_sort_bytes<std::uint64_t>(1025, true) ==
              sizeof(AnswerSort<std::uint64_t, 2>::TempStorage));

std::size_t clusters_at_load(const RowSplit& split, std::size_t load, std::size_t value_bytes,
                             std::size_t target_blocks, ResidentClusters resident) {
  const std::size_t split_bytes = cluster_shared_bytes(split.values_per_block, value_bytes);
  if (resident != nullptr) {
    // Bytes that leave room for `load` blocks on an SM and no more: one block of the largest
    // span (cluster_max_launch_bytes() takes it), or halfway between what load and load + 1
    // blocks may each have.
    const std::size_t load_bytes =
        load <= 1 ? cluster_shared_bytes(kMaxClusterSpanBytes / value_bytes, value_bytes)
                  : (kSharedMemoryPerSm / load + kSharedMemoryPerSm / (load + 1)) / 2 -
                        cluster_static_bytes<std::uint64_t>() - kSharedMemoryReservedPerBlock;
    return resident(split.blocks_per_row, std::max(split_bytes, load_bytes), value_bytes);
  }
  const std::size_t per_sm = std::min(std::max<std::size_t>(load, 1),
                                      model_blocks_per_sm(split.values_per_block, value_bytes));
  return per_sm * multiprocessors_of(target_blocks) /
         std::max<std::size_t>(split.blocks_per_row, 1);
}

std::size_t cluster_load(const RowSplit& split, std::size_t num_rows, std::size_t value_bytes,
                         std::size_t target_blocks, ResidentClusters resident) {
  for (std::size_t load = 1; load <= kClusterRuleMaxLoad; ++load)
    if (num_rows <= clusters_at_load(split, load, value_bytes, target_blocks, resident))
      return load;
  return 0;
}

std::size_t cluster_waves(const RowSplit& split, std::size_t num_rows, std::size_t value_bytes,
                          std::size_t target_blocks, ResidentClusters resident) {
  if (resident != nullptr) {
    const std::size_t at_once =
        resident(split.blocks_per_row, cluster_shared_bytes(split.values_per_block, value_bytes),
                 value_bytes);
    return at_once > 0 ? divide_up(num_rows, at_once) : std::numeric_limits<std::size_t>::max();
  }
  return divide_up(
      num_rows * split.blocks_per_row,
      model_blocks_per_sm(split.values_per_block, value_bytes) * multiprocessors_of(target_blocks));
}

namespace {

// Clusters of the plain cluster kernel for values of type T the current device holds at once.
// The attributes its launches set come first: the occupancy query counts with them.
template <typename T>
std::size_t resident_clusters_of(std::size_t cluster_blocks, std::size_t dynamic_bytes) {
  constexpr auto kKernel = topk_cluster_rows_kernel<T, false>;
  allow_dynamic_shared_memory<kKernel, cluster_max_launch_bytes<T>()>();
  if (cluster_blocks > kPortableClusterBlocks) allow_non_portable_clusters<kKernel>();
  cudaLaunchAttribute cluster_shape{};
  cluster_shape.id = cudaLaunchAttributeClusterDimension;
  cluster_shape.val.clusterDim.x = static_cast<unsigned>(cluster_blocks);
  cluster_shape.val.clusterDim.y = 1;
  cluster_shape.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(cluster_blocks), 1, 1);
  config.blockDim = dim3(kBlockThreads, 1, 1);
  config.dynamicSmemBytes = dynamic_bytes;
  config.attrs = &cluster_shape;
  config.numAttrs = 1;
  int clusters = 0;
  const cudaError_t status = cudaOccupancyMaxActiveClusters(&clusters, kKernel, &config);
  // A shape this device cannot run (a cluster size it does not support, too many bytes): none
  // resident, so the rule does not pick it. Anything else is a real error.
  if (status == cudaErrorInvalidValue || status == cudaErrorInvalidClusterSize) {
    static_cast<void>(cudaGetLastError());  // clear it: the call is not to fail for it
    return 0;
  }
  SORTLAB_CUDA_CHECK(status);
  return static_cast<std::size_t>(std::max(clusters, 0));
}

// resident_clusters_of<T>() asked once per device, size and bytes (one cache per value type):
// topk() asks on every call that may take a cluster, and the answer never changes.
template <typename T>
std::size_t cached_resident_clusters(std::size_t cluster_blocks, std::size_t dynamic_bytes) {
  require(dynamic_bytes <= cluster_max_launch_bytes<T>(), [&] {
    return "device_resident_clusters: " + std::to_string(dynamic_bytes) +
           " bytes of dynamic shared memory per block; the cluster kernel takes at most " +
           std::to_string(cluster_max_launch_bytes<T>()) + " for " + std::to_string(sizeof(T)) +
           "-byte values";
  });
  if (!cluster_schedule_built()) return 0;
  static std::mutex cache_mutex;
  static std::map<std::tuple<int, std::size_t, std::size_t>, std::size_t> cache;
  int device = 0;
  SORTLAB_CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(device, cluster_blocks, dynamic_bytes);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    const auto found = cache.find(key);
    if (found != cache.end()) return found->second;
  }
  const std::size_t clusters = resident_clusters_of<T>(cluster_blocks, dynamic_bytes);
  const std::lock_guard<std::mutex> lock(cache_mutex);
  cache.emplace(key, clusters);
  return clusters;
}

}  // namespace

std::size_t device_resident_clusters(std::size_t cluster_blocks, std::size_t dynamic_bytes,
                                     std::size_t value_bytes) {
  require(cluster_blocks >= 1 && cluster_blocks <= kMaxClusterBlocks &&
              (value_bytes == 2 || value_bytes == 4 || value_bytes == 8),
          [&] {
            return "device_resident_clusters: clusters of " + std::to_string(cluster_blocks) +
                   " blocks of " + std::to_string(value_bytes) +
                   "-byte values (1 to 16 blocks of 2, 4 or 8 bytes)";
          });
  return value_bytes == 2   ? cached_resident_clusters<__half>(cluster_blocks, dynamic_bytes)
         : value_bytes == 4 ? cached_resident_clusters<float>(cluster_blocks, dynamic_bytes)
                            : cached_resident_clusters<double>(cluster_blocks, dynamic_bytes);
}

namespace {

/// The split of the small-k reductions (argmax_split(), queue_split()): the same for every k
/// they take.
ArgmaxSplit reduction_split(std::size_t num_rows, std::size_t row_length,
                            const TopkOptions& options, std::size_t multiprocessors) {
  ArgmaxSplit split;
  if (num_rows == 0 || row_length == 0 || options.schedule != TopkSchedule::kAuto ||
      options.values_per_block != 0 || options.cluster_blocks != 0)
    return split;
  split.used = true;
  if (row_length <= kMaxWarpRowLength) {
    split.warp_per_row = true;
    return split;
  }
  const std::size_t by_grid = divide_up(2 * std::max<std::size_t>(multiprocessors, 1), num_rows);
  const std::size_t by_length = divide_up(row_length, kArgmaxMinValuesPerBlock);
  std::size_t blocks = std::min({by_grid, by_length, kMaxClusterBlocks});
  if (!cluster_schedule_built()) blocks = 1;
  blocks = std::max<std::size_t>(blocks, 1);
  constexpr std::size_t kSpanRounding = 64;
  split.blocks_per_row = blocks;
  split.values_per_block = divide_up(divide_up(row_length, blocks), kSpanRounding) * kSpanRounding;
  if (num_rows * blocks < multiprocessors && split.values_per_block > kArgmaxMaxIdleSpanValues)
    split = ArgmaxSplit{};  // a few long rows: the radix schedules use the whole GPU
  return split;
}

}  // namespace

ArgmaxSplit argmax_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                         const TopkOptions& options, std::size_t multiprocessors) {
  if (k != 1) return ArgmaxSplit{};
  return reduction_split(num_rows, row_length, options, multiprocessors);
}

TopkPath last_topk_path() {
  return last_path;
}

ArgmaxSplit queue_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                        const TopkOptions& options, std::size_t multiprocessors) {
  if (k < 2 || k > kMaxQueueK) return ArgmaxSplit{};
  ArgmaxSplit split = reduction_split(num_rows, row_length, options, multiprocessors);
  const std::size_t rows_per_sm = row_length <= kQueueWarpShortRowLength
                                      ? kQueueWarpMinRowsPerSm
                                      : kQueueWarpLongRowMinRowsPerSm;
  if (split.used && !split.warp_per_row && row_length <= kQueueWarpMaxRowLength &&
      num_rows >= rows_per_sm * std::max<std::size_t>(multiprocessors, 1)) {
    split = ArgmaxSplit{};  // many rows: one warp each (kQueueWarpMaxRowLength)
    split.used = true;
    split.warp_per_row = true;
  }
  return split;
}

ScratchPlan plan_scratch(std::size_t num_rows, std::size_t row_length, std::size_t k,
                         std::size_t value_bytes, const TopkOptions& options) {
  (void)k;  // the split depends on the shape only
  ScratchPlan plan;
  // Planned for the largest grid the rule ever aims for: the run on any GPU splits into at most
  // as many blocks (select_schedule() is monotone in its target), and no CUDA call is needed.
  plan.split = select_schedule(num_rows, row_length, options, kMaxTargetBlocks);
  if (!plan.split.several_blocks) return plan;  // everything on chip
  const std::size_t blocks = num_rows * plan.split.blocks_per_row;
  plan.counts = plan.layout.add<std::uint32_t>(blocks * kNumDigits);
  plan.tallies = plan.layout.add<BlockTally>(blocks);
  plan.row_states = plan.layout.add<RowState>(num_rows);
  // The candidate lists: a fixed fraction of each row (list_capacity_for()), so the plan needs
  // neither k nor the data; a pass whose entries do not fit reads the row instead (decided on the
  // GPU, per pass).
  plan.list_capacity = list_capacity_for(row_length);
  const std::size_t entries = num_rows * plan.list_capacity;
  for (int list = 0; list < 2; ++list) {
    plan.list_values[list] = plan.layout.add<unsigned char>(entries * value_bytes);
    plan.list_columns[list] = plan.layout.add<std::uint32_t>(entries);
  }
  return plan;
}

// One cluster per row (cluster_rows.cuh), the plain or the sampled instantiation (its dynamic
// shared memory and cluster size allowed first: once per device).
template <typename T, bool kSampled>
void launch_cluster_rows(unsigned grid, std::size_t cluster_blocks, std::size_t shared_bytes,
                         cudaStream_t stream, const TopkArrays<T>& arrays, std::uint32_t span) {
  allow_dynamic_shared_memory<topk_cluster_rows_kernel<T, kSampled>,
                              cluster_max_launch_bytes<T>()>();
  if (cluster_blocks > kPortableClusterBlocks)
    allow_non_portable_clusters<topk_cluster_rows_kernel<T, kSampled>>();
  launch_chained_in_clusters(topk_cluster_rows_kernel<T, kSampled>, grid, kBlockThreads,
                             shared_bytes, static_cast<unsigned>(cluster_blocks), stream, arrays,
                             span);
}

/// Launches topk_sampled_rows_kernel with a list of \p kEntries, one block per row, chained to
/// the sample pass and spread over the SMs (spread_shared_bytes()).
template <typename T, std::size_t kEntries>
void launch_sampled_rows(std::size_t num_rows, cudaStream_t stream, const TopkArrays<T>& arrays,
                         const MultiBlockArrays<T>& multi) {
  constexpr auto kKernel = topk_sampled_rows_kernel<T, kEntries>;
  constexpr std::size_t kSharedBytes = sampled_rows_shared_bytes<T, kEntries>();
  // Chained, the blocks are placed while the sample pass runs, on whichever SMs its blocks
  // leave first, up to three to an SM (by shared memory and registers) while later SMs get
  // none. Asking for more shared memory than the list needs keeps them at most ceil(rows /
  // SMs) to an SM (session 25 on an H200: 64 x 128256 f32 k = 2048 0.081 -> 0.064 ms; a plain
  // launch spread them too but lost the chaining: 2-7% slower at k = 50).
  const SharedMemoryLimits limits = shared_memory_limits<kKernel>();
  const std::size_t launch_bytes =
      spread_shared_bytes(kSharedBytes, num_rows, multiprocessor_count(), limits);
  allow_dynamic_shared_memory_up_to<kKernel>(launch_bytes, limits);
  launch_chained(kKernel, static_cast<unsigned>(num_rows), kBlockThreads, launch_bytes, stream,
                 arrays, multi);
}

template <typename T>
void topk(void* temp_storage, std::size_t& temp_storage_bytes, const T* values_in,
          std::size_t num_rows, std::size_t row_length, std::size_t k, T* values_out,
          std::int64_t* indices_out, const TopkOptions& options, cudaStream_t stream) {
  last_path = TopkPath::kNone;  // until a launch below says otherwise
  // Shape checks hold for the size query too: a query for an impossible call is an error, not a
  // size.
  require(row_length <= kMaxRowLength, [&] {
    return "topk: row_length = " + std::to_string(row_length) + " exceeds the maximum of " +
           std::to_string(kMaxRowLength);
  });
  require(num_rows <= kMaxRows, [&] {
    return "topk: num_rows = " + std::to_string(num_rows) + " exceeds the maximum of " +
           std::to_string(kMaxRows) + " (one block per row)";
  });
  // Both limits are 2^31 - 1, so rows x length could reach 2^62: bounded here, the byte sizes
  // of the arrays below cannot wrap.
  require(num_rows == 0 || row_length <= (std::size_t{1} << 40) / num_rows, [&] {
    return "topk: num_rows x row_length = " + std::to_string(num_rows) + " x " +
           std::to_string(row_length) + " is more than 2^40 values";
  });
  require(k <= row_length, [&] {
    return "topk: k = " + std::to_string(k) +
           " is larger than row_length = " + std::to_string(row_length);
  });
  require(!options.sorted || k <= kMaxSortedK, [&] {
    return "topk: sorted output supports k <= " + std::to_string(kMaxSortedK) +
           " (one tile of the block sort), got k = " + std::to_string(k) +
           "; ask for sorted = false and sort the k results separately";
  });
  require(options.schedule != TopkSchedule::kWarpPerRow || row_length <= kMaxWarpRowLength, [&] {
    return "topk: the one-warp-per-row schedule takes rows of at most " +
           std::to_string(kMaxWarpRowLength) +
           " values, got row_length = " + std::to_string(row_length);
  });
  const bool cluster_forced = options.schedule == TopkSchedule::kClusterPerRow;
  require(!cluster_forced || cluster_schedule_built(),
          "topk: the cluster-per-row schedule needs a build whose every CUDA architecture is sm_90 "
          "or newer (SORTLAB_CUDA_ARCHITECTURES)");
  require(options.cluster_blocks <= kMaxClusterBlocks, [&] {
    return "topk: cluster_blocks = " + std::to_string(options.cluster_blocks) +
           " exceeds the largest cluster, " + std::to_string(kMaxClusterBlocks) + " blocks";
  });
  // A forced cluster schedule must hold the row and fit one grid, checked before the size query
  // (a query must not answer for a call that would throw). Whether a cluster holds the row depends
  // on the row alone, and its blocks per row only grow with the grid target, so the split for the
  // largest target bounds the one for this GPU.
  if (cluster_forced && num_rows != 0 && row_length != 0) {
    const RowSplit largest =
        cluster_split(num_rows, row_length, sizeof(T), options.cluster_blocks, kMaxTargetBlocks);
    require(largest.cluster_per_row, [&] {
      return "topk: a row of " + std::to_string(row_length) + " values of " +
             std::to_string(sizeof(T)) + " bytes is longer than one cluster holds (" +
             std::to_string(kMaxClusterBlocks) + " blocks of " +
             std::to_string(kMaxClusterSpanBytes) + " bytes)";
    });
    require(num_rows * largest.blocks_per_row <= kMaxRows, [&] {
      return "topk: " + std::to_string(num_rows) +
             " rows of one cluster each are more blocks than one grid holds";
    });
  }
  const ScratchPlan plan = plan_scratch(num_rows, row_length, k, sizeof(T), options);
  require(num_rows * plan.split.blocks_per_row <= kMaxRows, [&] {
    return "topk: " + std::to_string(num_rows) + " rows x " +
           std::to_string(plan.split.blocks_per_row) +
           " blocks per row is more blocks than one grid holds";
  });
  const std::size_t need = plan.bytes();
  if (answer_size_query(temp_storage, temp_storage_bytes, need)) return;
  const std::size_t answers = num_rows * k;
  if (answers == 0) return;  // k = 0 or no rows: the empty result, nothing to write

  require(values_in != nullptr && values_out != nullptr && indices_out != nullptr,
          "topk: values_in, values_out and indices_out must not be null");
  require_apart("topk",
                {MemoryRange{values_out, answers * sizeof(T), "values_out"},
                 MemoryRange{indices_out, answers * sizeof(std::int64_t), "indices_out"},
                 MemoryRange{temp_storage, need, "temp_storage"}},
                {MemoryRange{values_in, num_rows * row_length * sizeof(T), "values_in"}});

  TopkArrays<T> arrays{};
  arrays.values_in = values_in;
  arrays.values_out = values_out;
  arrays.indices_out = indices_out;
  arrays.row_length = static_cast<std::uint32_t>(row_length);
  arrays.k = static_cast<std::uint32_t>(k);
  arrays.largest = options.largest;
  arrays.sorted = options.sorted;
  // k = 1 by the rule: a reduction (argmax_rows.cuh), one launch, no scratch (a scratch planned
  // above stays unused).
  if (k == 1) {
    const ArgmaxSplit argmax =
        argmax_split(num_rows, row_length, k, options, multiprocessor_count());
    if (argmax.used) last_path = TopkPath::kArgmax;
    if (argmax.used && argmax.warp_per_row) {
      const std::size_t blocks = (num_rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock;
      launch_chained(topk_argmax_warp_rows_kernel<T>, static_cast<unsigned>(blocks), kBlockThreads,
                     0, stream, arrays, num_rows);
      return;
    }
    if (argmax.used && argmax.blocks_per_row == 1) {
      launch_chained(topk_argmax_rows_kernel<T>, static_cast<unsigned>(num_rows), kBlockThreads, 0,
                     stream, arrays, static_cast<std::uint32_t>(argmax.values_per_block));
      return;
    }
    if (argmax.used) {  // a cluster per row: argmax_split() gives more than 1 only in sm_90 builds
      if (argmax.blocks_per_row > kPortableClusterBlocks)
        allow_non_portable_clusters<topk_argmax_rows_kernel<T>>();
      launch_chained_in_clusters(
          topk_argmax_rows_kernel<T>, static_cast<unsigned>(num_rows * argmax.blocks_per_row),
          kBlockThreads, 0, static_cast<unsigned>(argmax.blocks_per_row), stream, arrays,
          static_cast<std::uint32_t>(argmax.values_per_block));
      return;
    }
  }
  // 2 <= k <= 32 by the rule: per-thread queues and merges (queue_rows.cuh), one launch, no
  // scratch, on the argmax's split.
  if (k >= 2 && k <= kMaxQueueK) {
    const ArgmaxSplit queue = queue_split(num_rows, row_length, k, options, multiprocessor_count());
    if (queue.used) {
      last_path = TopkPath::kQueues;
      launch_queue_rows(arrays, num_rows, queue, stream);
      return;
    }
  }
  // The SM count is asked only when the plan allows a split or the cluster is forced (a driver
  // query, no sync); the split for this GPU is never larger than the planned one.
  const std::size_t target_blocks =
      plan.split.several_blocks || cluster_forced ? multi_block_target(multiprocessor_count()) : 0;
  const RowSplit split = plan.split.several_blocks || cluster_forced
                             ? topk_split(num_rows, row_length, k, sizeof(T), options,
                                          target_blocks, device_resident_clusters)
                             : plan.split;
  // Batches of long rows run the sample pass whatever the L2 holds (sampled_batch_split()).
  const bool sampled_batch =
      plan.split.several_blocks &&
      sampled_batch_split(num_rows, row_length, k, options, target_blocks).several_blocks;
  // The cluster schedule (resolve_schedule(): forced, or where the rule splits rows and a cluster
  // holds them): one launch and no scratch (a several-blocks scratch planned above stays unused).
  // Its grid was bounded above: forced, by the checks before the size query; by the rule, only
  // where fewer than target / 2 rows (at most 2048) get at most 16 blocks each.
  if (split.cluster_per_row) {
    arrays.sample = cluster_sample_plan(num_rows, row_length, k, split.blocks_per_row, options);
    const unsigned grid = static_cast<unsigned>(num_rows * split.blocks_per_row);
    const auto span = static_cast<std::uint32_t>(split.values_per_block);
    if (arrays.sample.enabled) {
      last_path = TopkPath::kClusterSampled;
      launch_cluster_rows<T, true>(
          grid, split.blocks_per_row,
          cluster_sampled_launch_bytes<T>(split.values_per_block, k, options.sorted), stream,
          arrays, span);
    } else {
      last_path = TopkPath::kCluster;
      launch_cluster_rows<T, false>(
          grid, split.blocks_per_row,
          cluster_launch_bytes<T>(split.values_per_block, k, options.sorted), stream, arrays, span);
    }
    return;
  }
  if (split.warp_per_row) {
    const std::size_t blocks = (num_rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock;
    if (options.sorted && row_length <= kMaxWarpSortedK) {  // the whole row through the network
      last_path = TopkPath::kWarpWholeRow;
      launch_chained(topk_warp_sort_whole_rows_kernel<T>, static_cast<unsigned>(blocks),
                     kBlockThreads, 0, stream, arrays, num_rows);
      return;
    }
    last_path = TopkPath::kWarpSelect;
    launch_chained(topk_warp_rows_kernel<T>, static_cast<unsigned>(blocks), kBlockThreads, 0,
                   stream, arrays, num_rows);
    if (options.sorted && k > kMaxWarpSortedK) {
      launch_chained(topk_sort_rows_kernel<T>, static_cast<unsigned>(num_rows), kBlockThreads, 0,
                     stream, arrays);
    } else if (options.sorted && k > 32) {  // the select kernel ordered k <= 32 itself
      launch_chained(topk_warp_sort_rows_kernel<T>, static_cast<unsigned>(blocks), kBlockThreads, 0,
                     stream, arrays, num_rows);
    }
    return;
  }
  // Both block schedules may draw the sample, and the sample pass may prefetch; the L2's size is
  // a driver query (no sync), asked once, here, where it can matter.
  const std::size_t l2_bytes = l2_cache_bytes();
  const bool sample =
      sampled_batch || sample_pass_wanted(options, num_rows * row_length * sizeof(T), l2_bytes);
  if (!split.several_blocks) {
    // One block per row reads the row once into its shared list when the sample allows it (by
    // default only rows long enough for the saved passes to outweigh the bound's).
    const bool long_enough =
        options.sample == TopkSample::kOn || row_length >= kOneBlockSampleMinLength;
    arrays.sample = sample_plan(row_length, k, 1, kOneBlockListEntries, sample && long_enough);
    last_path = TopkPath::kOneBlock;
    launch_chained(topk_rows_kernel<T>, static_cast<unsigned>(num_rows), kBlockThreads, 0, stream,
                   arrays);
    return;
  }
  require(split.blocks_per_row <= plan.split.blocks_per_row,
          "topk: internal error: the split outgrew its scratch plan");
  last_path = TopkPath::kSeveralBlocks;

  MultiBlockArrays<T> multi{};
  multi.values_in = values_in;
  multi.values_out = values_out;
  multi.indices_out = indices_out;
  multi.counts = plan.layout.get<std::uint32_t>(temp_storage, plan.counts);
  multi.tallies = plan.layout.get<BlockTally>(temp_storage, plan.tallies);
  multi.row_states = plan.layout.get<RowState>(temp_storage, plan.row_states);
  for (int list = 0; list < 2; ++list) {
    multi.list_values[list] =
        reinterpret_cast<T*>(plan.layout.get<unsigned char>(temp_storage, plan.list_values[list]));
    multi.list_columns[list] =
        plan.layout.get<std::uint32_t>(temp_storage, plan.list_columns[list]);
  }
  multi.list_capacity = static_cast<std::uint32_t>(plan.list_capacity);
  multi.row_length = static_cast<std::uint32_t>(row_length);
  multi.k = static_cast<std::uint32_t>(k);
  multi.values_per_block = static_cast<std::uint32_t>(split.values_per_block);
  multi.blocks_per_row = static_cast<std::uint32_t>(split.blocks_per_row);
  multi.largest = options.largest;
  multi.sample = sample_plan(row_length, k, split.blocks_per_row, plan.list_capacity, sample);
  multi.prefetch_spans =
      multi.sample.enabled && prefetch_spans_for(num_rows * row_length * sizeof(T), l2_bytes);
  // The tickets (and the filter flags and list fills) must start at zero. The last block of every
  // pass resets its row's ticket, but a fresh (or poisoned, or interrupted) scratch holds
  // anything, and no block of the first launch can know whether the others have arrived yet: one
  // async memset, part of the call (and of a captured graph), so the caller never clears the
  // scratch. The lists themselves need no clearing: a block reads only the entries it wrote.
  SORTLAB_CUDA_CHECK(cudaMemsetAsync(multi.row_states, 0, num_rows * sizeof(RowState), stream));
  const unsigned grid = static_cast<unsigned>(num_rows * split.blocks_per_row);
  // The automatic rule, where every row's sampled list should fit one block's shared list
  // (sampled_finish_list_entries(): 2048 entries, or 8192 where the device allows the bytes): the
  // sample pass of several blocks per row, then one block per row from its list
  // (topk_sampled_rows_kernel), two launches instead of six or more (README, "Sampled batches").
  const std::size_t list_entries =
      sampled_finish_list_entries(multi.sample, num_rows, row_length, split.blocks_per_row,
                                  sizeof(T), options, shared_memory_per_block_optin());
  if (list_entries != 0) {
    last_path = TopkPath::kSampledOneBlock;
    multi.count_at_bound = true;
    launch_chained(topk_sample_pass_kernel<T>, grid, kBlockThreads, 0, stream, multi);
    if (list_entries == kOneBlockListEntries) {
      launch_sampled_rows<T, kOneBlockListEntries>(num_rows, stream, arrays, multi);
    } else {
      launch_sampled_rows<T, kSampledListEntries>(num_rows, stream, arrays, multi);
    }
    return;
  }
  if (multi.sample.enabled) {
    launch_chained(topk_sample_pass_kernel<T>, grid, kBlockThreads, 0, stream, multi);
  }
  for (int pass = 0; pass < num_passes<T>(); ++pass) {
    launch_chained(topk_count_pass_kernel<T>, grid, kBlockThreads, 0, stream, multi, pass);
  }
  launch_chained(topk_gather_kernel<T>, grid, kBlockThreads, 0, stream, multi);
  if (options.sorted && k > 1) {
    // A plain launch: chained, its few heavy blocks (one per row) were placed while the gather
    // still ran, several to an SM, and rows of 2048 answers sorted 10-25% slower at batches of
    // 16 and 128 (2026-11-27).
    topk_sort_rows_kernel<T><<<static_cast<unsigned>(num_rows), kBlockThreads, 0, stream>>>(arrays);
    SORTLAB_CHECK_LAUNCH();
  }
}

template <typename T>
void topk_with_int32_indices(void* temp_storage, std::size_t& temp_storage_bytes,
                             const T* values_in, std::size_t num_rows, std::size_t row_length,
                             std::size_t k, T* values_out, std::int32_t* indices_out,
                             const TopkOptions& options, cudaStream_t stream) {
  // topk()'s own query checks the shape (and throws) before anything else.
  std::size_t inner_bytes = 0;
  topk<T>(nullptr, inner_bytes, values_in, num_rows, row_length, k, values_out, nullptr, options,
          stream);
  const std::size_t answers = num_rows * k;
  ScratchLayout layout;
  const std::size_t wide_slot = layout.add<std::int64_t>(answers);
  const std::size_t inner_slot = layout.add<unsigned char>(inner_bytes);
  const std::size_t need = std::max<std::size_t>(layout.total_bytes(), 1);
  if (answer_size_query(temp_storage, temp_storage_bytes, need)) return;
  if (answers == 0) return;  // the empty result, as topk()
  require(values_in != nullptr && values_out != nullptr && indices_out != nullptr,
          "topk_with_int32_indices: values_in, values_out and indices_out must not be null");
  require_apart("topk_with_int32_indices",
                {MemoryRange{values_out, answers * sizeof(T), "values_out"},
                 MemoryRange{indices_out, answers * sizeof(std::int32_t), "indices_out"},
                 MemoryRange{temp_storage, need, "temp_storage"}},
                {MemoryRange{values_in, num_rows * row_length * sizeof(T), "values_in"}});
  std::int64_t* wide = layout.get<std::int64_t>(temp_storage, wide_slot);
  topk<T>(layout.get<unsigned char>(temp_storage, inner_slot), inner_bytes, values_in, num_rows,
          row_length, k, values_out, wide, options, stream);
  const std::size_t blocks = std::min<std::size_t>(divide_up(answers, kBlockThreads), 4096);
  launch_chained(narrow_indices_kernel, static_cast<unsigned>(blocks), kBlockThreads, 0, stream,
                 wide, indices_out, answers);
}

// One instantiation per supported value type, here and only here (compile time).
#define SORTLAB_STAGE07_INSTANTIATE(T)                                                            \
  template void topk<T>(void*, std::size_t&, const T*, std::size_t, std::size_t, std::size_t, T*, \
                        std::int64_t*, const TopkOptions&, cudaStream_t);                         \
  template void topk_with_int32_indices<T>(void*, std::size_t&, const T*, std::size_t,            \
                                           std::size_t, std::size_t, T*, std::int32_t*,           \
                                           const TopkOptions&, cudaStream_t);
SORTLAB_STAGE07_INSTANTIATE(float)
SORTLAB_STAGE07_INSTANTIATE(std::uint32_t)
SORTLAB_STAGE07_INSTANTIATE(std::int32_t)
SORTLAB_STAGE07_INSTANTIATE(double)
SORTLAB_STAGE07_INSTANTIATE(std::int64_t)
SORTLAB_STAGE07_INSTANTIATE(__half)
SORTLAB_STAGE07_INSTANTIATE(__nv_bfloat16)
#undef SORTLAB_STAGE07_INSTANTIATE

}  // namespace sortlab::stage07
