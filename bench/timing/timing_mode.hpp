/// \file
/// \brief How a timing sample is taken (the --timing flag). Plain C++, unit-tested on the CPU.
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

}  // namespace sortlab::bench::timing
