/// \file
/// \brief `sortlab` command line: what each subcommand accepts, how its arguments are parsed,
/// and the usage texts. Parsing knows nothing about individual stages; which stage exists and
/// which tuning options it takes is the stage registry's business (stage_registry.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "common/sort_options.hpp"

/// The `sortlab` command-line tool: `run` sorts, verifies and times one stage on the GPU,
/// `trace` prints every intermediate array of every pass of one stage for a few tiny keys.
namespace sortlab::cli {

/// Exit code: the sort (or trace) finished and its result is right.
inline constexpr int kExitOk = 0;
/// Exit code: the result is wrong (verification failed) or the GPU reported an error.
inline constexpr int kExitFailed = 1;
/// Exit code: bad command line (unknown subcommand or flag, missing or bad value, no such stage).
inline constexpr int kExitUsage = 2;
/// Exit code: `sortlab run` needs a CUDA GPU and there is none.
inline constexpr int kExitNoGpu = 3;

/// A command-line mistake the user can fix; the tool prints it with a usage hint and exits with
/// kExitUsage.
class UsageError : public Error {
 public:
  /// \param message what is wrong, in words
  /// \param topic the subcommand whose arguments were wrong ("" for none), for the usage hint
  explicit UsageError(const std::string& message, std::string topic = "")
      : Error(message), topic_(std::move(topic)) {}

  /// The subcommand whose arguments were wrong ("" for none).
  const std::string& topic() const noexcept { return topic_; }

