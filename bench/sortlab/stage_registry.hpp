/// \file
/// \brief The stage registry of the `sortlab` tool: one table row per stage (number, name,
/// summary, folder, tuning options, and function pointers for sorting and for tracing one pass),
/// so `run` and `trace` are written once for every stage. Adding a stage is one adapter struct
/// and one row in stage_registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/sortlab/cli_args.hpp"
#include "common/sort_options.hpp"

namespace sortlab::cli {

/// One pass's arrays in a shape that fits every stage's trace: stage 01's 1-bit split (bits,
/// ones before) and the tiled passes of stages 02-04 (digits, local sort, block bucket table).
/// \tparam Key the key type
template <typename Key>
struct PassArrays {
  int first_bit = 0;  ///< lowest key bit of this pass's digit
  int num_bits = 1;   ///< digit width of this pass (1 for stages 01 and 02)
  /// The digit of each input key (input order); for a 1-bit pass, the bit.
  std::vector<std::uint32_t> digits;
  /// Stage 01 only: exclusive scan of the bits, "ones before" each key (empty otherwise).
  std::vector<std::uint32_t> ones_before;
  bool tiled = false;          ///< true for passes that work tile by tile (the fields below)
  int num_blocks = 0;          ///< tiled: blocks (tiles) in the pass
  int num_buckets = 0;         ///< tiled: buckets (2^num_bits)
  std::size_t tile_items = 0;  ///< tiled: keys per block tile
  /// Tiled, coarsened stages (04): keys each thread owns in the local split, so that thread t of
  /// a block splits tile positions t * K .. t * K + K - 1 (0 for a stage without the knob).
  int keys_per_thread = 0;
  /// Tiled: every tile after the local split, tile b at [b * tile_items, ...).
  std::vector<Key> local_sorted;
  /// Tiled: the block bucket table, count of digit d in block b at d * num_blocks + b.
  std::vector<std::uint32_t> block_bucket_table;
  /// Tiled: exclusive scan of the table, global start of (d, b) at d * num_blocks + b.
  std::vector<std::uint32_t> scanned_table;
  std::vector<std::uint32_t> destinations;  ///< where each input key went (input order)
  std::vector<Key> keys_out;                ///< the keys after the pass
  /// Lines a stage prints after its tables (stage 08: the look-back's status words and steps).
  std::vector<std::string> notes;
};

/// A stage's sort of \p n device keys (pairs when \p values_in is not null), in the CUB
/// temp-storage convention: with \p temp_storage == nullptr it only sets \p temp_storage_bytes.
/// The tuning, already validated, is turned into the stage's Config.
template <typename Key>
using SortFunction = void (*)(void* temp_storage, std::size_t& temp_storage_bytes,
                              const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
                              std::uint32_t* values_out, std::size_t n, const SortOptions& options,
                              const Tuning& tuning);

/// One pass of a stage on host keys: digit bits [first_bit, first_bit + num_bits). Stages whose
/// digit is one bit are always called with num_bits = 1.
template <typename Key>
using TraceFunction = PassArrays<Key> (*)(const std::vector<Key>& keys, int first_bit, int num_bits,
                                          const Tuning& tuning, bool descending);

/// One pass of a tiled stage's CPU model with a tile of \p tile_items keys instead of the GPU's
/// (`sortlab trace --tile`), so that a few keys fill several blocks.
template <typename Key>
using TiledTraceFunction = PassArrays<Key> (*)(const std::vector<Key>& keys, int first_bit,
                                               int num_bits, const Tuning& tuning, bool descending,
                                               std::size_t tile_items);

/// What a stage can do for one key type. Trace functions are null for a stage without a trace.
/// \tparam Key the key type
template <typename Key>
struct StageFunctions {
  SortFunction<Key> sort = nullptr;          ///< the device sort
  TraceFunction<Key> trace_gpu = nullptr;    ///< the stage's trace_pass (runs on the GPU)
  TraceFunction<Key> trace_model = nullptr;  ///< the stage's model_pass (runs on the CPU)
  /// The stage's model_pass_with_tile (CPU); null for a stage whose model has no tile to choose.
  TiledTraceFunction<Key> trace_model_tiled = nullptr;
};

/// A tuning option as a stage accepts it.
struct OptionInfo {
  bool accepted = false;  ///< the stage has this knob
  int default_value = 0;  ///< the stage's default
  std::string values;     ///< the values it accepts, in words ("1..8", "1, 2, 4, 8, 16")
};

/// Turns \p tuning into the stage's Config and checks it: throws sortlab::Error (the stage's own
/// message) for values the stage does not support.
using ValidateFunction = void (*)(const Tuning& tuning);

/// Digit width of the stage's passes for \p tuning (1 for the 1-bit stages).
using DigitBitsFunction = int (*)(const Tuning& tuning);

/// One row of the registry.
struct StageEntry {
  int number = 0;                          ///< the stage number (0 = CUB)
  std::string name;                        ///< short name, e.g. "multibit_radix"
  std::string summary;                     ///< the stage's kSummary
  std::string folder;                      ///< where it lives, e.g. "chapters/03_multibit_radix"
  OptionInfo radix_bits;                   ///< --radix-bits
  OptionInfo keys_per_thread;              ///< --keys-per-thread
  ValidateFunction validate = nullptr;     ///< checks a tuning against the stage's Config
  DigitBitsFunction digit_bits = nullptr;  ///< bits per pass (for trace)
  StageFunctions<std::uint32_t> u32;       ///< u32 keys
  StageFunctions<std::int32_t> i32;        ///< i32 keys
  StageFunctions<float> f32;               ///< f32 keys

