// Replays the 53 replies recorded from the five vendors' real APIs
// (../shared/testdata/real-replies, sources and licences in its README) through the public entry
// points: make_agent with a catalog model whose base URL is a loopback server answering with the
// recorded status, Content-Type and body. Each case checks the facts its expect.json read from the
// recording itself: answer text, thinking, tool calls (run by the loop with the recorded arguments,
// the follow-up request quoting the recorded ids), the raw stop reason, usage netted as
// docs/providers.md says, and the vendor's error message reaching RunResult::error_message.
#include <algorithm>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "provider_test_support.hpp"
#include "support/catch.hpp"
#include "support/shared_testdata.hpp"

using namespace agentkit;

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

json::Value read_json(const std::filesystem::path& path) {
  auto doc = json::parse(read_file(path));
  REQUIRE(doc);
  return std::move(*doc);
}

std::string text_or_empty(const json::Value* v) {
  return v && v->is_string() ? v->as_string() : std::string();
}

std::int64_t count_or_zero(const json::Value* v) {
  return v && v->is_number() ? v->to_int64().value_or(0) : 0;
}

// A streamed recording is sent in pieces of this many bytes (chunked): prime, so the cuts fall
// inside SSE lines, NDJSON lines and multi-byte characters alike.
constexpr std::size_t kStreamPieceBytes = 97;

std::vector<std::string> pieces_of(const std::string& body) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < body.size(); at += kStreamPieceBytes) {
    out.push_back(body.substr(at, kStreamPieceBytes));
  }
  return out;
}

// What each wire needs to replay a recording: a catalog row speaking it, and a plain-text answer
// in its shape for the request that follows the tool calls (zero usage, so the recorded reply's
// usage is the run's).
struct WireSetup {
  std::string spec;
  std::string follow_up;
};

WireSetup setup_for(const std::string& wire) {
  if (wire == "anthropic-messages") {
    return {"anthropic/claude-sonnet-5-5",
            R"({"id":"msg_f","type":"message","role":"assistant","model":"claude-sonnet-5-5",)"
            R"("content":[{"type":"text","text":"done"}],"stop_reason":"end_turn",)"
            R"("usage":{"input_tokens":0,"output_tokens":0}})"};
  }
  if (wire == "openai-completions") {
    return {"xai/grok-4.5",
            R"({"id":"c_f","object":"chat.completion","model":"grok-4.5","choices":[{"index":0,)"
            R"("message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}})"};
  }
  if (wire == "openai-responses") {
    return {"openai/gpt-6.2-sol",
            R"({"id":"resp_f","object":"response","status":"completed","model":"gpt-6.2-sol",)"
            R"("output":[{"type":"message","id":"msg_f","role":"assistant","content":[)"
            R"({"type":"output_text","text":"done"}]}],)"
            R"("usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0}})"};
  }
  if (wire == "google-generative-ai") {
    return {
        "google/gemini-4-hydrogen",
        R"({"candidates":[{"content":{"role":"model","parts":[{"text":"done"}]},)"
        R"("finishReason":"STOP"}],)"
        R"("usageMetadata":{"promptTokenCount":0,"candidatesTokenCount":0}})"};
  }
  REQUIRE(wire == "ollama-chat");
  return {"ollama/llama3.3",
          R"({"model":"llama3.3","message":{"role":"assistant","content":"done"},"done":true,)"
          R"("done_reason":"stop"})"};
}

// The tool calls the loop ran, in the order they ran.
struct CallLog {
  std::mutex mu;
  std::vector<std::pair<std::string, json::Value>> calls;
};

std::vector<ToolDefinition> recording_tools(const json::Value& expected_calls,
                                            std::shared_ptr<CallLog> log) {
  std::vector<ToolDefinition> tools;
  for (const auto& call : expected_calls.as_array()) {
    const std::string name = text_or_empty(call.find("name"));
    if (std::any_of(tools.begin(), tools.end(),
                    [&](const ToolDefinition& t) { return t.name == name; }))
      continue;
    ToolDefinition t;
    t.name = name;
    t.description = "records its calls";
    t.handler = [log, name](const json::Value& args, const ToolContext&) {
      std::lock_guard lock(log->mu);
      log->calls.emplace_back(name, args);
      ToolResult result;
      result.data = json::Value("recorded");
      return result;
    };
    tools.push_back(std::move(t));
  }
  return tools;
}

