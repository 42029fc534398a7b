/// \file
/// \brief Report tables: text, Markdown and JSON shape, number detection, row size check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/report.hpp"

namespace sortlab {
namespace {

Report sample_report() {
  Report report({"name", "value"});
  report.add_row({"radix", "1.5"});
  report.add_row({"x", "12345"});
  return report;
}

/// JSON of a one-column, one-row report holding \p cell.
std::string json_of_cell(const std::string& cell) {
  Report report({"v"});
  report.add_row({cell});
  return report.to_json();
}

TEST(Report, TextIsAligned) {
  EXPECT_EQ(sample_report().to_text(),
            "name   value\n"
            "radix  1.5  \n"
            "x      12345\n");
}

TEST(Report, Markdown) {
  EXPECT_EQ(sample_report().to_markdown(),
            "| name | value |\n"
            "| --- | --- |\n"
            "| radix | 1.5 |\n"
            "| x | 12345 |\n");
}

TEST(Report, JsonIsAnArrayOfObjects) {
  EXPECT_EQ(sample_report().to_json(),
            "[\n"
            "  {\"name\": \"radix\", \"value\": 1.5},\n"
            "  {\"name\": \"x\", \"value\": 12345}\n"
            "]\n");
}

TEST(Report, EmptyReport) {
  const Report report({"a", "bb"});
  EXPECT_EQ(report.rows(), 0u);
  EXPECT_EQ(report.to_json(), "[\n]\n");
  EXPECT_EQ(report.to_markdown(), "| a | bb |\n| --- | --- |\n");
  EXPECT_EQ(report.to_text(), "a  bb\n");
}

TEST(Report, NumbersBecomeJsonNumbers) {
  for (const char* number : {"0", "-2", "12345", "1.5", "-0.5", "1e3", "2.5E-3", "6.02e+23"})
    EXPECT_EQ(json_of_cell(number), std::string("[\n  {\"v\": ") + number + "}\n]\n") << number;
}

TEST(Report, EverythingElseStaysAString) {
  // Not numbers at all, not finite, or numbers strtod takes but JSON does not.
  for (const char* text : {"", "abc", "1.5ms", "nan", "inf", "-inf", "1e999", "0x10", "01", "1.",
                           ".5", "+1", " 1", "1 ", "1e", "-", "--1", "1.2.3"})
    EXPECT_EQ(json_of_cell(text), std::string("[\n  {\"v\": \"") + text + "\"}\n]\n")
        << "cell '" << text << "'";
}

TEST(Report, JsonEscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_of_cell("say \"hi\" \\ now"), "[\n  {\"v\": \"say \\\"hi\\\" \\\\ now\"}\n]\n");
  EXPECT_EQ(json_of_cell("a\nb\tc"), "[\n  {\"v\": \"a\\u000ab\\u0009c\"}\n]\n");
  Report quoted({"col \"1\""});
  quoted.add_row({"x"});
  EXPECT_EQ(quoted.to_json(), "[\n  {\"col \\\"1\\\"\": \"x\"}\n]\n");
}

TEST(Report, RowWithWrongNumberOfCellsIsRejected) {
  Report report({"a", "b"});
  report.add_row({"1", "2"});
  try {
    report.add_row({"1", "2", "3"});
    FAIL() << "a row of 3 cells was accepted under 2 columns";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("expected 2 cells, got 3"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(report.add_row({"1"}), Error);
  EXPECT_THROW(report.add_row({}), Error);
  EXPECT_EQ(report.rows(), 1u);
}

TEST(FormatNumber, PlainBelowAMillion) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(2.0), "2");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(12.345), "12.3");
  EXPECT_EQ(format_number(0.00123), "0.00123");
  EXPECT_EQ(format_number(1234.4), "1234");
  EXPECT_EQ(format_number(-1234.4), "-1234");
  EXPECT_EQ(format_number(123456.7), "123457");
  EXPECT_EQ(format_number(999.96), "1000");
  EXPECT_EQ(format_number(3.14159265, 5), "3.1416");
}

TEST(FormatNumber, ScientificForHugeAndTiny) {
  EXPECT_EQ(format_number(1e6), "1.00e+06");
  EXPECT_EQ(format_number(2.5e7), "2.50e+07");
  EXPECT_EQ(format_number(-2.5e7), "-2.50e+07");
  EXPECT_EQ(format_number(0.0001234), "1.23e-04");
  EXPECT_EQ(format_number(1e7, 1), "1e+07");
}

}  // namespace
}  // namespace sortlab
