/// \file
/// \brief BenchConfig: what a benchmark program measures and how it samples, parsed from
/// sortlab's own command-line flags. Plain C++, unit-tested on the CPU.
#pragma once

#include <string>
#include <vector>

#include "bench/key_shape.hpp"
#include "bench/timing/stopping_rule.hpp"
#include "bench/timing/timing_mode.hpp"

namespace sortlab::bench {

/// What to measure and how; set from the command line (see parse_config()).
struct BenchConfig {
  std::vector<int> log2_sizes = {16, 18, 20, 22, 24, 26, 28};  ///< n = 2^k for each k
  std::vector<KeyShape> key_shapes = {KeyShape{}};             ///< key inputs (default: uniform)
  std::vector<std::string> key_types = {"u32"};                ///< any of u32, i32, f32
  bool keys = true;                                            ///< measure keys-only sorts
  bool pairs = false;                                          ///< measure key-value sorts
  timing::TimingMode timing = timing::TimingMode::kBlocking;   ///< layout of a sample
  bool flush_l2 = true;                                        ///< flush the L2 before every sample
  timing::FlushMethod flush_method = timing::FlushMethod::kRead;  ///< how the flush evicts
  timing::StoppingRule stopping;  ///< when a benchmark has enough samples
};

/// Parses and removes sortlab's own flags from argv, leaving Google Benchmark's:
/// --sizes=16,20,24 (log2 n), --ands=0,2 (AND-reduced keys), --dists=sorted,equal,few (more key
/// shapes, added to --ands'), --types=u32,f32, --pairs=0|1|both, --timing=blocking|graph|events,
/// --l2_flush=0|1|read|write (1 = read, the default; write = the memset flush used until
/// 2026-11-28), --max_noise=0.01 (relative), --min_samples=10, --max_time=0.5 (seconds of
/// sampling per benchmark; --min_time is its old name). Throws sortlab::Error on a malformed flag.
/// \param argc argument count, updated
/// \param argv arguments, with sortlab's flags removed
BenchConfig parse_config(int& argc, char** argv);

/// Number of bytes in a key type named "u32", "i32" or "f32"; throws sortlab::Error otherwise.
/// \param key_type the type's short name
std::size_t key_bytes(const std::string& key_type);

}  // namespace sortlab::bench
