/// \file
/// \brief Stage 07: top-k by radix select (public API).
///
/// For every row of a row-major `num_rows x row_length` matrix on the device, the k largest (or
/// smallest) values and their column indices, the job of `torch.topk(x, k, dim=-1)`: sampling
/// over a vocabulary of logits, retrieval, beam search.
///
/// The rules, the same on the GPU and in the CPU model (topk_model.hpp):
/// - **Order**: the ordered bits of common/key_traits.hpp (-0.0 equals +0.0), except that
///   **every NaN is the largest value** (PyTorch's rule; select_key.hpp). With `largest = false`
///   NaNs are therefore the last values chosen.
/// - **Ties**: values equal to the k-th value are taken lowest column first, so the result is
///   one well-defined set (and, sorted, one well-defined sequence): best first, equal values by
///   ascending column.
/// - **Unsorted output** (`sorted = false`): the values better than the k-th value in column
///   order, then the values equal to it in column order; deterministic and the same on both
///   schedules (callers that only need the set should still not rely on the order: a faster
///   schedule may change it, and would say so here).
/// - **Edge cases**: k > row_length is a sortlab::Error (this includes k > 0 on empty rows);
///   k = 0 or num_rows = 0 is an empty result (nothing is written, as torch.topk returns empty
///   tensors). Sorted output needs k <= kMaxSortedK (one tile of stage 05's block sort); a
///   larger k with `sorted = true` is a sortlab::Error for now (README: next steps).
///
/// Four schedules (resolve_schedule() picks one; TopkOptions::schedule can force any):
/// - **one warp per row** (eight rows per block) for rows of at most kMaxWarpRowLength values
///   that would get one block each: the same phases with warp scans, ballots and shuffles
///   instead of block barriers, whose fixed cost per row dominates short rows.
/// - **one block per row** (PyTorch's sbtopk): the block reads its row once per 8-bit digit
///   (four times for 32-bit values) to narrow down the k-th value, and once more to gather the
///   answers; everything lives in shared memory. Right when there are enough rows to fill the GPU.
///   With candidate filtering (below) into a shared list of kOneBlockListEntries entries: once the
///   entries a pass keeps fit, later passes and the gather read the list, not the row.
/// - **several blocks per row** (PyTorch's mbtopk): each row is cut into spans of
///   `values_per_block` values, one block each; one launch per digit pass, in which every block
///   counts its span's digits into the scratch and the last block of the row to finish picks the
///   digit for the whole row; then one gather launch, where every block writes its answers at
///   offsets scanned per row in block order. The output is the same as the one-block schedule's,
///   element for element (sorted or not). **Candidate filtering**: from pass 1 on, when the row's
///   entries whose fixed digits are at least the prefix (the candidates plus the answers already
///   known) fit a list of list_capacity_for() entries, the pass copies them (value and column,
///   in column order per block) into a list in the scratch, and the next pass and the gather read
///   the list instead of the row; when they do not fit (all-equal rows, few distinct values, or
///   simply an early pass) the next pass reads the row as before. The last block of a pass
///   decides, per row, on the GPU. Keeping the known answers in the list, rather than writing
///   them out early, leaves the output order unchanged. **The sample pass** (sample_pass.cuh,
///   TopkOptions::sample): before pass 0, every block finds a lower bound on the k-th value
///   from a sample of the row and copies its values at or above it into the list in one read;
///   when that list holds k or more values and nothing overflowed, pass 0 reads it instead of
///   the row, so a row is read once instead of three times.
///
/// - **one thread-block cluster per row** (sm_90 builds; cluster_rows.cuh): the row read once
///   into the shared memory of a cluster of up to 16 blocks, every pass counted there and summed
///   through distributed shared memory, one launch and no scratch. The rule takes it where it
///   would split rows over several blocks and the clusters take at most kClusterRuleMaxWaves
///   waves of the GPU (resolve_schedule()).
///
/// With the rule's schedule, small k needs no select: k = 1 is one read and a reduction
/// (argmax_rows.cuh, argmax_split()) and 2 <= k <= kMaxQueueK per-thread queues of the best
/// values and bitonic merges (queue_rows.cuh, queue_split()), a warp (or 8 lanes), a block or a
/// cluster per row. The output is the same, element for element.
///
/// Usage follows CUB's temp-storage convention:
/// \snippet tests/stage07/test_stage07_gpu.cpp stage07 usage
///
/// Status: all four schedules and the two reductions for small k (argmax_split(), queue_split())
/// pass the stage07 GPU suite on sm_90 (H100, 2026-11-28), with compute-sanitizer clean on the
/// tests of each (README); one long row at 54-76% of the floor; the LLM shapes with k >= 50 and
/// the rows set with k >= 8 short of issue 18's targets (README).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "chapters/07_topk/sample_plan.hpp"
#include "chapters/07_topk/select_digits.hpp"
#include "common/key_traits.hpp"
#include "common/scratch_layout.hpp"

