// Header precedence and validation (REQ-PROV-18, REQ-AUTH-02, REQ-SEC-13).
#include <array>

#include "agentkit/providers/headers.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::providers;

namespace {

std::optional<std::string_view> get(const http::Headers& h, std::string_view name) { return h.get(name); }

}  // namespace

TEST_CASE("a higher layer beats a lower one: attribution < provider default < catalog < configuration < per request") {
  HeaderOverrides attribution = {{"X-Title", "AgentKit"}, {"A", "attribution"}};
  HeaderOverrides wire = {{"content-type", "application/json"}, {"A", "wire"}, {"B", "wire"}};
  HeaderOverrides catalog = {{"B", "catalog"}, {"C", "catalog"}};
  HeaderOverrides config = {{"C", "config"}, {"D", "config"}};
  HeaderOverrides request = {{"D", "request"}, {"X-Title", "mine"}};
  std::array layers = {HeaderLayer{"attribution", &attribution, true}, HeaderLayer{"provider default", &wire},
                       HeaderLayer{"catalog", &catalog}, HeaderLayer{"configuration", &config},
                       HeaderLayer{"per request", &request}};
  auto h = merge_headers(layers);
  REQUIRE(h);
  CHECK(get(*h, "A") == "wire");
  CHECK(get(*h, "B") == "catalog");
  CHECK(get(*h, "C") == "config");
  CHECK(get(*h, "D") == "request");
  CHECK(get(*h, "x-title") == "mine");  // the caller's attribution value wins over the default
  CHECK(h->size() == 6);
}

TEST_CASE("merging the layers allocates the working list once and the result once") {
  // Short names and values: no string allocates, so what is counted is the lists.
  HeaderOverrides wire = {{"accept", "a"}, {"x-a", "1"}, {"x-b", "2"}};
  HeaderOverrides config = {{"x-c", "3"}, {"x-d", "4"}, {"x-e", "5"}, {"x-a", "6"}};
  std::array layers = {HeaderLayer{"provider default", &wire},
                       HeaderLayer{"configuration", &config}};
  std::size_t allocations = 0;
  std::size_t merged = 0;
  {
    testing::AllocCounter counter;
    auto h = merge_headers(layers);
    merged = h ? h->size() : 0;
    allocations = counter.stats().count;
  }
  CHECK(merged == 6);
  CHECK(allocations <= 2);  // grown one slot at a time, the working list alone took four
}

TEST_CASE("names compare case-insensitively and keep the spelling of the layer that decided") {
  HeaderOverrides low = {{"x-api-key", "k"}};
  HeaderOverrides high = {{"X-API-KEY", "k2"}};
  std::array layers = {HeaderLayer{"provider default", &low}, HeaderLayer{"per request", &high}};
  auto h = merge_headers(layers);
  REQUIRE(h);
  REQUIRE(h->size() == 1);
  CHECK(h->begin()->name == "X-API-KEY");
  CHECK(h->begin()->value == "k2");
}

TEST_CASE("an explicit delete removes a default; a caller's empty value is sent empty") {
  HeaderOverrides wire = {{"x-api-key", "secret"}, {"anthropic-version", "2023-06-01"}};
  HeaderOverrides request = {{"x-api-key", std::nullopt}, {"X-Proxy", "abc"}, {"X-Empty", ""}};
  std::array layers = {HeaderLayer{"provider default", &wire}, HeaderLayer{"per request", &request}};
  auto h = merge_headers(layers);
  REQUIRE(h);
  CHECK_FALSE(h->contains("x-api-key"));
  CHECK(get(*h, "X-Proxy") == "abc");
  CHECK(get(*h, "X-Empty") == "");
  CHECK(get(*h, "anthropic-version") == "2023-06-01");
}

TEST_CASE("a header whose value resolved to nothing is dropped, not sent blank") {
  HeaderOverrides credential = {{"Authorization", ""}, {"x-api-key", ""}};
  std::array layers = {HeaderLayer{"credential", &credential, true}};
  auto h = merge_headers(layers);
  REQUIRE(h);
  CHECK(h->empty());
}

TEST_CASE("a delete in a high layer also removes a value resolved in a low one, and a later set restores it") {
  HeaderOverrides low = {{"X-Title", "AgentKit"}};
  HeaderOverrides mid = {{"X-Title", std::nullopt}};
  HeaderOverrides high = {{"x-title", "back"}};
  std::array deleted = {HeaderLayer{"attribution", &low, true}, HeaderLayer{"configuration", &mid}};
  CHECK(merge_headers(deleted)->empty());
  std::array restored = {HeaderLayer{"attribution", &low, true}, HeaderLayer{"configuration", &mid},
                         HeaderLayer{"per request", &high}};
  CHECK(get(*merge_headers(restored), "X-Title") == "back");
}

TEST_CASE("a value with a control byte is refused, naming the header and layer but not the value") {
  for (const std::string& bad : std::vector<std::string>{"ok\r\nX-Injected: 1", std::string("nul\0byte", 8), "del\x7f", "bell\x07"}) {
    HeaderOverrides request = {{"X-Custom", bad}};
    std::array layers = {HeaderLayer{"per request", &request}};
    auto h = merge_headers(layers);
    REQUIRE_FALSE(h);
    CHECK(h.error().code == Errc::invalid_argument);
    CHECK(h.error().message.find("'X-Custom' from per request") != std::string::npos);
    CHECK(h.error().message.find(bad) == std::string::npos);
  }
  HeaderOverrides tab = {{"X-Tab", "a\tb"}};
  std::array ok = {HeaderLayer{"per request", &tab}};
  CHECK(merge_headers(ok));  // horizontal tab is legal whitespace
}

TEST_CASE("a name that is not a token, and the framing headers the transport owns, are refused") {
  for (const char* name : {"Bad Name", "X:Colon", "", "Content-Length", "transfer-encoding", "Host", "Connection"}) {
    INFO(name);
    HeaderOverrides request = {{name, "1"}};
    std::array layers = {HeaderLayer{"per request", &request}};
    CHECK_FALSE(merge_headers(layers));
  }
  HeaderOverrides deleting = {{"Content-Length", std::nullopt}};  // deleting is harmless
  std::array layers = {HeaderLayer{"per request", &deleting}};
  CHECK(merge_headers(layers));
}
