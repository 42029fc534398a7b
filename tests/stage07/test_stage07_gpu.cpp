/// \file
/// \brief Stage 07 top-k on the GPU (the single-block schedule passed all of these on an H100 on
/// 2026-11-23, compute-sanitizer memcheck and racecheck clean; no speed measured): against the
/// CPU reference on fresh random inputs of every harness distribution, for all seven value types;
/// all-equal rows, many ties at the k-th value, NaNs and infinities; k = 1, k = row length, rows of
/// length 1, rows far longer than a block's 256-value chunk, many short rows; largest and smallest;
/// sorted (as sequences) and unsorted (as sets of (value, column)); outputs poisoned before every
/// run; a reused scratch; CUDA graph capture and replay. Every shape honours SORTLAB_TEST_MAX_N
/// (rows x row_length values at most; bigger shapes are skipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_model.hpp"
#include "common/cuda_stream.hpp"
#include "common/device_buffer.hpp"
#include "common/distributions.hpp"
#include "common/errors.hpp"
#include "tests/support/test_inputs.hpp"

namespace {

namespace stage07 = sortlab::stage07;
using sortlab::DeviceBuffer;
using sortlab::testing::case_label;
using sortlab::testing::max_test_n;
using sortlab::testing::test_seed;
using stage07::TopkOptions;

/// A matrix of rows x row_length values.
struct Shape {
  std::size_t rows;
  std::size_t row_length;
};

/// The shapes every type runs: rows of length 1, a few short rows, rows around the 256-value
/// chunk, many short rows, and long rows; those above SORTLAB_TEST_MAX_N are dropped.
std::vector<Shape> all_shapes() {
  const std::vector<Shape> shapes = {{1, 1},    {9, 1},    {3, 7},    {5, 255},
                                     {4, 256},  {3, 257},  {300, 33}, {4, 1000},
                                     {1, 2100}, {2, 5000}, {1, 70000}};
  std::vector<Shape> kept;
  for (const Shape& shape : shapes)
    if (shape.rows * shape.row_length <= max_test_n()) kept.push_back(shape);
  return kept;
}

/// The k values a shape runs: 1, 2, 31, half, length - 1, length and one past the sorted limit,
/// each only where 1 <= k <= length.
std::vector<std::size_t> ks_for(std::size_t length) {
  std::vector<std::size_t> ks;
  for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{31}, length / 2, length - 1,
                        length, stage07::kMaxSortedK, stage07::kMaxSortedK + 1})
    if (k >= 1 && k <= length && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  return ks;
}

/// Runs topk on \p input (rows x row_length) with outputs and scratch poisoned first, and checks
/// it against the reference: as sequences when sorted, as sets of (value, column) otherwise.
/// Returns the difference ("" when equal).
template <typename T>
std::string run_and_compare(const std::vector<T>& input, const Shape& shape, std::size_t k,
                            const TopkOptions& options) {
  const std::size_t answers = shape.rows * k;
  DeviceBuffer<T> values_in(input), values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  values_out.poison();
  indices_out.poison();
  std::size_t temp_bytes = 0;
  stage07::topk<T>(nullptr, temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                   values_out.data(), indices_out.data(), options);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  temp.poison();
  stage07::topk<T>(temp.data(), temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                   values_out.data(), indices_out.data(), options);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> want_values;
  std::vector<std::int64_t> want_indices;
  stage07::reference_topk(input, shape.rows, shape.row_length, k, options.largest, want_values,
                          want_indices);
  return stage07::compare_topk(want_values, want_indices, values_out.download(),
                               indices_out.download(), shape.rows, k, options.sorted);
}

