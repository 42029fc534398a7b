/// \file
/// \brief The SVG figure of one traced pass: boxes, bits, tables and arrows as plain SVG text.
#include "bench/sortlab/trace_svg.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "bench/sortlab/trace_print.hpp"
#include "common/errors.hpp"

namespace sortlab::cli {
namespace {

// Geometry in whole pixels, so the text is the same on every machine (no float formatting).
constexpr int kMargin = 16;
constexpr int kLabelWidth = 112;  // the row labels' column
constexpr int kCellGap = 4;       // between two key boxes
constexpr int kGroupGap = 16;     // between two blocks (input) or two buckets (output)
constexpr int kBoxHeight = 26;
constexpr int kTextRow = 18;  // height of a row of small numbers
constexpr int kArrowZone = 110;
constexpr int kCharWidth = 8;  // of the 12 px monospace font, rounded up
constexpr int kTableCellWidth = 52;
constexpr int kTableRowHeight = 22;

/// Text made safe for XML character data and attribute values.
std::string escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

/// "#rrggbb" of the HSL colour (hue in degrees, saturation and lightness in percent).
std::string hsl_color(int hue, int saturation, int lightness) {
  // Integer HSL -> RGB (CSS Color 4's formula) in thousandths.
  const long s = saturation * 10, l = lightness * 10;
  const long a = s * std::min(l, 1000 - l) / 1000;
  auto channel = [&](int n) {
    const long k = (n * 1000 + hue * 1000 / 30) % 12000;  // (n + hue / 30) mod 12, in thousandths
    const long m = std::max(-1000L, std::min({k - 3000, 9000 - k, 1000L}));
    const long value = l - a * m / 1000;  // 0..1000
    return static_cast<int>((value * 255 + 500) / 1000);
  };
  static const char kHex[] = "0123456789abcdef";
  std::string color = "#";
  for (int n : {0, 8, 4}) {
    const int v = channel(n);
    color += kHex[v / 16];
    color += kHex[v % 16];
  }
  return color;
}

/// Hue of digit \p d: the buckets spread around the colour wheel, bucket 0 blue.
int digit_hue(std::uint32_t d, int num_buckets) {
  return static_cast<int>((200 + d * 360 / static_cast<std::uint32_t>(num_buckets)) % 360);
}

std::string fill_of(std::uint32_t d, int num_buckets) {
  return hsl_color(digit_hue(d, num_buckets), 75, 86);
}

std::string ink_of(std::uint32_t d, int num_buckets) {
  return hsl_color(digit_hue(d, num_buckets), 70, 32);
}

/// The SVG body being written, and how far it reaches (for the canvas size).
struct Canvas {
  std::ostringstream body;
  int width = 0;
  int height = 0;

  void reach(int x, int y) {
    width = std::max(width, x);
    height = std::max(height, y);
  }

  void text(int x, int y, const std::string& content, const std::string& attributes = "") {
    body << "<text x=\"" << x << "\" y=\"" << y << "\"" << (attributes.empty() ? "" : " ")
         << attributes << '>' << escape(content) << "</text>\n";
    // Left-aligned text (titles, labels) may reach past the boxes: about 7 px per character at
    // 12 px, 9 px at the title's 15 px.
    if (attributes.find("text-anchor") == std::string::npos) {
      const bool title = attributes.find("font-size=\"15\"") != std::string::npos;
      reach(x + static_cast<int>(content.size()) * (title ? 9 : 7), y);
    }
  }

  void label(int y, const std::string& content) {
    text(kMargin, y, content, "font-family=\"sans-serif\" fill=\"#333\"");
  }

  void box(int x, int y, int width_px, const std::string& fill, const std::string& stroke,
           const std::string& content) {
    body << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << width_px << "\" height=\""
         << kBoxHeight << "\" rx=\"3\" fill=\"" << fill << "\" stroke=\"" << stroke << "\"/>\n";
    text(x + width_px / 2, y + 18, content, "text-anchor=\"middle\" font-weight=\"bold\"");
    reach(x + width_px, y + kBoxHeight);
  }

  void arrow(int x1, int y1, int x2, int y2, const std::string& color) {
    body << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2
         << "\" stroke=\"" << color << "\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n";
  }

