// Encoding that does not grow with history (issue 18): every wire keeps the wire form of the
// history it sent per session and encodes only what was added. These tests hold the kept encoding
// to the fresh one byte for byte over long randomised sessions on all five wires, count the
// messages encoded per request, and check each invalidation (compaction, branch switch, model
// change, a send-time repair that rewrites a sent message).
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/ollama.hpp"
#include "agentkit/providers/openai.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"
#include "support/shared_testdata.hpp"
#include "anthropic/anthropic_wire.hpp"
#include "google/gemini_request.hpp"
#include "ollama/ollama_request.hpp"
#include "openai_completions/completions_wire.hpp"
#include "openai_responses/responses_wire.hpp"
#include "wire_common/encoded_history.hpp"

using namespace agentkit;
using providers::CacheMeter;
using providers::CacheStats;
using providers::WireClient;
using providers::WireOptions;

namespace {

struct WireCase {
  std::string name;
  std::string vendor;
  std::string model;
  std::function<std::shared_ptr<WireClient>(const WireOptions&)> make;
};

std::vector<WireCase> wires() {
  return {
      {"openai-responses", "openai", "gpt-6.2-sol",
       [](const WireOptions& o) { return providers::make_openai_responses_client(o); }},
      {"openai-completions", "deepseek", "deepseek-v4-flash",
       [](const WireOptions& o) { return providers::make_openai_completions_client(o); }},
      {"anthropic-messages", "anthropic", "claude-sonnet-5-5",
       [](const WireOptions& o) { return providers::make_anthropic_messages_client(o); }},
      {"google-generative-ai", "google", "gemini-4-hydrogen",
       [](const WireOptions& o) { return providers::make_google_client(o); }},
      {"ollama-chat", "ollama", "llama3.3",
       [](const WireOptions& o) { return providers::make_ollama_client(o); }},
  };
}

std::shared_ptr<const Model> row(const WireCase& w) {
  const Model* m = catalog::Catalog::builtin().find(w.vendor, w.model);
  REQUIRE(m);
  return std::make_shared<const Model>(*m);
}

// Two clients of one wire: one keeps the encoded history, the other encodes every request whole.
struct Pair {
  explicit Pair(const WireCase& w) {
    WireOptions on;
    WireOptions off;
    off.caching.reuse_encoded_history = false;
    kept = w.make(on);
    fresh = w.make(off);
  }
  std::shared_ptr<WireClient> kept;
  std::shared_ptr<WireClient> fresh;
};

std::vector<ToolSpec> tool_set() {
  std::vector<ToolSpec> tools;
  for (const char* name : {"read", "grep", "late_tool"}) {
    ToolSpec t{name, std::string("does ") + name,
               json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})").value()};
    t.fingerprint = fingerprint_of(t);
    tools.push_back(std::move(t));
  }
  return tools;
}

ToolResultMessage result_of(const std::string& id, const std::string& text) {
  ToolResultMessage r;
  r.tool_use_id = id;
  r.tool_name = "read";
  r.content.push_back(TextBlock{text});
  return r;
}

Request request_for(const std::shared_ptr<const Model>& model, const std::vector<Message>& history,
                    const std::vector<ToolSpec>& tools, const std::string& session = "s-1") {
  Request r;
  r.model = model;
  r.system = "You are terse.";
  r.messages = history;
  r.tools = tools;
  r.session_id = session;
  return r;
}

std::string body_of(const WireClient& client, const Request& r) {
  auto call = client.prepare(r, {});
  REQUIRE(call);
  return call->wire.body;
}

// A random but well-formed-enough history step (the repair turns the rest into a valid view).
class SessionGen {
 public:
  SessionGen(std::uint32_t seed, const Model& model) : rng_(seed), model_(model) {}

  void step(std::vector<Message>& h) {
    const int kind = pick(10);
    if (h.empty() || kind < 2) {
      h.push_back(user());
    } else {
      AssistantMessage a = assistant();
      std::vector<std::string> ids;
      for (const auto& b : a.content) {
        if (const auto* c = std::get_if<ToolUseBlock>(&b)) ids.push_back(c->id);
      }
      h.push_back(std::move(a));
      for (const auto& id : ids) {
        if (pick(12) == 0) continue;  // an unanswered call: repair adds a synthetic result
        h.push_back(result(id));
      }
      if (!ids.empty() && pick(5) == 0) h.push_back(user());  // a user message after the results
    }
  }

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string text() {
    static const char* words[] = {"alpha", "\"quoted\"", "é ünïcode", "line\nbreak",
                                  "tab\t", "",           "x"};
    std::string out;
    for (int i = pick(4) + 1; i > 0; --i) out += words[pick(7)];
    return out;
  }

  UserMessage user() {
    UserMessage u;
    u.content.push_back(TextBlock{text()});
    if (pick(6) == 0) u.content.push_back(ImageBlock{"image/png", "iVBORw0KGgo="});
    if (u.content.size() == 1 && std::get<TextBlock>(u.content[0]).text.empty())
      std::get<TextBlock>(u.content[0]).text = "hi";
    return u;
  }

