/// \file
/// \brief The benchmarks' command line and key shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/bench_config.hpp"
#include "common/errors.hpp"

namespace sortlab::bench {
namespace {

/// parse_config on the given flags (program name added); returns the config and what is left.
BenchConfig parse(std::vector<std::string> flags, std::vector<std::string>* left = nullptr) {
  flags.insert(flags.begin(), "program");
  std::vector<char*> argv;
  for (std::string& flag : flags) argv.push_back(flag.data());
  int argc = static_cast<int>(argv.size());
  BenchConfig config = parse_config(argc, argv.data());
  if (left != nullptr) left->assign(argv.begin() + 1, argv.begin() + argc);
  return config;
}

TEST(KeyShape, NamePartsRoundTrip) {
  for (const char* name : {"ands:0", "ands:4", "dist:sorted", "dist:equal", "dist:few"})
    EXPECT_EQ(parse_key_shape(name).name_part(), name);
  EXPECT_EQ(parse_key_shape("sorted").name_part(), "dist:sorted");
  EXPECT_EQ(KeyShape{}.name_part(), "ands:0");  // the default is uniform keys
  EXPECT_THROW(parse_key_shape("reversed"), Error);
  EXPECT_THROW(parse_key_shape("ands:-1"), Error);
  EXPECT_THROW(parse_key_shape("ands:"), Error);
}

TEST(BenchConfig, DefaultsSampleWithTheBlockingKernelAndTheNoiseBound) {
  const BenchConfig config = parse({});
  EXPECT_EQ(config.timing, timing::TimingMode::kBlocking);
  EXPECT_TRUE(config.flush_l2);
  EXPECT_EQ(config.flush_method, timing::FlushMethod::kRead);
  EXPECT_GE(config.stopping.min_samples, 10u);
  EXPECT_LE(config.stopping.max_relative_noise, 0.01);
  ASSERT_EQ(config.key_shapes.size(), 1u);
  EXPECT_EQ(config.key_shapes[0].name_part(), "ands:0");
}

TEST(BenchConfig, ParsesSortlabFlagsAndLeavesGoogleBenchmarksAlone) {
  std::vector<std::string> left;
  const BenchConfig config =
      parse({"--sizes=16,20", "--ands=0,2", "--dists=sorted,few", "--types=u32,f32", "--pairs=both",
             "--timing=graph", "--l2_flush=0", "--max_noise=0.005", "--min_samples=20",
             "--max_time=2", "--benchmark_filter=stage0"},
            &left);
  EXPECT_EQ(config.log2_sizes, (std::vector<int>{16, 20}));
  std::vector<std::string> shapes;
  for (const KeyShape& shape : config.key_shapes) shapes.push_back(shape.name_part());
  EXPECT_EQ(shapes, (std::vector<std::string>{"ands:0", "ands:2", "dist:sorted", "dist:few"}));
  EXPECT_EQ(config.key_types, (std::vector<std::string>{"u32", "f32"}));
  EXPECT_TRUE(config.keys && config.pairs);
  EXPECT_EQ(config.timing, timing::TimingMode::kGraph);
  EXPECT_FALSE(config.flush_l2);
  EXPECT_DOUBLE_EQ(config.stopping.max_relative_noise, 0.005);
  EXPECT_EQ(config.stopping.min_samples, 20u);
  EXPECT_DOUBLE_EQ(config.stopping.max_seconds, 2.0);
  EXPECT_EQ(left, (std::vector<std::string>{"--benchmark_filter=stage0"}));
}

TEST(BenchConfig, L2FlushTakesAMethod) {
  EXPECT_EQ(parse({"--l2_flush=1"}).flush_method, timing::FlushMethod::kRead);
  EXPECT_TRUE(parse({"--l2_flush=read"}).flush_l2);
  EXPECT_EQ(parse({"--l2_flush=read"}).flush_method, timing::FlushMethod::kRead);
  const BenchConfig write = parse({"--l2_flush=write"});
  EXPECT_TRUE(write.flush_l2);
  EXPECT_EQ(write.flush_method, timing::FlushMethod::kWrite);
}

TEST(BenchConfig, MinTimeIsTheOldNameOfMaxTime) {
  EXPECT_DOUBLE_EQ(parse({"--min_time=0.05"}).stopping.max_seconds, 0.05);
}

TEST(BenchConfig, RejectsMalformedFlags) {
  EXPECT_THROW(parse({"--sizes=31"}), Error);
  EXPECT_THROW(parse({"--sizes=1x"}), Error);
  EXPECT_THROW(parse({"--types=u64"}), Error);
  EXPECT_THROW(parse({"--pairs=yes"}), Error);
  EXPECT_THROW(parse({"--timing=cupti"}), Error);
  EXPECT_THROW(parse({"--l2_flush=2"}), Error);
  EXPECT_THROW(parse({"--l2_flush=memset"}), Error);
  EXPECT_THROW(parse({"--min_samples=0"}), Error);
  EXPECT_THROW(parse({"--max_time=0"}), Error);
  EXPECT_THROW(parse({"--dists=reversed"}), Error);
}

}  // namespace
}  // namespace sortlab::bench