namespace sortlab::stage07 {

/// What this stage adds to the ladder (for a future benchmark label and results table).
inline constexpr const char kSummary[] =
    "top-k by radix select: one warp per short row, one block per row, several for long rows "
    "or a thread-block cluster per row, 8-bit digits most significant first, gather through "
    "scans and ballots, stage 05's block sort for sorted output of more than 256; small k "
    "without a select (k = 1 an argmax, 2 <= k <= 32 per-thread queues and merges)";

/// Threads of every stage 07 block: one per digit of a pass (select_digits.hpp), so choosing
/// the digit is one block-wide scan.
inline constexpr int kBlockThreads = 256;
/// One tile of the block sort (stage 05's BlockRadixSort, kBlockThreads threads) that orders a
/// row's k answers.
struct SortTile {
  int keys_per_thread;  ///< keys each thread holds: the tile is kBlockThreads times this
  int radix_bits;       ///< digit width of its passes
};
/// The answer sort's tiles, smallest first: 256, 1024 and 2048 keys. A row's answers use the
/// smallest tile that holds k (sort_tile_for()), so k = 50 sorts 256 keys, not 2048. Tile 0
/// (one answer per thread) is ordered by counting ranks (topk_kernels.cuh, sort_few_answers():
/// cheaper than any radix pass for so few keys), so its radix_bits are unused; the others are
/// stage 05's block sort. The middle tile uses 4-bit digits: with few keys per thread, clearing
/// and scanning each thread's 2^(r-1)+1 packed counter words costs more than the keys, so more,
/// cheaper passes win (stage 06's small tiles chose the same); the 2048-key tile keeps the 6
/// bits it was verified with.
inline constexpr SortTile kSortTiles[] = {{1, 4}, {4, 4}, {8, 6}};
/// Number of tiles in kSortTiles.
inline constexpr int kNumSortTiles = 3;
/// Keys per thread of the largest tile.
inline constexpr int kSortKeysPerThread = kSortTiles[kNumSortTiles - 1].keys_per_thread;
/// Largest k that `sorted = true` accepts: the largest tile of the block sort.
inline constexpr std::size_t kMaxSortedK = std::size_t{kBlockThreads} * kSortKeysPerThread;

/// Keys of the two smaller tiles (scalars: device code may read a constexpr scalar, not the
/// array).
inline constexpr std::size_t kSortTile0Keys =
    std::size_t{kBlockThreads} * static_cast<std::size_t>(kSortTiles[0].keys_per_thread);
/// Keys of the middle tile (see kSortTile0Keys).
inline constexpr std::size_t kSortTile1Keys =
    std::size_t{kBlockThreads} * static_cast<std::size_t>(kSortTiles[1].keys_per_thread);
static_assert(kNumSortTiles == 3 && kSortTile0Keys < kSortTile1Keys && kSortTile1Keys < kMaxSortedK,
              "three tiles, smallest first");

/// The index in kSortTiles of the smallest tile that holds \p k answers (k <= kMaxSortedK).
/// Host and device code share it; the CPU tests check the boundaries.
/// \param k answers per row
SORTLAB_HOST_DEVICE constexpr int sort_tile_for(std::size_t k) {
  return k <= kSortTile0Keys ? 0 : k <= kSortTile1Keys ? 1 : 2;
}
/// Longest row: counts and columns are 32-bit inside the kernels (int64 indices come out).
inline constexpr std::size_t kMaxRowLength = (std::size_t{1} << 31) - 1;
/// Most rows: one block per row, and a grid holds at most 2^31 - 1 blocks.
inline constexpr std::size_t kMaxRows = (std::size_t{1} << 31) - 1;

// ---- The several-blocks-per-row schedule: its constants, all here -------------------------------

/// Fewest values a block of the several-blocks-per-row schedule gets (16 per thread) when the
/// rule picks the split: below that, a pass's launch costs more than the block's counting saves.
inline constexpr std::size_t kMinValuesPerBlock = 16 * std::size_t{kBlockThreads};
/// Blocks per multiprocessor the split aims for, so that the grid of one pass is one full wave;
/// the pass kernel's `__launch_bounds__` hold it to 64 registers per thread so that four
/// 256-thread blocks do fit an SM (at 67 registers three did, and one row of 2^28 took 1.33
/// waves: 1.88 ms against 1.55).
inline constexpr std::size_t kBlocksPerSm = 4;
/// Largest grid the split aims for, whatever the GPU: the scratch is planned for it without
/// asking the device (the size query makes no CUDA call), so a GPU with more than
/// kMaxTargetBlocks / kBlocksPerSm = 1024 SMs gets this many blocks.
inline constexpr std::size_t kMaxTargetBlocks = 4096;
/// The span the tests force (TopkOptions::values_per_block) so that rows of a few thousand
/// values, under compute-sanitizer's size cap, already span several blocks.
inline constexpr std::size_t kTestValuesPerBlock = 2 * std::size_t{kBlockThreads};

// ---- Candidate filtering (several blocks per row) -----------------------------------------------

/// A row's candidate list holds at most `ceil(row_length / kCandidateDivisor)` entries (value and
/// 32-bit column; two lists per row, double-buffered). A pass writes the entries its successor
/// needs (the values whose fixed digits are at least the prefix: the candidates and the values
/// already known to be answers) only when the row's count of them fits; otherwise the next pass
/// reads the row again. Sixteen keeps the scratch at 2 x (sizeof(T) + 4) / 16 of the input (a
/// quarter of it for f32 before alignment) while letting any pass whose prefix leaves at most
/// 1/16 of the row filter; a guess until measured.
inline constexpr std::size_t kCandidateDivisor = 16;
/// 16-byte loads each thread issues before counting any of their values (count phase of both
/// schedules): 4 x 16 bytes per thread, 64 KiB in flight on an SM of four 256-thread blocks.
inline constexpr int kCountVectorsPerThread = 4;
/// Entries per thread of one tile of the filter of several blocks per row: a warp compacts
/// 32 x 8 entries with eight ballots, and the block needs one barrier per 2048 entries (not one
/// block scan per 256).
inline constexpr int kFilterItemsPerThread = 8;
/// The same for one block per row, which filters its shared list in place and so must hold each
/// entry's column in a register across the barrier too: four entries per thread keep its kernel
/// at the registers it had without filtering (eight made ptxas spill).
inline constexpr int kOneBlockFilterItemsPerThread = 4;

/// Entries of the candidate list that one block per row keeps in shared memory: 2048 values and
/// u32 columns (24 KiB for 64-bit values) share their bytes with the answer sort's storage, which
/// is dead while the list lives, so the kernel's shared memory does not grow. One list, filtered
/// in place (a kept entry never moves to a later position). Rows whose passes keep more than
/// this read the row, as before.
inline constexpr std::size_t kOneBlockListEntries = 2048;
static_assert(2 * kShortRowMaxExpectedEntries == kOneBlockListEntries,
              "the smaller sample is taken only where its list fits half the smallest list");

/// Entries of the shared list with which one block finishes a row after the sample pass of
/// several blocks (topk_sampled_rows_kernel; TopkPath::kSampledOneBlock): four times
/// kOneBlockListEntries, so k = 1024 and 2048 of the LLM vocabularies fit (the plan expects about
/// 1900 and 3200 entries at 128256 values), in dynamic shared memory (64 KiB for 32-bit values,
/// 96 KiB for 64-bit ones) that is no longer the answer sort's.
inline constexpr std::size_t kSampledListEntries = 4 * kOneBlockListEntries;

/// Longest row the one-block finish takes (TopkSchedule::kAuto): a row whose sample fails is read
/// whole by its block, and on longer rows that would cost more than the several blocks' passes
/// save elsewhere.
inline constexpr std::size_t kSampledOneBlockMaxLength = std::size_t{1} << 18;

/// The shared list with which topk() (TopkSchedule::kAuto, several blocks per row with the
/// sample pass planned as \p plan) finishes each row in one block (TopkPath::kSampledOneBlock),
/// or 0 where the digit passes run instead. kOneBlockListEntries where the plan's expected list
/// fits it (sampled_rows_fit_one_block(): in the answer sort's bytes, about 34 KiB, as one block
/// per row), else kSampledListEntries where that fits and the device lets a block take its
/// shared memory (\p optin_bytes: 64-99 KiB by the value's size); only rows of at most
/// kSampledOneBlockMaxLength values, and at most one list region (kSampleWarps per block) per
/// thread of the block. Host arithmetic, no CUDA call (the GPU tests ask it which path ran).
/// \param plan the call's sample plan (sample_plan() with its blocks per row)
/// \param row_length values per row
/// \param blocks_per_row blocks of the row in the sample pass
/// \param value_bytes sizeof(T)
/// \param optin_bytes shared_memory_per_block_optin() of the device
std::size_t sampled_rows_list_entries(const SamplePlan& plan, std::size_t row_length,
                                      std::size_t blocks_per_row, std::size_t value_bytes,
                                      std::size_t optin_bytes);

/// Shortest row for which one block per row draws the sample by default (TopkSample::kAuto):
/// the sample read took 1024 x 65536 from 0.40 to 0.30 ms and 4096 x 32768 from 0.72 to 0.54,
/// but 16384 x 4096 from 0.43 to 0.51 (k = 8), where the bound's four passes over 256 samples
/// cost more than the three passes over a 16 KiB row they save (H100, README).
inline constexpr std::size_t kOneBlockSampleMinLength = 16384;

/// A sixteenth of a row of \p row_length values, `ceil(row_length / kCandidateDivisor)` (host and
/// device; CPU-tested): the entries of one candidate list, raised to at least kSampledListEntries
/// on rows of kSampledBatchMinLength values and more (list_capacity_for(), which the kernels use).
/// \param row_length values per row
SORTLAB_HOST_DEVICE constexpr std::size_t candidate_capacity(std::size_t row_length) {
  return (row_length + kCandidateDivisor - 1) / kCandidateDivisor;
}

/// Longest row that one warp selects from (topk_warp_rows_kernel), and the rule's limit for
/// it. One block of 256 threads per row pays fixed costs per row (barriers, block scans, 256
/// counters cleared every pass) whatever the row's length: 6.0 ms for 2^19 rows of 128 values,
/// where reading them takes 0.09 ms. A warp needs no block barrier and a block holds eight rows:
/// 1.0 ms there, 0.44-0.51 against 0.87-0.92 ms for 67108 rows of 1000; but 0.45-0.53 against
/// 0.42-0.44 ms for 16384 rows of 4096, where one warp's 128 values per lane per pass cost more
/// than a block's barriers (H100, k = 1 .. 256, README). So rows of up to 1024 values.
inline constexpr std::size_t kMaxWarpRowLength = 1024;
/// Loads each lane of the one-warp-per-row kernel issues before counting any of their values
/// (32 lanes x 8 loads: 256 values of a row in flight per warp).
inline constexpr int kWarpCountLoads = 8;
/// Largest k whose sorted answers one warp per row orders (up to 32 in the select kernel: one
/// answer per lane, ranks by shuffles; up to 256 in a second launch of one warp per row: a
/// bitonic network over 2, 4 or 8 registers per lane); larger k is ordered by a second launch
/// of one block per row (the answer sort of the several-blocks schedule). Sorted output of rows
/// of at most this many values skips the select: the warp sorts the whole row with the same
/// network and writes the first k (topk_warp_sort_whole_rows_kernel).
inline constexpr std::size_t kMaxWarpSortedK = 256;

/// Which schedule a call uses.
enum class TopkSchedule {
  kAuto,            ///< the documented rule (select_schedule())
  kOneBlockPerRow,  ///< always one block per row, reading the row from memory every pass
  kBlocksPerRow,    ///< always the several-blocks-per-row kernels (even with one block per row)
  /// One warp per row, eight rows per block (rows of at most kMaxWarpRowLength values; a
  /// longer row with this schedule is an error).
  kWarpPerRow,
  /// One thread-block cluster per row (cluster_rows.cuh; sm_90 builds only, rows of at most
  /// kMaxClusterBlocks x kMaxClusterSpanBytes bytes): the row read once into the cluster's
  /// shared memory, one launch for the whole call.
  kClusterPerRow,
};

/// Whether a call draws a sample of each row for a bound on the k-th value (sample_plan.hpp):
/// several blocks per row then run the sample pass before their digit passes, one block per row
/// reads its row once into its shared list, and one cluster per row filters its spans into one
/// block's list (cluster_sample_plan()).
enum class TopkSample {
  /// When the input is larger than the device's L2 cache (and, one block per row, rows have at
  /// least kOneBlockSampleMinLength values): below that, the digit passes re-read the rows from
  /// L2, and the sample pass (one more launch, and a bound to find before its read) costs more
  /// than it saves (H100: 1 x 128256, k = 2048: 0.048 ms without it, 0.077 with it; 64 x 2^20,
  /// k = 64: 0.52 without, 0.29 with; README). One cluster per row: for at most
  /// kSampledClusterMaxRows rows (cluster_sample_plan()).
  kAuto,
  kOn,   ///< whenever sample_plan() allows it (the tests' small inputs)
  kOff,  ///< never: the digit passes read the row
};

/// Largest or smallest, sorted or not, and (for tests and measurements) the schedule.
struct TopkOptions {
  bool largest = true;  ///< the k largest values (false: the k smallest)
  bool sorted = true;   ///< best first, ties by column (false: the set in the documented order)
  TopkSchedule schedule = TopkSchedule::kAuto;  ///< force a schedule (the output is the same)
  /// Values per block of the several-blocks-per-row schedule, rounded up to a multiple of
  /// kBlockThreads; 0: the rule's. Tests set kTestValuesPerBlock to get many blocks per row.
  std::size_t values_per_block = 0;
  /// Whether the sample pass (several blocks per row) or the sample read (one block per row)
  /// runs, where sample_plan() allows it; the output is the same either way.
  TopkSample sample = TopkSample::kAuto;
  /// Blocks per cluster of the cluster-per-row schedule, 1 .. kMaxClusterBlocks. 0: with the
  /// schedule forced, cluster_split()'s default (up to 8, enough to spread a few rows over the
  /// GPU); by the rule, resolve_schedule()'s size (which may differ: 16 blocks for one row of
  /// 128256, 2 for 128 rows of 32000). A row longer than this many blocks hold gets more.
  std::size_t cluster_blocks = 0;
};

/// Whether a call of \p input_bytes of input (all rows) runs the sample pass on a device with
/// \p l2_bytes of L2 cache: TopkSample::kOn, or kAuto with the input larger than the L2 (where
/// sample_plan() allows it). Host arithmetic; topk() and the GPU tests' model comparison use it.
/// \param options the call's options
/// \param input_bytes num_rows x row_length x sizeof(T)
/// \param l2_bytes the device's L2 size (common/device_properties.hpp)
inline bool sample_pass_wanted(const TopkOptions& options, std::size_t input_bytes,
                               std::size_t l2_bytes) {
  return options.sample == TopkSample::kOn ||
         (options.sample == TopkSample::kAuto && input_bytes > l2_bytes);
}

/// How a call cuts its rows: one block per row, or `blocks_per_row` blocks of
/// `values_per_block` values each (the last block of a row may get fewer).
struct RowSplit {
  bool several_blocks = false;       ///< the several-blocks-per-row kernels run
  bool warp_per_row = false;         ///< one warp per row (eight rows per block)
  std::size_t blocks_per_row = 1;    ///< blocks per row (1 for one block per row)
  std::size_t values_per_block = 0;  ///< span of one block (the row length for one block)
  /// One cluster of `blocks_per_row` blocks per row, each holding `values_per_block` values of
  /// it in shared memory (cluster_split()).
  bool cluster_per_row = false;
};

// ---- The cluster-per-row schedule (cluster_rows.cuh)
// ---------------------------------------------

/// Most blocks in one row's cluster: 16, the H100's largest (a *non-portable* size: past 8 the
/// kernel opts in, and a GPU whose clusters stop at 8 fails the launch with an error).
inline constexpr std::size_t kMaxClusterBlocks = 16;
/// Most blocks the rule gives a cluster to spread a few rows over the GPU: 8, the size every
/// sm_90 GPU supports (a row longer than 8 blocks hold still gets more).
inline constexpr std::size_t kPortableClusterBlocks = 8;
/// The span of the rule's fallback (resolve_schedule(): where no size holds the batch within
/// kClusterRuleMaxLoad blocks per SM): about this many values per block. A block's passes cost a
/// fixed part (cluster barriers, the digit choice, the answer gather) and a part per value, so
/// where rows are many the fewest blocks that still fill the GPU win: measured on the H100
/// (2026-11-28, sorted, k = 50 and 2048, clusters forced to 2, 4 and 8 blocks), 64-256 rows of
/// 32000 f32 or bf16 ran fastest in clusters of 2 (16000 values each), 64 rows of 128256 in
/// clusters of 8 (16064), not 6 (21376).
inline constexpr std::size_t kClusterRuleSpanValues = 16384;
/// The rule keeps one cluster per row only when its blocks take at most this many waves of the
/// GPU (cluster_waves()); past it, the several-blocks schedule, whose passes stream the rows
/// instead of holding them in shared memory, was faster: 128 rows of 128256 f32 (4 waves) 0.146
/// against 0.166 ms, 256 rows of 128256 bf16 (6 waves) 0.144 against 0.274, where 128 rows of
/// 128256 bf16 (3 waves) ran 0.152 against 0.163 and 64 rows of 128256 f32 (2 waves) 0.100
/// against 0.122 (the same measurements).
inline constexpr std::size_t kClusterRuleMaxWaves = 3;
/// Most blocks of a batch's clusters an SM holds at once that the rule's load cost counts
/// (cluster_load()): 4, the cluster kernel's register bound for values of up to 4 bytes.
inline constexpr std::size_t kClusterRuleMaxLoad = 4;
/// What a block's span costs, in tenths of its values, when the SMs hold 1, 2, 3 or 4 of the
/// batch's blocks each (its load, cluster_load()); the rule's size is the even one whose
/// `span x cost` is least. A second block on an SM costs less than its values (0.4, not 1): the
/// two blocks' passes are latency, and their waits overlap; a third and a fourth are nearly full
/// price (the measurements bound the fourth's only from below, at 3.0; 3.5 leaves a margin). Fitted
/// on an H200 (sessions 30 and 31, k = 1024 and 2048, f32 and bf16, 13-128 rows of 32000 and 13-48
/// of 65536 in clusters of 2-8, 78 shapes): the size it picks is the fastest of the even sizes or
/// within 3% of it at every shape, where the rule of session 30 lost up to 20% (mean 8.6% at
/// 32-128 rows of 32000). Even sizes only: clusters of 3, 5 and 7 ran slower than their counts
/// predict, and were fastest by more than 2% only at bf16 32 x 65536 (7 blocks, 9% faster than 6).
inline constexpr std::size_t kClusterLoadCostTenths[kClusterRuleMaxLoad] = {10, 14, 22, 35};
/// What a block of a cluster of kMaxClusterBlocks costs over kClusterLoadCostTenths, in per cent:
/// its passes wait on twice the blocks (cluster barriers, the remote loads of the count sum).
/// Fitted on an H200 (session 31), and no value fits every measured shape: f32 17 x 100000 ran
/// 4-6% faster in 6 blocks at one per SM than in 16 at three (so more than 121.1%); f32 and bf16
/// 20 x 151936 ran 12-35% faster in 16 blocks at three per SM than in 8 at two (so less than
/// 126.8%); bf16 17 x 128256 and 17 x 151936 ran 1-4% faster in 16 blocks than in 6 at one per SM
/// (so less than 120.5%). 124% keeps every measured shape within 1% of the rule before it or
/// faster, and gives up those 1-4%.
inline constexpr std::size_t kWideClusterCostPercent = 124;
/// A few rows (so few that 8 blocks each leave SMs idle: at most 16 on an H100) spread over
/// kMaxClusterBlocks blocks when the rule's cluster would give a block more than this many
/// values, and keep the cluster only when their blocks then hold at most this many: a few rows
/// are all latency, and more blocks halve each one's passes (1 x 128256 f32: 16 blocks of 8064
/// values against 8 of 16064, 2026-11-27; 16 x 151936 f32, k = 50: 0.042 ms in 16 blocks
/// against 0.067 in 8, bf16 0.041 against 0.051, 2026-11-28), while a single row's spans longer
/// than this were slower than several blocks per row (1 x 200000 f32 in 16 blocks of 12544,
/// 2026-11-27, README).
inline constexpr std::size_t kClusterRuleMaxValuesPerBlock = 10240;
/// Longest span, in values, the rule gives a block of a cluster when rows are many: the longest
/// the measurements of 2026-11-28 covered (151936-value rows in 8 blocks, 18992 values: faster
/// than several blocks per row in bf16 at 64 and 128 rows, slower in f32 at 64 rows, where the
/// waves already exclude it). Longer spans, unmeasured, keep several blocks per row. 2-byte values
/// of rows of at most 8 x 19456 values may take twice as many, as many bytes (session 31, H200:
/// bf16 32 x 128256 and 32 x 151936 in 6 blocks of 21376 and 25344 values, 5-9% faster than in 8;
/// 48 x 128256 in 4 of 32064, 4% faster).
inline constexpr std::size_t kClusterRuleMaxSpanValues = 19456;
/// Most bytes of a row one block of a cluster holds in shared memory: 96 KiB. With its candidate
/// list (or lane counters) and static storage a block of the largest span takes about 150 KiB
/// (f32) to 180 KiB (bf16: its list entries are 6 bytes for 2 of span), so it has an SM to
/// itself; a 32 KiB span of f32 takes about 54 KiB, and 4 such blocks share an SM.
inline constexpr std::size_t kMaxClusterSpanBytes = 96 * 1024;
static_assert(kMaxClusterSpanBytes / 2 < 65536,
              "a span's answer counts are packed two to a 32-bit word (16 bits each)");

/// How many clusters of \p cluster_blocks blocks the GPU holds at once when each block asks for
/// \p dynamic_bytes bytes of dynamic shared memory (the plain cluster kernel for values of
/// \p value_bytes bytes); 0 when none can be resident, and the rule then never picks that
/// cluster. device_resident_clusters() answers for the current GPU; without one (a null pointer:
/// the CPU tests) cluster_waves() and clusters_at_load() count by their models.
using ResidentClusters = std::size_t (*)(std::size_t cluster_blocks, std::size_t dynamic_bytes,
                                         std::size_t value_bytes);

/// The current device's answer to ResidentClusters for the plain cluster kernel
/// (cudaOccupancyMaxActiveClusters, asked once per device, cluster size, bytes and value size,
/// then cached; a function attribute and an occupancy query, no work on a stream). The driver
/// places a cluster's blocks on the SMs of one GPC, so fewer clusters fit than blocks per SM x
/// SMs / cluster size: on an H200 (session 30), 15 clusters of 8 blocks of one block per SM
/// instead of 16, 21 of 16 blocks of three per SM instead of 24. The count is the plain kernel's:
/// the sampled cluster (2 blocks per SM at most) runs where the rule's batches are few rows or
/// short ones, and the answer sort's bytes are not counted (cluster_waves()). A cluster shape the
/// device rejects (the query fails with an invalid-value or cluster-size error) counts as 0.
/// \param cluster_blocks blocks per cluster (1 to kMaxClusterBlocks) \param dynamic_bytes
/// dynamic shared memory per block, at most what the cluster kernel's largest span takes
/// \param value_bytes sizeof(T): 2, 4 or 8 \return clusters resident at once: 0 if none fits, or
/// in a build without the cluster kernel (cluster_schedule_built())
/// \throws sortlab::Error for arguments out of those ranges
std::size_t device_resident_clusters(std::size_t cluster_blocks, std::size_t dynamic_bytes,
                                     std::size_t value_bytes);

/// Whether this build has the cluster-per-row kernel (every architecture it builds is sm_90 or
/// newer). Without it, TopkSchedule::kClusterPerRow is an error and the rule never picks it.
bool cluster_schedule_built();

/// The cluster split of rows of \p row_length values of \p value_bytes bytes: `cluster_per_row`
/// with `blocks_per_row` blocks of `values_per_block` values each, or a split with
/// `cluster_per_row = false` when no cluster of kMaxClusterBlocks holds the row. The blocks are
/// the fewest whose spans of at most kMaxClusterSpanBytes hold the row, raised to
/// `ceil(target_blocks / num_rows)` (so that a batch of few rows still spreads over the GPU) up
/// to kPortableClusterBlocks, or \p requested_blocks when nonzero (still raised to the fewest
/// that hold the row). The span is `ceil(row_length / blocks)` rounded up to a multiple of 64
/// values (16-byte aligned spans for every type). Pure host arithmetic (CPU-tested). \param
/// num_rows rows (at least 1) \param row_length values per row (at least 1) \param value_bytes
/// sizeof(T) \param requested_blocks TopkOptions::cluster_blocks (0: the rule) \param target_blocks
/// multi_block_target() of the device
RowSplit cluster_split(std::size_t num_rows, std::size_t row_length, std::size_t value_bytes,
                       std::size_t requested_blocks, std::size_t target_blocks);

/// The grid the several-blocks-per-row schedule aims for on a GPU of \p multiprocessors SMs:
/// kBlocksPerSm per SM, at most kMaxTargetBlocks, at least 1.
/// \param multiprocessors the device's SM count (common/device_properties.hpp)
std::size_t multi_block_target(std::size_t multiprocessors);

/// The schedule rule, pure host arithmetic. With TopkSchedule::kAuto: one block per row when
/// `2 * num_rows >= target_blocks` (the rows alone give every SM two blocks or more) or when the
/// rows are too short to give two blocks kMinValuesPerBlock values each; otherwise
/// `min(ceil(row_length / kMinValuesPerBlock), floor(target_blocks / num_rows))` blocks per row
/// (rounded down, so that every row's blocks fit one wave of target_blocks), then the span rounded
/// up to a multiple of kBlockThreads (and the blocks recounted). A forced kBlocksPerRow uses the
/// same count, at least 1; a nonzero `options.values_per_block` fixes the span instead. When the
/// rule picks one block per row and the row has at most kMaxWarpRowLength values, one warp takes
/// the row instead (`warp_per_row`); a forced kOneBlockPerRow never does that, a forced
/// kWarpPerRow always does (topk() rejects it for longer rows). The rule is monotone in
/// \p target_blocks, so the scratch planned for kMaxTargetBlocks covers every GPU.
/// \param num_rows rows
/// \param row_length values per row (at least 1 when several blocks can be chosen)
/// \param options the schedule and span options
/// \param target_blocks multi_block_target() of the device
RowSplit select_schedule(std::size_t num_rows, std::size_t row_length, const TopkOptions& options,
                         std::size_t target_blocks);

/// The schedule topk() runs for values of \p value_bytes bytes: select_schedule(), then, when
/// the call may use it (forced, or the rule's choice of several blocks per row with no span
/// given, in a build that has the cluster kernel) and a cluster holds the row, cluster_split().
/// Forced, with TopkOptions::cluster_blocks. By the rule: of the even sizes 2 to
/// kPortableClusterBlocks, and kMaxClusterBlocks for rows whose spans in kPortableClusterBlocks
/// would hold more than kClusterRuleMaxValuesPerBlock values (its own at most that many), whose
/// spans are at most kClusterRuleMaxSpanValues values (twice that for 2-byte values in rows of at
/// most kPortableClusterBlocks x kClusterRuleMaxSpanValues; a few rows:
/// kClusterRuleMaxValuesPerBlock) and whose load (cluster_load()) is at most kClusterRuleMaxLoad,
/// the one whose `span x kClusterLoadCostTenths[load - 1]` (kMaxClusterBlocks:
/// kWideClusterCostPercent more) is least (the smaller size on a tie); where none is, blocks
/// enough to give every SM one (a few rows) or spans of about kClusterRuleSpanValues (many rows),
/// whichever is more, at least 2 and at most kPortableClusterBlocks, and then a few rows take
/// kMaxClusterBlocks when their blocks would hold more than kClusterRuleMaxValuesPerBlock values,
/// and many rows where such spans take fewer waves in it (cluster_waves()). Kept only when
/// cluster_waves() is at most kClusterRuleMaxWaves (a few rows: any) and the spans are within the
/// bound above. Pure host
/// arithmetic but for \p resident (the GPU tests ask which schedule ran). \param num_rows rows
/// \param row_length values per row \param value_bytes sizeof(T) \param options the schedule
/// options \param target_blocks multi_block_target() of the device \param resident the clusters the
/// device holds at once (device_resident_clusters(), what topk() passes), or none for
/// cluster_waves()'s model
RowSplit resolve_schedule(std::size_t num_rows, std::size_t row_length, std::size_t value_bytes,
                          const TopkOptions& options, std::size_t target_blocks,
                          ResidentClusters resident = nullptr);

/// Batches of long rows where the rule's last word goes to the sample pass: rows of at least
/// kSampledBatchMinLength values and at least kSampledBatchMinRows rows (kSampledBatchMinRows /
/// 4 rows of at least 2 x kSampledBatchMinLength, but for kSampledBatchClusterMaxRows), split as
/// select_schedule() splits them.
inline constexpr std::size_t kSampledBatchMinRows = 64;
/// See kSampledBatchMinRows.
inline constexpr std::size_t kSampledBatchMinLength = 32000;
/// Batches of kSampledBatchMinRows / 4 up to this many rows of 2 x kSampledBatchMinLength to
/// kSampledBatchClusterMaxLength values take the cluster rule instead of the sample pass. On an
/// H200 (session 31, k = 50 and 256, both against the sample pass in the same run): 16-40 rows of
/// 65536 ran 1-26% faster in the rule's clusters of 6 or 8 blocks (17 x 65536 bf16 at k = 50 0.0201
/// ms against 0.0264), while 48-63 rows (clusters of 4 blocks of 16384 values) ran up to 59%
/// slower, 40 rows of 80000 2-8% slower (f32 k = 256 1% faster), 16 and 40 rows of 98303 8-52%
/// slower.
inline constexpr std::size_t kSampledBatchClusterMaxRows = 40;
/// See kSampledBatchClusterMaxRows (16 rows of 80000, 3-17% faster in clusters, stay sampled).
inline constexpr std::size_t kSampledBatchClusterMaxLength = 65536;

/// Fewest rows of kSampledBatchMinLength to 2 x kSampledBatchMinLength values for which the rule
/// takes the sample pass and the one-block finish with the large list (kSampledListEntries:
/// k = 1024 and 2048 of a vocabulary of 32000, whose lists the 2048-entry one does not hold)
/// instead of a cluster per row. A cluster keeps its row's spans in shared memory, so 256 rows of
/// 32000 f32 values (32 MB, more than the SMs' 30 MB of shared memory together) run in two waves
/// of two 96 KiB blocks per SM; the sample pass streams the rows. On the H200 (session 24, side by
/// side): 256 x 32000 f32 k = 1024 0.083 -> 0.057 ms, k = 2048 0.094 -> 0.076; bf16 0.087 ->
/// 0.051 and 0.095 -> 0.065. At 128 rows (one wave of clusters) f32 was 9-33% slower, bf16
/// 15% faster at k = 1024 and 6% slower at 2048; at 64 rows both 10-53% slower. The rule splits
/// rows only while they are fewer than half the grid target (select_schedule()), so on a GPU of
/// 132 SMs this takes 256 to 263 rows; from 264 rows each row has one block. It relies on the
/// finish taking the large list for every value size from this many rows on (the static_assert
/// after kSampledLargeListMinRows16); where the device's shared memory cannot hold the large list
/// (sampled_rows_list_entries()), such rows run the digit passes after the sample pass: correct,
/// not measured.
inline constexpr std::size_t kSampledBatchLargeListMinRows = 256;

/// Entries of one candidate list per row of the several-blocks schedule (host and device;
/// CPU-tested): candidate_capacity(), but at least kSampledListEntries for rows of at least
/// kSampledBatchMinLength values, so that the sample pass can plan k = 1024 and 2048 of rows of
/// 32000 (about 1900 and 3200 entries expected, where a sixteenth of the row is 2000) and the
/// one-block finish can take them (kSampledBatchLargeListMinRows). Like candidate_capacity(), it
/// depends on the row length only, so the scratch size needs neither k nor the data. Two costs:
/// the scratch of rows of 32000 grows about fourfold (2047 x 32000 f32: 65 -> 268 MB), and rows
/// of 64000 to 131072 values now plan the sample at larger k too (64 x 65537 at k = 2048: the
/// sample pass and the one-block finish for f32, the sample pass before the digit passes for
/// bf16 below kSampledLargeListMinRows16 rows, where both ran the digit passes alone before):
/// correct (the large sampled-batch tests take that shape), not timed.
/// \param row_length values per row
SORTLAB_HOST_DEVICE constexpr std::size_t list_capacity_for(std::size_t row_length) {
  const std::size_t sixteenth = candidate_capacity(row_length);
  return row_length >= kSampledBatchMinLength && sixteenth < kSampledListEntries
             ? kSampledListEntries
             : sixteenth;
}

/// The rule's choice for batches of long rows (TopkSchedule::kAuto with no span, cluster size or
/// kOff sample given): several blocks per row with the sample pass on, whatever the L2 holds,
/// instead of resolve_schedule()'s cluster or sample rule. Where each row's sampled list fits one
/// block (sampled_rows_fit_one_block(), with at most 32 blocks per row so the regions fit), that
/// split is returned for batches of at least kSampledBatchMinRows rows of at least
/// kSampledBatchMinLength values or a quarter as many rows of twice that length (but not up to
/// kSampledBatchClusterMaxRows rows of at most kSampledBatchClusterMaxLength values, in a build
/// with the cluster kernel: those take the cluster rule), and topk() then
/// finishes each row in one block; where the list does not fit, the digit passes follow the
/// sample pass, for at least kSampledBatchMinRows rows of at least 2 x kSampledBatchMinLength
/// values. Elsewhere a split with `several_blocks` false: resolve_schedule() decides.
/// Measured on an H200 (session 20: the LLM shapes, the rule's pick against this split forced
/// through a span; README): 64 rows of 128256 and 151936 2.1x faster at k = 50 in f32 and bf16
/// and 1.1x (f32) to 1.6x (bf16) at k = 1024 and 2048; 128 rows of bf16 2.0-2.9x; 64 to 256 rows
/// of 32000 at k = 50 1.1-2.1x; slower at batch 1, on rows of 32000 past k = 50, and at 16 rows
/// past k = 50. Pure host arithmetic.
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick
/// \param options the call's options
/// \param target_blocks multi_block_target() of the device
RowSplit sampled_batch_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                             const TopkOptions& options, std::size_t target_blocks);

