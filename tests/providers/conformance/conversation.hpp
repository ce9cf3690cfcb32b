// A session against one wire and a loopback server with a fixed script, for the per-wire tests:
// each send() encodes the history as the loop would, records the body sent and appends the reply.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/core/answer.hpp"
#include "conformance.hpp"
#include "support/catch.hpp"

namespace agentkit::conformance {

struct Conversation {
  using Factory = std::function<std::shared_ptr<providers::WireClient>(const providers::WireOptions&)>;

  static testing::ScriptedResponse whole(std::string body) {
    testing::ScriptedResponse r;
    r.headers = http::Headers({{"Content-Type", "application/json"}});
    r.body = std::move(body);
    return r;
  }
  // `sse` served as one text/event-stream piece.
  static testing::ScriptedResponse streamed(std::string sse) {
    testing::ScriptedResponse r;
    r.headers = http::Headers({{"Content-Type", "text/event-stream"}});
    r.pieces = {std::move(sse)};
    return r;
  }

  Conversation(const Factory& make, Model row, std::vector<testing::ScriptedResponse> script,
               providers::WireOptions options = test_wire_options())
      : server(std::move(script)), client(make(options)), meter(options.meter), model(std::move(row)) {
    model.base_url = server.base_url();
  }

  Request request() const {
    Request req;
    req.model = std::make_shared<Model>(model);
    req.system = system;
    req.messages = history;
    req.tools = tools;
    req.max_tokens = max_tokens;
    req.temperature = temperature;
    req.session_id = session_id;
    req.thinking = thinking;
    req.stop_sequences = stop_sequences;
    req.answer = answer;
    return req;
  }

  // Sends the history; answers the body sent and appends the reply to the history.
  json::Value send() {
    last_reply = complete(*client, request());
    history.push_back(last_reply);
    last_body_text = server.last_request().body;
    return json::parse(last_body_text).value();
  }

  void user(std::string text) { history.push_back(user_text(std::move(text))); }
  void assistant_calls(std::vector<ToolUseBlock> calls) {
    AssistantMessage a = providers::start_message(model);
    for (auto& c : calls) a.content.push_back(std::move(c));
    a.stop_reason = StopReason::tool_use;
    history.push_back(std::move(a));
  }
  void result(std::string id, std::string name, std::string text, bool is_error = false,
              std::vector<std::string> added_tools = {}) {
    ToolResultMessage r;
    r.tool_use_id = std::move(id);
    r.tool_name = std::move(name);
    r.content = {TextBlock{std::move(text)}};
    r.is_error = is_error;
    r.added_tool_names = std::move(added_tools);
    history.push_back(std::move(r));
  }

  testing::ScriptedServer server;
  std::shared_ptr<providers::WireClient> client;
  std::shared_ptr<providers::CacheMeter> meter;
  Model model;
  std::string system = "You are terse.";
  std::vector<Message> history;
  std::vector<ToolSpec> tools;
  std::optional<std::int64_t> max_tokens = 1024;
  std::optional<double> temperature;
  std::optional<ThinkingLevel> thinking;
  std::vector<std::string> stop_sequences;
  std::string session_id = "s-1";
  std::shared_ptr<const AnswerFormat> answer;  // typed answers (agentkit/core/answer.hpp)
  AssistantMessage last_reply;
  std::string last_body_text;
};

// One SSE event whose JSON data is {"type":<type>, <members>} (members: JSON text, may be empty).
inline std::string sse_event(const std::string& type, const std::string& members) {
  return "event: " + type + "\ndata: {\"type\":\"" + type + "\"" +
         (members.empty() ? "" : "," + members) + "}\n\n";
}

// The reply ended as a protocol error naming `violation`, and its first block is the text block
// exactly as it was before the offending delta.
inline void check_violation_kept_text(const AssistantMessage& reply, std::string_view violation,
                                      std::string_view kept) {
  CHECK(reply.stop_reason == StopReason::error);
  CHECK(reply.error_message.find(violation) != std::string::npos);
  REQUIRE(std::holds_alternative<TextBlock>(reply.content.at(0)));
  CHECK(std::get<TextBlock>(reply.content.at(0)).text == kept);
}

}  // namespace agentkit::conformance
