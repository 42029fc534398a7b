/// \file
/// \brief Stage 03 CPU model: one pass written as the textbook states the steps, one array per
/// step, so a test (or a student) can compare every intermediate array with the kernels'.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

namespace sortlab::stage03 {

/// One pass of the multi-bit radix sort on the CPU for any tile size, digit bits
/// [first_bit, first_bit + w) with w = min(r, key bits - first_bit). The GPU's tile is fixed
/// (kTileItems); a smaller tile lets a hand-worked example show several blocks in a few keys.
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param config digit width r
/// \param descending sort by the complemented digit
/// \param tile_items keys per block tile (at least 1)
/// \return every array of the pass, as trace_pass returns them
template <typename Key>
PassTrace<Key> model_pass_with_tile(const std::vector<Key>& keys, int first_bit,
                                    const Config& config, bool descending, std::size_t tile_items) {
  validate_config(config);
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits,
          "model_pass: first_bit out of range");
  require(tile_items > 0, "model_pass_with_tile: tile_items must be positive");
  const int num_bits = std::min(config.radix_bits, KeyTraits<Key>::kNumBits - first_bit);
  const std::size_t n = keys.size();
  const std::size_t tile = tile_items;
  const std::size_t num_blocks = (n + tile - 1) / tile;
  const std::size_t num_buckets = std::size_t{1} << num_bits;

  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(num_blocks);
  trace.num_buckets = static_cast<int>(num_buckets);
  trace.tile_items = tile;
  trace.local_sorted.resize(n);
  trace.block_bucket_table.assign(num_buckets * num_blocks, 0);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);

  // lab:begin cpu model_pass
  // lab:task Fill the arrays of the pass (tile b holds keys [b * tile, (b + 1) * tile)):
  // lab:task trace.digits[i], the key's num_bits-bit digit at first_bit; trace.block_bucket_table,
  // lab:task row-major by bucket (the count of digit d in tile b at d * num_blocks + b);
  // lab:task trace.scanned_table, its exclusive scan in memory order; trace.local_sorted, each
  // lab:task tile sorted stably by digit (num_bits rounds of the 1-bit split); trace.destinations,
  // lab:task scanned_table[d * num_blocks + b] plus the key's rank among its tile's keys of digit
  // lab:task d; and trace.keys_out[destinations[i]] = keys[i].
  // lab:stub static_cast<void>(descending);
  // lab:stub trace.digits.assign(n, 0);
  // lab:stub trace.scanned_table.assign(trace.block_bucket_table.size(), 0);
  // The digit of every key.
  trace.digits.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    trace.digits[i] = radix_digit(keys[i], first_bit, num_bits, descending);

  // Count: block b's histogram is column b of the table, row-major by bucket.
  for (std::size_t i = 0; i < n; ++i)
    ++trace.block_bucket_table[trace.digits[i] * num_blocks + i / tile];

  // Scan: exclusive sum over the whole table, in memory order (bucket 0 of every block first).
  trace.scanned_table.resize(trace.block_bucket_table.size());
  std::exclusive_scan(trace.block_bucket_table.begin(), trace.block_bucket_table.end(),
                      trace.scanned_table.begin(), std::uint32_t{0});

  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::size_t first = b * tile;
    const std::size_t tile_n = std::min(tile, n - first);
    // Local split: the tile's input positions, split once per digit bit, lowest bit first.
    // Each split keeps the zeros in order, then the ones in order (stable).
    std::vector<std::size_t> order(tile_n);
    std::iota(order.begin(), order.end(), first);
    for (int bit = 0; bit < num_bits; ++bit)
      std::stable_partition(order.begin(), order.end(),
                            [&](std::size_t i) { return ((trace.digits[i] >> bit) & 1u) == 0; });
    // Local bucket starts: exclusive scan of the block's counts (column b of the table).
    std::vector<std::uint32_t> local_start(num_buckets);
    std::uint32_t running = 0;
    for (std::size_t d = 0; d < num_buckets; ++d) {
      local_start[d] = running;
      running += trace.block_bucket_table[d * num_blocks + b];
    }
    // Scatter: local key t goes to the global start of (d, b) plus its rank within bucket d.
    for (std::size_t t = 0; t < tile_n; ++t) {
      const std::size_t i = order[t];
      const std::uint32_t d = trace.digits[i];
      const std::uint32_t destination = trace.scanned_table[d * num_blocks + b] +
                                        (static_cast<std::uint32_t>(t) - local_start[d]);
      trace.local_sorted[first + t] = keys[i];
      trace.destinations[i] = destination;
      trace.keys_out[destination] = keys[i];
    }
  }
  // lab:end
  return trace;
}

/// One pass of the multi-bit radix sort on the CPU with the GPU's tile (kTileItems keys). Same
/// arguments and result as trace_pass: digit bits [first_bit, first_bit + w) with
/// w = min(r, key bits - first_bit).
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param config digit width r
/// \param descending sort by the complemented digit
/// \return every array of the pass, as trace_pass returns them
template <typename Key>
PassTrace<Key> model_pass(const std::vector<Key>& keys, int first_bit, const Config& config = {},
                          bool descending = false) {
  return model_pass_with_tile(keys, first_bit, config, descending, kTileItems);
}

/// The whole sort on the CPU: model_pass for every digit of [begin_bit, end_bit), the last one
/// narrower when r does not divide the bit range.
/// \param keys input keys
/// \param options bit range and direction
/// \param config digit width r
/// \return the sorted keys
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {},
                            const Config& config = {}) {
  validate_config(config);
  const SortOptions resolved = resolve<Key>(options);
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; bit += config.radix_bits) {
    // model_pass takes the width min(r, key bits - bit); a window that ends early is sorted by
    // passing only its bits through a narrowed config.
    const Config pass_config{std::min(config.radix_bits, resolved.end_bit - bit)};
    keys = model_pass(keys, bit, pass_config, resolved.descending).keys_out;
  }
  return keys;
}

}  // namespace sortlab::stage03
