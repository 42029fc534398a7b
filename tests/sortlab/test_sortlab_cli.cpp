/// \file
/// \brief The `sortlab` tool without a process: argument parsing, the stage registry, exit codes,
/// and the arrays `sortlab trace` prints for hand-checked inputs on every stage's CPU model.
/// Tests named ...OnTheGpu run only where there is a GPU (skipped otherwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/sortlab/cli.hpp"
#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/run_segments.hpp"
#include "bench/sortlab/run_topk.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "chapters/03_multibit_radix/multibit_radix_model.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix_model.hpp"
#include "common/distributions.hpp"
#include "common/gpu_detect.hpp"

namespace {

using sortlab::cli::Command;
using sortlab::cli::CommandKind;
using sortlab::cli::KeyType;
using sortlab::cli::parse_command_line;
using sortlab::cli::parse_count;
using sortlab::cli::UsageError;

/// What one command line printed and returned.
struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs a command line through the tool's library. \p gpu says whether it may use the GPU;
/// the default (false) makes `trace` use the CPU model and `run` report "no GPU".
CliResult cli(const std::vector<std::string>& args, bool gpu = false) {
  std::ostringstream out, err;
  CliResult result;
  result.code = sortlab::cli::run_cli(args, out, err, gpu);
  result.out = out.str();
  result.err = err.str();
  return result;
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

/// The cells of the \p occurrence-th row labelled \p label ("ones before", "keys in", ...).
std::vector<std::string> row(const std::string& output, const std::string& label,
                             int occurrence = 0) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::vector<std::string> name = split_words(line.substr(0, colon));
    std::string joined;
    for (const auto& word : name) joined += (joined.empty() ? "" : " ") + word;
    if (joined == label && occurrence-- == 0) return split_words(line.substr(colon + 1));
  }
  ADD_FAILURE() << "no row '" << label << "' in:\n" << output;
  return {};
}

/// The rows of the \p occurrence-th grid whose title starts with \p title: for each digit, the
/// numbers in the block columns.
std::vector<std::vector<std::string>> grid(const std::string& output, const std::string& title,
                                           int occurrence = 0) {
  std::istringstream lines(output);
  std::vector<std::vector<std::string>> rows;
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> words = split_words(line);
    if (!inside) {
      inside = line.rfind("  " + title, 0) == 0 && occurrence-- == 0;  // the grid's title line
      continue;
    }
    if (!words.empty() && words[0] == "block") continue;  // the column header
    if (words.size() < 2 || words[0] != "digit") break;
    std::size_t first = 2;
    if (words.size() > 2 && words[2].front() == '(') first = 3;  // "(01)": the digit in binary
    rows.emplace_back(words.begin() + static_cast<std::ptrdiff_t>(first), words.end());
  }
  if (rows.empty()) ADD_FAILURE() << "no grid '" << title << "' in:\n" << output;
  return rows;
}

std::vector<std::string> words(std::initializer_list<const char*> list) {
  return std::vector<std::string>(list.begin(), list.end());
}

int count_of(const std::string& text, const std::string& what) {
  int count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

// ---- Counts
// --------------------------------------------------------------------------------------

TEST(SortlabArgs, CountAcceptsTheDocumentedFormats) {
  EXPECT_EQ(parse_count("1000000", "--n"), 1000000u);
  EXPECT_EQ(parse_count("1e7", "--n"), 10000000u);
  EXPECT_EQ(parse_count("1E3", "--n"), 1000u);
  EXPECT_EQ(parse_count("1.5e6", "--n"), 1500000u);
  EXPECT_EQ(parse_count("2^24", "--n"), std::size_t{1} << 24);
  EXPECT_EQ(parse_count("1<<20", "--n"), std::size_t{1} << 20);
  EXPECT_EQ(parse_count("3<<4", "--n"), 48u);
  EXPECT_EQ(parse_count("0", "--n"), 0u);
  EXPECT_EQ(parse_count("2^30", "--n"), std::size_t{1} << 30);  // the maximum itself
  EXPECT_EQ(parse_count("1<<30", "--n"), std::size_t{1} << 30);
}

TEST(SortlabArgs, CountRejectsNegativesNonNumbersAndTooLarge) {
  auto message = [](const std::string& text) {
    try {
      parse_count(text, "--n");
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message("-5").find("negative"), std::string::npos) << message("-5");
  EXPECT_NE(message("-1e3").find("negative"), std::string::npos);
  for (const char* text : {"abc", "", "1e", "2^", "<<3", "0x10", "1,000", "ten", "1e7k"})
    EXPECT_NE(message(text).find("--n"), std::string::npos) << "accepted '" << text << "'";
  EXPECT_NE(message("abc").find("not a number"), std::string::npos);
  EXPECT_NE(message("1.5").find("whole number"), std::string::npos);
  EXPECT_NE(message("1e-1").find("whole number"), std::string::npos);
  for (const char* text :
       {"2^31", "1<<31", "1e10", "1073741825", "1e400", "2^99999", "9<<200", "1e999999999"})
    EXPECT_NE(message(text).find("larger than the maximum 1073741824 (2^30)"), std::string::npos)
        << text << ": " << message(text);
}

// ---- Command lines
// -------------------------------------------------------------------------------

TEST(SortlabArgs, RunParsesEveryFlag) {
  const Command command = parse_command_line(words(
      {"run",      "--stage", "4",       "--type",       "f32",          "--n", "1e7",
       "--dist",   "nearly",  "--pairs", "--descending", "--begin-bit",  "4",   "--end-bit=20",
       "--repeat", "3",       "--seed",  "99",           "--radix-bits", "5",   "--keys-per-thread",
       "16"}));
  ASSERT_EQ(command.kind, CommandKind::kRun);
  const auto& run = command.run;
  EXPECT_EQ(run.stage, 4);
  EXPECT_EQ(run.type, KeyType::kF32);
  EXPECT_EQ(run.n, 10000000u);
  EXPECT_EQ(run.distribution, sortlab::Distribution::kNearlySorted);
  EXPECT_TRUE(run.pairs);
  EXPECT_TRUE(run.descending);
  EXPECT_EQ(run.begin_bit, 4);
  EXPECT_EQ(run.end_bit, 20);
  EXPECT_EQ(run.repeat, 3);
  EXPECT_EQ(run.seed, 99u);
  EXPECT_EQ(run.tuning.radix_bits, 5);
  EXPECT_EQ(run.tuning.keys_per_thread, 16);
}

TEST(SortlabArgs, RunDefaults) {
  const Command command = parse_command_line(words({"run", "--stage", "1"}));
  EXPECT_EQ(command.run.type, KeyType::kU32);
  EXPECT_EQ(command.run.n, std::size_t{1} << 24);
  EXPECT_EQ(command.run.distribution, sortlab::Distribution::kUniform);
  EXPECT_FALSE(command.run.pairs);
  EXPECT_EQ(command.run.begin_bit, 0);
  EXPECT_EQ(command.run.end_bit, 32);
  EXPECT_FALSE(command.run.tuning.radix_bits.has_value());
}

TEST(SortlabArgs, TraceParsesEveryFlag) {
  const Command command = parse_command_line(
      words({"trace",        "--stage", "3",      "--n",    "2^5",    "--bits", "6",
             "--type",       "i32",     "--seed", "7",      "--dist", "few",    "--descending",
             "--radix-bits", "2",       "--cpu",  "--tile", "4",      "--svg",  "pass.svg"}));
  ASSERT_EQ(command.kind, CommandKind::kTrace);
  const auto& trace = command.trace;
  EXPECT_EQ(trace.stage, 3);
  EXPECT_EQ(trace.n, 32u);
  EXPECT_EQ(trace.bits, 6);
  EXPECT_EQ(trace.type, KeyType::kI32);
  EXPECT_EQ(trace.seed, 7u);
  EXPECT_EQ(trace.distribution, sortlab::Distribution::kFewDistinct);
  EXPECT_TRUE(trace.descending);
  EXPECT_EQ(trace.tuning.radix_bits, 2);
  EXPECT_TRUE(trace.force_cpu);
  EXPECT_EQ(trace.tile_items, 4);
  EXPECT_EQ(trace.svg_path, "pass.svg");
  const Command given = parse_command_line(words({"trace", "--stage", "1", "--keys", "3,1,2"}));
  ASSERT_TRUE(given.trace.keys.has_value());
  EXPECT_EQ(*given.trace.keys, words({"3", "1", "2"}));
  EXPECT_EQ(given.trace.n, 3u);
}

TEST(SortlabArgs, BadCommandLinesThrowUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {},                                             // no command
      {"sort"},                                       // unknown command
      {"run"},                                        // --stage missing
      {"run", "--stage"},                             // value missing
      {"run", "--stage", "1", "--n"},                 // value missing
      {"run", "--stage", "x"},                        // not an integer
      {"run", "--stage", "1", "--bogus"},             // unknown flag
      {"run", "--stage", "1", "-n", "5"},             // not a flag of ours
      {"run", "--stage", "1", "extra"},               // stray argument
      {"run", "--stage", "1", "--type", "u64"},       // bad type
      {"run", "--stage", "1", "--dist", "gaussian"},  // bad distribution
      {"run", "--stage", "1", "--pairs=yes"},         // a switch takes no value
      {"run", "--stage", "1", "--n", "-1"},           // negative
      {"run", "--stage", "1", "--n", "2^31"},         // too large
      {"run", "--stage", "1", "--repeat", "0"},       // at least one timed run
      {"run", "--stage", "1", "--end-bit", "33"},     // keys have 32 bits
      {"run", "--stage", "1", "--begin-bit", "8", "--end-bit", "4"},
      {"run", "--stage", "1", "--cpu"},          // a trace flag
      {"trace", "--stage", "1", "--n", "0"},     // nothing to trace
      {"trace", "--stage", "1", "--n", "5000"},  // unreadable
      {"trace", "--stage", "1", "--bits", "0"},
      {"trace", "--stage", "1", "--bits", "33"},
      {"trace", "--stage", "1", "--pairs"},  // a run flag
      {"stages", "extra"},
      {"help", "sort"},
  };
  for (const auto& args : bad) {
    std::string line;
    for (const auto& arg : args) line += arg + " ";
    EXPECT_THROW(parse_command_line(args), UsageError) << line;
    const CliResult result = cli(args);
    EXPECT_EQ(result.code, sortlab::cli::kExitUsage) << line;
    EXPECT_NE(result.err.find("sortlab: "), std::string::npos) << line << result.err;
    EXPECT_NE(result.err.find("--help` for usage"), std::string::npos) << line << result.err;
    EXPECT_TRUE(result.out.empty()) << line << result.out;
  }
}

TEST(SortlabArgs, MessagesNameTheProblem) {
  EXPECT_NE(cli(words({"run", "--stage", "1", "--bogus"})).err.find("unknown option '--bogus'"),
            std::string::npos);
  EXPECT_NE(cli(words({"run", "--stage", "1", "--n"})).err.find("--n needs a value"),
            std::string::npos);
  EXPECT_NE(cli(words({"run", "--stage", "1", "--type", "u64"})).err.find("valid: u32, i32, f32"),
            std::string::npos);
  EXPECT_NE(cli(words({"frobnicate"})).err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(cli(words({"trace", "--stage", "1", "--bogus"})).err.find("sortlab trace --help"),
            std::string::npos);
}

TEST(SortlabArgs, HelpVariantsExitZero) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"},
                                                                {"-h"},
                                                                {"help"},
                                                                {"help", "run"},
                                                                {"help", "trace"},
                                                                {"run", "--help"},
                                                                {"trace", "--help"},
                                                                {"run", "--stage", "1", "--help"},
                                                                {"stages", "--help"}}) {
    const CliResult result = cli(args);
    EXPECT_EQ(result.code, 0) << args[0];
    EXPECT_NE(result.out.find("usage: sortlab"), std::string::npos) << args[0];
  }
  EXPECT_NE(cli(words({"run", "--help"})).out.find("--keys-per-thread"), std::string::npos);
  EXPECT_NE(cli(words({"trace", "--help"})).out.find("--cpu"), std::string::npos);
  EXPECT_NE(cli(words({"--help"})).out.find("stage 04"), std::string::npos);  // lists the stages
}

