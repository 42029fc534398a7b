/// \file
/// \brief Stage 08 CPU model: the all-digit-places histogram of one read, its scans, the warp
/// multi-split rank of a tile, one pass with a sequential model of the decoupled look-back, and
/// the whole sort, written plainly so that a test (or a student) can compare every array with the
/// GPU's (trace_pass) and watch tiles wait on each other.
///
/// The look-back model runs the tiles of a pass as a *schedule*: a list of tile numbers, each
/// entry letting that tile take one step. A tile's first step publishes its status words (tile 0
/// its inclusive prefix, the others their aggregate); every later step reads one predecessor's
/// words: "not ready" means wait (the next step reads the same tile again), an aggregate is added
/// and the walk goes one tile further back, an inclusive prefix is added and ends the walk, after
/// which the tile publishes its own inclusive prefix (unless it is the last tile: nobody reads
/// that one). An in-order schedule is what a quiet GPU does; reversed and random schedules model
/// tiles that finish out of order, publishing aggregates before their predecessors' prefixes are
/// known. Whatever the schedule, every tile must find the same exclusive prefix: the sum of the
/// counts of the tiles before it.
///
/// One simplification: a tile publishes all its digits in one step here, where on the GPU 256
/// threads store them one by one, so a reader may see digit 3 of a tile as a prefix and digit 4
/// of it as an aggregate. Every digit's walk is independent, so this changes which words are read
/// but not what they add up to.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"
#include "common/tile_status.hpp"

