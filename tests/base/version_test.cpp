#include "agentkit/base/version.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "support/catch.hpp"

namespace {

// The VERSION of the top-level project() call, read from CMakeLists.txt as a person would.
std::string project_version() {
  std::ifstream in(std::string(AGENTKIT_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::smatch m;
  const std::regex project(R"(project\(\s*agentkit\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+))");
  if (!std::regex_search(s, m, project)) return {};
  return m[1].str();
}

}  // namespace

TEST_CASE("the generated version is project(VERSION) from CMakeLists.txt") {
  const std::string expected = project_version();
  REQUIRE_FALSE(expected.empty());
  CHECK(std::string(agentkit::kVersion) == expected);
  const std::string parts = std::to_string(agentkit::kVersionMajor) + "." +
                            std::to_string(agentkit::kVersionMinor) + "." +
                            std::to_string(agentkit::kVersionPatch);
  CHECK(parts == expected);
}

TEST_CASE("the user agent is the product name and the version") {
  CHECK(std::string(agentkit::kUserAgent) ==
        std::string(agentkit::kProductName) + "/" + std::string(agentkit::kVersion));
  CHECK(agentkit::kProductName == "agentkit-cpp");
}
