/// \file
/// \brief `sortlab trace --stage 7`: radix select of one row on stage 07's CPU model, pass by
/// pass (each pass's digit histogram of the candidates, the chosen digit, k narrowing), then the
/// gather and the sort. The kernels run the same rules (select_key.hpp, select_digits.hpp) and
/// the GPU tests compare their output with this model element for element.
#pragma once

#include <ostream>
#include <vector>

#include "bench/sortlab/cli_args.hpp"

namespace sortlab::cli {

/// The stage number `sortlab trace` gives to top-k (stage 07), which is not a sort and so not in
/// the stage registry.
inline constexpr int kTopkStage = 7;

/// Prints the radix select of \p row for `args.k` values (1 when not given), the largest unless
/// `args.smallest`, and returns kExitOk when the model's answers equal the reference top-k (a
/// partial sort with the same NaN and tie rules), else kExitFailed. Throws UsageError for a k
/// outside 1 .. row length.
/// \param row the row's values (from --keys or the generator)
/// \param args the trace's options
/// \param out where the trace goes
template <typename T>
int trace_topk(const std::vector<T>& row, const TraceArgs& args, std::ostream& out);

}  // namespace sortlab::cli
