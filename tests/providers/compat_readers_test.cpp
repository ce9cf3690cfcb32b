// Nothing declared that nothing reads: every key of a wire's compat vocabulary (which the catalog
// loader validates and lets rows set) must be read by the code of that wire, the machinery all
// wires share, or the catalog's own resolution. The check reads the sources: a key counts as read
// where its quoted name appears outside the vocabulary's own declaration (src/catalog/compat.cpp).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "support/catch.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = AGENTKIT_SOURCE_DIR;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The .cpp/.hpp files directly in `dir` (recursive when asked), compat.cpp excluded.
void collect(const fs::path& dir, bool recursive, std::vector<fs::path>& out) {
  auto take = [&](const fs::directory_entry& e) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp") &&
        e.path().filename() != "compat.cpp") {
      out.push_back(e.path());
    }
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) take(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) take(e);
  }
}

// Where a key of `api`'s vocabulary may be read.
std::vector<fs::path> reader_files(std::string_view api) {
  static const std::map<std::string_view, std::vector<std::string>> kWireDirs = {
      {agentkit::catalog::kAnthropicMessages, {"anthropic"}},
      {agentkit::catalog::kOpenAiCompletions, {"openai_completions", "openai_shared"}},
      {agentkit::catalog::kOpenAiResponses, {"openai_responses", "openai_shared"}},
      {agentkit::catalog::kGoogleGenerativeAi, {"google"}},
      {agentkit::catalog::kOllamaChat, {"ollama"}},
  };
  std::vector<fs::path> files;
  const fs::path providers = kSource / "src" / "providers";
  collect(providers, false, files);                   // pipeline, repair, retry, ...
  collect(providers / "wire_common", true, files);    // shared by the five wires
  collect(kSource / "src" / "catalog", true, files);  // resolution, clamping, thinking values
  for (const auto& dir : kWireDirs.at(api)) collect(providers / dir, true, files);
  return files;
}

}  // namespace

TEST_CASE("every key of the compat vocabulary has a reader in the wire it configures") {
  REQUIRE(fs::exists(kSource / "src" / "providers"));
  for (std::string_view api :
       {agentkit::catalog::kAnthropicMessages, agentkit::catalog::kOpenAiCompletions,
        agentkit::catalog::kOpenAiResponses, agentkit::catalog::kGoogleGenerativeAi,
        agentkit::catalog::kOllamaChat}) {
    std::string sources;
    for (const auto& f : reader_files(api)) sources += read_all(f);
    const auto keys = agentkit::catalog::compat_keys(api);
    CHECK_FALSE(keys.empty());
    for (std::string_view key : keys) {
      INFO("api " << api << ", compat key " << key);
      CHECK(sources.find("\"" + std::string(key) + "\"") != std::string::npos);
    }
  }
}
