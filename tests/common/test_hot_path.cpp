/// \file
/// \brief The host work every sort call repeats (argument checks, the scratch plan, the device
/// scan's scratch size) allocates nothing on the heap: messages are built only on failure and
/// plans live in fixed arrays. This program replaces operator new to count allocations, so it
/// is a program of its own.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "common/device_scan.hpp"
#include "common/scratch_layout.hpp"
#include "common/sort_options.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t bytes) {
  ++g_allocations;
  if (void* memory = std::malloc(bytes == 0 ? 1 : bytes)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}

namespace sortlab {
namespace {

/// Heap allocations made while \p action runs.
template <typename Action>
long allocations_during(Action action) {
  const long before = g_allocations.load();
  action();
  return g_allocations.load() - before;
}

const void* fake_address(int slot) {
  return reinterpret_cast<const void*>(std::uintptr_t{1} << 40 | std::uintptr_t(slot) << 36);
}

TEST(HotPath, TheCounterSeesAllocations) {  // the instrument itself works
  static int* volatile escaped = nullptr;   // keeps the compiler from eliding the new/delete pair
  EXPECT_GE(allocations_during([] {
              escaped = new int(3);
              delete escaped;
            }),
            1);
}

TEST(HotPath, ValidArgumentsAllocateNothing) {
  EXPECT_EQ(allocations_during([] {
              const SortArrays arrays = validate_sort_arguments<std::uint32_t>(
                  fake_address(0), 1000, SortOptions{0, 32, true}, fake_address(1), fake_address(2),
                  fake_address(3), fake_address(4));
              std::size_t bytes = 4096;
              answer_size_query(fake_address(0), bytes, 4096, arrays);
              require_value_pointers(fake_address(0), 1000, fake_address(3), fake_address(4));
            }),
            0);
}

TEST(HotPath, PlanningScratchAllocatesNothing) {
  EXPECT_EQ(allocations_during([] {
              ScratchLayout layout;
              for (int i = 0; i < 8; ++i) layout.add<std::uint32_t>(std::size_t{1} << 20);
              (void)layout.total_bytes();
              (void)device_exclusive_sum_temp_bytes(std::size_t{1} << 30);
              (void)device_exclusive_sum_bytes(std::size_t{1} << 30);
            }),
            0);
}

TEST(HotPath, FailedChecksStillSayWhatIsWrong) {
  try {
    validate_sort_arguments<std::uint32_t>(fake_address(0), 10, SortOptions{0, 40, false},
                                           fake_address(1), fake_address(2));
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("end_bit = 40"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace sortlab
