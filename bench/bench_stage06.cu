/// \file
/// \brief Stage 06 benchmark program: the segmented sort against CUB's DeviceSegmentedSort and
/// DeviceSegmentedRadixSort on the same segments (equal segments of 8 to 2^20 keys, variants
/// "seg:S", and a power-law mix of 8 to 2^22 keys, "seg:powerlaw"), pairs of f32 keys and u32
/// values as issue 17 measures them, with the copy floor. Every row carries its segments'
/// counters (segments, smallest_segment, largest_segment) for the results table.
/// Example: `bench_stage06 --sizes=26 --types=f32 --pairs=1` (2^26 pairs in all).
///
/// `--set=bins` runs the bin sweep instead: stage 06 alone on equal segments at both edges of
/// every bin from 2 to 2048 keys (2^b and 2^(b-1) + 1 keys), each sorted by its own bin and by
/// the next two (sort_pairs_with_min_bin(), entry "stage06-bins", variant "seg:S/bin:B"): the
/// measurement behind the bin edges. Example: `bench_stage06 --set=bins --sizes=24 --pairs=1`.
/// Part of `make table` (bench/table/make_table.sh): results_table.py makes stage 06's page of it.
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/ladder.hpp"
#include "chapters/06_segmented_sort/segmented_sort.hpp"
#include "chapters/06_segmented_sort/sort_rows.hpp"
#include "common/device_buffer.hpp"
#include "common/errors.hpp"
#include "common/gpu_detect.hpp"

namespace sortlab::bench {
namespace {

/// Segment sizes of issue 17's table: equal segments, variants "seg:S".
constexpr std::size_t kSegmentSizes[] = {8, 32, 128, 1000, 4096, 65536, std::size_t{1} << 20};

// Issue 17's power-law mix, variant "seg:powerlaw": segment sizes drawn from a Pareto law,
//   size = min(floor(kPowerLawMin * u^(-1 / kPowerLawAlpha)), kPowerLawCap), u uniform in (0, 1],
// drawn until they sum to n (the last one cut to fit), the segments contiguous in draw order.
// Many short segments and a few huge ones: at n = 2^26, 531,474 segments of 8 to 2^22 keys (two
// drawn at the cap), 31 of them of 131072 keys or more holding 36% of the items, and 8.7% of the
// items in segments of <= 32 keys (host arithmetic, checked when this was written).
// u is made from the raw 64-bit draws of std::mt19937_64 (an engine the standard fully
// specifies); std's distributions are not specified bit for bit, so another standard library
// would draw other sizes from them.
constexpr std::size_t kPowerLawMin = 8;  ///< the law's smallest size (its scale)
/// The law's tail index: P(size >= s) = (kPowerLawMin / s)^kPowerLawAlpha.
constexpr double kPowerLawAlpha = 1.0;
constexpr std::size_t kPowerLawCap = std::size_t{1} << 22;  ///< largest size drawn
constexpr std::uint64_t kPowerLawSeed = 17;                 ///< the engine's seed
constexpr const char kPowerLawVariant[] = "seg:powerlaw";   ///< the variant's name part

/// Offsets of \p n keys cut into equal segments of \p segment_size keys (the last one shorter
/// when it does not divide n).
std::vector<std::uint32_t> equal_offsets(std::size_t n, std::size_t segment_size) {
  const std::size_t count = (n + segment_size - 1) / segment_size;
  std::vector<std::uint32_t> offsets(count + 1);
  for (std::size_t s = 0; s <= count; ++s)
    offsets[s] = static_cast<std::uint32_t>(std::min(s * segment_size, n));
  return offsets;
}

/// One size of the power-law mix from one raw 64-bit draw.
std::size_t power_law_size(std::uint64_t draw) {
  // u in (0, 1]: the top 53 bits plus one, times 2^-53 (exact in a double).
  const double u = static_cast<double>((draw >> 11) + 1) * 0x1p-53;
  // For alpha = 1 a division, which IEEE rounds exactly, so no libm's pow can change a size.
  const double size = kPowerLawAlpha == 1.0
                          ? static_cast<double>(kPowerLawMin) / u
                          : static_cast<double>(kPowerLawMin) * std::pow(u, -1.0 / kPowerLawAlpha);
  return size >= static_cast<double>(kPowerLawCap) ? kPowerLawCap
                                                   : static_cast<std::size_t>(std::floor(size));
}

/// Offsets of \p n keys cut into the power-law mix (the constants above), drawn afresh from the
/// seed for every n.
std::vector<std::uint32_t> power_law_offsets(std::size_t n) {
  std::mt19937_64 engine(kPowerLawSeed);
  std::vector<std::uint32_t> offsets{0};
  std::size_t end = 0;
  while (end < n) {
    end += std::min(power_law_size(engine()), n - end);
    offsets.push_back(static_cast<std::uint32_t>(end));
  }
  return offsets;
}

/// What the power-law mix is, for the entries' labels.
std::string power_law_text() {
  char alpha[32];
  std::snprintf(alpha, sizeof alpha, "%g", kPowerLawAlpha);
  return "a power-law mix of segments, sizes min(floor(" + std::to_string(kPowerLawMin) +
         " u^(-1/" + alpha + ")), " + std::to_string(kPowerLawCap) +
         ") for u uniform in (0, 1] (std::mt19937_64 seeded " + std::to_string(kPowerLawSeed) +
         "), drawn until they sum to n (the last cut to fit), contiguous in draw order";
}

/// The segments of one variant: offsets built on the host by `rule` and uploaded when a sort is
/// first called at a new n (the scratch query of a benchmark, never a timed call: n is fixed per
/// benchmark). One object serves every implementation and both keys and pairs, so all of them
/// sort the very same segments.
struct Segments {
  std::function<std::vector<std::uint32_t>(std::size_t)> rule;  ///< count + 1 offsets of n keys
  std::size_t n = 0;                                            ///< the n of the offsets
  bool ready = false;                                           ///< offsets built for n
  std::size_t count = 0;                                        ///< number of segments
  std::size_t smallest = 0;                                     ///< keys of the shortest one
  std::size_t largest = 0;                                      ///< keys of the longest one
  DeviceBuffer<std::uint32_t> offsets;  ///< count + 1 offsets; segment s is [o[s], o[s + 1])

