/// \file
/// \brief Stage 07 top-k on the GPU (the whole suite, 94 tests, passed on an H100 on 2026-11-28,
/// with compute-sanitizer clean on the cluster, argmax, whole-row sort and queue tests; 116 tests
/// on an H200 in sessions 23 and 24; README, "Tests"): against the CPU reference on fresh random
/// inputs of every harness distribution, for all seven value types; all-equal rows, many ties at
/// the k-th value, NaNs and infinities; k = 1, k = row length, rows of length 1, rows far longer
/// than a block's 256-value chunk, many short rows; largest and smallest; sorted (as sequences) and
/// unsorted (as sets of (value, column)); outputs poisoned before every run; a reused scratch; CUDA
/// graph capture and replay. Every shape honours SORTLAB_TEST_MAX_N (rows x row_length values at
/// most; bigger shapes are skipped).
///
/// The cluster-per-row schedule (sm_90 builds) runs the same cases in tests of its own
/// (ClusterEveryDistributionShapeAndK, Stage07GpuCluster.*), so that a filter can select it.
///
/// Every case runs every schedule: one block per row, one warp per row (rows of at most 1024
/// values), and several blocks per row with the tests'
/// span (kTestValuesPerBlock = 512 values per block, so a row of a few thousand values, under the
/// sanitizer's cap, spans many blocks; rows shorter than one span run it with one block). Both
/// must give the CPU model's output element for element, unsorted output included (the
/// documented order). Rows of millions of values (outside the cap) also run the automatic rule.
/// Both schedules filter candidates into lists (several blocks: list_capacity_for() entries in the
/// scratch; one block: 2048 entries in shared memory) when they fit, so random rows exercise the
/// lists and all-equal or few-distinct rows the fallback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_model.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/device_properties.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage07 = sortlab::stage07;
using sortlab::DeviceBuffer;
using sortlab::testing::case_label;
using sortlab::testing::max_test_n;
using sortlab::testing::test_seed;
using stage07::TopkOptions;

/// A matrix of rows x row_length values.
struct Shape {
  std::size_t rows;
  std::size_t row_length;
};

/// The shapes every type runs: rows of length 1, a few short rows, rows around the 256-value
/// chunk, many short rows, and long rows; those above SORTLAB_TEST_MAX_N are dropped.
std::vector<Shape> all_shapes() {
  const std::vector<Shape> shapes = {{1, 1},    {9, 1},    {3, 7},    {5, 255},  {4, 256},
                                     {3, 257},  {300, 33}, {4, 1000}, {1, 2100}, {1, 4096},
                                     {2, 4092}, {2, 5000}, {1, 70000}};
  std::vector<Shape> kept;
  for (const Shape& shape : shapes)
    if (shape.rows * shape.row_length <= max_test_n()) kept.push_back(shape);
  return kept;
}

/// The k values a shape runs: 1, 2, 31, half, length - 1, length, both sides of the block sort's
/// two smaller tiles (256 | 257, 1024 | 1025) and of the sorted limit, each only where
/// 1 <= k <= length.
std::vector<std::size_t> ks_for(std::size_t length) {
  std::vector<std::size_t> ks;
  for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{31}, length / 2, length - 1,
                        length, std::size_t{256}, std::size_t{257}, std::size_t{1024},
                        std::size_t{1025}, stage07::kMaxSortedK, stage07::kMaxSortedK + 1})
    if (k >= 1 && k <= length && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  return ks;
}

/// The schedules every case runs: one block per row, several blocks per row with the tests'
/// span, and, for rows of at most kMaxWarpRowLength values, one warp per row. \p options gives
/// largest and sorted.
/// Which schedules a case runs: the three of every build, or (a test of its own, so that a
/// filter can pick it) the cluster schedule.
enum class ScheduleSet { kClassic, kCluster };

std::vector<std::pair<std::string, TopkOptions>> every_schedule(
    TopkOptions options, std::size_t row_length, ScheduleSet set = ScheduleSet::kClassic) {
  if (set == ScheduleSet::kCluster) {
    // Four blocks per cluster (more where the row needs them), so even short rows span several
    // blocks, some of them empty.
    // Each with the digit passes over the spans (sample off) and with the sample's bound and one
    // block's list (on, where cluster_sample_plan() allows it; the rows whose bound predicts an
    // overflow, or whose list does not work, fall back to the digit passes inside the kernel).
    TopkOptions cluster = options;
    cluster.schedule = stage07::TopkSchedule::kClusterPerRow;
    cluster.cluster_blocks = 4;
    cluster.sample = stage07::TopkSample::kOff;
    TopkOptions sampled = cluster;
    sampled.sample = stage07::TopkSample::kOn;
    if (!stage07::cluster_schedule_built()) return {};
    return {{"one cluster per row", cluster}, {"one cluster per row, sampled", sampled}};
  }
  TopkOptions one = options, several = options, per_warp = options;
  one.schedule = stage07::TopkSchedule::kOneBlockPerRow;
  one.sample = stage07::TopkSample::kOn;  // the sample read, where the plan allows it
  several.schedule = stage07::TopkSchedule::kBlocksPerRow;
  several.values_per_block = stage07::kTestValuesPerBlock;
  // The tests' inputs are smaller than the L2, where kAuto would leave the sample pass out.
  several.sample = stage07::TopkSample::kOn;
  per_warp.schedule = stage07::TopkSchedule::kWarpPerRow;
  std::vector<std::pair<std::string, TopkOptions>> schedules = {
      {"one block per row", one}, {"several blocks per row", several}};
  if (row_length <= stage07::kMaxWarpRowLength)
    schedules.emplace_back("one warp per row", per_warp);
  return schedules;
}

/// Whether the model's sample bound is the k-th value of the row: the select bits of the worst of
/// the model's answers \p values. Where the sampled list does not work, the one-block finish
/// then gathers at the bound (kListedAtBound).
template <typename T>
bool sampled_bound_is_kth(const stage07::BlockedGather& record, const std::vector<T>& values,
                          bool largest) {
  if (!record.sample.enabled || values.empty()) return false;
  using Bits = typename stage07::SelectKey<T>::Bits;
  Bits kth = stage07::SelectKey<T>::bits(values.front(), largest);
  for (const T& value : values) kth = std::min(kth, stage07::SelectKey<T>::bits(value, largest));
  return static_cast<std::uint64_t>(kth) == record.sample_bound;
}

/// After a call that ran the several-blocks-per-row schedule with scratch \p temp: which passes
/// filtered in every row (RowState::listed, read back from the scratch) against the CPU model's
/// (model_topk_row_blocks() with the call's span: the digit passes' decisions depend only on the
/// row, k and the list capacity, the sample pass's also on the blocks per row, which set its warps'
/// parts and regions; kAuto resolved as topk() resolves it). So a GPU run shows not only the right
/// output but that the lists were used exactly where the model uses them. Returns the first
/// difference ("" when equal, or when one block per row ran).
template <typename T>
std::string compare_filter_flags(const std::vector<T>& input, const Shape& shape, std::size_t k,
                                 const TopkOptions& options, void* temp) {
  // Sampled rows finished by one block each (topk_sampled_rows_kernel) run no digit pass of
  // several blocks: `listed` then says whether the row's block selected from the sampled list,
  // which it must exactly when the model's sample pass worked and its list fits the block's.
  const bool sampled_one_block = stage07::last_topk_path() == stage07::TopkPath::kSampledOneBlock;
  // k = 1 by the rule is a reduction, 2 <= k <= 32 queues and merges: no scratch is written.
  if (stage07::argmax_split(shape.rows, shape.row_length, k, options,
                            sortlab::multiprocessor_count())
          .used ||
      stage07::queue_split(shape.rows, shape.row_length, k, options,
                           sortlab::multiprocessor_count())
          .used)
    return {};
  const std::size_t target = stage07::multi_block_target(sortlab::multiprocessor_count());
  // Batches of long rows: the rule's split with the sample pass on (sampled_batch_split()).
  const stage07::RowSplit batch =
      stage07::sampled_batch_split(shape.rows, shape.row_length, k, options, target);
  const stage07::RowSplit split =
      stage07::topk_split(shape.rows, shape.row_length, k, sizeof(T), options, target,
                          stage07::device_resident_clusters);
  if (!split.several_blocks) return {};  // one block or warp per row, or a cluster
  const stage07::ScratchPlan plan =
      stage07::plan_scratch(shape.rows, shape.row_length, k, sizeof(T), options);
  std::vector<stage07::RowState> states(shape.rows);
  SORTLAB_CUDA_CHECK(cudaMemcpy(states.data(),
                                plan.layout.get<stage07::RowState>(temp, plan.row_states),
                                shape.rows * sizeof(stage07::RowState), cudaMemcpyDeviceToHost));
  std::vector<T> row, values;
  std::vector<std::int64_t> indices;
  // The model has no L2: resolve kAuto as topk() did.
  TopkOptions model_options = options;
  model_options.sample =
      batch.several_blocks || stage07::sample_pass_wanted(options, input.size() * sizeof(T),
                                                          sortlab::l2_cache_bytes())
          ? stage07::TopkSample::kOn
          : stage07::TopkSample::kOff;
  for (std::size_t r = 0; r < shape.rows; ++r) {
    const auto first = input.begin() + static_cast<std::ptrdiff_t>(r * shape.row_length);
    row.assign(first, first + static_cast<std::ptrdiff_t>(shape.row_length));
    stage07::BlockedGather record;
    stage07::model_topk_row_blocks(row, k, model_options, split.values_per_block, values, indices,
                                   &record);
    std::uint32_t expected = 0;
    // The sample pass's bound (kept in RowState::desired, which the one-block finish only reads)
    // must be the model's: every block of the row draws the same samples and selects their
    // rank-th largest select bits.
    if (sampled_one_block && record.sample.enabled && states[r].desired != record.sample_bound)
      return "row " + std::to_string(r) + ": the sample pass's bound is " +
             std::to_string(states[r].desired) + ", the model's " +
             std::to_string(record.sample_bound);
    if (sampled_one_block) {
      // 1: the list worked; 2: it worked once the overflowed regions' parts were re-read (the
      // model's sample read, kept at least k, but a region overflowed); 3 (kListedAtBound): the
      // list did not work (an overflow predicted or found) and the bound is the k-th value; 0:
      // the row was selected from.
      // The list topk() picked (sampled_finish_list_entries()) bounds what "worked" means.
      const std::size_t list_entries = stage07::sampled_finish_list_entries(
          record.sample, shape.rows, shape.row_length, split.blocks_per_row, sizeof(T), options,
          sortlab::shared_memory_per_block_optin());
      const bool fits =
          record.sample_read && record.sample_kept >= k && record.sample_kept <= list_entries;
      expected = fits ? (record.sampled ? 1u : 2u)
                 : sampled_bound_is_kth(record, values, options.largest) ? stage07::kListedAtBound
                                                                         : 0u;
    } else {
      for (std::size_t p = 0; p < record.passes.size(); ++p)
        if (record.passes[p].wrote_lists) expected |= 1u << p;
    }
    if (states[r].listed != expected)
      return "row " + std::to_string(r) + ": RowState::listed (" +
             (sampled_one_block ? "the block selected from the sampled list"
                                : "bits: the passes that filtered") +
             ") is " + std::to_string(states[r].listed) + ", the model's " +
             std::to_string(expected) + " (sample_failed " +
             std::to_string(states[r].sample_failed) + ", kept " +
             std::to_string(states[r].fill[1]) + "; the model kept " +
             std::to_string(record.sample_kept) + (record.sample_read ? "" : ", no read") + ")";
  }
  return {};
}

