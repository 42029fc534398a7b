/// \file
/// \brief `sortlab run`: generate, sort on the GPU (warm-up + timed runs), verify, report.
#include "bench/sortlab/run_command.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/sortlab/stage_registry.hpp"
#include "common/cuda_timer.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/gpu_detect.hpp"
#include "common/report.hpp"
#include "common/verify.hpp"

namespace sortlab::cli {
namespace {

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (double{values[mid - 1]} + values[mid]);
}

template <typename Key>
int run_typed(const StageEntry& entry, const RunArgs& args, std::ostream& out) {
  const SortFunction<Key> sort = entry.functions<Key>().sort;
  const SortOptions options{args.begin_bit, args.end_bit, args.descending};

  const std::vector<Key> keys = generate_keys<Key>(args.distribution, args.n, args.seed);
  const std::vector<std::uint32_t> values =
      args.pairs ? iota_values(args.n) : std::vector<std::uint32_t>{};
  DeviceBuffer<Key> keys_in(keys);
  DeviceBuffer<Key> keys_out(args.n);
  DeviceBuffer<std::uint32_t> values_in(values);
  DeviceBuffer<std::uint32_t> values_out(values.size());
  const std::uint32_t* values_in_ptr = args.pairs ? values_in.data() : nullptr;
  std::uint32_t* values_out_ptr = args.pairs ? values_out.data() : nullptr;

  // Scratch: query, then allocate. At least one byte, because a null scratch pointer means
  // "query only" in the CUB convention every stage follows.
  std::size_t temp_bytes = 0;
  sort(nullptr, temp_bytes, keys_in.data(), keys_out.data(), values_in_ptr, values_out_ptr, args.n,
       options, args.tuning);
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));

  auto sort_once = [&] {
    sort(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), values_in_ptr, values_out_ptr,
         args.n, options, args.tuning);
  };
  sort_once();  // warm-up: first-launch costs (module load, caches) are not the sort's
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  CudaEventTimer timer;
  std::vector<float> times_ms;
  for (int r = 0; r < args.repeat; ++r) {
    timer.start();
    sort_once();
    timer.stop();
    times_ms.push_back(timer.elapsed_ms());
  }
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  const double median_ms = median(times_ms);

  const std::vector<Key> sorted = keys_out.download();
  const VerifyResult check =
      args.pairs ? verify_sorted_pairs(keys, values, sorted, values_out.download(), options)
                 : verify_sorted_keys(keys, sorted, options);

  const std::string tuning = tuning_text(entry, args.tuning);
  out << "stage         " << stage_label(entry) << ": " << entry.summary << '\n';
  if (!tuning.empty()) out << "config        " << tuning << '\n';
  out << "GPU           " << gpu_description() << '\n'
      << "type          " << to_string(args.type)
      << (args.pairs ? " keys with u32 values (pairs)" : " keys") << '\n'
      << "n             " << args.n << '\n'
      << "distribution  " << to_string(args.distribution) << " (seed " << args.seed << ")\n"
      << "order         " << (args.descending ? "descending" : "ascending") << ", bits ["
      << args.begin_bit << ", " << args.end_bit << ")\n"
      << "median time   " << format_number(median_ms, 4) << " ms (" << args.repeat
      << " timed runs after 1 warm-up, CUDA events)\n"
      << "throughput    "
      << (median_ms > 0 ? format_number(static_cast<double>(args.n) / (median_ms * 1e6), 4) : "-")
      << " G keys/s\n";
  if (check.ok) {
    out << "verified: OK\n";
    return kExitOk;
  }
  out << "verified: FAILED: " << check.message << '\n';
  return kExitFailed;
}

}  // namespace

int run_command(const RunArgs& args, std::ostream& out, std::ostream& err, bool gpu_present) {
  // Argument mistakes first, so they are reported the same way with or without a GPU.
  const StageEntry& entry = find_stage(args.stage);
  check_tuning(entry, args.tuning);
  if (!gpu_present) {
    err << "sortlab run needs a CUDA GPU; `sortlab trace` works without one\n";
    return kExitNoGpu;
  }
  switch (args.type) {
    case KeyType::kU32:
      return run_typed<std::uint32_t>(entry, args, out);
    case KeyType::kI32:
      return run_typed<std::int32_t>(entry, args, out);
    case KeyType::kF32:
      return run_typed<float>(entry, args, out);
  }
  return kExitUsage;
}

}  // namespace sortlab::cli
