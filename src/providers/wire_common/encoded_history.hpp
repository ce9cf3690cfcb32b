// Encoding that does not grow with history: per session, a wire keeps the wire items it encoded
// for the leading messages of the last request's view, and the next request encodes only what
// follows them. The transcript is append-only between compactions, so a steady-state request
// encodes just the messages added since the last one.
//
//   EncodedHistory::Wire wire{.closed = responses_closed, .encode = encode_items};
//   std::string body = R"({"model":"m","input":)";
//   history_.append_array(request.session_id, context, view, wire, body, meter);   // "[...]"
//
// Why it stays equal to a fresh encode. Every wire encodes a message from that message alone,
// except inside a group of neighbours it merges (a run of tool results, a user message folded into
// the run before it, Gemini's same-role contents). `Wire::closed(before, after)` says whether a
// boundary between two messages is outside every such group; the view is cut at closed boundaries
// into segments, and the items of a segment encoded alone are exactly its items in the whole
// encoding. A kept prefix is reused only up to a boundary that was a segment boundary when it was
// encoded and is closed in the new view; the messages before it must compare equal (operator==,
// not a hash) to the ones encoded, and `context` (model, wire options, the tools re-declared after
// results) must be equal too. A compaction, a branch switch, a model change or a repair that
// rewrites a sent message fails one of those checks and re-encodes from the first difference.
// The last segment is always encoded fresh, so a wire may mark it (Anthropic's rolling breakpoint)
// without the mark entering the kept bytes.
//
// Thread safety: safe for concurrent use. An entry is taken out of the table while a request of
// its session is encoded; a concurrent request of the same session encodes from scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/cache.hpp"

namespace agentkit::providers::detail {

class EncodedHistory {
 public:
  struct Segment {
    std::string items;       // the segment's items, each followed by ','
    std::string body_items;  // when not empty: what the body carries instead (last segment only)
  };
  struct Wire {
    // True when no wire item spans the boundary between `before` and `after`.
    std::function<bool(const Message& before, const Message& after)> closed;
    // The items of `segment`; `last` = the segment ends the view.
    std::function<Segment(std::span<const Message> segment, bool last)> encode;
  };

  // Sessions remembered; past it the table is cleared (a session then encodes once from scratch).
  static constexpr std::size_t kMaxSessions = 256;

  explicit EncodedHistory(bool enabled = true) : enabled_(enabled) {}

  // Appends the JSON array of the items of `view` to `out`. `context` is everything besides the
  // messages that the items depend on. Counts the messages encoded and reused on `meter`.
  // `lead`: items (each followed by ',') that go first in the array, outside the kept bytes.
  void append_array(std::string_view session, std::string context, std::span<const Message> view,
                    const Wire& wire, std::string& out, CacheMeter& meter,
                    std::string_view lead = {});

 private:
  struct Entry {
    std::string context;
    std::vector<Message> messages;     // the view's messages the bytes encode
    std::string bytes;                 // their items, each followed by ','
    std::vector<std::size_t> offsets;  // offsets[b]: bytes before boundary b; npos inside a segment
  };
  static std::size_t reusable_boundary(const Entry& entry, std::span<const Message> view,
                                       const Wire& wire);

  bool enabled_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

// The items as a segment: each dumped and followed by ','.
EncodedHistory::Segment dump_items(const json::Array& items);
// The context text of the tools re-declared in prose after tool results (REQ-CACHE-10).
std::string declared_context(
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);
// The body {head..., "key": <array>, tail...} with the array written in place by `write`: the
// history's bytes go once into the body's own buffer.
std::string object_around(json::Value head, std::string_view key,
                          const std::function<void(std::string&)>& write, json::Value tail);

// Cheap predicates for the usual groups: a run of tool results; and a run with the user message
// that follows it.
bool splits_result_runs(const Message& before, const Message& after);
bool splits_result_runs_and_following_user(const Message& before, const Message& after);

}  // namespace agentkit::providers::detail
