/// \file
/// \brief `sortlab trace --stage 6` (see trace_segments.hpp).
#include "bench/sortlab/trace_segments.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/06_segmented_sort/bitonic_network.hpp"
#include "chapters/06_segmented_sort/segmented_model.hpp"
#include "chapters/06_segmented_sort/size_classes.hpp"
#include "common/key_traits.hpp"
#include "common/sort_options.hpp"

namespace sortlab::cli {
namespace {

/// "1 step", "6 steps".
std::string count_of(std::size_t count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

/// The route a huge segment of \p size keys from \p keys takes (huge_takes_split_route()), in
/// words: the digit counts of its sort's last pass (the most significant digit of the sorted
/// bits, radix_digit() of the ordered bits, as the histogram kernel counts them) decide.
/// \param keys the segment's first key
/// \param size keys of the segment
/// \param options bit range and direction
template <typename Key>
std::string huge_route(const Key* keys, std::uint32_t size, const SortOptions& options) {
  using namespace stage06;
  const SortOptions resolved = resolve<Key>(options);
  const int passes = (resolved.end_bit - resolved.begin_bit + kHugeDigitBits - 1) / kHugeDigitBits;
  const int first_bit = resolved.begin_bit + std::max(passes - 1, 0) * kHugeDigitBits;
  const int num_bits = resolved.end_bit - first_bit;
  const std::string digit =
      "bits [" + std::to_string(first_bit) + ", " + std::to_string(resolved.end_bit) + ")";
  if (passes < 2) return "; radix route: its one pass (" + digit + ") is the whole sort";
  std::vector<std::uint32_t> counts(std::size_t{1} << num_bits, 0);
  for (std::uint32_t i = 0; i < size; ++i)
    ++counts[radix_digit(keys[i], first_bit, num_bits, resolved.descending)];
  const std::uint32_t largest = *std::max_element(counts.begin(), counts.end());
  std::ostringstream text;
  if (huge_takes_split_route(largest, sizeof(Key), passes)) {
    // The route kernel's greedy packing (huge_route_segment()) of neighbouring buckets into chunks
    // of at most a tile.
    const std::uint32_t chunk_max = huge_bucket_max_items(sizeof(Key));
    std::size_t chunks = 0;
    std::uint32_t run = 0;
    for (const std::uint32_t count : counts) {
      if (run + count > chunk_max) {
        ++chunks;
        run = 0;
      }
      run += count;
    }
    if (run > 0) ++chunks;
    text << "; split route: its last pass (" << digit << ") cuts it into "
         << counts.size() - static_cast<std::size_t>(std::count(counts.begin(), counts.end(), 0u))
         << " buckets of at most " << largest << " keys, packed into " << count_of(chunks, "chunk")
         << " of at most " << chunk_max << " keys that one block each sorts in shared memory";
  } else
    text << "; radix route: its last pass's largest bucket (" << digit << ") holds " << largest
         << " keys, more than a tile's " << huge_bucket_max_items(sizeof(Key));
  return text.str();
}

/// Who sorts one segment of \p size keys from \p keys in bin \p bin, in words (size_classes.hpp's
/// table), in a sort with \p options that queues the huge path or not (\p huge_path).
template <typename Key>
std::string who_sorts(int bin, const Key* keys, std::uint32_t size, const SortOptions& options,
                      bool huge_path) {
  using namespace stage06;
  constexpr std::size_t key_bytes = sizeof(Key);
  std::ostringstream text;
  if (bin == kNoBin) {
    text << "nothing (empty)";
  } else if (bin == 0) {
    text << "one lane copies it (32 segments per warp)";
  } else if (bin < kFirstWarpBin) {
    const int lanes = small_group_lanes(bin);
    text << "a group of " << lanes << " lanes, bitonic network of " << lanes << " entries, "
         << count_of(static_cast<std::size_t>(bitonic_steps(static_cast<unsigned>(lanes))), "step")
         << " (" << count_of(static_cast<std::size_t>(kWarpLanes / lanes), "segment")
         << " per warp)";
  } else if (bin < kFirstTileBin) {
    const unsigned width = bin_max_items(bin);
    text << "one warp, " << warp_keys_per_lane(bin) << " keys per lane, bitonic network of "
         << width << " entries, " << bitonic_steps(width) << " steps";
  } else if (bin < kLargeBin) {
    const TileShape tile = tile_shape(bin);
    text << "one block: stage 05's block sort of a " << bin_max_items(bin) << "-key tile ("
         << tile.threads << " x " << tile.keys_per_thread << ", " << tile.radix_bits
         << "-bit digits)";
  } else if (!huge_path || size < kHugeMinItems || size > kHugeMaxItems) {
    text << "one block: " << kBlockRadixBits << "-bit passes through the scratch, tiles of "
         << medium_max_items(key_bytes) << " keys";
  } else {
    const std::uint32_t tile = bin_max_items(huge_tile_bin(key_bytes));
    text << "many blocks (huge): " << (size + tile - 1) / tile << " tiles of " << tile
         << " keys; one histogram of every pass, then per " << kHugeDigitBits
         << "-bit pass one kernel, each tile looking back over its segment's earlier tiles"
         << huge_route(keys, size, options);
  }
  return text.str();
}

/// Slots one segment of \p size keys of bin \p bin occupies: its network's or tile's width (the
/// large class: its size, rounded up to whole tiles).
std::size_t slots_of(int bin, std::size_t size, std::size_t key_bytes) {
  using namespace stage06;
  if (bin == kNoBin) return 0;
  if (bin < kLargeBin) return bin_max_items(bin);
  const std::size_t tile = medium_max_items(key_bytes);
  return (size + tile - 1) / tile * tile;
}

template <typename Key>
std::string key_text(Key key) {
  std::ostringstream text;
  if constexpr (std::is_floating_point_v<Key>)
    text << std::defaultfloat << key;
  else
    text << static_cast<long long>(key);
  return text.str();
}

}  // namespace

template <typename Key>
int trace_segments(const std::vector<Key>& keys, const TraceArgs& args, std::ostream& out) {
  using namespace stage06;
  const std::vector<std::uint32_t>& sizes = *args.segments;
  std::vector<std::uint32_t> begin_offsets, end_offsets;
  std::uint32_t at = 0;
  for (std::uint32_t size : sizes) {
    begin_offsets.push_back(at);
    at += size;
    end_offsets.push_back(at);
  }
  SortOptions options;
  options.descending = args.descending;
  out << "stage 06, segmented sort by size bins: " << sizes.size() << " segments, " << keys.size()
      << " " << to_string(args.type) << " keys" << (args.descending ? ", descending" : "")
      << ", on the CPU model (the kernels classify with the same classify_bin() and the GPU "
         "tests compare their output with the reference)\n\n";
  // The model sorts and returns its classification: one pass over the segments for both.
  std::vector<Key> model_out(keys), reference_out(keys);
  const Classification classes =
      model_segmented_sort(keys, begin_offsets, end_offsets, options, model_out);
  out << "segment   begin    size  bin  class   sorted by\n";
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const int bin = classes.bin_of[s];
    out << std::setw(7) << s << std::setw(8) << begin_offsets[s] << std::setw(8) << sizes[s]
        << std::setw(5) << (bin == kNoBin ? std::string("-") : std::to_string(bin)) << "  "
        << std::left << std::setw(7) << stage06::to_string(classes.class_of[s]) << std::right << " "
        << who_sorts(bin, keys.data() + begin_offsets[s], sizes[s], options,
                     !sizes.empty() && huge_path_queued(keys.size(), sizes.size()))
        << '\n';
  }
  out << "\nbin  segments    keys   slots  filled  (slots: the entries of its networks or tiles; "
         "no bin pads a segment to more than twice its size)\n";
  for (int bin = 0; bin <= kLargeBin; ++bin) {
    const std::vector<std::uint32_t>& ids = classes.bin_ids[static_cast<std::size_t>(bin)];
    if (ids.empty()) continue;
    std::size_t bin_keys = 0, slots = 0;
    for (std::uint32_t s : ids) {
      bin_keys += sizes[s];
      slots += slots_of(bin, sizes[s], sizeof(Key));
    }
    out << std::setw(3) << bin << std::setw(10) << ids.size() << std::setw(8) << bin_keys
        << std::setw(8) << slots << std::setw(7) << (100 * bin_keys + slots / 2) / slots << "%\n";
  }

