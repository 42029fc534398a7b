/// \file
/// \brief Stage 06 CPU model: which segment goes to which bin and class, the bitonic network of
/// the small and warp bins entry by entry, the large class's radix passes tile by tile, and the
/// reference segmented stable sort on begin/end offsets that the GPU tests compare against.
///
/// The model uses the same host-device rules as the kernels (size_classes.hpp,
/// bitonic_network.hpp), so the CPU tests check the very classification and network steps the
/// GPU runs. It is plain C++: no CUDA compiler and no GPU are needed.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/06_segmented_sort/bitonic_network.hpp"
#include "chapters/06_segmented_sort/size_classes.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/reference.hpp"
#include "common/sort_options.hpp"
#include "common/value_carrier.hpp"

namespace sortlab::stage06 {

// ---- Classification -----------------------------------------------------------------------------

/// The result of classifying every segment, as the classify kernel computes it (the kernel's
/// lists hold the same ids in an order its atomics choose; these are in segment order).
struct Classification {
  std::vector<SizeClass> class_of;  ///< the class of each segment
  /// The ids of each class with work (index: static_cast<int>(SizeClass)), ascending.
  std::array<std::vector<std::uint32_t>, kNumSizeClasses> ids;
  std::vector<int> bin_of;  ///< the bin of each segment (kNoBin when empty)
  /// The ids of each bin (0 .. kLargeBin), ascending. Bins from kFirstWarpBin on are the
  /// kernel's lists; the small bins' segments are sorted by the classify kernel itself.
  std::array<std::vector<std::uint32_t>, kNumBins> bin_ids;
};

/// Classifies segments [begin[s], end[s]) of an input of \p n items with keys of \p key_bytes
/// bytes. Throws sortlab::Error when the offset arrays differ in length.
/// \param begin_offsets first item of each segment
/// \param end_offsets one past the last item of each segment
/// \param n items in the input
/// \param key_bytes sizeof(Key)
inline Classification model_classify(const std::vector<std::uint32_t>& begin_offsets,
                                     const std::vector<std::uint32_t>& end_offsets, std::size_t n,
                                     std::size_t key_bytes) {
  require(begin_offsets.size() == end_offsets.size(),
          "model_classify: begin_offsets and end_offsets differ in length");
  Classification result;
  result.class_of.resize(begin_offsets.size());
  result.bin_of.resize(begin_offsets.size());
  for (std::size_t s = 0; s < begin_offsets.size(); ++s) {
    const int bin = classify_bin(segment_size(begin_offsets[s], end_offsets[s], n), key_bytes);
    const SizeClass size_class = class_of_bin(bin);
    result.class_of[s] = size_class;
    result.bin_of[s] = bin;
    if (size_class != SizeClass::kNone) {
      result.ids[static_cast<int>(size_class)].push_back(static_cast<std::uint32_t>(s));
      result.bin_ids[bin].push_back(static_cast<std::uint32_t>(s));
    }
  }
  return result;
}

// ---- The small and warp bins: the bitonic network, entry by entry -------------------------------

/// Runs the bitonic network of \p width entries on one segment, every entry as the kernels do
/// (bitonic_keeps_min(), entry_before(): entry x starts as (sort bits of key x, x), or (all
/// ones, x) past the end), and returns the positions in output order: entry r is the segment
/// position that output position r receives. Which lane and register holds entry x does not
/// change the result, so this one model serves the sub-warp groups of the small bins and the
/// several-keys-per-lane warps of the warp bins. Throws sortlab::Error unless width is a power
/// of two of at least keys.size().
/// \param keys the segment's keys
/// \param options bit range and direction
/// \param width entries of the network
template <typename Key>
std::vector<std::uint32_t> model_bitonic_entries(const std::vector<Key>& keys,
                                                 const SortOptions& options, std::size_t width) {
  using Bits = typename KeyTraits<Key>::Bits;
  require(width > 0 && (width & (width - 1)) == 0 && keys.size() <= width,
          "model_bitonic_entries: the width must be a power of two of at least the keys");
  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  std::vector<Bits> bits(width);
  std::vector<std::uint32_t> position(width);
  for (std::size_t x = 0; x < width; ++x) {
    bits[x] = x < keys.size()
                  ? network_sort_bits(keys[x], resolved.begin_bit, num_bits, resolved.descending)
                  : static_cast<Bits>(~Bits{0});
    position[x] = static_cast<std::uint32_t>(x);
  }
  for (unsigned phase = 2; phase <= width; phase <<= 1)
    for (unsigned step = phase >> 1; step > 0; step >>= 1) {
      // All entries exchange at once: read the old entries, then write the new ones.
      const auto old_bits = bits;
      const auto old_position = position;
      for (unsigned x = 0; x < width; ++x) {
        const unsigned partner = x ^ step;
        const bool other_first =
            entry_before(old_bits[partner], old_position[partner], old_bits[x], old_position[x]);
        if (bitonic_keeps_min(x, phase, step) == other_first) {
          bits[x] = old_bits[partner];
          position[x] = old_position[partner];
        }
      }
    }
  return std::vector<std::uint32_t>(position.begin(), position.begin() + keys.size());
}

/// The same network as the kernels arrange it (bitonic_sort_entries() in the kernels): \p lanes
/// lanes of \p items registers each, entry x = lane * items + i in register i of lane `lane`;
/// steps j < items compare registers i and i + j of one lane, the others register i of lane l
/// with register i of lane l ^ (j / items) (a shuffle on the GPU). Returns the positions in
/// output order, read back entry by entry. Equal to model_bitonic_entries() of lanes x items
/// entries (a CPU test checks it for every arrangement the kernels use).
/// \param keys the segment's keys (at most lanes x items)
/// \param options bit range and direction
/// \param lanes lanes of the group, a power of two
/// \param items registers per lane, a power of two
template <typename Key>
std::vector<std::uint32_t> model_lanes_network(const std::vector<Key>& keys,
                                               const SortOptions& options, std::size_t lanes,
                                               std::size_t items) {
  using Bits = typename KeyTraits<Key>::Bits;
  const std::size_t width = lanes * items;
  require(lanes > 0 && (lanes & (lanes - 1)) == 0 && items > 0 && (items & (items - 1)) == 0 &&
              keys.size() <= width,
          "model_lanes_network: lanes and items must be powers of two holding the keys");
  const SortOptions resolved = resolve<Key>(options);
  const int num_bits = resolved.end_bit - resolved.begin_bit;
  // registers[lane][i]
  std::vector<std::vector<Bits>> bits(lanes, std::vector<Bits>(items));
  std::vector<std::vector<std::uint32_t>> position(lanes, std::vector<std::uint32_t>(items));
  for (std::size_t lane = 0; lane < lanes; ++lane)
    for (std::size_t i = 0; i < items; ++i) {
      const std::size_t x = lane * items + i;
      position[lane][i] = static_cast<std::uint32_t>(x);
      bits[lane][i] = x < keys.size() ? network_sort_bits(keys[x], resolved.begin_bit, num_bits,
                                                          resolved.descending)
                                      : static_cast<Bits>(~Bits{0});
    }
  for (unsigned phase = 2; phase <= width; phase <<= 1)
    for (unsigned step = phase >> 1; step > 0; step >>= 1) {
      if (step < items) {  // inside each lane
        for (std::size_t lane = 0; lane < lanes; ++lane)
          for (std::size_t i = 0; i < items; ++i) {
            if ((i & step) != 0) continue;
            const std::size_t j = i + step;
            const auto entry = static_cast<unsigned>(lane * items + i);
            const bool upper_first =
                entry_before(bits[lane][j], position[lane][j], bits[lane][i], position[lane][i]);
            if (bitonic_keeps_min(entry, phase, step) == upper_first) {
              std::swap(bits[lane][i], bits[lane][j]);
              std::swap(position[lane][i], position[lane][j]);
            }
          }
      } else {  // across lanes: every lane reads its partner's old register, then writes
        const auto old_bits = bits;
        const auto old_position = position;
        const std::size_t lane_mask = step / items;
        for (std::size_t lane = 0; lane < lanes; ++lane)
          for (std::size_t i = 0; i < items; ++i) {
            const std::size_t partner = lane ^ lane_mask;
            const bool other_first = entry_before(old_bits[partner][i], old_position[partner][i],
                                                  old_bits[lane][i], old_position[lane][i]);
            const auto entry = static_cast<unsigned>(lane * items + i);
            if (bitonic_keeps_min(entry, phase, step) == other_first) {
              bits[lane][i] = old_bits[partner][i];
              position[lane][i] = old_position[partner][i];
            }
          }
      }
    }
  std::vector<std::uint32_t> order;
  for (std::size_t x = 0; x < keys.size(); ++x) order.push_back(position[x / items][x % items]);
  return order;
}

/// The network width the kernels give a segment of \p size keys of a small or warp bin: the
/// bin's width 2^bin (1 for an empty segment).
/// \param size 0 .. kWarpMaxItems
inline std::size_t model_network_width(std::size_t size) {
  return size == 0 ? 1 : bin_max_items(classify_bin(static_cast<std::uint32_t>(size), 4));
}

/// The small bins' network on one segment of at most 32 keys, as a group of \p width lanes of
/// the classify kernel runs it (one entry per lane). Returns the positions in output order.
/// Throws sortlab::Error for more than 32 keys.
/// \param keys the segment's keys
/// \param options bit range and direction
/// \param width lanes of the group: 0 for the segment's bin width (what the kernel uses), or
/// any power of two from keys.size() to 32
template <typename Key>
std::vector<std::uint32_t> model_bitonic_network(const std::vector<Key>& keys,
                                                 const SortOptions& options = {},
                                                 std::size_t width = 0) {
  require(keys.size() <= kNetworkWidth, "model_bitonic_network: more than 32 keys");
  if (width == 0) width = model_network_width(keys.size());
  require(width <= kNetworkWidth, "model_bitonic_network: a group is at most one warp");
  return model_bitonic_entries(keys, options, width);
}

/// The warp bins' network on one segment of at most kWarpMaxItems keys, as one warp of the warp
/// kernel runs it (width / 32 entries per lane). Returns the positions in output order. Throws
/// sortlab::Error for more than kWarpMaxItems keys.
/// \param keys the segment's keys
/// \param options bit range and direction
/// \param width entries: 0 for the segment's bin width, or any power of two from keys.size()
/// to kWarpMaxItems
template <typename Key>
std::vector<std::uint32_t> model_warp_network(const std::vector<Key>& keys,
                                              const SortOptions& options = {},
                                              std::size_t width = 0) {
  require(keys.size() <= kWarpMaxItems, "model_warp_network: more than kWarpMaxItems keys");
  if (width == 0) width = model_network_width(keys.size());
  require(width <= kWarpMaxItems, "model_warp_network: more entries than a warp holds");
  return model_bitonic_entries(keys, options, width);
}

// ---- The medium and large classes: padding and the block passes --------------------------------

/// The key the block kernels put in tile positions past a segment's end (padding_key() in the
/// kernels, stage05::TwiddledKey<Key>::out of all ones ascending, all zeros descending),
/// computed on the host: its sort bits are the largest in the direction of the sort.
/// \param descending largest first
template <typename Key>
Key model_padding_key(bool descending) {
  using Traits = KeyTraits<Key>;
  using Bits = typename Traits::Bits;
  Bits bits = descending ? Bits{0} : static_cast<Bits>(~Bits{0});
  // The inverse of the block sort's twiddle (ordered bits without the -0.0 fold).
  if constexpr (Traits::kIsFloating)
    bits = static_cast<Bits>(bits & Traits::kHighBit ? bits ^ Traits::kHighBit
                                                     : static_cast<Bits>(~bits));
  else if constexpr (std::is_signed_v<Key>)
    bits = static_cast<Bits>(bits ^ Traits::kHighBit);
  return Traits::from_raw_bits(bits);
}

/// One pass of the large class on one segment, as the large kernel runs it: count the segment's
/// digits and scan them; then for each tile of \p tile_items keys in order, sort the tile by the
/// digit (stable, as the block sort does) and send its p-th key of digit d to
/// next[d] + (p - start of d in the tile), then advance next[d] by the tile's count of d.
/// Returns the destination of each input position (a permutation of 0 .. size-1).
/// \param keys the segment's keys as the pass reads them
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width (1 .. kBlockRadixBits)
/// \param descending complemented digits
/// \param tile_items keys per tile (the kernel's is kTileItems<Key>; smaller tiles test more
/// tile boundaries)
template <typename Key>
std::vector<std::uint32_t> model_large_pass(const std::vector<Key>& keys, int first_bit,
                                            int num_bits, bool descending, std::size_t tile_items) {
  require(tile_items > 0, "model_large_pass: tile_items must be positive");
  const std::size_t digits = std::size_t{1} << num_bits;
  std::vector<std::uint32_t> digit(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    digit[i] = radix_digit(keys[i], first_bit, num_bits, descending);
  std::vector<std::uint32_t> next(digits, 0);
  for (std::uint32_t d : digit) ++next[d];
  std::exclusive_scan(next.begin(), next.end(), next.begin(), 0u);
  std::vector<std::uint32_t> destination(keys.size());
  for (std::size_t tile = 0; tile < keys.size(); tile += tile_items) {
    const std::size_t valid = std::min(tile_items, keys.size() - tile);
    std::vector<std::uint32_t> order(valid);  // the tile sorted by digit, stably
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return digit[tile + a] < digit[tile + b];
    });
    std::vector<std::uint32_t> count(digits, 0);
    for (std::size_t i = 0; i < valid; ++i) ++count[digit[tile + i]];
    std::vector<std::uint32_t> start(digits, 0);
    std::exclusive_scan(count.begin(), count.end(), start.begin(), 0u);
    for (std::uint32_t p = 0; p < valid; ++p) {
      const std::uint32_t d = digit[tile + order[p]];
      destination[tile + order[p]] = next[d] + (p - start[d]);
    }
    for (std::size_t d = 0; d < digits; ++d) next[d] += count[d];
  }
  return destination;
}

