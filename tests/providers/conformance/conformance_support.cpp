#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

#include "agentkit/wire/decode.hpp"
#include "conformance.hpp"

namespace agentkit::conformance {

std::string ScriptedCall::arguments() const {
  std::string out;
  for (const auto& f : fragments) out += f;
  return out;
}

void FixtureRequest::bind() {
  request.model = model;
  request.messages = messages;
  request.tools = tools;
}

FixtureRequest basic_request(const WireDialect& d, const std::string& base_url) {
  FixtureRequest f;
  f.model = std::make_shared<Model>(d.model(base_url));
  f.messages.push_back(user_text("What's the weather in Paris?"));
  f.request.max_tokens = 256;
  f.request.session_id = "conformance-session";
  f.bind();
  return f;
}

namespace {

std::vector<std::string> cut(const std::vector<std::string>& events, std::size_t piece_bytes) {
  if (piece_bytes == 0) return events;
  std::vector<std::string> out;
  for (const auto& e : events) {
    for (std::size_t i = 0; i < e.size(); i += piece_bytes) out.push_back(e.substr(i, piece_bytes));
  }
  return out;
}

testing::ScriptedResponse scripted(const WireDialect& d, const ScriptedReply& reply, const ExchangeOptions& o) {
  testing::ScriptedResponse r;
  r.status = o.http_status;
  if (o.http_status != 200) {
    r.headers = http::Headers({{"Content-Type", "application/json"}});
    r.body = o.error_body;
    return r;
  }
  if (o.streamed) {
    r.headers = http::Headers({{"Content-Type", d.stream_content_type}});
    r.pieces = cut(d.stream_events(reply), o.piece_bytes);
    if (r.pieces.empty()) r.pieces.push_back("");
    r.hang_after_pieces = o.stall;
  } else {
    r.headers = http::Headers({{"Content-Type", "application/json"}});
    r.body = d.whole_body(reply);
  }
  return r;
}

std::vector<Event> drain(EventStream& s) {
  std::vector<Event> out;
  while (auto ev = s.next()) out.push_back(std::move(*ev));
  return out;
}

}  // namespace

Exchange exchange(const WireDialect& d, const ScriptedReply& reply, const ExchangeOptions& options,
                  const std::function<void(FixtureRequest&)>& adjust) {
  testing::ScriptedServer server({scripted(d, reply, options)});
  FixtureRequest f = basic_request(d, server.base_url());
  if (adjust) adjust(f);
  f.bind();
  providers::WireOptions wo = test_wire_options();
  auto client = d.make_client(wo);
  StreamOptions so;
  so.timeout = options.timeout;
  agentkit::stop_source cancel;
  agentkit::jthread canceller;
  if (options.cancel_after) {
    canceller = agentkit::jthread([&cancel, after = *options.cancel_after](agentkit::stop_token done) {
      std::mutex m;
      agentkit::condition_variable_any cv;
      std::unique_lock lock(m);
      if (!cv.wait_for(lock, done, after, [] { return false; })) cancel.request_stop();
    });
  }
  EventStream s = client->stream(f.request, so, cancel.get_token());
  Exchange x;
  x.events = drain(s);
  auto result = s.result();
  if (result) {
    x.message = std::move(*result);
  } else {
    x.message.stop_reason = StopReason::error;
    x.message.error_message = "the stream broke its contract: " + result.error().to_string();
  }
  x.requests = server.requests();
  x.meter = wo.meter;
  return x;
}

Captured capture(const WireDialect& d, const std::function<void(FixtureRequest&)>& adjust,
                 const providers::WireOptions& options) {
  ScriptedReply ok;
  ok.text = {"OK."};
  ok.usage = {10, 0, 0, 2, 0};
  testing::ScriptedResponse answer;
  answer.headers = http::Headers({{"Content-Type", "application/json"}});
  answer.body = d.whole_body(ok);
  testing::ScriptedServer server({answer});
  FixtureRequest f = basic_request(d, server.base_url());
  if (adjust) adjust(f);
  f.bind();
  auto client = d.make_client(options);
  EventStream s = client->stream(f.request, {}, {});
  Captured c;
  c.events = drain(s);
  auto result = s.result();
  if (result) c.message = std::move(*result);
  if (server.request_count() > 0) {
    auto req = server.last_request();
    c.body_text = req.body;
    c.headers = req.headers;
    auto parsed = json::parse(req.body);
    if (parsed) c.body = std::move(*parsed);
  }
  return c;
}

providers::WireOptions test_wire_options() {
  providers::WireOptions o;
  o.transport.credentials.environment = providers::fixed_environment({
      {"ANTHROPIC_API_KEY", "conformance-key"},
      {"OPENAI_API_KEY", "conformance-key"},
      {"OPENROUTER_API_KEY", "conformance-key"},
      {"XAI_API_KEY", "conformance-key"},
      {"DEEPSEEK_API_KEY", "conformance-key"},
      {"GEMINI_API_KEY", "conformance-key"},
      {"GOOGLE_API_KEY", "conformance-key"},
      {"GROQ_API_KEY", "conformance-key"},
      {"TOGETHER_API_KEY", "conformance-key"},
      {"MOONSHOT_API_KEY", "conformance-key"},
  });
  o.meter = std::make_shared<providers::CacheMeter>();
  return o;
}

ToolSpec tool_spec(std::string name, std::string description, json::Value schema) {
  ToolSpec t{std::move(name), std::move(description), std::move(schema), 0};
  t.fingerprint = fingerprint_of(t);
  return t;
}

std::vector<Message> three_results_transcript(const Model& model) {
  std::vector<Message> h;
  h.push_back(user_text("Compare the weather in Paris, London and Tokyo."));
  AssistantMessage a;
  a.provider = model.vendor;
  a.api = model.api;
  a.model = model.id;
  a.stop_reason = StopReason::tool_use;
  const char* cities[] = {"Paris", "London", "Tokyo"};
  for (int i = 0; i < 3; ++i) {
    a.content.push_back(ToolUseBlock{"call_" + std::to_string(i + 1), "get_weather",
                                     json::Raw(std::string(R"({"city":")") + cities[i] + "\"}"), {}});
  }
  h.push_back(a);
  const char* answers[] = {"21 sunny", "14 rain", "9 clear"};
  for (int i = 0; i < 3; ++i) {
    ToolResultMessage r;
    r.tool_use_id = "call_" + std::to_string(i + 1);
    r.tool_name = "get_weather";
    r.content.push_back(TextBlock{answers[i]});
    if (i == 1) {
      r.content.push_back(ImageBlock{"image/png", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="});
    }
    h.push_back(r);
  }
  return h;
}

}  // namespace agentkit::conformance
