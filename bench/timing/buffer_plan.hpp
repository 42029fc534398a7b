/// \file
/// \brief Sizes the timing core derives from the GPU: how many rotating input sets a benchmark
/// needs so that its inputs never sit in the L2, how large the L2 flush is, and the copy that is
/// every sort's common floor. Plain C++, unit-tested on the CPU.
#pragma once

#include <cstddef>

namespace sortlab::bench::timing {

/// How many times the L2 the rotating inputs of one benchmark must exceed together.
inline constexpr double kRotatingL2Multiple = 2.0;

/// How many times the L2 the flush buffer is (read before every sample: L2Flusher).
inline constexpr std::size_t kFlushL2Multiple = 2;

/// Number of rotating input sets (keys and values of one sort each) so that together they exceed
/// kRotatingL2Multiple × the L2 at every size, bounded by the memory there is for them: at least
/// 1 (one input larger than the budget is still measured; the L2 flush keeps it honest), at most
/// memory_budget_bytes / bytes_per_input.
/// \param bytes_per_input bytes of one input set (n × (key bytes + value bytes))
/// \param l2_bytes size of the GPU's L2 cache (cudaDevAttrL2CacheSize)
/// \param memory_budget_bytes device memory the inputs may take
std::size_t rotating_buffer_count(std::size_t bytes_per_input, std::size_t l2_bytes,
                                  std::size_t memory_budget_bytes);

/// Bytes of the buffer read (or, with FlushMethod::kWrite, written) before every sample to evict
/// the L2: kFlushL2Multiple × L2 (the H100's L2 is two partitions that may each hold a line, so
/// only touching more than it holds surely replaces every line).
/// \param l2_bytes size of the GPU's L2 cache
std::size_t l2_flush_bytes(std::size_t l2_bytes);

/// Size of the device-to-device copy that is a sort's common floor: one read and one write of
/// every key and value, i.e. a cudaMemcpy of n × (key_bytes + value_bytes) bytes. Every design
/// of a table is compared with the same copy, whatever its own bytes model says.
/// \param n number of keys
/// \param key_bytes bytes per key
/// \param value_bytes bytes per value (0 for keys only)
std::size_t copy_floor_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes);

/// "Copies' worth": how many floor copies the sort's time would pay for (sort time / copy time).
/// 1.0 is the floor; a design that moves more bytes scores worse, never better. Returns 0 when the
/// copy time is not positive.
/// \param sort_ms the sort's median time
/// \param copy_ms the median time of copy_floor_bytes() copied device to device
double copies_worth(double sort_ms, double copy_ms);

}  // namespace sortlab::bench::timing
