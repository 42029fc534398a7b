/// \file
/// \brief Seeded input generators: the distributions every test and benchmark draws keys from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sortlab {

/// The shapes of input sortlab tests and measures.
enum class Distribution {
  kUniform,         ///< every bit pattern equally likely
  kEntropyReduced,  ///< bitwise AND of several uniform draws: fewer effective bits (CUB's trick)
  kFewDistinct,     ///< a handful (default 16) of distinct values, in random order
  kAllEqual,        ///< one value repeated
  kSorted,          ///< already ascending
  kReversed,        ///< descending
  kNearlySorted,    ///< ascending with about 1% of positions swapped at random
  kFloatSpecials,   ///< floats: mix of +-0, +-inf, NaN, denormals and ordinary values
};

/// Parameters the generators share.
struct GeneratorOptions {
  /// kEntropyReduced: how many uniform draws are ANDed per key. Each AND halves the chance of a 1
  /// bit: 1 AND gives 0.811 bits of entropy per bit, 2 give 0.544, 3 give 0.337, 4 give 0.201.
  int and_count = 2;
  /// kFewDistinct: how many distinct values.
  std::size_t distinct_values = 16;
};

/// All distributions, in the order they are documented.
const std::vector<Distribution>& all_distributions();

/// Stable short name of a distribution, e.g. "uniform" (used by the CLI and benchmarks).
std::string to_string(Distribution distribution);

/// Parses a name produced by to_string(); throws sortlab::Error listing the valid names.
Distribution parse_distribution(const std::string& name);

/// Shannon entropy per bit of keys built by ANDing \p and_count uniform draws (1.0 for 0 ANDs).
double entropy_per_bit(int and_count);

/// \p n keys of type Key drawn from \p distribution with \p seed; the same arguments always
/// give the same keys. kFloatSpecials on integer keys yields the integer extremes
/// (min, max, 0, -1 ...) mixed with uniform values.
/// Supported Key: uint8..uint64, int8..int64, float, double, __half, __nv_bfloat16.
template <typename Key>
std::vector<Key> generate_keys(Distribution distribution, std::size_t n, std::uint64_t seed,
                               const GeneratorOptions& options = {});

/// Payload values 0, 1, ..., n-1: with these a sorted pair's value says where its key came from,
/// which is what the stability and permutation checks use.
std::vector<std::uint32_t> iota_values(std::size_t n);

}  // namespace sortlab
