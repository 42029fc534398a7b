/// \file
/// \brief The stage registry: one adapter struct per stage (how to call its sort and its pass
/// trace, how the command line's knobs become its Config) and the table of all stages.
#include "bench/sortlab/stage_registry.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "bench/sortlab/trace_segments.hpp"
#include "bench/sortlab/trace_topk.hpp"
#include "chapters/00_cub/cub_sort.hpp"
#include "chapters/01_scan_sort/scan_sort.hpp"
#include "chapters/01_scan_sort/scan_sort_model.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort_model.hpp"
#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "chapters/03_multibit_radix/multibit_radix_model.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix_model.hpp"
#include "chapters/05_packed_rank/packed_rank_model.hpp"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "chapters/08_onesweep/onesweep_model.hpp"
#include "chapters/08_onesweep/onesweep_sort.hpp"

namespace sortlab::cli {
namespace {

// ---- Shared pieces of the adapters -------------------------------------------------------------

/// Calls a stage's sort_keys, or its sort_pairs when there are values. \p extra are the
/// stage-specific arguments between the options and the stream (its Config, if it has one).
template <typename Key, typename SortKeys, typename SortPairs, typename... Extra>
void dispatch_sort(SortKeys sort_keys, SortPairs sort_pairs, void* temp_storage,
                   std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Extra&... extra) {
  if (values_in == nullptr)
    sort_keys(temp_storage, temp_storage_bytes, keys_in, keys_out, n, options, extra...,
              cudaStream_t{});
  else
    sort_pairs(temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, n,
               options, extra..., cudaStream_t{});
}

/// Stage 01's trace: one bit, its scan ("ones before"), destinations.
template <typename Key, typename Trace>
PassArrays<Key> split_pass(Trace&& trace, int bit) {
  PassArrays<Key> pass;
  pass.first_bit = bit;
  pass.num_bits = 1;
  pass.digits = std::move(trace.bits);
  pass.ones_before = std::move(trace.ones_before);
  pass.destinations = std::move(trace.destinations);
  pass.keys_out = std::move(trace.keys_out);
  return pass;
}

/// The trace of a tiled stage (02, 03, 04, ...): their PassTrace structs share field names.
template <typename Key, typename Trace>
PassArrays<Key> tiled_pass(Trace&& trace, int first_bit, int num_bits) {
  PassArrays<Key> pass;
  pass.first_bit = first_bit;
  pass.num_bits = num_bits;
  pass.tiled = true;
  pass.num_blocks = trace.num_blocks;
  pass.num_buckets = trace.num_buckets;
  pass.tile_items = trace.tile_items;
  pass.digits = std::move(trace.digits);
  pass.local_sorted = std::move(trace.local_sorted);
  pass.block_bucket_table = std::move(trace.block_bucket_table);
  pass.scanned_table = std::move(trace.scanned_table);
  pass.destinations = std::move(trace.destinations);
  pass.keys_out = std::move(trace.keys_out);
  return pass;
}

std::string list_values(const int* first, const int* last) {
  std::string text;
  for (const int* value = first; value != last; ++value)
    text += (text.empty() ? "" : ", ") + std::to_string(*value);
  return text;
}

/// Defaults for a stage without tuning knobs and with a trace of 1-bit passes.
struct NoTuning {
  static constexpr bool kHasTrace = true;
  /// Whether the adapter has trace_model_tiled (a CPU model with a chosen tile size).
  static constexpr bool kHasTileTrace = false;
  static OptionInfo radix_bits() { return {}; }
  static OptionInfo keys_per_thread() { return {}; }
  static void validate(const Tuning&) {}
  static int digit_bits(const Tuning&) { return 1; }
};

// ---- One adapter per stage ---------------------------------------------------------------------

/// Stage 00: CUB. Its kernels are a library's, so there is nothing to trace.
struct Stage00 : NoTuning {
  static constexpr bool kHasTrace = false;
  static int digit_bits(const Tuning&) { return 8; }
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning&) {
    dispatch_sort(&stage00::sort_keys<Key>, &stage00::sort_pairs<Key>, temp, bytes, keys_in,
                  keys_out, values_in, values_out, n, options);
  }
};

/// Stage 01: the 1-bit scan sort.
struct Stage01 : NoTuning {
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning&) {
    dispatch_sort(&stage01::sort_keys<Key>, &stage01::sort_pairs<Key>, temp, bytes, keys_in,
                  keys_out, values_in, values_out, n, options);
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int bit, int, const Tuning&,
                                   bool descending) {
    return split_pass<Key>(stage01::trace_pass(keys, bit, descending), bit);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int bit, int, const Tuning&,
                                     bool descending) {
    return split_pass<Key>(stage01::model_pass(keys, bit, descending), bit);
  }
};