/// The large class's whole sort of one segment: passes of kBlockRadixBits-bit digits over
/// [begin_bit, end_bit), least significant first, each moving the keys to model_large_pass()'s
/// destinations. Returns the input positions in output order.
/// \param keys the segment's keys
/// \param options bit range and direction
/// \param tile_items keys per tile
template <typename Key>
std::vector<std::uint32_t> model_large_segment(const std::vector<Key>& keys,
                                               const SortOptions& options, std::size_t tile_items) {
  const SortOptions resolved = resolve<Key>(options);
  std::vector<std::uint32_t> origin(keys.size());  // origin[p]: input position now at p
  std::iota(origin.begin(), origin.end(), 0u);
  std::vector<Key> current = keys;
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; bit += kBlockRadixBits) {
    const int pass_bits = std::min(kBlockRadixBits, resolved.end_bit - bit);
    const auto destination =
        model_large_pass(current, bit, pass_bits, resolved.descending, tile_items);
    std::vector<Key> moved(current.size());
    std::vector<std::uint32_t> moved_origin(current.size());
    for (std::size_t i = 0; i < current.size(); ++i) {
      moved[destination[i]] = current[i];
      moved_origin[destination[i]] = origin[i];
    }
    current.swap(moved);
    origin.swap(moved_origin);
  }
  return origin;
}