/// Fewest rows for which the rule gives 16-bit values the large list (kSampledListEntries).
/// Their digit passes are two, not four, so the finish's select and sort of about 3000 entries
/// per row, one block per row, costs more than the passes it saves on few rows: on the H200,
/// bf16 k = 2048 at 64 x 128256 took 0.081 ms against 0.068 for the digit passes, 0.094 against
/// 0.091 at 128 rows, 0.127 against 0.138 at 256 rows (k = 1024: 4-14% faster from 64 rows on;
/// session 21). Session 24 measured 128 rows again, with the finish's collect keeping eight loads
/// in flight per thread: k = 1024 13-14% faster (128 x 128256 0.085 -> 0.073 ms, 128 x 151936
/// 0.093 -> 0.081), k = 2048 4% (0.092 -> 0.088, 0.099 -> 0.095); 64 rows stay slower at
/// k = 2048 (64 x 128256 0.068 -> 0.071). Session 25, with the finish spread over the SMs
/// (launch_sampled_rows()): 64 rows faster too, k = 1024 19% (64 x 128256 0.065 -> 0.052 ms,
/// 64 x 151936 0.072 -> 0.059), k = 2048 10% (0.068 -> 0.062, 0.077 -> 0.069). At 64 it equals
/// kSampledBatchMinRows, below which the rule's sampled batches (sampled_batch_split()) give no
/// row the large list; other routes to the sample pass below 64 rows keep the threshold.
inline constexpr std::size_t kSampledLargeListMinRows16 = 64;
// Every row count that takes the large list for short rows takes it for 16-bit values too.
static_assert(kSampledBatchLargeListMinRows >= kSampledLargeListMinRows16,
              "rows of 32000 on the sampled batch need the large list for every value size");

