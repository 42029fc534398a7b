/// \file
/// \brief Benchmark entry for stage 08 (onesweep: every digit histogram in one read, one kernel
/// per 8-bit digit place with decoupled look-back) in the ladder: u32, i32 and f32 keys, u32
/// pairs, like every stage.
#include "bench/device_vs_cub.hpp"
#include "bench/ladder.hpp"
#include "chapters/08_onesweep/onesweep_sort.hpp"

namespace sortlab::bench {
namespace {

struct Stage08Bench {
  static constexpr const char* kName = "stage08";
  static constexpr const char* kSummary = stage08::kSummary;
  static constexpr int kMaxLog2Size = 30;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage08::sort_keys(temp, bytes, in, out, n, {}, {}, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage08::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, {}, stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage08::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes));
  }
};

/// Stage 08's device sort for device_vs_cub.hpp.
struct Stage08Sorter {
  static constexpr const char* kName = "stage08";
  template <typename Key, typename Value>
  static void sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                   const Value* values_in, Value* values_out, std::size_t n, cudaStream_t stream) {
    if constexpr (std::is_same_v<Value, NoValues>)
      stage08::sort_keys(temp, bytes, keys_in, keys_out, n, {}, {}, stream);
    else
      stage08::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, {}, stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                            int num_bits) {
    return stage08::bytes_moved(n, key_bytes, value_bytes, num_bits);
  }
};

}  // namespace

void register_stage08(const BenchConfig& config) {
  register_stage<Stage08Bench>(config);
}

void register_stage08_vs_cub(const BenchConfig& config) {
  register_device_comparison<Stage08Sorter>(config);
}

}  // namespace sortlab::bench
