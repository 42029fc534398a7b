/// \file
/// \brief Benchmark entry for stage 05 (packed-counter rank, upsweep / scan / downsweep device
/// sort) in the ladder: u32, i32 and f32 keys, u32 pairs, like every stage; and the digit-width
/// sweep (variants "r:6", the default, and "r:7": 128-thread blocks, 5 passes for 32-bit keys).
#include "bench/ladder.hpp"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"

namespace sortlab::bench {
namespace {

template <int kRadixBits = stage05::kRadixBits>
struct Stage05Bench {
  static constexpr stage05::Config kConfig{kRadixBits};
  static constexpr const char* kName = "stage05";
  static constexpr const char* kSummary = stage05::kSummary;
  static constexpr int kMaxLog2Size = 30;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage05::sort_keys(temp, bytes, in, out, n, {}, kConfig, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage05::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, kConfig,
                        stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage05::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes),
                                kConfig);
  }
};

}  // namespace

void register_stage05(const BenchConfig& config) {
  register_stage<Stage05Bench<>>(config);
}

void register_stage05_radix_sweep(const BenchConfig& config) {
  register_stage<Stage05Bench<6>>(config, "r:6");
  register_stage<Stage05Bench<7>>(config, "r:7");
}

}  // namespace sortlab::bench