  AssistantMessage assistant() {
    AssistantMessage a;
    a.provider = model_.vendor;
    a.api = model_.api;
    a.model = model_.id;
    a.stop_reason = StopReason::tool_use;
    if (pick(3) == 0) {
      const int id = ++n_;
      a.content.push_back(ThinkingBlock{text(), pick(2) ? "sig-" + std::to_string(id) : "", false,
                                        "rs_" + std::to_string(id)});
    }
    if (pick(2) == 0) a.content.push_back(TextBlock{text()});
    const int calls = pick(3);
    for (int i = 0; i < calls; ++i) {
      ToolUseBlock c;
      const int id = ++n_;
      c.id = "call_" + std::to_string(id) + (pick(2) ? "|fc_" + std::to_string(id) : "");
      c.name = pick(2) ? "read" : "grep";
      if (pick(4) == 0) {
        // Long arguments with quotes and escapes: kept by reference (a splice), not as bytes.
        std::string note = R"({"note":")";
        for (int k = pick(40) + 20; k > 0; --k) note += R"(say "hi" ü é )";
        c.input = json::Raw(note + R"("})");
      } else {
        c.input = json::Raw(pick(8) ? R"({"path":"a/b.txt"})"
                                    : R"({"path":)");  // a cut-off call now and then
      }
      a.content.push_back(std::move(c));
    }
    if (calls == 0) a.stop_reason = StopReason::stop;
    if (a.content.empty()) a.content.push_back(TextBlock{"ok"});
    if (pick(15) == 0) a.stop_reason = StopReason::error;  // dropped by repair
    return a;
  }

  ToolResultMessage result(const std::string& id) {
    ToolResultMessage r;
    r.tool_use_id = id;
    r.tool_name = "read";
    r.content.push_back(TextBlock{text()});
    if (pick(8) == 0) r.content.push_back(ImageBlock{"image/png", "iVBORw0KGgo="});
    r.is_error = pick(6) == 0;
    if (pick(20) == 0) r.added_tool_names.push_back("late_tool");
    return r;
  }

 private:
  std::mt19937 rng_;
  const Model& model_;
  int n_ = 0;
};

// Records every body and sends none: each call ends with a transport error, after which the
// pipeline hands the body back as it does on every outcome.
class RecordingTransport final : public http::HttpTransport {
 public:
  Result<http::Response> send(const http::Request& request, agentkit::stop_token) override {
    bodies.push_back(request.body);
    // As HttpClient does once the body is written: the pipeline may shrink it from here on.
    if (request.on_body_written) request.on_body_written();
    held.push_back(request.body.size());
    return fail(Errc::io_error, "recorded, not sent");
  }
  std::vector<std::string> bodies;
  std::vector<std::size_t> held;  // the body's size after on_body_written
};

WireOptions recording_options(std::shared_ptr<http::HttpTransport> transport) {
  WireOptions o;
  o.transport.http = std::move(transport);
  o.transport.credentials.environment = providers::fixed_environment({{"OPENAI_API_KEY", "k"},
                                                                      {"DEEPSEEK_API_KEY", "k"},
                                                                      {"ANTHROPIC_API_KEY", "k"},
                                                                      {"GEMINI_API_KEY", "k"}});
  return o;
}

using providers::detail::EncodedHistory;
using providers::detail::HistoryLend;
using providers::detail::HistoryPromise;

// A wire whose items are each message's text, quoted; every boundary closed.
const EncodedHistory::Wire kQuotedWire{
    [](const Message&, const Message&) { return true; },
    [](std::span<const Message> segment, bool) {
      EncodedHistory::Segment out;
      for (const Message& m : segment) {
        out.items += '"' + std::get<TextBlock>(std::get<UserMessage>(m).content[0]).text + "\",";
      }
      return out;
    }};

std::string quoted_body(EncodedHistory& history, CacheMeter& meter, std::span<const Message> view,
                        HistoryLend* lend) {
  std::string body = R"({"items":)";
  // Under the loop's promise: no copies of messages are kept, only the encoded bytes.
  history.append_array("s", "context", view, kQuotedWire, body, meter,
                       HistoryPromise{1, view.size(), lend});
  body += '}';
  return body;
}

}  // namespace

TEST_CASE(
    "the kept encoding equals a fresh encode byte for byte on every turn of long randomised "
    "sessions, with and without the loop's promise") {
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
      // Even seeds make each request with the promise that the history only grows
      // (Request::history_serial), renewed at every other change, as the loop does.
      const bool promised = seed % 2 == 0;
      std::uint64_t serial = 1;
      INFO(w.name << " seed " << seed << (promised ? " promised" : ""));
      Pair clients(w);
      auto model = row(w);
      Model other_row = *model;
      other_row.id += "-other";  // a model change: the repair sees every old turn as foreign
      auto other = std::make_shared<const Model>(other_row);
      SessionGen gen(seed, *model);
      std::vector<Message> h;
      auto current = model;
      for (int turn = 0; turn < 160; ++turn) {
        gen.step(h);
        const int event = gen.pick(40);
        if (event == 0 && h.size() > 4) {  // compaction: a summary replaces the oldest messages
          const std::size_t cut =
              1 + static_cast<std::size_t>(gen.pick(static_cast<int>(h.size() - 2)));
          h.erase(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(cut));
          h.insert(h.begin(), UserMessage{{TextBlock{"summary of earlier work"}}});
          ++serial;
        } else if (event == 1 &&
                   h.size() > 4) {  // branch switch: back to an earlier point, new path
          h.resize(static_cast<std::size_t>(gen.pick(static_cast<int>(h.size()))));
          gen.step(h);
          ++serial;
        } else if (event == 2) {
          current = current == model ? other : model;
        } else if (event == 3 && h.size() > 2) {  // an earlier turn now failed: repair drops it
          for (auto& m : h) {
            if (auto* a = std::get_if<AssistantMessage>(&m); a && gen.pick(3) == 0) {
              a->stop_reason = StopReason::error;
              break;
            }
          }
          ++serial;
        }
        Request r = request_for(current, h, tools);
        if (promised) r.history_serial = serial;
        const std::string kept = body_of(*clients.kept, r);
        const std::string fresh = body_of(*clients.fresh, r);
        INFO("turn " << turn << " history " << h.size());
        REQUIRE(kept == fresh);
      }
      CHECK(clients.kept->meter()->stats("s-1").messages_reused > 0);
      CHECK(clients.fresh->meter()->stats("s-1").messages_reused == 0);
    }
  }
}

