/// \file
/// \brief What every sort test varies: sizes (with tile boundaries), seeds, distributions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace sortlab::testing {

/// A 16-byte value that is not an integer: four 32-bit words, so it is only 4-byte aligned while
/// the sorts move it as a 16-byte word (the suite's struct value; its arrays come from
/// cudaMalloc, hence 16-byte aligned).
struct SixteenByteValue {
  std::uint32_t words[4];  ///< the payload
};

/// Largest n a test may use: SORTLAB_TEST_MAX_N from the environment (compute-sanitizer runs set
/// it low, since memcheck and racecheck slow kernels down a hundredfold), else 2^24.
inline std::size_t max_test_n() {
  if (const char* text = std::getenv("SORTLAB_TEST_MAX_N")) return std::strtoull(text, nullptr, 0);
  return std::size_t{1} << 24;
}

/// Keeps the sizes not above max_test_n().
inline std::vector<std::size_t> capped(std::vector<std::size_t> sizes) {
  std::vector<std::size_t> kept;
  for (std::size_t n : sizes)
    if (n <= max_test_n()) kept.push_back(n);
  return kept;
}

/// The sizes the issues require: 0, 1, 2, 31, 32, 33, 1000, 2^16+1, plus the sizes around one,
/// two and three tiles of \p tile_items, where off-by-one errors live.
inline std::vector<std::size_t> small_sizes(std::size_t tile_items) {
  std::vector<std::size_t> sizes = {0, 1, 2, 31, 32, 33, 1000, (1u << 16) + 1};
  for (std::size_t tiles : {1, 2, 3})
    for (std::size_t n : {tiles * tile_items - 1, tiles * tile_items, tiles * tile_items + 1})
      sizes.push_back(n);
  return capped(sizes);
}

/// Large sizes: 2^20 and 2^24 (cut by SORTLAB_TEST_MAX_N).
inline std::vector<std::size_t> large_sizes() {
  return capped({std::size_t{1} << 20, std::size_t{1} << 24});
}

/// Seed for this test run: SORTLAB_TEST_SEED if set (to replay a failure), else fresh.
/// Tests print it with every failure.
inline std::uint64_t test_seed() {
  if (const char* text = std::getenv("SORTLAB_TEST_SEED")) return std::strtoull(text, nullptr, 0);
  static const std::uint64_t fresh =
      (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  return fresh;
}

/// A label for SCOPED_TRACE: "n=1000 dist=uniform seed=123 (replay: SORTLAB_TEST_SEED=123)".
inline std::string case_label(std::size_t n, const std::string& distribution, std::uint64_t seed) {
  return "n=" + std::to_string(n) + " dist=" + distribution + " seed=" + std::to_string(seed) +
         " (replay with SORTLAB_TEST_SEED=" + std::to_string(seed) + ")";
}

}  // namespace sortlab::testing