/// The shared list with which topk() finishes sampled rows in one block, or 0 where the digit
/// passes of several blocks run: sampled_rows_list_entries() with TopkSchedule::kAuto, except
/// that the rule's own split (TopkOptions::values_per_block 0) takes the large list for 16-bit
/// values only from kSampledLargeListMinRows16 rows on; a forced span (as the tests force) takes
/// whatever list fits. Host arithmetic; topk() and the GPU tests ask it which path runs.
/// \param plan the call's sample plan (sample_plan() with its blocks per row)
/// \param num_rows rows of the call
/// \param row_length values per row
/// \param blocks_per_row blocks of the row in the sample pass
/// \param value_bytes sizeof(T)
/// \param options the call's options (schedule and values_per_block)
/// \param optin_bytes shared_memory_per_block_optin() of the device
std::size_t sampled_finish_list_entries(const SamplePlan& plan, std::size_t num_rows,
                                        std::size_t row_length, std::size_t blocks_per_row,
                                        std::size_t value_bytes, const TopkOptions& options,
                                        std::size_t optin_bytes);

/// The split topk() runs when k is not taken by a reduction (argmax_split(), queue_split()):
/// sampled_batch_split() where it returns several blocks, else resolve_schedule(). Pure host
/// arithmetic (the benchmark's counters and the GPU tests' model comparison use it).
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick
/// \param value_bytes sizeof(T)
/// \param options the call's options
/// \param target_blocks multi_block_target() of the device
/// \param resident as for resolve_schedule(): device_resident_clusters() to get what topk() runs
RowSplit topk_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                    std::size_t value_bytes, const TopkOptions& options, std::size_t target_blocks,
                    ResidentClusters resident = nullptr);

