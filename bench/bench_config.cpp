/// \file
/// \brief Implementation of the command-line configuration.
#include "bench/bench_config.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(item);
  require(!values.empty(), flag + " needs at least one value");
  return values;
}

long parse_integer(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  require(!text.empty() && *end == '\0', "bad value '" + text + "' in " + flag);
  return value;
}

double parse_number(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  require(!text.empty() && *end == '\0', "bad value '" + text + "' in " + flag);
  return value;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& flag) {
  std::vector<int> values;
  for (const std::string& item : split_list(text, flag))
    values.push_back(static_cast<int>(parse_integer(item, flag)));
  return values;
}

}  // namespace

std::size_t key_bytes(const std::string& key_type) {
  require(key_type == "u32" || key_type == "i32" || key_type == "f32",
          "unknown key type '" + key_type + "' (valid: u32, i32, f32)");
  return 4;
}

BenchConfig parse_config(int& argc, char** argv) {
  BenchConfig config;
  std::vector<KeyShape> and_shapes = {KeyShape{}};
  std::vector<KeyShape> other_shapes;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value_of = [&](const char* flag) -> const char* {
      const std::size_t length = std::strlen(flag);
      return arg.compare(0, length, flag) == 0 ? argv[i] + length : nullptr;
    };
    if (const char* v = value_of("--sizes=")) {
      config.log2_sizes = parse_int_list(v, "--sizes");
    } else if (const char* v = value_of("--ands=")) {
      and_shapes.clear();
      for (int count : parse_int_list(v, "--ands")) {
        require(count >= 0, "--ands: counts must be >= 0");
        and_shapes.push_back(and_reduced(count));
      }
    } else if (const char* v = value_of("--dists=")) {
      other_shapes.clear();
      for (const std::string& name : split_list(v, "--dists"))
        other_shapes.push_back(parse_key_shape(name));
    } else if (const char* v = value_of("--types=")) {
      config.key_types = split_list(v, "--types");
      for (const auto& type : config.key_types) key_bytes(type);  // validates
    } else if (const char* v = value_of("--pairs=")) {
      const std::string choice = v;
      require(choice == "0" || choice == "1" || choice == "both",
              "--pairs must be 0 (keys only), 1 (pairs only) or both");
      config.keys = choice != "1";
      config.pairs = choice != "0";
    } else if (const char* v = value_of("--timing=")) {
      config.timing = timing::parse_timing_mode(v);
    } else if (const char* v = value_of("--l2_flush=")) {
      const std::string choice = v;
      require(choice == "0" || choice == "1" || choice == "read" || choice == "write",
              "--l2_flush must be 0 (no flush), 1 or read (read a 2x L2 buffer: the default) or "
              "write (write it: the method before 2026-11-28)");
      config.flush_l2 = choice != "0";
      config.flush_method =
          choice == "write" ? timing::FlushMethod::kWrite : timing::FlushMethod::kRead;
    } else if (const char* v = value_of("--max_noise=")) {
      config.stopping.max_relative_noise = parse_number(v, "--max_noise");
      require(config.stopping.max_relative_noise >= 0, "--max_noise must be >= 0");
    } else if (const char* v = value_of("--min_samples=")) {
      const long count = parse_integer(v, "--min_samples");
      require(count >= 1, "--min_samples must be >= 1");
      config.stopping.min_samples = static_cast<std::size_t>(count);
    } else if (const char* v =
                   value_of("--max_time=") ? value_of("--max_time=") : value_of("--min_time=")) {
      config.stopping.max_seconds = parse_number(v, "--max_time");
      require(config.stopping.max_seconds > 0, "--max_time must be positive");
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  for (int k : config.log2_sizes) require(k >= 0 && k <= 30, "--sizes: log2 n must be in 0..30");
  config.key_shapes = and_shapes;
  config.key_shapes.insert(config.key_shapes.end(), other_shapes.begin(), other_shapes.end());
  return config;
}

}  // namespace sortlab::bench
