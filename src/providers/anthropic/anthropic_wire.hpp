// Private pieces of the anthropic-messages wire: the request encoder, the reply decoder and the
// level-1 breakpoint stamping they share with the benchmark.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers::detail {

// Anthropic's limit on cache_control markers in one request.
inline constexpr int kAnthropicMaxBreakpoints = 4;

// The marker objects of one request (REQ-CACHE level 1): the prefix (system, tools) may live an
// hour where the row supports it; the rolling breakpoint on the conversation always uses the
// default lifetime (post-PRD ruling).
struct Breakpoints {
  bool enabled = true;
  bool long_prefix = false;
  json::Value prefix() const;
  json::Value rolling() const;
};

// {"name","description","input_schema"} — rendered once per tool (level 3).
std::string anthropic_tool_form(const ToolSpec& tool);
// The tool list: established tools first (the last of them marked), then tools first offered
// mid-session, unmarked (REQ-CACHE-10 per the L-10 ruling: defer_loading would hide them).
json::Array anthropic_tools(std::span<const ToolBytes> established, std::span<const ToolBytes> deferred,
                            const Breakpoints& marks);
// The messages of the repaired view in Anthropic's shape (results packed per REQ-LOOP-02).
json::Array anthropic_messages(std::span<const Message> view, bool replay_compaction);
// Puts the rolling breakpoint on the last block of the last message when it is a user message.
// Answers whether a marker was placed.
bool stamp_rolling_breakpoint(json::Array& messages, const Breakpoints& marks);
// The messages of `segment` as JSON text, each followed by ',': the bytes dump_items makes of
// anthropic_messages(segment, replay_compaction), with no tree built. With `stamp` (enabled), the
// body's form too (body_items) when stamp_rolling_breakpoint would place the rolling breakpoint
// on those trees.
EncodedHistory::Segment anthropic_item_text(std::span<const Message> segment,
                                            bool replay_compaction, const Breakpoints* stamp);
// Counts cache_control members anywhere in `body` (tests and the budget check).
int count_breakpoints(const json::Value& body);

class AnthropicDecoder final : public ReplyDecoder {
 public:
  explicit AnthropicDecoder(MessageAssembler& out) : out_(out) {}
  Result<void> event(const wire::SseEvent& event) override;
  Result<void> whole(std::string_view body) override;
  Result<void> stream_end() override;

 private:
  void on_message_start(const json::Value& message);
  Result<void> on_block_start(const json::Value& event);
  Result<void> on_block_delta(const json::Value& event);
  Result<void> on_block_stop(const json::Value& event);
  void on_message_delta(const json::Value& event);
  void read_usage(const json::Value* usage);
  void read_stop(const json::Value* reason);
  Result<void> whole_block(const json::Value& block, std::string_view block_bytes);
  int block_for(const json::Value& event) const;

  MessageAssembler& out_;
  std::vector<int> blocks_;         // Anthropic content index -> our block index (-1 = ignored)
  std::vector<json::Value> opaque_; // compaction blocks being streamed, by Anthropic index
  bool stopped_ = false;            // message_stop seen
};

}  // namespace agentkit::providers::detail
