/// \file
/// \brief `sortlab trace`: run a stage pass by pass on a few tiny keys and print every
/// intermediate array, on the GPU (the stage's trace_pass) or on the stage's CPU model.
#pragma once

#include <ostream>

#include "bench/sortlab/cli_args.hpp"

namespace sortlab::cli {

/// Runs `sortlab trace`. The keys are args.keys when given, otherwise args.n generated keys
/// (generate_keys with args.distribution and args.seed) reduced to values 0 .. 2^bits - 1 by
/// keeping their top `bits` bits, which keeps the shape of the distribution (sorted stays sorted).
/// The passes cover key bits [0, bits), one per digit (1 bit for stages 01 and 02, r bits for 03
/// and 04, the last one narrower); for f32 keys, whose small values differ in exponent and
/// mantissa bits rather than in bits [0, bits), they cover the bits in which the keys differ.
/// The first line says whether the stage's GPU pass or its CPU model runs; the last says whether
/// the result is sorted (verify_sorted_keys against the input).
/// Returns kExitOk when the result is sorted, kExitFailed when not. Throws UsageError for a stage
/// that does not exist or has no trace (CUB), a tuning it does not accept, or bad keys.
/// \param args the parsed arguments
/// \param out where the trace goes
/// \param gpu_present whether a CUDA GPU is usable (the caller asks gpu_available())
int trace_command(const TraceArgs& args, std::ostream& out, bool gpu_present);

}  // namespace sortlab::cli
