/// \file
/// \brief Implementation of the segment offset generators and checks.
#include "common/segments.hpp"

#include <cmath>
#include <limits>
#include <random>

namespace sortlab {
namespace {

struct NamedShape {
  SegmentShape shape;
  const char* name;
};

constexpr NamedShape kShapeNames[] = {
    {SegmentShape::kEqual, "equal"},
    {SegmentShape::kRandom, "random"},
    {SegmentShape::kPowerLaw, "powerlaw"},
};

/// Chance (1 in kEmptyOneIn) that a kRandom or kPowerLaw segment is made empty on purpose.
constexpr std::uint64_t kEmptyOneIn = 8;

/// Tail exponent of the power-law sizes; below 1 the largest few segments hold most items.
constexpr double kPowerLawAlpha = 0.7;

/// A uniform double in (0, 1] from the engine's raw bits (portable across standard libraries,
/// unlike std::uniform_real_distribution).
double uniform_open_closed(std::mt19937_64& engine) {
  return static_cast<double>((engine() >> 11) + 1) * 0x1.0p-53;
}

/// Offsets proportional to the running sum of \p weights (all >= 0, at least one > 0).
std::vector<std::uint32_t> offsets_from_weights(const std::vector<double>& weights,
                                                std::size_t num_items) {
  double total = 0;
  for (double w : weights) total += w;
  std::vector<std::uint32_t> offsets(weights.size() + 1, 0);
  double running = 0;
  for (std::size_t s = 0; s + 1 < weights.size(); ++s) {
    running += weights[s];
    const double share = std::min(1.0, running / total);
    const auto offset =
        static_cast<std::size_t>(std::floor(share * static_cast<double>(num_items)));
    offsets[s + 1] = static_cast<std::uint32_t>(std::min(offset, num_items));
  }
  offsets.back() = static_cast<std::uint32_t>(num_items);
  return offsets;
}

}  // namespace

const std::vector<SegmentShape>& all_segment_shapes() {
  static const std::vector<SegmentShape> all = [] {
    std::vector<SegmentShape> list;
    for (const auto& entry : kShapeNames) list.push_back(entry.shape);
    return list;
  }();
  return all;
}

std::string to_string(SegmentShape shape) {
  for (const auto& entry : kShapeNames)
    if (entry.shape == shape) return entry.name;
  throw Error("to_string: unknown SegmentShape value");
}

SegmentShape parse_segment_shape(const std::string& name) {
  std::string valid;
  for (const auto& entry : kShapeNames) {
    if (name == entry.name) return entry.shape;
    valid += std::string(valid.empty() ? "" : ", ") + entry.name;
  }
  throw Error("unknown segment shape '" + name + "' (valid: " + valid + ")");
}

std::vector<std::uint32_t> generate_segment_offsets(std::size_t num_items, std::size_t num_segments,
                                                    SegmentShape shape, std::uint64_t seed) {
  require(num_items <= std::numeric_limits<std::uint32_t>::max(),
          "generate_segment_offsets: num_items = " + std::to_string(num_items) +
              " does not fit 32-bit offsets");
  require(num_segments > 0 || num_items == 0,
          "generate_segment_offsets: " + std::to_string(num_items) +
              " items need at least one segment");
  if (num_segments == 0 || num_items == 0) return std::vector<std::uint32_t>(num_segments + 1, 0);

  if (shape == SegmentShape::kEqual) {
    std::vector<std::uint32_t> offsets(num_segments + 1);
    const std::size_t base = num_items / num_segments;
    const std::size_t extra = num_items % num_segments;
    for (std::size_t s = 0; s <= num_segments; ++s)
      offsets[s] = static_cast<std::uint32_t>(s * base + std::min(s, extra));
    return offsets;
  }

  require(shape == SegmentShape::kRandom || shape == SegmentShape::kPowerLaw,
          "generate_segment_offsets: unknown SegmentShape value");
  std::mt19937_64 engine(seed);
  std::vector<double> weights(num_segments);
  bool any_empty = false;
  for (double& w : weights) {
    const double u = uniform_open_closed(engine);
    w = shape == SegmentShape::kRandom ? u : std::pow(u, -1.0 / kPowerLawAlpha);
    if (engine() % kEmptyOneIn == 0) {
      w = 0;
      any_empty = true;
    }
  }
  // Every test must meet an empty segment, and the items must land somewhere.
  if (!any_empty && num_segments >= 2) weights[engine() % num_segments] = 0;
  bool any_weight = false;
  for (double w : weights) any_weight = any_weight || w > 0;
  if (!any_weight) weights[engine() % num_segments] = 1;
  return offsets_from_weights(weights, num_items);
}

void validate_segment_offsets(const std::vector<std::uint32_t>& offsets, std::size_t num_items) {
  require(!offsets.empty(), "segment offsets: need at least one offset (num_segments + 1)");
  require(offsets.front() == 0,
          "segment offsets: offsets[0] = " + std::to_string(offsets.front()) + ", must be 0");
  for (std::size_t s = 1; s < offsets.size(); ++s)
    require(offsets[s - 1] <= offsets[s],
            "segment offsets: decrease at index " + std::to_string(s) + " (" +
                std::to_string(offsets[s - 1]) + " then " + std::to_string(offsets[s]) + ")");
  require(offsets.back() == num_items, "segment offsets: last offset is " +
                                           std::to_string(offsets.back()) + " but there are " +
                                           std::to_string(num_items) + " items");
}

std::size_t segment_of(const std::vector<std::uint32_t>& offsets, std::size_t index) {
  require(!offsets.empty() && index < offsets.back(),
          "segment_of: index " + std::to_string(index) + " is past the last segment");
  const auto after = std::upper_bound(offsets.begin(), offsets.end(), index);
  return static_cast<std::size_t>(after - offsets.begin()) - 1;
}

}  // namespace sortlab
