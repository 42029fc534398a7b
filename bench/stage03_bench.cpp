/// \file
/// \brief Benchmark entries for stage 03 (multi-bit radix sort): the default digit width, and
/// the sweep over r = 1..8 that the README's trade-off table is made from.
#include <string>

#include "bench/ladder.hpp"
#include "chapters/03_multibit_radix/multibit_radix.hpp"

namespace sortlab::bench {
namespace {

/// Stage 03 with digit width kRadixBits, in the shape register_stage() expects.
template <int kRadixBits>
struct Stage03Bench {
  static constexpr const char* kName = "stage03";
  static constexpr const char* kSummary = stage03::kSummary;
  // r = 8 is capped at 2^26: its block bucket table has 2^8 rows x n/256 columns, as many
  // entries as there are keys, so at 2^28 it adds 1 GiB of scratch and a key-sized scan per pass;
  // 2^26 already shows where the table's cost overtakes the saved passes.
  static constexpr int kMaxLog2Size = kRadixBits >= 8 ? 26 : 28;
  static constexpr stage03::Config config() { return stage03::Config{kRadixBits}; }
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage03::sort_keys(temp, bytes, in, out, n, {}, config(), stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage03::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, config(),
                        stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage03::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes),
                                config());
  }
};

template <int kRadixBits>
void register_radix(const BenchConfig& config) {
  register_stage<Stage03Bench<kRadixBits>>(config, "r:" + std::to_string(kRadixBits));
}

}  // namespace

void register_stage03(const BenchConfig& config) {
  register_stage<Stage03Bench<stage03::kDefaultRadixBits>>(config);
}

void register_stage03_radix_sweep(const BenchConfig& config) {
  register_radix<1>(config);
  register_radix<2>(config);
  register_radix<3>(config);
  register_radix<4>(config);
  register_radix<5>(config);
  register_radix<6>(config);
  register_radix<7>(config);
  register_radix<8>(config);
}

}  // namespace sortlab::bench
