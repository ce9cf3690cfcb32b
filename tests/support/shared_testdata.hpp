// Locating the public test data that lives outside the project, in ../shared/testdata (real vendor
// replies, JSONTestSuite, skills, context files, images; each folder has a README of sources and
// licences). It is never copied into the project. The rule when it is missing: a test skips with a
// message, unless AGENTKIT_REQUIRE_INTEROP=1 (as CI sets it), then it fails.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "support/catch.hpp"

namespace agentkit::testing {

// The shared test data folder: $AGENTKIT_SHARED_TESTDATA when set, else <source>/../shared/testdata.
std::filesystem::path shared_testdata_root();
// shared_testdata_root()/relative when it exists, else nullopt.
std::optional<std::filesystem::path> shared_testdata(const std::string& relative);
// True when AGENTKIT_REQUIRE_INTEROP=1: missing shared data is then a failure, not a skip.
bool shared_testdata_required();

}  // namespace agentkit::testing

// Use at the top of a test: binds `var` to the folder or file shared_testdata(relative), and
// returns from the test (a skip, with a message) when it is absent — or fails when it is required.
#define AGENTKIT_SHARED_TESTDATA(var, relative)                                                   \
  const auto var##_found = ::agentkit::testing::shared_testdata(relative);                       \
  if (!var##_found) {                                                                             \
    if (::agentkit::testing::shared_testdata_required()) {                                        \
      FAIL("shared test data missing: " << (relative) << " under "                                \
                                        << ::agentkit::testing::shared_testdata_root());          \
    }                                                                                             \
    WARN("SKIPPED: shared test data missing: " << (relative) << " under "                         \
                                               << ::agentkit::testing::shared_testdata_root());   \
    return;                                                                                       \
  }                                                                                               \
  const std::filesystem::path& var = *var##_found