/// Runs topk on \p input (rows x row_length) with outputs and scratch poisoned first, and checks
/// it against the reference (as sequences when sorted, as sets of (value, column) otherwise) and
/// against the CPU model's exact sequence (which fixes the unsorted order too), and, for several
/// blocks per row, which passes filtered against the model (compare_filter_flags()). Returns the
/// difference ("" when equal).
template <typename T>
std::string run_and_compare(const std::vector<T>& input, const Shape& shape, std::size_t k,
                            const TopkOptions& options) {
  const std::size_t answers = shape.rows * k;
  DeviceBuffer<T> values_in(input), values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  values_out.poison();
  indices_out.poison();
  std::size_t temp_bytes = 0;
  stage07::topk<T>(nullptr, temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                   values_out.data(), indices_out.data(), options);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  temp.poison();
  stage07::topk<T>(temp.data(), temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                   values_out.data(), indices_out.data(), options);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> want_values;
  std::vector<std::int64_t> want_indices;
  stage07::reference_topk(input, shape.rows, shape.row_length, k, options.largest, want_values,
                          want_indices);
  const std::vector<T> got_values = values_out.download();
  const std::vector<std::int64_t> got_indices = indices_out.download();
  const std::string difference = stage07::compare_topk(want_values, want_indices, got_values,
                                                       got_indices, shape.rows, k, options.sorted);
  if (!difference.empty()) return "against the reference: " + difference;
  stage07::model_topk(input, shape.rows, shape.row_length, k, options, want_values, want_indices);
  const std::string order = stage07::compare_topk(want_values, want_indices, got_values,
                                                  got_indices, shape.rows, k, /*sorted=*/true);
  if (!order.empty()) return "against the model's order: " + order;
  return compare_filter_flags(input, shape, k, options, temp.data());
}

/// The path of a forced cluster call with k > 1 (k = 1 takes the argmax, 2 <= k <= 32 the queues,
/// where their rules allow): kClusterSampled where cluster_sample_plan() is enabled. The plan
/// depends on the cluster's size only through its warp capacity, which is at least 16 entries
/// for every size up to kMaxClusterBlocks, so the largest size stands for the one the call took.
stage07::TopkPath expected_cluster_path(const Shape& shape, std::size_t k,
                                        const TopkOptions& options) {
  const stage07::TopkPath taken = stage07::last_topk_path();
  if (taken != stage07::TopkPath::kCluster && taken != stage07::TopkPath::kClusterSampled)
    return taken;  // a reduction took the call
  return stage07::cluster_sample_plan(shape.rows, shape.row_length, k, stage07::kMaxClusterBlocks,
                                      options)
                 .enabled
             ? stage07::TopkPath::kClusterSampled
             : stage07::TopkPath::kCluster;
}

/// One direction for one input: sorted (where k allows) and unsorted, each on both schedules.
template <typename T>
void check_direction(const std::vector<T>& input, const Shape& shape, std::size_t k, bool largest,
                     const std::string& label, ScheduleSet set) {
  for (bool sorted : {true, false}) {
    if (sorted && k > stage07::kMaxSortedK) continue;
    for (const auto& [schedule, options] :
         every_schedule(TopkOptions{largest, sorted}, shape.row_length, set)) {
      SCOPED_TRACE(label + " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                   (largest ? " largest" : " smallest") + (sorted ? " sorted " : " unsorted ") +
                   schedule);
      const std::string difference = run_and_compare(input, shape, k, options);
      ASSERT_TRUE(difference.empty()) << difference;
      // A forced schedule runs that schedule's kernels (the outputs cannot tell them apart).
      if (options.schedule == stage07::TopkSchedule::kOneBlockPerRow) {
        ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kOneBlock);
      }
      if (options.schedule == stage07::TopkSchedule::kClusterPerRow && k > 1) {
        ASSERT_EQ(stage07::last_topk_path(), expected_cluster_path(shape, k, options));
      }
      if (options.schedule == stage07::TopkSchedule::kWarpPerRow) {
        const bool whole_row = sorted && shape.row_length <= stage07::kMaxWarpSortedK;
        ASSERT_EQ(stage07::last_topk_path(),
                  whole_row ? stage07::TopkPath::kWarpWholeRow : stage07::TopkPath::kWarpSelect);
      }
    }
  }
}

/// Every option for one input: largest and smallest, sorted (where k allows) and unsorted, each
/// on both schedules.
template <typename T>
void check_all_options(const std::vector<T>& input, const Shape& shape, std::size_t k,
                       const std::string& label, ScheduleSet set = ScheduleSet::kClassic) {
  for (bool largest : {true, false}) {
    check_direction(input, shape, k, largest, label, set);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <typename T>
class Stage07Gpu : public ::testing::Test {};
using TopkTypes = ::testing::Types<float, std::uint32_t, std::int32_t, double, std::int64_t, __half,
                                   __nv_bfloat16>;
// Named by index, not by type (f32 is 0), so the device check's sanitizer filter (*/0.*) selects
// the f32 instance.
TYPED_TEST_SUITE(Stage07Gpu, TopkTypes);

/// Every distribution on every shape (all_shapes()) and every k (ks_for()), every option, on the
/// schedules of \p set.
template <typename T>
void check_every_distribution_shape_and_k(ScheduleSet set) {
  const std::uint64_t seed = test_seed();
  for (const Shape& shape : all_shapes())
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (std::size_t k : ks_for(shape.row_length)) {
        check_all_options(input, shape, k, case_label(n, sortlab::to_string(distribution), seed),
                          set);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// Every distribution (all-equal, few distinct, float specials with NaN and infinities, ...) on
// every shape and every k.
TYPED_TEST(Stage07Gpu, EveryDistributionShapeAndK) {
  check_every_distribution_shape_and_k<TypeParam>(ScheduleSet::kClassic);
}

// k = 1 with the rule's schedule, the reduction (argmax_rows.cuh): every distribution (ties to
// the lowest column, NaN the largest, -0.0 equal to +0.0 by select bits, so the lower column) on
// every shape and on rows that take a cluster of blocks (on 132 SMs: 3 x 40000 and 3 x 40001, 10
// blocks, the second with rows that start off 16-byte boundaries and spans with a scalar tail;
// 2 x 130000, 16; 1 x 8195, 3), largest and smallest, sorted and not.
TYPED_TEST(Stage07Gpu, ArgmaxEveryDistributionAndShape) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::vector<Shape> shapes = all_shapes();
  for (const Shape& extra :
       {Shape{1, 8195}, Shape{3, 40000}, Shape{3, 40001}, Shape{2, 130000}, Shape{700, 1025}})
    if (extra.rows * extra.row_length <= max_test_n()) shapes.push_back(extra);
  for (const Shape& shape : shapes)
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (bool largest : {true, false})
        for (bool sorted : {true, false}) {
          const TopkOptions options{largest, sorted};
          SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                       " rows=" + std::to_string(shape.rows) + " k=1" +
                       (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
          const bool reduction = stage07::argmax_split(shape.rows, shape.row_length, 1, options,
                                                       sortlab::multiprocessor_count())
                                     .used;
          ASSERT_TRUE(reduction || shape.row_length > stage07::kArgmaxMaxIdleSpanValues);
          const std::string difference = run_and_compare(input, shape, 1, options);
          ASSERT_TRUE(difference.empty()) << difference;
          if (reduction) {
            ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kArgmax);
          }
        }
    }
}

// 2 <= k <= 32 with the rule's schedule, per-thread queues and merges (queue_rows.cuh): every
// distribution on every shape, k at and just past each queue length (8 | 9, 16 | 17, 32) and k =
// the row where the row is shorter than the queue; rows on both sides of the 8-lane group's limit
// (256 | 257), of the warp's (1024 | 1025), and rows that take a cluster of blocks (on 132 SMs:
// 1 x 8195 3 blocks, 3 x 40000 and 3 x 40001 10 blocks, the second off 16-byte boundaries,
// 2 x 130000 16); largest and smallest, sorted and not (the documented unsorted order).
// Both reads of the queues run: with the bound first (rows of 257 to 1024 values in 32-lane
// groups, 1 x 4096 and 2 x 4092 in one block each) and without it (8-lane groups, longer spans).
TYPED_TEST(Stage07Gpu, QueueEveryDistributionAndShape) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::vector<Shape> shapes = all_shapes();
  for (const Shape& extra : {Shape{37, 100}, Shape{9, 128}, Shape{5, 1024}, Shape{1, 8195},
                             Shape{3, 40000}, Shape{3, 40001}, Shape{2, 130000}, Shape{700, 1025}})
    if (extra.rows * extra.row_length <= max_test_n()) shapes.push_back(extra);
  for (const Shape& shape : shapes) {
    std::vector<std::size_t> ks;
    for (std::size_t k : {std::size_t{2}, std::size_t{8}, std::size_t{9}, std::size_t{16},
                          std::size_t{17}, std::size_t{32}, shape.row_length})
      if (k >= 2 && k <= shape.row_length && k <= stage07::kMaxQueueK &&
          std::find(ks.begin(), ks.end(), k) == ks.end())
        ks.push_back(k);
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (std::size_t k : ks)
        for (bool largest : {true, false})
          for (bool sorted : {true, false}) {
            const TopkOptions options{largest, sorted};
            SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                         " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                         (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
            const bool queues = stage07::queue_split(shape.rows, shape.row_length, k, options,
                                                     sortlab::multiprocessor_count())
                                    .used;
            ASSERT_TRUE(queues || shape.row_length > stage07::kArgmaxMaxIdleSpanValues);
            const std::string difference = run_and_compare(input, shape, k, options);
            ASSERT_TRUE(difference.empty()) << difference;
            // The output of every path is the same: only the path says the queues ran.
            if (queues) {
              ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kQueues);
            }
          }
    }
  }
}

