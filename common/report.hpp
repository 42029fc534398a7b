/// \file
/// \brief Report: a small table that prints as aligned text or Markdown, or serialises as JSON.
#pragma once

#include <string>
#include <vector>

namespace sortlab {

/// Rows of string cells under named columns.
class Report {
 public:
  /// A report with the given column headers.
  explicit Report(std::vector<std::string> columns);

  /// Appends a row; throws sortlab::Error if it has the wrong number of cells.
  void add_row(std::vector<std::string> cells);

  /// Number of rows added.
  std::size_t rows() const noexcept { return rows_.size(); }

  /// Aligned plain-text table for terminals.
  std::string to_text() const;
  /// GitHub-flavoured Markdown table.
  std::string to_markdown() const;
  /// JSON array of objects, one per row; cells that parse fully as numbers become numbers.
  std::string to_json() const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Formats \p value with \p digits significant digits ("1.23e+09" style avoided below 1e6).
std::string format_number(double value, int digits = 3);

}  // namespace sortlab