TEST_CASE(
    "a steady-state request encodes only the messages added since the last one, on every wire") {
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    WireOptions o;
    auto client = w.make(o);
    auto model = row(w);
    std::vector<Message> h{UserMessage{{TextBlock{"start"}}}};
    std::int64_t encoded_before = 0;
    for (int turn = 0; turn < 30; ++turn) {
      AssistantMessage a;
      a.provider = model->vendor;
      a.api = model->api;
      a.model = model->id;
      a.stop_reason = StopReason::tool_use;
      a.content.push_back(
          ToolUseBlock{"call_" + std::to_string(turn), "read", json::Raw(R"({"path":"x"})"), ""});
      h.push_back(std::move(a));
      h.push_back(result_of("call_" + std::to_string(turn), "contents"));
      body_of(*client, request_for(model, h, tools));
      const std::int64_t encoded = client->meter()->stats("s-1").messages_encoded;
      if (turn > 0) {
        INFO("turn " << turn);
        CHECK(encoded - encoded_before ==
              2);  // the assistant turn and its result: nothing sent before
      }
      encoded_before = encoded;
    }
    // Turn t reuses the 2t + 1 messages the previous request sent: 3 + 5 + ... + 59.
    CHECK(client->meter()->stats("s-1").messages_reused == 899);
  }
}

TEST_CASE(
    "under the loop's promise a steady-state request reads no message it sent before, on every "
    "wire") {
  // The promise is trusted, not checked: an old message changed in place under the same serial
  // (which the loop never does) is not seen, proving nothing was compared; without the promise,
  // or under a new serial, the change is seen.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    auto model = row(w);
    std::vector<Message> h{UserMessage{{TextBlock{"start"}}}};
    auto grow = [&](int turn) {
      AssistantMessage a;
      a.provider = model->vendor;
      a.api = model->api;
      a.model = model->id;
      a.stop_reason = StopReason::stop;
      a.content.push_back(TextBlock{"answer " + std::to_string(turn)});
      h.push_back(std::move(a));
      h.push_back(UserMessage{{TextBlock{"next " + std::to_string(turn)}}});
    };
    auto body = [&](const WireClient& client, std::uint64_t serial) {
      Request r = request_for(model, h, tools);
      r.history_serial = serial;
      return body_of(client, r);
    };
    for (std::uint64_t serial : {std::uint64_t{0}, std::uint64_t{7}}) {
      INFO("serial " << serial);
      auto client = w.make(WireOptions{});
      h = {UserMessage{{TextBlock{"start"}}}};
      for (int turn = 0; turn < 3; ++turn) {
        grow(turn);
        body(*client, serial);
      }
      std::get<TextBlock>(std::get<UserMessage>(h[0]).content[0]).text = "changed";
      grow(3);
      const bool seen = body(*client, serial).find("changed") != std::string::npos;
      CHECK(seen == (serial == 0));
      CHECK(body(*client, serial + 1).find("changed") != std::string::npos);  // a new promise
    }
  }
}

TEST_CASE(
    "a repair that rewrites a promised message is still seen: the promise covers only the view's "
    "unchanged prefix") {
  // A user message answered by a turn that failed: repair drops the turn and merges the next user
  // message into the earlier one, which was sent before as it stood.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    Pair p(w);
    auto model = row(w);
    std::vector<Message> h{UserMessage{{TextBlock{"first"}}}};
    AssistantMessage a;
    a.provider = model->vendor;
    a.api = model->api;
    a.model = model->id;
    a.stop_reason = StopReason::stop;
    a.content.push_back(TextBlock{"answer"});
    h.push_back(a);
    h.push_back(UserMessage{{TextBlock{"second"}}});
    auto send = [&] {
      Request r = request_for(model, h, tools);
      r.history_serial = 3;
      const std::string kept = body_of(*p.kept, r);
      CHECK(kept == body_of(*p.fresh, r));
      return kept;
    };
    send();
    a.stop_reason = StopReason::error;
    h.push_back(a);
    h.push_back(UserMessage{{TextBlock{"third"}}});
    a.stop_reason = StopReason::stop;
    h.push_back(a);
    h.push_back(UserMessage{{TextBlock{"fourth"}}});
    CHECK(send().find("third") != std::string::npos);
  }
}

