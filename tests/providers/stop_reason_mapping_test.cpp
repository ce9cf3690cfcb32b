// Vendor stop strings -> canonical StopReason, one table per wire (docs/providers.md). The raw
// string is always kept in raw_stop_reason; an unknown one maps to stop and never drives control
// flow (REQ-LOOP-01).
#include <string>
#include <utility>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/openai.hpp"
#include "conformance/conversation.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::conformance;

namespace {

std::shared_ptr<providers::WireClient> anthropic_client(const providers::WireOptions& o) {
  return providers::make_anthropic_messages_client(o);
}

std::shared_ptr<providers::WireClient> chat_client(const providers::WireOptions& o) {
  return providers::make_openai_completions_client(o);
}

std::string anthropic_reply(const std::string& stop) {
  return R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"x"}],"stop_reason":")" +
         stop + R"(","usage":{"input_tokens":10,"output_tokens":2}})";
}

std::string chat_reply(const std::string& finish) {
  return R"({"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":")" +
         finish + R"("}],"usage":{"prompt_tokens":10,"completion_tokens":2}})";
}

}  // namespace

TEST_CASE("anthropic stop reasons map to the canonical stop reason and the raw string is kept") {
  const Model sonnet = *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5");
  const std::vector<std::pair<std::string, StopReason>> table = {
      {"end_turn", StopReason::stop},
      {"pause_turn", StopReason::stop},
      {"max_tokens", StopReason::length},
      {"model_context_window_exceeded", StopReason::length},
      {"stop_sequence", StopReason::stop_sequence},
      {"refusal", StopReason::refusal},
      {"a_reason_from_the_future", StopReason::stop},
  };
  for (const auto& [raw, expected] : table) {
    CAPTURE(raw);
    Conversation c(anthropic_client, sonnet, {Conversation::whole(anthropic_reply(raw))});
    c.user("hi");
    c.send();
    CHECK(c.last_reply.stop_reason == expected);
    CHECK(c.last_reply.raw_stop_reason == raw);
  }
}

TEST_CASE("chat completions finish reasons map to the canonical stop reason, content_filter to refusal") {
  const Model row = *catalog::Catalog::builtin().find("deepseek", "deepseek-v4-flash");
  const std::vector<std::pair<std::string, StopReason>> table = {
      {"stop", StopReason::stop},
      {"length", StopReason::length},
      {"content_filter", StopReason::refusal},
      {"a_reason_from_the_future", StopReason::stop},
  };
  for (const auto& [raw, expected] : table) {
    CAPTURE(raw);
    Conversation c(chat_client, row, {Conversation::whole(chat_reply(raw))});
    c.user("hi");
    c.send();
    CHECK(c.last_reply.stop_reason == expected);
    CHECK(c.last_reply.raw_stop_reason == raw);
  }
}