  /// A grid of counts: one row per bucket, one column per block, under a title.
  int table(int x, int y, const std::string& title, const std::vector<std::uint32_t>& values,
            int num_buckets, int num_blocks, int digit_bits) {
    text(x, y, title, "font-family=\"sans-serif\" fill=\"#333\"");
    y += 8;
    const int row_label_width = 7 * (12 + digit_bits);  // "digit 10 (1010)" at 11 px
    for (int b = 0; b < num_blocks; ++b)
      text(x + row_label_width + b * kTableCellWidth + kTableCellWidth / 2, y + 14,
           "block " + std::to_string(b), "text-anchor=\"middle\" font-size=\"10\" fill=\"#555\"");
    y += kTableRowHeight;
    for (int d = 0; d < num_buckets; ++d) {
      const std::uint32_t digit = static_cast<std::uint32_t>(d);
      text(x, y + 15, "digit " + std::to_string(d) + " (" + to_binary(digit, digit_bits) + ")",
           "font-size=\"11\" fill=\"" + ink_of(digit, num_buckets) + "\"");
      for (int b = 0; b < num_blocks; ++b) {
        const int cell_x = x + row_label_width + b * kTableCellWidth;
        body << "<rect x=\"" << cell_x << "\" y=\"" << y << "\" width=\"" << kTableCellWidth
             << "\" height=\"" << kTableRowHeight << "\" fill=\"" << fill_of(digit, num_buckets)
             << "\" stroke=\"#888\"/>\n";
        text(cell_x + kTableCellWidth / 2, y + 15,
             std::to_string(values[static_cast<std::size_t>(d) * num_blocks + b]),
             "text-anchor=\"middle\"");
      }
      y += kTableRowHeight;
    }
    reach(x + row_label_width + num_blocks * kTableCellWidth, y);
    return row_label_width + num_blocks * kTableCellWidth;
  }
};

/// The key's bits as tspans, the pass's digit bits in bold and in the digit's colour.
std::string bit_spans(std::uint32_t bits, int width, int digit_low, int digit_bits,
                      const std::string& ink) {
  std::string spans;
  for (int bit = width - 1; bit >= 0; --bit) {
    const char c = ((bits >> bit) & 1u) ? '1' : '0';
    const bool in_digit = bit >= digit_low && bit < digit_low + digit_bits;
    if (in_digit)
      spans += "<tspan font-weight=\"bold\" fill=\"" + ink + "\">" + c + "</tspan>";
    else
      spans += "<tspan fill=\"#999\">" + std::string(1, c) + "</tspan>";
  }
  return spans;
}

}  // namespace

template <typename Key>
void write_pass_svg(std::ostream& out, const FigureText& text, const std::vector<Key>& keys_in,
                    const PassArrays<Key>& pass) {
  const std::size_t n = keys_in.size();
  require(n <= kMaxFigureKeys, "write_pass_svg: a figure draws at most " +
                                   std::to_string(kMaxFigureKeys) + " keys, got " +
                                   std::to_string(n));
  const int num_buckets = pass.tiled ? pass.num_buckets : 2;
  const bool show_key_bits = text.key_bits > 0;
  const int binary_width = show_key_bits ? text.key_bits : pass.num_bits;
  const int binary_low = show_key_bits ? pass.first_bit : 0;

  // Cell width: the widest key, its bits, or an index.
  std::size_t widest =
      std::max<std::size_t>(static_cast<std::size_t>(binary_width), std::to_string(n).size());
  for (const Key& key : keys_in) widest = std::max(widest, format_key(key).size());
  for (const Key& key : pass.keys_out) widest = std::max(widest, format_key(key).size());
  const int cell = std::max(32, static_cast<int>(widest) * kCharWidth + 10);
  const int pitch = cell + kCellGap;
  const int left = kMargin + kLabelWidth;

  // Input columns: blocks apart (tiled). Output columns: buckets apart.
  auto input_x = [&](std::size_t i) {
    const int group = pass.tiled ? static_cast<int>(i / pass.tile_items) : 0;
    return left + static_cast<int>(i) * pitch + group * kGroupGap;
  };
  std::vector<std::uint32_t> digit_out(n);
  for (std::size_t i = 0; i < n; ++i) digit_out[pass.destinations[i]] = pass.digits[i];
  std::vector<int> output_x(n);
  for (std::size_t p = 0, group = 0; p < n; ++p) {
    if (p > 0 && digit_out[p] != digit_out[p - 1]) ++group;
    output_x[p] = left + static_cast<int>(p) * pitch + static_cast<int>(group) * kGroupGap;
  }

  Canvas canvas;
  canvas.text(kMargin, 22, text.title, "font-family=\"sans-serif\" font-size=\"15\"");
  canvas.text(kMargin, 42, text.subtitle, "font-family=\"sans-serif\" fill=\"#555\"");
  int y = 66;

  // Block labels above the input (tiled passes with several blocks).
  if (pass.tiled) {
    for (int b = 0; b < pass.num_blocks; ++b) {
      const std::size_t first = static_cast<std::size_t>(b) * pass.tile_items;
      const std::size_t last = std::min(n, first + pass.tile_items) - 1;
      const int x0 = input_x(first), x1 = input_x(last) + cell;
      canvas.body << "<path d=\"M" << x0 << ' ' << y + 6 << " V" << y << " H" << x1 << " V" << y + 6
                  << "\" fill=\"none\" stroke=\"#777\"/>\n";
      canvas.text((x0 + x1) / 2, y - 4, "block " + std::to_string(b),
                  "text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"11\"");
    }
    y += 14;
  }
  canvas.label(y + 12, "index");
  for (std::size_t i = 0; i < n; ++i)
    canvas.text(input_x(i) + cell / 2, y + 12, std::to_string(i),
                "text-anchor=\"middle\" font-size=\"10\" fill=\"#777\"");
  y += kTextRow;
  if (pass.tiled && pass.keys_per_thread > 0) {
    canvas.label(y + 12, "thread");
    for (std::size_t i = 0; i < n; ++i)
      canvas.text(input_x(i) + cell / 2, y + 12,
                  "t" + std::to_string(i % pass.tile_items /
                                       static_cast<std::size_t>(pass.keys_per_thread)),
                  "text-anchor=\"middle\" font-size=\"10\" fill=\"#777\"");
    y += kTextRow;
  }

  // Keys in, coloured by digit, and their bits.
  canvas.label(y + 18, "keys in");
  for (std::size_t i = 0; i < n; ++i)
    canvas.box(input_x(i), y, cell, fill_of(pass.digits[i], num_buckets),
               ink_of(pass.digits[i], num_buckets), format_key(keys_in[i]));
  y += kBoxHeight;
  canvas.label(y + 15, show_key_bits ? "bits" : (pass.num_bits == 1 ? "bit" : "digit bits"));
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits =
        show_key_bits ? static_cast<std::uint32_t>(keys_in[i]) : pass.digits[i];
    canvas.body << "<text x=\"" << input_x(i) + cell / 2 << "\" y=\"" << y + 15
                << "\" text-anchor=\"middle\">"
                << bit_spans(bits, binary_width, binary_low, pass.num_bits,
                             ink_of(pass.digits[i], num_buckets))
                << "</text>\n";
  }
  y += kTextRow + 2;
  canvas.label(y + 12, pass.num_bits == 1 && !pass.tiled ? "bit" : "digit");
  for (std::size_t i = 0; i < n; ++i)
    canvas.text(input_x(i) + cell / 2, y + 12, std::to_string(pass.digits[i]),
                "text-anchor=\"middle\" fill=\"" + ink_of(pass.digits[i], num_buckets) + "\"");
  y += kTextRow + 6;