  reference_segmented_sort<Key>(keys, nullptr, begin_offsets, end_offsets, options, reference_out);
  out << "\nsegments of at most 16 keys, in and out:\n";
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    if (sizes[s] == 0 || sizes[s] > 16) continue;
    out << "  " << std::setw(3) << s << ":";
    for (std::uint32_t i = begin_offsets[s]; i < end_offsets[s]; ++i)
      out << ' ' << key_text(keys[i]);
    out << "  ->";
    for (std::uint32_t i = begin_offsets[s]; i < end_offsets[s]; ++i)
      out << ' ' << key_text(model_out[i]);
    out << '\n';
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // Compared as bits: the reference and the model move keys, never compute them.
    if (std::memcmp(&model_out[i], &reference_out[i], sizeof(Key)) != 0) {
      out << "result: NOT the reference's output: position " << i << " holds "
          << key_text(model_out[i]) << ", the reference " << key_text(reference_out[i]) << '\n';
      return kExitFailed;
    }
  }
  out << "result: every segment equals the reference (a stable sort of each segment)\n";
  return kExitOk;
}

template int trace_segments<std::uint32_t>(const std::vector<std::uint32_t>&, const TraceArgs&,
                                           std::ostream&);
template int trace_segments<std::int32_t>(const std::vector<std::int32_t>&, const TraceArgs&,
                                          std::ostream&);
template int trace_segments<float>(const std::vector<float>&, const TraceArgs&, std::ostream&);

}  // namespace sortlab::cli
