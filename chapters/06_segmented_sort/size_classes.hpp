/// \file
/// \brief Stage 06's segment size classes, their bins and the shape of every bin, all in one
/// place.
///
/// One algorithm cannot serve a million segments of 8 keys and eight segments of a million keys,
/// so every segment goes to a *bin* by its size, and each bin has a sort shaped for it. A bin is
/// one power of two: bin b holds the sizes 2^(b-1) + 1 .. 2^b (bin 0 holds size 1), so no bin
/// pads a segment to more than twice its size. The bins form three *classes*:
///
/// | class  | bins | sizes       | who sorts one segment                                   |
/// |--------|------|-------------|---------------------------------------------------------|
/// | small  | 0-5  | 1 .. 32     | a group of 1 .. 32 lanes (the bin's width), one key each |
/// | medium | 6-8  | 33 .. 256   | one warp, 2, 4 or 8 keys per lane: a bitonic network     |
/// | medium | 9-12 | 257 .. 4096 | one block: stage 05's BlockRadixSort, a 512 .. 4096 tile |
/// | large  | 13   | 4097 ..     | many blocks per segment (the huge path, from             |
/// |        |      |             | kHugeMinItems on), or one block: radix passes through     |
/// |        |      |             | global scratch (huge path not queued, 8-byte keys of      |
/// |        |      |             | 2049 .. 4096, or past kHugeMaxItems)                      |
///
/// The small bins are sorted by the classify kernel itself, 32 / width segments per warp at
/// once; the warp bins 8 segments per block; the tile bins one segment per block.
///
/// 8-byte keys have no 4096-key tile (16 keys of 8 bytes per thread would not fit the registers),
/// so their medium class ends at 2048 and bin 12 stays empty. Empty segments (and segments whose
/// end lies past the input, see segment_size()) belong to no bin: nothing is launched for them.
///
/// This header is plain C++ with host-device functions: the classify kernel and the CPU model
/// (segmented_model.hpp) call the very same classify_bin(), and the launcher and the model read
/// the same tile shapes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/key_traits.hpp"  // SORTLAB_HOST_DEVICE

