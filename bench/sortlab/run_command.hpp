/// \file
/// \brief `sortlab run`: sort generated keys with one stage on the GPU, time it, verify it. The
/// one-array sorts come from the stage registry; stage 6 (segmented sort, run_segments.hpp) and
/// stage 7 (top-k, run_topk.hpp) have runs of their own, which share the input, the timing and
/// the report's lines declared here, so that every run reads the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/verify.hpp"

namespace sortlab::cli {

/// Runs `sortlab run`: generates the keys (generate_keys), queries and allocates the stage's
/// scratch, sorts once to warm up, times args.repeat sorts with CUDA events, and verifies the
/// last result against the CPU reference (verify_sorted_keys / verify_sorted_pairs). Prints the
/// stage, key type, n, distribution, median time, keys/s and "verified: OK" (or the verifier's
/// message) to \p out. Stage 6 goes to run_segments(), stage 7 to run_topk().
/// Returns kExitOk when verified, kExitFailed when not, kExitNoGpu (with a message on \p err)
/// when \p gpu_present is false. Throws UsageError for a stage that does not exist, a tuning
/// it does not accept or a flag of another stage (all checked before the GPU is looked for),
/// sortlab::CudaError for GPU errors.
/// \param args the parsed arguments
/// \param out where the report goes
/// \param err where the "no GPU" message goes
/// \param gpu_present whether a CUDA GPU is usable (the caller asks gpu_available())
int run_command(const RunArgs& args, std::ostream& out, std::ostream& err, bool gpu_present);

// ---- What every run shares ----------------------------------------------------------------------

/// The input of a sort run, on the host (for the verifier) and on the device, with room for the
/// output: \p n generated keys and, with --pairs, u32 values 0 .. n - 1 (each key's input
/// position, which the stability checks read).
/// \tparam Key the key type
template <typename Key>
struct SortBuffers {
  std::vector<Key> keys;                   ///< the generated keys
  std::vector<std::uint32_t> values;       ///< iota_values(n) with --pairs, else empty
  DeviceBuffer<Key> keys_in;               ///< keys on the device
  DeviceBuffer<Key> keys_out;              ///< room for the sorted keys
  DeviceBuffer<std::uint32_t> values_in;   ///< values on the device (empty without --pairs)
  DeviceBuffer<std::uint32_t> values_out;  ///< room for the sorted values

  /// Generates \p n keys of args.distribution with args.seed, and the values with --pairs.
  /// \param args the parsed arguments
  /// \param n number of keys
  SortBuffers(const RunArgs& args, std::size_t n)
      : keys(generate_keys<Key>(args.distribution, n, args.seed)),
        values(args.pairs ? iota_values(n) : std::vector<std::uint32_t>{}),
        keys_in(keys),
        keys_out(n),
        values_in(values),
        values_out(values.size()) {}
};

/// Runs \p run_once once to warm up (first-launch costs such as loading the module are not the
/// stage's), waits for the GPU, then \p repeat more times, each timed with CUDA events on the
/// default stream, and returns the median of those times in milliseconds.
/// \param repeat timed runs (at least 1)
/// \param run_once queues one run of the stage on the default stream
double timed_median_ms(int repeat, const std::function<void()>& run_once);

/// Times a stage call that follows the CUB scratch convention: asks \p call for its scratch
/// size (a null scratch pointer), allocates that much (at least one byte, since a null pointer
/// would make every timed call a size query) and returns timed_median_ms() of \p call with it.
/// \param repeat timed runs (at least 1)
/// \param call queues one call of the stage with the given scratch and its size
double timed_median_ms(int repeat,
                       const std::function<void(void* temp, std::size_t& temp_bytes)>& call);

/// Prints one line of a run's report: \p label in a column of 14 characters, then \p value.
/// \param out where the report goes
/// \param label e.g. "n"
/// \param value the rest of the line
void print_field(std::ostream& out, const std::string& label, const std::string& value);

/// Prints the first lines of a run's report: the stage and its summary, its tuning ("config",
/// only when \p config is not empty) and the GPU.
/// \param out where the report goes
/// \param entry the stage
/// \param config tuning_text() of the stage, or ""
void print_run_header(std::ostream& out, const StageEntry& entry, const std::string& config);

/// The "type" line's value of a sort: "u32 keys", or "u32 keys with u32 values (pairs)".
/// \param args the parsed arguments
std::string keys_text(const RunArgs& args);

/// The "distribution" line's value: "uniform (seed 1)".
/// \param args the parsed arguments
std::string distribution_text(const RunArgs& args);

/// The "order" line's value of a sort: "ascending, bits [0, 32)".
/// \param args the parsed arguments
std::string order_text(const RunArgs& args);

/// \p count things in \p median_ms milliseconds as a rate in units of \p unit per second
/// (1e9: "G .../s"), four significant digits; "-" when the time is 0.
/// \param count items processed by one run
/// \param median_ms the run's time
/// \param unit 1e9 for G/s, 1e6 for M/s
std::string rate_text(double count, double median_ms, double unit);

/// Prints the "median time" line of a run's report.
/// \param out where the report goes
/// \param median_ms timed_median_ms()'s result
/// \param repeat how many runs it timed
void print_median_time(std::ostream& out, double median_ms, int repeat);

/// Prints "verified: OK", or "verified: FAILED: " and the verifier's message, and returns the
/// exit code that goes with it (kExitOk or kExitFailed).
/// \param out where the report goes
/// \param check the verifier's result
int report_verification(std::ostream& out, const VerifyResult& check);

}  // namespace sortlab::cli
