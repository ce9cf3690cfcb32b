// What authorization servers and protected resources send the OAuth flow, on arbitrary bytes:
// the WWW-Authenticate challenge parser, the two metadata readers, the registration and token
// answer readers and the SSE `endpoint` resolver. No crash; a parsed challenge stays within its
// caps; an accepted endpoint keeps the stream's origin. The first byte picks the reader.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/http/url.hpp"
#include "mcp/oauth_wire.hpp"
#include "mcp/sse_channel.hpp"

namespace {
void require(bool ok) {
  if (!ok) std::abort();
}
constexpr std::string_view kStream = "http://127.0.0.1:8000/mcp/sse";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  namespace d = agentkit::mcp::detail;
  switch (data[0] % 6) {
    case 0: {
      auto parsed = d::parse_www_authenticate(text);
      if (parsed) {
        std::size_t params = 0;
        for (const auto& c : *parsed) {
          require(!c.scheme.empty());
          params += c.params.size();
          for (const auto& [name, value] : c.params)
            require(!name.empty() && value.size() <= text.size());
        }
        require(params <= d::kMaxChallengeParams);
        (void)d::bearer_challenge(*parsed);
      }
      break;
    }
    case 1:
      if (auto m = d::parse_resource_metadata(text))
        require(!m->resource.empty() && !m->authorization_servers.empty());
      break;
    case 2:
      if (auto m = d::parse_server_metadata(text))
        require(!m->issuer.empty() && !m->token_endpoint.empty());
      break;
    case 3:
      if (auto r = d::parse_registration(text)) require(!r->client_id.empty());
      break;
    case 4:
      if (auto t = d::parse_token_answer(text)) require(!t->access_token.empty());
      (void)d::oauth_error_of(text);
      break;
    default: {
      if (auto resolved = d::resolve_sse_endpoint(kStream, text)) {
        auto url = agentkit::http::parse_url(*resolved);
        require(url.has_value() && url->origin() == "http://127.0.0.1:8000");
      }
      break;
    }
  }
  return 0;
}
