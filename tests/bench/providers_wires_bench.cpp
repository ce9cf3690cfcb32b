// The wires' request side: what encoding costs at scale and what caching costs on a hit.
// Prints figures; asserts nothing (the count budget — zero schemas serialised on a steady-state
// request — is a test, see tests/providers/conformance).
//   1. prepare() at 128 tools and 1000 messages, per wire: the first request (every schema
//      rendered) and the steady state (schemas reused, markers recomputed);
//   2. level-1 stamping alone (the Go original's budget: under 1 ms; it measured ~47 ns);
//   3. a level-2 dedup hit next to a direct return of the same message.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/ollama.hpp"
#include "agentkit/providers/openai.hpp"
#include "agentkit/providers/wires.hpp"
#include "providers/anthropic/anthropic_wire.hpp"

using namespace agentkit;
using namespace agentkit::providers;
using BenchClock = std::chrono::steady_clock;

namespace {

volatile std::size_t g_sink = 0;

constexpr int kTools = 128;
constexpr int kMessages = 1000;

template <class F>
double ns_per_op(std::size_t iterations, F&& f) {
  auto start = BenchClock::now();
  for (std::size_t i = 0; i < iterations; ++i) f();
  return std::chrono::duration<double, std::nano>(BenchClock::now() - start).count() / static_cast<double>(iterations);
}

std::vector<ToolSpec> tools() {
  std::vector<ToolSpec> out;
  for (int i = 0; i < kTools; ++i) {
    ToolSpec t{"tool_" + std::to_string(i), "Does thing number " + std::to_string(i) + " to the workspace.",
               json::parse(R"({"type":"object","properties":{"path":{"type":"string","description":"A path"},"limit":{"type":"integer","minimum":1}},"required":["path"]})")
                   .value(),
               0};
    t.fingerprint = fingerprint_of(t);
    out.push_back(std::move(t));
  }
  return out;
}

// kMessages messages: a user prompt, then tool round trips (assistant call + result).
std::vector<Message> history(const Model& model) {
  std::vector<Message> h;
  h.push_back(user_text("Refactor the parser and run the tests."));
  for (int i = 0; static_cast<int>(h.size()) < kMessages; ++i) {
    AssistantMessage a = start_message(model);
    std::string id = "call_" + std::to_string(i);
    a.content.push_back(TextBlock{"Reading the next file."});
    a.content.push_back(ToolUseBlock{id, "tool_" + std::to_string(i % kTools), json::Raw(R"({"path": "src/a.cpp", "limit": 200})"), {}});
    a.stop_reason = StopReason::tool_use;
    h.push_back(std::move(a));
    ToolResultMessage r;
    r.tool_use_id = id;
    r.tool_name = "tool_" + std::to_string(i % kTools);
    r.content.push_back(TextBlock{std::string(400, 'x')});
    h.push_back(std::move(r));
  }
  return h;
}

WireOptions options() {
  WireOptions o;
  o.transport.credentials.environment = fixed_environment({{"ANTHROPIC_API_KEY", "k"},
                                                           {"OPENAI_API_KEY", "k"},
                                                           {"XAI_API_KEY", "k"},
                                                           {"GEMINI_API_KEY", "k"}});
  o.meter = std::make_shared<CacheMeter>();
  return o;
}

void encode_at_scale(const char* label, std::shared_ptr<WireClient> client, const Model& row) {
  auto model = std::make_shared<Model>(row);
  const std::vector<ToolSpec> t = tools();
  const std::vector<Message> h = history(row);
  Request req;
  req.model = model;
  req.system = "You are a careful engineer.";
  req.messages = h;
  req.tools = t;
  req.max_tokens = 4096;
  req.session_id = "bench";
  std::size_t bytes = 0;
  const auto first = BenchClock::now();
  bytes = client->prepare(req, {}).value().wire.body.size();
  const double cold_us = std::chrono::duration<double, std::micro>(BenchClock::now() - first).count();
  const double warm_ns = ns_per_op(50, [&] { g_sink += client->prepare(req, {}).value().wire.body.size(); });
  const CacheStats s = client->meter()->stats("bench");
  // A session the wire has not encoded yet (a resumed or compacted one looks the same): the whole
  // history is encoded, the schemas are the cache's.
  int sessions = 0;
  const double fresh_ns = ns_per_op(20, [&] {
    req.session_id = "fresh-" + std::to_string(++sessions);
    g_sink += client->prepare(req, {}).value().wire.body.size();
  });
  std::printf(
      "%-20s prepare(): first %8.0f us, steady %6.0f us, a new session %6.0f us per request (%zu "
      "KB body); schemas serialised: %lld in %d requests\n",
      label, cold_us, warm_ns / 1000.0, fresh_ns / 1000.0, bytes / 1024,
      static_cast<long long>(s.schemas_serialised), 51);
}

void stamping() {
  // The level-1 work alone on an encoded 1000-message request: splice the marker into the last
  // cached tool form and mark the last user block.
  Model row = catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5") ? *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5") : Model{};
  const std::vector<Message> h = history(row);
  json::Array messages = providers::detail::anthropic_messages(h, false);
  std::vector<providers::detail::ToolBytes> forms;
  for (const auto& t : tools()) forms.push_back(std::make_shared<const std::string>(providers::detail::anthropic_tool_form(t)));
  providers::detail::Breakpoints marks;
  const double ns = ns_per_op(20000, [&] {
    json::Array stamped_tools = providers::detail::anthropic_tools(forms, {}, marks);
    g_sink += stamped_tools.size();
    json::Value& last = messages.back();
    if (json::Value* c = last.find("content"); c && c->is_array()) c->as_array().back().as_object().erase("cache_control");
    g_sink += providers::detail::stamp_rolling_breakpoint(messages, marks) ? 1 : 0;
  });
  std::printf("L1 stamping, %d tools / %d messages: %.0f ns per request (Go original: ~47 ns, budget 1 ms)\n", kTools, kMessages, ns);
}

