/// \file
/// \brief Stage 04 CPU model: one pass written plainly as the textbook states its steps, one
/// array per step, so a test (or a student) can compare every intermediate array with the GPU's.
///
/// Keys per thread only changes the tile size (256 * K keys) as far as the arrays are concerned:
/// the model has no threads, it works tile by tile.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

namespace sortlab::stage04 {

/// One pass of the coarsened multi-bit radix sort on the CPU for a tile of any number of threads,
/// digit bits [first_bit, first_bit + w) with w = min(r, key bits - first_bit). The GPU's tile is
/// kThreadsPerBlock * K keys; a tile of a few threads lets a hand-worked example show several
/// blocks, and the K keys of each thread, in a few keys.
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param config digit width r and keys per thread K
/// \param descending sort by the complemented digit
/// \param tile_items keys per block tile: threads per block * K, so a positive multiple of K
/// \return every array of the pass, as trace_pass returns them
template <typename Key>
PassTrace<Key> model_pass_with_tile(const std::vector<Key>& keys, int first_bit,
                                    const Config& config, bool descending, std::size_t tile_items) {
  validate_config(config);
  require(first_bit >= 0 && first_bit < KeyTraits<Key>::kNumBits,
          "model_pass: first_bit out of range");
  require(tile_items > 0 && tile_items % static_cast<std::size_t>(config.keys_per_thread) == 0,
          "model_pass_with_tile: tile_items = " + std::to_string(tile_items) +
              " is not a positive multiple of keys_per_thread = " +
              std::to_string(config.keys_per_thread));
  const int num_bits = std::min(config.radix_bits, KeyTraits<Key>::kNumBits - first_bit);
  const std::size_t n = keys.size();
  const std::size_t tile = tile_items;
  const std::size_t num_blocks = (n + tile - 1) / tile;
  const std::size_t num_buckets = std::size_t{1} << num_bits;

  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(num_blocks);
  trace.num_buckets = static_cast<int>(num_buckets);
  trace.tile_items = tile;

  // lab:begin cpu model_pass
  // lab:task Fill the arrays of the pass (tile b holds keys [b * tile, (b + 1) * tile), where the
  // lab:task tile is 256 * K keys): trace.digits[i]; trace.block_bucket_table, row-major by bucket
  // lab:task (count of digit d in tile b at d * num_blocks + b); trace.scanned_table, its exclusive
  // lab:task scan in memory order; trace.local_sorted, each tile sorted stably by digit
  // lab:task (num_bits rounds of the 1-bit split); trace.destinations[i],
  // lab:task scanned_table[d * num_blocks + b] + (the key's position in the sorted tile - where
  // lab:task digit d starts in it); and trace.keys_out[destinations[i]] = keys[i].
  // lab:stub static_cast<void>(descending);
  // lab:stub trace.digits.assign(n, 0);
  // lab:stub trace.block_bucket_table.assign(num_buckets * num_blocks, 0);
  // lab:stub trace.scanned_table.assign(num_buckets * num_blocks, 0);
  // lab:stub trace.local_sorted.assign(n, Key{});
  // lab:stub trace.destinations.assign(n, 0);
  // lab:stub trace.keys_out.assign(n, Key{});
  // Step 1 (count kernel): the digit of every key, and the block bucket table, row-major by
  // bucket: the count of digit d in tile b at d * num_blocks + b.
  trace.digits.resize(n);
  trace.block_bucket_table.assign(num_buckets * num_blocks, 0);
  for (std::size_t i = 0; i < n; ++i) {
    trace.digits[i] = radix_digit(keys[i], first_bit, num_bits, descending);
    ++trace.block_bucket_table[trace.digits[i] * num_blocks + i / tile];
  }

  // Step 2 (scan): exclusive scan of the whole table, in row-major order. Entry (d, b) becomes
  // the first output position of tile b's keys with digit d.
  trace.scanned_table.resize(trace.block_bucket_table.size());
  std::uint32_t running = 0;
  for (std::size_t e = 0; e < trace.block_bucket_table.size(); ++e) {
    trace.scanned_table[e] = running;
    running += trace.block_bucket_table[e];
  }

  // Step 3 (scatter kernel), tile by tile.
  trace.local_sorted.resize(n);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::size_t first = b * tile;
    const std::size_t count = std::min(tile, n - first);
    // Local split: w rounds of the 1-bit split, lowest digit bit first. Each round puts the keys
    // with bit 0 first and the keys with bit 1 after them, both in their current order.
    // `order` holds input indices, so we know where every key came from.
    std::vector<std::size_t> order(count);
    for (std::size_t p = 0; p < count; ++p) order[p] = first + p;
    for (int bit = 0; bit < num_bits; ++bit) {
      std::vector<std::size_t> zeros, ones;
      for (std::size_t index : order)
        (radix_digit(keys[index], first_bit + bit, 1, descending) == 0 ? zeros : ones)
            .push_back(index);
      order = zeros;
      order.insert(order.end(), ones.begin(), ones.end());
    }
    // Where each digit starts inside the sorted tile: exclusive scan of the tile's counts.
    std::vector<std::uint32_t> local_start(num_buckets);
    std::uint32_t tile_running = 0;
    for (std::size_t d = 0; d < num_buckets; ++d) {
      local_start[d] = tile_running;
      tile_running += trace.block_bucket_table[d * num_blocks + b];
    }
    // Coalesced scatter: the key at local position p with digit d goes to
    // scanned_table[d * num_blocks + b] + (p - local_start[d]).
    for (std::size_t p = 0; p < count; ++p) {
      const std::size_t index = order[p];
      const std::uint32_t d = trace.digits[index];
      const std::uint32_t destination = trace.scanned_table[d * num_blocks + b] +
                                        (static_cast<std::uint32_t>(p) - local_start[d]);
      trace.local_sorted[first + p] = keys[index];
      trace.destinations[index] = destination;
      trace.keys_out[destination] = keys[index];
    }
  }
  // lab:end
  return trace;
}

/// One pass of the coarsened multi-bit radix sort on the CPU with the GPU's tile
/// (kThreadsPerBlock * K keys), digit bits [first_bit, first_bit + w) with
/// w = min(r, key bits - first_bit).
/// \param keys input keys
/// \param first_bit lowest bit of the digit, 0 to key bits - 1
/// \param config digit width r and keys per thread K (the tile is 256 * K keys)
/// \param descending sort by the complemented digit
/// \return every array of the pass, as trace_pass returns them
template <typename Key>
PassTrace<Key> model_pass(const std::vector<Key>& keys, int first_bit, const Config& config = {},
                          bool descending = false) {
  return model_pass_with_tile(keys, first_bit, config, descending, tile_items(config));
}

/// The whole sort on the CPU: model_pass for every r-bit digit of [begin_bit, end_bit), the last
/// one narrower when r does not divide the range.
/// \param keys input keys
/// \param options bit range and direction
/// \param config digit width r and keys per thread K
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {},
                            const Config& config = {}) {
  validate_config(config);
  const SortOptions resolved = resolve<Key>(options);
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; bit += config.radix_bits) {
    // model_pass sorts by min(r, key bits - bit) bits; narrow it to end_bit when needed.
    Config pass_config = config;
    pass_config.radix_bits = std::min(config.radix_bits, resolved.end_bit - bit);
    keys = model_pass(keys, bit, pass_config, resolved.descending).keys_out;
  }
  return keys;
}

}  // namespace sortlab::stage04
