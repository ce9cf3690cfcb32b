// The per-call path of the built-in wires, counted rather than timed (issue 18): a run's model
// call streams on the thread that runs the session, with no queue or wakeup per event when nobody
// subscribed; a direct stream() read with next() runs on a pooled thread that the next call
// reuses; and sequential calls share one keep-alive connection.
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"
#include "provider_test_support.hpp"
#include "wire_common/wire_client_base.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

// A streamed Anthropic reply with one text block of three deltas.
testing::ScriptedResponse streamed_reply() {
  testing::ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  r.pieces = {
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":"
      "\"claude-sonnet-5-5\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
      "{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
      "{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n",
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
      "{\"type\":\"text_delta\",\"text\":\"!\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"};
  return r;
}

Model model_at(const testing::ScriptedServer& server) {
  auto model = catalog::Catalog::builtin().resolve("anthropic/claude-sonnet-5-5");
  REQUIRE(model);
  model->base_url = server.base_url();
  return *model;
}

// Records the thread each model call's HTTP response arrived on.
struct ResponseThreads {
  std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<std::thread::id>> ids =
      std::make_shared<std::vector<std::thread::id>>();
  std::shared_ptr<std::vector<int>> calls_on_that_thread = std::make_shared<std::vector<int>>();

  void record() const {
    thread_local int calls_here = 0;
    std::lock_guard lock(*mu);
    ids->push_back(std::this_thread::get_id());
    calls_on_that_thread->push_back(++calls_here);
  }
  Middleware middleware() const {
    ResponseThreads self = *this;
    return [self](ModelCall next) -> ModelCall {
      return [self, next](const Request& req, const StreamOptions& opts, const EventCallback& emit,
                          agentkit::stop_token stop) {
        StreamOptions seen = opts;
        seen.on_response = [self](int, const std::vector<std::pair<std::string, std::string>>&) {
          self.record();
        };
        return next(req, seen, emit, stop);
      };
    };
  }
};

struct WiredAgent {
  std::shared_ptr<http::HttpClient> http = std::make_shared<http::HttpClient>();
  ResponseThreads threads;
  std::optional<Agent> agent;

  explicit WiredAgent(const testing::ScriptedServer& server) {
    RuntimeConfig rt;
    rt.model.descriptor = model_at(server);
    providers::ProviderOptions wires;
    wires.http = http;
    wires.credentials.environment =
        providers::fixed_environment({{"ANTHROPIC_API_KEY", "test-key"}});
    providers::register_defaults(rt.providers, wires);
    rt.extensions.middleware.push_back(threads.middleware());
    auto made = make_agent({}, rt);
    REQUIRE(made);
    agent.emplace(std::move(*made));
  }
};

}  // namespace

TEST_CASE("a run's model call streams on the session's thread without a queue or wakeup") {
  testing::ScriptedServer server({streamed_reply()});
  WiredAgent wired(server);
  auto session = wired.agent->start();
  REQUIRE(session);
  const EventStreamStats before = event_stream_stats();
  auto result = session->run(Turn{"hi"});
  const EventStreamStats after = event_stream_stats();
  REQUIRE(result);
  CHECK(result->final_text == "Hello!");
  REQUIRE(wired.threads.ids->size() == 1);
  CHECK(wired.threads.ids->at(0) == std::this_thread::get_id());  // no thread made for the call
  // Nobody listens: no provider event was queued, woke anyone, or was even built.
  CHECK(after.queued - before.queued == 0);
  CHECK(after.wakeups - before.wakeups == 0);
  CHECK(after.delivered_inline - before.delivered_inline == 0);
  CHECK(after.discarded - before.discarded == 0);
}

TEST_CASE("a listened run's provider events are direct calls on the session's thread") {
  testing::ScriptedServer server({streamed_reply()});
  WiredAgent wired(server);
  auto session = wired.agent->start();
  REQUIRE(session);
  EventStream events = session->events();
  const EventStreamStats before = event_stream_stats();
  REQUIRE(session->run(Turn{"hi"}));
  const EventStreamStats after = event_stream_stats();
  // The provider's events reach the loop without a queue; only the subscription queues them.
  CHECK(after.delivered_inline - before.delivered_inline >= 5);  // start, 3 deltas, end at least
  std::size_t seen = 0;
  while (events.try_next()) ++seen;
  CHECK(after.queued - before.queued == seen);
}