// A wire client whose send() answers at once from memory, so a dedup miss fills the store
// without a network; what is timed is the hit path.
class InstantWire final : public WireClient {
 public:
  explicit InstantWire(AssistantMessage answer) : answer_(std::move(answer)) {}
  Result<PreparedCall> prepare(const Request& request, const StreamOptions&) const override {
    PreparedCall c;
    c.model = request.model;
    c.wire.path = "/v1/messages";
    c.wire.body = R"({"model":"m","messages":[{"role":"user","content":"hello"}]})";
    c.session_id = request.session_id;
    c.samples = false;
    return c;
  }
  EventStream send(PreparedCall, const StreamOptions& options, agentkit::stop_token) override {
    auto [sink, events] = make_event_stream(options.stream);
    sink.finish(answer_);
    return std::move(events);
  }
  std::string_view api() const noexcept override { return "anthropic-messages"; }
  std::shared_ptr<CacheMeter> meter() const override { return meter_; }

 private:
  AssistantMessage answer_;
  std::shared_ptr<CacheMeter> meter_ = std::make_shared<CacheMeter>();
};

void dedup_hit() {
  AssistantMessage answer;
  answer.content.push_back(TextBlock{"Paris is the capital of France."});
  answer.content.push_back(ToolUseBlock{"toolu_1", "lookup", json::Raw(R"({"q":"France"})"), {}});
  auto model = std::make_shared<Model>();
  std::vector<Message> h{user_text("hello")};
  Request req;
  req.model = model;
  req.messages = h;
  req.temperature = 0.0;
  req.session_id = "bench";
  auto inner = std::make_shared<InstantWire>(answer);
  auto cached = with_dedup(inner, DedupOptions{});
  (void)complete(*cached, req);  // the miss that fills the store
  const double direct = ns_per_op(20000, [&] {
    EventStream s = inner->stream(req, {}, {});
    g_sink += s.result().value().content.size();
  });
  const double hit = ns_per_op(20000, [&] {
    EventStream s = cached->stream(req, {}, {});
    g_sink += s.result().value().content.size();
  });
  std::printf("L2 dedup: direct return %.2f us, cache hit %.2f us (overhead %.2f us; Go original ~0.8 us, budget 0.5 ms)\n",
              direct / 1000.0, hit / 1000.0, (hit - direct) / 1000.0);
}

}  // namespace

// bench_providers_wires [wire]: every wire's encoding, stamping and dedup; or one wire's encoding
// alone (a wire measured after others inherits their heap).
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const catalog::Catalog& cat = catalog::Catalog::builtin();
  auto row = [&](const char* wire, std::shared_ptr<WireClient> client, const char* vendor,
                 const char* model) {
    if (only.empty() || only == wire)
      encode_at_scale(wire, std::move(client), *cat.find(vendor, model));
  };
  row("anthropic-messages", make_anthropic_messages_client(options()), "anthropic",
      "claude-sonnet-5-5");
  row("openai-completions", make_openai_completions_client(options()), "xai", "grok-4.5");
  row("openai-responses", make_openai_responses_client(options()), "openai", "gpt-6.2-sol");
  row("google-generative-ai", make_google_client(options()), "google", "gemini-4-hydrogen");
  row("ollama-chat", make_ollama_client(options()), "ollama", "llama3.3");
  if (!only.empty()) return g_sink == 0 ? 1 : 0;
  stamping();
  dedup_hit();
  return g_sink == 0 ? 1 : 0;
}
