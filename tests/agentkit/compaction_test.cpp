// Compaction through the public entry points: when it triggers, where it cuts, what it keeps,
// how the summary is made, what the log and the handle remember, and that it does not oscillate.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "agentkit/audit.hpp"
#include "agentkit/plugins.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/session/log.hpp"
#include "harness.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

constexpr std::string_view kSummaryIdSuffix = "/compaction";

bool is_summary(std::string_view session_id) {
  return session_id.size() >= kSummaryIdSuffix.size() &&
         session_id.substr(session_id.size() - kSummaryIdSuffix.size()) == kSummaryIdSuffix;
}

// `n` bytes of text starting with `tag`, so each message is recognisable.
std::string padded(const std::string& tag, std::size_t n) {
  std::string s = tag + ":";
  while (s.size() < n) s += " lorem";
  s.resize(n);
  return s;
}

std::int64_t tokens_of(const Request& r) {
  return catalog::estimate_prompt_tokens(r.system, r.messages, r.tools);
}

// A reply that reports realistic usage for the request it answers.
faux::FauxResponse with_usage(faux::FauxResponse reply, const Request& r) {
  reply.message.usage.input_tokens = tokens_of(r);
  const Message out(reply.message);
  reply.message.usage.output_tokens =
      catalog::estimate_prompt_tokens({}, std::span<const Message>(&out, 1), {});
  return reply;
}

using Responder = std::function<faux::FauxResponse(const Request&)>;

struct Rig {
  std::shared_ptr<faux::FauxProvider> faux;
  Agent agent;
  std::shared_ptr<std::atomic<int>> summaries = std::make_shared<std::atomic<int>>(0);
};

// A small window: 2,000 tokens, compacting above 1,600, keeping about 400 verbatim.
RuntimeConfig small_window() {
  RuntimeConfig rt;
  rt.compaction.enabled = true;
  rt.compaction.context_window = 2'000;
  rt.compaction.reserve_tokens = 400;
  rt.compaction.keep_recent_tokens = 400;
  return rt;
}

// Summary calls answer "SUMMARY-<n>" unless `summary` says otherwise; conversation calls go to
// `conversation` (default: a 400-byte reply).
Rig rig(Responder conversation = {}, Responder summary = {}, RuntimeConfig rt = small_window(),
        std::vector<ToolDefinition> tools = {}, std::vector<Skill> skills = {}) {
  auto count = std::make_shared<std::atomic<int>>(0);
  auto answer = [conversation, summary, count](const Request& r) {
    if (is_summary(r.session_id)) {
      int n = ++*count;
      if (summary) return summary(r);
      return faux::text_response("SUMMARY-" + std::to_string(n));
    }
    if (conversation) return conversation(r);
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  auto provider = std::make_shared<faux::FauxProvider>(answer);
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  AgentDefinition def;
  def.instructions = "You are a test agent.";
  def.tools.direct = std::move(tools);
  def.skills = std::move(skills);
  Rig out{provider, std::move(make_agent(std::move(def), std::move(rt)).value())};
  out.summaries = count;
  return out;
}

std::vector<faux::RecordedRequest> conversation_requests(const faux::FauxProvider& f) {
  std::vector<faux::RecordedRequest> out;
  for (auto& r : f.requests()) {
    if (!is_summary(r.session_id)) out.push_back(std::move(r));
  }
  return out;
}

std::vector<faux::RecordedRequest> summary_requests(const faux::FauxProvider& f) {
  std::vector<faux::RecordedRequest> out;
  for (auto& r : f.requests()) {
    if (is_summary(r.session_id)) out.push_back(std::move(r));
  }
  return out;
}

// Every tool result in `messages` answers a call made earlier in `messages`.
bool every_result_has_its_call(const std::vector<Message>& messages) {
  std::set<std::string> calls;
  for (const Message& m : messages) {
    if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      for (const auto& b : a->content) {
        if (const auto* use = std::get_if<ToolUseBlock>(&b)) calls.insert(use->id);
      }
    } else if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      if (calls.count(r->tool_use_id) == 0) return false;
    }
  }
  return true;
}

std::size_t stored_messages(const SessionHandle& h) {
  return json::parse(h.serialize()).value().find("messages")->as_array().size();
}