// The ids the follow-up request quotes for its tool results, in order, in the wire's own slots.
// Gemini and Ollama pair results with calls by name and position; for them this lists the names.
std::vector<std::string> quoted_result_ids(const std::string& wire, const json::Value& body) {
  std::vector<std::string> out;
  auto each = [](const json::Value* list, auto&& f) {
    if (list && list->is_array()) {
      for (const auto& item : list->as_array()) f(item);
    }
  };
  if (wire == "anthropic-messages") {
    each(body.find("messages"), [&](const json::Value& m) {
      each(m.find("content"), [&](const json::Value& block) {
        if (text_or_empty(block.find("type")) == "tool_result")
          out.push_back(text_or_empty(block.find("tool_use_id")));
      });
    });
  } else if (wire == "openai-completions") {
    each(body.find("messages"), [&](const json::Value& m) {
      if (text_or_empty(m.find("role")) == "tool")
        out.push_back(text_or_empty(m.find("tool_call_id")));
    });
  } else if (wire == "openai-responses") {
    each(body.find("input"), [&](const json::Value& item) {
      if (text_or_empty(item.find("type")) == "function_call_output")
        out.push_back(text_or_empty(item.find("call_id")));
    });
  } else if (wire == "google-generative-ai") {
    each(body.find("contents"), [&](const json::Value& c) {
      each(c.find("parts"), [&](const json::Value& part) {
        if (const json::Value* r = part.find("functionResponse"))
          out.push_back(text_or_empty(r->find("name")));
      });
    });
  } else {
    each(body.find("messages"), [&](const json::Value& m) {
      if (text_or_empty(m.find("role")) == "tool")
        out.push_back(text_or_empty(m.find("tool_name")));
    });
  }
  return out;
}

bool pairs_results_by_name(const std::string& wire) {
  return wire == "google-generative-ai" || wire == "ollama-chat";
}

const AssistantMessage* first_assistant(const RunResult& run) {
  for (const auto& m : run.messages) {
    if (const auto* a = std::get_if<AssistantMessage>(&m)) return a;
  }
  return nullptr;
}

// Our Usage for the recorded counts, by docs/providers.md: OpenAI (both wires) and Gemini count
// cached tokens inside their input, netted once here; Gemini's candidates exclude thoughts, which
// our output includes; Anthropic and Ollama are taken as they are.
Usage expected_usage(const std::string& wire, const json::Value& usage) {
  Usage u;
  const std::int64_t cached = count_or_zero(usage.find("cache_read_tokens"));
  u.input_tokens = count_or_zero(usage.find("input_tokens"));
  u.output_tokens = count_or_zero(usage.find("output_tokens"));
  u.cache_read_tokens = cached;
  u.reasoning_tokens = count_or_zero(usage.find("reasoning_tokens"));
  if (wire == "openai-completions" || wire == "openai-responses" ||
      wire == "google-generative-ai") {
    u.input_tokens -= cached;
  }
  if (wire == "google-generative-ai") u.output_tokens += u.reasoning_tokens;
  return u;
}

void check_content(const AssistantMessage& reply, const json::Value& expect) {
  std::string text, thinking;
  bool any_text = false, any_thinking = false;
  std::vector<const ToolUseBlock*> calls;
  for (const auto& block : reply.content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) {
      any_text = true;
      text += t->text;
    } else if (const auto* th = std::get_if<ThinkingBlock>(&block)) {
      any_thinking = true;
      thinking += th->thinking;
    } else if (const auto* call = std::get_if<ToolUseBlock>(&block)) {
      calls.push_back(call);
    }
  }
  const json::Value* want_text = expect.find("text");
  if (want_text->is_null()) {
    CHECK(text.empty());
  } else {
    // An empty recorded text part may be kept as an empty block or dropped (README's Gemini note).
    CHECK(text == want_text->as_string());
    if (!want_text->as_string().empty()) CHECK(any_text);
  }
  CHECK(any_thinking == expect.find("thinking_present")->as_bool());
  if (const json::Value* want = expect.find("thinking_text"); want->is_string())
    CHECK(thinking == want->as_string());
  CHECK(reply.raw_stop_reason == text_or_empty(expect.find("stop_reason_raw")));

  const auto& want_calls = expect.find("tool_calls")->as_array();
  REQUIRE(calls.size() == want_calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    INFO("tool call " << i);
    CHECK(calls[i]->name == text_or_empty(want_calls[i].find("name")));
    auto args = calls[i]->parse_input();
    REQUIRE(args);
    CHECK(*args == *want_calls[i].find("arguments"));
  }
}