TEST_CASE("a run's model calls create no thread") {
  testing::ScriptedServer server({streamed_reply()});
  WiredAgent wired(server);
  auto session = wired.agent->start();
  REQUIRE(session);
  const std::uint64_t before = providers::detail::CallThreads::threads_started_everywhere();
  for (int i = 0; i < 3; ++i) REQUIRE(session->run(Turn{"again"}));
  CHECK(server.request_count() == 3);
  CHECK(providers::detail::CallThreads::threads_started_everywhere() - before == 0);
}

TEST_CASE("a subscriber still sees every provider event of a drained call, in order, once") {
  testing::ScriptedServer server({streamed_reply()});
  WiredAgent wired(server);
  auto session = wired.agent->start();
  REQUIRE(session);
  EventStream events = session->events();
  REQUIRE(session->run(Turn{"hi"}));
  std::string deltas;
  int starts = 0;
  int ends = 0;
  while (auto ev = events.try_next()) {
    if (std::holds_alternative<MessageStartEvent>(*ev)) ++starts;
    if (std::holds_alternative<MessageEndEvent>(*ev)) ++ends;
    if (const auto* d = std::get_if<TextDeltaEvent>(&*ev)) deltas += d->delta;
  }
  CHECK(deltas == "Hello!");
  CHECK(starts == 1);
  CHECK(ends == 1);
}

TEST_CASE("sequential stream() calls read with next() reuse one pooled thread") {
  testing::ScriptedServer server({streamed_reply()});
  providers::WireOptions o;
  o.transport.credentials.environment =
      providers::fixed_environment({{"ANTHROPIC_API_KEY", "test-key"}});
  auto client = providers::make_wire_client("anthropic-messages", o);
  REQUIRE(client);
  ResponseThreads threads;
  StreamOptions opts;
  opts.on_response = [threads](int, const std::vector<std::pair<std::string, std::string>>&) {
    threads.record();
  };
  const Model model = model_at(server);
  std::vector<Message> history = {user_text("hi")};
  Request req;
  req.model = std::make_shared<Model>(model);
  req.messages = history;
  for (int i = 0; i < 4; ++i) {
    EventStream s = (*client)->stream(req, opts, {});
    while (s.next()) {}
    auto reply = s.result();
    REQUIRE(reply);
    CHECK(text_of(*reply) == "Hello!");
  }
  REQUIRE(threads.ids->size() == 4);
  CHECK(threads.ids->at(0) != std::this_thread::get_id());  // started at once, on a worker
  // The fourth call ran on a thread that had run the other three: one thread for four calls.
  CHECK(threads.calls_on_that_thread->back() == 4);
}

TEST_CASE("a deferred stream of a destroyed wire client ends with an error, not a hang") {
  testing::ScriptedServer server({streamed_reply()});
  providers::WireOptions o;
  o.transport.credentials.environment =
      providers::fixed_environment({{"ANTHROPIC_API_KEY", "test-key"}});
  auto client = providers::make_wire_client("anthropic-messages", o);
  REQUIRE(client);
  std::vector<Message> history = {user_text("hi")};
  Request req;
  req.model = std::make_shared<Model>(model_at(server));
  req.messages = history;
  StreamOptions opts;
  opts.deferred = true;
  EventStream s = (*client)->stream(req, opts, {});
  client->reset();
  auto reply = drain(s, [](Event&&) {});
  CHECK_FALSE(reply);
  CHECK(server.request_count() == 0);  // nothing was sent
}

TEST_CASE("N sequential model calls of a run open one connection") {
  testing::ScriptedServer server({streamed_reply()});
  WiredAgent wired(server);
  auto session = wired.agent->start();
  REQUIRE(session);
  for (int i = 0; i < 5; ++i) REQUIRE(session->run(Turn{"again"}));
  CHECK(wired.http->stats().requests_sent == 5);
  CHECK(wired.http->stats().connections_opened == 1);
  CHECK(wired.http->stats().connections_reused == 4);
}
