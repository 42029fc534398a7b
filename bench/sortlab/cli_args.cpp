/// \file
/// \brief Argument parsing and usage texts of the `sortlab` tool. Each subcommand's flags are one
/// table (name, value, help, how to store it), so the parser and the help text cannot drift apart;
/// CLI11 reads the command line from that table, and each flag's own parser checks its value
/// (counts such as 1e7, 2^24 and 1<<20 included) with the tool's own messages.
#include "bench/sortlab/cli_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>

#include "bench/sortlab/run_segments.hpp"
#include "bench/sortlab/run_topk.hpp"
#include "chapters/07_topk/topk.hpp"

namespace sortlab::cli {
namespace {

/// One flag of a subcommand. A flag with an empty value_name is a switch (takes no value).
template <typename Args>
struct Flag {
  std::string name;        // "--n"
  std::string value_name;  // "N" ("" for a switch)
  std::string help;        // one line for the usage text
  std::function<void(Args&, const std::string&)> apply;
};

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Saturating arithmetic: anything above the limit is "too large"; the limit is at most 2^64-1.
// Flags whose range the stage registry checks (with a message naming the stage) parse any int.
constexpr long long kIntMin = std::numeric_limits<int>::min();
constexpr long long kIntMax = std::numeric_limits<int>::max();

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kSaturated / a) return kSaturated;
  return a * b;
}

std::uint64_t decimal_value(const std::string& digits) {
  std::uint64_t value = 0;
  for (char c : digits) {
    value = saturating_multiply(value, 10);
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    value = value > kSaturated - digit ? kSaturated : value + digit;
  }
  return value;
}

std::uint64_t power(std::uint64_t base, std::uint64_t exponent) {
  if (exponent == 0) return 1;
  if (base <= 1) return base;
  std::uint64_t result = 1;  // base >= 2 saturates within 64 steps
  for (std::uint64_t i = 0; i < exponent && result != kSaturated; ++i)
    result = saturating_multiply(result, base);
  return result;
}

std::string count_formats() {
  return "write e.g. 1000000, 1e7, 2^24 or 1<<20";
}

std::string describe_maximum(std::size_t max_value) {
  std::string text = std::to_string(max_value);
  for (int k = 0; k < 64; ++k)
    if (std::uint64_t{1} << k == max_value) text += " (2^" + std::to_string(k) + ")";
  return text;
}

/// Value of "mantissa[e exponent]" with an optional decimal point, exactly, or nullopt when it is
/// not a whole number.
std::optional<std::uint64_t> scientific_value(const std::string& text, const std::string& flag,
                                              const std::string& original) {
  const std::size_t e = text.find_first_of("eE");
  const std::string mantissa = text.substr(0, e);
  std::string exponent_text = e == std::string::npos ? "0" : text.substr(e + 1);
  bool negative_exponent = false;
  if (!exponent_text.empty() && (exponent_text[0] == '+' || exponent_text[0] == '-')) {
    negative_exponent = exponent_text[0] == '-';
    exponent_text.erase(0, 1);
  }
  const std::size_t point = mantissa.find('.');
  std::string whole = mantissa.substr(0, point);
  std::string fraction = point == std::string::npos ? "" : mantissa.substr(point + 1);
  const bool mantissa_ok = (whole.empty() || all_digits(whole)) &&
                           (fraction.empty() || all_digits(fraction)) &&
                           !(whole.empty() && fraction.empty());
  if (!mantissa_ok || !all_digits(exponent_text) || exponent_text.size() > 9)
    throw UsageError(flag + ": '" + original + "' is not a number (" + count_formats() + ")");
  // value = (whole fraction as one integer) * 10^(exponent - fraction digits)
  std::string digits = whole + fraction;
  long long scale = std::stoll(exponent_text) * (negative_exponent ? -1 : 1) -
                    static_cast<long long>(fraction.size());
  // Drop trailing zeros while the scale is negative (1.50e1 = 15).
  while (scale < 0 && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++scale;
  }
  const std::size_t first_nonzero = digits.find_first_not_of('0');
  if (first_nonzero == std::string::npos) return std::uint64_t{0};
  if (scale < 0) return std::nullopt;
  digits.erase(0, first_nonzero);
  if (digits.size() > 20 || scale > 40) return kSaturated;
  return saturating_multiply(decimal_value(digits), power(10, static_cast<std::uint64_t>(scale)));
}

