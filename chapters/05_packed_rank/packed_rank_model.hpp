/// \file
/// \brief Stage 05 CPU model: the packed-counter rank of one tile and one pass of the device sort,
/// written plainly, one array per step, so that a test (or a student) can compare every
/// intermediate array with the GPU's (trace_pass) and see a carry cross a packed field.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

namespace sortlab::stage05 {

/// The rank of one tile, step by step.
struct RankModel {
  int lanes = 0;            ///< counter words per thread
  int fields_per_word = 0;  ///< counters per word
  /// Packed words after the increment pass: word (lane l, thread t) at l * threads + t; field f
  /// (bits f*counter_bits ...) counts thread t's keys with digit f * lanes + l.
  std::vector<std::uint32_t> before_scan;
  /// Exclusive scan of the words in memory order (lane-major), before the carry: field f of a
  /// word counts the field-f digits before it.
  std::vector<std::uint32_t> scanned;
  std::uint32_t block_total = 0;          ///< sum of all words: field f holds the total of field f
  std::uint32_t carry = 0;                ///< field f receives total_0 + ... + total_(f-1)
  std::vector<std::uint32_t> after_scan;  ///< scanned + carry: what the ranks read
  std::vector<std::uint32_t> ranks;       ///< rank of each tile position (blocked: t*K + i)
};

/// The packed-counter rank of one tile of \p digits (tile order = blocked order: thread t holds
/// positions t*K .. t*K+K-1), as the GPU computes it.
/// \param digits one digit per tile position (threads * keys_per_thread of them)
/// \param threads threads per block
/// \param keys_per_thread K
/// \param radix_bits digit width r
/// \param counter_bits packed counter width (8 or 16)
inline RankModel model_packed_rank(const std::vector<std::uint32_t>& digits, int threads,
                                   int keys_per_thread, int radix_bits, int counter_bits = 16) {
  require(counter_bits == 8 || counter_bits == 16, "model_packed_rank: counters of 8 or 16 bits");
  require(digits.size() == static_cast<std::size_t>(threads) * keys_per_thread,
          "model_packed_rank: one digit per tile position");
  require(static_cast<long>(digits.size()) < (1L << counter_bits),
          "model_packed_rank: the tile could overflow a counter");
  RankModel model;
  const int log_fields = counter_bits == 16 ? 1 : 2;
  const int log_lanes = std::max(0, radix_bits - log_fields);
  model.lanes = 1 << log_lanes;
  model.fields_per_word = 32 / counter_bits;
  const std::uint32_t counter_mask = (1u << counter_bits) - 1u;
  const auto lane_of = [&](std::uint32_t digit) { return digit & (model.lanes - 1u); };
  const auto shift_of = [&](std::uint32_t digit) { return (digit >> log_lanes) * counter_bits; };
  const auto word_of = [&](std::uint32_t lane, int thread) {
    return static_cast<std::size_t>(lane) * threads + thread;
  };

  // Increment pass: every thread counts its own keys in its own column.
  std::vector<std::uint32_t> words(static_cast<std::size_t>(model.lanes) * threads, 0);
  std::vector<std::uint32_t> earlier_in_thread(digits.size());
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < keys_per_thread; ++i) {
      const std::size_t position = static_cast<std::size_t>(t) * keys_per_thread + i;
      std::uint32_t& word = words[word_of(lane_of(digits[position]), t)];
      earlier_in_thread[position] = (word >> shift_of(digits[position])) & counter_mask;
      word += 1u << shift_of(digits[position]);
    }
  model.before_scan = words;

  // One exclusive scan over the words in memory order, adding all fields at once.
  model.scanned.resize(words.size());
  std::uint32_t running = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    model.scanned[w] = running;
    running += words[w];
  }
  model.block_total = running;
  // The carry between fields: field f also counts every key of fields 0 .. f-1.
  for (int shift = 1; shift < model.fields_per_word; ++shift)
    model.carry += model.block_total << (shift * counter_bits);
  model.after_scan.resize(words.size());
  for (std::size_t w = 0; w < words.size(); ++w)
    model.after_scan[w] = model.scanned[w] + model.carry;

  // Ranks: the scanned counter of the key's digit in its thread's column, plus the keys with the
  // same digit before it in that thread.
  model.ranks.resize(digits.size());
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < keys_per_thread; ++i) {
      const std::size_t position = static_cast<std::size_t>(t) * keys_per_thread + i;
      const std::uint32_t word = model.after_scan[word_of(lane_of(digits[position]), t)];
      model.ranks[position] =
          ((word >> shift_of(digits[position])) & counter_mask) + earlier_in_thread[position];
    }
  return model;
}

