/// \file
/// \brief Benchmark entry for stage 01 (1-bit scan sort), up to 2^28 keys like every stage, so
/// that stage 02's step over stage 01 is measured at 2^28 too (a sort takes ~0.15 s there).
#include "bench/ladder.hpp"
#include "chapters/01_scan_sort/scan_sort.hpp"

namespace sortlab::bench {
namespace {
struct Stage01Bench {
  static constexpr const char* kName = "stage01";
  static constexpr const char* kSummary = stage01::kSummary;
  static constexpr int kMaxLog2Size = 28;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage01::sort_keys(temp, bytes, in, out, n, {}, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage01::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage01::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes));
  }
};
}  // namespace

void register_stage01(const BenchConfig& config) {
  register_stage<Stage01Bench>(config);
}

}  // namespace sortlab::bench
