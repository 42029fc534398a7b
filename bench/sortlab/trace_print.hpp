/// \file
/// \brief Printing one traced pass the way the textbook's figures show it: one labelled row per
/// array, every element in a fixed-width column so that a key, its digit and its destination
/// line up, and the block bucket table as a grid (rows = buckets, columns = blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sortlab/stage_registry.hpp"

namespace sortlab::cli {

/// How the rows of a trace are laid out; the same for every pass of one trace.
struct TraceLayout {
  /// Key bits shown in binary under the decimal keys (u32 keys); 0 for no binary rows.
  int binary_bits = 0;
  /// Width of every array cell: wide enough for the largest key, its binary form and n.
  std::size_t cell_width = 1;
};

/// Width of the row labels ("ones before", "destinations", ...).
inline constexpr std::size_t kTraceLabelWidth = 16;

/// A key in decimal, as the trace prints it ("12", "-3", "2.5").
/// \param key the key
template <typename Key>
std::string format_key(Key key);

/// The low \p width bits of \p value in binary, most significant first ("0110").
/// \param value the value
/// \param width how many bits to show
std::string to_binary(std::uint32_t value, int width);

/// The layout for a trace of \p keys: cells wide enough for every key, for \p binary_bits binary
/// digits and for the numbers 0..n (indices, destinations, counts).
/// \param keys the keys the trace starts from
/// \param binary_bits key bits shown in binary (0 for none)
template <typename Key>
TraceLayout make_layout(const std::vector<Key>& keys, int binary_bits);

/// One labelled row: \p label, then \p cells right-aligned in columns of the layout's width;
/// the first cell goes into column \p first_column (earlier columns stay blank).
/// \param out where to print
/// \param layout the trace's layout
/// \param label the row's name
/// \param cells the row's cells
/// \param first_column column of the first cell
void print_row(std::ostream& out, const TraceLayout& layout, const std::string& label,
               const std::vector<std::string>& cells, std::size_t first_column = 0);

/// Prints every array of one pass: index, keys in (and their binary), bits or digits, ones
/// before (stage 01) or each block's locally sorted tile and the block bucket table and its scan
/// as grids (tiled stages), destinations, keys after.
/// \param out where to print
/// \param layout the trace's layout
/// \param keys_in the keys before the pass
/// \param pass the pass's arrays
template <typename Key>
void print_pass(std::ostream& out, const TraceLayout& layout, const std::vector<Key>& keys_in,
                const PassArrays<Key>& pass);

}  // namespace sortlab::cli