TEST_CASE(
    "each invalidation re-encodes from the first difference and stays equal to a fresh encode") {
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    auto model = row(w);
    auto history = [&] {
      std::vector<Message> h{UserMessage{{TextBlock{"start"}}}};
      for (int turn = 0; turn < 10; ++turn) {
        AssistantMessage a;
        a.provider = model->vendor;
        a.api = model->api;
        a.model = model->id;
        a.stop_reason = StopReason::tool_use;
        a.content.push_back(ThinkingBlock{"plan " + std::to_string(turn),
                                          "sig" + std::to_string(turn), false,
                                          "rs_" + std::to_string(turn)});
        a.content.push_back(
            ToolUseBlock{"call_" + std::to_string(turn), "read", json::Raw(R"({"path":"x"})"), ""});
        h.push_back(std::move(a));
        h.push_back(result_of("call_" + std::to_string(turn), "r" + std::to_string(turn)));
      }
      return h;
    };
    auto encoded_now = [&](const Pair& p, const std::shared_ptr<const Model>& m,
                           const std::vector<Message>& h) {
      const std::int64_t before = p.kept->meter()->stats("s-1").messages_encoded;
      Request r = request_for(m, h, tools);
      REQUIRE(body_of(*p.kept, r) == body_of(*p.fresh, r));
      return p.kept->meter()->stats("s-1").messages_encoded - before;
    };

    SECTION("compaction") {
      Pair p(w);
      std::vector<Message> h = history();
      encoded_now(p, model, h);
      h.erase(h.begin(), h.begin() + 7);
      h.insert(h.begin(), UserMessage{{TextBlock{"summary"}}});
      CHECK(encoded_now(p, model, h) == static_cast<std::int64_t>(h.size()));
    }
    SECTION("branch switch") {
      Pair p(w);
      std::vector<Message> h = history();
      encoded_now(p, model, h);
      h.resize(8);  // back to the fourth turn's call, which now has another result
      h.push_back(result_of("call_3", "another branch"));
      CHECK(encoded_now(p, model, h) == 1);
    }
    SECTION("model change") {
      Pair p(w);
      std::vector<Message> h = history();
      encoded_now(p, model, h);
      Model other_row = *model;
      other_row.id += "-next";
      CHECK(encoded_now(p, std::make_shared<const Model>(other_row), h) ==
            static_cast<std::int64_t>(h.size()));
    }
    SECTION("a send-time repair that touches a sent message") {
      Pair p(w);
      std::vector<Message> h = history();
      encoded_now(p, model, h);
      std::get<AssistantMessage>(h[3]).stop_reason = StopReason::error;  // now dropped (rule 2)
      // The view loses that turn and its result; everything from there is encoded again.
      CHECK(encoded_now(p, model, h) == static_cast<std::int64_t>(h.size()) - 2 - 3);
    }
  }
}

namespace {

// Responses replies for an agent over loopback HTTP: `calls` turns that call the no-op tool, then
// an answer.
// A short session whose first message is `text_bytes` long: its kept encoding is about that size.
std::vector<Message> sized_history(const Model& model, std::size_t text_bytes) {
  AssistantMessage a;
  a.provider = model.vendor;
  a.api = model.api;
  a.model = model.id;
  a.stop_reason = StopReason::stop;
  a.content.push_back(TextBlock{"ok"});
  return {UserMessage{{TextBlock{std::string(text_bytes, 'q')}}}, std::move(a),
          UserMessage{{TextBlock{"next"}}}};
}

// Whether a request of `session` reused kept messages (true) or encoded all afresh.
bool reuses(const WireClient& client, const Request& r) {
  const std::int64_t before = client.meter()->stats(r.session_id).messages_reused;
  body_of(client, r);
  return client.meter()->stats(r.session_id).messages_reused > before;
}

TEST_CASE("more sessions than the old cap of 256 all keep their encoded history, on every wire") {
  // The table was cleared at 256 sessions, so 1,000 sessions taking turns re-encoded every
  // request. Now only a byte budget bounds it.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    auto client = w.make(WireOptions{});
    auto model = row(w);
    const std::vector<Message> h = sized_history(*model, 100);
    constexpr int kSessions = 400;
    for (int s = 0; s < kSessions; ++s)
      body_of(*client, request_for(model, h, tools, "s-" + std::to_string(s)));
    int reused = 0;
    for (int s = 0; s < kSessions; ++s)
      reused += reuses(*client, request_for(model, h, tools, "s-" + std::to_string(s))) ? 1 : 0;
    CHECK(reused == kSessions);
  }
}

TEST_CASE(
    "a wire told a session closed drops its kept encoding, tool prefix and figures, and only "
    "that session's, on every wire and through the dedup layer") {
  // Without it a closed session's encoding stayed until the byte budget (64 MiB) pushed it out,
  // and its figures and tool prefix stayed for good.
  const std::vector<ToolSpec> tools = tool_set();
  const std::vector<ToolSpec> fewer(tools.begin(), tools.end() - 1);
  for (const WireCase& w : wires()) {
    for (const bool dedup : {false, true}) {
      INFO(w.name << (dedup ? " behind the dedup layer" : ""));
      std::shared_ptr<WireClient> client = w.make(WireOptions{});
      if (dedup) client = providers::with_dedup(std::move(client), providers::DedupOptions{});
      auto model = row(w);
      const std::vector<Message> h = sized_history(*model, 100);
      for (const char* s : {"a", "b"}) body_of(*client, request_for(model, h, tools, s));
      REQUIRE(client->cache_stats("a")->messages_encoded > 0);
      client->session_closed("a");
      CHECK(client->cache_stats("a") == CacheStats{});
      CHECK(client->cache_stats("b")->messages_encoded > 0);
      // Its encoding is gone: encoded whole again.
      CHECK_FALSE(reuses(*client, request_for(model, h, tools, "a")));
      // Its tool prefix too: offering fewer tools is a new session's first prefix, not an
      // invalidation.
      client->session_closed("a");
      body_of(*client, request_for(model, h, fewer, "a"));
      CHECK(client->cache_stats("a")->prefix_invalidations == 0);
      CHECK(reuses(*client, request_for(model, h, tools, "b")));
      body_of(*client, request_for(model, h, fewer, "b"));
      CHECK(client->cache_stats("b")->prefix_invalidations == 1);
    }
  }
}

TEST_CASE(
    "past its byte budget a client drops the least recently used sessions' encoding, never the one "
    "it just encoded") {
  // Entries of about 11 KB under a 50 KB budget: four fit. A fifth drops the least recently used
  // until a quarter of the budget is free: two of them.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    WireOptions o;
    o.caching.encoded_history_bytes = 50'000;
    auto client = w.make(o);
    auto model = row(w);
    const std::vector<Message> h = sized_history(*model, 10'500);
    auto request = [&](const char* session) { return request_for(model, h, tools, session); };
    for (const char* s : {"a", "b", "c", "d"}) body_of(*client, request(s));
    CHECK(reuses(*client, request("a")));  // a is now the most recently used
    body_of(*client, request("e"));        // over the budget: b and c go
    CHECK(reuses(*client, request("a")));
    CHECK(reuses(*client, request("d")));
    CHECK(reuses(*client, request("e")));
    CHECK_FALSE(reuses(*client, request("b")));
    CHECK_FALSE(reuses(*client, request("c")));

    WireOptions tiny;
    tiny.caching.encoded_history_bytes = 1;  // less than any one session
    auto small = w.make(tiny);
    body_of(*small, request("a"));
    CHECK(reuses(*small, request("a")));  // the session just encoded stays, over the budget alone
    body_of(*small, request("b"));
    CHECK_FALSE(reuses(*small, request("a")));
  }
}