/// Clusters of \p split's size (a cluster split) the GPU holds at once with at most \p load of
/// their blocks on any SM: the device's count (\p resident) for blocks that ask at least the
/// split's bytes and so many that no more than \p load fit an SM (the hardware then keeps to
/// that; a split whose own bytes allow fewer gets the count at its own bytes), or without it the
/// model `SMs x min(load, blocks per SM) / size` (blocks per SM as cluster_waves() counts them; it
/// ignores the GPCs: an H200 holds 15 clusters of 8 at one block per SM, not 16).
/// \param split a cluster split (cluster_per_row) \param load blocks per SM, 1 to
/// kClusterRuleMaxLoad \param value_bytes sizeof(T) \param target_blocks multi_block_target() of
/// the device \param resident device_resident_clusters(), or none for the model
std::size_t clusters_at_load(const RowSplit& split, std::size_t load, std::size_t value_bytes,
                             std::size_t target_blocks, ResidentClusters resident = nullptr);

/// The load of \p num_rows rows in clusters of \p split: the fewest blocks per SM, 1 to
/// kClusterRuleMaxLoad, at which the GPU holds all their clusters at once (clusters_at_load()),
/// or 0 when it holds them at none. \param split a cluster split \param num_rows rows
/// \param value_bytes sizeof(T) \param target_blocks multi_block_target() of the device
/// \param resident device_resident_clusters(), or none for the model
std::size_t cluster_load(const RowSplit& split, std::size_t num_rows, std::size_t value_bytes,
                         std::size_t target_blocks, ResidentClusters resident = nullptr);

