#include "support/shared_testdata.hpp"

#include <cstdlib>
#include <cstring>
#include <system_error>

namespace agentkit::testing {

std::filesystem::path shared_testdata_root() {
  if (const char* env = std::getenv("AGENTKIT_SHARED_TESTDATA"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::filesystem::path(AGENTKIT_SOURCE_DIR).parent_path() / "shared" / "testdata";
}

std::optional<std::filesystem::path> shared_testdata(const std::string& relative) {
  std::error_code ec;
  std::filesystem::path p = shared_testdata_root() / relative;
  if (!std::filesystem::exists(p, ec)) return std::nullopt;
  return p;
}

bool shared_testdata_required() {
  const char* v = std::getenv("AGENTKIT_REQUIRE_INTEROP");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace agentkit::testing