template <typename Args>
std::vector<Flag<Args>> shared_flags() {
  std::vector<Flag<Args>> flags;
  flags.push_back({"--stage", "N", "stage number (`sortlab stages` lists them; 0 = CUB) [required]",
                   [](Args& a, const std::string& v) {
                     a.stage = static_cast<int>(parse_integer(v, "--stage", kIntMin, kIntMax));
                   }});
  flags.push_back({"--type", "T", "key type: u32, i32 or f32 (default u32)",
                   [](Args& a, const std::string& v) { a.type = parse_key_type(v); }});
  flags.push_back({"--dist", "D",
                   "key distribution (default uniform): " +
                       [] {
                         std::string names;
                         for (Distribution d : all_distributions())
                           names += (names.empty() ? "" : ", ") + to_string(d);
                         return names;
                       }(),
                   [](Args& a, const std::string& v) {
                     try {
                       a.distribution = parse_distribution(v);
                     } catch (const Error& error) {
                       throw UsageError(std::string("--dist: ") + error.what());
                     }
                   }});
  flags.push_back({"--seed", "S", "generator seed (default 1; same seed, same keys)",
                   [](Args& a, const std::string& v) {
                     a.seed = parse_count(v, "--seed", std::numeric_limits<std::size_t>::max());
                   }});
  flags.push_back({"--descending", "", "sort largest first",
                   [](Args& a, const std::string&) { a.descending = true; }});
  flags.push_back(
      {"--radix-bits", "r", "digit width r, for stages that have one (`sortlab stages`)",
       [](Args& a, const std::string& v) {
         a.tuning.radix_bits = static_cast<int>(parse_integer(v, "--radix-bits", kIntMin, kIntMax));
       }});
  flags.push_back({"--keys-per-thread", "k",
                   "keys per thread, for stages that have it (`sortlab stages`)",
                   [](Args& a, const std::string& v) {
                     a.tuning.keys_per_thread =
                         static_cast<int>(parse_integer(v, "--keys-per-thread", kIntMin, kIntMax));
                   }});
  return flags;
}

// Stage 6's and stage 7's flags, which `run` and `trace` both take (each with its own default
// in the help text).

template <typename Args>
Flag<Args> k_flag(const std::string& help) {
  return {"--k", "K", help, [](Args& a, const std::string& v) {
            // The range (1 .. the row's length) is checked with the row (trace_topk, run_topk).
            a.k = parse_integer(v, "--k", kIntMin, kIntMax);
          }};
}

template <typename Args>
Flag<Args> smallest_flag() {
  return {"--smallest", "", "stage 7 (top-k): the k smallest values (default: the largest)",
          [](Args& a, const std::string&) { a.smallest = true; }};
}

/// --segments S,S,...: sizes of 0 .. \p max_size keys each.
template <typename Args>
Flag<Args> segments_flag(const std::string& help, long long max_size) {
  return {"--segments", "S,S,...", help, [max_size](Args& a, const std::string& v) {
            std::vector<std::uint32_t> sizes;
            std::stringstream stream(v);
            std::string size;
            while (std::getline(stream, size, ','))
              sizes.push_back(
                  static_cast<std::uint32_t>(parse_integer(size, "--segments", 0, max_size)));
            if (sizes.empty()) throw UsageError("--segments: give at least one size");
            a.segments = sizes;
          }};
}

