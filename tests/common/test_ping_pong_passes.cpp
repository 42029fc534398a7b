/// \file
/// \brief The shared pass loop: which arrays each pass reads and writes (host pointers only; the
/// loop itself launches nothing, so this runs without a GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/errors.hpp"
#include "common/ping_pong_passes.hpp"

namespace sortlab {
namespace {

TEST(PingPongPasses, TheLastPassAlwaysWritesTheOutput) {
  for (int passes = 1; passes <= 33; ++passes) {
    EXPECT_TRUE(pass_writes_output(passes - 1, passes)) << passes;
    for (int pass = 0; pass + 1 < passes; ++pass)  // neighbours alternate
      EXPECT_NE(pass_writes_output(pass, passes), pass_writes_output(pass + 1, passes));
  }
  EXPECT_FALSE(pass_writes_output(0, 2));
  EXPECT_TRUE(pass_writes_output(0, 3));
}

// Each simulated pass adds 1 to every key and 10 to every value, reading the source and writing
// the target it is given: the output must hold input + passes, and the input must be unchanged.
TEST(PingPongPasses, EveryPassReadsWhatThePreviousOneWrote) {
  const std::vector<std::uint32_t> keys_in = {5, 3, 9, 1}, values_in = {0, 1, 2, 3};
  for (int passes = 1; passes <= 8; ++passes) {
    SCOPED_TRACE("passes=" + std::to_string(passes));
    std::vector<std::uint32_t> keys_out(4, 0xDEAD), alternate_keys(4, 0xBEEF);
    std::vector<std::uint32_t> values_out(4, 0xDEAD), alternate_values(4, 0xBEEF);
    const auto arrays =
        make_ping_pong_arrays(keys_in.data(), keys_out.data(), alternate_keys.data(),
                              values_in.data(), values_out.data(), alternate_values.data());
    int calls = 0;
    const std::uint32_t* previous_target = keys_in.data();
    run_ping_pong_passes(passes, arrays,
                         [&](int pass, const std::uint32_t* source_keys, std::uint32_t* target_keys,
                             const std::uint32_t* source_values, std::uint32_t* target_values) {
                           EXPECT_EQ(pass, calls++);
                           EXPECT_EQ(source_keys, previous_target);
                           EXPECT_NE(static_cast<const void*>(target_keys),
                                     static_cast<const void*>(source_keys));
                           EXPECT_NE(static_cast<const void*>(target_keys), keys_in.data());
                           ASSERT_NE(source_values, nullptr);
                           ASSERT_NE(target_values, nullptr);
                           for (int i = 0; i < 4; ++i) {
                             target_keys[i] = source_keys[i] + 1;
                             target_values[i] = source_values[i] + 10;
                           }
                           previous_target = target_keys;
                         });
    EXPECT_EQ(calls, passes);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(keys_out[i], keys_in[i] + static_cast<std::uint32_t>(passes));
      EXPECT_EQ(values_out[i], values_in[i] + 10u * static_cast<std::uint32_t>(passes));
    }
    EXPECT_EQ(keys_in, (std::vector<std::uint32_t>{5, 3, 9, 1}));
  }
}

TEST(PingPongPasses, KeysOnlySortsSeeNullValuePointersInEveryPass) {
  std::vector<float> keys_in(3, 1.0f), keys_out(3), alternate_keys(3);
  std::vector<std::uint32_t> stray_values(3);  // a keys-only sort ignores value arrays it gets
  const std::uint32_t* no_values = nullptr;
  const auto arrays = make_ping_pong_arrays(keys_in.data(), keys_out.data(), alternate_keys.data(),
                                            no_values, stray_values.data(), stray_values.data());
  EXPECT_EQ(arrays.values_out, nullptr);
  EXPECT_EQ(arrays.alternate_values, nullptr);
  int calls = 0;
  run_ping_pong_passes(4, arrays,
                       [&](int, const float*, float*, const std::uint32_t* source_values,
                           std::uint32_t* target_values) {
                         ++calls;
                         EXPECT_EQ(source_values, nullptr);
                         EXPECT_EQ(target_values, nullptr);
                       });
  EXPECT_EQ(calls, 4);
}

TEST(PingPongPasses, ZeroPassesIsAnError) {
  PingPongArrays<std::uint32_t, std::uint32_t> arrays;
  EXPECT_THROW(run_ping_pong_passes(0, arrays, [](auto...) {}), Error);
}

}  // namespace
}  // namespace sortlab