/// One pass of the device sort on the CPU, digit bits [first_bit, first_bit + w) with
/// w = min(num_bits, key bits - first_bit); the same arrays trace_pass returns.
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param num_bits digit width, 1 to kRadixBits
/// \param descending sort by the complemented digit
template <typename Key>
PassTrace<Key> model_pass(const std::vector<Key>& keys, int first_bit, int num_bits = kRadixBits,
                          bool descending = false) {
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits,
          "model_pass: first_bit out of range");
  require(num_bits >= 1 && num_bits <= kRadixBits, "model_pass: num_bits must be 1..6");
  num_bits = std::min(num_bits, KeyTraits<Key>::kNumBits - first_bit);
  const std::size_t n = keys.size();
  const int threads = kThreadsPerBlock;
  const int keys_per_thread = keys_per_thread_for(sizeof(Key));
  const std::size_t tile = static_cast<std::size_t>(threads) * keys_per_thread;
  const std::size_t num_blocks = (n + tile - 1) / tile;
  const std::size_t num_digits = std::size_t{1} << num_bits;

  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(num_blocks);
  trace.num_digits = static_cast<int>(num_digits);
  trace.tile_items = tile;
  trace.threads = threads;
  trace.keys_per_thread = keys_per_thread;

  // Upsweep: each key's digit and the block bucket table, row-major by digit.
  trace.digits.resize(n);
  trace.block_bucket_table.assign(num_digits * num_blocks, 0);
  for (std::size_t i = 0; i < n; ++i) {
    trace.digits[i] = radix_digit(keys[i], first_bit, num_bits, descending);
    ++trace.block_bucket_table[trace.digits[i] * num_blocks + i / tile];
  }
  // Scan: entry (d, b) becomes the first output position of tile b's keys with digit d.
  trace.scanned_table.resize(trace.block_bucket_table.size());
  std::uint32_t running = 0;
  for (std::size_t e = 0; e < trace.block_bucket_table.size(); ++e) {
    trace.scanned_table[e] = running;
    running += trace.block_bucket_table[e];
  }

  // Downsweep, tile by tile: rank, local scatter, global scatter.
  trace.ranks.resize(n);
  trace.local_sorted.resize(n);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::size_t first = b * tile;
    const std::size_t count = std::min(tile, n - first);
    // Positions past the end of a partial tile get the largest digit (they rank last).
    std::vector<std::uint32_t> tile_digits(tile, static_cast<std::uint32_t>(kDigits - 1));
    for (std::size_t p = 0; p < count; ++p) tile_digits[p] = trace.digits[first + p];
    const RankModel rank =
        model_packed_rank(tile_digits, threads, keys_per_thread, kRadixBits, kCounterBits);
    trace.lanes = rank.lanes;
    trace.fields_per_word = rank.fields_per_word;
    trace.counters.push_back(TileCounters{rank.before_scan, rank.after_scan, rank.carry});
    // Where each digit starts inside the ranked tile.
    std::vector<std::uint32_t> local_start(num_digits, 0);
    for (std::size_t d = 1; d < num_digits; ++d)
      local_start[d] = local_start[d - 1] + trace.block_bucket_table[(d - 1) * num_blocks + b];
    for (std::size_t p = 0; p < count; ++p) {
      const std::uint32_t r = rank.ranks[p];
      const std::uint32_t d = trace.digits[first + p];
      const std::uint32_t destination =
          trace.scanned_table[d * num_blocks + b] + (r - local_start[d]);
      trace.ranks[first + p] = r;
      trace.local_sorted[first + r] = keys[first + p];
      trace.destinations[first + p] = destination;
      trace.keys_out[destination] = keys[first + p];
    }
  }
  return trace;
}

/// The whole sort on the CPU: model_pass for every r-bit digit of [begin_bit, end_bit), skipping
/// the passes whose digit is the same for every key (as the GPU does; it changes nothing).
/// \param keys input keys
/// \param options bit range and direction
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {}) {
  const SortOptions resolved = resolve<Key>(options);
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; bit += kRadixBits) {
    const int width = std::min(kRadixBits, resolved.end_bit - bit);
    bool trivial = true;
    for (const Key& key : keys)
      trivial =
          trivial && radix_digit(key, bit, width, false) == radix_digit(keys[0], bit, width, false);
    if (trivial) continue;
    keys = model_pass(keys, bit, width, resolved.descending).keys_out;
  }
  return keys;
}

}  // namespace sortlab::stage05
