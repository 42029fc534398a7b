/// \file
/// \brief Stage 02 CPU model: the steps of one GPU pass, one array each, written as the textbook
/// states them, so a test (or a student) can compare every intermediate array with the kernels'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "common/errors.hpp"
#include "common/key_traits.hpp"

namespace sortlab::stage02 {

/// One pass of the coalesced 1-bit sort on the CPU, for any tile size. The GPU's tile is fixed
/// (kTileItems); a smaller tile lets a hand-worked example show several blocks in a few keys.
/// \param keys input keys
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit
/// \param tile_items keys per block tile (at least 1)
/// \return every array of the pass, as trace_pass() returns them
template <typename Key>
PassTrace<Key> model_pass_with_tile(const std::vector<Key>& keys, int bit, bool descending,
                                    std::size_t tile_items) {
  require(tile_items > 0, "model_pass_with_tile: tile_items must be positive");
  const std::size_t n = keys.size();
  const std::size_t num_blocks = (n + tile_items - 1) / tile_items;
  PassTrace<Key> trace;
  trace.num_blocks = static_cast<int>(num_blocks);
  trace.num_buckets = kNumBuckets;
  trace.tile_items = tile_items;
  trace.digits.resize(n);
  trace.local_sorted.resize(n);
  trace.block_bucket_table.assign(kNumBuckets * num_blocks, 0);
  trace.destinations.resize(n);
  trace.keys_out.resize(n);

  // lab:begin cpu model_pass
  // lab:task Fill the arrays of the pass, tile by tile (tile b holds keys [b * tile_items,
  // lab:task (b + 1) * tile_items)): trace.digits[i], the key's bit; trace.local_sorted, each tile
  // lab:task split (its zeros, then its ones, both in input order); trace.block_bucket_table,
  // lab:task row-major by bucket (the count of digit d in tile b at d * num_blocks + b);
  // lab:task trace.scanned_table, its exclusive scan in memory order; trace.destinations[i], the
  // lab:task (digit, block) start plus the key's rank among its tile's keys of that digit; and
  // lab:task trace.keys_out[destinations[i]] = keys[i].
  // lab:stub static_cast<void>(bit);
  // lab:stub static_cast<void>(descending);
  // lab:stub trace.scanned_table.assign(trace.block_bucket_table.size(), 0);
  // The digit (bit) of every key.
  for (std::size_t i = 0; i < n; ++i) trace.digits[i] = radix_digit(keys[i], bit, 1, descending);

  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::size_t first = b * tile_items;
    const std::size_t last = first + tile_items < n ? first + tile_items : n;
    // Local split of tile b: its zeros in input order, then its ones in input order.
    std::size_t position = first;
    for (std::uint32_t d = 0; d < kNumBuckets; ++d)
      for (std::size_t i = first; i < last; ++i)
        if (trace.digits[i] == d) trace.local_sorted[position++] = keys[i];
    // Block bucket table, row-major by bucket: how many keys of tile b have digit d.
    for (std::size_t i = first; i < last; ++i)
      ++trace.block_bucket_table[trace.digits[i] * num_blocks + b];
  }

  // Exclusive scan of the table: entry (d, b) becomes the number of keys in smaller buckets, plus
  // the keys of bucket d in earlier blocks, which is where block b's bucket-d run starts.
  trace.scanned_table.resize(trace.block_bucket_table.size());
  std::uint32_t running = 0;
  for (std::size_t e = 0; e < trace.block_bucket_table.size(); ++e) {
    trace.scanned_table[e] = running;
    running += trace.block_bucket_table[e];
  }

  // Each key goes to its (bucket, block) start plus its rank among the tile's keys of its bucket.
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::size_t first = b * tile_items;
    const std::size_t last = first + tile_items < n ? first + tile_items : n;
    std::uint32_t rank_in_bucket[kNumBuckets] = {};
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t d = trace.digits[i];
      trace.destinations[i] = trace.scanned_table[d * num_blocks + b] + rank_in_bucket[d]++;
      trace.keys_out[trace.destinations[i]] = keys[i];
    }
  }
  // lab:end
  return trace;
}

/// One pass of the coalesced 1-bit sort on the CPU with the GPU's tile (kTileItems keys), the
/// same arrays trace_pass() returns.
/// \param keys input keys
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit
/// \return every array of the pass
template <typename Key>
PassTrace<Key> model_pass(const std::vector<Key>& keys, int bit, bool descending = false) {
  return model_pass_with_tile(keys, bit, descending, kTileItems);
}

/// The whole sort on the CPU: model_pass for every bit of [begin_bit, end_bit).
/// \param keys input keys
/// \param options bit range and direction
/// \return the sorted keys
template <typename Key>
std::vector<Key> model_sort(std::vector<Key> keys, const SortOptions& options = {}) {
  const SortOptions resolved = resolve<Key>(options);
  for (int bit = resolved.begin_bit; bit < resolved.end_bit; ++bit)
    keys = model_pass(keys, bit, resolved.descending).keys_out;
  return keys;
}

}  // namespace sortlab::stage02