  // Where the arrows start, and the destination of the key each arrow carries.
  std::vector<int> from_x(n);
  std::vector<std::uint32_t> to_position(n), arrow_digit(n);
  if (pass.tiled) {
    canvas.label(y + 18, "local split");
    for (int b = 0; b < pass.num_blocks; ++b) {
      const std::size_t first = static_cast<std::size_t>(b) * pass.tile_items;
      const std::size_t last = std::min(n, first + pass.tile_items);
      // The split is stable by digit, so tile position p holds the tile's p-th key in digit
      // order: its digit, and its destination, are those of that input key.
      std::vector<std::size_t> order;
      for (std::size_t i = first; i < last; ++i) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) {
        return pass.digits[a] < pass.digits[c];
      });
      for (std::size_t p = first; p < last; ++p) {
        const std::size_t source = order[p - first];
        from_x[p] = input_x(p) + cell / 2;
        to_position[p] = pass.destinations[source];
        arrow_digit[p] = pass.digits[source];
        canvas.box(input_x(p), y, cell, fill_of(arrow_digit[p], num_buckets),
                   ink_of(arrow_digit[p], num_buckets), format_key(pass.local_sorted[p]));
      }
    }
    y += kBoxHeight;
    canvas.label(y + 13, "destination");
    for (std::size_t p = 0; p < n; ++p)
      canvas.text(from_x[p], y + 13, std::to_string(to_position[p]),
                  "text-anchor=\"middle\" font-size=\"11\" fill=\"#333\"");
    y += kTextRow;
  } else {
    canvas.label(y + 12, "ones before");
    for (std::size_t i = 0; i < n; ++i)
      canvas.text(input_x(i) + cell / 2, y + 12, std::to_string(pass.ones_before[i]),
                  "text-anchor=\"middle\"");
    y += kTextRow;
    canvas.label(y + 12, "destination");
    for (std::size_t i = 0; i < n; ++i) {
      from_x[i] = input_x(i) + cell / 2;
      to_position[i] = pass.destinations[i];
      arrow_digit[i] = pass.digits[i];
      canvas.text(from_x[i], y + 12, std::to_string(pass.destinations[i]),
                  "text-anchor=\"middle\" fill=\"#333\"");
    }
    y += kTextRow;
  }

  // Arrows from each key to its place after the pass.
  const int arrows_top = y + 2, arrows_bottom = y + kArrowZone - 2;
  for (std::size_t p = 0; p < n; ++p)
    canvas.arrow(from_x[p], arrows_top, output_x[to_position[p]] + cell / 2, arrows_bottom,
                 ink_of(arrow_digit[p], num_buckets));
  y += kArrowZone;

  canvas.label(y + 18, "keys out");
  for (std::size_t p = 0; p < n; ++p)
    canvas.box(output_x[p], y, cell, fill_of(digit_out[p], num_buckets),
               ink_of(digit_out[p], num_buckets), format_key(pass.keys_out[p]));
  y += kBoxHeight;
  canvas.label(y + 12, "index");
  for (std::size_t p = 0; p < n; ++p)
    canvas.text(output_x[p] + cell / 2, y + 12, std::to_string(p),
                "text-anchor=\"middle\" font-size=\"10\" fill=\"#777\"");
  y += kTextRow + 18;

  // The block bucket table and its exclusive scan, side by side.
  if (pass.tiled) {
    const int table_width =
        canvas.table(kMargin, y + 12, "block bucket table (keys of digit d in block b)",
                     pass.block_bucket_table, pass.num_buckets, pass.num_blocks, pass.num_bits);
    canvas.table(kMargin + std::max(table_width + 40, 380), y + 12,
                 "exclusive scan, row by row (where block b's digit-d keys start)",
                 pass.scanned_table, pass.num_buckets, pass.num_blocks, pass.num_bits);
  }

  const int width = std::max(canvas.width, 760) + kMargin;
  const int height = canvas.height + kMargin;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" font-family=\"monospace\" font-size=\"12\">\n"
      << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
         "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" "
         "fill=\"#444\"/></marker></defs>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << canvas.body.str() << "</svg>\n";
}

// The figures draw the key types the stages sort.
template void write_pass_svg<std::uint32_t>(std::ostream&, const FigureText&,
                                            const std::vector<std::uint32_t>&,
                                            const PassArrays<std::uint32_t>&);
template void write_pass_svg<std::int32_t>(std::ostream&, const FigureText&,
                                           const std::vector<std::int32_t>&,
                                           const PassArrays<std::int32_t>&);
template void write_pass_svg<float>(std::ostream&, const FigureText&, const std::vector<float>&,
                                    const PassArrays<float>&);

}  // namespace sortlab::cli
