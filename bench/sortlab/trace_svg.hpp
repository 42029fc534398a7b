/// \file
/// \brief Drawing one traced pass as an SVG figure, the way the textbook's figures draw it: the
/// keys with their digit bits, each block's locally sorted tile, the block bucket table and its
/// scan, and an arrow from every key to its destination. Plain SVG text, no library, so that the
/// same trace always writes the same bytes (the committed figures are checked against it).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sortlab/stage_registry.hpp"

namespace sortlab::cli {

/// Most keys a figure draws: beyond that the boxes and arrows no longer fit a page.
inline constexpr std::size_t kMaxFigureKeys = 64;

/// What a figure says about its pass besides the arrays.
struct FigureText {
  std::string title;     ///< first line, e.g. "stage 02 (coalesced_sort), pass 1 of 4: bit 0"
  std::string subtitle;  ///< second line, e.g. how a destination is computed
  /// Key bits shown in binary under each key, the pass's digit bits highlighted (u32 keys); 0
  /// shows only the digit's bits (keys whose bits are not their value, e.g. i32, f32).
  int key_bits = 0;
};

/// Writes the SVG figure of one pass to \p out: keys in (coloured by digit, with their bits),
/// then for a tiled pass each block's local split and its destinations, arrows to the keys
/// after the pass, and the block bucket table beside its exclusive scan; for stage 01's split,
/// the bits, ones before and destinations. Throws sortlab::Error for more than kMaxFigureKeys
/// keys.
/// \param out where the SVG text goes
/// \param text the figure's title, subtitle and how many key bits to show
/// \param keys_in the keys before the pass
/// \param pass the pass's arrays
template <typename Key>
void write_pass_svg(std::ostream& out, const FigureText& text, const std::vector<Key>& keys_in,
                    const PassArrays<Key>& pass);

}  // namespace sortlab::cli