  /// Builds and uploads the offsets of \p items keys, unless they are the ones held.
  void prepare(std::size_t items) {
    if (ready && items == n) return;
    const std::vector<std::uint32_t> host = rule(items);
    n = items;
    count = host.size() - 1;
    smallest = count == 0 ? 0 : n;
    largest = 0;
    for (std::size_t s = 0; s < count; ++s) {
      const std::size_t size = host[s + 1] - host[s];
      smallest = std::min(smallest, size);
      largest = std::max(largest, size);
    }
    offsets = DeviceBuffer<std::uint32_t>(host);
    ready = true;
  }

  /// The row's counters of the segments of \p items keys: segments, smallest_segment and
  /// largest_segment (in keys).
  std::vector<std::pair<std::string, double>> counters(std::size_t items) {
    prepare(items);
    return {{"segments", static_cast<double>(count)},
            {"smallest_segment", static_cast<double>(smallest)},
            {"largest_segment", static_cast<double>(largest)}};
  }
};

/// One way of cutting the keys: the name part, the label's words for it, its segments.
struct Variant {
  std::string name;                    ///< "seg:1000", "seg:powerlaw"
  std::string what;                    ///< "equal segments of 1000 keys", ...
  std::shared_ptr<Segments> segments;  ///< shared by every entry of the variant
};

/// Issue 17's variants: equal segments of every kSegmentSizes size, then the power-law mix.
std::vector<Variant> make_variants() {
  std::vector<Variant> variants;
  for (std::size_t segment_size : kSegmentSizes) {
    auto segments = std::make_shared<Segments>();
    segments->rule = [segment_size](std::size_t n) { return equal_offsets(n, segment_size); };
    variants.push_back({"seg:" + std::to_string(segment_size),
                        "equal segments of " + std::to_string(segment_size) + " keys", segments});
  }
  auto mix = std::make_shared<Segments>();
  mix->rule = power_law_offsets;
  variants.push_back({kPowerLawVariant, power_law_text(), mix});
  return variants;
}

/// Bytes by the floor of a segmented sort: every key (and value) read once and written once.
double floor_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(key_bytes + value_bytes);
}

/// Which sort an entry runs.
enum class Impl { kStage06, kCubSegmentedSort, kCubSegmentedRadixSort };

SortCall make_call(Impl impl, std::shared_ptr<Segments> segments) {
  return [impl, segments](void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                          const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                          cudaStream_t stream) {
    segments->prepare(n);
    const auto* kin = static_cast<const float*>(keys_in);
    auto* kout = static_cast<float*>(keys_out);
    const std::uint32_t* begin = segments->offsets.data();
    const std::uint32_t* end = begin + 1;
    const int count = static_cast<int>(segments->count);
    switch (impl) {
      case Impl::kStage06:
        if (values_in == nullptr)
          stage06::sort_keys(temp, temp_bytes, kin, kout, n, segments->count, begin, end, {},
                             stream);
        else
          stage06::sort_pairs(temp, temp_bytes, kin, kout, values_in, values_out, n,
                              segments->count, begin, end, {}, stream);
        break;
      case Impl::kCubSegmentedSort:
        if (values_in == nullptr)
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortKeys(
              temp, temp_bytes, kin, kout, static_cast<int>(n), count, begin, end, stream));
        else
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
              temp, temp_bytes, kin, kout, values_in, values_out, static_cast<int>(n), count, begin,
              end, stream));
        break;
      case Impl::kCubSegmentedRadixSort:
        if (values_in == nullptr)
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(
              temp, temp_bytes, kin, kout, static_cast<int>(n), count, begin, end, 0, 32, stream));
        else
          SORTLAB_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
              temp, temp_bytes, kin, kout, values_in, values_out, static_cast<int>(n), count, begin,
              end, 0, 32, stream));
        break;
    }
  };
}

