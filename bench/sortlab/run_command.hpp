/// \file
/// \brief `sortlab run`: sort generated keys with one stage on the GPU, time it, verify it.
#pragma once

#include <ostream>

#include "bench/sortlab/cli_args.hpp"

namespace sortlab::cli {

/// Runs `sortlab run`: generates the keys (generate_keys), queries and allocates the stage's
/// scratch, sorts once to warm up, times args.repeat sorts with CUDA events, and verifies the
/// last result against the CPU reference (verify_sorted_keys / verify_sorted_pairs). Prints the
/// stage, key type, n, distribution, median time, keys/s and "verified: OK" (or the verifier's
/// message) to \p out.
/// Returns kExitOk when verified, kExitFailed when not, kExitNoGpu (with a message on \p err)
/// when \p gpu_present is false. Throws UsageError for a stage that does not exist or a tuning
/// it does not accept (checked before the GPU is looked for), sortlab::CudaError for GPU errors.
/// \param args the parsed arguments
/// \param out where the report goes
/// \param err where the "no GPU" message goes
/// \param gpu_present whether a CUDA GPU is usable (the caller asks gpu_available())
int run_command(const RunArgs& args, std::ostream& out, std::ostream& err, bool gpu_present);

}  // namespace sortlab::cli