namespace sortlab::stage08 {

// ---- (a) and (b): every digit place's histogram from one read, and its scans -----------------

/// The histograms of every digit place of a sort, counted in one read of the keys.
struct DigitPlaceHistograms {
  int num_places = 0;                 ///< digit places (passes) of the sort
  int num_digits = 0;                 ///< 2^r rows per place (a narrower last place uses fewer)
  std::vector<int> first_bits;        ///< lowest bit of each place
  std::vector<int> widths;            ///< bits of each place (r, or fewer for the last)
  std::vector<std::uint32_t> counts;  ///< keys with digit d in place p, at p * num_digits + d
  /// Exclusive scan of each place's counts: where digit d's keys start after pass p.
  std::vector<std::uint32_t> starts;
};

/// Counts the digits of every place of [begin_bit, end_bit) in one read of \p keys, and scans
/// each place's histogram. Descending sorts count complemented digits.
/// \param keys input keys
/// \param options bit range and direction
/// \param radix_bits digit width r
template <typename Key>
DigitPlaceHistograms model_histograms(const std::vector<Key>& keys, const SortOptions& options = {},
                                      int radix_bits = kRadixBits) {
  const SortOptions resolved = resolve<Key>(options);
  DigitPlaceHistograms histograms;
  histograms.num_places = num_passes(resolved.end_bit - resolved.begin_bit, radix_bits);
  histograms.num_digits = 1 << radix_bits;
  const std::size_t digits = static_cast<std::size_t>(histograms.num_digits);
  for (int place = 0; place < histograms.num_places; ++place) {
    const int first_bit = resolved.begin_bit + place * radix_bits;
    histograms.first_bits.push_back(first_bit);
    histograms.widths.push_back(std::min(radix_bits, resolved.end_bit - first_bit));
  }
  histograms.counts.assign(digits * histograms.num_places, 0);
  for (const Key& key : keys)  // the one read: every place's digit of this key
    for (int place = 0; place < histograms.num_places; ++place)
      ++histograms
            .counts[place * digits + radix_digit(key, histograms.first_bits[place],
                                                 histograms.widths[place], resolved.descending)];
  histograms.starts.assign(histograms.counts.size(), 0);
  for (int place = 0; place < histograms.num_places; ++place) {
    std::uint32_t running = 0;
    for (std::size_t d = 0; d < digits; ++d) {
      histograms.starts[place * digits + d] = running;
      running += histograms.counts[place * digits + d];
    }
  }
  return histograms;
}

// ---- (c) the decoupled look-back, step by step
// ---------------------------------------------------

/// The order in which tiles take their steps (see the file comment). Entries for a tile that has
/// finished are skipped; when the list runs out, the unfinished tiles take steps in turn (tile 0,
/// 1, ...) until all are done, which always ends: tile 0 needs no predecessor.
struct LookbackSchedule {
  std::vector<std::uint32_t> steps;  ///< tile numbers, one step each
};

/// What a quiet GPU does: tile 0 finishes, then tile 1 publishes its aggregate and reads tile 0's
/// prefix, and so on: every look-back reads exactly one predecessor.
/// \param num_tiles tiles of the pass
inline LookbackSchedule in_order_schedule(std::size_t num_tiles) {
  LookbackSchedule schedule;
  for (std::uint32_t b = 0; b < num_tiles; ++b) schedule.steps.insert(schedule.steps.end(), 2, b);
  return schedule;
}

/// Out of order at its worst: every tile publishes its aggregate before any look-back reads
/// anything, from the last tile down to tile 0; then the tiles walk in turn. Tile b then reads
/// aggregates of tiles b-1, b-2, ... as far back as the first tile that has its prefix.
/// \param num_tiles tiles of the pass
inline LookbackSchedule aggregates_first_schedule(std::size_t num_tiles) {
  LookbackSchedule schedule;
  for (std::size_t b = num_tiles; b-- > 0;) schedule.steps.push_back(static_cast<std::uint32_t>(b));
  return schedule;
}

/// A random interleaving of \p length steps: tiles publish and read in any order, and some read
/// predecessors that have published nothing yet (they wait).
/// \param num_tiles tiles of the pass
/// \param seed random seed
/// \param length number of scheduled steps (the rest run in turn)
inline LookbackSchedule random_schedule(std::size_t num_tiles, std::uint64_t seed,
                                        std::size_t length) {
  LookbackSchedule schedule;
  if (num_tiles == 0) return schedule;
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint32_t> tile(0, static_cast<std::uint32_t>(num_tiles - 1));
  for (std::size_t i = 0; i < length; ++i) schedule.steps.push_back(tile(random));
  return schedule;
}

/// What happened in one step of the look-back.
enum class LookbackEventKind {
  kPublishAggregate,  ///< the tile stored (aggregate, its counts) for every digit
  kPublishPrefix,     ///< the tile stored (prefix, keys up to and including it) for every digit
  kRead,              ///< the tile read a predecessor's words and added them
  kWait,              ///< the tile read a predecessor that had published nothing: it waits
};

/// One step of the look-back.
struct LookbackEvent {
  LookbackEventKind kind = LookbackEventKind::kRead;  ///< what happened
  std::uint32_t tile = 0;                             ///< the tile that took the step
  std::uint32_t predecessor = 0;                      ///< the tile read (reads and waits only)
  TileFlag flag = TileFlag::kNotReady;                ///< the flag published or seen
};

/// One read of a predecessor's status words, as the reader saw them.
struct LookbackRead {
  std::uint32_t predecessor = 0;        ///< the tile read
  TileFlag flag = TileFlag::kNotReady;  ///< its flag at the time
  std::vector<std::uint32_t> words;     ///< its status word per digit at the time
};

/// The look-back of one pass, every step recorded.
struct LookbackModel {
  std::size_t num_tiles = 0;                     ///< tiles of the pass
  int num_digits = 0;                            ///< status words per tile
  std::vector<LookbackEvent> events;             ///< every step, in the order taken
  std::vector<std::vector<LookbackRead>> reads;  ///< per tile, its reads in order (waits too)
  /// What each tile's look-back found: keys of digit d in tiles before b, at b * num_digits + d.
  std::vector<std::uint32_t> exclusive_prefixes;
  /// The status words after the pass, at b * num_digits + d (the GPU's final words).
  std::vector<std::uint32_t> final_status;
};

/// Runs the decoupled look-back of a pass on the CPU, one tile step at a time in the order of
/// \p schedule (see LookbackSchedule).
/// \param tile_counts keys of digit d in tile b at b * num_digits + d
/// \param num_digits status words per tile
/// \param schedule the order of the steps
inline LookbackModel model_lookback(const std::vector<std::uint32_t>& tile_counts, int num_digits,
                                    const LookbackSchedule& schedule) {
  require(num_digits > 0 && tile_counts.size() % num_digits == 0,
          "model_lookback: tile_counts must hold num_digits counts per tile");
  const std::size_t digits = static_cast<std::size_t>(num_digits);
  LookbackModel model;
  model.num_tiles = tile_counts.size() / digits;
  model.num_digits = num_digits;
  const std::size_t tiles = model.num_tiles;
  model.reads.resize(tiles);
  model.exclusive_prefixes.assign(tiles * digits, 0);
  std::vector<std::uint32_t>& status = model.final_status;  // the words, as they change
  status.assign(tiles * digits, pack_status(TileFlag::kNotReady, 0));
  for (std::uint32_t count : tile_counts)
    require(count <= kStatusCountMask, "model_lookback: a tile count does not fit 30 bits");

  enum class Phase { kNotStarted, kLookingBack, kDone };
  std::vector<Phase> phase(tiles, Phase::kNotStarted);
  std::vector<std::size_t> next_predecessor(tiles, 0);
  std::size_t done = 0;
  const auto publish = [&](std::size_t b, TileFlag flag, const std::uint32_t* counts) {
    for (std::size_t d = 0; d < digits; ++d) status[b * digits + d] = pack_status(flag, counts[d]);
    model.events.push_back({flag == TileFlag::kPrefix ? LookbackEventKind::kPublishPrefix
                                                      : LookbackEventKind::kPublishAggregate,
                            static_cast<std::uint32_t>(b), 0, flag});
  };
  const auto step = [&](std::size_t b) {
    std::uint32_t* found = &model.exclusive_prefixes[b * digits];
    const std::uint32_t* own = &tile_counts[b * digits];
    if (phase[b] == Phase::kNotStarted) {
      // Tile 0 knows its inclusive prefix at once (its own counts); the others publish their
      // aggregate so that later tiles need not wait for their look-back.
      publish(b, b == 0 ? TileFlag::kPrefix : TileFlag::kAggregate, own);
      if (b == 0) {
        phase[b] = Phase::kDone;
        ++done;
      } else {
        phase[b] = Phase::kLookingBack;
        next_predecessor[b] = b - 1;
      }
      return;
    }
    const std::size_t p = next_predecessor[b];
    const TileFlag flag = status_flag(status[p * digits]);
    LookbackRead read{static_cast<std::uint32_t>(p), flag, {}};
    if (flag == TileFlag::kNotReady) {  // spin: the next step reads the same tile again
      model.reads[b].push_back(read);
      model.events.push_back({LookbackEventKind::kWait, static_cast<std::uint32_t>(b),
                              static_cast<std::uint32_t>(p), flag});
      return;
    }
    read.words.assign(status.begin() + p * digits, status.begin() + (p + 1) * digits);
    for (std::size_t d = 0; d < digits; ++d) found[d] += status_count(read.words[d]);
    model.reads[b].push_back(std::move(read));
    model.events.push_back({LookbackEventKind::kRead, static_cast<std::uint32_t>(b),
                            static_cast<std::uint32_t>(p), flag});
    if (flag == TileFlag::kAggregate) {  // tile p's prefix is not known yet: look further back
      next_predecessor[b] = p - 1;       // p > 0: tile 0 only ever publishes its prefix
      return;
    }
    // The walk ends. The last tile's inclusive prefix is never read, so it is not published
    // (it is also the one value that could reach 2^30 and not fit the 30-bit count).
    if (b + 1 < tiles) {
      std::vector<std::uint32_t> inclusive(digits);
      for (std::size_t d = 0; d < digits; ++d) inclusive[d] = found[d] + own[d];
      publish(b, TileFlag::kPrefix, inclusive.data());
    }
    phase[b] = Phase::kDone;
    ++done;
  };
  for (std::uint32_t b : schedule.steps) {
    require(b < tiles, "model_lookback: the schedule names a tile the pass does not have");
    if (phase[b] != Phase::kDone) step(b);
  }
  while (done < tiles)
    for (std::size_t b = 0; b < tiles; ++b)
      if (phase[b] != Phase::kDone) step(b);
  return model;
}

/// The look-back as text, one step per line ("tile 2 reads tile 1: aggregate (1 0 2 1)"), counts
/// per digit in brackets: the walk-through of the README and of `sortlab trace`.
/// \param model a look-back model
/// \param tile_counts the counts it was run on (for the published aggregates)
inline std::string describe_lookback(const LookbackModel& model,
                                     const std::vector<std::uint32_t>& tile_counts) {
  const std::size_t digits = static_cast<std::size_t>(model.num_digits);
  const auto counts_text = [&](const std::uint32_t* first, bool packed) {
    std::string text = "(";
    for (std::size_t d = 0; d < digits; ++d)
      text += (d ? " " : "") + std::to_string(packed ? status_count(first[d]) : first[d]);
    return text + ")";
  };
  std::string text;
  std::vector<std::size_t> reads_shown(model.num_tiles, 0);
  for (const LookbackEvent& event : model.events) {
    text += "tile " + std::to_string(event.tile);
    const std::size_t b = event.tile;
    switch (event.kind) {
      case LookbackEventKind::kPublishAggregate:
        text += " publishes aggregate " + counts_text(&tile_counts[b * digits], false);
        break;
      case LookbackEventKind::kPublishPrefix: {
        std::vector<std::uint32_t> inclusive(digits);
        for (std::size_t d = 0; d < digits; ++d)
          inclusive[d] = model.exclusive_prefixes[b * digits + d] + tile_counts[b * digits + d];
        text += " publishes prefix " + counts_text(inclusive.data(), false);
        break;
      }
      case LookbackEventKind::kRead:
      case LookbackEventKind::kWait: {
        const LookbackRead& read = model.reads[b][reads_shown[b]++];
        text += " reads tile " + std::to_string(event.predecessor) + ": " + to_string(read.flag);
        if (event.kind == LookbackEventKind::kWait)
          text += ", waits";
        else
          text += " " + counts_text(read.words.data(), true);
        break;
      }
    }
    text += "\n";
  }
  return text;
}

// ---- The tile rank as the GPU computes it: warp multi-split ------------------------------------

/// The warp multi-split rank of one tile, step by step (onesweep_kernel's rank phase).
struct WarpRankModel {
  int warps = 0;  ///< warps of the block
  /// After the warps count: warp w's keys of digit d at w * num_digits + d.
  std::vector<std::uint32_t> warp_counts;
  /// After the per-digit scan over warps: keys of digit d in warps before w, same layout.
  std::vector<std::uint32_t> warp_starts;
  std::vector<std::uint32_t> tile_counts;       ///< keys of digit d in the tile
  std::vector<std::uint32_t> tile_digit_start;  ///< exclusive scan of tile_counts
  std::vector<std::uint32_t> ranks;             ///< rank of each tile position (tile order)
};

/// Warp, step and lane of tile position \p position in the warp-striped arrangement the kernel
/// loads: warp w owns positions [w * 32K, (w + 1) * 32K), and in step i its lane l holds
/// w * 32K + 32i + l.
struct WarpSlot {
  std::uint32_t warp;  ///< the warp that holds the position
  std::uint32_t step;  ///< the load step (0 .. K-1) it is loaded in
  std::uint32_t lane;  ///< the lane that holds it
};

/// The WarpSlot of tile position \p position for \p keys_per_thread keys per thread.
/// \param position position in the tile
/// \param keys_per_thread K
inline WarpSlot warp_slot(std::size_t position, int keys_per_thread) {
  const std::size_t warp_items = 32 * static_cast<std::size_t>(keys_per_thread);
  return {static_cast<std::uint32_t>(position / warp_items),
          static_cast<std::uint32_t>(position % warp_items / 32),
          static_cast<std::uint32_t>(position % 32)};
}

/// Ranks one tile to the ranks onesweep_kernel computes: every warp, step by step, groups its
/// lanes by digit (what the kernel's lanes_with_same_digit returns), and the group's highest
/// lane adds the group's size to the warp's counter of that digit; a lane's rank in its warp is
/// the counter before plus the group's lanes below it. Then per digit the warps' counters are
/// scanned (warp starts), the tile's counts are scanned (digit starts), and rank = digit start +
/// warp start + rank in warp. (The kernel counts first and starts each warp's counters at
/// digit start + warp start, so its counters hold the final ranks at once; the sums are equal.)
/// \param digits one digit per valid tile position (fewer than threads * K for a partial tile)
/// \param threads threads per block (a multiple of 32)
/// \param keys_per_thread K
/// \param num_digits digit values
inline WarpRankModel model_warp_rank(const std::vector<std::uint32_t>& digits, int threads,
                                     int keys_per_thread, int num_digits) {
  require(threads % 32 == 0 && keys_per_thread >= 1, "model_warp_rank: whole warps, K >= 1");
  require(digits.size() <= static_cast<std::size_t>(threads) * keys_per_thread,
          "model_warp_rank: more digits than the tile holds");
  const std::size_t d_count = static_cast<std::size_t>(num_digits);
  WarpRankModel model;
  model.warps = threads / 32;
  model.warp_counts.assign(model.warps * d_count, 0);
  std::vector<std::uint32_t> in_warp(digits.size());
  for (int w = 0; w < model.warps; ++w)
    for (int i = 0; i < keys_per_thread; ++i) {
      const std::size_t first = (static_cast<std::size_t>(w) * keys_per_thread + i) * 32;
      if (first >= digits.size()) break;
      const std::size_t lanes = std::min<std::size_t>(32, digits.size() - first);
      // One step: the lanes with equal digits form a group; each reads the counter as it was.
      std::vector<std::uint32_t> counter_before(lanes), below(lanes, 0);
      for (std::size_t l = 0; l < lanes; ++l) {
        const std::uint32_t d = digits[first + l];
        require(d < d_count, "model_warp_rank: digit out of range");
        counter_before[l] = model.warp_counts[w * d_count + d];
        for (std::size_t k = 0; k < l; ++k) below[l] += digits[first + k] == d;
      }
      for (std::size_t l = 0; l < lanes; ++l) {
        in_warp[first + l] = counter_before[l] + below[l];
        ++model.warp_counts[w * d_count + digits[first + l]];  // the leader adds the group
      }
    }
  model.warp_starts.assign(model.warp_counts.size(), 0);
  model.tile_counts.assign(d_count, 0);
  for (std::size_t d = 0; d < d_count; ++d)
    for (int w = 0; w < model.warps; ++w) {
      model.warp_starts[w * d_count + d] = model.tile_counts[d];
      model.tile_counts[d] += model.warp_counts[w * d_count + d];
    }
  model.tile_digit_start.assign(d_count, 0);
  for (std::size_t d = 1; d < d_count; ++d)
    model.tile_digit_start[d] = model.tile_digit_start[d - 1] + model.tile_counts[d - 1];
  model.ranks.resize(digits.size());
  for (std::size_t p = 0; p < digits.size(); ++p) {
    const WarpSlot slot = warp_slot(p, keys_per_thread);
    model.ranks[p] = model.tile_digit_start[digits[p]] +
                     model.warp_starts[slot.warp * d_count + digits[p]] + in_warp[p];
  }
  return model;
}

// ---- (c) and (d): one pass, ranked, looked back and scattered --------------------------------

/// One pass of the model: the arrays trace_pass returns, and the look-back step by step.
template <typename Key>
struct PassModel {
  PassTrace<Key> trace;    ///< the arrays the GPU trace has too
  LookbackModel lookback;  ///< the look-back's steps (the GPU's vary from run to run)
};

namespace detail {
/// One pass whose digit starts are given (a sort takes them from the all-places histogram).
template <typename Key>
PassModel<Key> model_pass_with_starts(const std::vector<Key>& keys, int first_bit, int num_bits,
                                      bool descending, const std::vector<std::uint32_t>& starts,
                                      const LookbackSchedule* schedule, std::size_t tile_items) {
  require(tile_items >= 1, "model_pass: tile_items must be positive");
  const std::size_t n = keys.size();
  const std::size_t digits = std::size_t{1} << num_bits;
  const std::size_t tiles = (n + tile_items - 1) / tile_items;
  PassModel<Key> model;
  PassTrace<Key>& trace = model.trace;
  trace.num_tiles = static_cast<int>(tiles);
  trace.num_digits = static_cast<int>(digits);
  trace.tile_items = tile_items;
  trace.digit_starts = starts;
  trace.digits.resize(n);
  trace.histogram.assign(digits, 0);
  trace.tile_counts.assign(tiles * digits, 0);
  for (std::size_t i = 0; i < n; ++i) {
    trace.digits[i] = radix_digit(keys[i], first_bit, num_bits, descending);
    ++trace.histogram[trace.digits[i]];
    ++trace.tile_counts[(i / tile_items) * digits + trace.digits[i]];
  }

  // The look-back: every tile learns how many keys of each digit the tiles before it hold.
  model.lookback = model_lookback(trace.tile_counts, static_cast<int>(digits),
                                  schedule ? *schedule : in_order_schedule(tiles));
  trace.exclusive_prefixes = model.lookback.exclusive_prefixes;
  trace.final_status = model.lookback.final_status;

  // Rank inside the tile (stable by digit), then scatter: digit start + keys of the digit in
  // earlier tiles + keys of the digit earlier in this tile.
  trace.ranks.resize(n);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);
  // Tiles of the device's shapes (a keys-only sort's, a traced pass's) are ranked the way the
  // kernel ranks them (warp multi-split); other tile sizes (the tests' small tiles) by counting.
  const bool device_shape =
      tile_items == static_cast<std::size_t>(tile_items_for(sizeof(Key))) ||
      tile_items == static_cast<std::size_t>(trace_tile_items_for(sizeof(Key)));
  const int keys_per_thread = static_cast<int>(tile_items / kThreadsPerBlock);
  for (std::size_t b = 0; b < tiles; ++b) {
    const std::size_t first = b * tile_items, count = std::min(tile_items, n - first);
    std::vector<std::uint32_t> tile_start(digits, 0), seen(digits, 0);
    for (std::size_t d = 1; d < digits; ++d)
      tile_start[d] = tile_start[d - 1] + trace.tile_counts[b * digits + d - 1];
    std::vector<std::uint32_t> warp_ranks;
    if (device_shape)
      warp_ranks =
          model_warp_rank({trace.digits.begin() + first, trace.digits.begin() + first + count},
                          kThreadsPerBlock, keys_per_thread, static_cast<int>(digits))
              .ranks;
    for (std::size_t p = 0; p < count; ++p) {
      const std::uint32_t d = trace.digits[first + p];
      const std::uint32_t within = seen[d]++;
      trace.ranks[first + p] = device_shape ? warp_ranks[p] : tile_start[d] + within;
      const std::uint32_t destination =
          starts[d] + trace.exclusive_prefixes[b * digits + d] + within;
      trace.destinations[first + p] = destination;
      trace.keys_out[destination] = keys[first + p];
    }
  }
  return model;
}
}  // namespace detail