/// Waves of the GPU the blocks of \p split (a cluster split) take for \p num_rows rows of
/// values of \p value_bytes bytes: their blocks over the blocks the SMs hold at once, counting
/// each block's shared memory (its span and list or counters, and the static storage of 8-byte
/// values, the largest; not the answer sort's, at most 34 KiB, which stays within the 57 KiB a
/// block has at 4 per SM) and the register bound of the kernel taken as the blocks per SM (4 for
/// values up to 4 bytes, 2 for 8). Rounded up. A model: it ignores how clusters pack onto the
/// GPCs, which \p resident, when given, does not: the rows over the clusters it holds at once,
/// rounded up (SIZE_MAX where it holds none: the rule never keeps that cluster). Both count the
/// plain kernel's span and list, not the answer sort's bytes nor the sampled kernel's.
/// \param split a cluster split (cluster_per_row) \param num_rows rows \param value_bytes
/// sizeof(T) \param target_blocks multi_block_target() of the device (kBlocksPerSm per SM)
/// \param resident device_resident_clusters(), or none for the model
std::size_t cluster_waves(const RowSplit& split, std::size_t num_rows, std::size_t value_bytes,
                          std::size_t target_blocks, ResidentClusters resident = nullptr);

// ---- k = 1: a reduction, not a select (argmax_rows.cuh) ----------------------------------------

