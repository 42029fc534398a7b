/// \file
/// \brief The baselines' shared helpers and register_baselines().
#include <algorithm>

#include "bench/table/baselines.hpp"

namespace sortlab::bench {

namespace detail {

bool wants_u32(const BenchConfig& config, bool pairs) {
  const bool has_u32 =
      std::find(config.key_types.begin(), config.key_types.end(), "u32") != config.key_types.end();
  return has_u32 && (pairs ? config.pairs : config.keys);
}

double floor_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(key_bytes + value_bytes);
}

}  // namespace detail

void register_baselines(const BenchConfig& config) {
  register_thrust_sort(config);
  register_thrust_sort_by_key(config);
  register_cub_segmented_radix_sort(config);
  register_cub_segmented_sort(config);
}

}  // namespace sortlab::bench