/// Stage 06: segmented sort by segment size class.
namespace sortlab::stage06 {

/// The three coarse classes (what the tests and the traces name; the kernels work by bin).
enum class SizeClass : std::uint32_t {
  kSmall = 0,   ///< 1 .. 32 keys: sub-warp groups, one key per lane
  kMedium = 1,  ///< 33 .. one block tile: one warp (up to 256 keys) or one block tile
  kLarge = 2,   ///< more than one tile: radix passes, one block per segment (or many: huge)
  kNone = 3,    ///< empty or invalid: nothing to sort
};

/// Number of classes with work (kSmall, kMedium, kLarge).
inline constexpr int kNumSizeClasses = 3;

// ---- The bins ----------------------------------------------------------------------------------

/// Number of bins with work: 14 (0 .. kLargeBin). Bin b < kLargeBin holds the segments of
/// 2^(b-1) + 1 .. 2^b keys (bin 0: one key); kLargeBin holds everything above one block tile.
inline constexpr int kNumBins = 14;

/// The bin of segments larger than one block tile.
inline constexpr int kLargeBin = kNumBins - 1;

/// The "bin" of an empty or invalid segment.
inline constexpr int kNoBin = kNumBins;

/// Small bins 0 .. 5: a group of 2^b lanes sorts one segment, one key per lane.
inline constexpr int kNumSmallBins = 6;

/// First bin of one warp with several keys per lane (64 keys).
inline constexpr int kFirstWarpBin = kNumSmallBins;

/// Warp bins 6, 7, 8: 64, 128, 256 keys, 2, 4, 8 keys per lane.
inline constexpr int kNumWarpBins = 3;

/// First bin of one block tile (512 keys).
inline constexpr int kFirstTileBin = kFirstWarpBin + kNumWarpBins;

/// Tile bins 9 .. 12: 512, 1024, 2048, 4096 keys.
inline constexpr int kNumTileBins = 4;

/// The bins whose segments the classify kernel appends to an id list for a later kernel: every
/// bin but the small ones (which the classify kernel sorts itself). List l holds bin
/// kFirstWarpBin + l.
inline constexpr int kNumListBins = kNumBins - kNumSmallBins;

/// Lanes of one warp.
inline constexpr int kWarpLanes = 32;

/// Threads per block of the classify, warp and large kernels (8 warps).
inline constexpr int kBlockThreads = 256;

/// Warps per block.
inline constexpr int kWarpsPerBlock = kBlockThreads / kWarpLanes;

/// Largest segment of bin \p bin (b < kLargeBin): 2^b keys, the width of its network or tile.
/// \param bin a bin below kLargeBin
SORTLAB_HOST_DEVICE constexpr std::uint32_t bin_max_items(int bin) {
  return std::uint32_t{1} << bin;
}

/// Smallest segment of bin \p bin: one more than the bin below holds (1 for bin 0).
/// \param bin any bin 0 .. kLargeBin (for kLargeBin pass the tile's largest bin + 1, see
/// large_min_items())
SORTLAB_HOST_DEVICE constexpr std::uint32_t bin_min_items(int bin) {
  return bin == 0 ? 1u : bin_max_items(bin - 1) + 1u;
}

/// Largest segment of the small class (bin 5): one key per lane of a whole warp.
inline constexpr std::uint32_t kSmallMaxItems = bin_max_items(kNumSmallBins - 1);

/// Largest segment of the warp bins (bin 8): 8 keys per lane.
inline constexpr std::uint32_t kWarpMaxItems = bin_max_items(kFirstTileBin - 1);

/// Lanes that sort one segment of small bin \p bin together (1, 2, 4, 8, 16, 32): the bin's
/// width, one key per lane.
/// \param bin a small bin, 0 .. kNumSmallBins - 1
SORTLAB_HOST_DEVICE constexpr int small_group_lanes(int bin) {
  return 1 << bin;
}

/// Keys per lane of warp bin \p bin (2, 4, 8).
/// \param bin a warp bin, kFirstWarpBin .. kFirstTileBin - 1
SORTLAB_HOST_DEVICE constexpr int warp_keys_per_lane(int bin) {
  return static_cast<int>(bin_max_items(bin)) / kWarpLanes;
}

// ---- The block tiles (bins 9 .. 12 and the large class) -----------------------------------------

/// The shape of one block tile of stage 05's BlockRadixSort: threads x keys per thread keys,
/// r-bit digits per block pass. Not measured yet: the small tiles take 4-bit digits because
/// their per-thread counters (2^(r-1) + 1 words, cleared and scanned every pass) would cost more
/// than their 4 or 8 keys at r = 6; the large ones keep stage 05's 6 bits (fewer passes).
struct TileShape {
  int threads;          ///< threads per block
  int keys_per_thread;  ///< keys each thread holds
  int radix_bits;       ///< digit width of the block sort's passes
  /// 0, or radix_bits + 1: then the tile sorts in as few passes as digits this wide allow, the
  /// first ones this wide and the rest radix_bits wide (tile_wide_bits()): 32 bits at 6 and 7
  /// are 7, 7, 6, 6, 6 (five passes, not 6 x 5 + 2).
  int wide_radix_bits;
};

/// Digit width of the 2048- and 4096-key tiles and of the large class's global passes: 2^6
/// packed 16-bit counters per thread are 33 KiB of shared memory at 256 threads, as in stage
/// 05's device sort.
inline constexpr int kBlockRadixBits = 6;

/// 16-byte loads each thread of a large-class block issues before counting any of their keys,
/// when a pass counts its segment's digits (common/vector_loads.cuh): one 4-byte key per thread
/// at a time left the count bound by latency.
inline constexpr int kLargeCountVectorsPerThread = 4;

/// The tile of tile bin \p bin (9 .. 12): 512 = 128 x 4, 1024 = 128 x 8, 2048 = 256 x 8,
/// 4096 = 256 x 16 keys.
/// \param bin a tile bin, kFirstTileBin .. kLargeBin - 1
SORTLAB_HOST_DEVICE constexpr TileShape tile_shape(int bin) {
  return bin == kFirstTileBin       ? TileShape{128, 4, 4, 0}
         : bin == kFirstTileBin + 1 ? TileShape{128, 8, 4, 0}
         : bin == kFirstTileBin + 2 ? TileShape{256, 8, kBlockRadixBits, 0}
                                    : TileShape{256, 16, kBlockRadixBits, kBlockRadixBits + 1};
}

/// Bits of a sort by \p num_bits bits that the tile of \p shape takes in its wide passes (the
/// lowest ones; the narrow passes take the rest, radix_bits at a time, the last one whole).
/// With R = ceil(num_bits / w) passes of at most w = wide_radix_bits bits: if R passes of
/// r = radix_bits bits cover the bits, none; otherwise num_bits - r R passes of w bits and the
/// other passes r bits each, R in all. 0 for a shape without wide passes.
/// \param shape a tile shape
/// \param num_bits bits of the sort (end_bit - begin_bit)
SORTLAB_HOST_DEVICE constexpr int tile_wide_bits(TileShape shape, int num_bits) {
  if (shape.wide_radix_bits == 0 || num_bits <= 0) return 0;
  const int passes = (num_bits + shape.wide_radix_bits - 1) / shape.wide_radix_bits;
  const int wide_passes = num_bits - shape.radix_bits * passes;
  return wide_passes > 0 ? wide_passes * shape.wide_radix_bits : 0;
}

/// Whether tile bin \p bin exists for keys of \p key_bytes bytes: 8-byte keys stop at the
/// 2048-key tile (8 keys per thread, the same 16 KiB of keys per tile as 4096 4-byte keys).
/// \param bin a tile bin
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr bool tile_bin_exists(int bin, std::size_t key_bytes) {
  return key_bytes <= 4 || bin < kFirstTileBin + 3;
}

/// Keys per thread of the large class's block sort for a key of \p key_bytes bytes: 16 for keys
/// of up to 4 bytes (4096-key tiles), 8 for 8-byte keys (2048 keys), as in stage 05. The large
/// class uses the largest tile of the key's width.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int block_keys_per_thread(std::size_t key_bytes) {
  return key_bytes <= 4 ? 16 : 8;
}

