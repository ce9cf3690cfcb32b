// Private pieces of the openai-completions wire: the compatibility profile, the message encoder
// and the reply decoder.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"

namespace agentkit::providers::detail {

// REQ-PROV-12's flags, each needed by a named vendor. Inferred from the vendor and host, then
// overridden key by key by the catalog row's compat object.
struct CompletionsProfile {
  bool use_max_tokens = false;                 // max_tokens, not max_completion_tokens (DeepSeek, Moonshot, Together, Nvidia, Cloudflare)
  bool supports_store = false;                 // store:false (api.openai.com only)
  bool supports_developer_role = false;        // "developer" instead of "system" (OpenRouter anthropic/*, openai/*)
  bool supports_reasoning_effort = true;       // reasoning_effort (not Moonshot, Together, Nvidia, Cloudflare)
  std::string thinking_format = "openai";      // openai | deepseek | together | openrouter | chat-template
  std::string thinking_token_budget_field;     // vLLM thinking_token_budget, Qwen thinking_budget, llama.cpp thinking_budget_tokens
  bool supports_strict_tools = true;
  bool supports_long_cache_retention = true;
  bool supports_finish_reason = true;          // false: the end of the stream is judged by [DONE] alone
  bool allows_null_assistant_content = true;   // false: "" where a tool-call turn has no text
  bool allows_user_after_tool_result = true;   // false: a bridging assistant turn is inserted
  bool requires_tool_result_name = false;
  std::string cache_control_format = "none";   // "anthropic": cache_control markers (OpenRouter anthropic/*)
  bool accepts_prompt_cache_key = false;       // level 0 key (inferred only)

  static CompletionsProfile of(const Model& model);
};

// {"type":"function","function":{...}} — rendered once per tool (level 3).
std::string completions_tool_form(const ToolSpec& tool);

struct CompletionsEncoding {
  json::Array messages;
  std::vector<Error> unsupported;
};
// The repaired view as Chat Completions messages. `declared_after[id]` holds the wire forms of
// tools first offered after the result of call `id`, re-declared in prose there (REQ-CACHE-10,
// ruling L-8).
CompletionsEncoding completions_messages(const Request& request, std::span<const Message> view,
                                         const CompletionsProfile& profile,
                                         const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);

// The system (or developer) message of the request.
json::Value completions_system(const Request& request, const CompletionsProfile& profile);
// The messages of `view` alone (no system message): what completions_messages appends after it.
// completions_item_text writes the same messages as JSON text, each followed by ',', with no
// tree (the kept history's segments); the tree form serves the requests that are stamped with
// cache_control markers.
EncodedHistory::Segment completions_item_text(
    std::span<const Message> view, const CompletionsProfile& profile,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);
json::Array completions_items(
    std::span<const Message> view, const CompletionsProfile& profile,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);

class CompletionsDecoder final : public ReplyDecoder {
 public:
  CompletionsDecoder(MessageAssembler& out, bool finish_reason_ends_stream)
      : out_(out), finish_reason_ends_stream_(finish_reason_ends_stream) {}
  Result<void> event(const wire::SseEvent& event) override;
  Result<void> whole(std::string_view body) override;
  Result<void> stream_end() override;

 private:
  Result<void> chunk(const json::Value& chunk);
  void delta(const json::Value& delta);
  void tool_delta(const json::Value& call);
  void finish(std::string_view reason);
  void text(std::string_view piece);
  void reasoning(std::string_view piece);
  std::string synthesised_id(std::size_t index) const;
  void close_all();
  void infer_stop();

  MessageAssembler& out_;
  bool finish_reason_ends_stream_;
  int text_block_ = -1;
  int thinking_block_ = -1;
  std::map<std::size_t, int> calls_;  // tool_calls[].index -> our block
  bool refused_ = false;
  bool finished_ = false;  // a finish_reason arrived
  bool done_ = false;      // data: [DONE] arrived
};

}  // namespace agentkit::providers::detail
