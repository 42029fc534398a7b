/// \file
/// \brief KeyShape: which keys a benchmark sorts (uniform, AND-reduced entropy, sorted, all equal,
/// few distinct) and how that reads in a benchmark name. Plain C++, unit-tested on the CPU.
#pragma once

#include <string>

namespace sortlab::bench {

/// The keys of one benchmark input. Keys are generated on the GPU by bench_support.cu; the names
/// of the shapes other than AND-reduction are common/distributions' (to_string(Distribution)).
struct KeyShape {
  /// How the keys are made.
  enum class Kind {
    kAndReduced,   ///< uniform 32-bit patterns ANDed and_count extra times (0 = uniform)
    kSorted,       ///< ascending, evenly spaced over the 32-bit range
    kEqual,        ///< one value repeated
    kFewDistinct,  ///< kFewDistinctValues values in random order
  };
  Kind kind = Kind::kAndReduced;  ///< the shape
  int and_count = 0;              ///< kAndReduced: extra ANDs (0..4 in the tables)

  /// The benchmark-name part: "ands:K" for kAndReduced, else "dist:sorted", "dist:equal",
  /// "dist:few".
  std::string name_part() const;

  /// Equal shapes have equal name parts.
  /// \param other the other shape
  bool operator==(const KeyShape& other) const { return name_part() == other.name_part(); }
};

/// How many distinct values a kFewDistinct input holds (common/distributions' default).
inline constexpr int kFewDistinctValues = 16;

/// The AND-reduced shape with \p and_count extra ANDs (0 = uniform keys).
/// \param and_count extra ANDs, at least 0
KeyShape and_reduced(int and_count);

/// Parses a name_part() ("ands:2", "dist:sorted") or a bare distribution name ("sorted",
/// "equal", "few"); throws sortlab::Error naming the valid values.
/// \param text the name
KeyShape parse_key_shape(const std::string& text);

}  // namespace sortlab::bench
