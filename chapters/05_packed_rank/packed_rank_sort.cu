/// \file
/// \brief Stage 05's bytes-moved model (bytes_moved()), the same for every key and value type,
/// so compiled once, here; the sorts and the pass trace are templates
/// (packed_rank_sort_launch.cuh), instantiated once per key type in `instances/`.
#include <cstddef>

#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/device_scan.hpp"

namespace sortlab::stage05 {

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config) {
  validate_config(config);
  const double items = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0 || n <= 1) return 2.0 * items * tuple_bytes;  // nothing to sort: a copy
  const std::size_t tile =
      static_cast<std::size_t>(tile_items_for(key_bytes, config.radix_bits, value_bytes));
  const std::size_t entries = (std::size_t{1} << config.radix_bits) * ((n + tile - 1) / tile);
  const double table_bytes = 4.0 * static_cast<double>(entries);
  double total = items * static_cast<double>(key_bytes);  // the survey
  for (int pass = 0; pass < num_passes(num_bits, config.radix_bits); ++pass) {
    total += items * static_cast<double>(key_bytes) + table_bytes;  // upsweep
    total += device_exclusive_sum_bytes(entries);                   // scan of the table
    total += 2.0 * items * tuple_bytes + table_bytes;               // downsweep
  }
  return total;
}

}  // namespace sortlab::stage05