/// Stage 02: the coalesced 1-bit sort.
struct Stage02 : NoTuning {
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning&) {
    dispatch_sort(&stage02::sort_keys<Key>, &stage02::sort_pairs<Key>, temp, bytes, keys_in,
                  keys_out, values_in, values_out, n, options);
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int bit, int, const Tuning&,
                                   bool descending) {
    return tiled_pass<Key>(stage02::trace_pass(keys, bit, descending), bit, 1);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int bit, int, const Tuning&,
                                     bool descending) {
    return tiled_pass<Key>(stage02::model_pass(keys, bit, descending), bit, 1);
  }
  static constexpr bool kHasTileTrace = true;
  template <typename Key>
  static PassArrays<Key> trace_model_tiled(const std::vector<Key>& keys, int bit, int,
                                           const Tuning&, bool descending, std::size_t tile) {
    return tiled_pass<Key>(stage02::model_pass_with_tile(keys, bit, descending, tile), bit, 1);
  }
};

/// Stage 03: r-bit digits. The trace narrows the last pass by passing its width as r.
struct Stage03 : NoTuning {
  static stage03::Config config(const Tuning& tuning) {
    stage03::Config config;
    if (tuning.radix_bits) config.radix_bits = *tuning.radix_bits;
    return config;
  }
  static OptionInfo radix_bits() {
    return {true, stage03::kDefaultRadixBits,
            std::to_string(stage03::kMinRadixBits) + ".." + std::to_string(stage03::kMaxRadixBits)};
  }
  static void validate(const Tuning& tuning) { stage03::validate_config(config(tuning)); }
  static int digit_bits(const Tuning& tuning) { return config(tuning).radix_bits; }
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning& tuning) {
    dispatch_sort(&stage03::sort_keys<Key>, &stage03::sort_pairs<Key>, temp, bytes, keys_in,
                  keys_out, values_in, values_out, n, options, config(tuning));
  }
  static stage03::Config pass_config(const Tuning& tuning, int num_bits) {
    stage03::Config narrowed = config(tuning);
    narrowed.radix_bits = num_bits;
    return narrowed;
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int first_bit, int num_bits,
                                   const Tuning& tuning, bool descending) {
    return tiled_pass<Key>(
        stage03::trace_pass(keys, first_bit, pass_config(tuning, num_bits), descending), first_bit,
        num_bits);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int first_bit, int num_bits,
                                     const Tuning& tuning, bool descending) {
    return tiled_pass<Key>(
        stage03::model_pass(keys, first_bit, pass_config(tuning, num_bits), descending), first_bit,
        num_bits);
  }
  static constexpr bool kHasTileTrace = true;
  template <typename Key>
  static PassArrays<Key> trace_model_tiled(const std::vector<Key>& keys, int first_bit,
                                           int num_bits, const Tuning& tuning, bool descending,
                                           std::size_t tile) {
    return tiled_pass<Key>(stage03::model_pass_with_tile(
                               keys, first_bit, pass_config(tuning, num_bits), descending, tile),
                           first_bit, num_bits);
  }
};