/// Registers one implementation on every variant, for f32 keys (and u32 values).
void register_impl(const BenchConfig& config, const std::vector<Variant>& variants, Impl impl,
                   const std::string& name, const std::string& what) {
  for (bool pairs : {false, true}) {
    if ((pairs && !config.pairs) || (!pairs && !config.keys)) continue;
    for (const Variant& variant : variants) {
      SortEntry entry;
      entry.name = name;
      entry.summary = what + " on " + variant.what;
      entry.key_type = "f32";
      entry.pairs = pairs;
      entry.variant = variant.name;
      entry.sort = make_call(impl, variant.segments);
      entry.bytes = floor_bytes;
      // The results table's "segments" and "segment size" cells.
      entry.extra_counters = [segments = variant.segments](std::size_t n) {
        return segments->counters(n);
      };
      // CUB's DeviceSegmentedSort copies its partition to the host and waits for it.
      entry.host_synchronizes = impl == Impl::kCubSegmentedSort;
      register_sort(entry, config);
    }
  }
}

/// sort_rows() (torch.sort(dim=-1, stable=True)'s semantics: sorted values and int64 columns) on
/// n / S rows of S f32 values for every equal size S of kSegmentSizes, entry "stage06-rows",
/// variant "seg:S": the same rows torch_baseline.py gives torch.sort. The harness's u32 values
/// go unused; the int64 indices go to one buffer that every row length shares, grown by a
/// scratch query when it is too small (never in a timed call).
void register_sort_rows(const BenchConfig& config) {
  if (!config.pairs) return;
  auto indices = std::make_shared<DeviceBuffer<std::int64_t>>();
  for (std::size_t cols : kSegmentSizes) {
    SortEntry entry;
    entry.name = "stage06-rows";
    entry.summary =
        "sortlab stage 06 sort_rows (torch.sort(dim=-1, stable=True) semantics: "
        "values and int64 indices) on rows of " +
        std::to_string(cols) + " f32 values";
    entry.key_type = "f32";
    entry.pairs = true;
    entry.variant = "seg:" + std::to_string(cols);
    entry.sort = [cols, indices](void* temp, std::size_t& temp_bytes, const void* keys_in,
                                 void* keys_out, const std::uint32_t*, std::uint32_t*,
                                 std::size_t n, cudaStream_t stream) {
      const std::size_t rows = n / cols;
      if (temp == nullptr && indices->size() < rows * cols) indices->resize(rows * cols);
      stage06::sort_rows(temp, temp_bytes, static_cast<const float*>(keys_in),
                         static_cast<float*>(keys_out), indices->data(), rows, cols, false, stream);
    };
    // The floor: every value read once, every value and its int64 index written once.
    entry.bytes = [cols](std::size_t n, std::size_t kb, std::size_t) {
      return static_cast<double>(n / cols * cols) * static_cast<double>(2 * kb + 8);
    };
    entry.extra_counters = [cols](std::size_t n) {
      return std::vector<std::pair<std::string, double>>{
          {"segments", static_cast<double>(n / cols)},
          {"smallest_segment", static_cast<double>(cols)},
          {"largest_segment", static_cast<double>(cols)}};
    };
    register_sort(entry, config);
  }
}