/// Keys of the largest block tile: the largest segment of the medium class (4096, or 2048 for
/// 8-byte keys).
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::uint32_t medium_max_items(std::size_t key_bytes) {
  return static_cast<std::uint32_t>(kBlockThreads * block_keys_per_thread(key_bytes));
}

/// Smallest segment of the large class.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::uint32_t large_min_items(std::size_t key_bytes) {
  return medium_max_items(key_bytes) + 1u;
}

/// Smallest segment of the large class that many blocks sort together (the *huge* path: one
/// read of the huge segments counts the digits of every pass, then one kernel per pass in which
/// every tile finds its place by a look-back over the tiles before it in its segment), instead
/// of one block running all the passes alone. One block per segment leaves SMs idle when there
/// are fewer large segments than SMs, serialises a segment's tiles, and takes 6-bit passes.
/// Every large segment of 4-byte keys (and from 4097 keys for 8-byte keys) is huge: measured
/// on the H100 (2^26 f32/u32 pairs, README), 2^17 -> 4097 took segments of 65536 keys from 4.23
/// to 3.75 ms and the power-law mix from 4.26 to 3.25 with 8-bit huge passes, the others
/// unchanged (with the 6-bit passes of 2026-11-25's first huge path, 65536 went from 4.19 to
/// 4.44 and the threshold stayed at 2^17).
inline constexpr std::uint32_t kHugeMinItems = 4097;

/// Largest segment of the huge path: a status word holds a count below 2^30 (common/
/// tile_status.hpp), and the inclusive prefixes a segment publishes stay below its size. A
/// larger segment is the large kernel's (one block).
inline constexpr std::uint32_t kHugeMaxItems = std::uint32_t{1} << 30;

/// Keys per segment on average from which a sort queues the huge path at all. Its launches (and,
/// until 2026-11-25, its per-pass scans and a memset of its whole scratch) cost about 0.09 ms
/// per sort of 2^26 pairs even when no segment turns out huge, since only the device knows the
/// sizes (since then: its passes + 5 launches, which clear only the rows in use; README; the
/// threshold was measured with the earlier path); below
/// this average the large kernel sorts huge segments too, one block each (correct, slower for
/// them). Measured on the H100 (2^26 f32/u32 pairs, README): with 64, equal segments of 8 and 32
/// keys keep 0.409 and 0.535 ms (queued always: 0.494 and 0.622) while segments of 128, 1000 and
/// 4096 keys pay 0.09 ms (0.883 -> 0.976, 1.47 -> 1.56, 1.36 -> 1.45); the power-law mix (about 126
/// keys per segment on average, 31 segments of 2^17 keys and more holding a third of the items)
/// takes 4.69 ms instead of 42.3 with 16384.
inline constexpr std::uint32_t kHugeMinAverageItems = 64;