/// One pass on the CPU, digit bits [first_bit, first_bit + w) with w = min(num_bits, key bits -
/// first_bit): histogram and scan of this place, per-tile counts, the look-back in the order of
/// \p schedule (in order when null), ranks and the stable scatter.
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param num_bits digit width, 1 to kRadixBits
/// \param descending sort by the complemented digit
/// \param schedule order of the look-back's steps, or null for in order
/// \param tile_items keys per tile (a traced pass's by default, trace_tile_items_for(); small
///        tiles make many tiles)
template <typename Key>
PassModel<Key> model_pass(const std::vector<Key>& keys, int first_bit, int num_bits = kRadixBits,
                          bool descending = false, const LookbackSchedule* schedule = nullptr,
                          std::size_t tile_items = trace_tile_items_for(sizeof(Key))) {
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits,
          "model_pass: first_bit out of range");
  require(num_bits >= 1 && num_bits <= kRadixBits, "model_pass: num_bits must be 1..8");
  num_bits = std::min(num_bits, KeyTraits<Key>::kNumBits - first_bit);
  const DigitPlaceHistograms histograms =
      model_histograms(keys, {first_bit, first_bit + num_bits, descending}, num_bits);
  return detail::model_pass_with_starts(keys, first_bit, num_bits, descending, histograms.starts,
                                        schedule, tile_items);
}