// ---- The reference: a segmented stable sort on begin/end offsets --------------------------------

/// The input positions of segment [begin, end) in stable sorted order (common/reference.hpp's
/// sort bits: -0.0 equals +0.0, NaNs by their bits, a bit range, either direction).
/// \param keys all keys
/// \param begin first item of the segment
/// \param end one past its last item (begin <= end <= keys.size())
/// \param options bit range and direction
template <typename Key>
std::vector<std::uint32_t> reference_segment_order(const std::vector<Key>& keys,
                                                   std::uint32_t begin, std::uint32_t end,
                                                   const SortOptions& options) {
  std::vector<std::uint64_t> bits(end - begin);  // computed once, not in every comparison
  for (std::uint32_t i = begin; i < end; ++i) bits[i - begin] = sort_bits(keys[i], options);
  std::vector<std::uint32_t> order(end - begin);
  std::iota(order.begin(), order.end(), begin);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return bits[a - begin] < bits[b - begin];
  });
  return order;
}

/// Stable segmented sort on the CPU with the GPU sort's contract: every segment
/// [begin_offsets[s], end_offsets[s]) of \p keys is sorted into the same positions of
/// \p keys_out (and \p values into \p values_out when given); positions outside every segment
/// keep what the outputs held before; empty segments (end <= begin) and segments past the input
/// (end > n) are left alone. Segments must not overlap (not checked). Throws sortlab::Error when
/// the sizes disagree.
/// \param keys input keys
/// \param values input values, or nullptr for keys only (Value is deduced from \p values_out)
/// \param begin_offsets first item of each segment
/// \param end_offsets one past the last item of each segment
/// \param options bit range and direction
/// \param keys_out output keys (keys.size() items, prefilled with what must survive)
/// \param values_out output values (prefilled), or nullptr for keys only
template <typename Key, typename Value = std::uint32_t>
void reference_segmented_sort(const std::vector<Key>& keys,
                              const std::vector<NotDeduced<Value>>* values,
                              const std::vector<std::uint32_t>& begin_offsets,
                              const std::vector<std::uint32_t>& end_offsets,
                              const SortOptions& options, std::vector<Key>& keys_out,
                              std::vector<Value>* values_out = nullptr) {
  require(begin_offsets.size() == end_offsets.size(),
          "reference_segmented_sort: begin_offsets and end_offsets differ in length");
  require(keys_out.size() == keys.size(), "reference_segmented_sort: keys_out has the wrong size");
  require((values == nullptr) == (values_out == nullptr),
          "reference_segmented_sort: give both value vectors or neither");
  if (values != nullptr)
    require(values->size() == keys.size() && values_out->size() == keys.size(),
            "reference_segmented_sort: values have the wrong size");
  for (std::size_t s = 0; s < begin_offsets.size(); ++s) {
    const std::uint32_t begin = begin_offsets[s];
    if (segment_size(begin, end_offsets[s], keys.size()) == 0) continue;
    const auto order = reference_segment_order(keys, begin, end_offsets[s], options);
    for (std::size_t i = 0; i < order.size(); ++i) {
      keys_out[begin + i] = keys[order[i]];
      if (values != nullptr) (*values_out)[begin + i] = (*values)[order[i]];
    }
  }
}