// The loop ran each recorded call once with its recorded arguments (a parallel batch may run them
// in any order), and the follow-up request answered them under the recorded ids.
void check_tools_ran(const std::string& wire, const json::Value& expect, CallLog& log,
                     const testing::ScriptedServer& server) {
  const auto& want_calls = expect.find("tool_calls")->as_array();
  if (want_calls.empty()) {
    CHECK(log.calls.empty());
    CHECK(server.request_count() == 1);
    return;
  }
  std::vector<std::pair<std::string, json::Value>> wanted;
  std::vector<std::string> wanted_ids;
  for (const auto& c : want_calls) {
    wanted.emplace_back(text_or_empty(c.find("name")), *c.find("arguments"));
    wanted_ids.push_back(pairs_results_by_name(wire) ? text_or_empty(c.find("name"))
                                                     : text_or_empty(c.find("id")));
  }
  REQUIRE(log.calls.size() == wanted.size());
  for (const auto& w : wanted) {
    CHECK(std::count(log.calls.begin(), log.calls.end(), w) ==
          std::count(wanted.begin(), wanted.end(), w));
  }
  REQUIRE(server.request_count() == 2);
  auto follow_up = json::parse(server.request_at(1).body);
  REQUIRE(follow_up);
  CHECK(quoted_result_ids(wire, *follow_up) == wanted_ids);
}

void replay(const std::filesystem::path& root, const json::Value& entry) {
  const std::string wire = text_or_empty(entry.find("wire"));
  const json::Value expect = read_json(root / text_or_empty(entry.find("expect")));
  const WireSetup setup = setup_for(wire);

  testing::ScriptedResponse recorded;
  recorded.status = static_cast<int>(count_or_zero(expect.find("http_status")));
  recorded.headers = http::Headers({{"Content-Type", text_or_empty(expect.find("content_type"))}});
  const std::string body = read_file(root / text_or_empty(entry.find("body")));
  if (expect.find("streamed")->as_bool()) {
    recorded.pieces = pieces_of(body);
  } else {
    recorded.body = body;
  }
  testing::ScriptedResponse answer;
  answer.headers = http::Headers({{"Content-Type", "application/json"}});
  answer.body = setup.follow_up;
  testing::ScriptedServer server({recorded, answer});

  auto model = catalog::Catalog::builtin().resolve(setup.spec);
  REQUIRE(model);
  model->base_url = server.base_url();
  RuntimeConfig rt;
  rt.model.descriptor = *model;
  providers::ProviderOptions wires;
  wires.http = std::make_shared<http::HttpClient>();
  // A key that no reply contains: error messages are scrubbed of the credential's bytes.
  const std::string key = "replay-test-key-0000";
  wires.credentials.environment = providers::fixed_environment({{"ANTHROPIC_API_KEY", key},
                                                                {"OPENAI_API_KEY", key},
                                                                {"XAI_API_KEY", key},
                                                                {"GEMINI_API_KEY", key}});
  providers::register_defaults(rt.providers, wires);
  auto log = std::make_shared<CallLog>();
  AgentDefinition def;
  def.tools.direct = recording_tools(*expect.find("tool_calls"), log);
  auto agent = make_agent(std::move(def), rt);
  REQUIRE(agent);
  auto run = agent->run("replay the recording");
  REQUIRE(run);
  // A session log writes each message with the direct encoder: real replies (signatures,
  // provenance, the vendors' own argument bytes) come out as the tree codec writes them.
  for (const Message& m : run->messages) {
    std::string direct;
    append_json_text(direct, m);
    CHECK(direct == json::dump(to_json(m)));
  }

  if (const json::Value* error = expect.find("error"); !error->is_null()) {
    CHECK(run->stop_reason == RunStopReason::error);
    const std::string message = text_or_empty(error->find("message"));
    INFO("error_message: " << run->error_message);
    CHECK(run->error_message.find(message) != std::string::npos);
    return;
  }
  INFO("error_message: " << run->error_message);
  REQUIRE(run->stop_reason == RunStopReason::stop);
  const AssistantMessage* reply = first_assistant(*run);
  REQUIRE(reply != nullptr);
  check_content(*reply, expect);
  const Usage want = expected_usage(wire, *expect.find("usage"));
  CHECK(reply->usage.input_tokens == want.input_tokens);
  CHECK(reply->usage.output_tokens == want.output_tokens);
  CHECK(reply->usage.cache_read_tokens == want.cache_read_tokens);
  CHECK(reply->usage.reasoning_tokens == want.reasoning_tokens);
  check_tools_ran(wire, expect, *log, server);
}

}  // namespace

TEST_CASE(
    "every reply recorded from a real vendor API replays through an agent with its recorded "
    "facts") {
  AGENTKIT_SHARED_TESTDATA(root, "real-replies");
  const json::Value index = read_json(root / "index.json");
  REQUIRE(index.as_array().size() == 53);
  for (const auto& entry : index.as_array()) {
    DYNAMIC_SECTION(text_or_empty(entry.find("wire")) << "/" << text_or_empty(entry.find("case"))) {
      replay(root, entry);
    }
  }
}
