/// \file
/// \brief Implementation of the timing mode names.
#include "bench/timing/timing_mode.hpp"

#include "common/errors.hpp"

namespace sortlab::bench::timing {

std::string to_string(TimingMode mode) {
  switch (mode) {
    case TimingMode::kBlocking:
      return "blocking";
    case TimingMode::kGraph:
      return "graph";
    case TimingMode::kEvents:
      return "events";
  }
  return "unknown";
}

TimingMode parse_timing_mode(const std::string& name) {
  for (TimingMode mode : {TimingMode::kBlocking, TimingMode::kGraph, TimingMode::kEvents})
    if (to_string(mode) == name) return mode;
  throw Error("unknown timing mode '" + name + "' (valid: blocking, graph, events)");
}

std::string to_string(FlushMethod method) {
  return method == FlushMethod::kRead ? "read" : "write";
}

}  // namespace sortlab::bench::timing
