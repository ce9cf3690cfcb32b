// Private pieces of the openai-responses wire: the input-item encoder and the reply decoder.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"

namespace agentkit::providers::detail {

// A canonical Responses call id is "call_id|item_id": the call id pairs the output, the item id
// names the function_call item when it is replayed (REQ-PROV-02).
// Both are views of the canonical id they were split from.
struct ResponsesCallId {
  std::string_view call_id;
  std::string_view item_id;
};
ResponsesCallId split_call_id(std::string_view id);
std::string join_call_id(std::string_view call_id, std::string_view item_id);

// {"type":"function","name",...,"strict":false} — flat, never nested under "function"; strict is
// stated because this API defaults it to true (REQ-PROV-16).
std::string responses_tool_form(const ToolSpec& tool);

// The repaired view as input items, written as JSON text, each followed by ',' (results after the
// assistant turn, images after the results, prose re-declarations of tools first offered
// mid-session as in Chat Completions, ruling L-8).
EncodedHistory::Segment responses_items(
    std::span<const Message> view,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);

class ResponsesDecoder final : public ReplyDecoder {
 public:
  explicit ResponsesDecoder(MessageAssembler& out, bool bill_service_tier) : out_(out), bill_service_tier_(bill_service_tier) {}
  Result<void> event(const wire::SseEvent& event) override;
  Result<void> whole(std::string_view body) override;
  Result<void> stream_end() override;

 private:
  void response_header(const json::Value& response);
  Result<void> response_end(const json::Value& response);
  void item_added(const json::Value& event);
  void item_done(json::Value& event);
  void summary_part_added(const json::Value& event);
  int block_at(const json::Value& event) const;
  void whole_item(const json::Value& item);
  std::optional<Result<void>> flat_event(const wire::SseEvent& sse);

  // The members a flat event is read for, kept between events so their buffers are reused.
  struct FlatEvent {
    bool has_type = false;
    bool has_delta = false;
    bool has_index = false;
    std::string type;
    std::string delta;
    std::string index;  // output_index's number literal
  };

  MessageAssembler& out_;
  FlatEvent flat_;
  bool bill_service_tier_;
  std::map<std::size_t, int> blocks_;  // output_index -> our block
  bool any_call_ = false;
  bool refused_ = false;
  bool completed_ = false;
};

}  // namespace agentkit::providers::detail
