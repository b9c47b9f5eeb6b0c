// core::normalize_ranks and core::in_caller_order.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/ranks.hpp"

namespace kselect {
namespace {

TEST(Ranks, SortedUniqueIsKept) {
  const std::vector<std::int64_t> r = {0, 3, 9};
  const auto set = core::normalize_ranks(r, 10);
  EXPECT_EQ(set.sorted, r);
  EXPECT_EQ(set.slot, (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(Ranks, UnsortedWithRepeatsMapsBack) {
  const std::vector<std::int64_t> r = {7, 2, 7, 0, 2};
  const auto set = core::normalize_ranks(r, 8);
  EXPECT_EQ(set.sorted, (std::vector<std::int64_t>{0, 2, 7}));
  const std::vector<char> by_sorted = {'a', 'c', 'h'};
  EXPECT_EQ(core::in_caller_order(set, std::span<const char>(by_sorted)),
            (std::vector<char>{'h', 'c', 'h', 'a', 'c'}));
}

TEST(Ranks, Empty) {
  const auto set = core::normalize_ranks({}, 5);
  EXPECT_TRUE(set.sorted.empty());
  EXPECT_TRUE(set.slot.empty());
}

TEST(Ranks, OutOfRangeNamesIndexValueAndN) {
  const std::vector<std::int64_t> r = {1, 2, 10};
  try {
    core::normalize_ranks(r, 10);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ranks[2]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("= 10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("n = 10"), std::string::npos) << msg;
  }
  const std::vector<std::int64_t> negative = {-1};
  EXPECT_THROW(core::normalize_ranks(negative, 10), std::invalid_argument);
  EXPECT_THROW(core::check_rank(0, 0, 0), std::invalid_argument);
  EXPECT_NO_THROW(core::check_rank(0, 0, 1));
}

}  // namespace
}  // namespace kselect
