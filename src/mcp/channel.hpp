// Channel: moves whole JSON-RPC frames between this process and one MCP peer. Era-agnostic byte
// movers (stdio child, stdio of this process, Streamable HTTP client); everything above them
// (correlation, timeouts, eras) lives in RpcPeer and the client/server.
#pragma once

#include <functional>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/mcp/jsonrpc.hpp"

namespace agentkit::mcp::detail {

inline bool is_success(int http_status) { return http_status >= 200 && http_status < 300; }

// What an HTTP channel needs to know to route a frame: the routing headers of 2026-07-28 are
// derived from the body by the sender, never accepted from a caller (seed: routing headers).
struct HttpRouting {
  std::string protocol_version;                             // MCP-Protocol-Version (empty: none)
  std::string method;                                       // Mcp-Method (modern requests)
  std::optional<std::string> name;                          // Mcp-Name (tools/call, prompts/get, resources/read)
  std::vector<std::pair<std::string, std::string>> params;  // Mcp-Param-<Name> values
  std::string traceparent;                                  // W3C trace context (empty: none)
};

struct OutboundFrame {
  std::string text;                      // one compact JSON-RPC message
  std::optional<RequestId> request_id;   // set when `text` is a request (its answer is awaited)
  HttpRouting routing;
};

// Callbacks a channel delivers on its own thread(s).
struct ChannelSink {
  // One inbound frame, and the request it relates to: over Streamable HTTP the request whose
  // response stream carried it (the specification: what a server sends there relates to that
  // request); nullptr where nothing ties a frame to a request (stdio, the HTTP+SSE stream, the
  // standalone GET stream). Answer false to stop reading (the peer was poisoned).
  std::function<bool(std::string_view frame, const RequestId* related)> on_frame;
  // The byte stream itself broke its framing (an over-long or cut line, REQ-SEC-11): treated as a
  // malformed frame, which poisons the connection.
  std::function<void(const Error& why)> on_frame_error;
  // The channel ended (EOF, I/O error, child exit). Called at most once.
  std::function<void(const Error& why)> on_close;
  // Request-response channels (HTTP): the request could not be answered through the channel
  // (refused POST, a status without a JSON-RPC body, a stream cut before the answer).
  std::function<void(const RequestId& id, const Error& why)> on_request_lost;
};

class Channel {
 public:
  virtual ~Channel() = default;
  // Starts delivering to `sink`. Called once.
  virtual Result<void> open(ChannelSink sink) = 0;
  // Sends one frame. Safe from any thread; frames are never interleaved.
  virtual Result<void> send(OutboundFrame frame, agentkit::stop_token stop) = 0;
  // Stops waiting for the answer to `id` (HTTP: closes its response stream, which 2026-07-28
  // defines as cancellation). No-op for stream channels.
  virtual void abandon(const RequestId& /*id*/) {}
  // Wakes every blocked read and write without joining (safe from any thread, even a reader).
  virtual void interrupt() = 0;
  // Ends the channel and joins its threads (for a child: stdin closed, then TERM, then KILL).
  // Not from the channel's own threads.
  virtual void close() = 0;
  // For messages: "stdio server 'npx -y ...' (pid 4242)", "http://127.0.0.1:3001/mcp".
  virtual std::string describe() const = 0;
  // True when each request travels on its own exchange (HTTP): then there is no stream a
  // notifications/cancelled could overtake the answer on.
  virtual bool request_scoped() const { return false; }
};

}  // namespace agentkit::mcp::detail