TEST_CASE(
    "a kept encoding is held without its growth slack, so a budget fits as many sessions "
    "as their bytes") {
  // A dump grows its string by doubling: a 10.5 KB message was kept in about 21 KB of capacity.
  // The budget counts what the strings hold, so five sessions of about 12 KB fit in 70 KB only
  // when the kept strings are trimmed to their bytes.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    WireOptions o;
    o.caching.encoded_history_bytes = 70'000;
    auto client = w.make(o);
    auto model = row(w);
    const std::vector<Message> h = sized_history(*model, 10'500);
    auto request = [&](int s) { return request_for(model, h, tools, "s-" + std::to_string(s)); };
    for (int s = 0; s < 5; ++s) body_of(*client, request(s));
    for (int s = 0; s < 5; ++s) CHECK(reuses(*client, request(s)));
    // Re-encoded afresh ten times (its first message differs each time), session 0 is counted
    // at what it holds now, not at every string it ever kept: the others stay.
    std::vector<Message> other = h;
    for (int k = 0; k < 10; ++k) {
      std::get<UserMessage>(other[0]).content = {TextBlock{std::string(10'500, 'a' + k)}};
      CHECK_FALSE(reuses(*client, request_for(model, other, tools, "s-0")));
    }
    for (int s = 1; s < 5; ++s) CHECK(reuses(*client, request(s)));
  }
}

std::vector<testing::ScriptedResponse> noop_turns(int calls) {
  std::vector<testing::ScriptedResponse> script;
  for (int k = 1; k <= calls + 1; ++k) {
    testing::ScriptedResponse r;
    r.headers = http::Headers({{"Content-Type", "application/json"}});
    const std::string output =
        k <= calls ? R"({"id":"fc_)" + std::to_string(k) +
                         R"(","type":"function_call","status":"completed","arguments":"{}",)"
                         R"("call_id":"call_)" +
                         std::to_string(k) + R"(","name":"noop"})"
                   : R"({"id":"msg_)" + std::to_string(k) +
                         R"(","type":"message","status":"completed","role":"assistant",)"
                         R"("content":[{"type":"output_text","text":"done"}]})";
    r.body = R"({"id":"resp_)" + std::to_string(k) +
             R"(","object":"response","status":"completed","model":"gpt-6.2-sol","output":[)" +
             output + R"(],"usage":{"input_tokens":1,"output_tokens":1}})";
    script.push_back(std::move(r));
  }
  return script;
}

// An agent with the no-op tool on the built-in Responses wire, talking to `server`; `rt` may
// carry extensions.
Agent noop_agent(const testing::ScriptedServer& server, RuntimeConfig rt = {}) {
  auto model = catalog::Catalog::builtin().resolve("openai/gpt-6.2-sol");
  REQUIRE(model);
  model->base_url = server.base_url();
  rt.model.descriptor = *model;
  providers::ProviderOptions wires;
  wires.http = std::make_shared<http::HttpClient>();
  wires.credentials.environment = providers::fixed_environment({{"OPENAI_API_KEY", "test-key"}});
  providers::register_defaults(rt.providers, wires);
  ToolDefinition noop;
  noop.name = "noop";
  noop.description = "does nothing";
  noop.handler = [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("ok");
  };
  AgentDefinition def;
  def.tools.direct.push_back(noop);
  auto agent = make_agent(def, rt);
  REQUIRE(agent);
  return std::move(*agent);
}

}  // namespace

namespace {

// One tool whose schema has `properties` string members of about 90 bytes each.
std::vector<ToolSpec> tool_with(int properties) {
  std::string schema = R"({"type":"object","properties":{)";
  for (int i = 0; i < properties; ++i)
    schema += (i ? ",\"" : "\"") + std::string("field_number_") + std::to_string(i) +
              R"(":{"type":"string","description":"a field long enough to be allocated"})";
  ToolSpec t{"read", "reads", json::parse(schema + "}}").value()};
  t.fingerprint = fingerprint_of(t);
  return std::vector<ToolSpec>{std::move(t)};
}

// The allocations (count and bytes) of a steady-state prepare with a 2-member and a 60-member
// schema, and the bodies' sizes.
struct SchemaCosts {
  testing::AllocStats small, large;
  std::size_t small_body = 0, large_body = 0;
};

SchemaCosts schema_costs(const WireCase& w) {
  auto model = row(w);
  const std::vector<Message> history{UserMessage{{TextBlock{"go"}}}};
  SchemaCosts costs;
  for (int k = 0; k < 2; ++k) {
    const std::vector<ToolSpec> tools = tool_with(k == 0 ? 2 : 60);
    auto client = w.make(WireOptions{});
    const Request r = request_for(model, history, tools);
    REQUIRE(client->prepare(r, {}));  // renders and caches the tool's form
    testing::AllocCounter counter;
    auto prepared = client->prepare(r, {});
    REQUIRE(prepared);
    (k == 0 ? costs.small : costs.large) = counter.stats();
    (k == 0 ? costs.small_body : costs.large_body) = prepared->wire.body.size();
  }
  return costs;
}

}  // namespace