/// How model_sort() runs each pass's look-back.
enum class ScheduleKind {
  kInOrder,          ///< in_order_schedule()
  kAggregatesFirst,  ///< aggregates_first_schedule()
  kRandom,           ///< random_schedule() with 3 steps per tile
};

/// The whole sort on the CPU as the GPU runs it: the all-places histogram from one read of the
/// input, its scans, then one pass per digit place (none skipped), each taking its digit starts
/// from that histogram.
/// \param keys input keys
/// \param options bit range and direction
/// \param tile_items keys per tile (a keys-only sort's by default)
/// \param schedule how every pass's look-back is ordered
/// \param seed seed of random schedules
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {},
                            std::size_t tile_items = tile_items_for(sizeof(Key)),
                            ScheduleKind schedule = ScheduleKind::kInOrder,
                            std::uint64_t seed = 0) {
  const SortOptions resolved = resolve<Key>(options);
  const DigitPlaceHistograms histograms = model_histograms(keys, resolved);
  const std::size_t digits = static_cast<std::size_t>(histograms.num_digits);
  const std::size_t tiles = (keys.size() + tile_items - 1) / tile_items;
  for (int place = 0; place < histograms.num_places; ++place) {
    const std::size_t width_digits = std::size_t{1} << histograms.widths[place];
    const std::vector<std::uint32_t> starts(
        histograms.starts.begin() + place * digits,
        histograms.starts.begin() + place * digits + width_digits);
    const LookbackSchedule order = schedule == ScheduleKind::kInOrder ? in_order_schedule(tiles)
                                   : schedule == ScheduleKind::kAggregatesFirst
                                       ? aggregates_first_schedule(tiles)
                                       : random_schedule(tiles, seed + place, 3 * tiles);
    keys =
        detail::model_pass_with_starts(keys, histograms.first_bits[place], histograms.widths[place],
                                       resolved.descending, starts, &order, tile_items)
            .trace.keys_out;
  }
  return keys;
}

}  // namespace sortlab::stage08