 private:
  std::string topic_;
};

/// The key types the tool sorts.
enum class KeyType {
  kU32,  ///< std::uint32_t
  kI32,  ///< std::int32_t
  kF32,  ///< float
};

/// Short name of a key type: "u32", "i32" or "f32".
/// \param type the key type
std::string to_string(KeyType type);

/// Parses "u32", "i32" or "f32"; throws UsageError naming the valid types otherwise.
/// \param text the value given on the command line
KeyType parse_key_type(const std::string& text);

/// Calls \p work with a value of the key type \p type names (std::uint32_t, std::int32_t or
/// float) and returns what it returns: the one place where --type picks the typed code of `run`
/// and `trace`.
/// \param type the key type from the command line
/// \param work a generic callable taking the key type's value, returning an exit code
template <typename Work>
int with_key_type(KeyType type, Work&& work) {
  switch (type) {
    case KeyType::kU32:
      return work(std::uint32_t{});
    case KeyType::kI32:
      return work(std::int32_t{});
    case KeyType::kF32:
      return work(float{});
  }
  return kExitUsage;
}

/// Largest n `sortlab run` accepts (2^30, the limit of every sortlab sort).
inline constexpr std::size_t kMaxRunCount = kMaxSortItems;

/// Largest n `sortlab trace` accepts: the arrays are printed, so they must stay readable (4096
/// still shows two tiles of stage 04's default 2048-key tile).
inline constexpr std::size_t kMaxTraceCount = 4096;

/// Parses a count written as `1000000`, `1e7`, `1.5e6`, `2^24` or `1<<20` (exact integers only).
/// Throws UsageError for negative numbers, non-numbers, non-integers and values above
/// \p max_value, naming \p flag in the message.
/// \param text the value given on the command line
/// \param flag the flag it was given for, e.g. "--n" (for messages)
/// \param max_value largest value accepted
std::size_t parse_count(const std::string& text, const std::string& flag,
                        std::size_t max_value = kMaxRunCount);

/// Parses a decimal integer in [\p min_value, \p max_value]; throws UsageError otherwise.
/// \param text the value given on the command line
/// \param flag the flag it was given for (for messages)
/// \param min_value smallest value accepted
/// \param max_value largest value accepted
long long parse_integer(const std::string& text, const std::string& flag, long long min_value,
                        long long max_value);

/// Tuning knobs given on the command line; unset ones take the stage's default. Only stages
/// whose Config has the knob accept it (the registry checks).
struct Tuning {
  std::optional<int> radix_bits;       ///< --radix-bits r: digit width of stages 03 and 04
  std::optional<int> keys_per_thread;  ///< --keys-per-thread k: keys per thread of stage 04
};

/// Arguments of `sortlab run`.
struct RunArgs {
  int stage = -1;                                      ///< --stage N (required)
  KeyType type = KeyType::kU32;                        ///< --type u32|i32|f32
  std::size_t n = std::size_t{1} << 24;                ///< --n, number of keys
  Distribution distribution = Distribution::kUniform;  ///< --dist, any generator name
  bool pairs = false;                                  ///< --pairs: sort (key, u32 index) pairs
  bool descending = false;                             ///< --descending
  int begin_bit = 0;                                   ///< --begin-bit B
  int end_bit = 32;                                    ///< --end-bit E (exclusive)
  int repeat = 10;                                     ///< --repeat R: timed runs (median)
  std::uint64_t seed = 1;                              ///< --seed S for the generator
  Tuning tuning;                                       ///< --radix-bits, --keys-per-thread
  /// --n was given: stage 6 otherwise takes the sum of --segments, and stage 7 refuses it (its
  /// n is --rows x --row-length).
  bool n_given = false;
  /// --segments S,S,...: stage 6 cuts the keys into consecutive segments of these sizes (their
  /// sum is n); other stages refuse it.
  std::optional<std::vector<std::uint32_t>> segments;
  /// --segment-size L: stage 6 cuts the keys into consecutive segments of L keys, the last one
  /// shorter (run_segments.hpp has the default); other stages refuse it.
  std::optional<std::size_t> segment_size;
  /// --rows R: stage 7's number of rows (run_topk.hpp has the default); other stages refuse it.
  std::optional<std::size_t> rows;
  /// --row-length L: stage 7's values per row (run_topk.hpp has the default); other stages
  /// refuse it.
  std::optional<std::size_t> row_length;
  /// --k K: values stage 7 picks per row (run_topk.hpp has the default; 1 .. row length).
  std::optional<long long> k;
  bool smallest = false;  ///< --smallest: stage 7 picks the k smallest (default: the largest)
  bool sorted = false;    ///< --sorted: stage 7 returns each row's answers best first
};

/// Arguments of `sortlab trace`.
struct TraceArgs {
  int stage = -1;                                      ///< --stage N (required)
  KeyType type = KeyType::kU32;                        ///< --type u32|i32|f32
  std::size_t n = 16;                                  ///< --n, number of keys (1..4096)
  int bits = 4;                                        ///< --bits: keys are 0 .. 2^bits - 1
  Distribution distribution = Distribution::kUniform;  ///< --dist, any generator name
  bool descending = false;                             ///< --descending
  std::uint64_t seed = 1;                              ///< --seed S for the generator
  Tuning tuning;                                       ///< --radix-bits, --keys-per-thread
  bool force_cpu = false;                              ///< --cpu: use the CPU model even on a GPU
  /// --tile N: keys per block tile of the CPU model (stages 02-04), instead of the GPU's tile.
  std::optional<long long> tile_items;
  /// --svg FILE: also draw the first pass as an SVG figure into this file.
  std::optional<std::string> svg_path;
  /// --keys 5,3,7,...: trace these keys instead of generated ones (then --n is their count).
  std::optional<std::vector<std::string>> keys;
  /// --k K: values stage 07 (top-k) picks from the row (default 1); other stages refuse it.
  std::optional<long long> k;
  bool smallest = false;  ///< --smallest: stage 07 picks the k smallest (default: the largest)
  /// --segments S,S,...: stage 06 cuts the keys into consecutive segments of these sizes (their
  /// sum is the number of keys); other stages refuse it.
  std::optional<std::vector<std::uint32_t>> segments;
};

/// What the command line asks for.
enum class CommandKind {
  kHelp,    ///< print a usage text (help_topic says which) and exit 0
  kStages,  ///< list the stages
  kRun,     ///< sortlab run
  kTrace,   ///< sortlab trace
};

/// A parsed command line.
struct Command {
  CommandKind kind = CommandKind::kHelp;  ///< which subcommand
  std::string help_topic;                 ///< for kHelp: "" (general), "run", "trace", "stages"
  RunArgs run;                            ///< for kRun
  TraceArgs trace;                        ///< for kTrace
};

/// Parses the arguments after the program name. Throws UsageError for an unknown subcommand or
/// flag, a flag without its value, a value that does not parse, or a missing --stage.
/// `--flag value` and `--flag=value` are both accepted.
/// \param args the command-line arguments without argv[0]
Command parse_command_line(const std::vector<std::string>& args);

/// The usage text for \p topic: "" for the overview, or "run", "trace", "stages".
/// \param topic which subcommand's help
std::string usage_text(const std::string& topic);

/// One line telling the user where to find help after an error in \p topic's arguments.
/// \param topic the subcommand that was being parsed ("" when none)
std::string usage_hint(const std::string& topic);

}  // namespace sortlab::cli