// ---- The registry
// --------------------------------------------------------------------------------

TEST(SortlabRegistry, StagesAreNumberedInLadderOrder) {
  const auto& registry = sortlab::cli::stage_registry();
  ASSERT_GE(registry.size(), 5u);
  ASSERT_FALSE(registry.empty());
  EXPECT_EQ(registry.front().number, 0);
  for (std::size_t i = 0; i < registry.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(registry[i].number, registry[i - 1].number) << "ladder order";
    }
    EXPECT_FALSE(registry[i].summary.empty());
    EXPECT_EQ(registry[i].folder.rfind("chapters/", 0), 0u);
    EXPECT_NE(registry[i].u32.sort, nullptr);
    EXPECT_NE(registry[i].i32.sort, nullptr);
    EXPECT_NE(registry[i].f32.sort, nullptr);
    EXPECT_EQ(registry[i].has_trace(), registry[i].number != 0) << "stage " << i;  // not CUB
  }
}

TEST(SortlabRegistry, MissingStagesAreReportedWithTheBuiltOnes) {
  // The built stages: the registry's and stages 6 and 7 (segmented sort, top-k), which `run`
  // and `trace` take before the registry.
  std::vector<bool> present(10, false);
  present[6] = present[7] = true;
  for (const auto& entry : sortlab::cli::stage_registry())
    if (entry.number < 10) present[entry.number] = true;
  std::string built;
  for (int number = 0; number < 10; ++number)
    if (present[number]) built += (built.empty() ? "" : ", ") + std::to_string(number);
  const std::string range = "(stages: " + built + ")";
  EXPECT_NE(range.find("5, 6, 7, 8"), std::string::npos) << range;
  for (int number : {6, 7}) {
    try {
      sortlab::cli::find_stage(number);
      ADD_FAILURE() << "stage " << number << " has a registry entry";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a sort of one array"), std::string::npos)
          << error.what();
    }
  }
  for (int number = 0; number < 10; ++number) {
    if (present[number]) continue;  // a planned stage that is not built yet
    try {
      sortlab::cli::find_stage(number);
      ADD_FAILURE() << "stage " << number << " was found";
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()),
                "stage " + std::to_string(number) + " does not exist yet " + range);
    }
  }
  EXPECT_THROW(sortlab::cli::find_stage(-1), UsageError);
  const CliResult result = cli(words({"trace", "--stage", "99"}));
  EXPECT_EQ(result.code, 2);
  EXPECT_NE(result.err.find("stage 99 does not exist " + range), std::string::npos) << result.err;
}

TEST(SortlabRegistry, TuningOptionsOnlyForStagesThatHaveThem) {
  using sortlab::cli::check_tuning;
  using sortlab::cli::find_stage;
  using sortlab::cli::Tuning;
  Tuning radix;
  radix.radix_bits = 3;
  Tuning keys;
  keys.keys_per_thread = 16;
  EXPECT_THROW(check_tuning(find_stage(1), radix), UsageError);
  EXPECT_THROW(check_tuning(find_stage(2), radix), UsageError);
  EXPECT_NO_THROW(check_tuning(find_stage(3), radix));
  EXPECT_THROW(check_tuning(find_stage(3), keys), UsageError);
  EXPECT_NO_THROW(check_tuning(find_stage(4), radix));
  EXPECT_NO_THROW(check_tuning(find_stage(4), keys));
  Tuning too_wide;
  too_wide.radix_bits = 9;
  EXPECT_THROW(check_tuning(find_stage(3), too_wide), UsageError);
  Tuning odd;
  odd.keys_per_thread = 3;
  EXPECT_THROW(check_tuning(find_stage(4), odd), UsageError);

  const CliResult result = cli(words({"run", "--stage", "2", "--radix-bits", "4"}));
  EXPECT_EQ(result.code, 2);
  EXPECT_NE(result.err.find("--radix-bits: stage 02 (coalesced_sort)"), std::string::npos)
      << result.err;
  EXPECT_EQ(cli(words({"trace", "--stage", "4", "--keys-per-thread", "3"})).code, 2);
  // Stage 05's trace runs its default tiling: a width it would not trace is refused, not
  // printed over 6-bit passes.
  const CliResult wide =
      cli(words({"trace", "--stage", "5", "--n", "64", "--cpu", "--radix-bits", "7"}));
  EXPECT_EQ(wide.code, 2);
  EXPECT_NE(wide.err.find("trace shows its default 6-bit digits"), std::string::npos) << wide.err;
  EXPECT_EQ(cli(words({"trace", "--stage", "5", "--n", "64", "--cpu", "--radix-bits", "6"})).code,
            0);
}

TEST(SortlabRegistry, StagesListsSummariesAndOptions) {
  const CliResult result = cli(words({"stages"}));
  EXPECT_EQ(result.code, 0);
  for (const auto& entry : sortlab::cli::stage_registry()) {
    EXPECT_NE(result.out.find(entry.summary), std::string::npos) << entry.name;
    EXPECT_NE(result.out.find(entry.folder), std::string::npos) << entry.name;
  }
  // The options come from the stages' own constants (defaults may be retuned).
  const auto& stage03 = sortlab::cli::find_stage(3).radix_bits;
  EXPECT_NE(result.out.find("--radix-bits r (1..8; default " +
                            std::to_string(stage03.default_value) + ")"),
            std::string::npos)
      << result.out;
  const auto& stage04 = sortlab::cli::find_stage(4).keys_per_thread;
  EXPECT_NE(result.out.find("--keys-per-thread k (1, 2, 4, 8, 16; default " +
                            std::to_string(stage04.default_value) + ")"),
            std::string::npos)
      << result.out;
}

// ---- sortlab run
// ---------------------------------------------------------------------------------

TEST(SortlabRun, WithoutAGpuExitsThreeWithAClearMessage) {
  const CliResult result = cli(words({"run", "--stage", "1", "--n", "1000"}), /*gpu=*/false);
  EXPECT_EQ(result.code, sortlab::cli::kExitNoGpu);
  EXPECT_NE(result.err.find("sortlab run needs a CUDA GPU; `sortlab trace` works without one"),
            std::string::npos)
      << result.err;
}

TEST(SortlabRun, ArgumentErrorsComeBeforeTheGpuCheck) {
  EXPECT_EQ(cli(words({"run", "--stage", "9"})).code, 2);
  EXPECT_EQ(cli(words({"run", "--stage", "1", "--keys-per-thread", "8"})).code, 2);
  EXPECT_EQ(cli(words({"run", "--stage", "3", "--radix-bits", "0"})).code, 2);
}

TEST(SortlabRun, ThisMachineGetsTheDocumentedCode) {
  const bool gpu = sortlab::gpu_available();
  const CliResult result = cli(words({"run", "--stage", "1", "--n", "1000", "--repeat", "1"}), gpu);
  EXPECT_EQ(result.code, gpu ? 0 : 3) << result.out << result.err;
}

TEST(SortlabRun, EveryStageVerifiesOnTheGpu) {
  if (!sortlab::gpu_available()) GTEST_SKIP() << "no GPU: " << sortlab::gpu_description();
  for (const auto& entry : sortlab::cli::stage_registry()) {
    for (const char* type : {"u32", "i32", "f32"}) {
      for (bool pairs : {false, true}) {
        std::vector<std::string> args = {"run",    "--stage",  std::to_string(entry.number),
                                         "--type", type,       "--n",
                                         "100003", "--repeat", "2"};
        if (pairs) args.push_back("--pairs");
        const CliResult result = cli(args, true);
        EXPECT_EQ(result.code, 0) << entry.name << " " << type << result.out << result.err;
        EXPECT_NE(result.out.find("verified: OK"), std::string::npos) << result.out;
        EXPECT_NE(result.out.find("G keys/s"), std::string::npos) << result.out;
      }
    }
  }
  const CliResult window =
      cli(words({"run", "--stage", "4", "--n", "1<<16", "--begin-bit", "3", "--end-bit", "17",
                 "--descending", "--dist", "few", "--radix-bits", "3", "--keys-per-thread", "2"}),
          true);
  EXPECT_EQ(window.code, 0) << window.out << window.err;
}

// ---- sortlab trace on the CPU models
// -------------------------------------------------------------

// The textbook's style of example (tests/stage01/test_stage01_model.cpp checks the same pass).
const char* const kHandKeys = "12,3,6,9,15,8,5,10";

