/// \file
/// \brief Printing a traced pass: aligned rows of arrays and the block bucket table grids.
#include "bench/sortlab/trace_print.hpp"

#include <algorithm>
#include <sstream>

namespace sortlab::cli {
namespace {

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

template <typename T>
std::vector<std::string> numbers(const std::vector<T>& values) {
  std::vector<std::string> cells;
  cells.reserve(values.size());
  for (const T& value : values) cells.push_back(std::to_string(value));
  return cells;
}

template <typename Key>
std::vector<std::string> decimal_keys(const std::vector<Key>& keys) {
  std::vector<std::string> cells;
  cells.reserve(keys.size());
  for (const Key& key : keys) cells.push_back(format_key(key));
  return cells;
}

template <typename Key>
void print_keys(std::ostream& out, const TraceLayout& layout, const std::string& label,
                const std::vector<Key>& keys, std::size_t first_column = 0) {
  print_row(out, layout, label, decimal_keys(keys), first_column);
  if (layout.binary_bits == 0) return;
  std::vector<std::string> binary;
  for (const Key& key : keys)
    binary.push_back(to_binary(static_cast<std::uint32_t>(key), layout.binary_bits));
  print_row(out, layout, "  in binary", binary, first_column);
}

/// The block bucket table (or its scan) as a grid: one row per bucket, one column per block.
void print_grid(std::ostream& out, const std::string& title,
                const std::vector<std::uint32_t>& table, int num_buckets, int num_blocks,
                int digit_bits, bool binary) {
  out << "  " << title << '\n';
  std::size_t width = 0;
  for (int b = 0; b < num_blocks; ++b)
    width = std::max(width, ("block " + std::to_string(b)).size());
  for (std::uint32_t value : table) width = std::max(width, std::to_string(value).size());
  std::vector<std::string> labels;
  for (int d = 0; d < num_buckets; ++d) {
    std::string label = "digit " + std::to_string(d);
    if (binary && digit_bits > 1)
      label += " (" + to_binary(static_cast<std::uint32_t>(d), digit_bits) + ")";
    labels.push_back(label);
  }
  // The label column is as wide as the widest label, at least the rows' label column: with 10
  // or more buckets "digit 10 (1010)" is longer than "digit 9 (1001)", and a fixed width would
  // push those rows' counts one column right of the header's blocks.
  std::size_t label_width = kTraceLabelWidth + 2 - 4;
  for (const std::string& label : labels) label_width = std::max(label_width, label.size());
  out << "    " << pad_right("", label_width);
  for (int b = 0; b < num_blocks; ++b) out << ' ' << pad_left("block " + std::to_string(b), width);
  out << '\n';
  for (int d = 0; d < num_buckets; ++d) {
    std::string line = "    " + pad_right(labels[static_cast<std::size_t>(d)], label_width);
    for (int b = 0; b < num_blocks; ++b)
      line += ' ' +
              pad_left(std::to_string(table[static_cast<std::size_t>(d) * num_blocks + b]), width);
    out << line << '\n';
  }
}

}  // namespace

template <typename Key>
std::string format_key(Key key) {
  std::ostringstream text;
  text << +key;
  return text.str();
}

std::string to_binary(std::uint32_t value, int width) {
  std::string text;
  for (int bit = width - 1; bit >= 0; --bit) text += ((value >> bit) & 1u) ? '1' : '0';
  return text;
}

template <typename Key>
TraceLayout make_layout(const std::vector<Key>& keys, int binary_bits) {
  TraceLayout layout;
  layout.binary_bits = binary_bits;
  layout.cell_width = std::max<std::size_t>(std::to_string(keys.size()).size(),
                                            static_cast<std::size_t>(binary_bits));
  for (const Key& key : keys)
    layout.cell_width = std::max(layout.cell_width, format_key(key).size());
  return layout;
}

void print_row(std::ostream& out, const TraceLayout& layout, const std::string& label,
               const std::vector<std::string>& cells, std::size_t first_column) {
  std::string line = "  " + pad_right(label, kTraceLabelWidth) + ":";
  line += std::string(first_column * (layout.cell_width + 1), ' ');
  for (const std::string& cell : cells) line += ' ' + pad_left(cell, layout.cell_width);
  out << line << '\n';
}

template <typename Key>
void print_pass(std::ostream& out, const TraceLayout& layout, const std::vector<Key>& keys_in,
                const PassArrays<Key>& pass) {
  const std::size_t n = keys_in.size();
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i) index[i] = i;
  print_row(out, layout, "index", numbers(index));
  if (pass.tiled && pass.num_blocks > 1) {
    std::vector<std::size_t> block(n);
    for (std::size_t i = 0; i < n; ++i) block[i] = i / pass.tile_items;
    print_row(out, layout, "block", numbers(block));
  }
  if (pass.tiled && pass.keys_per_thread > 0) {
    // Thread t of a block splits tile positions t*K .. t*K+K-1 (the coarsened local split).
    std::vector<std::size_t> thread(n);
    for (std::size_t i = 0; i < n; ++i)
      thread[i] = i % pass.tile_items / static_cast<std::size_t>(pass.keys_per_thread);
    print_row(out, layout, "thread", numbers(thread));
  }
  print_keys(out, layout, "keys in", keys_in);
  print_row(out, layout, pass.num_bits == 1 && !pass.tiled ? "bits" : "digits",
            numbers(pass.digits));
  if (layout.binary_bits > 0 && pass.num_bits > 1) {
    std::vector<std::string> binary;
    for (std::uint32_t digit : pass.digits) binary.push_back(to_binary(digit, pass.num_bits));
    print_row(out, layout, "  in binary", binary);
  }
  if (!pass.ones_before.empty()) print_row(out, layout, "ones before", numbers(pass.ones_before));
  if (pass.tiled) {
    for (int b = 0; b < pass.num_blocks; ++b) {
      const std::size_t first = static_cast<std::size_t>(b) * pass.tile_items;
      const std::size_t last = std::min(n, first + pass.tile_items);
      const std::vector<Key> tile(pass.local_sorted.begin() + static_cast<std::ptrdiff_t>(first),
                                  pass.local_sorted.begin() + static_cast<std::ptrdiff_t>(last));
      print_row(out, layout, "local sort b" + std::to_string(b), decimal_keys(tile), first);
    }
    const bool binary = layout.binary_bits > 0;
    print_grid(out,
               "block bucket table (keys of each digit in each block):", pass.block_bucket_table,
               pass.num_buckets, pass.num_blocks, pass.num_bits, binary);
    print_grid(out,
               "scanned table (exclusive scan, row by row: where block b's digit-d keys start):",
               pass.scanned_table, pass.num_buckets, pass.num_blocks, pass.num_bits, binary);
  }
  for (const std::string& line : pass.notes) out << "  " << line << '\n';
  print_row(out, layout, "destinations", numbers(pass.destinations));
  print_keys(out, layout, "keys after", pass.keys_out);
}

// The trace prints the key types the stages sort.
#define SORTLAB_TRACE_PRINT_INSTANTIATE(Key)                                                \
  template std::string format_key<Key>(Key);                                                \
  template TraceLayout make_layout<Key>(const std::vector<Key>&, int);                      \
  template void print_pass<Key>(std::ostream&, const TraceLayout&, const std::vector<Key>&, \
                                const PassArrays<Key>&);
SORTLAB_TRACE_PRINT_INSTANTIATE(std::uint32_t)
SORTLAB_TRACE_PRINT_INSTANTIATE(std::int32_t)
SORTLAB_TRACE_PRINT_INSTANTIATE(float)
#undef SORTLAB_TRACE_PRINT_INSTANTIATE

}  // namespace sortlab::cli
