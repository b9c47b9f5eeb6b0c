// Everything the test suites share: generators, the reference, sizes and ranks.
#pragma once

#include "common/generate.hpp"
#include "common/reference.hpp"
#include "common/rng.hpp"
#include "common/sizes.hpp"
