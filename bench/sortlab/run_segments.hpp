/// \file
/// \brief `sortlab run --stage 6`: stage 06's segmented sort of generated keys cut into
/// consecutive segments, timed on the GPU like the other runs and verified segment by segment
/// against the CPU reference (a stable sort of every segment, common/segments.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/stage_registry.hpp"

namespace sortlab::cli {

/// Keys per segment of a stage 6 run given neither --segments nor --segment-size. Rows of about
/// a thousand values are a common `torch.sort(x, dim=-1)`, and they land in one of the stage's
/// block tiles (513 .. 1024 keys), its fast path, rather than an edge case of the bins.
inline constexpr std::size_t kDefaultSegmentSize = 1000;

/// Stage 06 as `sortlab run` and `sortlab stages` name it (named_stage()): it sorts many arrays
/// at once, so it is not in the registry of one-array sorts and run_segments() calls it itself.
const StageEntry& segmented_stage();

/// The first flag of \p args that only stage 6 takes ("--segments", "--segment-size"), or ""
/// when none was given; other stages refuse it with this name.
/// \param args the parsed arguments
std::string first_segment_flag(const RunArgs& args);

/// The keys and segments of one stage 6 run.
struct SegmentedRun {
  std::size_t n = 0;  ///< keys in all (the segments cover them all)
  /// num_segments + 1 offsets: segment s is the keys [offsets[s], offsets[s + 1]).
  std::vector<std::uint32_t> offsets;
  std::string origin;  ///< where the sizes came from, for the report ("--segment-size 1000")
};

/// Checks a stage 6 command line and cuts its keys into segments: --segments sizes (their sum
/// is n; a --n that disagrees is an error), or --segment-size L (default kDefaultSegmentSize)
/// segments of L keys out of --n keys, the last one shorter. Throws UsageError for both at
/// once, a sum above 2^30, and flags of stage 7 or of the one-array sorts' tuning.
/// \param args the parsed arguments (args.stage is 6)
SegmentedRun plan_segmented_run(const RunArgs& args);

/// Sorts \p plan's segments of generated keys (pairs with --pairs: u32 values, the input
/// positions) with stage 06 on the GPU: scratch query, one warm-up, args.repeat runs timed with
/// CUDA events; then checks every segment against the stable CPU reference and prints the report
/// ending in "verified: OK" or "verified: FAILED: ..." to \p out. Returns kExitOk or
/// kExitFailed; throws sortlab::CudaError for GPU errors.
/// \param args the parsed arguments
/// \param plan plan_segmented_run()'s segments
/// \param out where the report goes
int run_segments(const RunArgs& args, const SegmentedRun& plan, std::ostream& out);

}  // namespace sortlab::cli