/// Huge segments that \p n items in \p num_segments segments can hold: segments do not overlap,
/// so at most n / kHugeMinItems.
/// \param n items
/// \param num_segments segments
SORTLAB_HOST_DEVICE constexpr std::size_t huge_capacity(std::size_t n, std::size_t num_segments) {
  return num_segments < n / kHugeMinItems ? num_segments : n / kHugeMinItems;
}

/// The largest tile bin for keys of \p key_bytes bytes: the large class's tile (the 4096-key
/// tile, or the 2048-key one for 8-byte keys, which have no 4096-key tile).
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int largest_tile_bin(std::size_t key_bytes) {
  return key_bytes <= 4 ? kLargeBin - 1 : kLargeBin - 2;
}

/// Digit width of the huge path's passes: 8, four passes for 32-bit keys, each tile ranked by a
/// warp multi-split in one round (common/warp_multisplit.cuh: 256 counters per warp). With
/// stage 05's block sort as the tile's rank, 8-bit passes (a 6-bit and a 2-bit round per tile)
/// already beat 6-bit ones: the path is bound by each tile's latency, so fewer passes over the
/// keys paid more than the second round cost (README, "the large class, step by step").
inline constexpr int kHugeDigitBits = 8;
static_assert(kHugeDigitBits <= 8, "a digit of the multi-split fits 8 bits (packed for values)");

/// Passes of the huge path when every bit of a \p key_bytes-byte key is sorted.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int huge_max_passes(std::size_t key_bytes) {
  return static_cast<int>((8 * key_bytes + kHugeDigitBits - 1) / kHugeDigitBits);
}

/// Keys a bucket of the huge path's split route holds at most: the largest tile (4096 keys, or
/// 2048 for 8-byte keys). A huge segment whose last pass (its most significant digit) cuts it
/// into buckets no larger than this is sorted by that one pass and then a tile or warp sort per
/// bucket (in shared memory or registers) instead of its other passes through global memory.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::uint32_t huge_bucket_max_items(std::size_t key_bytes) {
  return bin_max_items(largest_tile_bin(key_bytes));
}

/// Whether a huge segment takes the split route (huge_route_segment()): its sort takes \p passes
/// passes of kHugeDigitBits bits, two or more, and the last one's most frequent digit value
/// holds \p largest_bucket keys, no more than huge_bucket_max_items(). Else the radix route.
/// \param largest_bucket keys of the last pass's most frequent digit value in the segment
/// \param key_bytes sizeof(Key)
/// \param passes passes of the huge path's sort
SORTLAB_HOST_DEVICE constexpr bool huge_takes_split_route(std::uint32_t largest_bucket,
                                                          std::size_t key_bytes, int passes) {
  return passes >= 2 && largest_bucket <= huge_bucket_max_items(key_bytes);
}

/// Chunks the huge path's split route can list (huge_route_segment() packs neighbouring buckets
/// into chunks of at most huge_bucket_max_items() keys, greedily, so two neighbouring chunks of a
/// segment hold more than that together): a segment of m keys makes at most 2 floor(m / (max +
/// 1)) + 1, and the huge segments of n items at most 2 floor(n / (max + 1)) + huge_capacity().
/// \param n items
/// \param num_segments segments
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::size_t huge_chunk_capacity(std::size_t n,
                                                              std::size_t num_segments,
                                                              std::size_t key_bytes) {
  return huge_capacity(n, num_segments) == 0
             ? 0
             : 2 * (n / (huge_bucket_max_items(key_bytes) + 1)) + huge_capacity(n, num_segments);
}

/// Tile bins between the large class's tile and the huge path's: 0 gives the huge path the same
/// tile (4096 4-byte keys, 256 x 16), 1 the next smaller one (2048 keys, 256 x 8), which holds
/// fewer registers per thread so that more blocks share an SM. The huge path's tile never goes
/// below the 2048-key tile (its block is kBlockThreads threads).
inline constexpr int kHugeTileBinsBelowLarge = 0;

/// Blocks per SM the huge path's pass kernel asks for (its __launch_bounds__ and its grid): 4
/// for a keys-only sort (64 registers), 3 for pairs (85), whose values held through the rank
/// need more. Measured on the H100 (2^26 f32 keys or (f32, u32) pairs, 65536 keys per segment;
/// README, "the large class, step by step"): keys 2.07 ms at 3 blocks, 1.87 at 4; pairs 3.20 at
/// 2, 3.05 at 3, 3.14 at 4.
/// \param has_values whether values travel with the keys
SORTLAB_HOST_DEVICE constexpr int huge_min_blocks_per_sm(bool has_values) {
  return has_values ? 3 : 4;
}

