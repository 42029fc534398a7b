/// \file
/// \brief `sortlab trace`: tiny keys, every pass of one stage, every array of every pass.
#include "bench/sortlab/trace_command.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/sortlab/stage_registry.hpp"
#include "bench/sortlab/trace_print.hpp"
#include "bench/sortlab/trace_segments.hpp"
#include "bench/sortlab/trace_svg.hpp"
#include "bench/sortlab/trace_topk.hpp"
#include "common/distributions.hpp"
#include "common/gpu_detect.hpp"
#include "common/key_traits.hpp"
#include "common/verify.hpp"

namespace sortlab::cli {
namespace {

/// The stage's summary without its closing pass count ("... scatter (32 passes)"): that count is
/// for full 32-bit keys, and the trace's header gives the passes of this trace instead.
std::string summary_for_trace(const std::string& summary) {
  const std::size_t open = summary.rfind(" (");
  const bool ends_with_passes =
      open != std::string::npos && summary.size() > 8 &&
      summary.compare(summary.size() - 8, 8, " passes)") == 0 &&
      summary.find_first_not_of("0123456789", open + 2) == summary.size() - 8;
  return ends_with_passes ? summary.substr(0, open) : summary;
}

/// Most key bits a trace of each type accepts: i32 keys 0 .. 2^31 - 1 stay non-negative, and f32
/// represents every integer up to 2^24 exactly.
int max_trace_bits(KeyType type) {
  switch (type) {
    case KeyType::kU32:
      return 32;
    case KeyType::kI32:
      return 31;
    case KeyType::kF32:
      return 24;
  }
  return 0;
}

/// The generated keys: the top `bits` bits of generate_keys' u32 keys, as Key. Keeping the top
/// bits (rather than masking the low ones) keeps the distribution's shape: `sorted` stays sorted,
/// `reversed` reversed, `few` has few values.
template <typename Key>
std::vector<Key> generated_keys(const TraceArgs& args) {
  const std::vector<std::uint32_t> wide =
      generate_keys<std::uint32_t>(args.distribution, args.n, args.seed);
  std::vector<Key> keys(wide.size());
  for (std::size_t i = 0; i < wide.size(); ++i)
    keys[i] = static_cast<Key>(args.bits == 32 ? wide[i] : wide[i] >> (32 - args.bits));
  return keys;
}

/// The keys given with --keys; integers must be in 0 .. 2^bits - 1.
template <typename Key>
std::vector<Key> given_keys(const TraceArgs& args) {
  std::vector<Key> keys;
  for (const std::string& text : *args.keys) {
    if constexpr (std::is_same_v<Key, float>) {
      std::size_t used = 0;
      float value = 0;
      try {
        value = std::stof(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size())
        throw UsageError("--keys: '" + text + "' is not a number", "trace");
      keys.push_back(value);
    } else {
      const long long max_key = static_cast<long long>((std::uint64_t{1} << args.bits) - 1);
      try {
        keys.push_back(static_cast<Key>(parse_integer(text, "--keys", 0, max_key)));
      } catch (const UsageError& error) {
        throw UsageError(std::string(error.what()) + " (keys must fit in --bits " +
                             std::to_string(args.bits) + ")",
                         "trace");
      }
    }
  }
  return keys;
}

/// Refuses more key bits than the trace's key type holds (max_trace_bits()).
void check_trace_bits(const TraceArgs& args) {
  if (args.bits > max_trace_bits(args.type))
    throw UsageError("--bits: " + std::to_string(args.bits) + " is too many for " +
                         to_string(args.type) + " keys (at most " +
                         std::to_string(max_trace_bits(args.type)) + ")",
                     "trace");
}

/// The keys of a trace: --keys when given, else generated ones.
template <typename Key>
std::vector<Key> row_of(const TraceArgs& args) {
  return args.keys ? given_keys<Key>(args) : generated_keys<Key>(args);
}

/// The key bits the passes cover: [0, bits) for integer keys; for f32 keys the bits in which
/// their ordered bits differ (small integers as floats differ in exponent and upper mantissa).
template <typename Key>
std::pair<int, int> traced_bits(const std::vector<Key>& keys, int bits, bool descending) {
  if constexpr (!std::is_same_v<Key, float>) {
    return {0, bits};
  } else {
    std::uint32_t differ = 0;
    const std::uint32_t first = KeyTraits<float>::to_ordered(keys.front(), descending);
    for (float key : keys) differ |= KeyTraits<float>::to_ordered(key, descending) ^ first;
    if (differ == 0) return {0, bits};  // all keys equal: any bits will do
    int low = 0;
    while (((differ >> low) & 1u) == 0) ++low;
    int high = 32;
    while (((differ >> (high - 1)) & 1u) == 0) --high;
    return {low, high};
  }
}

/// How each kind of pass computes a destination, printed once above the passes.
void print_legend(std::ostream& out, bool tiled, int keys_per_thread) {
  if (!tiled) {
    out << "destination = index - ones before   (keys whose bit is 0)\n"
           "            = zeros + ones before   (keys whose bit is 1; zeros = n - total ones)\n";
  } else {
    out << "destination = scanned table[digit, block]   (where the block's keys of a digit start)\n"
           "            + the key's rank among its block's keys of that digit\n";
  }
  if (keys_per_thread > 0)
    out << "thread      = which thread of its block splits the key's tile position (thread t owns\n"
           "              positions t*K .. t*K+K-1, K = "
        << keys_per_thread << " keys per thread)\n";
}

/// The stages whose CPU-model trace takes --tile, for messages ("02, 03, 04").
std::string stages_with_tile_trace() {
  std::string stages;
  for (const StageEntry& entry : stage_registry())
    if (entry.has_tile_trace())
      stages += std::string(stages.empty() ? "" : ", ") + (entry.number < 10 ? "0" : "") +
                std::to_string(entry.number);
  return stages;
}

/// Checks --tile against the stage and the path the trace takes; throws UsageError saying what
/// to change. A coarsened stage (one with --keys-per-thread) splits a tile among threads of K
/// keys each, so its tile must be a multiple of K.
void check_tile(const StageEntry& entry, const TraceArgs& args, bool use_gpu) {
  if (!args.tile_items) return;
  const long long tile = *args.tile_items;
  if (!entry.has_tile_trace())
    throw UsageError("--tile: " + stage_label(entry) +
                         " has no tile size to choose in its trace (stages whose CPU model takes "
                         "--tile: " +
                         stages_with_tile_trace() + ")",
                     "trace");
  if (tile < 1)
    throw UsageError("--tile: " + std::to_string(tile) +
                         " keys per tile; a tile holds at least 1 key (e.g. --tile 4)",
                     "trace");
  if (tile > static_cast<long long>(kMaxTraceCount))
    throw UsageError("--tile: " + std::to_string(tile) +
                         " keys per tile is more than a trace has "
                         "keys (at most " +
                         std::to_string(kMaxTraceCount) + ")",
                     "trace");
  if (use_gpu)
    throw UsageError(
        "--tile sets the tile of the stage's CPU model; the GPU kernels' tile is "
        "fixed when they are compiled. Add --cpu to trace the model with " +
            std::to_string(tile) + "-key tiles",
        "trace");
  if (entry.keys_per_thread.accepted) {
    const int k = args.tuning.keys_per_thread.value_or(entry.keys_per_thread.default_value);
    if (tile % k != 0) {
      std::string smaller;
      for (int other = 1; other < k; other *= 2)
        if (tile % other == 0) smaller += (smaller.empty() ? "" : ", ") + std::to_string(other);
      throw UsageError("--tile " + std::to_string(tile) + ": " + stage_label(entry) +
                           " gives each thread of a block keys_per_thread = " + std::to_string(k) +
                           " keys, so a tile (threads x " + std::to_string(k) +
                           " keys) must be a multiple of " + std::to_string(k) + ": give --tile " +
                           std::to_string(k) + ", " + std::to_string(2 * k) + ", ..." +
                           (smaller.empty() ? std::string() : " or --keys-per-thread " + smaller),
                       "trace");
    }
  }
}

/// Writes the figure of \p pass (pass 1 of \p num_passes) to \p path; throws Error when the
/// file cannot be written.
template <typename Key>
void write_figure(const std::string& path, const StageEntry& entry, int num_passes, int key_bits,
                  const std::vector<Key>& keys_in, const PassArrays<Key>& pass) {
  FigureText text;
  text.title = stage_label(entry) + ", pass 1 of " + std::to_string(num_passes) + ": ";
  if (pass.num_bits == 1)
    text.title += "bit " + std::to_string(pass.first_bit);
  else
    text.title += "digit = bits [" + std::to_string(pass.first_bit) + ", " +
                  std::to_string(pass.first_bit + pass.num_bits) + ")";
  if (pass.tiled) {
    text.title += ", " + std::to_string(keys_in.size()) + " keys in " +
                  std::to_string(pass.num_blocks) + (pass.num_blocks == 1 ? " block" : " blocks") +
                  " of " + std::to_string(pass.tile_items);
    if (pass.keys_per_thread > 0)
      text.title +=
          " (" + std::to_string(pass.tile_items / static_cast<std::size_t>(pass.keys_per_thread)) +
          " threads x " + std::to_string(pass.keys_per_thread) + " keys)";
    text.subtitle =
        "destination = scan of the bucket table at (digit, block) + rank in the block's digit run";
  } else {
    text.subtitle = "destination = index - ones before (bit 0), or zeros + ones before (bit 1)";
  }
  text.key_bits = key_bits;
  std::ofstream file(path, std::ios::binary);
  if (!file) throw Error("--svg: cannot write '" + path + "'");
  write_pass_svg(file, text, keys_in, pass);
  file.close();
  if (!file) throw Error("--svg: writing '" + path + "' failed");
}

template <typename Key>
int trace_typed(const StageEntry& entry, const TraceArgs& args, std::ostream& out,
                bool gpu_present) {
  const std::vector<Key> input = args.keys ? given_keys<Key>(args) : generated_keys<Key>(args);
  const bool use_gpu = gpu_present && !args.force_cpu;
  check_tile(entry, args, use_gpu);
  if (args.svg_path && input.size() > kMaxFigureKeys)
    throw UsageError("--svg draws at most " + std::to_string(kMaxFigureKeys) + " keys (got " +
                         std::to_string(input.size()) + "); give fewer with --n or --keys",
                     "trace");
  if (use_gpu)
    out << "running on the GPU: " << gpu_description() << '\n';
  else if (gpu_present)
    out << "running the stage's CPU model (--cpu)\n";
  else
    out << "no GPU here: running the stage's CPU model\n";

  const auto [low_bit, high_bit] = traced_bits(input, args.bits, args.descending);
  const int digit_bits = entry.digit_bits(args.tuning);
  const int num_passes = (high_bit - low_bit + digit_bits - 1) / digit_bits;
  const StageFunctions<Key>& functions = entry.functions<Key>();
  const TraceFunction<Key> untiled_trace = use_gpu ? functions.trace_gpu : functions.trace_model;
  // With --tile the model runs with the student's tile; check_tile allowed it for the model only.
  auto trace = [&](const std::vector<Key>& keys, int bit, int width) {
    if (args.tile_items)
      return functions.trace_model_tiled(keys, bit, width, args.tuning, args.descending,
                                         static_cast<std::size_t>(*args.tile_items));
    return untiled_trace(keys, bit, width, args.tuning, args.descending);
  };

  out << stage_label(entry) << ": " << summary_for_trace(entry.summary) << '\n';
  const std::string tuning = tuning_text(entry, args.tuning);
  if (!tuning.empty() || args.tile_items)
    out << "config: " << tuning
        << (args.tile_items ? std::string(tuning.empty() ? "" : " ") +
                                  "tile=" + std::to_string(*args.tile_items) +
                                  " (the CPU model's tile; the GPU's is fixed)"
                            : std::string())
        << '\n';
  out << input.size() << ' ' << to_string(args.type) << " keys of " << args.bits << " bits ("
      << (args.keys ? std::string("given with --keys")
                    : to_string(args.distribution) + ", seed " + std::to_string(args.seed))
      << "), " << (args.descending ? "descending" : "ascending") << "; " << num_passes
      << (num_passes == 1 ? " pass" : " passes") << " over key bits [" << low_bit << ", "
      << high_bit << ")\n";
  if (std::is_same_v<Key, float> && (low_bit != 0 || high_bit != args.bits))
    out << "(f32: the keys' ordered bits differ only in bits [" << low_bit << ", " << high_bit
        << "), exponent and upper mantissa, so the passes cover those)\n";
  if (args.descending) out << "(descending: the digits are taken from the complemented key bits)\n";

  const TraceLayout layout = make_layout(input, std::is_same_v<Key, std::uint32_t> ? high_bit : 0);
  std::vector<Key> keys = input;
  int pass_number = 0;
  for (int bit = low_bit; bit < high_bit; bit += digit_bits) {
    const int width = std::min(digit_bits, high_bit - bit);
    const PassArrays<Key> pass = trace(keys, bit, width);
    if (++pass_number == 1) {
      print_legend(out, pass.tiled, pass.keys_per_thread);
      out << '\n';
    }
    out << "pass " << pass_number << " of " << num_passes << ": ";
    if (width == 1)
      out << "bit " << bit;
    else
      out << "digit = bits [" << bit << ", " << bit + width << ")";
    if (pass.tiled)
      out << ", " << pass.num_buckets << " buckets, " << pass.num_blocks
          << (pass.num_blocks == 1 ? " block" : " blocks") << " of " << pass.tile_items << " keys";
    if (pass.tiled && pass.keys_per_thread > 0)
      out << " (" << pass.tile_items / static_cast<std::size_t>(pass.keys_per_thread)
          << " threads x " << pass.keys_per_thread << " keys)";
    out << '\n';
    print_pass(out, layout, keys, pass);
    out << '\n';
    if (pass_number == 1 && args.svg_path)
      write_figure(*args.svg_path, entry, num_passes, layout.binary_bits, keys, pass);
    keys = pass.keys_out;
  }

  const VerifyResult check =
      verify_sorted_keys(input, keys, SortOptions{0, kAllBits, args.descending});
  if (args.svg_path) out << "figure of pass 1: " << *args.svg_path << '\n';
  if (check.ok) {
    out << "result: sorted (" << (args.descending ? "descending" : "ascending")
        << ", same keys as the input)\n";
    return kExitOk;
  }
  out << "result: NOT sorted: " << check.message << '\n';
  return kExitFailed;
}

}  // namespace

int trace_command(const TraceArgs& args, std::ostream& out, bool gpu_present) {
  if (args.stage != kTopkStage && (args.k || args.smallest))
    throw UsageError(std::string(args.k ? "--k" : "--smallest") +
                         " is for stage 7 (top-k); a sort takes every key",
                     "trace");
  if (args.stage != kSegmentedStage && args.segments)
    throw UsageError("--segments is for stage 6 (segmented sort)", "trace");
  if (args.stage == kSegmentedStage) {
    // The segmented sort sorts many arrays at once, so it is not in the stage registry: its
    // trace is the CPU model's classification and sort (the GPU tests check the kernels' output).
    if (args.tuning.radix_bits || args.tuning.keys_per_thread || args.tile_items || args.svg_path)
      throw UsageError(
          "stage 6's trace takes --segments, --descending and the key options; "
          "--radix-bits, --keys-per-thread, --tile and --svg are for the one-array "
          "sorts",
          "trace");
    check_trace_bits(args);
    TraceArgs segmented = args;
    if (!segmented.segments)
      segmented.segments =
          std::vector<std::uint32_t>{0, 1, 2, 5, 8, 17, 33, 100, 300, 600, 1500, 4000, 5000};
    std::size_t total = 0;
    for (std::uint32_t size : *segmented.segments) total += size;
    if (total > kMaxSegmentedTraceKeys)
      throw UsageError("--segments: at most " + std::to_string(kMaxSegmentedTraceKeys) +
                           " keys in all, got " + std::to_string(total),
                       "trace");
    if (segmented.keys && segmented.keys->size() != total)
      throw UsageError("--keys: " + std::to_string(segmented.keys->size()) +
                           " keys for segments of " + std::to_string(total) +
                           " in all (the sizes must add up to the keys)",
                       "trace");
    segmented.n = total;
    return with_key_type(args.type, [&](auto key) {
      using Key = decltype(key);
      return trace_segments<Key>(row_of<Key>(segmented), segmented, out);
    });
  }
  if (args.stage == kTopkStage) {
    // Top-k is not a sort, so not in the stage registry: its trace is the CPU model's (the GPU
    // tests check the kernels against that model element for element).
    if (args.tuning.radix_bits || args.tuning.keys_per_thread || args.tile_items || args.svg_path ||
        args.descending)
      throw UsageError(
          "stage 7's trace takes --k and --smallest (and the key options); "
          "--radix-bits, --keys-per-thread, --tile, --svg and --descending are for "
          "the sorts",
          "trace");
    check_trace_bits(args);
    return with_key_type(args.type, [&](auto key) {
      using Key = decltype(key);
      return trace_topk<Key>(row_of<Key>(args), args, out);
    });
  }
  const StageEntry& entry = find_stage(args.stage);
  if (!entry.has_trace()) {
    std::string traceable;
    for (const StageEntry& other : stage_registry())
      if (other.has_trace())
        traceable += (traceable.empty() ? "" : ", ") + std::to_string(other.number);
    throw UsageError(stage_label(entry) +
                         " has no trace: CUB's kernels are a library's, with no pass-by-pass "
                         "arrays to show (stages with a trace: " +
                         traceable + ")",
                     "trace");
  }
  check_tuning(entry, args.tuning);
  // A stage whose trace runs one fixed tiling (stage 05) traces its default digit width only;
  // printing "radix_bits=7" over 6-bit passes would misread the trace.
  if (args.tuning.radix_bits && entry.digit_bits(args.tuning) != *args.tuning.radix_bits)
    throw UsageError("--radix-bits: " + stage_label(entry) + "'s trace shows its default " +
                         std::to_string(entry.digit_bits(args.tuning)) +
                         "-bit digits; --radix-bits " + std::to_string(*args.tuning.radix_bits) +
                         " applies to `sortlab run`",
                     "trace");
  check_trace_bits(args);

  return with_key_type(args.type, [&](auto key) {
    return trace_typed<decltype(key)>(entry, args, out, gpu_present);
  });
}

}  // namespace sortlab::cli