const std::vector<Flag<RunArgs>>& run_flags() {
  static const std::vector<Flag<RunArgs>> flags = [] {
    std::vector<Flag<RunArgs>> f = shared_flags<RunArgs>();
    f.insert(f.begin() + 2,
             {"--n", "N", "number of keys, up to 2^30: 1000000, 1e7, 2^24, 1<<20 (default 2^24)",
              [](RunArgs& a, const std::string& v) {
                a.n = parse_count(v, "--n", kMaxRunCount);
                a.n_given = true;
              }});
    f.push_back({"--pairs", "", "sort (key, value) pairs; values are the input positions 0..n-1",
                 [](RunArgs& a, const std::string&) { a.pairs = true; }});
    f.push_back({"--begin-bit", "B", "first key bit to sort by (default 0)",
                 [](RunArgs& a, const std::string& v) {
                   a.begin_bit = static_cast<int>(parse_integer(v, "--begin-bit", 0, 32));
                 }});
    f.push_back({"--end-bit", "E", "one past the last key bit to sort by (default 32)",
                 [](RunArgs& a, const std::string& v) {
                   a.end_bit = static_cast<int>(parse_integer(v, "--end-bit", 0, 32));
                 }});
    f.push_back({"--repeat", "R",
                 "timed runs after one warm-up; the median is reported (default 10)",
                 [](RunArgs& a, const std::string& v) {
                   a.repeat = static_cast<int>(parse_integer(v, "--repeat", 1, 100000));
                 }});
    f.push_back(segments_flag<RunArgs>(
        "stage 6 (segmented sort): sizes of consecutive segments, 0 allowed; their sum is n "
        "(--n may be left out)",
        static_cast<long long>(kMaxRunCount)));
    f.push_back({"--segment-size", "L",
                 "stage 6: consecutive segments of L keys, the last one shorter (the default: " +
                     std::to_string(kDefaultSegmentSize) + ")",
                 [](RunArgs& a, const std::string& v) {
                   a.segment_size = parse_count(v, "--segment-size", kMaxRunCount);
                   if (*a.segment_size == 0)
                     throw UsageError(
                         "--segment-size: a segment size of 0 cuts nothing; give 1 "
                         "or more (or --segments with empty segments)");
                 }});
    f.push_back(
        {"--rows", "R",
         "stage 7 (top-k): rows of the matrix (default " + std::to_string(kDefaultTopkRows) + ")",
         [](RunArgs& a, const std::string& v) {
           a.rows = parse_count(v, "--rows", kMaxRunCount);
           if (*a.rows == 0) throw UsageError("--rows: top-k needs at least one row");
         }});
    f.push_back({"--row-length", "L",
                 "stage 7: values per row (default " + std::to_string(kDefaultTopkRowLength) +
                     "); n = rows x row length, at most 2^30",
                 [](RunArgs& a, const std::string& v) {
                   a.row_length = parse_count(v, "--row-length", kMaxRunCount);
                   if (*a.row_length == 0)
                     throw UsageError("--row-length: top-k needs at least one value per row");
                 }});
    f.push_back(k_flag<RunArgs>("stage 7: values to pick per row, 1 .. row length (default " +
                                std::to_string(kDefaultTopkK) + ")"));
    f.push_back(smallest_flag<RunArgs>());
    f.push_back({"--sorted", "",
                 "stage 7: each row's answers best first (k up to " +
                     std::to_string(stage07::kMaxSortedK) +
                     "; default: unsorted, the stage's gather order)",
                 [](RunArgs& a, const std::string&) { a.sorted = true; }});
    return f;
  }();
  return flags;
}

const std::vector<Flag<TraceArgs>>& trace_flags() {
  static const std::vector<Flag<TraceArgs>> flags = [] {
    std::vector<Flag<TraceArgs>> f = shared_flags<TraceArgs>();
    f.insert(f.begin() + 2, {"--n", "N", "number of keys, 1 to 4096 (default 16)",
                             [](TraceArgs& a, const std::string& v) {
                               a.n = parse_count(v, "--n", kMaxTraceCount);
                               if (a.n == 0) throw UsageError("--n: trace needs at least one key");
                             }});
    f.insert(f.begin() + 3, {"--bits", "b",
                             "key bits: keys are 0 .. 2^b - 1 (default 4; u32 up to 32, i32 31, "
                             "f32 24)",
                             [](TraceArgs& a, const std::string& v) {
                               a.bits = static_cast<int>(parse_integer(v, "--bits", 1, 32));
                             }});
    f.push_back({"--keys", "K,K,...",
                 "trace these keys (comma-separated) instead of generated ones",
                 [](TraceArgs& a, const std::string& v) {
                   std::vector<std::string> keys;
                   std::stringstream stream(v);
                   std::string key;
                   while (std::getline(stream, key, ',')) keys.push_back(key);
                   if (keys.empty() || keys.size() > kMaxTraceCount)
                     throw UsageError("--keys: give 1 to " + std::to_string(kMaxTraceCount) +
                                      " comma-separated keys");
                   a.keys = keys;
                   a.n = keys.size();
                 }});
    f.push_back(k_flag<TraceArgs>("stage 7 (top-k): values to pick from the row (default 1)"));
    f.push_back(segments_flag<TraceArgs>(
        "stage 6 (segmented sort): sizes of consecutive segments, 0 allowed (default "
        "0,1,2,5,8,17,33,100,300,600,1500,4000,5000); the keys are their sum",
        1 << 20));
    f.push_back(smallest_flag<TraceArgs>());
    f.push_back({"--cpu", "", "use the stage's CPU model even when there is a GPU",
                 [](TraceArgs& a, const std::string&) { a.force_cpu = true; }});
    f.push_back({"--tile", "N",
                 "CPU model's keys per block tile (stages 02-04 and 08; 4: 16 keys are 4 blocks)",
                 [](TraceArgs& a, const std::string& v) {
                   // The range is checked with the stage (trace_command), where the message can
                   // say what the stage needs.
                   a.tile_items = parse_integer(v, "--tile", kIntMin, kIntMax);
                 }});
    f.push_back({"--svg", "FILE", "also draw the first pass as an SVG figure (up to 64 keys)",
                 [](TraceArgs& a, const std::string& v) {
                   if (v.empty()) throw UsageError("--svg: give a file name");
                   a.svg_path = v;
                 }});
    return f;
  }();
  return flags;
}

