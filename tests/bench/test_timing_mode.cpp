/// \file
/// \brief The --timing and --l2_flush flags' values.
#include <gtest/gtest.h>

#include "bench/timing/timing_mode.hpp"
#include "common/errors.hpp"

namespace sortlab::bench::timing {
namespace {

TEST(TimingMode, NamesRoundTrip) {
  for (TimingMode mode : {TimingMode::kBlocking, TimingMode::kGraph, TimingMode::kEvents})
    EXPECT_EQ(parse_timing_mode(to_string(mode)), mode);
  EXPECT_EQ(to_string(TimingMode::kBlocking), "blocking");
}

TEST(TimingMode, UnknownNamesSayWhatIsValid) {
  try {
    parse_timing_mode("cupti");
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("blocking, graph, events"), std::string::npos);
  }
}

TEST(FlushMethod, NamesAreTheFlagValues) {
  EXPECT_EQ(to_string(FlushMethod::kRead), "read");
  EXPECT_EQ(to_string(FlushMethod::kWrite), "write");
}

}  // namespace
}  // namespace sortlab::bench::timing