/// Stage 04: r-bit digits and k keys per thread.
struct Stage04 : NoTuning {
  static stage04::Config config(const Tuning& tuning) {
    stage04::Config config;
    if (tuning.radix_bits) config.radix_bits = *tuning.radix_bits;
    if (tuning.keys_per_thread) config.keys_per_thread = *tuning.keys_per_thread;
    return config;
  }
  static OptionInfo radix_bits() {
    return {true, stage04::kDefaultRadixBits,
            std::to_string(stage04::kMinRadixBits) + ".." + std::to_string(stage04::kMaxRadixBits)};
  }
  static OptionInfo keys_per_thread() {
    return {true, stage04::kDefaultKeysPerThread,
            list_values(std::begin(stage04::kSupportedKeysPerThread),
                        std::end(stage04::kSupportedKeysPerThread))};
  }
  static void validate(const Tuning& tuning) { stage04::validate_config(config(tuning)); }
  static int digit_bits(const Tuning& tuning) { return config(tuning).radix_bits; }
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning& tuning) {
    dispatch_sort(&stage04::sort_keys<Key>, &stage04::sort_pairs<Key>, temp, bytes, keys_in,
                  keys_out, values_in, values_out, n, options, config(tuning));
  }
  static stage04::Config pass_config(const Tuning& tuning, int num_bits) {
    stage04::Config narrowed = config(tuning);
    narrowed.radix_bits = num_bits;
    return narrowed;
  }
  /// A stage 04 pass as the trace shows it: the tiled arrays and the keys each thread owns.
  template <typename Key>
  static PassArrays<Key> coarsened(stage04::PassTrace<Key>&& trace, int first_bit, int num_bits,
                                   const Tuning& tuning) {
    PassArrays<Key> pass = tiled_pass<Key>(std::move(trace), first_bit, num_bits);
    pass.keys_per_thread = config(tuning).keys_per_thread;
    return pass;
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int first_bit, int num_bits,
                                   const Tuning& tuning, bool descending) {
    return coarsened<Key>(
        stage04::trace_pass(keys, first_bit, pass_config(tuning, num_bits), descending), first_bit,
        num_bits, tuning);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int first_bit, int num_bits,
                                     const Tuning& tuning, bool descending) {
    return coarsened<Key>(
        stage04::model_pass(keys, first_bit, pass_config(tuning, num_bits), descending), first_bit,
        num_bits, tuning);
  }
  static constexpr bool kHasTileTrace = true;
  template <typename Key>
  static PassArrays<Key> trace_model_tiled(const std::vector<Key>& keys, int first_bit,
                                           int num_bits, const Tuning& tuning, bool descending,
                                           std::size_t tile) {
    return coarsened<Key>(stage04::model_pass_with_tile(
                              keys, first_bit, pass_config(tuning, num_bits), descending, tile),
                          first_bit, num_bits, tuning);
  }
};

/// Stage 05: packed-counter rank, 6- or 7-bit digits. Its trace shows the tiled arrays of the
/// default tiling; the packed counter words are in stage05::PassTrace (tests and the CPU model
/// compare them).
struct Stage05 : NoTuning {
  static stage05::Config config(const Tuning& tuning) {
    stage05::Config config;
    if (tuning.radix_bits) config.radix_bits = *tuning.radix_bits;
    return config;
  }
  static OptionInfo radix_bits() {
    return {true, stage05::kRadixBits,
            list_values(std::begin(stage05::kSupportedRadixBits),
                        std::end(stage05::kSupportedRadixBits))};
  }
  static void validate(const Tuning& tuning) { stage05::validate_config(config(tuning)); }
  // Traces run the default tiling, so their passes always have the default width.
  static int digit_bits(const Tuning&) { return stage05::kRadixBits; }
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning& tuning) {
    dispatch_sort(&stage05::sort_keys<Key>, &stage05::sort_pairs<Key, std::uint32_t>, temp, bytes,
                  keys_in, keys_out, values_in, values_out, n, options, config(tuning));
  }
  /// stage05::PassTrace names its digit count num_digits; the rest matches the tiled stages.
  template <typename Key>
  static PassArrays<Key> tiled(stage05::PassTrace<Key>&& trace, int first_bit, int num_bits) {
    PassArrays<Key> pass;
    pass.first_bit = first_bit;
    pass.num_bits = num_bits;
    pass.tiled = true;
    pass.num_blocks = trace.num_blocks;
    pass.num_buckets = trace.num_digits;
    pass.tile_items = trace.tile_items;
    pass.digits = std::move(trace.digits);
    pass.local_sorted = std::move(trace.local_sorted);
    pass.block_bucket_table = std::move(trace.block_bucket_table);
    pass.scanned_table = std::move(trace.scanned_table);
    pass.destinations = std::move(trace.destinations);
    pass.keys_out = std::move(trace.keys_out);
    return pass;
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int first_bit, int num_bits,
                                   const Tuning&, bool descending) {
    return tiled<Key>(stage05::trace_pass(keys, first_bit, num_bits, descending), first_bit,
                      num_bits);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int first_bit, int num_bits,
                                     const Tuning&, bool descending) {
    return tiled<Key>(stage05::model_pass(keys, first_bit, num_bits, descending), first_bit,
                      num_bits);
  }
};

