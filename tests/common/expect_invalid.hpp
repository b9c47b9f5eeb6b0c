// The owning-API tests' check of a caller mistake: std::invalid_argument whose
// message names the problem.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace kselect::test {

// Runs f, expects std::invalid_argument whose message contains `needle`.
template <class F>
void expect_invalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace kselect::test