// 2 <= k <= 32 on many rows longer than kMaxWarpRowLength: queue_split() gives each row one warp
// (32 lanes, the bound first) once there are kQueueWarpMinRowsPerSm rows per SM (rows of up to
// kQueueWarpShortRowLength values) or kQueueWarpLongRowMinRowsPerSm (longer rows); checked
// here just past each threshold (the last block partly filled), on odd row lengths (1501, 4099,
// 7943: rows off 16-byte boundaries for every type) and rows of exactly 4096; k = 8 and 32;
// every distribution, both directions, sorted and not on the smaller shapes, four
// distributions (uniform, few distinct, all equal, float specials) largest sorted and smallest
// unsorted on the big ones. 2112 x 7943 (on 132 SMs) fits the default SORTLAB_TEST_MAX_N (2^24);
// the longest rows a warp takes, 16 x SMs rows of kQueueWarpMaxRowLength (34.6 M values), run
// only where SORTLAB_TEST_MAX_N allows them (the device check of README "Tests" raises it).
TYPED_TEST(Stage07Gpu, QueueWarpPerRowWhereRowsAreMany) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::size_t sms = sortlab::multiprocessor_count();
  struct Case {
    Shape shape;
    bool every_case;  // every distribution, k and direction; else a few (the big shapes)
  };
  const std::vector<Case> cases = {
      {{stage07::kQueueWarpMinRowsPerSm * sms + 3, 1501}, true},
      {{stage07::kQueueWarpMinRowsPerSm * sms + 1, stage07::kQueueWarpShortRowLength}, true},
      {{stage07::kQueueWarpLongRowMinRowsPerSm * sms + 1, 4099}, false},
      {{stage07::kQueueWarpLongRowMinRowsPerSm * sms, 7943}, false},
      {{stage07::kQueueWarpLongRowMinRowsPerSm * sms, stage07::kQueueWarpMaxRowLength}, false}};
  for (const Case& c : cases) {
    const Shape& shape = c.shape;
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      if (!c.every_case && distribution != sortlab::Distribution::kUniform &&
          distribution != sortlab::Distribution::kFewDistinct &&
          distribution != sortlab::Distribution::kAllEqual &&
          distribution != sortlab::Distribution::kFloatSpecials)
        continue;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (std::size_t k : {std::size_t{8}, std::size_t{32}})
        for (bool largest : {true, false})
          for (bool sorted : {true, false}) {
            if (!c.every_case && largest != sorted) continue;  // largest sorted, smallest not
            const TopkOptions options{largest, sorted};
            SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                         " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                         (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
            const auto split = stage07::queue_split(shape.rows, shape.row_length, k, options, sms);
            ASSERT_TRUE(split.used && split.warp_per_row);
            const std::string difference = run_and_compare(input, shape, k, options);
            ASSERT_TRUE(difference.empty()) << difference;
            ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kQueues);
          }
    }
  }
}

// Rows of at most 256 values sorted whole by one warp's bitonic network (no select), at every
// network size (2, 4 and 8 entries per lane) and the edges between them, with padding past the
// row: every distribution, every k, every schedule (the warp one takes the network when sorted).
TYPED_TEST(Stage07Gpu, WarpSortsShortRowsWhole) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::vector<Shape> shapes = {{6, 2},   {3, 63},  {2, 64}, {7, 65},
                                     {3, 128}, {5, 129}, {2, 200}};
  for (const Shape& shape : shapes)
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (std::size_t k : ks_for(shape.row_length)) {
        check_all_options(input, shape, k, case_label(n, sortlab::to_string(distribution), seed));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// The same on the cluster schedule (its own test, so that a filter can select it).
TYPED_TEST(Stage07Gpu, ClusterEveryDistributionShapeAndK) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  check_every_distribution_shape_and_k<TypeParam>(ScheduleSet::kCluster);
}

// Many values equal to the k-th one: the answer takes the lowest columns among them.
TYPED_TEST(Stage07Gpu, ManyTiesAtTheKthValue) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed);
  for (const Shape& shape : all_shapes()) {
    if (shape.row_length < 8) continue;
    std::vector<T> input(shape.rows * shape.row_length);
    const auto three = sortlab::generate_keys<T>(sortlab::Distribution::kSorted, 3, seed);
    // Mostly the middle value, a few above and below it: k in the middle falls inside the ties.
    for (auto& value : input) {
      const auto draw = random() % 16;
      value = draw == 0 ? three[2] : draw == 1 ? three[0] : three[1];
    }
    const std::size_t k = shape.row_length / 2;
    check_all_options(input, shape, k, case_label(input.size(), "ties", seed));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Answers whose select bits share their high and low bits: the answer sort of more than 256
// answers sorts only the bits in which they differ (differing_answer_bits()). Every value's raw
// bits are a constant top nibble 0011 (positive and finite for the floating types), a quarter
// of the bits drawn at random, and the low quarter constant (0101...), so the answers differ
// only in the middle and tie often (16 distinct values for 16-bit types, 256 for 32-bit ones).
// Both directions, k on both sides of the block sort's tiles, every schedule, and the cluster's.
TYPED_TEST(Stage07Gpu, AnswersSharingHighAndLowBits) {
  using T = TypeParam;
  using Raw = typename sortlab::KeyTraits<T>::Bits;
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed);
  for (const Shape& shape : {Shape{2, 5000}, Shape{1, 70000}}) {
    if (shape.rows * shape.row_length > max_test_n()) continue;
    std::vector<T> input(shape.rows * shape.row_length);
    for (auto& value : input) {
      const auto top = static_cast<Raw>(Raw{3} << (kBits - 4));
      const auto middle = static_cast<Raw>((random() % (Raw{1} << (kBits / 4))) << (kBits / 4));
      const auto low =
          static_cast<Raw>(static_cast<Raw>(0x5555555555555555ull) & ((Raw{1} << (kBits / 4)) - 1));
      value = sortlab::KeyTraits<T>::from_raw_bits(static_cast<Raw>(top | middle | low));
    }
    for (std::size_t k : {std::size_t{300}, std::size_t{1025}, stage07::kMaxSortedK}) {
      const std::string label = case_label(input.size(), "shared bits", seed);
      check_all_options(input, shape, k, label);
      if (::testing::Test::HasFatalFailure()) return;
      check_all_options(input, shape, k, label, ScheduleSet::kCluster);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Rows of 3 spans + 17 values (several blocks per row: 4 blocks of 512, the last of 17) and
// shorter ones, under the sanitizer's cap of 6200 values: every distribution, k around a span's
// size, k = row length, on both schedules (check_all_options()).
TYPED_TEST(Stage07Gpu, RowsSpanningManyBlocks) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::size_t span = stage07::kTestValuesPerBlock, length = 3 * span + 17;
  const std::vector<Shape> shapes = {{1, length}, {3, length}, {2, span}, {4, span + 1}};
  for (const Shape& shape : shapes) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + 3 * n);
      for (std::size_t k : {std::size_t{1}, std::size_t{17}, span - 1, span, span + 1,
                            shape.row_length / 2, shape.row_length}) {
        if (k > shape.row_length) continue;
        check_all_options(input, shape, k, case_label(n, sortlab::to_string(distribution), seed));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The filter's 16-byte word path (several blocks per row, spans that start on a 16-byte
// boundary; count_and_filter_aligned_span()): spans of two and a half of its tiles (256 threads x
// 4 words of 16 bytes), so that a block filters across tile boundaries and into a partial tile;
// one row whose last span ends inside a word (every span of row 0 is aligned), and two rows of a
// multiple of four values (every row aligned), beside two rows of an odd length (row 1 is not
// aligned: the value-by-value filter). Random bits with a small k, so that a pass filters from
// the row (the test checks that on the model; compare_filter_flags() checks the GPU did the
// same).
TYPED_TEST(Stage07Gpu, FilterWordPathAcrossTiles) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::size_t word_tile = 256 * 4 * (16 / sizeof(T));
  const std::size_t span = 2 * word_tile + word_tile / 2;  // a multiple of 256
  const std::vector<Shape> shapes = {{1, 3 * span + 5}, {2, 2 * span + 4}, {2, 2 * span + 3}};
  for (const Shape& shape : shapes) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) GTEST_SKIP() << n << " values exceed SORTLAB_TEST_MAX_N";
    // Random bit patterns (NaNs among them for the float types): the top digit splits the row
    // 256 ways for every type, so pass 1 filters from the row. (The harness's uniform 16-bit
    // floats put an eighth of the row under one top digit, and 16-bit values have only two
    // passes: none would filter.)
    std::mt19937_64 random(seed + n);
    std::vector<T> input(n);
    for (T& value : input) {
      const std::uint64_t bits = random();
      std::memcpy(static_cast<void*>(&value), &bits, sizeof(T));  // __half: private bits
    }
    for (std::size_t k : {std::size_t{1}, std::size_t{40}, std::size_t{300}})
      for (bool largest : {true, false})
        for (bool sorted : {true, false}) {
          TopkOptions options{largest, sorted};
          options.schedule = stage07::TopkSchedule::kBlocksPerRow;
          options.values_per_block = span;
          // The case must reach the word path: some pass of row 0 filters (from the row).
          const std::vector<T> row0(input.begin(),
                                    input.begin() + static_cast<std::ptrdiff_t>(shape.row_length));
          std::vector<T> model_values;
          std::vector<std::int64_t> model_indices;
          stage07::BlockedGather record;
          stage07::model_topk_row_blocks(row0, k, options, span, model_values, model_indices,
                                         &record);
          ASSERT_TRUE(std::any_of(record.passes.begin(), record.passes.end(), [](const auto& pass) {
            return pass.wrote_lists;
          })) << "no pass filters: the case does not test the filter";
          SCOPED_TRACE(case_label(n, "random bits", seed) + " rows=" + std::to_string(shape.rows) +
                       " k=" + std::to_string(k) + (largest ? " largest" : " smallest") +
                       (sorted ? " sorted" : " unsorted"));
          const std::string difference = run_and_compare(input, shape, k, options);
          ASSERT_TRUE(difference.empty()) << difference;
        }
  }
}

