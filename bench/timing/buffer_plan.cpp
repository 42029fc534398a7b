/// \file
/// \brief Implementation of the buffer plan.
#include "bench/timing/buffer_plan.hpp"

#include <algorithm>
#include <cmath>

namespace sortlab::bench::timing {

std::size_t rotating_buffer_count(std::size_t bytes_per_input, std::size_t l2_bytes,
                                  std::size_t memory_budget_bytes) {
  const std::size_t per_input = std::max<std::size_t>(bytes_per_input, 1);
  const auto wanted_bytes =
      static_cast<std::size_t>(std::ceil(kRotatingL2Multiple * static_cast<double>(l2_bytes)));
  // One more than "just reaches": the inputs must exceed the multiple, not equal it.
  const std::size_t wanted = wanted_bytes / per_input + 1;
  const std::size_t affordable = memory_budget_bytes / per_input;
  return std::max<std::size_t>(1, std::min(wanted, affordable));
}

std::size_t l2_flush_bytes(std::size_t l2_bytes) {
  return kFlushL2Multiple * l2_bytes;
}

std::size_t copy_floor_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
  return n * (key_bytes + value_bytes);
}

double copies_worth(double sort_ms, double copy_ms) {
  return copy_ms > 0.0 ? sort_ms / copy_ms : 0.0;
}

}  // namespace sortlab::bench::timing