/// Stage 08: onesweep, 8-bit digits. Its trace maps a pass onto the tiled arrays: the tile
/// counts it publishes are the block bucket table, and a digit's start plus what the look-back
/// found is the scanned table; the look-back's own steps and status words are in
/// stage08::PassTrace and the model (tests compare them).
struct Stage08 : NoTuning {
  static int digit_bits(const Tuning&) { return stage08::kRadixBits; }
  template <typename Key>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                   const SortOptions& options, const Tuning&) {
    dispatch_sort(&stage08::sort_keys<Key>, &stage08::sort_pairs<Key, std::uint32_t>, temp, bytes,
                  keys_in, keys_out, values_in, values_out, n, options, stage08::Config{});
  }
  /// The status words each tile left ("P 3": inclusive prefix 3, "A 2": aggregate 2), one row
  /// per digit, and, from the CPU model, every step of the look-back in the order taken.
  static std::vector<std::string> lookback_notes(const std::vector<std::uint32_t>& final_status,
                                                 std::size_t blocks, std::size_t digits,
                                                 const std::string& steps) {
    std::vector<std::string> notes;
    notes.push_back(
        "status words after the pass (P = inclusive prefix, A = aggregate: the "
        "tile's own count; what a later tile's look-back reads):");
    std::string header = "                 ";
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::string name = "block " + std::to_string(b);
      header += std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') + name;
    }
    notes.push_back(header);
    for (std::size_t d = 0; d < digits; ++d) {
      std::string row = "  digit " + std::to_string(d);
      row += std::string(row.size() < 17 ? 17 - row.size() : 1, ' ');
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::uint32_t word = final_status[b * digits + d];
        const sortlab::TileFlag flag = sortlab::status_flag(word);
        const std::string cell =
            flag == sortlab::TileFlag::kNotReady
                ? "-"
                : std::string(flag == sortlab::TileFlag::kPrefix ? "P " : "A ") +
                      std::to_string(sortlab::status_count(word));
        row += std::string(cell.size() < 8 ? 8 - cell.size() : 1, ' ') + cell;
      }
      notes.push_back(row);
    }
    if (!steps.empty()) {
      notes.push_back(
          "look-back, step by step (CPU model, tiles in order; the GPU's order varies "
          "from run to run, what each tile finds does not):");
      std::size_t start = 0;
      while (start < steps.size()) {
        const std::size_t end = steps.find('\n', start);
        notes.push_back("  " + steps.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
      }
    }
    return notes;
  }
  /// Tile b's keys in rank order form its local sort; (d, b) entries are stored digit-major.
  template <typename Key>
  static PassArrays<Key> tiled(const std::vector<Key>& keys, stage08::PassTrace<Key>&& trace,
                               int first_bit, int num_bits, const std::string& steps = "") {
    PassArrays<Key> pass;
    pass.first_bit = first_bit;
    pass.num_bits = num_bits;
    pass.tiled = true;
    pass.num_blocks = trace.num_tiles;
    pass.num_buckets = trace.num_digits;
    pass.tile_items = trace.tile_items;
    const std::size_t blocks = static_cast<std::size_t>(trace.num_tiles);
    const std::size_t digits = static_cast<std::size_t>(trace.num_digits);
    pass.local_sorted.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      pass.local_sorted[i / trace.tile_items * trace.tile_items + trace.ranks[i]] = keys[i];
    pass.block_bucket_table.resize(blocks * digits);
    pass.scanned_table.resize(blocks * digits);
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t d = 0; d < digits; ++d) {
        pass.block_bucket_table[d * blocks + b] = trace.tile_counts[b * digits + d];
        pass.scanned_table[d * blocks + b] =
            trace.digit_starts[d] + trace.exclusive_prefixes[b * digits + d];
      }
    }
    pass.notes = lookback_notes(trace.final_status, blocks, digits, steps);
    pass.digits = std::move(trace.digits);
    pass.destinations = std::move(trace.destinations);
    pass.keys_out = std::move(trace.keys_out);
    return pass;
  }
  /// The model's pass with its look-back steps described.
  template <typename Key>
  static PassArrays<Key> from_model(const std::vector<Key>& keys, stage08::PassModel<Key>&& model,
                                    int first_bit, int num_bits) {
    const std::string steps = stage08::describe_lookback(model.lookback, model.trace.tile_counts);
    return tiled<Key>(keys, std::move(model.trace), first_bit, num_bits, steps);
  }
  template <typename Key>
  static PassArrays<Key> trace_gpu(const std::vector<Key>& keys, int first_bit, int num_bits,
                                   const Tuning&, bool descending) {
    return tiled<Key>(keys, stage08::trace_pass(keys, first_bit, num_bits, descending), first_bit,
                      num_bits);
  }
  template <typename Key>
  static PassArrays<Key> trace_model(const std::vector<Key>& keys, int first_bit, int num_bits,
                                     const Tuning&, bool descending) {
    return from_model<Key>(keys, stage08::model_pass(keys, first_bit, num_bits, descending),
                           first_bit, num_bits);
  }
  static constexpr bool kHasTileTrace = true;
  template <typename Key>
  static PassArrays<Key> trace_model_tiled(const std::vector<Key>& keys, int first_bit,
                                           int num_bits, const Tuning&, bool descending,
                                           std::size_t tile) {
    return from_model<Key>(
        keys, stage08::model_pass(keys, first_bit, num_bits, descending, nullptr, tile), first_bit,
        num_bits);
  }
};