/// The whole stage 06 algorithm on the CPU, bin by bin as the GPU runs it: small bins through
/// model_bitonic_network() with groups of the bin's width, warp bins through
/// model_warp_network() with the bin's width, tile bins through a stable sort of one tile (the
/// block sort, tested by stage 05), large segments through model_large_segment() with tiles of
/// \p tile_items keys. Writes the same outputs as reference_segmented_sort() (which the CPU
/// tests check); returns the classification.
/// \param keys input keys
/// \param begin_offsets first item of each segment
/// \param end_offsets one past the last item of each segment
/// \param options bit range and direction
/// \param keys_out output keys (prefilled with what must survive)
/// \param tile_items the large class's tile (medium_max_items(sizeof(Key)) on the GPU)
template <typename Key>
Classification model_segmented_sort(const std::vector<Key>& keys,
                                    const std::vector<std::uint32_t>& begin_offsets,
                                    const std::vector<std::uint32_t>& end_offsets,
                                    const SortOptions& options, std::vector<Key>& keys_out,
                                    std::size_t tile_items = medium_max_items(sizeof(Key))) {
  require(keys_out.size() == keys.size(), "model_segmented_sort: keys_out has the wrong size");
  const Classification classes =
      model_classify(begin_offsets, end_offsets, keys.size(), sizeof(Key));
  for (std::size_t s = 0; s < begin_offsets.size(); ++s) {
    const int bin = classes.bin_of[s];
    if (bin == kNoBin) continue;
    const std::uint32_t begin = begin_offsets[s];
    const std::vector<Key> segment(keys.begin() + begin, keys.begin() + end_offsets[s]);
    std::vector<std::uint32_t> order;  // segment positions in output order
    if (bin < kFirstWarpBin) {
      order = model_bitonic_network(segment, options, small_group_lanes(bin));
    } else if (bin < kFirstTileBin) {
      order = model_warp_network(segment, options, bin_max_items(bin));
    } else if (bin < kLargeBin) {
      order =
          reference_segment_order(segment, 0, static_cast<std::uint32_t>(segment.size()), options);
    } else {
      order = model_large_segment(segment, options, tile_items);
    }
    for (std::size_t i = 0; i < order.size(); ++i) keys_out[begin + i] = segment[order[i]];
  }
  return classes;
}