/// Values per block below which the argmax split adds no more blocks to a row's cluster: a row
/// gets at most ceil(length / kArgmaxMinValuesPerBlock) blocks (so a block's span is about this
/// many values, at least ~2048: a row of 8195 takes 3 blocks of 2752).
inline constexpr std::size_t kArgmaxMinValuesPerBlock = 4096;
/// Longest span the argmax kernel gives a block when the rows' blocks are fewer than the SMs:
/// past it, a few long rows read by a few SMs are slower than the several-blocks schedule's
/// passes over the whole GPU (one row of 2^28 would be 16 blocks of 16.7 M values).
inline constexpr std::size_t kArgmaxMaxIdleSpanValues = 65536;

/// How a call runs as a reduction: k = 1 (argmax_rows.cuh, argmax_split()) or 2 <= k <= 32
/// (queue_rows.cuh, queue_split(), the same split).
struct ArgmaxSplit {
  bool used = false;  ///< the reduction runs (else the radix schedules)
  /// one warp (or a group of lanes) per row: rows of at most kMaxWarpRowLength values, or for the
  /// queues up to kQueueWarpMaxRowLength where the rows are many (queue_split())
  bool warp_per_row = false;
  std::size_t blocks_per_row = 0;    ///< otherwise: blocks per row (a cluster when more than 1)
  std::size_t values_per_block = 0;  ///< ... and each block's span (a multiple of 64)
};

/// Whether and how topk() runs a call as a reduction: k = 1 with the rule's schedule
/// (TopkSchedule::kAuto, no span and no cluster size given); rows of at most kMaxWarpRowLength
/// values one warp each; longer rows one block each, or a cluster of up to kMaxClusterBlocks
/// blocks (sm_90 builds) where the rows are too few to give every SM two blocks, at most
/// ceil(length / kArgmaxMinValuesPerBlock) of them; not used where the blocks are fewer than the
/// SMs and each would read more than kArgmaxMaxIdleSpanValues values. Pure host arithmetic. \param
/// num_rows rows \param row_length values per row \param k values per row to pick \param options
/// the schedule options \param multiprocessors SMs of the device
ArgmaxSplit argmax_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                         const TopkOptions& options, std::size_t multiprocessors);

// ---- Which kernels ran -------------------------------------------------------------------------

/// The kernels a topk() call launched (last_topk_path()).
enum class TopkPath {
  kNone,     ///< nothing: a size query, k = 0 or no rows, or a rejected call
  kArgmax,   ///< k = 1 as a reduction (argmax_rows.cuh)
  kQueues,   ///< 2 <= k <= kMaxQueueK as per-thread queues (queue_rows.cuh)
  kCluster,  ///< one thread-block cluster per row (cluster_rows.cuh)
  /// one cluster per row that samples (cluster_sample_plan()): its spans filtered against the
  /// sample's bound into one block's list, or, where that does not work, the digit passes
  kClusterSampled,
  kWarpWholeRow,   ///< one warp per row, sorted rows sorted whole by the network (no select)
  kWarpSelect,     ///< one warp per row, the radix select
  kOneBlock,       ///< one block per row, the radix select
  kSeveralBlocks,  ///< several blocks per row, the radix select's launches
  /// several blocks per row for the sample pass, then one block per row from its lists
  /// (topk_sampled_rows_kernel in sample_pass.cuh)
  kSampledOneBlock,
};

/// Most rows for which the automatic rule lets one cluster per row sample (cluster_sample_plan()):
/// the finishing block's one-block storage can make a cluster's shared memory larger than its
/// spans, and with many rows that would cost blocks per SM. A first value, not yet measured.
inline constexpr std::size_t kSampledClusterMaxRows = 32;

/// The sample plan of one cluster per row (TopkArrays::sample of topk_cluster_rows_kernel;
/// disabled: the digit passes over the spans): sample_plan() for a list of kOneBlockListEntries
/// (the finishing block's), when TopkOptions::sample is kOn, or kAuto with at most
/// kSampledClusterMaxRows rows. Then every block filters its span against the sample's bound,
/// one block selects from the row's candidates, and the cluster meets at two barriers instead of
/// one per digit pass (cluster_rows.cuh, sampled_cluster_finish()). Pure host arithmetic
/// (CPU-tested).
/// \param num_rows rows
/// \param row_length values per row
/// \param k answers per row
/// \param cluster_blocks blocks of a row's cluster
/// \param options the call's options
SamplePlan cluster_sample_plan(std::size_t num_rows, std::size_t row_length, std::size_t k,
                               std::size_t cluster_blocks, const TopkOptions& options);

/// The kernels the calling thread's last topk() call launched: so that a test can tell that a
/// rule sent a shape where it says (the outputs of every path are the same, element for
/// element, so the output alone cannot). Host state only, set before the launches.
TopkPath last_topk_path();

// ---- 2 <= k <= 32: per-thread queues and merges, not a select (queue_rows.cuh) -----------------

/// Largest k that queue_split() takes (the longest per-thread queue, 32 entries).
inline constexpr std::size_t kMaxQueueK = 32;

/// Longest row the queues give one warp where the rows are many (queue_split()): a warp reads
/// its row with no block barrier and merges over shuffles only, which beats a block per row up
/// to here (on an H100, k = 8: 16384 x 4096 0.373 -> 0.223 ms, 4096 x 16384 0.262 -> 0.218) but
/// not past it (2048 x 32768 0.237 -> 0.290).
inline constexpr std::size_t kQueueWarpMaxRowLength = 16384;
/// Rows of up to this many values need only kQueueWarpMinRowsPerSm rows per SM to take a warp
/// each in the queues; longer ones kQueueWarpLongRowMinRowsPerSm.
inline constexpr std::size_t kQueueWarpShortRowLength = 4096;
/// Rows per SM from which rows of up to kQueueWarpShortRowLength values take a warp each in the
/// queues (1024 x 4096 on 132 SMs: 0.0328 -> 0.0267 ms; 2048 x 1500: 0.048 -> 0.0195).
inline constexpr std::size_t kQueueWarpMinRowsPerSm = 4;
/// Rows per SM from which longer rows, up to kQueueWarpMaxRowLength values, take a warp each: a
/// long row per warp needs more warps in flight to keep memory busy (measured faster from 31 rows
/// per SM, 4096 x 16384; slower at 15.5 with rows of 32768; not measured between).
inline constexpr std::size_t kQueueWarpLongRowMinRowsPerSm = 16;

/// Whether and how topk() runs a call with 2 <= k <= kMaxQueueK as per-thread queues of the K
/// best values and bitonic merges (queue_rows.cuh): with the rule's schedule, on the argmax's
/// split of the same rows (argmax_split(); rows of at most kMaxWarpRowLength values take a group
/// of 8 or 32 lanes each), except that rows of up to kQueueWarpMaxRowLength values take one warp
/// each where the rows are many (kQueueWarpMinRowsPerSm per SM for rows of up to
/// kQueueWarpShortRowLength values, kQueueWarpLongRowMinRowsPerSm for longer ones); not used for
/// other k, forced schedules, spans or cluster sizes, or a few very long rows. Pure host
/// arithmetic.
/// \param num_rows rows
/// \param row_length values per row
/// \param k values per row to pick
/// \param options the schedule options
/// \param multiprocessors SMs of the device
ArgmaxSplit queue_split(std::size_t num_rows, std::size_t row_length, std::size_t k,
                        const TopkOptions& options, std::size_t multiprocessors);