/// The message for a command-line mistake that CLI11 found, in the tool's own words (the tests
/// pin them): an unknown option, a stray argument, a switch given a value, a flag without one.
/// \param error what CLI11 threw
/// \param args the command line, to name the offending argument
/// \param topic the subcommand
template <typename Args>
UsageError translate(const CLI::ParseError& error, const std::vector<std::string>& args,
                     std::size_t first, const std::vector<Flag<Args>>& flags,
                     const std::string& topic) {
  const auto flag_named = [&](const std::string& name) -> const Flag<Args>* {
    for (const auto& flag : flags)
      if (flag.name == name) return &flag;
    return nullptr;
  };
  // Walk the arguments the way CLI11 did to find the first one it could not place.
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const Flag<Args>* flag = flag_named(name);
    if (flag == nullptr) {
      if (arg.rfind("--", 0) == 0)
        return UsageError("unknown option '" + name + "' for `sortlab " + topic + "`", topic);
      return UsageError(
          "unexpected argument '" + arg + "' for `sortlab " + topic + "` (options start with --)",
          topic);
    }
    if (flag->value_name.empty()) {
      if (equals != std::string::npos)
        return UsageError(name + " takes no value (got '" + arg + "')", topic);
    } else if (equals == std::string::npos) {
      if (i + 1 >= args.size())
        return UsageError(name + " needs a value: " + name + " " + flag->value_name, topic);
      ++i;  // the value
    }
  }
  return UsageError(std::string("bad command line: ") + error.what(), topic);
}