// ---- Building the rows -------------------------------------------------------------------------

template <typename Adapter, typename Key>
StageFunctions<Key> functions_of() {
  StageFunctions<Key> functions;
  functions.sort = &Adapter::template sort<Key>;
  if constexpr (Adapter::kHasTrace) {
    functions.trace_gpu = &Adapter::template trace_gpu<Key>;
    functions.trace_model = &Adapter::template trace_model<Key>;
  }
  if constexpr (Adapter::kHasTileTrace)
    functions.trace_model_tiled = &Adapter::template trace_model_tiled<Key>;
  return functions;
}

template <typename Adapter>
StageEntry make_entry(int number, const char* name, const char* summary, const char* folder) {
  StageEntry entry = named_stage(number, name, summary, folder);
  entry.radix_bits = Adapter::radix_bits();
  entry.keys_per_thread = Adapter::keys_per_thread();
  entry.validate = &Adapter::validate;
  entry.digit_bits = &Adapter::digit_bits;
  entry.u32 = functions_of<Adapter, std::uint32_t>();
  entry.i32 = functions_of<Adapter, std::int32_t>();
  entry.f32 = functions_of<Adapter, float>();
  return entry;
}

std::string two_digits(int number) {
  return (number >= 0 && number < 10 ? "0" : "") + std::to_string(number);
}

}  // namespace

const std::vector<StageEntry>& stage_registry() {
  // The ladder. A new stage: an adapter struct above and one row here.
  static const std::vector<StageEntry> registry = {
      make_entry<Stage00>(0, "cub", stage00::kSummary, "chapters/00_cub"),
      make_entry<Stage01>(1, "scan_sort", stage01::kSummary, "chapters/01_scan_sort"),
      make_entry<Stage02>(2, "coalesced_sort", stage02::kSummary, "chapters/02_coalesced_sort"),
      make_entry<Stage03>(3, "multibit_radix", stage03::kSummary, "chapters/03_multibit_radix"),
      make_entry<Stage04>(4, "coarsened_radix", stage04::kSummary, "chapters/04_coarsened_radix"),
      make_entry<Stage05>(5, "packed_rank", stage05::kSummary, "chapters/05_packed_rank"),
      make_entry<Stage08>(8, "onesweep", stage08::kSummary, "chapters/08_onesweep"),
  };
  return registry;
}