/// The tile bin of the huge path's tile for keys of \p key_bytes bytes.
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int huge_tile_bin(std::size_t key_bytes) {
  const int bin = largest_tile_bin(key_bytes) - kHugeTileBinsBelowLarge;
  return bin < kFirstTileBin + 2 ? kFirstTileBin + 2 : bin;
}

/// Tiles that the huge segments of \p n items take at most (tiles of huge_tile_bin()): n / tile
/// whole tiles plus one partial tile per huge segment.
/// \param n items
/// \param num_segments segments
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::size_t huge_max_tiles(std::size_t n, std::size_t num_segments,
                                                         std::size_t key_bytes) {
  return huge_capacity(n, num_segments) == 0
             ? 0
             : n / bin_max_items(huge_tile_bin(key_bytes)) + huge_capacity(n, num_segments);
}

/// Passes of the large class and the huge path when every bit of a \p key_bytes-byte key is
/// sorted (kBlockRadixBits-bit digits).
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int large_max_passes(std::size_t key_bytes) {
  return static_cast<int>((8 * key_bytes + kBlockRadixBits - 1) / kBlockRadixBits);
}

/// Whether a sort of \p n items in \p num_segments segments queues the huge path at all: when n
/// items can make a huge segment and the segments average at least kHugeMinAverageItems keys.
/// When it does not, the large kernel sorts every large segment, huge or not (one block each).
/// \param n items
/// \param num_segments segments (at least 1)
SORTLAB_HOST_DEVICE constexpr bool huge_path_queued(std::size_t n, std::size_t num_segments) {
  return huge_capacity(n, num_segments) > 0 && n / num_segments >= kHugeMinAverageItems;
}

/// Smallest segment bin \p bin can hold for keys of \p key_bytes bytes (what bounds the length
/// of its id list: non-overlapping segments of at least that size in n items number at most n
/// divided by it).
/// \param bin any bin 0 .. kLargeBin
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr std::uint32_t bin_lower_bound(int bin, std::size_t key_bytes) {
  return bin == kLargeBin ? large_min_items(key_bytes) : bin_min_items(bin);
}

// ---- Classification ----------------------------------------------------------------------------

/// Size of a segment as the sort sees it: end - begin when begin < end <= n, else 0. A segment
/// with end <= begin is empty (CUB's convention). One whose end lies past the input is a caller
/// error that the sort cannot report without a host synchronisation; it is treated as empty so
/// that no kernel reads or writes outside the arrays.
/// \param begin first item of the segment
/// \param end one past its last item
/// \param n number of items in the arrays
SORTLAB_HOST_DEVICE constexpr std::uint32_t segment_size(std::uint32_t begin, std::uint32_t end,
                                                         std::size_t n) {
  return (begin < end && end <= n) ? end - begin : 0u;
}

/// ceil(log2(size)) for 1 <= size <= 2^31: the power-of-two bin of a size.
/// \param size at least 1
SORTLAB_HOST_DEVICE constexpr int ceil_log2(std::uint32_t size) {
  int log = 0;
  while ((std::uint32_t{1} << log) < size) ++log;
  return log;
}

/// The bin of a segment of \p size items for keys of \p key_bytes bytes: kNoBin for 0,
/// ceil(log2(size)) up to one block tile, kLargeBin above.
/// \param size the segment's size (segment_size())
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr int classify_bin(std::uint32_t size, std::size_t key_bytes) {
  if (size == 0) return kNoBin;
  if (size > medium_max_items(key_bytes)) return kLargeBin;
  return ceil_log2(size);
}

/// Whether \p min_bin is a bin that sort_pairs_with_min_bin() can raise segments to for keys of
/// \p key_bytes bytes: 0 (no raise), a small or warp bin, or a tile bin that exists for them.
/// \param min_bin the smallest bin asked for
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr bool valid_min_bin(int min_bin, std::size_t key_bytes) {
  return min_bin >= 0 && min_bin < kLargeBin &&
         (min_bin < kFirstTileBin || tile_bin_exists(min_bin, key_bytes));
}