TEST(SortlabTrace, Stage01ArraysByHand) {
  const CliResult result =
      cli(words({"trace", "--stage", "1", "--keys", kHandKeys, "--bits", "4"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("no GPU here: running the stage's CPU model\n", 0), 0u) << result.out;
  EXPECT_EQ(count_of(result.out, "\npass "), 4);  // one pass per bit
  // Pass 1, bit 0.
  EXPECT_EQ(row(result.out, "keys in"), words({"12", "3", "6", "9", "15", "8", "5", "10"}));
  EXPECT_EQ(row(result.out, "in binary"),
            words({"1100", "0011", "0110", "1001", "1111", "1000", "0101", "1010"}));
  EXPECT_EQ(row(result.out, "bits"), words({"0", "1", "0", "1", "1", "0", "1", "0"}));
  EXPECT_EQ(row(result.out, "ones before"), words({"0", "0", "1", "1", "2", "3", "3", "4"}));
  // zeros go to i - ones before: 0, 1, 2, 3; ones to (8 - 4) + ones before: 4, 5, 6, 7
  EXPECT_EQ(row(result.out, "destinations"), words({"0", "4", "1", "5", "6", "2", "7", "3"}));
  EXPECT_EQ(row(result.out, "keys after"), words({"12", "6", "8", "10", "3", "9", "15", "5"}));
  // Pass 2, bit 1, starts from pass 1's output: 12 6 8 10 3 9 15 5 -> bits 0 1 0 1 1 0 1 0.
  EXPECT_EQ(row(result.out, "bits", 1), words({"0", "1", "0", "1", "1", "0", "1", "0"}));
  EXPECT_EQ(row(result.out, "ones before", 1), words({"0", "0", "1", "1", "2", "3", "3", "4"}));
  EXPECT_EQ(row(result.out, "keys after", 3), words({"3", "5", "6", "8", "9", "10", "12", "15"}));
  EXPECT_NE(result.out.find("result: sorted"), std::string::npos);
}

// The header counts this trace's passes, not those of a full 32-bit sort (the summary's).
TEST(SortlabTrace, HeaderCountsTheTracedPassesOnly) {
  const CliResult one_bit =
      cli(words({"trace", "--stage", "1", "--keys", kHandKeys, "--bits", "4"}));
  ASSERT_EQ(one_bit.code, 0) << one_bit.err;
  EXPECT_EQ(one_bit.out.find("32 passes"), std::string::npos) << one_bit.out;
  EXPECT_NE(one_bit.out.find("stage 01 (scan_sort): 1-bit split per pass: bits, device-wide scan, "
                             "scatter\n"),
            std::string::npos)
      << one_bit.out;
  EXPECT_NE(one_bit.out.find("; 4 passes over key bits [0, 4)"), std::string::npos) << one_bit.out;
  const CliResult digits = cli(
      words({"trace", "--stage", "3", "--keys", kHandKeys, "--bits", "4", "--radix-bits", "2"}));
  ASSERT_EQ(digits.code, 0) << digits.err;
  EXPECT_EQ(digits.out.find("(7 passes)"), std::string::npos) << digits.out;
  EXPECT_NE(digits.out.find("; 2 passes over key bits [0, 4)"), std::string::npos) << digits.out;
}

TEST(SortlabTrace, Stage01GeneratedKeysAsInTheReadme) {
  const CliResult result = cli(words({"trace", "--stage", "1", "--n", "8", "--bits", "3"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(count_of(result.out, "\npass "), 3);
  for (int pass = 0; pass < 3; ++pass) {
    // "ones before" is the exclusive scan of "bits", and every key fits in 3 bits.
    const auto bits = row(result.out, "bits", pass);
    const auto ones_before = row(result.out, "ones before", pass);
    ASSERT_EQ(bits.size(), 8u);
    ASSERT_EQ(ones_before.size(), 8u);
    int running = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(ones_before[i], std::to_string(running)) << "pass " << pass << ", index " << i;
      running += std::stoi(bits[i]);
    }
    for (const auto& key : row(result.out, "keys in", pass)) EXPECT_LT(std::stoi(key), 8);
  }
}

TEST(SortlabTrace, Stage02ArraysByHand) {
  const CliResult result =
      cli(words({"trace", "--stage", "2", "--keys", kHandKeys, "--bits", "4"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("pass 1 of 4: bit 0, 2 buckets, 1 block of " +
                            std::to_string(sortlab::stage02::kTileItems) + " keys"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(row(result.out, "digits"), words({"0", "1", "0", "1", "1", "0", "1", "0"}));
  // One block: the local split is already the whole pass's result.
  EXPECT_EQ(row(result.out, "local sort b0"), words({"12", "6", "8", "10", "3", "9", "15", "5"}));
  using Grid = std::vector<std::vector<std::string>>;
  EXPECT_EQ(grid(result.out, "block bucket table"), (Grid{{"4"}, {"4"}}));
  EXPECT_EQ(grid(result.out, "scanned table"), (Grid{{"0"}, {"4"}}));
  EXPECT_EQ(row(result.out, "destinations"), words({"0", "4", "1", "5", "6", "2", "7", "3"}));
  EXPECT_EQ(row(result.out, "keys after"), words({"12", "6", "8", "10", "3", "9", "15", "5"}));
  EXPECT_EQ(row(result.out, "keys after", 3), words({"3", "5", "6", "8", "9", "10", "12", "15"}));
}

TEST(SortlabTrace, Stage02TwoBlocksByHand) {
  // 300 keys: 1 where i % 3 == 0, else 0. Block 0 holds keys 0..255 (86 ones, 170 zeros),
  // block 1 keys 256..299 (14 ones: 258, 261, ..., 297; 30 zeros).
  std::string keys;
  for (int i = 0; i < 300; ++i) keys += std::string(i ? "," : "") + (i % 3 == 0 ? "1" : "0");
  const CliResult result =
      cli(words({"trace", "--stage", "2", "--keys", keys.c_str(), "--bits", "1"}));
  ASSERT_EQ(result.code, 0) << result.err;
  using Grid = std::vector<std::vector<std::string>>;
  EXPECT_EQ(grid(result.out, "block bucket table"), (Grid{{"170", "30"}, {"86", "14"}}));
  // Row-major scan: zeros of block 0, zeros of block 1, ones of block 0, ones of block 1.
  EXPECT_EQ(grid(result.out, "scanned table"), (Grid{{"0", "170"}, {"200", "286"}}));
  EXPECT_EQ(row(result.out, "block").size(), 300u);
  EXPECT_EQ(row(result.out, "local sort b1").size(), 44u);  // the partial last tile
  const auto destinations = row(result.out, "destinations");
  ASSERT_EQ(destinations.size(), 300u);
  EXPECT_EQ(destinations[0], "200");    // first one of block 0
  EXPECT_EQ(destinations[1], "0");      // first zero of block 0
  EXPECT_EQ(destinations[256], "170");  // first zero of block 1
  EXPECT_EQ(destinations[258], "286");  // first one of block 1
}

TEST(SortlabTrace, Stage03TwoBitDigitsByHand) {
  const CliResult result = cli(
      words({"trace", "--stage", "3", "--keys", kHandKeys, "--bits", "4", "--radix-bits", "2"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(count_of(result.out, "\npass "), 2);  // ceil(4 / 2)
  using Grid = std::vector<std::vector<std::string>>;
  // Pass 1, bits [0, 2): 12 3 6 9 15 8 5 10 have digits 0 3 2 1 3 0 1 2.
  EXPECT_EQ(row(result.out, "digits"), words({"0", "3", "2", "1", "3", "0", "1", "2"}));
  EXPECT_EQ(row(result.out, "in binary", 1),
            words({"00", "11", "10", "01", "11", "00", "01", "10"}));
  EXPECT_EQ(row(result.out, "local sort b0"), words({"12", "8", "9", "5", "6", "10", "3", "15"}));
  EXPECT_EQ(grid(result.out, "block bucket table"), (Grid{{"2"}, {"2"}, {"2"}, {"2"}}));
  EXPECT_EQ(grid(result.out, "scanned table"), (Grid{{"0"}, {"2"}, {"4"}, {"6"}}));
  EXPECT_EQ(row(result.out, "destinations"), words({"0", "6", "4", "2", "7", "1", "3", "5"}));
  // Pass 2, bits [2, 4): 12 8 9 5 6 10 3 15 have digits 3 2 2 1 1 2 0 3.
  EXPECT_EQ(row(result.out, "digits", 1), words({"3", "2", "2", "1", "1", "2", "0", "3"}));
  EXPECT_EQ(grid(result.out, "block bucket table", 1), (Grid{{"1"}, {"2"}, {"3"}, {"2"}}));
  EXPECT_EQ(grid(result.out, "scanned table", 1), (Grid{{"0"}, {"1"}, {"3"}, {"6"}}));
  EXPECT_EQ(row(result.out, "destinations", 1), words({"6", "3", "4", "1", "2", "5", "0", "7"}));
  EXPECT_EQ(row(result.out, "keys after", 1), words({"3", "5", "6", "8", "9", "10", "12", "15"}));
}

TEST(SortlabTrace, Stage04OneFourBitPassByHand) {
  // r = 4 and k = 8 given explicitly, so a retuned default does not change the hand-checked arrays.
  const CliResult result = cli(words({"trace", "--stage", "4", "--keys", kHandKeys, "--bits", "4",
                                      "--radix-bits", "4", "--keys-per-thread", "8"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("pass 1 of 1: digit = bits [0, 4), 16 buckets, 1 block of 2048 keys"),
            std::string::npos)
      << result.out;
  // A 4-bit digit of a 4-bit key is the key: every key has its own bucket, and the scan of the
  // table counts the keys smaller than each digit.
  EXPECT_EQ(row(result.out, "digits"), words({"12", "3", "6", "9", "15", "8", "5", "10"}));
  const auto table = grid(result.out, "block bucket table");
  const auto scanned = grid(result.out, "scanned table");
  ASSERT_EQ(table.size(), 16u);
  ASSERT_EQ(scanned.size(), 16u);
  const std::vector<int> present = {3, 5, 6, 8, 9, 10, 12, 15};
  for (int d = 0; d < 16; ++d) {
    int smaller = 0;
    bool here = false;
    for (int key : present) {
      smaller += key < d;
      here |= key == d;
    }
    EXPECT_EQ(table[d], words({here ? "1" : "0"})) << "digit " << d;
    EXPECT_EQ(scanned[d], std::vector<std::string>{std::to_string(smaller)}) << "digit " << d;
  }
  EXPECT_EQ(row(result.out, "local sort b0"), words({"3", "5", "6", "8", "9", "10", "12", "15"}));
  EXPECT_EQ(row(result.out, "destinations"), words({"6", "0", "2", "4", "7", "3", "1", "5"}));
}

TEST(SortlabTrace, Stage04NarrowLastPass) {
  const CliResult result = cli(words({"trace", "--stage", "4", "--keys", kHandKeys, "--bits", "4",
                                      "--radix-bits", "3", "--keys-per-thread", "1"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("pass 1 of 2: digit = bits [0, 3), 8 buckets, 1 block of 256 keys"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("pass 2 of 2: bit 3, 2 buckets, 1 block of 256 keys"),
            std::string::npos);
  EXPECT_EQ(row(result.out, "keys after", 1), words({"3", "5", "6", "8", "9", "10", "12", "15"}));
}

// ---- sortlab trace --tile: the CPU model with small tiles ------------------------------------

// A permutation of 0..15 whose 4-key blocks differ: block 0 has two odd keys, blocks 1 and 2
// three, block 3 none (the figures of stages 02-04 use it too).
const char* const kTileKeys = "12,3,6,9,15,8,5,11,1,14,7,13,10,0,2,4";

TEST(SortlabTraceTile, Stage02FourBlocksOfFourByHand) {
  const CliResult result =
      cli(words({"trace", "--stage", "2", "--keys", kTileKeys, "--bits", "4", "--tile", "4"}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("config: tile=4 (the CPU model's tile; the GPU's is fixed)\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("pass 1 of 4: bit 0, 2 buckets, 4 blocks of 4 keys\n"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(row(result.out, "block"), words({"0", "0", "0", "0", "1", "1", "1", "1", "2", "2", "2",
                                             "2", "3", "3", "3", "3"}));
  EXPECT_EQ(row(result.out, "digits"), words({"0", "1", "0", "1", "1", "0", "1", "1", "1", "0", "1",
                                              "1", "0", "0", "0", "0"}));
  EXPECT_EQ(row(result.out, "local sort b1"), words({"8", "15", "5", "11"}));
  EXPECT_EQ(row(result.out, "local sort b3"), words({"10", "0", "2", "4"}));
  using Grid = std::vector<std::vector<std::string>>;
  // Zeros and ones of each block, then the row-major scan: the zeros of every block first.
  EXPECT_EQ(grid(result.out, "block bucket table"),
            (Grid{{"2", "1", "1", "4"}, {"2", "3", "3", "0"}}));
  EXPECT_EQ(grid(result.out, "scanned table"),
            (Grid{{"0", "2", "3", "4"}, {"8", "10", "13", "16"}}));
  EXPECT_EQ(row(result.out, "destinations"), words({"0", "8", "1", "9", "10", "2", "11", "12", "13",
                                                    "3", "14", "15", "4", "5", "6", "7"}));
  EXPECT_EQ(row(result.out, "keys after", 3), words({"0", "1", "2", "3", "4", "5", "6", "7", "8",
                                                     "9", "10", "11", "12", "13", "14", "15"}));
}

// Coarsening on a small scale: stage 03 with 4-key tiles has 4 blocks of 4 threads x 1 key;
// stage 04 with 2 keys per thread and the same 4 threads has 8-key tiles: half the blocks, half
// the table's columns, and the arrays of stage 03 with 8-key tiles.
TEST(SortlabTraceTile, Stage04ShowsItsThreadsAndHalvesTheTable) {
  const CliResult stage03 = cli(words({"trace", "--stage", "3", "--keys", kTileKeys, "--bits", "4",
                                       "--radix-bits", "2", "--tile", "4"}));
  ASSERT_EQ(stage03.code, 0) << stage03.err;
  EXPECT_NE(stage03.out.find("4 buckets, 4 blocks of 4 keys\n"), std::string::npos);
  EXPECT_EQ(grid(stage03.out, "block bucket table")[0].size(), 4u);

  const CliResult stage04 =
      cli(words({"trace", "--stage", "4", "--keys", kTileKeys, "--bits", "4", "--radix-bits", "2",
                 "--keys-per-thread", "2", "--tile", "8"}));
  ASSERT_EQ(stage04.code, 0) << stage04.err;
  EXPECT_NE(stage04.out.find("pass 1 of 2: digit = bits [0, 2), 4 buckets, 2 blocks of 8 keys "
                             "(4 threads x 2 keys)\n"),
            std::string::npos)
      << stage04.out;
  EXPECT_EQ(row(stage04.out, "thread"), words({"0", "0", "1", "1", "2", "2", "3", "3", "0", "0",
                                               "1", "1", "2", "2", "3", "3"}));
  using Grid = std::vector<std::vector<std::string>>;
  // Digits of bits [0, 2): 0 3 2 1 3 0 1 3 | 1 2 3 1 2 0 2 0.
  EXPECT_EQ(grid(stage04.out, "block bucket table"),
            (Grid{{"2", "2"}, {"2", "2"}, {"1", "3"}, {"3", "1"}}));

  const CliResult stage03_wide = cli(words({"trace", "--stage", "3", "--keys", kTileKeys, "--bits",
                                            "4", "--radix-bits", "2", "--tile", "8"}));
  ASSERT_EQ(stage03_wide.code, 0) << stage03_wide.err;
  for (int pass = 0; pass < 2; ++pass) {
    for (const char* label : {"digits", "local sort b0", "local sort b1", "destinations"})
      EXPECT_EQ(row(stage04.out, label, pass), row(stage03_wide.out, label, pass))
          << label << ", pass " << pass + 1;
    EXPECT_EQ(grid(stage04.out, "scanned table", pass),
              grid(stage03_wide.out, "scanned table", pass));
  }
}

TEST(SortlabTraceTile, EveryTileSortsAndCountsItsBlocks) {
  for (const char* stage : {"2", "3", "4"}) {
    for (int tile = 1; tile <= 40; ++tile) {
      std::vector<std::string> args = {
          "trace", "--stage", stage, "--n", "37", "--bits", "5", "--tile", std::to_string(tile)};
      if (std::string(stage) == "4") args.insert(args.end(), {"--keys-per-thread", "1"});
      const CliResult result = cli(args);
      ASSERT_EQ(result.code, 0) << "stage " << stage << " tile " << tile << "\n" << result.err;
      const int blocks = (37 + tile - 1) / tile;
      EXPECT_NE(
          result.out.find(std::to_string(blocks) + (blocks == 1 ? " block of " : " blocks of ") +
                          std::to_string(tile) + " keys"),
          std::string::npos)
          << "stage " << stage << " tile " << tile;
      EXPECT_NE(result.out.find("result: sorted"), std::string::npos);
    }
  }
}

// Stage 08's trace shows the look-back: the status words each tile left and, from the CPU
// model, every step in order; on the README's eleven keys (2-bit digits, tiles of 4) they are the
// walk-through's numbers.
TEST(SortlabTraceTile, Stage08ShowsTheLookBack) {
  const CliResult result = cli(words({"trace", "--stage", "8", "--cpu", "--keys",
                                      "1,3,0,1,2,1,1,0,3,3,2", "--bits", "2", "--tile", "4"}));
  ASSERT_EQ(result.code, 0) << result.err;
  for (const char* line :
       {"tile 1 reads tile 0: prefix (1 2 0 1)", "tile 1 publishes prefix (2 4 1 1)",
        "tile 2 publishes aggregate (0 0 1 2)", "tile 2 reads tile 1: prefix (2 4 1 1)"})
    EXPECT_NE(result.out.find(line), std::string::npos) << line << "\n" << result.out;
  // The status grid's row of one digit, after the grid's title.
  const auto status_row = [&](const std::string& digit) {
    const std::size_t grid = result.out.find("status words after the pass");
    std::istringstream lines(result.out.substr(grid == std::string::npos ? 0 : grid));
    for (std::string line; std::getline(lines, line);) {
      const std::vector<std::string> cells = split_words(line);
      if (cells.size() > 2 && cells[0] == "digit" && cells[1] == digit)
        return std::vector<std::string>(cells.begin() + 2, cells.end());
    }
    return std::vector<std::string>{};
  };
  // Tile 1's inclusive prefix of digit 1 (2 + 2) and the last tile's aggregate of digit 3.
  EXPECT_EQ(status_row("1"), words({"P", "2", "P", "4", "A", "0"})) << result.out;
  EXPECT_EQ(status_row("3"), words({"P", "1", "P", "1", "A", "2"})) << result.out;
  EXPECT_EQ(row(result.out, "keys after"),
            words({"0", "0", "1", "1", "1", "1", "2", "2", "3", "3", "3"}));
}

TEST(SortlabTraceTile, BadTilesAreRefusedWithWhatToDo) {
  auto refused = [](const std::vector<std::string>& args, const std::string& message,
                    bool gpu = false) {
    const CliResult result = cli(args, gpu);
    EXPECT_EQ(result.code, 2) << result.out;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "") << "nothing is traced before the error";
  };
  refused(words({"trace", "--stage", "2", "--tile", "0"}),
          "--tile: 0 keys per tile; a tile holds at least 1 key");
  refused(words({"trace", "--stage", "3", "--tile", "-4"}),
          "--tile: -4 keys per tile; a tile holds at least 1 key");
  refused(words({"trace", "--stage", "3", "--tile", "5000"}), "at most 4096");
  refused(words({"trace", "--stage", "2", "--tile", "four"}), "--tile: 'four' is not an integer");
  refused(words({"trace", "--stage", "1", "--tile", "4"}),
          "--tile: stage 01 (scan_sort) has no tile size to choose in its trace (stages whose "
          "CPU model takes --tile: 02, 03, 04, 08)");
  refused(words({"trace", "--stage", "5", "--tile", "4"}), "stage 05 (packed_rank) has no tile");
  refused(words({"trace", "--stage", "2", "--tile", "4"}), "Add --cpu to trace the model", true);
  refused(words({"trace", "--stage", "4", "--tile", "6", "--keys-per-thread", "4"}),
          "--tile 6: stage 04 (coarsened_radix) gives each thread of a block keys_per_thread = 4 "
          "keys, so a tile (threads x 4 keys) must be a multiple of 4: give --tile 4, 8, ... or "
          "--keys-per-thread 1, 2");
  // The default K = 8 does not divide 4: the message offers the K that do.
  refused(words({"trace", "--stage", "4", "--tile", "4"}), "or --keys-per-thread 1, 2, 4");
  // With a GPU, --cpu makes --tile valid.
  EXPECT_EQ(cli(words({"trace", "--stage", "2", "--n", "8", "--tile", "4", "--cpu"}), true).code,
            0);
}

TEST(SortlabTraceTile, ModelWithTheGpuTileIsTheModelPass) {
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < 600; ++i) keys.push_back((i * 2654435761u) >> 20);
  sortlab::stage03::Config config03;
  config03.radix_bits = 3;
  const auto plain03 = sortlab::stage03::model_pass(keys, 3, config03);
  const auto tiled03 = sortlab::stage03::model_pass_with_tile(keys, 3, config03, false,
                                                              sortlab::stage03::kTileItems);
  EXPECT_EQ(plain03.destinations, tiled03.destinations);
  EXPECT_EQ(plain03.scanned_table, tiled03.scanned_table);
  sortlab::stage04::Config config04;
  config04.keys_per_thread = 2;
  const auto plain04 = sortlab::stage04::model_pass(keys, 4, config04);
  const auto tiled04 =
      sortlab::stage04::model_pass_with_tile(keys, 4, config04, false, 512);  // 256 x 2
  EXPECT_EQ(plain04.destinations, tiled04.destinations);
  EXPECT_EQ(plain04.block_bucket_table, tiled04.block_bucket_table);
  EXPECT_THROW(sortlab::stage04::model_pass_with_tile(keys, 4, config04, false, 7), sortlab::Error);
  EXPECT_THROW(sortlab::stage03::model_pass_with_tile(keys, 4, config03, false, 0), sortlab::Error);
}

// Grids with 10 or more buckets: "digit 10 (1010)" is wider than "digit 9 (1001)", and every
// row's counts must still end under its block's header.
TEST(SortlabTraceTile, GridColumnsStayAlignedAtTwoDigitRows) {
  for (const char* radix_bits : {"4", "5"}) {
    const CliResult result = cli(words({"trace", "--stage", "3", "--keys", kTileKeys, "--bits", "5",
                                        "--radix-bits", radix_bits, "--tile", "4"}));
    ASSERT_EQ(result.code, 0) << result.err;
    std::istringstream lines(result.out);
    std::size_t header_width = 0;
    int rows_checked = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("block 0") != std::string::npos && line.find("digit") == std::string::npos)
        header_width = line.size();
      else if (line.rfind("    digit ", 0) == 0) {
        EXPECT_EQ(line.size(), header_width) << "r = " << radix_bits << ": '" << line << "'";
        ++rows_checked;
      }
    }
    EXPECT_GE(rows_checked, 16);
  }
}

// ---- sortlab trace --svg: the figure of the first pass ---------------------------------------

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(SortlabTraceSvg, DrawsEveryKeyTheTablesAndOneArrowPerKey) {
  const std::string path = testing::TempDir() + "sortlab_trace_stage02.svg";
  const CliResult result = cli(words({"trace", "--stage", "2", "--keys", kTileKeys, "--bits", "4",
                                      "--tile", "4", "--svg", path.c_str()}));
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("figure of pass 1: " + path + "\n"), std::string::npos);
  const std::string svg = read_file(path);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  // Every key three times in bold boxes: keys in, local split, keys out.
  for (int key = 0; key < 16; ++key)
    EXPECT_EQ(count_of(svg, "font-weight=\"bold\">" + std::to_string(key) + "</text>"), 3)
        << "key " << key;
  EXPECT_EQ(count_of(svg, "<line "), 16);  // one arrow per key
  EXPECT_NE(svg.find(">block bucket table"), std::string::npos);
  EXPECT_NE(svg.find(">exclusive scan, row by row"), std::string::npos);
  // The 2 x 4 table and its scan: 16 cells. The scan's last ones-run starts at 16 (block 3 has
  // no odd key) and its zeros-run of block 3 at 4.
  EXPECT_EQ(count_of(svg, "height=\"22\""), 16);
  EXPECT_NE(svg.find(">16</text>"), std::string::npos);
  // The same trace, the same bytes: the committed figures are compared with a fresh trace.
  const CliResult again = cli(words({"trace", "--stage", "2", "--keys", kTileKeys, "--bits", "4",
                                     "--tile", "4", "--svg", path.c_str()}));
  ASSERT_EQ(again.code, 0);
  EXPECT_EQ(read_file(path), svg);
}

TEST(SortlabTraceSvg, Stage01DrawsTheSplitAndStage04ItsThreads) {
  const std::string path01 = testing::TempDir() + "sortlab_trace_stage01.svg";
  ASSERT_EQ(cli(words({"trace", "--stage", "1", "--keys", kHandKeys, "--bits", "4", "--svg",
                       path01.c_str()}))
                .code,
            0);
  const std::string split = read_file(path01);
  EXPECT_NE(split.find(">ones before</text>"), std::string::npos);
  EXPECT_EQ(count_of(split, "<line "), 8);
  EXPECT_EQ(split.find("block bucket table"), std::string::npos);
  // Bit 0 of 12 (1100) drawn in bold: the pass's digit bits stand out of the key's bits.
  EXPECT_NE(split.find("<tspan fill=\"#999\">0</tspan><tspan font-weight=\"bold\""),
            std::string::npos);
  const std::string path04 = testing::TempDir() + "sortlab_trace_stage04.svg";
  ASSERT_EQ(cli(words({"trace", "--stage", "4", "--keys", kTileKeys, "--bits", "4", "--radix-bits",
                       "2", "--keys-per-thread", "2", "--tile", "8", "--svg", path04.c_str()}))
                .code,
            0);
  const std::string coarsened = read_file(path04);
  EXPECT_NE(coarsened.find("2 blocks of 8 (4 threads x 2 keys)"), std::string::npos);
  EXPECT_EQ(count_of(coarsened, ">t3</text>"), 4);  // thread 3 of each block owns 2 keys
}

TEST(SortlabTraceSvg, TooManyKeysOrAnUnwritableFileAreReported) {
  const CliResult many = cli(words({"trace", "--stage", "2", "--n", "65", "--svg", "x.svg"}));
  EXPECT_EQ(many.code, 2);
  EXPECT_NE(many.err.find("--svg draws at most 64 keys (got 65)"), std::string::npos) << many.err;
  const CliResult nowhere =
      cli(words({"trace", "--stage", "2", "--n", "8", "--svg", "/nonexistent-dir/figure.svg"}));
  EXPECT_EQ(nowhere.code, 1);
  EXPECT_NE(nowhere.err.find("--svg: cannot write '/nonexistent-dir/figure.svg'"),
            std::string::npos)
      << nowhere.err;
  EXPECT_EQ(cli(words({"trace", "--stage", "2", "--svg="})).code, 2);
}

TEST(SortlabTrace, EveryStageTypeAndDistributionSorts) {
  for (const auto& entry : sortlab::cli::stage_registry()) {
    if (!entry.has_trace()) continue;
    for (const char* type : {"u32", "i32", "f32"}) {
      for (auto distribution : sortlab::all_distributions()) {
        for (bool descending : {false, true}) {
          std::vector<std::string> args = {"trace",
                                           "--stage",
                                           std::to_string(entry.number),
                                           "--type",
                                           type,
                                           "--n",
                                           "37",
                                           "--bits",
                                           "5",
                                           "--dist",
                                           sortlab::to_string(distribution)};
          if (descending) args.push_back("--descending");
          const CliResult result = cli(args);
          const std::string label = entry.name + " " + type + " " +
                                    sortlab::to_string(distribution) +
                                    (descending ? " descending" : "");
          EXPECT_EQ(result.code, 0) << label << "\n" << result.out << result.err;
          EXPECT_NE(result.out.find("result: sorted"), std::string::npos) << label;
        }
      }
    }
  }
}

TEST(SortlabTrace, FloatKeysTraceTheBitsInWhichTheyDiffer) {
  const CliResult result =
      cli(words({"trace", "--stage", "1", "--type", "f32", "--keys", "3,1,2,0", "--bits", "2"}));
  ASSERT_EQ(result.code, 0) << result.err;
  // 0.0f -> ordered 0x80000000, 1.0f -> 0xBF800000, 2.0f -> 0xC0000000, 3.0f -> 0xC0400000:
  // they differ in bits 22..30.
  EXPECT_NE(result.out.find("over key bits [22, 31)"), std::string::npos) << result.out;
  EXPECT_EQ(row(result.out, "keys after", 8), words({"0", "1", "2", "3"}));
}

TEST(SortlabTrace, CpuFlagForcesTheModelAndCubHasNoTrace) {
  const CliResult forced =
      cli(words({"trace", "--stage", "1", "--n", "4", "--bits", "2", "--cpu"}), /*gpu=*/true);
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(forced.out.rfind("running the stage's CPU model (--cpu)\n", 0), 0u) << forced.out;
  const CliResult cub = cli(words({"trace", "--stage", "0"}));
  EXPECT_EQ(cub.code, 2);
  EXPECT_NE(cub.err.find("stage 00 (cub) has no trace"), std::string::npos) << cub.err;
  const CliResult big_keys = cli(words({"trace", "--stage", "1", "--keys", "1,9", "--bits", "3"}));
  EXPECT_EQ(big_keys.code, 2);
  EXPECT_NE(big_keys.err.find("keys must fit in --bits 3"), std::string::npos) << big_keys.err;
  EXPECT_EQ(cli(words({"trace", "--stage", "1", "--type", "f32", "--bits", "25"})).code, 2);
}

TEST(SortlabTrace, TheGpuPassPrintsWhatTheModelPrintsOnTheGpu) {
  if (!sortlab::gpu_available()) GTEST_SKIP() << "no GPU: " << sortlab::gpu_description();
  auto without_first_line = [](const std::string& text) { return text.substr(text.find('\n')); };
  // Stage 08's CPU model also prints the look-back's steps in the order it took them; the GPU's
  // order is not recorded (it varies from run to run), so that section is the model's alone.
  auto without_model_steps = [](const std::string& text) {
    std::istringstream lines(text);
    std::string kept;
    bool in_steps = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  look-back, step by step", 0) == 0) {
        in_steps = true;
        continue;
      }
      if (in_steps && line.rfind("    tile ", 0) == 0) continue;
      in_steps = false;
      kept += line + "\n";
    }
    return kept;
  };
  for (const auto& entry : sortlab::cli::stage_registry()) {
    if (!entry.has_trace()) continue;
    for (const char* n : {"1", "37", "300"}) {
      for (const char* type : {"u32", "f32"}) {
        const auto args = std::vector<std::string>{"trace", "--stage", std::to_string(entry.number),
                                                   "--n",   n,         "--bits",
                                                   "6",     "--type",  type};
        const CliResult gpu = cli(args, true);
        auto cpu_args = args;
        cpu_args.push_back("--cpu");
        const CliResult cpu = cli(cpu_args, true);
        ASSERT_EQ(gpu.code, 0) << gpu.err;
        EXPECT_EQ(gpu.out.rfind("running on the GPU: ", 0), 0u);
        EXPECT_EQ(without_first_line(gpu.out), without_model_steps(without_first_line(cpu.out)))
            << entry.name << " n=" << n << " " << type;
      }
    }
  }
}

}  // namespace

namespace {

// ---- sortlab trace --stage 7: top-k on its CPU model --------------------------------------------

// The sample read: 4096 values draw 256 samples (the bound is the 6th largest for k = 1) and one
// read keeps about 96 values, among them the answer; six values draw none.
TEST(SortlabTraceTopk, ShowsTheSampleRead) {
  CliResult r = cli({"trace", "--stage", "7", "--type", "u32", "--n", "4096", "--k", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("256 samples (one per stratum of 16 values)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the bound is the sample's 6th largest (r = ceil(mu + 4 sqrt(mu) + 4))"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the kernel's passes count these"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: equals the reference top-k"), std::string::npos) << r.out;
  r = cli({"trace", "--stage", "7", "--keys", "5,3,7,1,3,6", "--bits", "3", "--k", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("draws too few samples"), std::string::npos) << r.out;
  // All equal: the sample shows the ties and predicts the overflow.
  r = cli({"trace", "--stage", "7", "--type", "u32", "--n", "4096", "--dist", "equal", "--k", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("no read; every pass below reads the row"), std::string::npos) << r.out;
}

// The walk-through of stage 07's README, checked by hand: the 3 largest of 5 3 7 1 3 6. The
// first three passes see one digit (every value is below 256); the last one's histogram holds
// 7, 6, 5, 3 (twice) and 1, two candidates lie above digit 5, so 5 is the k-th value and k
// narrows from 3 to 1.
TEST(SortlabTraceTopk, HandCheckedRow) {
  const CliResult r =
      cli({"trace", "--stage", "7", "--keys", "5,3,7,1,3,6", "--bits", "3", "--k", "3"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("histogram (digit: count, largest digit first, empty digits left out): "
                       "7:1 6:1 5:1 3:2 1:1"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("chosen digit 5; k 3 -> 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gather (column order: better values, then equal ones): 7@2 6@5 5@0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("result: equals the reference top-k"), std::string::npos) << r.out;
}

// The smallest three of 4 1 4 2 4: 1 and 2 are better than the k-th value (4), and of the three
// 4s the lowest column is taken.
TEST(SortlabTraceTopk, SmallestTakesTheLowestColumnOfTies) {
  const CliResult r = cli(
      {"trace", "--stage", "7", "--keys", "4,1,4,2,4", "--bits", "3", "--k", "3", "--smallest"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("the answer takes 2 values better than it and 1 equal to it"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("sorted (best first, ties by column):                    1@1 2@3 4@0"),
            std::string::npos)
      << r.out;
}

// Every key type and distribution, full-width keys: the model's answers equal the reference's.
TEST(SortlabTraceTopk, EveryTypeAndDistribution) {
  for (const char* type : {"u32", "i32", "f32"})
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::string bits = std::string(type) == "u32" ? "32" : type[0] == 'i' ? "31" : "24";
      const CliResult r = cli({"trace", "--stage", "7", "--type", type, "--n", "64", "--bits", bits,
                               "--k", "5", "--dist", sortlab::to_string(distribution)});
      EXPECT_EQ(r.code, 0) << type << " " << sortlab::to_string(distribution) << ": " << r.err
                           << r.out;
    }
}

// k outside the row, and the sorts' options, are refused with what to do; --k and --smallest
// are refused by the sorts.
TEST(SortlabTraceTopk, OptionsThatDoNotApplyAreRefused) {
  CliResult r = cli({"trace", "--stage", "7", "--keys", "1,2", "--k", "3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--k: stage 07 picks 1 to 2 values"), std::string::npos) << r.err;
  r = cli({"trace", "--stage", "7", "--keys", "1,2", "--k", "0"});
  EXPECT_EQ(r.code, 2);
  r = cli({"trace", "--stage", "7", "--keys", "1,2", "--tile", "4"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("stage 7's trace takes --k and --smallest"), std::string::npos) << r.err;
  r = cli({"trace", "--stage", "3", "--keys", "1,2", "--k", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--k is for stage 7"), std::string::npos) << r.err;
  r = cli({"trace", "--stage", "2", "--keys", "1,2", "--smallest"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--smallest is for stage 7"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// ---- sortlab trace --stage 6: the segmented sort on its CPU model -------------------------------

// Four segments by hand: empty, one key, three keys (bin 2: a group of 4 lanes) and 40 keys
// (bin 6: one warp, 2 keys per lane); the three keys come out sorted and stable.
TEST(SortlabTraceSegments, BinsAndClassesByHand) {
  std::string keys = "9,5,1,5";
  for (int i = 0; i < 40; ++i) keys += "," + std::to_string((i * 7) % 16);
  const CliResult r =
      cli({"trace", "--stage", "6", "--segments", "0,1,3,40", "--keys", keys, "--bits", "4"});
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("      0       0       0    -  none    nothing (empty)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("      2       1       3    2  small   a group of 4 lanes, bitonic network "
                       "of 4 entries, 3 steps (8 segments per warp)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("      3       4      40    6  medium  one warp, 2 keys per lane"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    2: 5 1 5  -> 1 5 5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: every segment equals the reference"), std::string::npos) << r.out;
}

// The default segments reach every class; every type, both directions.
TEST(SortlabTraceSegments, DefaultSegmentsEveryTypeBothDirections) {
  for (const char* type : {"u32", "i32", "f32"})
    for (bool descending : {false, true}) {
      std::vector<std::string> args = {"trace", "--stage", "6", "--type", type, "--bits", "16"};
      if (descending) args.push_back("--descending");
      const CliResult r = cli(args);
      EXPECT_EQ(r.code, 0) << type << ": " << r.err << r.out;
      // The 5000-key segment is huge (kHugeMinItems = 4097; the 13 segments average more than
      // kHugeMinAverageItems keys, so the sort queues the huge path).
      EXPECT_NE(r.out.find("5000   13  large   many blocks (huge): 2 tiles of 4096 keys"),
                std::string::npos)
          << r.out;
      EXPECT_NE(r.out.find("small   one lane copies it"), std::string::npos) << r.out;
    }
}

// A segment of 140000 keys goes to the huge path (many blocks) when the segments average at
// least kHugeMinAverageItems (64) keys, and to the large kernel (one block) when many small ones
// bring the average down: the trace says what the sort does (stage06::huge_path_queued).
TEST(SortlabTraceSegments, HugeSegmentsNameTheirPath) {
  CliResult r = cli({"trace", "--stage", "6", "--segments", "5,140000", "--bits", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("large   many blocks (huge): 35 tiles of 4096 keys"), std::string::npos)
      << r.out;
  std::string many_small = "140000";
  for (int s = 0; s < 5000; ++s) many_small += ",1";  // 28 keys per segment on average
  r = cli({"trace", "--stage", "6", "--segments", many_small, "--bits", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("many blocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("140000   13  large   one block"), std::string::npos) << r.out;
}

// A huge segment takes the split route when its sort's last pass (bits [24, 32) of u32 keys)
// cuts it into buckets of at most a tile (4096 keys), else the radix route
// (stage06::huge_takes_split_route()): the trace names the route with the largest bucket,
// counted here from the generated keys (the trace's: the top --bits bits of uniform keys).
TEST(SortlabTraceSegments, HugeSegmentsNameTheirRoute) {
  const std::vector<std::uint32_t> wide =
      sortlab::generate_keys<std::uint32_t>(sortlab::Distribution::kUniform, 140005, 1);
  // The buckets of the 140000-key segment's last pass that hold a key, and the largest one.
  const auto buckets_of = [&wide](int bits, bool descending) {
    std::vector<std::uint32_t> counts(256, 0);
    for (std::size_t i = 5; i < wide.size(); ++i) {
      const std::uint32_t key = bits == 32 ? wide[i] : wide[i] >> (32 - bits);
      ++counts[(descending ? ~key : key) >> 24];
    }
    std::uint32_t buckets = 0, largest = 0;
    for (std::uint32_t c : counts) {
      buckets += c != 0 ? 1 : 0;
      largest = std::max(largest, c);
    }
    return std::pair{buckets, largest};
  };
  // Chunks of neighbouring buckets, greedily up to 4096 keys (huge_route_segment()'s packing).
  const auto chunks_of = [&wide](bool descending) {
    std::vector<std::uint32_t> counts(256, 0);
    for (std::size_t i = 5; i < wide.size(); ++i) ++counts[(descending ? ~wide[i] : wide[i]) >> 24];
    std::uint32_t chunks = 0, run = 0;
    for (std::uint32_t c : counts) {
      if (run + c > 4096) {
        ++chunks;
        run = 0;
      }
      run += c;
    }
    return chunks + (run > 0 ? 1 : 0);
  };
  for (const bool descending : {false, true}) {
    // Uniform 32-bit keys: 256 buckets of about 547 keys.
    const auto [buckets, largest] = buckets_of(32, descending);
    ASSERT_EQ(buckets, 256u);
    ASSERT_LE(largest, 4096u);
    std::vector<std::string> args = {"trace",    "--stage", "6", "--segments",
                                     "5,140000", "--bits",  "32"};
    if (descending) args.push_back("--descending");
    const CliResult r = cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    // About 547 keys per bucket, 7 buckets to a chunk: 37 chunks.
    const std::uint32_t chunks = chunks_of(descending);
    ASSERT_GE(chunks, 35u);
    ASSERT_LE(chunks, 40u);
    EXPECT_NE(r.out.find("earlier tiles; split route: its last pass (bits [24, 32)) cuts it into "
                         "256 buckets of at most " +
                         std::to_string(largest) + " keys, packed into " + std::to_string(chunks) +
                         " chunks of at most 4096 keys that one block each sorts in shared "
                         "memory\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("radix route"), std::string::npos) << r.out;
  }
  // 28-bit keys fill 16 buckets of about 8750 keys, 4-bit keys one of all 140000: too big.
  for (const int bits : {28, 4}) {
    const auto [buckets, largest] = buckets_of(bits, false);
    ASSERT_EQ(buckets, bits == 28 ? 16u : 1u);
    ASSERT_GT(largest, 4096u);
    const CliResult r =
        cli({"trace", "--stage", "6", "--segments", "5,140000", "--bits", std::to_string(bits)});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("earlier tiles; radix route: its last pass's largest bucket (bits [24, "
                         "32)) holds " +
                         std::to_string(largest) + " keys, more than a tile's 4096\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("split route"), std::string::npos) << r.out;
  }
}

// Keys that do not add up to the segments, and options of other stages, are refused.
TEST(SortlabTraceSegments, MismatchesAreRefused) {
  CliResult r = cli({"trace", "--stage", "6", "--segments", "2,2", "--keys", "1,2,3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the sizes must add up to the keys"), std::string::npos) << r.err;
  r = cli({"trace", "--stage", "3", "--segments", "2,2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--segments is for stage 6"), std::string::npos) << r.err;
  r = cli({"trace", "--stage", "6", "--tile", "4"});
  EXPECT_EQ(r.code, 2);
  r = cli({"trace", "--stage", "6", "--segments", "2,x"});
  EXPECT_EQ(r.code, 2);
}

}  // namespace

namespace {

// ---- sortlab run --stage 6 (segmented sort) and --stage 7 (top-k) -------------------------------

using sortlab::cli::plan_segmented_run;
using sortlab::cli::plan_topk_run;
using sortlab::cli::TopkRun;
using sortlab::cli::verify_topk_rows;

/// The run arguments of a command line that must parse.
sortlab::cli::RunArgs run_args(const std::vector<std::string>& args) {
  const Command command = parse_command_line(args);
  EXPECT_EQ(command.kind, CommandKind::kRun);
  return command.run;
}

TEST(SortlabArgs, RunParsesTheSegmentAndTopkFlags) {
  auto run = run_args({"run", "--stage", "6", "--segments", "0,3,5", "--pairs", "--descending"});
  ASSERT_TRUE(run.segments.has_value());
  EXPECT_EQ(*run.segments, (std::vector<std::uint32_t>{0, 3, 5}));
  EXPECT_FALSE(run.n_given);
  EXPECT_FALSE(run.segment_size.has_value());
  run = run_args({"run", "--stage", "6", "--segment-size", "300", "--n", "1e4"});
  EXPECT_EQ(run.segment_size, std::size_t{300});
  EXPECT_TRUE(run.n_given);
  EXPECT_EQ(run.n, 10000u);
  run = run_args({"run", "--stage", "7", "--rows", "8", "--row-length=1<<10", "--k", "5",
                  "--smallest", "--sorted", "--type", "f32"});
  EXPECT_EQ(run.rows, std::size_t{8});
  EXPECT_EQ(run.row_length, std::size_t{1024});
  EXPECT_EQ(run.k, 5);
  EXPECT_TRUE(run.smallest);
  EXPECT_TRUE(run.sorted);
  const TopkRun plan = plan_topk_run(run);
  EXPECT_EQ(plan.rows, 8u);
  EXPECT_EQ(plan.row_length, 1024u);
  EXPECT_EQ(plan.k, 5u);
  EXPECT_FALSE(plan.largest);
  EXPECT_TRUE(plan.sorted);
}

TEST(SortlabArgs, RunDefaultsOfTheSegmentedSortAndTopk) {
  const auto plain = run_args({"run", "--stage", "6"});
  EXPECT_FALSE(plain.segments || plain.segment_size || plain.rows || plain.row_length || plain.k);
  EXPECT_FALSE(plain.smallest || plain.sorted || plain.n_given);
  // Default: --n's default cut into segments of kDefaultSegmentSize, the last one shorter.
  const auto cut = plan_segmented_run(plain);
  const std::size_t n = std::size_t{1} << 24, size = sortlab::cli::kDefaultSegmentSize;
  EXPECT_EQ(size, 1000u);
  EXPECT_EQ(cut.n, n);
  ASSERT_EQ(cut.offsets.size(), (n + size - 1) / size + 1);
  EXPECT_EQ(cut.offsets[1], size);
  EXPECT_EQ(cut.offsets.back(), n);
  EXPECT_EQ(cut.offsets.back() - cut.offsets[cut.offsets.size() - 2], n % size);
  EXPECT_NE(cut.origin.find("--segment-size 1000, the default"), std::string::npos) << cut.origin;
  // --segments: n is their sum; empty segments stay.
  const auto given = plan_segmented_run(run_args({"run", "--stage", "6", "--segments", "0,5,0,7"}));
  EXPECT_EQ(given.n, 12u);
  EXPECT_EQ(given.offsets, (std::vector<std::uint32_t>{0, 0, 5, 5, 12}));
  const auto agreeing =
      plan_segmented_run(run_args({"run", "--stage", "6", "--segments", "4,6", "--n", "10"}));
  EXPECT_EQ(agreeing.offsets, (std::vector<std::uint32_t>{0, 4, 10}));
  const auto sized =
      plan_segmented_run(run_args({"run", "--stage", "6", "--segment-size", "4", "--n", "10"}));
  EXPECT_EQ(sized.offsets, (std::vector<std::uint32_t>{0, 4, 8, 10}));
  EXPECT_EQ(plan_segmented_run(run_args({"run", "--stage", "6", "--n", "0"})).offsets,
            (std::vector<std::uint32_t>{0}));

  const TopkRun topk = plan_topk_run(run_args({"run", "--stage", "7"}));
  EXPECT_EQ(topk.rows, sortlab::cli::kDefaultTopkRows);
  EXPECT_EQ(topk.row_length, sortlab::cli::kDefaultTopkRowLength);
  EXPECT_EQ(topk.rows * topk.row_length, std::size_t{1} << 24);  // the other runs' default n
  EXPECT_EQ(topk.k, sortlab::cli::kDefaultTopkK);
  EXPECT_TRUE(topk.largest);
  EXPECT_FALSE(topk.sorted);
  // The default k never exceeds a short row.
  EXPECT_EQ(plan_topk_run(run_args({"run", "--stage", "7", "--row-length", "10"})).k, 10u);
}

// Every mistake is a usage error with a message that says what to change, found before the GPU
// is looked for (so with or without one).
TEST(SortlabRun, SegmentAndTopkArgumentErrorsNameTheProblem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--stage", "6", "--segments", "3,4", "--n", "8"},
       "--segments: the sizes add up to 7 keys but --n is 8"},
      {{"run", "--stage", "6", "--segments", "3", "--segment-size", "3"}, "not both"},
      {{"run", "--stage", "6", "--segment-size", "0"}, "--segment-size: a segment size of 0"},
      {{"run", "--stage", "6", "--segments", "1073741824,1"}, "more than the maximum"},
      {{"run", "--stage", "6", "--segments", "2,-1"}, "--segments: -1 is out of range"},
      {{"run", "--stage", "6", "--rows", "4"}, "--rows is for stage 7 (top-k)"},
      {{"run", "--stage", "6", "--k", "4"}, "--k is for stage 7 (top-k)"},
      {{"run", "--stage", "6", "--sorted"}, "--sorted is for stage 7 (top-k)"},
      {{"run", "--stage", "6", "--radix-bits", "4"},
       "--radix-bits: stage 06 (segmented_sort) has no digit width to tune"},
      {{"run", "--stage", "7", "--rows", "4", "--row-length", "10", "--k", "11"},
       "--k: stage 07 picks 1 to 10 values per row (the row length), got 11"},
      {{"run", "--stage", "7", "--k", "0"}, "got 0"},
      {{"run", "--stage", "7", "--k", "-3"}, "got -3"},
      {{"run", "--stage", "7", "--rows", "0"}, "--rows: top-k needs at least one row"},
      {{"run", "--stage", "7", "--row-length", "0"}, "--row-length: top-k needs at least one"},
      {{"run", "--stage", "7", "--rows", "2^20", "--row-length", "2^11"},
       "more than the maximum 1073741824 (2^30)"},
      {{"run", "--stage", "7", "--k", "3000", "--row-length", "5000", "--sorted"},
       "--sorted: stage 07 sorts at most 2048 answers per row"},
      {{"run", "--stage", "7", "--segments", "4"}, "--segments is for stage 6 (segmented sort)"},
      {{"run", "--stage", "7", "--segment-size", "4"}, "--segment-size is for stage 6"},
      {{"run", "--stage", "7", "--n", "100"}, "--n: stage 7's n is --rows x --row-length"},
      {{"run", "--stage", "7", "--pairs"}, "--pairs is for the sorts"},
      {{"run", "--stage", "7", "--descending"}, "the k smallest with --smallest"},
      {{"run", "--stage", "7", "--end-bit", "16"}, "--begin-bit and --end-bit are for the sorts"},
      {{"run", "--stage", "7", "--keys-per-thread", "4"},
       "--keys-per-thread: stage 07 (topk) has no keys-per-thread knob"},
      {{"run", "--stage", "8", "--rows", "4"},
       "--rows is for stage 7 (top-k); stage 08 (onesweep) sorts every key"},
      {{"run", "--stage", "3", "--segments", "4"}, "--segments is for stage 6 (segmented sort)"},
      {{"run", "--stage", "1", "--segment-size", "4"}, "--segment-size is for stage 6"},
      {{"run", "--stage", "1", "--smallest"}, "--smallest is for stage 7"},
      {{"run", "--stage", "0", "--row-length", "4"}, "--row-length is for stage 7"},
  };
  for (const auto& [args, message] : cases)
    for (bool gpu : {false, true}) {
      std::string line;
      for (const auto& arg : args) line += arg + " ";
      const CliResult result = cli(args, gpu);
      EXPECT_EQ(result.code, sortlab::cli::kExitUsage) << line << result.err;
      EXPECT_NE(result.err.find(message), std::string::npos) << line << "\n" << result.err;
      EXPECT_NE(result.err.find("sortlab run --help` for usage"), std::string::npos) << line;
      EXPECT_TRUE(result.out.empty()) << line << result.out;
    }
}

TEST(SortlabRun, SegmentedSortAndTopkWithoutAGpuExitThree) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--stage", "6"},
           {"run", "--stage", "6", "--segments", "0,4,1000", "--pairs", "--type", "f32"},
           {"run", "--stage", "6", "--n", "1e6", "--segment-size", "77", "--descending"},
           {"run", "--stage", "7"},
           {"run", "--stage", "7", "--rows", "3", "--row-length", "100", "--k", "100", "--smallest",
            "--sorted", "--type", "i32"}}) {
    const CliResult result = cli(args, /*gpu=*/false);
    EXPECT_EQ(result.code, sortlab::cli::kExitNoGpu) << args[2] << result.err;
    EXPECT_NE(result.err.find("sortlab run needs a CUDA GPU"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

TEST(SortlabArgs, RunHelpDocumentsTheSegmentAndTopkFlags) {
  const std::string help = cli(words({"run", "--help"})).out;
  for (const char* text : {"--segments S,S,...", "--segment-size L", "--rows R", "--row-length L",
                           "--k K", "--smallest", "--sorted", "(the default: 1000)",
                           "sortlab run --stage 6 ", "sortlab run --stage 7 "})
    EXPECT_NE(help.find(text), std::string::npos) << text << "\n" << help;
}

// `sortlab stages` lists stages 6 and 7 with what `run` takes for them, in ladder order.
TEST(SortlabRegistry, StagesListsTheSegmentedSortAndTopk) {
  const std::string out = cli(words({"stages"})).out;
  const std::size_t five = out.find("stage 05 ("), six = out.find("stage 06 (segmented_sort)"),
                    seven = out.find("stage 07 (topk)"), eight = out.find("stage 08 (");
  ASSERT_NE(six, std::string::npos) << out;
  ASSERT_NE(seven, std::string::npos) << out;
  EXPECT_LT(five, six);
  EXPECT_LT(six, seven);
  EXPECT_LT(seven, eight);
  EXPECT_NE(out.find(sortlab::cli::segmented_stage().summary), std::string::npos);
  EXPECT_NE(out.find(sortlab::cli::topk_stage().summary), std::string::npos);
  EXPECT_NE(out.find("--segments S,S,... or --segment-size L"), std::string::npos) << out;
  EXPECT_NE(out.find("--rows R --row-length L"), std::string::npos) << out;
}

// ---- The top-k verifier, on hand-made outputs ---------------------------------------------------

/// One row's top-k check.
template <typename T>
sortlab::VerifyResult check_row(const std::vector<T>& row, std::size_t k, bool largest, bool sorted,
                                const std::vector<T>& values,
                                const std::vector<std::int64_t>& indices) {
  return verify_topk_rows(row, TopkRun{1, row.size(), k, largest, sorted}, values, indices);
}

/// The message of a failed check ("(passed)" when it passed).
std::string failure_of(const sortlab::VerifyResult& result) {
  return result.ok ? std::string("(passed)") : result.message;
}

TEST(SortlabRunTopkVerify, AcceptsEveryRightAnswerWhateverItsTieOrColumn) {
  const std::vector<std::uint32_t> row = {5, 3, 7, 1, 3, 6};
  EXPECT_TRUE(check_row<std::uint32_t>(row, 3, true, true, {7, 6, 5}, {2, 5, 0}));
  EXPECT_TRUE(check_row<std::uint32_t>(row, 3, true, false, {5, 7, 6}, {0, 2, 5}));
  // Ties at the k-th value: either 3 will do, in either order when unsorted.
  EXPECT_TRUE(check_row<std::uint32_t>(row, 3, false, true, {1, 3, 3}, {3, 4, 1}));
  EXPECT_TRUE(check_row<std::uint32_t>(row, 2, false, true, {1, 3}, {3, 4}));
  EXPECT_TRUE(
      check_row<std::uint32_t>(row, 6, true, false, {1, 3, 3, 5, 6, 7}, {3, 4, 1, 0, 5, 2}));
  // Signed values, two rows.
  const std::vector<std::int32_t> rows = {-5, 4, -1, 0, 9, -9};
  EXPECT_TRUE(
      verify_topk_rows<std::int32_t>(rows, TopkRun{2, 3, 1, false, true}, {-5, -9}, {0, 2}));
  // -0.0 equals +0.0: either is the largest of this row, as long as the column holds it.
  const std::vector<float> zeros = {-0.0f, 0.0f, -1.0f};
  EXPECT_TRUE(check_row<float>(zeros, 1, true, true, {-0.0f}, {0}));
  EXPECT_TRUE(check_row<float>(zeros, 1, true, true, {0.0f}, {1}));
}

// The stage's NaN rule (select_key.hpp): every NaN, whatever its sign, is the largest value and
// equal to every other NaN.
TEST(SortlabRunTopkVerify, EveryNanIsTheLargestValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> row = {1.0f, nan, -nan, 3.0f, -std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(check_row<float>(row, 2, true, true, {nan, -nan}, {1, 2}));
  EXPECT_TRUE(check_row<float>(row, 2, true, true, {-nan, nan}, {2, 1}));
  EXPECT_TRUE(check_row<float>(row, 3, true, true, {nan, -nan, 3.0f}, {1, 2, 3}));
  const std::string missing = failure_of(check_row<float>(row, 2, true, true, {nan, 3.0f}, {1, 3}));
  EXPECT_NE(missing.find("the answers are not the 2 largest values of the row"), std::string::npos)
      << missing;
  // The k smallest take the NaNs last.
  EXPECT_TRUE(check_row<float>(row, 3, false, true,
                               {-std::numeric_limits<float>::infinity(), 1.0f, 3.0f}, {4, 0, 3}));
  EXPECT_FALSE(check_row<float>(row, 3, false, false,
                                {-std::numeric_limits<float>::infinity(), 1.0f, -nan}, {4, 0, 2}));
}

TEST(SortlabRunTopkVerify, WrongAnswersFailWithTheirRowAndAnswer) {
  const std::vector<std::uint32_t> row = {5, 3, 7, 1, 3, 6};
  struct Case {
    std::vector<std::uint32_t> values;
    std::vector<std::int64_t> indices;
    bool sorted;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{7, 6, 3},
       {2, 5, 1},
       true,
       "row 0: the answers are not the 3 largest values of the row: its 3rd largest answer is 3 "
       "(bits 0x3) at column 1, but the row's 3rd largest value is 5 (bits 0x5) (at column 0)"},
      {{7, 6, 5},
       {2, 5, 6},
       true,
       "row 0, answer 2 (output index 2): index 6 is not a column (row length 6)"},
      {{7, 6, 5}, {2, -1, 0}, true, "answer 1 (output index 1): index -1 is not a column"},
      {{7, 7, 5}, {2, 2, 0}, false, "answer 1 (output index 1): column 2 was already returned"},
      {{7, 6, 5},
       {2, 5, 4},
       true,
       "answer 2 (output index 2): value 5 (bits 0x5), but column 4 "
       "holds 3 (bits 0x3)"},
      {{6, 7, 5},
       {5, 2, 0},
       true,
       "answer 1 (output index 1): not best first (--sorted): 7 "
       "(bits 0x7) after 6 (bits 0x6)"},
  };
  for (const Case& c : cases) {
    const auto result = check_row(row, 3, true, c.sorted, c.values, c.indices);
    EXPECT_FALSE(result.ok) << c.message;
    EXPECT_NE(failure_of(result).find(c.message), std::string::npos) << failure_of(result);
  }
  // A wrong second row is named, and so is its first wrong output position.
  const std::vector<std::uint32_t> rows = {1, 2, 3, 9, 8, 7};
  const auto second = verify_topk_rows<std::uint32_t>(rows, TopkRun{2, 3, 2, true, true},
                                                      {3, 2, 9, 7}, {2, 1, 0, 2});
  EXPECT_FALSE(second.ok);
  EXPECT_EQ(second.first_bad_index, 3u);
  EXPECT_NE(failure_of(second).find("row 1: the answers are not the 2 largest"), std::string::npos)
      << failure_of(second);
  // The output's size is checked before anything else.
  EXPECT_NE(
      failure_of(verify_topk_rows<std::uint32_t>(rows, TopkRun{2, 3, 2, true, true}, {3}, {2}))
          .find("output has 1 values and 1 indices, rows x k is 4"),
      std::string::npos);
}

// ---- On the GPU ---------------------------------------------------------------------------------

// Stage 6 keys and pairs, every key type, on segment layouts that reach every kind of segment:
// the default cut with a short last segment, empty segments between segments of every class,
// one huge segment (the large class), and many tiny ones; descending with a bit window too.
TEST(SortlabRun, SegmentedSortKeysAndPairsVerifyOnTheGpu) {
  if (!sortlab::gpu_available()) GTEST_SKIP() << "no GPU: " << sortlab::gpu_description();
  const std::vector<std::vector<std::string>> layouts = {
      {"--n", "100003"},
      {"--segments", "0,1,2,0,5,17,33,100,257,0,1000,2049,4097,0,30000,0"},
      {"--segments", "300000"},
      {"--n", "50000", "--segment-size", "7"},
  };
  for (const char* type : {"u32", "i32", "f32"})
    for (bool pairs : {false, true})
      for (const auto& layout : layouts) {
        std::vector<std::string> args = {"run", "--stage", "6", "--type", type, "--repeat", "2"};
        args.insert(args.end(), layout.begin(), layout.end());
        if (pairs) args.push_back("--pairs");
        const CliResult result = cli(args, true);
        EXPECT_EQ(result.code, 0) << type << " " << layout[1] << result.out << result.err;
        EXPECT_NE(result.out.find("verified: OK"), std::string::npos) << result.out;
        EXPECT_NE(result.out.find("G keys/s"), std::string::npos) << result.out;
        EXPECT_NE(result.out.find("segments      "), std::string::npos) << result.out;
      }
  const CliResult window = cli(
      words({"run", "--stage", "6", "--n", "1<<16", "--segment-size", "3000", "--begin-bit", "3",
             "--end-bit", "17", "--descending", "--dist", "few", "--pairs", "--type", "f32"}),
      true);
  EXPECT_EQ(window.code, 0) << window.out << window.err;
  const CliResult specials = cli(words({"run", "--stage", "6", "--n", "20000", "--segment-size",
                                        "999", "--dist", "specials", "--type", "f32", "--pairs"}),
                                 true);
  EXPECT_EQ(specials.code, 0) << specials.out << specials.err;
}

// Stage 7, every value type, largest and smallest, sorted and not: k = 1, k = the row length,
// non-power-of-two rows (short ones for one warp per row, longer for one block, one long row for
// several blocks), and float specials (NaNs, infinities, signed zeros) for the NaN rule.
TEST(SortlabRun, TopkEveryTypeAndDirectionVerifiesOnTheGpu) {
  if (!sortlab::gpu_available()) GTEST_SKIP() << "no GPU: " << sortlab::gpu_description();
  const std::vector<std::vector<std::string>> shapes = {
      {"--rows", "100", "--row-length", "1000", "--k", "1"},
      {"--rows", "100", "--row-length", "1000", "--k", "1000"},
      {"--rows", "33", "--row-length", "777", "--k", "777", "--sorted"},
      {"--rows", "7", "--row-length", "3001", "--k", "50", "--sorted"},
      {"--rows", "1", "--row-length", "1000003", "--k", "2048", "--sorted"},
      {"--rows", "2", "--row-length", "200001", "--k", "5000"},
      {"--rows", "9", "--row-length", "1", "--k", "1"},
  };
  for (const char* type : {"u32", "i32", "f32"})
    for (bool smallest : {false, true})
      for (const auto& shape : shapes) {
        std::vector<std::string> args = {"run", "--stage", "7", "--type", type, "--repeat", "2"};
        args.insert(args.end(), shape.begin(), shape.end());
        if (smallest) args.push_back("--smallest");
        const CliResult result = cli(args, true);
        std::string line;
        for (const auto& arg : args) line += arg + " ";
        EXPECT_EQ(result.code, 0) << line << result.out << result.err;
        EXPECT_NE(result.out.find("verified: OK"), std::string::npos) << line << result.out;
        EXPECT_NE(result.out.find("G values/s"), std::string::npos) << result.out;
        EXPECT_NE(result.out.find("M rows/s"), std::string::npos) << result.out;
      }
  for (const char* dist : {"specials", "few", "equal"})
    for (const char* direction : {"--sorted", "--smallest"}) {
      const CliResult result =
          cli({"run", "--stage", "7", "--type", "f32", "--dist", dist, "--rows", "40",
               "--row-length", "5000", "--k", "100", direction, "--repeat", "1"},
              true);
      EXPECT_EQ(result.code, 0) << dist << " " << direction << result.out << result.err;
    }
}

}  // namespace
