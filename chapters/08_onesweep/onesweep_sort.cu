/// \file
/// \brief Stage 08's bytes-moved model (bytes_moved()), the same for every key and value type,
/// so compiled once, here; the sorts and the pass trace are templates
/// (onesweep_sort_launch.cuh), instantiated once per key type in `instances/`.
#include <cstddef>

#include "chapters/08_onesweep/onesweep_sort.hpp"

namespace sortlab::stage08 {

double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes, int num_bits,
                   const Config& config) {
  validate_config(config);
  const double items = static_cast<double>(n);
  const double tuple_bytes = static_cast<double>(key_bytes + value_bytes);
  if (num_bits <= 0 || n <= 1) return 2.0 * items * tuple_bytes;  // nothing to sort: a copy
  const std::size_t tile = static_cast<std::size_t>(tile_items_for(key_bytes, value_bytes));
  const double status_bytes = 4.0 * kDigits * static_cast<double>((n + tile - 1) / tile);
  double total = items * static_cast<double>(key_bytes);  // the histograms' one read
  for (int pass = 0; pass < num_passes(num_bits, config.radix_bits); ++pass)
    total += 2.0 * items * tuple_bytes + 3.0 * status_bytes;  // clear, publish, look back
  return total;
}

}  // namespace sortlab::stage08
