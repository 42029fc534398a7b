/// \file
/// \brief Benchmark entries for stage 04 (thread-coarsened multi-bit radix sort): the default
/// configuration, the keys-per-thread sweep (variant "kpt:K", r fixed at the default 4) that
/// fills the README's table of throughput against K, and the digit-width sweep at the default K
/// (variant "r:R"), which asks whether coarsening moves the best r away from stage 03's.
#include <string>

#include "bench/ladder.hpp"
#include "chapters/04_coarsened_radix/coarsened_radix.hpp"

namespace sortlab::bench {
namespace {

/// Stage 04 with keys_per_thread = kKeysPerThread and radix_bits = kRadixBits.
template <int kKeysPerThread, int kRadixBits = stage04::kDefaultRadixBits>
struct Stage04Bench {
  static constexpr const char* kName = "stage04";
  static constexpr const char* kSummary = stage04::kSummary;
  // Every K runs to 2^28: even K = 1 keeps the table at 16 entries per 256 keys (64 MiB).
  static constexpr int kMaxLog2Size = 28;
  static constexpr stage04::Config kConfig{kRadixBits, kKeysPerThread};
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage04::sort_keys(temp, bytes, in, out, n, {}, kConfig, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage04::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, kConfig,
                        stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage04::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes),
                                kConfig);
  }
};

template <int kKeysPerThread>
void register_keys_per_thread(const BenchConfig& config) {
  register_stage<Stage04Bench<kKeysPerThread>>(config, "kpt:" + std::to_string(kKeysPerThread));
}

template <int kRadixBits>
void register_radix_bits(const BenchConfig& config) {
  register_stage<Stage04Bench<stage04::kDefaultKeysPerThread, kRadixBits>>(
      config, "r:" + std::to_string(kRadixBits));
}

}  // namespace

void register_stage04(const BenchConfig& config) {
  register_stage<Stage04Bench<stage04::kDefaultKeysPerThread>>(config);
}

void register_stage04_coarsening_sweep(const BenchConfig& config) {
  static_assert(sizeof(stage04::kSupportedKeysPerThread) / sizeof(int) == 5,
                "the sweep lists every supported keys-per-thread value");
  register_keys_per_thread<1>(config);
  register_keys_per_thread<2>(config);
  register_keys_per_thread<4>(config);
  register_keys_per_thread<8>(config);
  register_keys_per_thread<16>(config);
}

void register_stage04_radix_sweep(const BenchConfig& config) {
  register_radix_bits<3>(config);
  register_radix_bits<4>(config);
  register_radix_bits<5>(config);
  register_radix_bits<6>(config);
  register_radix_bits<7>(config);
  register_radix_bits<8>(config);
}

}  // namespace sortlab::bench