// Candidate filtering at the list's edges (several blocks per row: lists of ceil(1553 / 16) =
// 98 entries per row). filter_edge_row() builds rows whose pass 1 keeps 98 entries (the list
// just fits: pass 1 filters from the row, pass 2 and the rest from the lists) or 99 (it just
// overflows: pass 1 counts from the row without filtering and pass 2 filters), with only
// candidates in the list or with 60 answers already known travelling in it (k = high + 1). The
// CPU test Stage07Typed/*.ListJustFitsAndJustOverflows shows the model takes exactly these
// paths on these rows. Then three such rows in one call, one of them overflowing: the decision is
// per row. Under the sanitizer's cap.
TYPED_TEST(Stage07Gpu, CandidateListJustFitsAndJustOverflows) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::size_t length = 3 * stage07::kTestValuesPerBlock + 17;
  struct Case {
    std::size_t high, middle, k;
  };
  for (const Case& c :
       {Case{98, 0, 5}, Case{99, 0, 5}, Case{98, 0, 98}, Case{60, 38, 61}, Case{60, 39, 61}})
    for (bool largest : {true, false}) {
      const auto input = stage07::filter_edge_row<T>(length, c.high, c.middle, largest, seed);
      check_direction(
          input, Shape{1, length}, c.k, largest,
          "edge row high=" + std::to_string(c.high) + " middle=" + std::to_string(c.middle),
          ScheduleSet::kClassic);
      if (::testing::Test::HasFatalFailure()) return;
    }
  // One block per row's shared list of kOneBlockListEntries = 2048 (rows of 6000 values, under
  // the cap): just fits, just overflows, with and without known answers in it
  // (Stage07Typed/*.OneBlockListJustFitsAndJustOverflows shows the model's paths).
  for (const Case& c :
       {Case{2048, 0, 5}, Case{2049, 0, 5}, Case{1500, 548, 1501}, Case{1500, 549, 1501}})
    for (bool largest : {true, false}) {
      if (6000 > max_test_n()) break;
      const auto input = stage07::filter_edge_row<T>(6000, c.high, c.middle, largest, seed);
      check_direction(input, Shape{1, 6000}, c.k, largest,
                      "one-block edge row high=" + std::to_string(c.high) +
                          " middle=" + std::to_string(c.middle),
                      ScheduleSet::kClassic);
      if (::testing::Test::HasFatalFailure()) return;
    }
  for (bool largest : {true, false}) {
    std::vector<T> input;
    for (const Case& c : {Case{98, 0, 5}, Case{99, 0, 5}, Case{60, 39, 5}}) {
      const auto row =
          stage07::filter_edge_row<T>(length, c.high, c.middle, largest, seed + c.high);
      input.insert(input.end(), row.begin(), row.end());
    }
    check_direction(input, Shape{3, length}, 5, largest, "three edge rows", ScheduleSet::kClassic);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The fallback on the GPU: rows of 6000 values (under the sanitizer's cap) all equal, or of two
// distinct values, keep far more than a sixteenth of the row in every pass, so no pass filters
// and every pass and the gather read the row (Stage07Typed/*.AllEqualAndTwoValueRowsFallBack
// shows it on the model); k = 1, 100, 3000 and 6000, both schedules.
TYPED_TEST(Stage07Gpu, AllEqualAndTwoValueRowsFallBack) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::size_t length = 6000;
  if (length > max_test_n()) GTEST_SKIP() << "6000 values exceed SORTLAB_TEST_MAX_N";
  std::mt19937_64 random(seed);
  const auto two = sortlab::generate_keys<T>(sortlab::Distribution::kSorted, 2, seed);
  std::vector<T> two_values(length);
  for (auto& value : two_values) value = two[random() % 2];
  const std::vector<T> all_equal(length, two[1]);
  for (std::size_t k : {std::size_t{1}, std::size_t{100}, length / 2, length}) {
    check_all_options(all_equal, Shape{1, length}, k, "all equal");
    if (::testing::Test::HasFatalFailure()) return;
    check_all_options(two_values, Shape{1, length}, k, "two values");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The sample pass of several blocks per row (sample_pass.cuh), and one block per row's sample
// read on the same rows: one row of 9216 values (under make device-check's sanitizer cap), rows
// of 8191 values (for types of up to 4 bytes rows 1 and 2 start off a 16-byte boundary, so the
// warps take the one-value path) and of 12288, every
// distribution, k = 1, 7, 64, with the sample pass and without. Uniform rows keep few values
// above the bound and pass 0 reads the list; sorted rows put them all in one warp's part, which
// overflows its region (4 entries per warp here); all-equal rows are caught by the sample itself;
// k = 64 of 8191 would keep more than half the list, so the plan leaves the pass out.
// compare_filter_flags() checks on every row that pass 0 read the list exactly when the model's
// sample pass worked, and the test checks that both outcomes occurred.
TYPED_TEST(Stage07Gpu, SamplePassWorksAndFallsBack) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::size_t worked = 0, failed = 0, shapes_run = 0;
  const std::vector<Shape> shapes = {Shape{1, 9216}, Shape{3, 8191}, Shape{1, 12288}};
  for (const Shape& shape : shapes) {
    // Under a sanitizer's size cap (9300 in make device-check) only the first shape runs.
    if (shape.rows * shape.row_length > max_test_n()) continue;
    ++shapes_run;
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + 7 * n);
      const std::vector<T> first_row(input.begin(),
                                     input.begin() + static_cast<std::ptrdiff_t>(shape.row_length));
      for (std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{64}})
        for (bool largest : {true, false})
          for (bool sample : {true, false}) {
            TopkOptions options{largest, true};
            options.schedule = stage07::TopkSchedule::kBlocksPerRow;
            options.values_per_block = stage07::kTestValuesPerBlock;
            options.sample = sample ? stage07::TopkSample::kOn : stage07::TopkSample::kOff;
            // One block per row with the same sample: its read into the shared list.
            TopkOptions one = options;
            one.schedule = stage07::TopkSchedule::kOneBlockPerRow;
            const std::string one_difference = run_and_compare(input, shape, k, one);
            ASSERT_TRUE(one_difference.empty()) << "one block per row: " << one_difference;
            SCOPED_TRACE(sortlab::to_string(distribution) + " rows=" + std::to_string(shape.rows) +
                         " length=" + std::to_string(shape.row_length) + " k=" + std::to_string(k) +
                         (largest ? " largest" : " smallest") +
                         (sample ? " sample" : " no sample"));
            const std::string difference = run_and_compare(input, shape, k, options);
            ASSERT_TRUE(difference.empty()) << difference;
            stage07::BlockedGather record;
            std::vector<T> values;
            std::vector<std::int64_t> indices;
            stage07::model_topk_row_blocks(first_row, k, options, stage07::kTestValuesPerBlock,
                                           values, indices, &record);
            if (!sample) {
              ASSERT_FALSE(record.sample.enabled);
            }
            worked += record.sampled ? 1 : 0;
            failed += sample && !record.sampled ? 1 : 0;
          }
    }
  }
  if (shapes_run == 0) GTEST_SKIP() << "every shape exceeds SORTLAB_TEST_MAX_N";
  if (shapes_run < shapes.size()) return;  // capped: the outcomes are not all guaranteed
  EXPECT_GT(worked, 0u);
  EXPECT_GT(failed, 0u);
}

// The automatic rule's one-block finish of sampled rows (topk_sampled_rows_kernel): a span of
// 1024 given with kAuto keeps several blocks per row for the sample pass and no cluster, the
// sample is forced on (the inputs are smaller than the L2), and k > kMaxQueueK runs the radix
// select. Rows of 9216 (9 blocks: 72 list regions of 8 entries; under make device-check's
// sanitizer cap), 16411 (17 blocks: 136 regions of 7) and 24000 (24 blocks: 192 regions of 7),
// every distribution, k = 33 and 64 (and 200 on the longer rows, whose plan still expects at most
// 2 x 586 of the 2048 entries a block holds), so every call takes the path. Rows whose lists fit
// (mostly uniform ones at k = 33 and 64) are selected from them; sorted rows overflow one warp's
// region, and the block re-reads that warp's part for the list; all-equal rows are caught by the
// sample, whose bound is then the k-th value, and the block gathers at the bound; a row of 100
// large values over a tie (below) is caught by the sample too, but its bound lies in the tie,
// below the k-th value, and the block selects from the row. compare_filter_flags() checks, row by
// row, which of the four the block did against the model; the test checks the path of every call
// and that all four outcomes occurred.
TYPED_TEST(Stage07Gpu, SampledRowsFinishInOneBlock) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  constexpr std::size_t kSpan = 1024;
  std::size_t worked = 0, repaired = 0, at_bound = 0, read_row = 0, shapes_run = 0;
  const std::vector<Shape> shapes = {Shape{1, 9216}, Shape{2, 16411}, Shape{1, 24000}};
  for (const Shape& shape : shapes) {
    if (shape.rows * shape.row_length > max_test_n()) continue;
    ++shapes_run;
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + 11 * n);
      const std::vector<T> first_row(input.begin(),
                                     input.begin() + static_cast<std::ptrdiff_t>(shape.row_length));
      for (std::size_t k : {std::size_t{33}, std::size_t{64}, std::size_t{200}})
        for (bool largest : {true, false})
          for (bool sorted : {true, false}) {
            if (k == 200 && shape.row_length < 16384) continue;  // the plan leaves the sample out
            TopkOptions options{largest, sorted};
            options.values_per_block = kSpan;
            options.sample = stage07::TopkSample::kOn;
            SCOPED_TRACE(sortlab::to_string(distribution) + " rows=" + std::to_string(shape.rows) +
                         " length=" + std::to_string(shape.row_length) + " k=" + std::to_string(k) +
                         (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
            const std::string difference = run_and_compare(input, shape, k, options);
            ASSERT_TRUE(difference.empty()) << difference;
            ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kSampledOneBlock);
            stage07::BlockedGather record;
            std::vector<T> values;
            std::vector<std::int64_t> indices;
            stage07::model_topk_row_blocks(first_row, k, options, kSpan, values, indices, &record);
            ASSERT_TRUE(record.sample.enabled);
            const std::size_t list_entries = stage07::sampled_finish_list_entries(
                record.sample, shape.rows, shape.row_length, (shape.row_length + kSpan - 1) / kSpan,
                sizeof(T), options, sortlab::shared_memory_per_block_optin());
            const bool fits =
                record.sample_read && record.sample_kept >= k && record.sample_kept <= list_entries;
            const bool bound_is_kth = sampled_bound_is_kth(record, values, largest);
            worked += fits && record.sampled ? 1 : 0;
            repaired += fits && !record.sampled ? 1 : 0;
            at_bound += !fits && bound_is_kth ? 1 : 0;
            read_row += fits || bound_is_kth ? 0 : 1;
          }
    }
  }
  if (shapes_run == 0) GTEST_SKIP() << "every shape exceeds SORTLAB_TEST_MAX_N";
  // A row the sample catches whose bound is not the k-th value: 100 distinct large values (about
  // 6 of the 1024 samples, fewer than the bound's rank, 12 at k = 33) spread over a tie of the
  // rest, so the bound is the tie's value, below the 33rd largest.
  const Shape tie_row{1, 16411};
  const bool tie_row_runs = tie_row.row_length <= max_test_n();
  if (tie_row_runs) {
    using Bits = typename stage07::SelectKey<T>::Bits;
    constexpr int kTop = stage07::SelectKey<T>::kNumBits - stage07::kDigitBits;
    constexpr std::size_t k = 33;
    for (bool largest : {true, false}) {
      std::vector<T> row(tie_row.row_length, stage07::value_from_select_bits<T>(
                                                 static_cast<Bits>(Bits{0x10} << kTop), largest));
      for (std::size_t i = 0; i < 100; ++i)
        row[i * 163] = stage07::value_from_select_bits<T>(
            static_cast<Bits>((Bits{0xf0} << kTop) | static_cast<Bits>(i)), largest);
      TopkOptions options{largest, true};
      options.values_per_block = kSpan;
      options.sample = stage07::TopkSample::kOn;
      SCOPED_TRACE(std::string("100 large values over a tie, ") +
                   (largest ? "largest" : "smallest"));
      const std::string difference = run_and_compare(row, tie_row, k, options);
      ASSERT_TRUE(difference.empty()) << difference;
      ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kSampledOneBlock);
      stage07::BlockedGather record;
      std::vector<T> values;
      std::vector<std::int64_t> indices;
      stage07::model_topk_row_blocks(row, k, options, kSpan, values, indices, &record);
      ASSERT_TRUE(record.sample.enabled);
      EXPECT_FALSE(record.sample_read);  // the sample predicted an overflow
      EXPECT_FALSE(sampled_bound_is_kth(record, values, largest));
      read_row += record.sample_read || sampled_bound_is_kth(record, values, largest) ? 0 : 1;
    }
  }
  EXPECT_GT(worked, 0u);
  EXPECT_GT(repaired, 0u);
  EXPECT_GT(at_bound, 0u);
  // Among the shapes under the sanitizers' cap (9300) only the tie row is selected from.
  if (tie_row_runs) {
    EXPECT_GT(read_row, 0u);
  }
}

