// Vendor stop strings -> canonical StopReason, one table per wire (docs/providers.md). The raw
// string is always kept in raw_stop_reason; an unknown one maps to stop and never drives control
// flow (REQ-LOOP-01).
#include <string>
#include <utility>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/ollama.hpp"
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

namespace {

std::shared_ptr<providers::WireClient> gemini_client(const providers::WireOptions& o) { return providers::make_google_client(o); }
std::shared_ptr<providers::WireClient> ollama_client(const providers::WireOptions& o) { return providers::make_ollama_client(o); }
std::shared_ptr<providers::WireClient> responses_client(const providers::WireOptions& o) {
  return providers::make_openai_responses_client(o);
}

std::string gemini_reply(const std::string& finish) {
  return R"({"candidates":[{"content":{"role":"model","parts":[{"text":"x"}]},"finishReason":")" + finish +
         R"("}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2}})";
}

std::string ollama_reply(const std::string& done_reason) {
  return R"({"model":"llama3.3","created_at":"2026-11-30T00:00:00Z","message":{"role":"assistant","content":"x"},"done":true,"done_reason":")" +
         done_reason + R"(","prompt_eval_count":10,"eval_count":2})";
}

std::string responses_reply(const std::string& status, const std::string& incomplete_reason) {
  std::string details = incomplete_reason.empty() ? "" : R"("incomplete_details":{"reason":")" + incomplete_reason + R"("},)";
  return R"({"id":"resp_1","object":"response","status":")" + status + R"(",)" + details +
         R"("model":"gpt-6.2-sol","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"x","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":2}})";
}

}  // namespace

TEST_CASE("gemini finish reasons map to the canonical stop reason and every safety family is a refusal") {
  const Model row = *catalog::Catalog::builtin().find("google", "gemini-4-hydrogen");
  const std::vector<std::pair<std::string, StopReason>> table = {
      {"STOP", StopReason::stop},
      {"MAX_TOKENS", StopReason::length},
      {"SAFETY", StopReason::refusal},
      {"RECITATION", StopReason::refusal},
      {"BLOCKLIST", StopReason::refusal},
      {"PROHIBITED_CONTENT", StopReason::refusal},
      {"SPII", StopReason::refusal},
      {"IMAGE_SAFETY", StopReason::refusal},
      {"LANGUAGE", StopReason::refusal},
      {"A_REASON_FROM_THE_FUTURE", StopReason::stop},
  };
  for (const auto& [raw, expected] : table) {
    CAPTURE(raw);
    Conversation c(gemini_client, row, {Conversation::whole(gemini_reply(raw))});
    c.user("hi");
    c.send();
    CHECK(c.last_reply.stop_reason == expected);
    CHECK(c.last_reply.raw_stop_reason == raw);
  }
}

TEST_CASE("ollama done reasons map to the canonical stop reason and length is a length stop") {
  const Model row = *catalog::Catalog::builtin().find("ollama", "llama3.3");
  const std::vector<std::pair<std::string, StopReason>> table = {
      {"stop", StopReason::stop},
      {"length", StopReason::length},
      {"a_reason_from_the_future", StopReason::stop},
  };
  for (const auto& [raw, expected] : table) {
    CAPTURE(raw);
    Conversation c(ollama_client, row, {Conversation::whole(ollama_reply(raw))});
    c.user("hi");
    c.send();
    CHECK(c.last_reply.stop_reason == expected);
    CHECK(c.last_reply.raw_stop_reason == raw);
  }
}

TEST_CASE("responses statuses map to the canonical stop reason and an incomplete content filter is a refusal") {
  const Model row = *catalog::Catalog::builtin().find("openai", "gpt-6.2-sol");
  struct Row {
    std::string status, reason, raw;
    StopReason expected;
  };
  const std::vector<Row> table = {
      {"completed", "", "completed", StopReason::stop},
      {"incomplete", "max_output_tokens", "max_output_tokens", StopReason::length},
      {"incomplete", "content_filter", "content_filter", StopReason::refusal},
  };
  for (const auto& r : table) {
    CAPTURE(r.status, r.reason);
    Conversation c(responses_client, row, {Conversation::whole(responses_reply(r.status, r.reason))});
    c.user("hi");
    c.send();
    CHECK(c.last_reply.stop_reason == r.expected);
    CHECK(c.last_reply.raw_stop_reason == r.raw);
  }
}
