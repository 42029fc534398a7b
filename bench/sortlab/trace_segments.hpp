/// \file
/// \brief `sortlab trace --stage 6`: stage 06's segmented sort on its CPU model: which bin and
/// class each segment went to, who sorts it and how, each bin's work (segments, keys, and the
/// slots its networks or tiles pad them to), then the sorted keys of the short segments and a
/// check against the reference (a stable sort of every segment).
#pragma once

#include <ostream>
#include <vector>

#include "bench/sortlab/cli_args.hpp"

namespace sortlab::cli {

/// The stage number `sortlab trace` gives to the segmented sort (stage 06), which sorts many
/// arrays at once and so is not in the stage registry.
inline constexpr int kSegmentedStage = 6;

/// Most keys a stage 6 trace sorts (the sum of --segments).
inline constexpr std::size_t kMaxSegmentedTraceKeys = std::size_t{1} << 20;

/// Prints the classification and sort of \p keys cut into consecutive segments of
/// `args.segments` sizes (their sum is the number of keys) and returns kExitOk when the model's
/// output equals the reference's, else kExitFailed.
/// \param keys the keys (from --keys or the generator)
/// \param args the trace's options
/// \param out where the trace goes
template <typename Key>
int trace_segments(const std::vector<Key>& keys, const TraceArgs& args, std::ostream& out);

}  // namespace sortlab::cli