  /// True when the stage can trace a pass (every stage but CUB).
  bool has_trace() const noexcept { return u32.trace_model != nullptr; }

  /// True when the stage's CPU-model trace takes a tile size (`sortlab trace --tile`).
  bool has_tile_trace() const noexcept { return u32.trace_model_tiled != nullptr; }

  /// The functions for key type Key.
  template <typename Key>
  const StageFunctions<Key>& functions() const;
};

/// \cond INTERNAL
template <>
inline const StageFunctions<std::uint32_t>& StageEntry::functions<std::uint32_t>() const {
  return u32;
}
template <>
inline const StageFunctions<std::int32_t>& StageEntry::functions<std::int32_t>() const {
  return i32;
}
template <>
inline const StageFunctions<float>& StageEntry::functions<float>() const {
  return f32;
}
/// \endcond

/// Every stage, in ladder order (stage numbers 0, 1, 2, ... without gaps).
const std::vector<StageEntry>& stage_registry();

/// The entry for stage \p number. Throws UsageError "stage 9 does not exist yet (stages: 0, 1,
/// ..., 8)" for a number without a stage (the list names stages 6 and 7 too), and says that
/// stages 6 and 7 are no one-array sorts when asked for them.
/// \param number the stage number given with --stage
const StageEntry& find_stage(int number);

/// An entry that only names a stage which is not a one-array sort (stage 06's segmented sort,
/// stage 07's top-k): its number, name, summary and folder for messages and `sortlab stages`, no
/// sort or trace functions and no tuning knobs, so that check_tuning() refuses --radix-bits and
/// --keys-per-thread for it with the sorts' own message. Not in stage_registry().
/// \param number the stage number
/// \param name short name, e.g. "topk"
/// \param summary the stage's kSummary
/// \param folder where it lives
StageEntry named_stage(int number, const char* name, const char* summary, const char* folder);

/// Checks that \p entry accepts the knobs set in \p tuning and that their values are valid for
/// it; throws UsageError naming the stage and the option otherwise.
/// \param entry the stage
/// \param tuning the knobs from the command line
void check_tuning(const StageEntry& entry, const Tuning& tuning);

/// "stage 03 (multibit_radix)": how messages name a stage.
/// \param entry the stage
std::string stage_label(const StageEntry& entry);

/// The tuning options \p entry accepts, in words ("--radix-bits r (1..8, default 4)"), or
/// "none" for a stage without knobs.
/// \param entry the stage
std::string options_text(const StageEntry& entry);

/// The tuning in effect for \p entry, e.g. "radix_bits=4 keys_per_thread=8" (empty for a stage
/// without knobs).
/// \param entry the stage
/// \param tuning the knobs from the command line (unset ones take the stage's defaults)
std::string tuning_text(const StageEntry& entry, const Tuning& tuning);

}  // namespace sortlab::cli