/// Applies `--flag value` / `--flag=value` / `--switch` arguments from \p args[first...] to
/// \p parsed using \p flags; \p topic names the subcommand in messages. CLI11 tokenises the
/// command line; each flag's own parser (counts, integers, names) checks and stores its value,
/// in command-line order, so a later flag overrides an earlier one.
template <typename Args>
void parse_flags(const std::vector<std::string>& args, std::size_t first,
                 const std::vector<Flag<Args>>& flags, const std::string& topic, Args& parsed,
                 bool& stage_given) {
  CLI::App app{"sortlab " + topic};
  app.set_help_flag();  // --help was handled before parsing
  app.allow_extras(false);
  app.positionals_at_end(false);
  for (const auto& flag : flags) {
    const Flag<Args>* entry = &flag;
    CLI::Option* option = nullptr;
    if (flag.value_name.empty()) {
      option = app.add_flag_callback(
          flag.name, [entry, &parsed] { entry->apply(parsed, std::string()); }, flag.help);
      option->disable_flag_override();
    } else {
      option = app.add_option_function<std::string>(
          flag.name,
          [entry, &parsed, &stage_given](const std::string& value) {
            entry->apply(parsed, value);
            if (entry->name == "--stage") stage_given = true;
          },
          flag.help);
      option->type_name(flag.value_name)->allow_extra_args(false);
    }
    option->trigger_on_parse()->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  // CLI11 reads its arguments from the back of a reversed list.
  std::vector<std::string> reversed(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
  std::reverse(reversed.begin(), reversed.end());
  try {
    app.parse(reversed);
  } catch (const UsageError& error) {
    throw UsageError(error.what(), topic);
  } catch (const CLI::ParseError& error) {
    throw translate(error, args, first, flags, topic);
  }
  if (!stage_given)
    throw UsageError("`sortlab " + topic + "` needs --stage N (`sortlab stages` lists them)",
                     topic);
}

template <typename Args>
std::string flags_text(const std::vector<Flag<Args>>& flags) {
  std::ostringstream out;
  for (const auto& flag : flags) {
    std::string left = "  " + flag.name + (flag.value_name.empty() ? "" : " " + flag.value_name);
    if (left.size() < 24)
      left += std::string(24 - left.size(), ' ');
    else
      left += "\n" + std::string(24, ' ');
    out << left << flag.help << '\n';
  }
  return out.str();
}

}  // namespace

std::string to_string(KeyType type) {
  switch (type) {
    case KeyType::kU32:
      return "u32";
    case KeyType::kI32:
      return "i32";
    case KeyType::kF32:
      return "f32";
  }
  return "?";
}

KeyType parse_key_type(const std::string& text) {
  for (KeyType type : {KeyType::kU32, KeyType::kI32, KeyType::kF32})
    if (to_string(type) == text) return type;
  throw UsageError("--type: unknown key type '" + text + "' (valid: u32, i32, f32)");
}

std::size_t parse_count(const std::string& text, const std::string& flag, std::size_t max_value) {
  if (text.empty()) throw UsageError(flag + ": empty value (" + count_formats() + ")");
  if (text[0] == '-')
    throw UsageError(flag + ": '" + text + "' is negative; give a count of 0 or more");
  std::uint64_t value = 0;
  const std::size_t caret = text.find('^');
  const std::size_t shift = text.find("<<");
  if (caret != std::string::npos || shift != std::string::npos) {
    const std::size_t split = caret != std::string::npos ? caret : shift;
    const std::string left = text.substr(0, split);
    const std::string right = text.substr(split + (caret != std::string::npos ? 1 : 2));
    if (!all_digits(left) || !all_digits(right) || right.size() > 9)
      throw UsageError(flag + ": '" + text + "' is not a number (" + count_formats() + ")");
    const std::uint64_t a = decimal_value(left);
    const std::uint64_t b = decimal_value(right);
    value = caret != std::string::npos ? power(a, b)
                                       : saturating_multiply(a, b >= 64 ? kSaturated : power(2, b));
  } else {
    const std::optional<std::uint64_t> exact = scientific_value(text, flag, text);
    if (!exact) throw UsageError(flag + ": '" + text + "' is not a whole number");
    value = *exact;
  }
  if (value > max_value)
    throw UsageError(flag + ": " + text + " is larger than the maximum " +
                     describe_maximum(max_value));
  return static_cast<std::size_t>(value);
}

long long parse_integer(const std::string& text, const std::string& flag, long long min_value,
                        long long max_value) {
  const std::string digits =
      !text.empty() && (text[0] == '-' || text[0] == '+') ? text.substr(1) : text;
  if (!all_digits(digits) || digits.size() > 12)
    throw UsageError(flag + ": '" + text + "' is not an integer");
  const long long value = std::stoll(text);
  if (value < min_value || value > max_value)
    throw UsageError(flag + ": " + text + " is out of range (" + std::to_string(min_value) + ".." +
                     std::to_string(max_value) + ")");
  return value;
}

Command parse_command_line(const std::vector<std::string>& args) {
  Command command;
  if (args.empty()) throw UsageError("no command given");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    command.kind = CommandKind::kHelp;
    if (sub == "help" && args.size() > 1) {
      command.help_topic = args[1];
      if (args.size() > 2 || (args[1] != "run" && args[1] != "trace" && args[1] != "stages"))
        throw UsageError("`sortlab help` takes one of: run, trace, stages");
    } else if (args.size() > 1) {
      throw UsageError("unexpected argument '" + args[1] + "' after " + sub);
    }
    return command;
  }
  if (sub == "run" || sub == "trace" || sub == "stages") {
    // `--help` anywhere after the command wins, so `sortlab run --stage 1 --help` helps too.
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--help" || args[i] == "-h") {
        command.kind = CommandKind::kHelp;
        command.help_topic = sub;
        return command;
      }
    }
  }
  bool stage_given = false;
  if (sub == "run") {
    command.kind = CommandKind::kRun;
    parse_flags(args, 1, run_flags(), "run", command.run, stage_given);
    if (command.run.begin_bit > command.run.end_bit)
      throw UsageError("need --begin-bit <= --end-bit, got " +
                           std::to_string(command.run.begin_bit) + " > " +
                           std::to_string(command.run.end_bit),
                       "run");
  } else if (sub == "trace") {
    command.kind = CommandKind::kTrace;
    parse_flags(args, 1, trace_flags(), "trace", command.trace, stage_given);
  } else if (sub == "stages") {
    command.kind = CommandKind::kStages;
    if (args.size() > 1)
      throw UsageError("`sortlab stages` takes no arguments (got '" + args[1] + "')", "stages");
  } else {
    throw UsageError("unknown command '" + sub + "' (commands: run, trace, stages, help)");
  }
  return command;
}