/// Smallest and largest segment of the bin sweep, and how many bins above its own each size is
/// also sorted by.
constexpr int kSweepFirstBin = 1, kSweepLastBin = 11, kSweepBinsAbove = 2;

/// The bin sweep (--set=bins): f32 pairs in equal segments of 2^b and 2^(b-1) + 1 keys for b =
/// kSweepFirstBin .. kSweepLastBin, each sorted by bin b and the kSweepBinsAbove bins above it
/// (up to the largest tile). A bin raised above a segment's own pads the segment to its width,
/// so the rows say whether a bigger bin's kernel would sort a smaller bin's segments faster.
void register_bin_sweep(const BenchConfig& config) {
  if (!config.pairs) return;
  for (int bin = kSweepFirstBin; bin <= kSweepLastBin; ++bin) {
    const std::size_t top = std::size_t{1} << bin;
    // Both edges of the bin; bin 1 has one size (2 keys).
    const std::vector<std::size_t> sizes = top / 2 + 1 == top
                                               ? std::vector<std::size_t>{top}
                                               : std::vector<std::size_t>{top / 2 + 1, top};
    for (std::size_t segment_size : sizes) {
      auto segments = std::make_shared<Segments>();
      segments->rule = [segment_size](std::size_t n) { return equal_offsets(n, segment_size); };
      for (int min_bin = bin; min_bin <= std::min(bin + kSweepBinsAbove, stage06::kLargeBin - 1);
           ++min_bin) {
        SortEntry entry;
        entry.name = "stage06-bins";
        entry.summary = "sortlab stage 06 with every segment in bin " + std::to_string(min_bin) +
                        " or above (sort_pairs_with_min_bin) on equal segments of " +
                        std::to_string(segment_size) + " keys";
        entry.key_type = "f32";
        entry.pairs = true;
        entry.variant = "seg:" + std::to_string(segment_size) + "/bin:" + std::to_string(min_bin);
        entry.sort = [segments, min_bin](void* temp, std::size_t& temp_bytes, const void* keys_in,
                                         void* keys_out, const std::uint32_t* values_in,
                                         std::uint32_t* values_out, std::size_t n,
                                         cudaStream_t stream) {
          segments->prepare(n);
          const std::uint32_t* begin = segments->offsets.data();
          stage06::sort_pairs_with_min_bin(temp, temp_bytes, static_cast<const float*>(keys_in),
                                           static_cast<float*>(keys_out), values_in, values_out, n,
                                           segments->count, begin, begin + 1, min_bin, {}, stream);
        };
        entry.bytes = floor_bytes;
        entry.extra_counters = [segments](std::size_t n) { return segments->counters(n); };
        register_sort(entry, config);
      }
    }
  }
}

/// Takes this program's own flag from argv (--set=issue, the default, or --set=bins) and
/// returns whether the bin sweep was asked for.
bool take_bin_sweep_flag(int& argc, char** argv) {
  bool bins = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--set=", 6) == 0) {
      const std::string set = argv[i] + 6;
      require(set == "issue" || set == "bins", "--set must be issue or bins");
      bins = set == "bins";
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return bins;
}

}  // namespace
}  // namespace sortlab::bench

int main(int argc, char** argv) {
  using namespace sortlab::bench;
  bool bins = false;
  try {
    bins = take_bin_sweep_flag(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  return run_main(argc, argv, [bins](const BenchConfig& config) {
    // The GPU, for results_table.py's page (bench_all records the same keys).
    benchmark::AddCustomContext("sortlab_gpu_name", sortlab::gpu_description());
    benchmark::AddCustomContext("sortlab_gpu_file_name", sortlab::gpu_file_name());
    register_copy_bandwidth(config);
    if (bins) {
      register_bin_sweep(config);
      return;
    }
    const std::vector<Variant> variants = make_variants();
    register_impl(config, variants, Impl::kStage06, "stage06", "sortlab stage 06 (size classes)");
    register_impl(config, variants, Impl::kCubSegmentedSort, "cub-segmented-sort",
                  "cub::DeviceSegmentedSort (stable)");
    register_impl(config, variants, Impl::kCubSegmentedRadixSort, "cub-segmented-radix",
                  "cub::DeviceSegmentedRadixSort");
    register_sort_rows(config);
  });
}