const StageEntry& find_stage(int number) {
  const auto& registry = stage_registry();
  for (const StageEntry& entry : registry)
    if (entry.number == number) return entry;
  // Stages 6 (segmented sort) and 7 (top-k) are built too, but sort segments or select rows,
  // not one array: `run` and `trace` take them before they look here.
  if (number == kSegmentedStage || number == kTopkStage)
    throw UsageError("stage " + std::to_string(number) + " (" +
                     (number == kSegmentedStage ? "segmented sort" : "top-k") +
                     ") is not a sort of one array: only `sortlab run` and `sortlab trace` "
                     "take it");
  std::vector<int> numbers{kSegmentedStage, kTopkStage};
  for (const StageEntry& entry : registry) numbers.push_back(entry.number);
  std::sort(numbers.begin(), numbers.end());
  std::string built;
  for (int built_number : numbers)
    built += (built.empty() ? "" : ", ") + std::to_string(built_number);
  const std::string range = "(stages: " + built + ")";
  // The ladder is planned up to stage 09: a number in it that is not built is still to come.
  if (number >= 0 && number <= 9)
    throw UsageError("stage " + std::to_string(number) + " does not exist yet " + range);
  throw UsageError("stage " + std::to_string(number) + " does not exist " + range);
}

StageEntry named_stage(int number, const char* name, const char* summary, const char* folder) {
  StageEntry entry;
  entry.number = number;
  entry.name = name;
  entry.summary = summary;
  entry.folder = folder;
  entry.validate = &NoTuning::validate;
  return entry;
}

void check_tuning(const StageEntry& entry, const Tuning& tuning) {
  auto accepted_by = [](OptionInfo StageEntry::*option) {
    std::string stages;
    for (const StageEntry& other : stage_registry())
      if ((other.*option).accepted)
        stages += (stages.empty() ? "" : ", ") + two_digits(other.number);
    return stages.empty() ? std::string("none") : stages;
  };
  if (tuning.radix_bits && !entry.radix_bits.accepted)
    throw UsageError("--radix-bits: " + stage_label(entry) +
                     " has no digit width to tune (stages that take --radix-bits: " +
                     accepted_by(&StageEntry::radix_bits) + ")");
  if (tuning.keys_per_thread && !entry.keys_per_thread.accepted)
    throw UsageError("--keys-per-thread: " + stage_label(entry) +
                     " has no keys-per-thread knob (stages that take --keys-per-thread: " +
                     accepted_by(&StageEntry::keys_per_thread) + ")");
  try {
    entry.validate(tuning);
  } catch (const Error& error) {
    throw UsageError(stage_label(entry) + " does not accept this tuning: " + error.what() +
                     " (accepted: " + options_text(entry) + ")");
  }
}

std::string stage_label(const StageEntry& entry) {
  return "stage " + two_digits(entry.number) + " (" + entry.name + ")";
}

std::string options_text(const StageEntry& entry) {
  std::string text;
  auto add = [&text](const OptionInfo& option, const char* flag) {
    if (!option.accepted) return;
    text += (text.empty() ? "" : ", ") + std::string(flag) + " (" + option.values + "; default " +
            std::to_string(option.default_value) + ")";
  };
  add(entry.radix_bits, "--radix-bits r");
  add(entry.keys_per_thread, "--keys-per-thread k");
  return text.empty() ? "none" : text;
}

std::string tuning_text(const StageEntry& entry, const Tuning& tuning) {
  std::string text;
  if (entry.radix_bits.accepted)
    text +=
        "radix_bits=" + std::to_string(tuning.radix_bits.value_or(entry.radix_bits.default_value));
  if (entry.keys_per_thread.accepted)
    text += std::string(text.empty() ? "" : " ") + "keys_per_thread=" +
            std::to_string(tuning.keys_per_thread.value_or(entry.keys_per_thread.default_value));
  return text;
}

}  // namespace sortlab::cli