/// The bin that sorts a segment of \p size items when no bin below \p min_bin may (the
/// measurement knob of sort_pairs_with_min_bin(), with which bench_stage06's bin sweep times a
/// bin's kernel on segments that a smaller bin would take): classify_bin()'s bin, raised to
/// min_bin when it is lower. Empty and large segments keep theirs. 0 changes nothing.
/// \param size the segment's size (segment_size())
/// \param key_bytes sizeof(Key)
/// \param min_bin the smallest bin (valid_min_bin())
SORTLAB_HOST_DEVICE constexpr int classify_bin_at_least(std::uint32_t size, std::size_t key_bytes,
                                                        int min_bin) {
  const int bin = classify_bin(size, key_bytes);
  return bin != kNoBin && bin < min_bin ? min_bin : bin;
}

/// The class a bin belongs to.
/// \param bin 0 .. kNoBin
SORTLAB_HOST_DEVICE constexpr SizeClass class_of_bin(int bin) {
  return bin >= kNoBin          ? SizeClass::kNone
         : bin == kLargeBin     ? SizeClass::kLarge
         : bin >= kNumSmallBins ? SizeClass::kMedium
                                : SizeClass::kSmall;
}

/// The class of a segment of \p size items, for keys of \p key_bytes bytes.
/// \param size the segment's size (segment_size())
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr SizeClass classify_size(std::uint32_t size, std::size_t key_bytes) {
  return class_of_bin(classify_bin(size, key_bytes));
}

/// The class of the segment [begin, end) of an input of \p n items.
/// \param begin first item of the segment
/// \param end one past its last item
/// \param n number of items in the arrays
/// \param key_bytes sizeof(Key)
SORTLAB_HOST_DEVICE constexpr SizeClass classify_segment(std::uint32_t begin, std::uint32_t end,
                                                         std::size_t n, std::size_t key_bytes) {
  return classify_size(segment_size(begin, end, n), key_bytes);
}

/// Short name of a class ("small", "medium", "large", "none") for messages and traces.
/// \param size_class the class
constexpr const char* to_string(SizeClass size_class) {
  switch (size_class) {
    case SizeClass::kSmall:
      return "small";
    case SizeClass::kMedium:
      return "medium";
    case SizeClass::kLarge:
      return "large";
    default:
      return "none";
  }
}

static_assert(kSmallMaxItems == 32, "the small class holds one key per lane of one warp");
static_assert(kWarpMaxItems == 256 && warp_keys_per_lane(kFirstTileBin - 1) == 8,
              "the warp bins end at 8 keys per lane");
static_assert(medium_max_items(4) == 4096 && medium_max_items(8) == 2048,
              "the medium class ends at the largest block tile");
static_assert(tile_shape(kLargeBin - 1).threads == kBlockThreads &&
                  tile_shape(kLargeBin - 1).keys_per_thread == block_keys_per_thread(4),
              "the 4096-key tile is the large class's tile for 4-byte keys");
static_assert(tile_shape(kLargeBin - 2).keys_per_thread == block_keys_per_thread(8),
              "the 2048-key tile is the large class's tile for 8-byte keys");
static_assert(classify_bin(1, 4) == 0 && classify_bin(2, 4) == 1 && classify_bin(3, 4) == 2 &&
                  classify_bin(32, 4) == 5 && classify_bin(33, 4) == 6 &&
                  classify_bin(256, 4) == 8 && classify_bin(257, 4) == 9 &&
                  classify_bin(4096, 4) == 12 && classify_bin(4097, 4) == kLargeBin &&
                  classify_bin(2049, 8) == kLargeBin,
              "every bin holds one power of two of sizes");

/// Every tile's keys fill its shape exactly: the tile of bin b is 2^b keys.
constexpr bool tile_shapes_match_bins() {
  for (int bin = kFirstTileBin; bin < kLargeBin; ++bin)
    if (static_cast<std::uint32_t>(tile_shape(bin).threads * tile_shape(bin).keys_per_thread) !=
        bin_max_items(bin))
      return false;
  return true;
}
static_assert(tile_shapes_match_bins(), "tile b must hold 2^b keys");

/// Every tile's wide passes, where it has any, are one bit wider than its narrow ones (what
/// tile_wide_bits() counts on).
constexpr bool tile_wide_passes_one_bit_wider() {
  for (int bin = kFirstTileBin; bin < kLargeBin; ++bin)
    if (tile_shape(bin).wide_radix_bits != 0 &&
        tile_shape(bin).wide_radix_bits != tile_shape(bin).radix_bits + 1)
      return false;
  return true;
}
static_assert(tile_wide_passes_one_bit_wider(), "wide passes are radix_bits + 1 wide");

}  // namespace sortlab::stage06