TEST_CASE(
    "a steady-state request of a session that defers no tool allocates about the same for a small "
    "and a large tool schema, on every wire") {
  // The rendered forms are cached per session; what a request must not do is copy each tool,
  // schema and all, into a list of its own first (a 60-member schema was 117 more allocations).
  for (const WireCase& w : wires()) {
    INFO(w.name);
    const SchemaCosts costs = schema_costs(w);
    // The larger body may take a growth step more or fewer (libc++ and libstdc++ grow strings
    // differently); the copy was over a hundred allocations more.
    CHECK(costs.large.count <= costs.small.count + 4);
  }
}

TEST_CASE(
    "a steady-state request copies its tools' cached forms into the body once, on every wire") {
  // A form went into a tree as a copy (json::Raw of its bytes), the tree's dump grew by doubling
  // in a string of its own, and that string was copied into the body: about four times the
  // schema's bytes a request (seven on Gemini and Ollama, whose lists grew the same way). Now the
  // body is sized for what follows the messages and written in place. Gemini also keeps the
  // prefix apart (its context cache is keyed by it) and Anthropic's last tool carries a
  // cache_control marker spliced into a copy: two copies there.
  for (const WireCase& w : wires()) {
    INFO(w.name);
    const SchemaCosts costs = schema_costs(w);
    const std::size_t grown = costs.large_body - costs.small_body;  // the schema's bytes, once
    REQUIRE(grown > 4000);
    const bool twice = w.name == "google-generative-ai" || w.name == "anthropic-messages";
    const std::size_t slack = 1024;  // strings' rounding; a copy more is 5 KB
    // Upper bounds: under ThreadSanitizer the counter reads 0.
    CHECK(costs.large.bytes <= costs.small.bytes + (twice ? 2 : 1) * grown + slack);
  }
}

TEST_CASE(
    "a Responses request writes the members around its history as text: no tree of them is built "
    "and destroyed") {
  // The head (model, instructions) and the options after the history were json::Value trees built
  // for each request, dumped into the body and destroyed: an allocation for each object's members,
  // for each key past 15 bytes (prompt_cache_key), each copied value past 15 (the system prompt,
  // the session's cache key) and the tools' list.
  const std::vector<WireCase> all = wires();
  const WireCase& w = all.front();
  REQUIRE(w.name == "openai-responses");
  const SchemaCosts costs = schema_costs(w);
  // 24 with the trees, 16 without (libstdc++); two of room for another library's growth steps.
  // An upper bound: under ThreadSanitizer the counter reads 0.
  CHECK(costs.small.count <= 18);
}

TEST_CASE(
    "an agent's run encodes each message once: steady-state requests re-encode nothing already "
    "sent") {
  // Through make_agent and the loop: five tool turns then an answer, over loopback HTTP. Request k
  // carries the user message and k - 1 (call, result) pairs; only the last pair is new.
  testing::ScriptedServer server(noop_turns(5));
  Agent agent = noop_agent(server);
  auto result = agent.run("go");
  REQUIRE(result);
  REQUIRE(result->turn_count == 6);
  CHECK(result->cache.messages_encoded == 1 + 2 * 5);  // with the whole history each time: 36
  CHECK(result->cache.messages_reused == 1 + 3 + 5 + 7 + 9);
  // And what went on the wire is the whole history every time.
  json::Value last = json::parse(server.last_request().body).value();
  CHECK(last.find("input")->as_array().size() == 11);
}