/// \p key as a double, for torch_sort_rows_reference's comparisons (__half and __nv_bfloat16
/// through their own conversions).
template <typename Key>
double key_as_double(Key key) {
  if constexpr (std::is_same_v<Key, __half>)
    return static_cast<double>(__half2float(key));
  else if constexpr (std::is_same_v<Key, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(key));
  else
    return static_cast<double>(key);
}

/// torch.sort(x, dim=-1, stable=True, descending) of a rows x cols row-major matrix, written from
/// PyTorch's rule rather than from the radix order: keys compare as numbers, NaN is larger than
/// every number (last ascending, first descending), -0.0 equals +0.0, and a stable sort keeps
/// equal keys (and NaNs) in input order. What sort_rows() must return, element for element.
/// \param input the matrix
/// \param rows number of rows
/// \param cols number of columns
/// \param descending largest first
/// \param values receives the sorted rows
/// \param indices receives each output element's input column
template <typename Key>
void torch_sort_rows_reference(const std::vector<Key>& input, std::size_t rows, std::size_t cols,
                               bool descending, std::vector<Key>& values,
                               std::vector<std::int64_t>& indices) {
  values.resize(rows * cols);
  indices.resize(rows * cols);
  const auto less = [](double a, double b) {  // NaN is the largest value
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  };
  std::vector<std::int64_t> order(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const Key* row = input.data() + r * cols;
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      const double x = key_as_double(row[a]), y = key_as_double(row[b]);
      return descending ? less(y, x) : less(x, y);
    });
    for (std::size_t c = 0; c < cols; ++c) {
      values[r * cols + c] = row[order[c]];
      indices[r * cols + c] = order[c];
    }
  }
}

}  // namespace sortlab::stage06