/// The one-block finish with the large list (kSampledListEntries, dynamic shared memory): rows
/// of 128256 over 8 blocks of 16384 (64 regions), k = 1024 and 2048, where the plan expects
/// about 1900 and 2900 entries, so the collect, the re-read of overflowed regions (rising rows put
/// thousands of entries in one warp's part), the in-place filter and the answer sort all see
/// lists past 2048; every distribution, both directions, sorted and unsorted. Skipped where the
/// device cannot give a block the list's bytes (then the digit passes run: the other tests).
template <typename T>
void check_large_sampled_lists(std::uint64_t seed) {
  const Shape shape{2, 128256};
  constexpr std::size_t kSpan = 16384;
  const std::size_t n = shape.rows * shape.row_length;
  if (n > max_test_n()) GTEST_SKIP() << "2 x 128256 exceeds SORTLAB_TEST_MAX_N";
  std::size_t large = 0, past_small = 0;
  for (sortlab::Distribution distribution : sortlab::all_distributions()) {
    const auto input = sortlab::generate_keys<T>(distribution, n, seed + 17 * n);
    const std::vector<T> first_row(input.begin(),
                                   input.begin() + static_cast<std::ptrdiff_t>(shape.row_length));
    for (std::size_t k : {std::size_t{1024}, std::size_t{2048}})
      for (bool largest : {true, false})
        for (bool sorted : {true, false}) {
          TopkOptions options{largest, sorted};
          options.values_per_block = kSpan;
          options.sample = stage07::TopkSample::kOn;
          SCOPED_TRACE(sortlab::to_string(distribution) + " k=" + std::to_string(k) +
                       (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
          const stage07::SamplePlan plan =
              stage07::sample_plan(shape.row_length, k, shape.row_length / kSpan + 1,
                                   stage07::list_capacity_for(shape.row_length), true);
          const std::size_t list_entries = stage07::sampled_finish_list_entries(
              plan, shape.rows, shape.row_length, shape.row_length / kSpan + 1, sizeof(T), options,
              sortlab::shared_memory_per_block_optin());
          if (list_entries != stage07::kSampledListEntries)
            GTEST_SKIP() << "this device or plan does not take the large list";
          const std::string difference = run_and_compare(input, shape, k, options);
          ASSERT_TRUE(difference.empty()) << difference;
          ASSERT_EQ(stage07::last_topk_path(), stage07::TopkPath::kSampledOneBlock);
          stage07::BlockedGather record;
          std::vector<T> values;
          std::vector<std::int64_t> indices;
          stage07::model_topk_row_blocks(first_row, k, options, kSpan, values, indices, &record);
          ++large;
          past_small += record.sample_read && record.sample_kept >= k &&
                                record.sample_kept > stage07::kOneBlockListEntries &&
                                record.sample_kept <= list_entries
                            ? 1
                            : 0;
        }
  }
  EXPECT_GT(large, 0u);
  EXPECT_GT(past_small, 0u) << "no row's list went past 2048 entries";
}

TEST(Stage07GpuSampledLists, LargeListF32) {
  check_large_sampled_lists<float>(test_seed());
}
TEST(Stage07GpuSampledLists, LargeListF64) {
  check_large_sampled_lists<double>(test_seed());
}
TEST(Stage07GpuSampledLists, LargeListBf16) {
  check_large_sampled_lists<__nv_bfloat16>(test_seed());
}

// The cluster schedule on LLM sampling shapes (vocabularies of 32000 to 151936 logits), with
// every cluster size from the fewest blocks that hold the row to kMaxClusterBlocks and the
// rule's; f32 and bf16, uniform and few distinct values (ties across the cluster's blocks).
TEST(Stage07GpuCluster, LlmShapesEveryClusterSize) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  const std::uint64_t seed = test_seed();
  const std::vector<Shape> shapes = {{1, 128256}, {3, 151936}, {5, 32000}, {2, 1000}};
  std::size_t shapes_run = 0;
  for (const Shape& shape : shapes) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    ++shapes_run;
    for (sortlab::Distribution distribution :
         {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct}) {
      const auto input = sortlab::generate_keys<float>(distribution, n, seed + n);
      const auto half_input = sortlab::generate_keys<__nv_bfloat16>(distribution, n, seed + n + 1);
      for (std::size_t k :
           {std::size_t{1}, std::size_t{50}, std::size_t{1024}, std::size_t{2048}}) {
        if (k > shape.row_length) continue;
        for (std::size_t blocks = 0; blocks <= stage07::kMaxClusterBlocks; ++blocks) {
          TopkOptions options;
          options.schedule = stage07::TopkSchedule::kClusterPerRow;
          options.cluster_blocks = blocks;
          // The rule's sample (sampled_cluster_finish() where the plan allows it) on even sizes,
          // the digit passes over the spans on odd ones.
          options.sample = blocks % 2 == 0 ? stage07::TopkSample::kAuto : stage07::TopkSample::kOff;
          SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                       " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                       " cluster_blocks=" + std::to_string(blocks));
          std::string difference = run_and_compare(input, shape, k, options);
          ASSERT_TRUE(difference.empty()) << "f32: " << difference;
          ASSERT_EQ(stage07::last_topk_path(), expected_cluster_path(shape, k, options));
          difference = run_and_compare(half_input, shape, k, options);
          ASSERT_TRUE(difference.empty()) << "bf16: " << difference;
        }
      }
    }
  }
  if (shapes_run == 0) GTEST_SKIP() << "every shape exceeds SORTLAB_TEST_MAX_N";
}