TEST_CASE(
    "a steady-state request is written over the body its session last sent: no allocation of its "
    "size, and the kept items are not copied") {
  // A 100 KB first message makes every body larger than that. The second request outgrows the
  // first body's buffer once; from the third on each fits in the buffer the last came back in.
  // They used to allocate a body apiece and copy the kept items into it.
  std::vector<testing::ScriptedResponse> answers(4, noop_turns(0).front());
  testing::ScriptedServer server(answers);
  Agent agent = noop_agent(server);
  auto session = agent.start();
  REQUIRE(session);
  REQUIRE(session->run(Turn{std::string(100'000, 'q')}));
  REQUIRE(session->run(Turn{"next"}));
  for (const char* text : {"and next", "and the last"}) {
    testing::AllocStats steady;
    {
      testing::AllocCounter counter;
      auto r = session->run(Turn{text});
      steady = counter.stats();
      REQUIRE(r);
      CHECK(r->cache.messages_reused > 0);
    }
    CHECK(steady.largest < 100'000);
  }
  CHECK(server.last_request().body.size() > 100'000);
}

TEST_CASE(
    "a middleware that sends its own messages loses the loop's promise: what it sends is encoded "
    "afresh") {
  // The middleware copies the request (and with it history_serial) but numbers the first message
  // by call, so an earlier message changes under the same serial. provider_call must drop the
  // promise for messages that are not the loop's own.
  testing::ScriptedServer server(noop_turns(3));
  RuntimeConfig rt;
  auto calls = std::make_shared<int>(0);
  rt.extensions.middleware.push_back([calls](ModelCall next) -> ModelCall {
    return [calls, next](const Request& req, const StreamOptions& opts, const EventCallback& emit,
                         agentkit::stop_token stop) {
      std::vector<Message> own(req.messages.begin(), req.messages.end());
      std::get<UserMessage>(own[0]).content = {TextBlock{"call " + std::to_string(++*calls)}};
      Request copy = req;  // history_serial and all
      copy.messages = own;
      return next(copy, opts, emit, stop);
    };
  });
  Agent agent = noop_agent(server, std::move(rt));
  auto result = agent.run("go");
  REQUIRE(result);
  REQUIRE(result->turn_count == 4);
  CHECK(server.last_request().body.find("call 4") != std::string::npos);
}

TEST_CASE(
    "a request made through stream() sends what a fresh encode would on every turn, and reuses as "
    "much as a kept copy, on every wire") {
  // stream() lends the session's kept encoding to the body and gets it back from the pipeline;
  // prepare() keeps a copy. Both must send the same bytes and reuse the same messages.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u}) {
      const bool promised = seed % 2 == 0;
      std::uint64_t serial = 1;
      INFO(w.name << " seed " << seed << (promised ? " promised" : ""));
      auto recorder = std::make_shared<RecordingTransport>();
      auto lending = w.make(recording_options(recorder));
      Pair others(w);  // `kept` copies through prepare(), `fresh` encodes whole
      auto model = row(w);
      SessionGen gen(seed, *model);
      // Seeds 3 and 4 open with 70 KB (and compact to as much): their bodies pass the 64 KB from
      // which a body written over the last one grows with an eighth of room.
      const std::string opening = seed >= 3 ? std::string(70'000, 'p') : std::string();
      std::vector<Message> h;
      for (int turn = 0; turn < 120; ++turn) {
        gen.step(h);
        if (turn == 0 && !opening.empty()) h.front() = UserMessage{{TextBlock{opening}}};
        const int event = gen.pick(30);
        if (event == 0 && h.size() > 4) {  // compaction
          h.erase(h.begin(), h.begin() + 2);
          h.insert(h.begin(), UserMessage{{TextBlock{opening.empty() ? "summary" : opening}}});
          ++serial;
        } else if (event == 1 && h.size() > 4) {  // branch switch
          h.resize(h.size() / 2);
          gen.step(h);
          ++serial;
        }
        Request r = request_for(model, h, tools);
        if (promised) r.history_serial = serial;
        StreamOptions deferred;
        deferred.deferred = true;
        (void)drain(lending->stream(r, deferred, {}), [](Event&&) {});
        INFO("turn " << turn << " history " << h.size());
        REQUIRE(recorder->bodies.size() == static_cast<std::size_t>(turn) + 1);
        REQUIRE(recorder->bodies.back() == body_of(*others.fresh, r));
        (void)body_of(*others.kept, r);
      }
      const CacheStats lent = lending->meter()->stats("s-1");
      const CacheStats copied = others.kept->meter()->stats("s-1");
      CHECK(lent.messages_reused > 0);
      CHECK(lent.messages_reused == copied.messages_reused);
      CHECK(lent.messages_encoded == copied.messages_encoded);
    }
  }
}

TEST_CASE(
    "a lent encoding is held once: the session keeps none of its bytes while the body is out, "
    "and the body it gets back serves the next request") {
  std::vector<Message> h;
  for (int i = 0; i < 40; ++i) h.push_back(UserMessage{{TextBlock{std::string(100, 'a')}}});
  EncodedHistory copying;
  CacheMeter copy_meter;
  (void)quoted_body(copying, copy_meter, h, nullptr);
  CHECK(copying.held_bytes() > 40 * 100);  // a copy of the items: 4 KB and more

  EncodedHistory history;
  CacheMeter meter;
  HistoryLend first;
  const std::string body = quoted_body(history, meter, h, &first);
  REQUIRE(first.lease != 0);
  CHECK(body.compare(first.at, 4, R"("aaa)") == 0);
  CHECK(history.held_bytes() < 1000);  // bookkeeping only
  history.give_back("s", first, body);
  CHECK(history.held_bytes() >= body.size());

  h.push_back(UserMessage{{TextBlock{"next"}}});
  HistoryLend second;
  EncodedHistory whole(false);
  CacheMeter whole_meter;
  CHECK(quoted_body(history, meter, h, &second) == quoted_body(whole, whole_meter, h, nullptr));
  CHECK(meter.stats("s").messages_reused == 40);
  CHECK(history.held_bytes() < 1000);

  history.give_back("s", second, "{}");  // too short to hold what was lent: nothing kept
  h.push_back(UserMessage{{TextBlock{"last"}}});
  HistoryLend third;
  CHECK(quoted_body(history, meter, h, &third) == quoted_body(whole, whole_meter, h, nullptr));
  CHECK(meter.stats("s").messages_reused == 40);  // all 42 encoded again
}

TEST_CASE("a body that comes back after its session moved on is dropped, even one that would fit") {
  // An abandoned call's body can come back late. Here it has the same length as the newer one
  // and its last message differs: taken, the next request would send the old text.
  std::vector<Message> h;
  for (int i = 0; i < 40; ++i) h.push_back(UserMessage{{TextBlock{std::string(100, 'a')}}});
  EncodedHistory history;
  CacheMeter meter;
  HistoryLend older;
  const std::string older_body = quoted_body(history, meter, h, &older);
  std::get<TextBlock>(std::get<UserMessage>(h.back()).content[0]).text = std::string(100, 'b');
  HistoryLend newer;
  (void)quoted_body(history, meter, h, &newer);
  history.give_back("s", older, older_body);
  h.push_back(UserMessage{{TextBlock{"next"}}});
  EncodedHistory whole(false);
  CacheMeter whole_meter;
  HistoryLend next;
  CHECK(quoted_body(history, meter, h, &next) == quoted_body(whole, whole_meter, h, nullptr));
}

TEST_CASE(
    "an Anthropic request whose last message yields no item is encoded whole through stream(), "
    "and the next request reuses as much as a kept copy") {
  // The rolling breakpoint then goes on an earlier message, so the body is rewritten after the
  // kept items were lent to it: the entry takes its copy before that, as the copying path does.
  const WireCase w = wires()[2];
  REQUIRE(w.name == "anthropic-messages");
  const std::vector<ToolSpec> tools = tool_set();
  auto recorder = std::make_shared<RecordingTransport>();
  auto lending = w.make(recording_options(recorder));
  Pair others(w);
  auto model = row(w);
  AssistantMessage silent;  // an empty text block: no item on this wire
  silent.provider = model->vendor;
  silent.api = model->api;
  silent.model = model->id;
  silent.content.push_back(TextBlock{""});
  std::vector<Message> h{UserMessage{{TextBlock{"a"}}}};
  for (int turn = 0; turn < 3; ++turn) {
    AssistantMessage said = silent;
    std::get<TextBlock>(said.content[0]).text = "said " + std::to_string(turn);
    h.push_back(said);
    h.push_back(UserMessage{{TextBlock{"then " + std::to_string(turn)}}});
    h.push_back(silent);                       // the view ends in a message that yields no item
    Request r = request_for(model, h, tools);  // no promise: the last message changes
    StreamOptions deferred;
    deferred.deferred = true;
    (void)drain(lending->stream(r, deferred, {}), [](Event&&) {});
    INFO("turn " << turn);
    REQUIRE(recorder->bodies.back() == body_of(*others.fresh, r));
    (void)body_of(*others.kept, r);
    h.pop_back();
  }
  const CacheStats lent = lending->meter()->stats("s-1");
  const CacheStats copied = others.kept->meter()->stats("s-1");
  CHECK(lent.messages_reused > 0);
  CHECK(lent.messages_reused == copied.messages_reused);
}

TEST_CASE("a call's arguments count as JSON exactly when Raw::valid says so") {
  // valid_arguments checks the usual flat object without a tree and parses every other shape:
  // its verdict must be Raw::valid's on every document of JSONTestSuite, and on each of them put
  // as the value of an object's member (a flat object when the document is a scalar).
  AGENTKIT_SHARED_TESTDATA(suite, "JSONTestSuite/test_parsing");
  int documents = 0;
  int flat_valid = 0;
  for (const auto& entry : std::filesystem::directory_iterator(suite)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const std::string& text : {bytes, R"({"a":1,"b":)" + bytes + "}"}) {
      const json::Raw raw(text);
      INFO(entry.path().filename().string() << ": " << text.substr(0, 80));
      REQUIRE(providers::detail::valid_arguments(raw) == raw.valid());
      if (text.front() == '{' && raw.valid() &&
          json::parse_flat(text, {}, [](const auto&) {}).value_or(false))
        ++flat_valid;
    }
    ++documents;
  }
  CHECK(documents >= 318);
  CHECK(flat_valid >= 10);  // the shortcut itself was taken, not only the parse behind it
}

TEST_CASE("every wire's segment is sized from its messages and not a fixed roomy buffer") {
  // A request that encodes a whole history holds every segment until the body is built: a
  // segment's buffer must be about its bytes (it was 8 KB each, 8 MB for 1,000 short messages),
  // and made once (the allocation counts of the text writers' tests hold that part).
  std::vector<Message> shapes;
  shapes.push_back(UserMessage{{TextBlock{"Refactor the parser and run the tests."}}});
  AssistantMessage call;
  call.content.push_back(TextBlock{"Reading the next file."});
  call.content.push_back(
      ToolUseBlock{"call_1", "read_file", json::Raw(R"({"path": "src/a.cpp", "limit": 200})"), {}});
  shapes.push_back(call);
  ToolResultMessage result;
  result.tool_use_id = "call_1";
  result.tool_name = "read_file";
  result.content.push_back(TextBlock{std::string(400, 'x')});
  shapes.push_back(result);
  providers::detail::CompletionsProfile profile;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::span<const Message> one(&shapes[i], 1);
    // Moved in, not copied (a copy's capacity is its size).
    std::vector<std::string> segments;
    segments.push_back(providers::detail::anthropic_item_text(one, false, nullptr).items);
    segments.push_back(providers::detail::responses_items(one, {}).items);
    segments.push_back(providers::detail::completions_item_text(one, profile, {}).items);
    segments.push_back(providers::detail::gemini::contents_items(one));
    segments.push_back(providers::detail::ollama::message_items(one));
    for (const std::string& segment : segments) {
      INFO("message " << i << ": " << segment.size() << " bytes in " << segment.capacity());
      CHECK(segment.capacity() <= 2 * segment.size() + 256);
    }
  }
}

TEST_CASE(
    "a body waiting for its answer holds a call's long arguments once, as the transcript's, on "
    "every wire") {
  // Responses and Chat Completions write a call's arguments as a JSON string, Anthropic, Gemini
  // and Ollama as the object itself: either way the body sent carries them, and once it is
  // written they leave it (the kept history references the transcript's bytes). The next request
  // writes them again from there, equal to a fresh encode.
  const std::vector<ToolSpec> tools = tool_set();
  for (const WireCase& w : wires()) {
    INFO(w.name);
    auto recorder = std::make_shared<RecordingTransport>();
    auto lending = w.make(recording_options(recorder));
    Pair others(w);
    auto model = row(w);
    std::vector<Message> h{UserMessage{{TextBlock{"go"}}}};
    for (int turn = 0; turn < 4; ++turn) {
      const std::string id = "call_" + std::to_string(turn);
      std::vector<Message> call = testing::call_with_3kb_arguments(id);  // a call, its result
      h.insert(h.end(), call.begin(), call.end());
      Request r = request_for(model, h, tools);
      r.history_serial = 1;
      StreamOptions deferred;
      deferred.deferred = true;
      (void)drain(lending->stream(r, deferred, {}), [](Event&&) {});
      REQUIRE(recorder->bodies.back() == body_of(*others.fresh, r));
      // Every call's 3 KB of arguments (and their escapes) left the body once it was written.
      const std::size_t calls = static_cast<std::size_t>(turn) + 1;
      CHECK(recorder->held.back() + calls * 3000 < recorder->bodies.back().size());
    }
  }
}