std::string usage_text(const std::string& topic) {
  std::ostringstream out;
  if (topic == "run") {
    out << "usage: sortlab run --stage N [options]\n\n"
           "Sorts n generated keys with stage N on the GPU (scratch query, allocation, one "
           "warm-up\n"
           "run, then R runs timed with CUDA events), checks the result against the CPU reference\n"
           "and prints the median time and keys/s.\n"
           "Stage 6 (segmented sort) sorts every segment of the n keys on its own: --segments\n"
           "S,S,... gives the sizes (their sum is n), --segment-size L cuts segments of L keys\n"
           "(default: "
        << kDefaultSegmentSize
        << ", the last one shorter). Stage 7 (top-k) picks the k largest (or\n"
           "--smallest) values of every row of a --rows x --row-length matrix (default "
        << kDefaultTopkRows << " x\n"
        << kDefaultTopkRowLength << ", k = " << kDefaultTopkK
        << "; n is rows x row length, so --n is refused) and reports values/s and\n"
           "rows/s.\n"
           "Exit code: 0 verified, 1 wrong result or GPU error, 2 bad arguments, 3 no GPU.\n\n"
           "options:\n"
        << flags_text(run_flags())
        << "\nexamples:\n"
           "  sortlab run --stage 4 --type f32 --n 1e7\n"
           "  sortlab run --stage 3 --n 2^24 --radix-bits 8 --pairs --dist nearly\n"
           "  sortlab run --stage 6 --n 1e7 --segment-size 300 --pairs   (segmented sort)\n"
           "  sortlab run --stage 6 --segments 0,5,40,3000,100000 --type f32\n"
           "  sortlab run --stage 7 --rows 64 --row-length 128000 --k 50 --sorted   (top-k)\n";
  } else if (topic == "trace") {
    out << "usage: sortlab trace --stage N [options]\n\n"
           "Sorts n tiny keys (values 0 .. 2^bits - 1) with stage N and prints, pass by pass, "
           "every\n"
           "intermediate array the way the textbook's figures show them. Runs the stage's pass on\n"
           "the GPU when there is one, otherwise (or with --cpu) the stage's CPU model, and "
           "checks\n"
           "that the result is sorted. Exit code: 0 sorted, 1 not sorted, 2 bad arguments.\n\n"
           "options:\n"
        << flags_text(trace_flags())
        << "\nexamples:\n"
           "  sortlab trace --stage 1 --n 8 --bits 3\n"
           "  sortlab trace --stage 3 --n 16 --bits 4 --radix-bits 2\n"
           "  sortlab trace --stage 2 --keys 12,3,6,9,15,8,5,10 --bits 4 --cpu\n"
           "  sortlab trace --stage 7 --keys 5,3,7,1,3,6 --bits 3 --k 3   (top-k, CPU model)\n"
           "  sortlab trace --stage 6 --segments 1,3,40,300 --bits 4   (segmented sort, CPU "
           "model)\n"
           "  sortlab trace --stage 4 --n 16 --bits 4 --radix-bits 2 --keys-per-thread 2 "
           "--tile 4 --cpu\n";
  } else if (topic == "stages") {
    out << "usage: sortlab stages\n\n"
           "Lists the stages: number, name, what each changes, where it lives and the tuning\n"
           "options it accepts.\n";
  } else {
    out << "usage: sortlab <command> [options]\n\n"
           "commands:\n"
           "  run      sort, verify and time one stage on the GPU   (sortlab run --help)\n"
           "  trace    print every intermediate array of a stage    (sortlab trace --help)\n"
           "           for a few tiny keys; works without a GPU\n"
           "  stages   list the stages and the options they accept\n"
           "  help     this text; `sortlab help run` for a command's options\n";
  }
  return out.str();
}

std::string usage_hint(const std::string& topic) {
  if (topic.empty()) return "run `sortlab --help` for usage";
  return "run `sortlab " + topic + " --help` for usage";
}

}  // namespace sortlab::cli
