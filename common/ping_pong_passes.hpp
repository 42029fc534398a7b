/// \file
/// \brief The pass loop every multi-pass radix sort shares: ping-pong between the caller's output
/// arrays and one scratch copy, so that the last pass lands in the output.
///
/// A least-significant-digit radix sort of b bits in r-bit digits runs ceil(b / r) passes, each
/// reading one array and writing another. sortlab's sorts are out of place (the input stays
/// untouched), so pass p reads what pass p-1 wrote and writes whichever of {output, alternate}
/// makes the parity work out: the passes that have an even number of passes after them write the
/// output. With one pass that is the output directly; with two the alternate, then the output.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/errors.hpp"

namespace sortlab {

/// True when pass \p pass (0-based) of \p passes writes the output arrays, false when it writes
/// the alternate (scratch) arrays. The last pass always writes the output.
constexpr bool pass_writes_output(int pass, int passes) {
  return (passes - 1 - pass) % 2 == 0;
}

/// The arrays one sort call reads and writes. Keys-only sorts leave every value pointer null,
/// and the pass loop keeps them null, since stages pick their keys-only kernels by a null
/// value pointer.
template <typename Key, typename Value>
struct PingPongArrays {
  const Key* keys_in = nullptr;       ///< the caller's input keys (never written)
  Key* keys_out = nullptr;            ///< the caller's output keys
  Key* alternate_keys = nullptr;      ///< scratch keys, n items
  const Value* values_in = nullptr;   ///< the caller's input values, or null (keys only)
  Value* values_out = nullptr;        ///< the caller's output values, or null (keys only)
  Value* alternate_values = nullptr;  ///< scratch values, n items, or null (keys only)
};

/// The arrays of one sort call. Keys-only sorts pass a null \p values_in; all value pointers of
/// the result are then null, whatever \p values_out and \p alternate_values are.
/// \param keys_in the caller's input keys
/// \param keys_out the caller's output keys
/// \param alternate_keys scratch keys (n items)
/// \param values_in the caller's input values, or null for a keys-only sort
/// \param values_out the caller's output values
/// \param alternate_values scratch values (n items)
template <typename Key, typename Value>
PingPongArrays<Key, Value> make_ping_pong_arrays(const Key* keys_in, Key* keys_out,
                                                 Key* alternate_keys, const Value* values_in,
                                                 Value* values_out, Value* alternate_values) {
  PingPongArrays<Key, Value> arrays;
  arrays.keys_in = keys_in;
  arrays.keys_out = keys_out;
  arrays.alternate_keys = alternate_keys;
  if (values_in != nullptr) {
    arrays.values_in = values_in;
    arrays.values_out = values_out;
    arrays.alternate_values = alternate_values;
  }
  return arrays;
}

/// Runs \p passes passes: `run_pass(pass, source_keys, target_keys, source_values,
/// target_values)` for pass = 0 .. passes-1, where pass 0 reads the caller's input, every later
/// pass reads what the one before it wrote, and the last pass writes keys_out (and values_out).
/// The callback launches the pass's kernels; this function only chooses the arrays.
/// \param passes number of passes (at least 1)
/// \param arrays input, output and alternate arrays
/// \param run_pass callable as above
template <typename Key, typename Value, typename RunPass>
void run_ping_pong_passes(int passes, const PingPongArrays<Key, Value>& arrays,
                          RunPass&& run_pass) {
  require(passes >= 1, "run_ping_pong_passes: needs at least one pass");
  const bool with_values = arrays.values_in != nullptr;
  const Key* source_keys = arrays.keys_in;
  const Value* source_values = arrays.values_in;
  for (int pass = 0; pass < passes; ++pass) {
    const bool to_output = pass_writes_output(pass, passes);
    Key* target_keys = to_output ? arrays.keys_out : arrays.alternate_keys;
    Value* target_values = nullptr;
    if (with_values) target_values = to_output ? arrays.values_out : arrays.alternate_values;
    run_pass(pass, source_keys, target_keys, source_values, target_values);
    source_keys = target_keys;
    source_values = target_values;
  }
}

/// The result of a sort with nothing to reorder (no bits to sort, or n <= 1): the output is a
/// copy of the input. Asynchronous on \p stream.
/// \param arrays the caller's arrays (the alternates are not used)
/// \param n number of items
/// \param stream CUDA stream
template <typename Key, typename Value>
void copy_input_to_output(const PingPongArrays<Key, Value>& arrays, std::size_t n,
                          cudaStream_t stream) {
  if (n == 0) return;
  SORTLAB_CUDA_CHECK(cudaMemcpyAsync(arrays.keys_out, arrays.keys_in, n * sizeof(Key),
                                     cudaMemcpyDeviceToDevice, stream));
  if (arrays.values_in != nullptr)
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(arrays.values_out, arrays.values_in, n * sizeof(Value),
                                       cudaMemcpyDeviceToDevice, stream));
}

}  // namespace sortlab