/// Per row: what the passes fixed so far, the arrival ticket of the current pass, which passes
/// filter into the candidate lists, and how much of the list being written is taken. Written
/// only by the row's last block of a pass (and the fill counter by the blocks' reservations), read
/// by every block of the next launch. One memset at the start of a call zeroes it. Public so
/// that the GPU tests can read, after a call, which passes filtered (`listed`) and compare it
/// with the CPU model; callers have no use for it.
struct RowState {
  /// Select bits of the prefix fixed so far (zero-extended); after the sample pass, until pass 0
  /// overwrites them, the sampled bound.
  unsigned long long desired;
  std::uint32_t k_left;  ///< rank of the k-th value among the prefix's candidates
  std::uint32_t ticket;  ///< blocks of the row that finished this pass (reset to 0 after)
  /// Bit p: pass p writes the row's candidate list p % 2 (so pass p + 1, or the gather after the
  /// last pass, reads it instead of the row). Set by the last block of pass p - 1, which knows
  /// exactly how many entries pass p keeps; bit 0 by the last block of pass 0 when the sample
  /// pass worked (pass 0 then read the sample pass's list 1 and copied it to list 0). On the
  /// path TopkPath::kSampledOneBlock: 1 when the row's block selected from the sampled list, 2
  /// when it did so after re-reading the parts of the regions that overflowed, 3
  /// (kListedAtBound) when the list did not work but the bound was the k-th value (it gathered
  /// at the bound from the row), 0 when it selected from the row.
  std::uint32_t listed;
  /// Entries of list 0 / list 1 reserved so far by the blocks of the pass that writes it (an
  /// atomicAdd per block); the last block of pass p zeroes the one pass p + 1 writes. The sample
  /// pass adds its entries to fill[1], which pass 0 reads before its last block zeroes it. On the
  /// path TopkPath::kSampledOneBlock the sample pass's blocks add the row's values at or above
  /// the bound to fill[1] and those strictly beyond it to fill[0], also where the sample predicts
  /// an overflow (then without writing a list).
  std::uint32_t fill[2];
  /// Nonzero when the sample pass (sample_pass.cuh) failed for this row: a warp's values at or
  /// above the bound overflowed its region (bit kSampleRegionOverflowed), or the sample predicted
  /// that the list overflows (bit kSamplePredictsOverflow). Pass 0 then reads the row.
  std::uint32_t sample_failed;
  /// The row's digit histogram of pass p in copy p % 2: every block adds its nonzero counts
  /// (atomics), the last block reads it to choose the digit and zeroes it for pass p + 2.
  std::uint32_t histogram[2][kNumDigits];
};
static_assert(sizeof(RowState) == 32 + 2 * 4 * kNumDigits,
              "2080 bytes per row, as plan_scratch() documents");

/// The scratch of one call. One block per row keeps everything on chip and needs none, but a call
/// with a null scratch pointer is a size query, so every call asks for at least one byte: the
/// caller's second call then always runs. The several-blocks-per-row schedule keeps its digit
/// counts (256 per block), per-block answer tallies, per-row state (prefix, k, ticket, which
/// passes filtered, list fill) and the two candidate lists of every row here.
struct ScratchPlan {
  ScratchLayout layout;        ///< the arrays, aligned (none for one block per row)
  RowSplit split;              ///< the split the scratch is planned for (kMaxTargetBlocks)
  std::size_t counts = 0;      ///< slot of the digit counts
  std::size_t tallies = 0;     ///< slot of the block tallies
  std::size_t row_states = 0;  ///< slot of the row states
  /// Slots of the candidate lists' values (raw bytes, sizeof(T) each), list 0 and list 1 (pass p
  /// writes list p % 2).
  std::size_t list_values[2] = {0, 0};
  std::size_t list_columns[2] = {0, 0};  ///< slots of their u32 columns
  std::size_t list_capacity = 0;         ///< entries per row of one list (list_capacity_for())
  /// Bytes a size query returns: the layout's, and at least 1.
  std::size_t bytes() const noexcept {
    return layout.total_bytes() > 0 ? layout.total_bytes() : std::size_t{1};
  }
};

/// The scratch layout of a top-k of \p num_rows rows of \p row_length values, \p k per row:
/// none unless select_schedule() with kMaxTargetBlocks picks several blocks per row, else
/// `rows x blocks_per_row x 256` u32 digit counts, `rows x blocks_per_row` 32-byte tallies,
/// `rows` 2080-byte row states (RowState), then two candidate lists of
/// `rows x list_capacity_for(row_length)` values (\p value_bytes each) and as many u32
/// columns. Pure host arithmetic (no CUDA call), so the CPU tests check it.
/// \param num_rows rows
/// \param row_length values per row
/// \param k values picked per row
/// \param value_bytes sizeof(T) of the values
/// \param options the schedule options (they decide the split)
ScratchPlan plan_scratch(std::size_t num_rows, std::size_t row_length, std::size_t k,
                         std::size_t value_bytes, const TopkOptions& options = {});

/// For every row r, the k best values of `values_in[r * row_length .. (r + 1) * row_length)`
/// into `values_out[r * k .. (r + 1) * k)` and their columns into the same positions of
/// `indices_out`. Call with \p temp_storage == nullptr to set \p temp_storage_bytes and return
/// (no other pointer is needed for that). No allocation and no host synchronisation happen
/// inside the call; the work is queued on \p stream, so the call can be captured in a CUDA graph.
///
/// Supported T: float, std::uint32_t, std::int32_t, double, std::int64_t, __half, __nv_bfloat16.
/// Throws sortlab::Error on bad arguments, before any CUDA call: k > row_length, too many rows or
/// too long a row, `sorted` with k > kMaxSortedK, a split of more than 2^31 - 1 blocks, null
/// pointers, arrays that overlap (outputs, input, scratch), or a scratch smaller than the query
/// said. The several-blocks-per-row schedule asks the device for its SM count and L2 size
/// (driver queries, no synchronisation) and queues one cudaMemsetAsync of its row states (their
/// tickets and histograms must start at zero, and nothing inside a launch can order a reset
/// before the first block arrives), the sample pass when it runs, one launch per digit pass, the
/// gather and, when sorted, the sort.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param values_in device input, num_rows x row_length, row-major (not modified)
/// \param num_rows rows, 0 to kMaxRows
/// \param row_length values per row, 0 to kMaxRowLength
/// \param k values to pick per row, 0 to row_length
/// \param values_out device output, num_rows x k
/// \param indices_out device output, num_rows x k columns (0 .. row_length - 1)
/// \param options largest or smallest, sorted or not
/// \param stream CUDA stream the work is queued on
template <typename T>
void topk(void* temp_storage, std::size_t& temp_storage_bytes, const T* values_in,
          std::size_t num_rows, std::size_t row_length, std::size_t k, T* values_out,
          std::int64_t* indices_out, const TopkOptions& options = {},
          cudaStream_t stream = nullptr);

/// topk() with int32 column indices (issue 18's int32-index variant; columns are below
/// kMaxRowLength + 1 = 2^31, so they fit). It runs topk() with int64 indices into a part of the
/// scratch, then narrows them into \p indices_out with one more launch: 12 more bytes moved per
/// answer (the int64 indices written and read again, the int32 ones written), which is little
/// beside the input for the k of a top-k. Same arguments, rules, errors and scratch convention
/// as topk() (the query returns topk()'s scratch plus num_rows x k int64 indices); the int32
/// output may not overlap the input, the values or the scratch.
/// \param temp_storage device scratch, or nullptr to query its size
/// \param temp_storage_bytes size of the scratch (set by the query)
/// \param values_in device input, num_rows x row_length, row-major (not modified)
/// \param num_rows rows
/// \param row_length values per row
/// \param k values to pick per row
/// \param values_out device output, num_rows x k
/// \param indices_out device output, num_rows x k int32 columns
/// \param options largest or smallest, sorted or not
/// \param stream CUDA stream the work is queued on
template <typename T>
void topk_with_int32_indices(void* temp_storage, std::size_t& temp_storage_bytes,
                             const T* values_in, std::size_t num_rows, std::size_t row_length,
                             std::size_t k, T* values_out, std::int32_t* indices_out,
                             const TopkOptions& options = {}, cudaStream_t stream = nullptr);

}  // namespace sortlab::stage07
