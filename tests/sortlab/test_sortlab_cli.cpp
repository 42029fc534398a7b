/// \file
/// \brief The `sortlab` tool without a process: argument parsing, the stage registry, exit codes,
/// and the arrays `sortlab trace` prints for hand-checked inputs on every stage's CPU model.
/// Tests named ...OnTheGpu run only where there is a GPU (skipped otherwise).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench/sortlab/cli.hpp"
#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
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
      words({"trace", "--stage", "3", "--n", "2^5", "--bits", "6", "--type", "i32", "--seed", "7",
             "--dist", "few", "--descending", "--radix-bits", "2", "--cpu"}));
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
  for (std::size_t i = 0; i < registry.size(); ++i) {
    EXPECT_EQ(registry[i].number, static_cast<int>(i));
    EXPECT_FALSE(registry[i].summary.empty());
    EXPECT_EQ(registry[i].folder.rfind("chapters/", 0), 0u);
    EXPECT_NE(registry[i].u32.sort, nullptr);
    EXPECT_NE(registry[i].i32.sort, nullptr);
    EXPECT_NE(registry[i].f32.sort, nullptr);
    EXPECT_EQ(registry[i].has_trace(), i != 0) << "stage " << i;  // CUB has no trace
  }
}

TEST(SortlabRegistry, MissingStagesAreReportedWithTheRange) {
  const int next = static_cast<int>(sortlab::cli::stage_registry().size());
  const std::string range = "(stages: 0-" + std::to_string(next - 1) + ")";
  try {
    sortlab::cli::find_stage(next);
    ADD_FAILURE() << "stage " << next << " was found";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "stage " + std::to_string(next) + " does not exist yet " + range);
  }
  EXPECT_THROW(sortlab::cli::find_stage(-1), UsageError);
  const CliResult result = cli(words({"trace", "--stage", "99"}));
  EXPECT_EQ(result.code, 2);
  EXPECT_NE(result.err.find("stage 99 does not exist yet " + range), std::string::npos);
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
        EXPECT_EQ(without_first_line(gpu.out), without_first_line(cpu.out))
            << entry.name << " n=" << n << " " << type;
      }
    }
  }
}

}  // namespace