// The device's count of resident clusters, which the rule's waves use (device_resident_clusters()):
// at most the blocks the SMs hold at once (by shared memory, and 8 blocks of 256 threads to an SM)
// over the cluster's size, at least one cluster for every span the cluster kernel takes, never
// more for more bytes, the same when asked again; then its counts at 1-4 blocks per SM
// (clusters_at_load()) and the rule's size it decides; then the rule's batches against the
// reference. (Bad shapes are errors:
// Stage07Schedule.ResidentClustersRejectsShapesTheKernelCannotTake, on the CPU.)
TEST(Stage07GpuCluster, ResidentClustersBoundTheRulesWaves) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  const std::size_t sms = sortlab::multiprocessor_count();
  constexpr std::size_t kSmBytes = 228 * 1024;
  for (std::size_t value_bytes : {2u, 4u, 8u}) {
    for (std::size_t blocks = 1; blocks <= stage07::kMaxClusterBlocks; ++blocks) {
      std::size_t previous = std::numeric_limits<std::size_t>::max();
      // Up to 100000: every value size's largest launch takes more (96 KiB of span and a list).
      for (std::size_t bytes : {0u, 16384u, 40000u, 60000u, 100000u}) {
        SCOPED_TRACE(std::to_string(value_bytes) + "-byte values, clusters of " +
                     std::to_string(blocks) + ", " + std::to_string(bytes) + " bytes");
        const std::size_t clusters = stage07::device_resident_clusters(blocks, bytes, value_bytes);
        EXPECT_GE(clusters, 1u);
        EXPECT_LE(clusters * blocks, std::min<std::size_t>(8, kSmBytes / (bytes + 1024)) * sms);
        EXPECT_LE(clusters, previous);
        EXPECT_EQ(stage07::device_resident_clusters(blocks, bytes, value_bytes), clusters);
        previous = clusters;
      }
    }
  }
  // The counts at a load of 1 to kClusterRuleMaxLoad blocks per SM (clusters_at_load(), which
  // asks about bytes that leave room for that many blocks and no more): every size holds at
  // least one cluster at one block per SM, never more than SMs x load / size, fewer for larger
  // clusters, more (or as many) at a higher load.
  const std::size_t target = stage07::multi_block_target(sms);
  for (std::size_t value_bytes : {2u, 4u, 8u}) {
    for (std::size_t load = 1; load <= stage07::kClusterRuleMaxLoad; ++load) {
      std::size_t previous = std::numeric_limits<std::size_t>::max();
      for (std::size_t blocks = 1; blocks <= stage07::kMaxClusterBlocks; ++blocks) {
        stage07::RowSplit split;
        split.cluster_per_row = true;
        split.blocks_per_row = blocks;
        split.values_per_block = 64;
        SCOPED_TRACE(std::to_string(value_bytes) + "-byte values, clusters of " +
                     std::to_string(blocks) + ", load " + std::to_string(load));
        const std::size_t at_load = stage07::clusters_at_load(split, load, value_bytes, target,
                                                              stage07::device_resident_clusters);
        EXPECT_GE(at_load, 1u);
        EXPECT_LE(at_load, load * sms / blocks);
        EXPECT_LE(at_load, previous);
        if (load > 1) {
          EXPECT_GE(at_load, stage07::clusters_at_load(split, load - 1, value_bytes, target,
                                                       stage07::device_resident_clusters));
        }
        previous = at_load;
      }
    }
  }
  // topk_split() with the device's count reaches the rule by load: 16 rows of 32000 f32 take 6
  // blocks exactly where clusters of 8 need two blocks on some SM and clusters of 6 do not.
  stage07::RowSplit eight_blocks, six_blocks;
  eight_blocks.cluster_per_row = six_blocks.cluster_per_row = true;
  eight_blocks.blocks_per_row = 8;
  eight_blocks.values_per_block = 4032;
  six_blocks.blocks_per_row = 6;
  six_blocks.values_per_block = 5376;
  const std::size_t eight =
      stage07::clusters_at_load(eight_blocks, 1, 4, target, stage07::device_resident_clusters);
  const std::size_t six =
      stage07::clusters_at_load(six_blocks, 1, 4, target, stage07::device_resident_clusters);
  if (sms == 132) {
    const stage07::RowSplit split = stage07::topk_split(16, 32000, 2048, 4, TopkOptions{}, target,
                                                        stage07::device_resident_clusters);
    EXPECT_TRUE(split.cluster_per_row);
    EXPECT_EQ(split.blocks_per_row, eight < 16 && six >= 16 ? 6u : 8u);
    // Where the load decides what session 30's rule did not (H200: 32 rows of 32000 in 6 blocks,
    // not 5; 64 rows in 2 at one per SM, not 3), as the device counts them: the smaller span at
    // the same load wins, so the pick is never an odd size and never 3 or 5 blocks.
    for (std::size_t rows : {32u, 64u}) {
      const stage07::RowSplit by_load = stage07::topk_split(
          rows, 32000, 2048, 4, TopkOptions{}, target, stage07::device_resident_clusters);
      EXPECT_TRUE(by_load.cluster_per_row) << rows;
      EXPECT_EQ(by_load.blocks_per_row % 2, 0u) << rows;
    }
  }
  // 16 and 32 rows of 65536 at k = 50 take the cluster rule, not the sample pass (session 31).
  for (std::size_t rows : {16u, 32u}) {
    EXPECT_TRUE(stage07::topk_split(rows, 65536, 50, 4, TopkOptions{}, target,
                                    stage07::device_resident_clusters)
                    .cluster_per_row)
        << rows;
  }
  // Then the rule's batches against the reference: those that widen to 16 blocks on an H200 (20
  // and 32 rows of 151936), those its load puts in 2, 4, 6 or 8 blocks (32-80 rows of 32000, 32
  // of 65536), and 16 and 32 rows of 65536, which at k = 50 no longer take the sample pass.
  const std::uint64_t seed = test_seed();
  for (const Shape& shape :
       {Shape{20, 151936}, Shape{32, 151936}, Shape{32, 32000}, Shape{40, 32000}, Shape{48, 32000},
        Shape{64, 32000}, Shape{80, 32000}, Shape{16, 65536}, Shape{32, 65536}}) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    const auto input = sortlab::generate_keys<float>(sortlab::Distribution::kUniform, n, seed + n);
    for (std::size_t k : {std::size_t{50}, std::size_t{2048}}) {
      SCOPED_TRACE(case_label(n, "uniform", seed) + " rows=" + std::to_string(shape.rows) +
                   " k=" + std::to_string(k));
      const std::string difference = run_and_compare(input, shape, k, TopkOptions{});
      ASSERT_TRUE(difference.empty()) << difference;
    }
  }
  // 2-byte values: the sizes whose spans the rule keeps up to twice kClusterRuleMaxSpanValues
  // (6 blocks for 32 x 128256, 4 for 48 x 100000), 16 blocks at three per SM (20 x 128256), and 6
  // at one per SM where 16 cost kWideClusterCostPercent more (17 x 100000).
  for (const Shape& shape :
       {Shape{17, 100000}, Shape{20, 128256}, Shape{32, 128256}, Shape{48, 100000}}) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    const auto input =
        sortlab::generate_keys<__nv_bfloat16>(sortlab::Distribution::kUniform, n, seed + n + 7);
    for (std::size_t k : {std::size_t{50}, std::size_t{2048}}) {
      SCOPED_TRACE(case_label(n, "uniform bf16", seed) + " rows=" + std::to_string(shape.rows) +
                   " k=" + std::to_string(k));
      const std::string difference = run_and_compare(input, shape, k, TopkOptions{});
      ASSERT_TRUE(difference.empty()) << difference;
    }
  }
}

// The cluster's candidate list at its edge: one block (cluster_blocks = 1) holds a row of 1553
// values in a span of 1600, so its list takes 400 entries. The model's edge rows make pass 1 keep
// exactly 400 or 401 entries, with and without 340 known answers travelling in the list: the
// block must filter in the first case and not in the second (a list that overflowed would lose
// answers, and the output would show it).
TEST(Stage07GpuCluster, CandidateListJustFitsAndJustOverflows) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  const std::uint64_t seed = test_seed();
  const std::size_t length = 1553;
  struct Case {
    std::size_t high, middle, k;
  };
  for (const Case& c : {Case{400, 0, 5}, Case{401, 0, 5}, Case{340, 60, 341}, Case{340, 61, 341}})
    for (bool largest : {true, false})
      for (bool sorted : {true, false}) {
        const auto input = stage07::filter_edge_row<float>(length, c.high, c.middle, largest, seed);
        TopkOptions options{largest, sorted};
        options.schedule = stage07::TopkSchedule::kClusterPerRow;
        options.cluster_blocks = 1;
        // The digit passes' filter is under test: the sampled cluster would take these rows.
        options.sample = stage07::TopkSample::kOff;
        SCOPED_TRACE("high=" + std::to_string(c.high) + " middle=" + std::to_string(c.middle) +
                     (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
        const std::string difference = run_and_compare(input, Shape{1, length}, c.k, options);
        ASSERT_TRUE(difference.empty()) << difference;
      }
}

// 8-byte values (f64, i64: spans of at most 12288 values) in clusters of 16 blocks and the rule's,
// and in one block: the kernel's widest layout.
TEST(Stage07GpuCluster, EightByteValuesEveryClusterSize) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  const std::uint64_t seed = test_seed();
  for (const Shape& shape : {Shape{2, 40000}, Shape{1, 12288}}) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    const auto wide = sortlab::generate_keys<double>(sortlab::Distribution::kUniform, n, seed + n);
    const auto integers =
        sortlab::generate_keys<std::int64_t>(sortlab::Distribution::kFewDistinct, n, seed + n);
    for (std::size_t k : {std::size_t{1}, std::size_t{50}, std::size_t{2048}})
      for (std::size_t blocks : {std::size_t{0}, std::size_t{1}, std::size_t{16}}) {
        TopkOptions options;
        options.schedule = stage07::TopkSchedule::kClusterPerRow;
        options.cluster_blocks = blocks;
        // The rule's sample (the sampled cluster where the plan allows it) on 0 and 16 blocks,
        // the digit passes over the spans on 1.
        options.sample = blocks == 1 ? stage07::TopkSample::kOff : stage07::TopkSample::kAuto;
        SCOPED_TRACE("rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                     " cluster_blocks=" + std::to_string(blocks));
        std::string difference = run_and_compare(wide, shape, k, options);
        ASSERT_TRUE(difference.empty()) << "f64: " << difference;
        difference = run_and_compare(integers, shape, k, options);
        ASSERT_TRUE(difference.empty()) << "i64: " << difference;
      }
  }
}

/// The sampled cluster where its list cannot serve (cluster_rows.cuh, bound_is_kth_over_cluster()):
/// rows of one value, of two values with the higher one filling exactly k, k - 1 and k + 1 places,
/// and of 16 distinct values, in clusters of the rule's size, 2 and kMaxClusterBlocks blocks with
/// the sample forced on. On rows of one value the sample predicts an overflow and its bound is the
/// k-th value, so the cluster gathers at the bound with no digit pass; with two values it is or is
/// not the k-th value, by one place either way, and the cluster must tell which.
template <typename T>
void check_sampled_cluster_at_the_bound(std::uint64_t seed) {
  const auto two = sortlab::generate_keys<T>(sortlab::Distribution::kSorted, 2, seed);
  std::mt19937_64 random(seed);
  for (const Shape& shape : {Shape{1, 128256}, Shape{3, 32000}, Shape{2, 9000}}) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    const auto few = sortlab::generate_keys<T>(sortlab::Distribution::kFewDistinct, n, seed + n);
    const std::vector<T> all_equal(n, two[1]);
    for (std::size_t k : {std::size_t{50}, std::size_t{300}, std::size_t{2048}}) {
      // Row r: two[1] in k - 1, k or k + 1 places (r % 3), chosen at random, two[0] elsewhere.
      std::vector<T> two_values(n, two[0]);
      for (std::size_t row = 0; row < shape.rows; ++row) {
        std::vector<std::size_t> columns(shape.row_length);
        for (std::size_t c = 0; c < columns.size(); ++c) columns[c] = c;
        std::shuffle(columns.begin(), columns.end(), random);
        for (std::size_t c = 0; c < k - 1 + row % 3; ++c)
          two_values[row * shape.row_length + columns[c]] = two[1];
      }
      for (std::size_t blocks : {std::size_t{0}, std::size_t{2}, stage07::kMaxClusterBlocks})
        for (bool largest : {true, false}) {
          TopkOptions options{largest, /*sorted=*/k <= stage07::kMaxSortedK};
          options.schedule = stage07::TopkSchedule::kClusterPerRow;
          options.cluster_blocks = blocks;
          options.sample = stage07::TopkSample::kOn;
          for (const auto& [label, input] :
               {std::pair<const char*, const std::vector<T>*>{"all equal", &all_equal},
                {"two values", &two_values},
                {"few distinct", &few}}) {
            SCOPED_TRACE(case_label(n, label, seed) + " rows=" + std::to_string(shape.rows) +
                         " k=" + std::to_string(k) + " cluster_blocks=" + std::to_string(blocks) +
                         (largest ? " largest" : " smallest"));
            const std::string difference = run_and_compare(*input, shape, k, options);
            ASSERT_TRUE(difference.empty()) << difference;
            ASSERT_EQ(stage07::last_topk_path(), expected_cluster_path(shape, k, options));
          }
        }
    }
  }
}

TEST(Stage07GpuCluster, SampledBoundIsTheKthValueF32) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  check_sampled_cluster_at_the_bound<float>(test_seed());
}
TEST(Stage07GpuCluster, SampledBoundIsTheKthValueBf16) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  check_sampled_cluster_at_the_bound<__nv_bfloat16>(test_seed());
}
TEST(Stage07GpuCluster, SampledBoundIsTheKthValueF64) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  check_sampled_cluster_at_the_bound<double>(test_seed());
}

