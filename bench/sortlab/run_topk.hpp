/// \file
/// \brief `sortlab run --stage 7`: stage 07's top-k of every row of a generated matrix, timed on
/// the GPU like the other runs, and a verifier that checks the answers as the stage's contract
/// states them (chapters/07_topk/topk.hpp) without insisting on its tie order: each row's values
/// must be the k best as a multiset (every NaN is the largest value and equal to every other
/// NaN; -0.0 equals +0.0), every index a distinct column holding exactly the value returned for
/// it, and, when sorted output is asked for, each row best first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "common/verify.hpp"

namespace sortlab::cli {

/// Rows of a stage 7 run without --rows: with kDefaultTopkRowLength, 2^24 values, the other
/// runs' default n, and enough rows for one block per row to fill any GPU.
inline constexpr std::size_t kDefaultTopkRows = 4096;
/// Values per row of a stage 7 run without --row-length (see kDefaultTopkRows).
inline constexpr std::size_t kDefaultTopkRowLength = 4096;
/// Values picked per row of a stage 7 run without --k: the size of a top-k sampling's shortlist
/// (k = 50 is common), not k = 1, which is an argmax and skips the answers' gather and sort.
inline constexpr std::size_t kDefaultTopkK = 64;

/// Stage 07 as `sortlab run` and `sortlab stages` name it (named_stage()): top-k is not a sort,
/// so it is not in the registry of one-array sorts and run_topk() calls it itself.
const StageEntry& topk_stage();

/// The first flag of \p args that only stage 7 takes ("--rows", "--row-length", "--k",
/// "--smallest", "--sorted"), or "" when none was given; other stages refuse it with this name.
/// \param args the parsed arguments
std::string first_topk_flag(const RunArgs& args);

/// The shape and options of one stage 7 run.
struct TopkRun {
  std::size_t rows = 0;        ///< rows of the matrix
  std::size_t row_length = 0;  ///< values per row
  std::size_t k = 0;           ///< values picked per row, 1 .. row_length
  bool largest = true;         ///< the k largest (false: the k smallest)
  bool sorted = false;         ///< each row's answers best first (k <= stage07::kMaxSortedK)
};

/// Checks a stage 7 command line and works out its shape: --rows, --row-length and --k, or
/// their defaults (kDefaultTopkRows, kDefaultTopkRowLength, kDefaultTopkK, the last at most the
/// row length). Throws UsageError for k outside 1 .. row length, more than 2^30 values,
/// --sorted with k above stage07::kMaxSortedK, --n (n is rows x row length), and flags of the
/// sorts (--pairs, --descending, --begin-bit, --end-bit, their tuning) or of stage 6.
/// \param args the parsed arguments (args.stage is 7)
TopkRun plan_topk_run(const RunArgs& args);

/// Picks the top k of every row of a generated matrix with stage 07 on the GPU: scratch query,
/// one warm-up, args.repeat runs timed with CUDA events; then verify_topk_rows() and the report
/// (rows/s and values/s, values read = rows x row length) ending in "verified: OK" or
/// "verified: FAILED: ..." to \p out. Returns kExitOk or kExitFailed; throws sortlab::CudaError
/// for GPU errors.
/// \param args the parsed arguments
/// \param plan plan_topk_run()'s shape
/// \param out where the report goes
int run_topk(const RunArgs& args, const TopkRun& plan, std::ostream& out);

/// Checks a top-k result row by row (see the file comment): for every row, every index is a
/// column (0 .. row_length - 1), appears once, and holds the value returned beside it bit for
/// bit; with `shape.sorted` the values are best first; and the values are the k best of the row
/// as a multiset, compared with stage07::reference_topk() by the stage's select bits. Ties at
/// the k-th value may be broken by any column. On failure, first_bad_index is the first wrong
/// position of the rows x k output and the message names the row and the answer.
/// \param input the rows x row_length matrix, row-major
/// \param shape rows, row length, k, direction and sortedness
/// \param values the rows x k values returned
/// \param indices the rows x k columns returned
template <typename T>
VerifyResult verify_topk_rows(const std::vector<T>& input, const TopkRun& shape,
                              const std::vector<T>& values,
                              const std::vector<std::int64_t>& indices);

}  // namespace sortlab::cli