/// Every option for one input: largest and smallest, sorted (where k allows) and unsorted.
template <typename T>
void check_all_options(const std::vector<T>& input, const Shape& shape, std::size_t k,
                       const std::string& label) {
  for (bool largest : {true, false})
    for (bool sorted : {true, false}) {
      if (sorted && k > stage07::kMaxSortedK) continue;
      SCOPED_TRACE(label + " rows=" + std::to_string(shape.rows) + " k=" + std::to_string(k) +
                   (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
      const std::string difference = run_and_compare(input, shape, k, TopkOptions{largest, sorted});
      ASSERT_TRUE(difference.empty()) << difference;
    }
}

template <typename T>
class Stage07Gpu : public ::testing::Test {};
using TopkTypes = ::testing::Types<float, std::uint32_t, std::int32_t, double, std::int64_t, __half,
                                   __nv_bfloat16>;
// Named by index, not by type (f32 is 0), so the device check's sanitizer filter (*/0.*) selects
// the f32 instance.
TYPED_TEST_SUITE(Stage07Gpu, TopkTypes);

// Every distribution (all-equal, few distinct, float specials with NaN and infinities, ...) on
// every shape and every k.
TYPED_TEST(Stage07Gpu, EveryDistributionShapeAndK) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const Shape& shape : all_shapes())
    for (sortlab::Distribution distribution : sortlab::all_distributions()) {
      const std::size_t n = shape.rows * shape.row_length;
      const auto input = sortlab::generate_keys<T>(distribution, n, seed + n);
      for (std::size_t k : ks_for(shape.row_length)) {
        check_all_options(input, shape, k, case_label(n, sortlab::to_string(distribution), seed));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// Many values equal to the k-th one: the answer takes the lowest columns among them.
TYPED_TEST(Stage07Gpu, ManyTiesAtTheKthValue) {
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::mt19937_64 random(seed);
  for (const Shape& shape : all_shapes()) {
    if (shape.row_length < 8) continue;
    std::vector<T> input(shape.rows * shape.row_length);
    const auto three = sortlab::generate_keys<T>(sortlab::Distribution::kSorted, 3, seed);
    // Mostly the middle value, a few above and below it: k in the middle falls inside the ties.
    for (auto& value : input) {
      const auto draw = random() % 16;
      value = draw == 0 ? three[2] : draw == 1 ? three[0] : three[1];
    }
    const std::size_t k = shape.row_length / 2;
    check_all_options(input, shape, k, case_label(input.size(), "ties", seed));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// k = 0 and zero rows are the empty result: nothing is written, the poison stays.
TEST(Stage07GpuEdges, EmptyResultsWriteNothing) {
  DeviceBuffer<float> values_in(std::vector<float>(40, 1.0f)), values_out(8);
  DeviceBuffer<std::int64_t> indices_out(8);
  values_out.poison();
  indices_out.poison();
  DeviceBuffer<unsigned char> temp(1);
  std::size_t bytes = 1;
  stage07::topk<float>(temp.data(), bytes, values_in.data(), 4, 10, 0, values_out.data(),
                       indices_out.data());
  stage07::topk<float>(temp.data(), bytes, values_in.data(), 0, 10, 2, values_out.data(),
                       indices_out.data());
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::int64_t index : indices_out.download())
    EXPECT_EQ(static_cast<std::uint64_t>(index), 0xa5a5a5a5a5a5a5a5ull);
  for (float value : values_out.download()) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    EXPECT_EQ(bits, 0xa5a5a5a5u);
  }
}

// NaNs of both signs, infinities and signed zeros by hand, as in the CPU test.
TEST(Stage07GpuEdges, NanIsLargestOnTheGpuToo) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> row = {1.0f, nan, -inf, inf, -nan, 0.0f, -0.0f};
  for (std::size_t k = 1; k <= row.size(); ++k) {
    check_all_options(row, Shape{1, row.size()}, k, "hand-made NaN row");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

/// "stage07 usage": the query-then-run convention (the public header's snippet).
TEST(Stage07GpuEdges, UsageSnippet) {
  const std::vector<float> host = {3, 1, 4, 1, 5, 9, 2, 6};  // two rows of four
  DeviceBuffer<float> values_in(host), values_out(4);
  DeviceBuffer<std::int64_t> indices_out(4);
  //! [stage07 usage]
  std::size_t temp_bytes = 0;  // 1. ask for the scratch size (no pointer is needed)
  sortlab::stage07::topk<float>(nullptr, temp_bytes, values_in.data(), 2, 4, 2, values_out.data(),
                                indices_out.data());
  DeviceBuffer<unsigned char> temp(temp_bytes);  // 2. allocate it (at least one byte)
  sortlab::stage07::topk<float>(temp.data(), temp_bytes, values_in.data(), 2, 4, 2,
                                values_out.data(), indices_out.data());  // 3. top 2 of each row
  //! [stage07 usage]
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(values_out.download(), (std::vector<float>{4, 3, 9, 6}));
  EXPECT_EQ(indices_out.download(), (std::vector<std::int64_t>{2, 0, 1, 3}));
}

// One scratch, poisoned once, reused by calls of different shapes and options.
TEST(Stage07GpuEdges, ReusedScratch) {
  const std::uint64_t seed = test_seed();
  DeviceBuffer<unsigned char> temp(4096);
  temp.poison();
  for (const Shape& shape : all_shapes()) {
    const auto input = sortlab::generate_keys<float>(sortlab::Distribution::kUniform,
                                                     shape.rows * shape.row_length, seed);
    const std::size_t k = std::min<std::size_t>(shape.row_length, 5);
    DeviceBuffer<float> values_in(input), values_out(shape.rows * k);
    DeviceBuffer<std::int64_t> indices_out(shape.rows * k);
    values_out.poison();
    indices_out.poison();
    std::size_t bytes = temp.size();
    stage07::topk<float>(temp.data(), bytes, values_in.data(), shape.rows, shape.row_length, k,
                         values_out.data(), indices_out.data());
    SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> want_values;
    std::vector<std::int64_t> want_indices;
    stage07::reference_topk(input, shape.rows, shape.row_length, k, true, want_values,
                            want_indices);
    const std::string difference =
        stage07::compare_topk(want_values, want_indices, values_out.download(),
                              indices_out.download(), shape.rows, k, true);
    EXPECT_TRUE(difference.empty()) << difference;
  }
}

// The call queues its work on its stream and nothing else: captured into a CUDA graph once,
// the graph picks the top-k of whatever the input holds each time it is replayed.
TEST(Stage07GpuEdges, CudaGraphCaptureAndReplay) {
  const std::uint64_t seed = test_seed();
  const sortlab::CudaStream stream;
  // 64 rows of 1000, fewer under a small SORTLAB_TEST_MAX_N (but always one).
  const Shape shape{std::min<std::size_t>(64, std::max<std::size_t>(1, max_test_n() / 1000)), 1000};
  const std::size_t k = 50, n = shape.rows * shape.row_length, answers = shape.rows * k;
  DeviceBuffer<float> values_in(n), values_out(answers);
  DeviceBuffer<std::int64_t> indices_out(answers);
  std::size_t temp_bytes = 0;
  stage07::topk<float>(nullptr, temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                       values_out.data(), indices_out.data());
  DeviceBuffer<unsigned char> temp(temp_bytes);
  SORTLAB_CUDA_CHECK(cudaDeviceSynchronize());  // the allocations are done before the capture

  cudaGraph_t graph = nullptr;
  SORTLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  stage07::topk<float>(temp.data(), temp_bytes, values_in.data(), shape.rows, shape.row_length, k,
                       values_out.data(), indices_out.data(), TopkOptions{true, true},
                       stream.get());
  SORTLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  SORTLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto input = sortlab::generate_keys<float>(
        replay == 1 ? sortlab::Distribution::kFloatSpecials : sortlab::Distribution::kUniform, n,
        seed + static_cast<std::uint64_t>(replay));
    SORTLAB_CUDA_CHECK(cudaMemcpyAsync(values_in.data(), input.data(), n * sizeof(float),
                                       cudaMemcpyHostToDevice, stream.get()));
    values_out.fill_bytes(sortlab::kPoisonByte, stream.get());
    indices_out.fill_bytes(sortlab::kPoisonByte, stream.get());
    SORTLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    stream.synchronize();
    std::vector<float> want_values;
    std::vector<std::int64_t> want_indices;
    stage07::reference_topk(input, shape.rows, shape.row_length, k, true, want_values,
                            want_indices);
    const std::string difference =
        stage07::compare_topk(want_values, want_indices, values_out.download(),
                              indices_out.download(), shape.rows, k, true);
    EXPECT_TRUE(difference.empty()) << "replay " << replay << ": " << difference;
  }
  SORTLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SORTLAB_CUDA_CHECK(cudaGraphDestroy(graph));
}

}  // namespace