// Long rows (outside the sanitizer's cap): the automatic rule, one block per row and several
// blocks per row with the rule's span, on uniform values and on few distinct ones (many ties
// spread over every block). Unsorted for k beyond the sort's tile.
/// The rule's sampled batches (sampled_batch_split()) for one value type: every shape takes the
/// path the split promises (one block per row from the sampled list where it fits, else the digit
/// passes after the sample pass), with the right answers and, row by row, the lists used where
/// the model uses them (run_and_compare()).
template <typename T>
void check_sampled_batches(std::uint64_t seed) {
  struct Case {
    Shape shape;
    std::size_t k;
  };
  const std::vector<Case> cases = {{{64, 32000}, 50},   {{64, 32000}, 1024}, {{16, 70001}, 50},
                                   {{16, 70001}, 1024}, {{64, 65537}, 50},   {{64, 65537}, 2048},
                                   {{130, 40000}, 200}, {{250, 64000}, 50},  {{64, 65537}, 4000},
                                   {{256, 32000}, 2048}};
  const std::size_t target = stage07::multi_block_target(sortlab::multiprocessor_count());
  std::size_t one_block = 0, passes = 0;
  for (const Case& c : cases) {
    const std::size_t n = c.shape.rows * c.shape.row_length;
    if (n > max_test_n()) continue;
    for (sortlab::Distribution distribution :
         {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct,
          sortlab::Distribution::kSorted}) {
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n + c.k);
      TopkOptions options;
      options.sorted = c.k <= stage07::kMaxSortedK;
      SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                   " rows=" + std::to_string(c.shape.rows) + " k=" + std::to_string(c.k));
      const stage07::RowSplit split =
          stage07::sampled_batch_split(c.shape.rows, c.shape.row_length, c.k, options, target);
      const std::string difference = run_and_compare(input, c.shape, c.k, options);
      ASSERT_TRUE(difference.empty()) << difference;
      if (!split.several_blocks) continue;  // 16 rows with k = 1024: the rule's other schedules
      // Where the list fits one block (the regions: one per thread of a block), one block per
      // row finishes; elsewhere the digit passes run.
      const bool fits =
          stage07::sampled_finish_list_entries(
              stage07::sample_plan(c.shape.row_length, c.k, split.blocks_per_row,
                                   stage07::list_capacity_for(c.shape.row_length), true),
              c.shape.rows, c.shape.row_length, split.blocks_per_row, sizeof(T), options,
              sortlab::shared_memory_per_block_optin()) != 0;
      ASSERT_EQ(stage07::last_topk_path(),
                fits ? stage07::TopkPath::kSampledOneBlock : stage07::TopkPath::kSeveralBlocks);
      (fits ? one_block : passes) += 1;
    }
  }
  if (max_test_n() >= 64 * 65537) {
    EXPECT_GT(one_block, 0u);
    EXPECT_GT(passes, 0u);
  }
}

TEST(Stage07GpuLarge, SampledBatchesF32) {
  check_sampled_batches<float>(test_seed());
}
TEST(Stage07GpuLarge, SampledBatchesBf16) {
  check_sampled_batches<__nv_bfloat16>(test_seed());
}

TEST(Stage07GpuLarge, LongRowsEverySchedule) {
  const std::uint64_t seed = test_seed();
  const std::vector<Shape> shapes = {
      {1, (std::size_t{1} << 22) + 5}, {3, 1000003}, {40, 300000}, {200, 20000}};
  for (const Shape& shape : shapes) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    for (sortlab::Distribution distribution :
         {sortlab::Distribution::kUniform, sortlab::Distribution::kFewDistinct}) {
      const auto input = sortlab::generate_keys<float>(distribution, n, seed + n);
      for (std::size_t k :
           {std::size_t{1}, std::size_t{64}, stage07::kMaxSortedK, std::size_t{70000}}) {
        if (k > shape.row_length) continue;
        for (stage07::TopkSchedule schedule :
             {stage07::TopkSchedule::kAuto, stage07::TopkSchedule::kOneBlockPerRow,
              stage07::TopkSchedule::kBlocksPerRow, stage07::TopkSchedule::kWarpPerRow,
              stage07::TopkSchedule::kClusterPerRow}) {
          if (schedule == stage07::TopkSchedule::kWarpPerRow &&
              shape.row_length > stage07::kMaxWarpRowLength)
            continue;
          if (schedule == stage07::TopkSchedule::kClusterPerRow &&
              (!stage07::cluster_schedule_built() ||
               !stage07::cluster_split(shape.rows, shape.row_length, sizeof(float), 0, 528)
                    .cluster_per_row))
            continue;
          TopkOptions options;
          options.sorted = k <= stage07::kMaxSortedK;
          options.schedule = schedule;
          SCOPED_TRACE(case_label(n, sortlab::to_string(distribution), seed) +
                       " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                       " schedule=" + std::to_string(static_cast<int>(schedule)));
          const std::string difference = run_and_compare(input, shape, k, options);
          ASSERT_TRUE(difference.empty()) << difference;
        }
      }
    }
  }
}

// The int32-index variant returns the int64 call's columns, narrowed, and the same values, on
// every schedule (outputs poisoned first).
TEST(Stage07GpuEdges, Int32IndicesEqualTheInt64Ones) {
  const std::uint64_t seed = test_seed();
  // The two small shapes fit under the sanitizers' size cap (9300), so memcheck sees the narrowing.
  for (const Shape& shape :
       {Shape{1, 70000}, Shape{300, 1000}, Shape{64, 4096}, Shape{1, 9216}, Shape{4, 2000}}) {
    const std::size_t n = shape.rows * shape.row_length;
    if (n > max_test_n()) continue;
    const auto input = sortlab::generate_keys<float>(sortlab::Distribution::kUniform, n, seed + n);
    DeviceBuffer<float> values_in(input);
    for (std::size_t k : {std::size_t{1}, std::size_t{64}, stage07::kMaxSortedK}) {
      if (k > shape.row_length) continue;
      SCOPED_TRACE("rows=" + std::to_string(shape.rows) +
                   " length=" + std::to_string(shape.row_length) + " k=" + std::to_string(k));
      const std::size_t answers = shape.rows * k;
      DeviceBuffer<float> wide_values(answers), narrow_values(answers);
      DeviceBuffer<std::int64_t> wide_indices(answers);
      DeviceBuffer<std::int32_t> narrow_indices(answers);
      wide_values.poison();
      narrow_values.poison();
      wide_indices.poison();
      narrow_indices.poison();
      std::size_t wide_bytes = 0, narrow_bytes = 0;
      stage07::topk<float>(nullptr, wide_bytes, values_in.data(), shape.rows, shape.row_length, k,
                           wide_values.data(), wide_indices.data());
      stage07::topk_with_int32_indices<float>(nullptr, narrow_bytes, values_in.data(), shape.rows,
                                              shape.row_length, k, narrow_values.data(),
                                              narrow_indices.data());
      DeviceBuffer<unsigned char> wide_temp(wide_bytes), narrow_temp(narrow_bytes);
      wide_temp.poison();
      narrow_temp.poison();
      stage07::topk<float>(wide_temp.data(), wide_bytes, values_in.data(), shape.rows,
                           shape.row_length, k, wide_values.data(), wide_indices.data());
      stage07::topk_with_int32_indices<float>(narrow_temp.data(), narrow_bytes, values_in.data(),
                                              shape.rows, shape.row_length, k, narrow_values.data(),
                                              narrow_indices.data());
      SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::int64_t> wide = wide_indices.download();
      const std::vector<std::int32_t> narrow = narrow_indices.download();
      ASSERT_EQ(wide.size(), narrow.size());
      for (std::size_t i = 0; i < wide.size(); ++i)
        ASSERT_EQ(wide[i], static_cast<std::int64_t>(narrow[i])) << "answer " << i;
      // Bit for bit: the uniform keys hold NaNs, which operator== would call unequal.
      const std::vector<float> wide_answers = wide_values.download();
      const std::vector<float> narrow_answers = narrow_values.download();
      ASSERT_EQ(wide_answers.size(), narrow_answers.size());
      EXPECT_EQ(0, std::memcmp(wide_answers.data(), narrow_answers.data(),
                               wide_answers.size() * sizeof(float)))
          << "the values differ";
    }
  }
}

// k = 0 and zero rows are the empty result: nothing is written, the poison stays.
TEST(Stage07GpuEdges, EmptyResultsWriteNothing) {
  DeviceBuffer<float> values_in(std::vector<float>(40, 1.0f)), values_out(8);
  DeviceBuffer<std::int64_t> indices_out(8);
  values_out.poison();
  indices_out.poison();
  DeviceBuffer<unsigned char> temp(1);
  std::size_t bytes = 1;
  stage07::topk<float>(temp.data(), bytes, values_in.data(), 4, 10, 0, values_out.data(),
                       indices_out.data());
  stage07::topk<float>(temp.data(), bytes, values_in.data(), 0, 10, 2, values_out.data(),
                       indices_out.data());
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::int64_t index : indices_out.download())
    EXPECT_EQ(static_cast<std::uint64_t>(index), 0xa5a5a5a5a5a5a5a5ull);
  for (float value : values_out.download()) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    EXPECT_EQ(bits, 0xa5a5a5a5u);
  }
}

