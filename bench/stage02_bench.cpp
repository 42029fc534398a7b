/// \file
/// \brief Benchmark entry for stage 02 (shared-memory coalesced 1-bit sort). Runs up to 2^28
/// keys, the largest size of the ladder: 32 passes are still slow, but no longer so slow that
/// the biggest size would dominate `make table`.
#include "bench/ladder.hpp"
#include "chapters/02_coalesced_sort/coalesced_sort.hpp"

namespace sortlab::bench {
namespace {
struct Stage02Bench {
  static constexpr const char* kName = "stage02";
  static constexpr const char* kSummary = stage02::kSummary;
  static constexpr int kMaxLog2Size = 28;
  template <typename Key>
  static void sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                        cudaStream_t stream) {
    stage02::sort_keys(temp, bytes, in, out, n, {}, stream);
  }
  template <typename Key>
  static void sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                         cudaStream_t stream) {
    stage02::sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, {}, stream);
  }
  static double bytes_moved(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    return stage02::bytes_moved(n, key_bytes, value_bytes, static_cast<int>(8 * key_bytes));
  }
};
}  // namespace

void register_stage02(const BenchConfig& config) {
  register_stage<Stage02Bench>(config);
}

}  // namespace sortlab::bench
