/// \file
/// \brief Implementation of the Report table writer.
#include "common/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/errors.hpp"

namespace sortlab {
namespace {

/// True when \p text is a number in JSON's grammar (strtod also takes "0x1F", "01", "1.", ...).
bool is_json_number(const std::string& text) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

bool is_number(const std::string& cell) {
  if (!is_json_number(cell)) return false;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && std::isfinite(value);
}

std::string json_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      escaped += '\\';
      escaped += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof(code), "\\u%04x", c);
      escaped += code;
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace

Report::Report(std::vector<std::string> columns) : columns_(std::move(columns)) {}

void Report::add_row(std::vector<std::string> cells) {
  require(cells.size() == columns_.size(), "Report::add_row: expected " +
                                               std::to_string(columns_.size()) + " cells, got " +
                                               std::to_string(cells.size()));
  rows_.push_back(std::move(cells));
}

std::string Report::to_text() const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = columns_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      out << (c ? "  " : "") << cells[c] << std::string(widths[c] - cells[c].size(), ' ');
    }
    out << '\n';
  };
  line(columns_);
  for (const auto& row : rows_) line(row);
  return out.str();
}

std::string Report::to_markdown() const {
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) {
    out << '|';
    for (const auto& cell : cells) out << ' ' << cell << " |";
    out << '\n';
  };
  line(columns_);
  out << '|';
  for (std::size_t c = 0; c < columns_.size(); ++c) out << " --- |";
  out << '\n';
  for (const auto& row : rows_) line(row);
  return out.str();
}

std::string Report::to_json() const {
  std::ostringstream out;
  out << "[\n";
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    out << "  {";
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      out << (c ? ", " : "") << '"' << json_escape(columns_[c]) << "\": ";
      if (is_number(rows_[r][c]))
        out << rows_[r][c];
      else
        out << '"' << json_escape(rows_[r][c]) << '"';
    }
    out << '}' << (r + 1 < rows_.size() ? "," : "") << '\n';
  }
  out << "]\n";
  return out.str();
}

std::string format_number(double value, int digits) {
  char buffer[64];
  if (value != 0 && (std::fabs(value) >= 1e6 || std::fabs(value) < 1e-3)) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", std::max(0, digits - 1), value);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    // %g turns to e-style from 10^digits on; below 1e6 whole numbers are printed instead.
    if (std::strchr(buffer, 'e') != nullptr) std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  }
  return buffer;
}

}  // namespace sortlab
