/// \file
/// \brief Segmented sorting harness: segment offset generators, a stable CPU reference and
/// verifiers that name the segment where an output goes wrong.
///
/// A segmented input is one key array cut into `num_segments` consecutive segments by
/// `num_segments + 1` offsets: segment s holds items [offsets[s], offsets[s + 1]). Offsets start
/// at 0, end at the number of items and never decrease, so empty segments are allowed (and the
/// generators make sure tests meet them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"
#include "common/verify.hpp"

namespace sortlab {

/// How generate_segment_offsets() sizes the segments.
enum class SegmentShape {
  kEqual,     ///< sizes differ by at most one item (the first segments get the extra items)
  kRandom,    ///< random sizes up to about twice the mean, with some empty segments
  kPowerLaw,  ///< heavy-tailed sizes: a few huge segments, many tiny and some empty ones
};

/// All segment shapes, in the order they are documented.
const std::vector<SegmentShape>& all_segment_shapes();

/// Stable short name of a segment shape: "equal", "random" or "powerlaw".
/// \param shape the shape to name
std::string to_string(SegmentShape shape);

/// Parses a name produced by to_string(SegmentShape); throws sortlab::Error listing the valid
/// names.
/// \param name the name to parse
SegmentShape parse_segment_shape(const std::string& name);

/// `num_segments + 1` non-decreasing offsets from 0 to \p num_items; the same arguments always
/// give the same offsets. kRandom and kPowerLaw leave at least one segment empty whenever there
/// are two or more segments. Throws sortlab::Error when \p num_items does not fit 32-bit offsets
/// or when there are items but no segments.
/// \param num_items number of keys the segments cover (at most 2^32 - 1)
/// \param num_segments number of segments (0 only when \p num_items is 0)
/// \param shape how the sizes are drawn
/// \param seed random seed (unused by kEqual)
std::vector<std::uint32_t> generate_segment_offsets(std::size_t num_items, std::size_t num_segments,
                                                    SegmentShape shape, std::uint64_t seed);

/// Throws sortlab::Error, naming the first bad offset, unless \p offsets has at least one entry,
/// starts at 0, ends at \p num_items and never decreases.
/// \param offsets segment offsets (number of segments + 1 entries)
/// \param num_items number of keys the offsets must cover
void validate_segment_offsets(const std::vector<std::uint32_t>& offsets, std::size_t num_items);

/// The segment that holds item \p index: the s with offsets[s] <= index < offsets[s + 1].
/// Throws sortlab::Error when \p index is not below offsets.back().
/// \param offsets valid segment offsets
/// \param index an item position
std::size_t segment_of(const std::vector<std::uint32_t>& offsets, std::size_t index);

/// The input positions in the order a stable segmented sort puts them: each segment sorted on
/// its own, equal keys in input order. Throws sortlab::Error for invalid offsets.
/// \param keys the keys
/// \param offsets segment offsets covering keys.size() items
/// \param options bit range and direction, as for the whole-array sorts
template <typename Key>
std::vector<std::size_t> reference_segmented_order(const std::vector<Key>& keys,
                                                   const std::vector<std::uint32_t>& offsets,
                                                   const SortOptions& options = {}) {
  validate_segment_offsets(offsets, keys.size());
  std::vector<std::uint64_t> bits(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) bits[i] = sort_bits(keys[i], options);
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    std::stable_sort(order.begin() + offsets[s], order.begin() + offsets[s + 1],
                     [&bits](std::size_t a, std::size_t b) { return bits[a] < bits[b]; });
  return order;
}

/// Stable CPU segmented sort of \p keys: every segment sorted on its own.
/// \param keys the keys
/// \param offsets segment offsets covering keys.size() items
/// \param options bit range and direction
template <typename Key>
std::vector<Key> reference_segmented_sort_keys(const std::vector<Key>& keys,
                                               const std::vector<std::uint32_t>& offsets,
                                               const SortOptions& options = {}) {
  const auto order = reference_segmented_order(keys, offsets, options);
  std::vector<Key> sorted(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = keys[order[i]];
  return sorted;
}

/// Stable CPU segmented sort of key-value pairs; writes \p sorted_keys and \p sorted_values.
/// \param keys the keys
/// \param values one value per key
/// \param offsets segment offsets covering keys.size() items
/// \param sorted_keys receives the keys, sorted within each segment
/// \param sorted_values receives the values, moved with their keys
/// \param options bit range and direction
template <typename Key, typename Value>
void reference_segmented_sort_pairs(const std::vector<Key>& keys, const std::vector<Value>& values,
                                    const std::vector<std::uint32_t>& offsets,
                                    std::vector<Key>& sorted_keys,
                                    std::vector<Value>& sorted_values,
                                    const SortOptions& options = {}) {
  require(keys.size() == values.size(),
          "reference_segmented_sort_pairs: keys and values differ in size");
  const auto order = reference_segmented_order(keys, offsets, options);
  sorted_keys.resize(keys.size());
  sorted_values.resize(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    sorted_values[i] = values[order[i]];
  }
}

namespace detail {

/// "segment 3 (items [10, 20))": the prefix of every segmented verification message.
/// \param offsets segment offsets
/// \param segment the segment to describe
inline std::string segment_label(const std::vector<std::uint32_t>& offsets, std::size_t segment) {
  return "segment " + std::to_string(segment) + " (items [" + std::to_string(offsets[segment]) +
         ", " + std::to_string(offsets[segment + 1]) + "))";
}

/// Checks one segment of a segmented keys-only sort: in order, and the same multiset of key
/// bit patterns as the input segment. The failure index is an index of the whole array.
/// \param input all input keys
/// \param offsets segment offsets
/// \param output all output keys (same size as \p input)
/// \param segment the segment to check
/// \param options bit range and direction
template <typename Key>
VerifyResult verify_one_segment(const std::vector<Key>& input,
                                const std::vector<std::uint32_t>& offsets,
                                const std::vector<Key>& output, std::size_t segment,
                                const SortOptions& options) {
  const std::size_t begin = offsets[segment];
  const std::size_t end = offsets[segment + 1];
  for (std::size_t i = begin + 1; i < end; ++i) {
    if (sort_bits(output[i - 1], options) > sort_bits(output[i], options))
      return failure(i, segment_label(offsets, segment) + ": not sorted at index " +
                            std::to_string(i) + ": " + hex_bits(output[i - 1]) + " before " +
                            hex_bits(output[i]));
  }
  std::unordered_map<std::uint64_t, std::int64_t> remaining;
  for (std::size_t i = begin; i < end; ++i) ++remaining[KeyTraits<Key>::raw_bits(input[i])];
  for (std::size_t i = begin; i < end; ++i) {
    if (--remaining[KeyTraits<Key>::raw_bits(output[i])] < 0)
      return failure(i, segment_label(offsets, segment) +
                            ": not a permutation of the input segment: key bits " +
                            hex_bits(output[i]) + " at index " + std::to_string(i) +
                            " occurs more often than in that segment of the input");
  }
  return {};
}

}  // namespace detail

/// Checks that \p output is \p input sorted segment by segment: same size, each segment in order
/// and a permutation of the same input segment. On failure first_bad_index is the first wrong
/// index (of the whole array) and the message names its segment. Throws sortlab::Error for
/// invalid offsets, which are a bug in the test rather than in the sort.
/// \param input the input keys
/// \param offsets segment offsets covering input.size() items
/// \param output the sort's output keys
/// \param options bit range and direction
template <typename Key>
VerifyResult verify_segmented_sort_keys(const std::vector<Key>& input,
                                        const std::vector<std::uint32_t>& offsets,
                                        const std::vector<Key>& output,
                                        const SortOptions& options = {}) {
  validate_segment_offsets(offsets, input.size());
  if (input.size() != output.size())
    return detail::failure(0, "output has " + std::to_string(output.size()) + " keys, input " +
                                  std::to_string(input.size()));
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    VerifyResult segment = detail::verify_one_segment(input, offsets, output, s, options);
    if (!segment) return segment;
  }
  return {};
}

/// Checks key-value output of a segmented sort against the stable reference: every segment
/// sorted and a permutation of its input, values moved with their keys and equal keys in input
/// order. With values from iota_values() a value names its input position. Throws sortlab::Error
/// for invalid offsets.
/// \param input_keys the input keys
/// \param input_values the input values
/// \param offsets segment offsets covering input_keys.size() items
/// \param output_keys the sort's output keys
/// \param output_values the sort's output values
/// \param options bit range and direction
template <typename Key, typename Value>
VerifyResult verify_segmented_sort_pairs(const std::vector<Key>& input_keys,
                                         const std::vector<Value>& input_values,
                                         const std::vector<std::uint32_t>& offsets,
                                         const std::vector<Key>& output_keys,
                                         const std::vector<Value>& output_values,
                                         const SortOptions& options = {}) {
  if (output_values.size() != output_keys.size() || input_values.size() != input_keys.size())
    return detail::failure(0, "keys and values differ in size");
  VerifyResult keys = verify_segmented_sort_keys(input_keys, offsets, output_keys, options);
  if (!keys) return keys;
  std::vector<Key> expected_keys;
  std::vector<Value> expected_values;
  reference_segmented_sort_pairs(input_keys, input_values, offsets, expected_keys, expected_values,
                                 options);
  for (std::size_t i = 0; i < output_keys.size(); ++i) {
    const bool same_key =
        KeyTraits<Key>::raw_bits(output_keys[i]) == KeyTraits<Key>::raw_bits(expected_keys[i]);
    if (!same_key || output_values[i] != expected_values[i]) {
      std::ostringstream message;
      message << detail::segment_label(offsets, segment_of(offsets, i)) << ": pair at index " << i
              << " is (" << detail::hex_bits(output_keys[i]) << ", " << +output_values[i]
              << ") but the stable order has (" << detail::hex_bits(expected_keys[i]) << ", "
              << +expected_values[i]
              << "): values did not travel with their keys, or equal keys lost input order";
      return detail::failure(i, message.str());
    }
  }
  return {};
}

}  // namespace sortlab
