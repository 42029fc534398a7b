/// \file
/// \brief How a timing sample is taken (the --timing and --l2_flush flags). Plain C++, unit-tested
/// on the CPU.
#pragma once

#include <string>

namespace sortlab::bench::timing {

/// How the timed region of one sample is laid out on the stream.
enum class TimingMode {
  /// A kernel spinning on a host-pinned flag holds the stream while the start event, the work and
  /// the stop event are queued; then the host releases it, so no host launch gap is timed.
  kBlocking,
  /// The work is captured once per input set as a CUDA graph and replayed between the events,
  /// held behind the blocking kernel too: one launch per sample, no host work inside, and the
  /// GPU's own launch overhead between the graph's kernels reduced as far as graphs reduce it.
  kGraph,
  /// The method before issue 13: start event, the calls, stop event, on a GPU that has just been
  /// synchronised, so launch gaps are timed too. Kept to compare the methods.
  kEvents,
};

/// The flag value of a mode: "blocking", "graph" or "events".
/// \param mode the mode
std::string to_string(TimingMode mode);

/// Parses a flag value made by to_string(); throws sortlab::Error naming the valid values.
/// \param name "blocking", "graph" or "events"
TimingMode parse_timing_mode(const std::string& name);

/// How the L2 is flushed before each sample (L2Flusher::flush(); the --l2_flush flag).
enum class FlushMethod {
  /// Read the buffer (the default). The L2 is left holding clean lines, so the timed call
  /// starts on an L2 that owes memory nothing. Dirty lines of earlier work are written back
  /// while the flush runs, untimed.
  kRead,
  /// Write the buffer (cudaMemsetAsync; sortlab's method until 2026-11-28). The L2 is left full
  /// of the flush's own dirty lines, and the timed call pays for writing them back as it evicts
  /// them: on an H100, a read of 64 MiB measured 0.0336 ms after this flush and 0.0254 after a
  /// read (docs/results/README.md, "The L2 flush").
  kWrite,
};

/// "read" or "write", for the flag, logs and the JSON context.
/// \param method the method
std::string to_string(FlushMethod method);

}  // namespace sortlab::bench::timing