// NaNs of both signs, infinities and signed zeros by hand, as in the CPU test.
TEST(Stage07GpuEdges, NanIsLargestOnTheGpuToo) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> row = {1.0f, nan, -inf, inf, -nan, 0.0f, -0.0f};
  for (std::size_t k = 1; k <= row.size(); ++k) {
    check_all_options(row, Shape{1, row.size()}, k, "hand-made NaN row");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

/// "stage07 usage": the query-then-run convention (the public header's snippet).
TEST(Stage07GpuEdges, UsageSnippet) {
  const std::vector<float> host = {3, 1, 4, 1, 5, 9, 2, 6};  // two rows of four
  DeviceBuffer<float> values_in(host), values_out(4);
  DeviceBuffer<std::int64_t> indices_out(4);
  //! [stage07 usage]
  std::size_t temp_bytes = 0;  // 1. ask for the scratch size (no pointer is needed)
  sortlab::stage07::topk<float>(nullptr, temp_bytes, values_in.data(), 2, 4, 2, values_out.data(),
                                indices_out.data());
  DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it (at least one byte)
  sortlab::stage07::topk<float>(temp.data(), temp_bytes, values_in.data(), 2, 4, 2,
                                values_out.data(), indices_out.data());  // 3. top 2 of each row
  //! [stage07 usage]
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(values_out.download(), (std::vector<float>{4, 3, 9, 6}));
  EXPECT_EQ(indices_out.download(), (std::vector<std::int64_t>{2, 0, 1, 3}));
}

// One scratch, poisoned once and never cleared by the caller, reused by calls of different
// shapes on both schedules: the several-blocks-per-row schedule keeps its counts, tallies and
// tickets there, so stale values from the poison or from the previous call must not matter.
TEST(Stage07GpuEdges, ReusedScratch) {
  const std::uint64_t seed = test_seed();
  std::size_t most = 0;
  for (const Shape& shape : all_shapes())
    for (const auto& schedule : every_schedule(TopkOptions{}, shape.row_length)) {
      std::size_t bytes = 0;
      stage07::topk<float>(nullptr, bytes, nullptr, shape.rows, shape.row_length,
                           std::min<std::size_t>(shape.row_length, 5), nullptr, nullptr,
                           schedule.second);
      most = std::max(most, bytes);
    }
  DeviceBuffer<unsigned char> temp(most);
  temp.poison();
  for (const Shape& shape : all_shapes())
    for (const auto& [schedule, options] : every_schedule(TopkOptions{}, shape.row_length)) {
      SCOPED_TRACE("rows=" + std::to_string(shape.rows) +
                   " length=" + std::to_string(shape.row_length) + " " + schedule);
      const auto input = sortlab::generate_keys<float>(sortlab::Distribution::kUniform,
                                                       shape.rows * shape.row_length, seed);
      const std::size_t k = std::min<std::size_t>(shape.row_length, 5);
      DeviceBuffer<float> values_in(input), values_out(shape.rows * k);
      DeviceBuffer<std::int64_t> indices_out(shape.rows * k);
      values_out.poison();
      indices_out.poison();
      std::size_t bytes = temp.size();
      stage07::topk<float>(temp.data(), bytes, values_in.data(), shape.rows, shape.row_length, k,
                           values_out.data(), indices_out.data(), options);
      SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> want_values;
      std::vector<std::int64_t> want_indices;
      stage07::reference_topk(input, shape.rows, shape.row_length, k, true, want_values,
                              want_indices);
      const std::string difference =
          stage07::compare_topk(want_values, want_indices, values_out.download(),
                                indices_out.download(), shape.rows, k, true);
      EXPECT_TRUE(difference.empty()) << difference;
    }
}

/// Captures one top-k call with \p options into a CUDA graph and replays it on three inputs
/// (uniform, the float specials, uniform again, each fresh). \p shape and \p k: the call's;
/// \p want_path: the kernels the captured call must have queued (kNone: not checked); \p mode:
/// the capture's mode (global: any call the capture forbids, from any thread, fails it).
void capture_and_replay(const TopkOptions& options, const Shape& shape, std::size_t k,
                        stage07::TopkPath want_path = stage07::TopkPath::kNone,
                        cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  const std::uint64_t seed = test_seed();
  const sortlab::CudaStream stream;
  const std::size_t n = shape.rows * shape.row_length, answers = shape.rows * k;
  DeviceBuffer<float> values_in(n), values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  std::size_t temp_bytes = 0;
  stage07::topk<float>(nullptr, temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                       values_out.data(), indices_out.data(), options);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());  // the allocations are done before the capture

  cudaGraph_t graph = nullptr;
  SORTLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), mode));
  stage07::topk<float>(temp.data(), temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                       values_out.data(), indices_out.data(), options, stream.get());
  SORTLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  if (want_path != stage07::TopkPath::kNone) {
    EXPECT_EQ(stage07::last_topk_path(), want_path);
  }
  cudaGraphExec_t exec = nullptr;
  SORTLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto input = sortlab::generate_keys<float>(
        replay == 1 ? sortlab::Distribution::kFloatSpecials : sortlab::Distribution::kUniform, n,
        seed + static_cast<std::uint64_t>(replay));
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(values_in.data(), input.data(), n * sizeof(float),
                                       cudaMemcpyHostToDevice, stream.get()));
    values_out.fill_bytes(sortlab::kPoisonByte, stream.get());
    indices_out.fill_bytes(sortlab::kPoisonByte, stream.get());
    SORTLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    stream.synchronize();
    std::vector<float> want_values;
    std::vector<std::int64_t> want_indices;
    stage07::reference_topk(input, shape.rows, shape.row_length, k, true, want_values,
                            want_indices);
    const std::string difference =
        stage07::compare_topk(want_values, want_indices, values_out.download(),
                              indices_out.download(), shape.rows, k, true);
    EXPECT_TRUE(difference.empty()) << "replay " << replay << ": " << difference;
  }
  SORTLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SORTLAB_CUDA_CHECK(cudaGraphDestroy(graph));
}

// The rule's cluster size asks the device how many clusters it holds (device_resident_clusters():
// a function attribute and an occupancy query, cached per process). Captured in the strictest
// mode on a batch the rule gives a cluster (16 rows of 32000: 6 blocks by load), the call must
// queue only its kernel. Run alone (a filter of this one test) the cache is cold, so the queries
// themselves run inside the capture.
TEST(Stage07GpuEdges, CudaGraphCapturesTheRulesClusterInGlobalMode) {
  if (!stage07::cluster_schedule_built()) GTEST_SKIP() << "this build has no cluster kernel";
  const Shape shape{16, 32000};
  if (shape.rows * shape.row_length > max_test_n()) GTEST_SKIP() << "above SORTLAB_TEST_MAX_N";
  for (std::size_t k : {std::size_t{50}, std::size_t{2048}}) {
    SCOPED_TRACE("k=" + std::to_string(k));
    const TopkOptions options{true, true};
    // The capture first: asking the split before it would fill the count's cache.
    capture_and_replay(options, shape, k, stage07::TopkPath::kNone, cudaStreamCaptureModeGlobal);
    if (::testing::Test::HasFatalFailure()) return;
    const stage07::TopkPath taken = stage07::last_topk_path();
    EXPECT_TRUE(taken == stage07::TopkPath::kCluster ||
                taken == stage07::TopkPath::kClusterSampled);
    const stage07::RowSplit split =
        stage07::topk_split(shape.rows, shape.row_length, k, sizeof(float), options,
                            stage07::multi_block_target(sortlab::multiprocessor_count()),
                            stage07::device_resident_clusters);
    ASSERT_TRUE(split.cluster_per_row);
  }
}

// The call queues its work on its stream and nothing else: captured into a CUDA graph once,
// the graph picks the top-k of whatever the input holds each time it is replayed, on both
// schedules (several blocks per row: the memset of the tickets, the passes, the gather and the
// sort are all in the graph, and the replays reuse the scratch the previous one left).
TEST(Stage07GpuEdges, CudaGraphCaptureAndReplay) {
  // 64 rows of 1000, fewer under a small SORTLAB_TEST_MAX_N (but always one).
  const Shape shape{std::min<std::size_t>(64, std::max<std::size_t>(1, max_test_n() / 1000)), 1000};
  for (ScheduleSet set : {ScheduleSet::kClassic, ScheduleSet::kCluster})
    for (const auto& [schedule, schedule_options] :
         every_schedule(TopkOptions{true, true}, 1000, set)) {
      SCOPED_TRACE(schedule);
      capture_and_replay(schedule_options, shape, 50);
      if (::testing::Test::HasFatalFailure()) return;
      if (set == ScheduleSet::kCluster) {
        // Clusters of 16 blocks: the kernel's attributes (shared memory, the non-portable size)
        // may be set for the first time while the stream is captured.
        TopkOptions sixteen = schedule_options;
        sixteen.cluster_blocks = 16;
        SCOPED_TRACE("16 blocks per cluster");
        capture_and_replay(sixteen, shape, 50);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// The sampled rows' one-block finish is a chained launch (programmatic dependent launch,
// common/chained_launch.cuh): captured, it becomes a programmatic edge of the graph, and its
// shared memory is padded so its blocks spread over the SMs (common/spread_blocks.hpp), a
// kernel attribute that may be set for the first time inside the capture. The graph must give
// the same answers as the stream, replay after replay on the scratch the last replay left (the
// row states the sample pass fills). Forced: rows of 16411 in spans of 1024 with the 2048-entry
// list (k = 64) and rows of 128256 in spans of 16384 with the large list (k = 2048, where the
// device gives a block its bytes); the automatic rule on two LLM shapes, whose path is the
// rule's (checked against sampled_batch_split() and the list the device allows, as
// check_sampled_batches() does).
TEST(Stage07GpuEdges, CudaGraphCapturesTheChainedSampledFinish) {
  struct Case {
    Shape shape;
    std::size_t k;
    std::size_t values_per_block;  // 0: the automatic rule
  };
  const std::vector<Case> cases = {{{2, 16411}, 64, 1024},
                                   {{2, 128256}, 2048, 16384},
                                   {{64, 32000}, 50, 0},
                                   {{256, 32000}, 1024, 0}};
  const std::size_t target = stage07::multi_block_target(sortlab::multiprocessor_count());
  std::size_t captured = 0;
  for (const Case& c : cases) {
    if (c.shape.rows * c.shape.row_length > max_test_n()) continue;
    TopkOptions options{true, true};
    stage07::TopkPath want = stage07::TopkPath::kSampledOneBlock;
    std::size_t blocks_per_row = 0;
    if (c.values_per_block != 0) {
      options.values_per_block = c.values_per_block;
      options.sample = stage07::TopkSample::kOn;
      blocks_per_row = (c.shape.row_length + c.values_per_block - 1) / c.values_per_block;
    } else {
      const stage07::RowSplit split =
          stage07::sampled_batch_split(c.shape.rows, c.shape.row_length, c.k, options, target);
      if (!split.several_blocks) continue;  // this device's rule takes another schedule
      blocks_per_row = split.blocks_per_row;
    }
    const std::size_t list_entries = stage07::sampled_finish_list_entries(
        stage07::sample_plan(c.shape.row_length, c.k, blocks_per_row,
                             stage07::list_capacity_for(c.shape.row_length), true),
        c.shape.rows, c.shape.row_length, blocks_per_row, sizeof(float), options,
        sortlab::shared_memory_per_block_optin());
    if (list_entries == 0) want = stage07::TopkPath::kSeveralBlocks;  // no list fits a block
    SCOPED_TRACE("rows=" + std::to_string(c.shape.rows) +
                 " length=" + std::to_string(c.shape.row_length) + " k=" + std::to_string(c.k) +
                 (c.values_per_block != 0 ? " forced" : " the rule"));
    capture_and_replay(options, c.shape, c.k, want);
    if (::testing::Test::HasFatalFailure()) return;
    captured += want == stage07::TopkPath::kSampledOneBlock ? 1 : 0;
  }
  if (max_test_n() >= 2 * 16411) {
    EXPECT_GT(captured, 0u) << "no captured call took the chained one-block finish";
  }
}

}  // namespace