std::vector<CompactionEndEvent> compaction_ends(const std::vector<Event>& events) {
  std::vector<CompactionEndEvent> out;
  for (const Event& e : events) {
    if (const auto* end = std::get_if<CompactionEndEvent>(&e)) out.push_back(*end);
  }
  return out;
}

ToolDefinition big_result_tool(std::string name, std::size_t bytes) {
  return tool_with(std::move(name), [bytes](const json::Value&, const ToolContext&) {
    return ToolResult::text_result(padded("result", bytes));
  });
}

}  // namespace

TEST_CASE(
    "a conversation that outgrows the window is compacted before the request that would not fit") {
  auto fx = rig();
  auto s = fx.agent.start().value();
  // Each turn adds 200 tokens; the ninth request crosses 1,600.
  for (int i = 1; i <= 8; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  CHECK(*fx.summaries == 0);
  auto r9 = s.run(padded("u9", 400));
  REQUIRE(r9);
  REQUIRE(*fx.summaries == 1);
  auto requests = conversation_requests(*fx.faux);
  REQUIRE(requests.size() == 9);
  const auto& sent = requests[8].messages;
  // The summary, then the most recent turns verbatim, ending with the new input.
  REQUIRE(sent.size() == 4);
  CHECK(text_of_message(sent[0]) == session::render_compaction("SUMMARY-1"));
  CHECK(text_of_message(sent[1]) == padded("u8", 400));
  CHECK(std::holds_alternative<AssistantMessage>(sent[2]));
  CHECK(text_of_message(sent[3]) == padded("u9", 400));
  // One promise while the history only grew; the compaction replaced the prefix: a new one.
  for (int i = 1; i < 8; ++i) CHECK(requests[i].history_serial == requests[0].history_serial);
  CHECK(requests[8].history_serial != 0);
  CHECK(requests[8].history_serial != requests[0].history_serial);
  // The stored transcript is untouched: 9 inputs and 9 replies.
  CHECK(stored_messages(r9->handle) == 18);
  // The summary covered what was cut, by the pinned prompt.
  auto summary = summary_requests(*fx.faux);
  REQUIRE(summary.size() == 1);
  CHECK(summary[0].system.rfind("You write the memory of an AI assistant", 0) == 0);
  CHECK(summary[0].tool_names.empty());
  const std::string asked = text_of_message(summary[0].messages.at(0));
  CHECK(asked.find(padded("u1", 400)) != std::string::npos);
  CHECK(asked.find(padded("u7", 400)) != std::string::npos);
  CHECK(asked.find(padded("u8", 400)) == std::string::npos);
}

TEST_CASE("a compaction that would cut a tool pair moves the cut to the next turn") {
  // The recent budget runs out on a tool result: the kept part must not open on it (its call
  // would be summarised away and every provider would refuse the request).
  auto fetch = big_result_tool("fetch", 2'000);
  Responder conversation = [](const Request& r) {
    const Message& last = r.messages.back();
    if (std::holds_alternative<ToolResultMessage>(last))
      return with_usage(faux::text_response("done"), r);
    if (text_of_message(last) == "call the tool") {
      return with_usage(faux::tool_call_response({faux::tool_call("c1", "fetch", "{}")}), r);
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  RuntimeConfig rt = small_window();
  rt.compaction.context_window = 1'200;
  rt.compaction.reserve_tokens = 200;
  rt.compaction.keep_recent_tokens = 150;
  auto fx = rig(conversation, {}, rt, {fetch});
  auto s = fx.agent.start().value();
  REQUIRE(s.run(padded("u1", 400)));
  REQUIRE(s.run(padded("u2", 400)));
  REQUIRE(s.run("call the tool"));
  CHECK(*fx.summaries == 0);
  REQUIRE(s.run(padded("u4", 400)));
  REQUIRE(*fx.summaries == 1);
  const auto sent = conversation_requests(*fx.faux).back().messages;
  REQUIRE(sent.size() >= 2);
  CHECK(text_of_message(sent[0]) == session::render_compaction("SUMMARY-1"));
  CHECK_FALSE(std::holds_alternative<ToolResultMessage>(sent[1]));
  CHECK(every_result_has_its_call(sent));
  CHECK(text_of_message(sent.back()) == padded("u4", 400));
  // The pair went into the summary together.
  const std::string asked = text_of_message(summary_requests(*fx.faux).at(0).messages.at(0));
  CHECK(asked.find("[Assistant called fetch]") != std::string::npos);
  CHECK(asked.find("[Tool fetch answered]") != std::string::npos);
}

TEST_CASE(
    "an oversized tool result is cut short in the summary request, so the summary still fits") {
  auto fetch = big_result_tool("fetch", 400'000);
  Responder conversation = [](const Request& r) {
    const Message& last = r.messages.back();
    if (std::holds_alternative<ToolResultMessage>(last))
      return with_usage(faux::text_response("done"), r);
    if (text_of_message(last) == "call the tool") {
      return with_usage(faux::tool_call_response({faux::tool_call("c1", "fetch", "{}")}), r);
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  RuntimeConfig rt = small_window();
  rt.compaction.context_window = 100'000;
  rt.compaction.reserve_tokens = 10'000;
  auto fx = rig(conversation, {}, rt, {fetch});
  auto s = fx.agent.start().value();
  REQUIRE(s.run("call the tool"));
  REQUIRE(s.run(padded("u2", 400)));
  REQUIRE(*fx.summaries == 1);
  const std::string asked = text_of_message(summary_requests(*fx.faux).at(0).messages.at(0));
  CHECK(asked.size() < 10'000);
  CHECK(asked.find("more bytes left out]") != std::string::npos);
}

TEST_CASE("a skill body the model read is never summarised away") {
  Skill style{"style", "House style", "SKILL-BODY: write terse commit messages.", {}};
  Responder conversation = [](const Request& r) {
    const Message& last = r.messages.back();
    if (std::holds_alternative<ToolResultMessage>(last))
      return with_usage(faux::text_response("read it"), r);
    if (text_of_message(last) == "read the style skill") {
      return with_usage(faux::tool_call_response({faux::tool_call(
                            "k1", "read_skill", R"({"skills":[{"name":"style"}]})")}),
                        r);
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  auto fx = rig(conversation, {}, small_window(), {}, {style});
  auto s = fx.agent.start().value();
  REQUIRE(s.run("read the style skill"));
  int turns = 0;
  while (*fx.summaries == 0 && turns < 20) {
    REQUIRE(s.run(padded("u" + std::to_string(++turns), 400)));
  }
  REQUIRE(*fx.summaries == 1);
  const auto sent = conversation_requests(*fx.faux).back().messages;
  CHECK(text_of_message(sent[0]) == session::render_compaction("SUMMARY-1"));
  // Right after the summary: the read_skill call and its result, verbatim.
  REQUIRE(sent.size() > 3);
  const auto* call = std::get_if<AssistantMessage>(&sent[1]);
  REQUIRE(call != nullptr);
  REQUIRE(has_tool_use(*call));
  CHECK(std::get<ToolUseBlock>(call->content.front()).name == "read_skill");
  const auto* body = std::get_if<ToolResultMessage>(&sent[2]);
  REQUIRE(body != nullptr);
  CHECK(text_of(body->content).find("SKILL-BODY: write terse commit messages.") !=
        std::string::npos);
  CHECK(every_result_has_its_call(sent));
  // The body is kept, so the summary request does not carry it.
  const std::string asked = text_of_message(summary_requests(*fx.faux).at(0).messages.at(0));
  CHECK(asked.find("SKILL-BODY") == std::string::npos);
}

TEST_CASE(
    "the summary is asked of the provider directly, not through the middleware, and is charged "
    "once") {
  RuntimeConfig rt = small_window();
  auto through_middleware = std::make_shared<std::atomic<int>>(0);
  rt.extensions.middleware.push_back([through_middleware](ModelCall next) -> ModelCall {
    return [next, through_middleware](const Request& r, const StreamOptions& o,
                                      const EventCallback& emit, agentkit::stop_token stop) {
      ++*through_middleware;
      return next(r, o, emit, stop);
    };
  });
  Responder summary = [](const Request&) {
    auto reply = faux::text_response("SUMMARY");
    reply.message.usage.input_tokens = 100'000;  // recognisable
    return reply;
  };
  auto fx = rig({}, summary, rt);
  auto s = fx.agent.start().value();
  Result<RunResult> last;
  for (int i = 1; i <= 9; ++i) last = s.run(padded("u" + std::to_string(i), 400));
  REQUIRE(last);
  REQUIRE(*fx.summaries == 1);
  CHECK(*through_middleware == 9);  // the nine conversation requests only
  // The summary's usage is in the run's and the session's totals (a budget sees it).
  CHECK(last->run_usage.input_tokens >= 100'000);
  CHECK(last->run_usage.input_tokens < 200'000);
  CHECK(last->session_usage.input_tokens >= 100'000);
}

TEST_CASE(
    "a summary that fails, stops at its limit or calls a tool is a failure, never a partial "
    "summary") {
  struct Case {
    const char* name;
    faux::FauxResponse reply;
  };
  std::vector<Case> cases = {
      {"cut at max_tokens", faux::text_response("partial summ", StopReason::length)},
      {"provider error", faux::error_response("HTTP 500: overloaded")},
      {"tool call", faux::tool_call_response({faux::tool_call("x", "fetch", "{}")},
                                             StopReason::stop, "SUMMARY")},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      faux::FauxResponse bad = c.reply;
      EventLog events;
      RuntimeConfig rt = small_window();
      rt.observability.observers.push_back(events.observer());
      auto fx = rig(
          {}, [bad](const Request&) { return bad; }, rt);
      auto s = fx.agent.start().value();
      for (int i = 1; i <= 9; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
      REQUIRE(*fx.summaries == 1);
      auto ends = compaction_ends(events.events());
      REQUIRE(ends.size() == 1);
      CHECK_FALSE(ends[0].ok);
      CHECK_FALSE(ends[0].error.empty());
      CHECK(events.count("error") >= 1);
      // Nothing changed: the request went out whole, and the next one tries again.
      CHECK(conversation_requests(*fx.faux).back().messages.size() == 17);
      REQUIRE(s.run(padded("u10", 400)));
      CHECK(*fx.summaries == 2);
      CHECK(conversation_requests(*fx.faux).back().messages.size() == 19);
    }
  }
}

TEST_CASE("an aborted summary is a failure and the run ends aborted with nothing compacted") {
  // The summary streams its text, then hangs until the run is cancelled: it ends aborted with
  // that partial text, which must not become the summary.
  agentkit::stop_source stop;
  std::thread canceller;
  Responder summary = [&](const Request&) {
    auto reply = faux::text_response("SUMMARY in progress");
    reply.hang_until_cancelled = true;
    reply.on_request = [&](const Request&) {
      canceller = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        stop.request_stop();
      });
    };
    return reply;
  };
  EventLog events;
  RuntimeConfig rt = small_window();
  rt.observability.observers.push_back(events.observer());
  auto fx = rig({}, summary, rt);
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 8; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  auto r = s.run(padded("u9", 400), stop.get_token());
  if (canceller.joinable()) canceller.join();
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::aborted);
  auto ends = compaction_ends(events.events());
  REQUIRE(ends.size() == 1);
  CHECK_FALSE(ends[0].ok);
  CHECK(ends[0].summary.empty());
  // No checkpoint in force.
  CHECK(json::parse(s.snapshot().serialize()).value().find("compaction") == nullptr);
}

TEST_CASE("compaction prepares a request that will be made, never one after the last turn") {
  // The tool result pushes the context over the threshold, but the stop policy ends the run
  // after that turn: no summary is paid for a request that never happens.
  auto fetch = big_result_tool("fetch", 8'000);
  Responder conversation = [](const Request& r) {
    const Message& last = r.messages.back();
    if (std::holds_alternative<ToolResultMessage>(last))
      return with_usage(faux::text_response("done"), r);
    if (text_of_message(last) == "go") {
      return with_usage(faux::tool_call_response({faux::tool_call("c1", "fetch", "{}")}), r);
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  RuntimeConfig rt = small_window();
  rt.extensions.stop_policy = stop_after_turns(1);
  auto fx = rig(conversation, {}, rt, {fetch});
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 3; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  auto r = s.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::max_turns);
  CHECK(fx.faux->request_count() == 4);
  CHECK(*fx.summaries == 0);
  // The next request is over the threshold: it is compacted first.
  REQUIRE(s.run("and now?"));
  CHECK(*fx.summaries == 1);
}

TEST_CASE("a provider's context-overflow error compacts once and sends the request once more") {
  // No window is known: only the provider can say the prompt is too long.
  RuntimeConfig rt = small_window();
  rt.compaction.context_window = std::nullopt;
  auto overflows = std::make_shared<int>(0);
  auto always = std::make_shared<bool>(false);
  Responder conversation = [overflows, always](const Request& r) {
    bool compacted =
        text_of_message(r.messages.front()).rfind("The conversation history before", 0) == 0;
    if ((r.messages.size() > 6 && !compacted) || *always) {
      ++*overflows;
      return faux::error_response("HTTP 400: prompt is too long: 250000 tokens > 200000 maximum");
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  auto fx = rig(conversation, {}, rt);
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 3; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  CHECK(*fx.summaries == 0);
  auto r = s.run(padded("u4", 400));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  CHECK(*overflows == 1);
  CHECK(*fx.summaries == 1);
  // The refused reply never entered the transcript.
  REQUIRE(r->messages.size() == 2);
  CHECK(std::get<AssistantMessage>(r->messages[1]).stop_reason == StopReason::stop);

  SECTION("a second overflow after the retry ends the run: one compaction, one retry") {
    *always = true;
    auto again = s.run(padded("u5", 400));
    REQUIRE(again);
    CHECK(again->stop_reason == RunStopReason::error);
    CHECK(*overflows == 3);
    CHECK(*fx.summaries == 2);
  }
}

TEST_CASE("a run in the middle of compacting reports it") {
  EventLog events;
  RuntimeConfig rt = small_window();
  rt.observability.observers.push_back(events.observer());
  std::vector<std::string> seen_while_summarising;
  Responder summary = [&](const Request&) {
    auto reply = faux::text_response("SUMMARY");
    reply.on_request = [&](const Request&) { seen_while_summarising = events.names(); };
    return reply;
  };
  auto fx = rig({}, summary, rt);
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 9; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  REQUIRE(!seen_while_summarising.empty());
  CHECK(seen_while_summarising.back() == "compaction_start");
  auto names = events.names();
  auto start = std::find(names.begin(), names.end(), "compaction_start");
  auto end = std::find(names.begin(), names.end(), "compaction_end");
  REQUIRE(start != names.end());
  REQUIRE(end != names.end());
  CHECK(start < end);
  // The compaction comes before the request it prepared.
  CHECK(std::find(end, names.end(), "message_start") != names.end());
  const auto ends = compaction_ends(events.events());
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].ok);
  CHECK(ends[0].tokens_after < ends[0].tokens_before);
  CHECK(ends[0].summary == "SUMMARY");
  CHECK(events.check_balanced().empty());
}

TEST_CASE("two hundred turns compact only as often as the context really grows") {
  // The estimate is taken on the compacted view: right after a compaction the context is small,
  // so the next one waits until it has grown by the window's worth again.
  EventLog events;
  RuntimeConfig rt = small_window();
  rt.observability.observers.push_back(events.observer());
  Responder conversation = [](const Request& r) {
    return with_usage(faux::text_response(padded("reply", 200)), r);
  };
  auto fx = rig(conversation, {}, rt);
  auto s = fx.agent.start().value();
  std::vector<int> compacted_at;
  for (int turn = 1; turn <= 200; ++turn) {
    int before = *fx.summaries;
    REQUIRE(s.run(padded("u" + std::to_string(turn), 200)));
    if (*fx.summaries != before) compacted_at.push_back(turn);
  }
  // About 100 tokens a turn, 1,600 before compacting, about 450 after: one every 11-12 turns.
  CHECK(compacted_at.size() >= 15);
  CHECK(compacted_at.size() <= 21);
  for (std::size_t i = 1; i < compacted_at.size(); ++i)
    CHECK(compacted_at[i] - compacted_at[i - 1] >= 8);
  for (const auto& end : compaction_ends(events.events())) CHECK(end.ok);
  // Each later summary extends the one before it.
  auto summaries = summary_requests(*fx.faux);
  REQUIRE(summaries.size() >= 2);
  CHECK(text_of_message(summaries[1].messages.at(0))
            .find("<previous-summary>\nSUMMARY-1\n</previous-summary>") != std::string::npos);
  // The request never outgrew the window.
  for (const auto& r : conversation_requests(*fx.faux)) {
    CHECK(catalog::estimate_prompt_tokens(r.system, r.messages, {}) < 2'000);
  }
}

TEST_CASE("a compaction is one log entry: summary, first kept entry, what was dropped, tokens") {
  TempDir dir;
  auto path = dir.path() / "s.jsonl";
  std::string before_bytes;
  {
    auto fx = rig();
    StartOptions options;
    options.log =
        std::make_shared<session::Log>(session::Log::create(session::file_store(path), {}).value());
    auto s = fx.agent.start(std::move(options)).value();
    for (int i = 1; i <= 8; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
    before_bytes = read_file(path);
    REQUIRE(s.run(padded("u9", 400)));
    REQUIRE(*fx.summaries == 1);
  }
  const std::string after_bytes = read_file(path);
  // Nothing earlier was rewritten: the file only grew.
  REQUIRE(after_bytes.size() > before_bytes.size());
  CHECK(after_bytes.compare(0, before_bytes.size(), before_bytes) == 0);

  session::LoadResult loaded = session::parse_log(after_bytes);
  auto records = session::compactions(loaded.entries, loaded.entries.back().id);
  REQUIRE(records.size() == 1);
  const session::CompactionRecord& c = records[0];
  CHECK(c.summary == "SUMMARY-1");
  CHECK(c.dropped_messages == 14);  // u1..u7 and their replies
  CHECK(c.tokens_before > c.tokens_after);
  CHECK(c.tokens_after > 0);
  const session::Entry* kept = nullptr;
  for (const auto& e : loaded.entries) {
    if (e.id == c.first_kept_entry_id) kept = &e;
  }
  REQUIRE(kept != nullptr);
  CHECK(text_of_message(session::message_of(*kept).value()) == padded("u8", 400));
  // The summarised entries are still on disk, and the embedder can list them.
  auto summarised = session::summarised_entries(loaded.entries, c.id);
  REQUIRE(summarised.size() == 14);
  CHECK(text_of_message(session::message_of(*summarised.front()).value()) == padded("u1", 400));
  CHECK(summarised.front()->id == c.dropped_from_entry_id);
  CHECK(summarised.back()->id == c.dropped_to_entry_id);

  SECTION("a new agent over the log resumes compacted and does not compact again at once") {
    auto fx = rig();
    StartOptions options;
    options.log =
        std::make_shared<session::Log>(session::Log::open(session::file_store(path), {}).value());
    auto s = fx.agent.start(std::move(options)).value();
    REQUIRE(s.run(padded("u10", 400)));
    CHECK(*fx.summaries == 0);
    const auto sent = conversation_requests(*fx.faux).at(0).messages;
    REQUIRE(sent.size() == 6);  // summary, u8, a8, u9, a9, u10
    CHECK(text_of_message(sent[0]) == session::render_compaction("SUMMARY-1"));
    CHECK(text_of_message(sent[1]) == padded("u8", 400));
    CHECK(text_of_message(sent[5]) == padded("u10", 400));
  }
}

TEST_CASE("a resumed handle keeps the compaction in force") {
  SessionHandle saved;
  {
    auto fx = rig();
    auto s = fx.agent.start().value();
    for (int i = 1; i <= 9; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
    REQUIRE(*fx.summaries == 1);
    saved = SessionHandle::parse(s.snapshot().serialize()).value();
  }
  auto fx = rig();
  StartOptions options;
  options.resume = saved;
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(s.run(padded("u10", 400)));
  CHECK(*fx.summaries == 0);
  const auto sent = conversation_requests(*fx.faux).at(0).messages;
  CHECK(text_of_message(sent.at(0)) == session::render_compaction("SUMMARY-1"));
  CHECK(sent.size() == 6);
}

TEST_CASE("a batch approved after a hold is kept whole when the request after it compacts") {
  auto deploy = counting_tool("deploy", padded("deployed", 2'000));
  deploy.definition.requires_approval = true;
  Responder conversation = [](const Request& r) {
    const Message& last = r.messages.back();
    if (std::holds_alternative<ToolResultMessage>(last))
      return with_usage(faux::text_response("deployed"), r);
    if (text_of_message(last) == "deploy it") {
      return with_usage(faux::tool_call_response({faux::tool_call("d1", "deploy", "{}")}), r);
    }
    return with_usage(faux::text_response(padded("reply", 400)), r);
  };
  RuntimeConfig rt = small_window();
  rt.compaction.keep_recent_tokens = 100;
  auto fx = rig(conversation, {}, rt, {deploy.definition});
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 6; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  auto held = s.run("deploy it");
  REQUIRE(held);
  REQUIRE(held->stop_reason == RunStopReason::awaiting_approval);
  CHECK(*fx.summaries == 0);
  Turn decide;
  decide.approvals = {ApprovalDecision{"d1", true, {}}};
  REQUIRE(s.run(decide));
  REQUIRE(*fx.summaries == 1);
  const auto sent = conversation_requests(*fx.faux).back().messages;
  CHECK(every_result_has_its_call(sent));
  REQUIRE(std::holds_alternative<ToolResultMessage>(sent.back()));
  CHECK(std::get<ToolResultMessage>(sent.back()).tool_use_id == "d1");
  CHECK(*deploy.calls == 1);
}

TEST_CASE(
    "a compaction reaches the plugins' event hooks and the audit trail, and its summary call is "
    "a model call of the record") {
  struct Seen final : EventHookPlugin {
    std::string name() const override { return "seen"; }
    void on_compaction(const HookCompaction& c) override { compactions.push_back(c.tokens_after); }
    std::vector<std::int64_t> compactions;
  };
  struct Lines final : audit::Sink {
    Result<void> append(std::string_view line) override {
      text += line;
      return {};
    }
    std::string text;
  };
  auto hook = std::make_shared<Seen>();
  auto lines = std::make_shared<Lines>();
  RuntimeConfig rt = small_window();
  rt.extensions.plugins.builtins.push_back(hook);
  rt.observability.audit = audit::make_trail(lines);
  auto fx = rig({}, {}, rt);
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 9; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  REQUIRE(fx.summaries->load() == 1);
  REQUIRE(hook->compactions.size() == 1);
  CHECK(hook->compactions[0] > 0);
  // Nine runs of one model call each, and the summary call.
  std::size_t model_calls = 0;
  for (std::size_t at = 0;
       (at = lines->text.find(R"("type":"model_call")", at)) != std::string::npos; ++at)
    ++model_calls;
  CHECK(model_calls == 10);
}

TEST_CASE("a Compaction command hook receives the compaction's figures as JSON") {
  TempDir dir;
  const auto file = dir.path() / "events.jsonl";
  auto program = dir.write(
      "record.sh", "#!/bin/sh\ncat >> '" + file.string() + "'\necho >> '" + file.string() + "'\n");
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  CommandHookOptions hook;
  hook.name = "recorder";
  hook.command = {program.string()};
  hook.events = {HookEvent::compaction};
  RuntimeConfig rt = small_window();
  rt.extensions.plugins.builtins.push_back(command_hook(hook));
  auto fx = rig({}, {}, rt);
  auto s = fx.agent.start().value();
  for (int i = 1; i <= 9; ++i) REQUIRE(s.run(padded("u" + std::to_string(i), 400)));
  REQUIRE(fx.summaries->load() == 1);
  const std::string text = read_file(file);
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 1);  // one compaction, one event
  auto event = json::parse(text.substr(0, text.find('\n')));
  REQUIRE(event);
  CHECK(event->find("hook_event_name")->as_string() == "Compaction");
  CHECK(event->find("session_id")->as_string() == s.snapshot().session_id());
  const std::int64_t before = event->find("tokens_before")->to_int64().value();
  const std::int64_t after = event->find("tokens_after")->to_int64().value();
  CHECK(after < before);
  CHECK(event->find("messages_after")->to_int64().value() <
        event->find("messages_before")->to_int64().value());
}
