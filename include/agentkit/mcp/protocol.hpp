// agentkit/mcp/protocol.hpp — the two MCP protocol eras, their versions, the reserved `_meta`
// keys and the routing-header value encoding, shared by the client and the server.
//
//   using namespace agentkit;
//   assert(mcp::era_of("2026-07-28") == mcp::Era::modern);
//   assert(mcp::era_of("2025-11-25") == mcp::Era::legacy);
//   std::string h = mcp::encode_header_value("résumé");   // "=?base64?csOpc3Vtw6k=?="
//   assert(mcp::decode_header_value(h).value() == "résumé");
//
// Legacy = the revisions with the `initialize` handshake (2024-11-05 ... 2025-11-25); modern = the
// stateless revision 2026-07-28 with a per-request `_meta` envelope (the
// specification's own vocabulary). Header values (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*)
// are sent plain when they are visible ASCII, spaces or tabs with no leading or trailing
// whitespace, and otherwise (or when the plain text itself looks like the sentinel) as
// `=?base64?<base64 of the UTF-8 bytes>?=` (2026-07-28 Streamable HTTP).
//
// Thread safety: constants and pure functions.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::mcp {

enum class Era : std::uint8_t { modern, legacy };

// "modern" or "legacy".
std::string_view era_name(Era era) noexcept;

// The stateless revision (per-request `_meta`, server/discover, multi-round-trip requests).
inline constexpr std::string_view kModernVersion = "2026-07-28";
// The newest handshake revision.
inline constexpr std::string_view kLegacyVersion = "2025-11-25";
// Every version we speak, newest first, per era.
inline constexpr std::array<std::string_view, 1> kModernVersions = {kModernVersion};
// 2024-11-05 is what servers of the HTTP+SSE transport's time answer; nothing it lacks is
// required of a server (tools/list and tools/call are the same).
inline constexpr std::array<std::string_view, 4> kLegacyVersions = {kLegacyVersion, "2025-06-18",
                                                                    "2025-03-26", "2024-11-05"};

// The era a version string belongs to; nullopt for a version we do not speak.
std::optional<Era> era_of(std::string_view version) noexcept;

// Reserved `_meta` keys (2026-07-28 basic/index).
namespace meta_key {
inline constexpr std::string_view protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view client_info = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view client_capabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view log_level = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view server_info = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view subscription_id = "io.modelcontextprotocol/subscriptionId";
inline constexpr std::string_view progress_token = "progressToken";
}  // namespace meta_key

// HTTP header names of the Streamable HTTP transport.
namespace header {
inline constexpr std::string_view protocol_version = "MCP-Protocol-Version";
inline constexpr std::string_view session_id = "Mcp-Session-Id";
inline constexpr std::string_view method = "Mcp-Method";
inline constexpr std::string_view name = "Mcp-Name";
inline constexpr std::string_view param_prefix = "Mcp-Param-";
}  // namespace header

// Who is speaking: clientInfo / serverInfo (self-reported, for display and logs only).
struct Implementation {
  std::string name;
  std::string version;
  std::string title;  // empty: not sent

  json::Value to_json() const;
  friend bool operator==(const Implementation&, const Implementation&) = default;
};

// True when `value` may travel in a header as is.
bool is_plain_header_value(std::string_view value) noexcept;
// The value as it travels in a routing header (plain, or the base64 sentinel form).
std::string encode_header_value(std::string_view value);
// The value a routing header carries: the sentinel form decoded (its payload must be valid base64
// of valid UTF-8), a plain value checked. Errc::protocol_error otherwise.
Result<std::string> decode_header_value(std::string_view value);

}  // namespace agentkit::mcp
