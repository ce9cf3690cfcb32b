// Send-time transcript repair (REQ-PROV-11): every rule, the view invariants, and copy-on-write.
#include "agentkit/providers/repair.hpp"
#include <random>
#include <set>

#include "repair_invariants.hpp"
#include "repair_resume.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::providers;

namespace {

Model target(std::string vendor = "anthropic", std::string api = "anthropic-messages", std::string id = "claude-sonnet-5-5",
             bool images = true) {
  Model m;
  m.vendor = std::move(vendor);
  m.api = std::move(api);
  m.id = std::move(id);
  m.image_input = images;
  return m;
}

AssistantMessage from(const Model& m, std::vector<ContentBlock> content, StopReason reason = StopReason::stop) {
  AssistantMessage a;
  a.provider = m.vendor;
  a.api = m.api;
  a.model = m.id;
  a.content = std::move(content);
  a.stop_reason = reason;
  return a;
}

ToolUseBlock use(std::string id, std::string name = "read_file") {
  return ToolUseBlock{std::move(id), std::move(name), json::Raw(R"({"path":"a"})"), ""};
}

ToolResultMessage result(std::string id, std::string text = "ok") {
  ToolResultMessage r;
  r.tool_use_id = std::move(id);
  r.tool_name = "read_file";
  r.content = {TextBlock{std::move(text)}};
  return r;
}

template <class T>
const T& at(const TranscriptView& v, std::size_t i) {
  return std::get<T>(v.messages()[i]);
}

}  // namespace

TEST_CASE("a transcript that needs no repair is not copied: the view is the history itself") {
  Model m = target();
  std::vector<Message> history = {user_text("read a"), from(m, {TextBlock{"sure"}, use("toolu_1")}), result("toolu_1"),
                                  from(m, {ThinkingBlock{"hmm", "sig", false, ""}, TextBlock{"done"}}), user_text("thanks")};
  agentkit::testing::AllocCounter count;
  TranscriptView view = repair_for_send(history, m);
  CHECK(count.stats().count <= 1);  // the reused pending-use list, nothing per message
  CHECK_FALSE(view.copied());
  CHECK(view.messages().data() == history.data());
  CHECK(view.messages().size() == history.size());
  CHECK(view.report() == RepairReport{});
}

TEST_CASE("the resume-after-Ctrl-C transcript repairs to a request without the aborted turn or its results") {
  // REQ-PROV-11's own test: [user, assistant(tool_use A,B; aborted), tool_result A, user "go on"].
  Model m = target();
  std::vector<Message> history = {user_text("do it"), from(m, {use("A"), use("B")}, StopReason::aborted), result("A"),
                                  user_text("go on")};
  std::vector<Message> before = history;
  TranscriptView view = repair_for_send(history, m);
  CHECK(history == before);  // never mutated
  REQUIRE(view.messages().size() == 1);  // the two user messages merged
  CHECK(text_of(at<UserMessage>(view, 0).content) == "do itgo on");
  CHECK(view.report().dropped_failed_turns == 1);
  CHECK(view.report().dropped_results == 1);  // rule 2b
  CHECK(agentkit::testing::view_problems(view.messages(), m).empty());
}

TEST_CASE("an errored assistant turn is dropped, lossy on purpose") {
  Model m = target();
  std::vector<Message> history = {user_text("q"), from(m, {TextBlock{"partial"}}, StopReason::error), user_text("again")};
  TranscriptView view = repair_for_send(history, m);
  REQUIRE(view.messages().size() == 1);
  CHECK(view.report().dropped_failed_turns == 1);
}

TEST_CASE("an unanswered tool use gets a synthetic error result at the boundary and at the end") {
  Model m = target();
  std::vector<Message> history = {user_text("q"), from(m, {use("t1"), use("t2")}), result("t2"), user_text("next"),
                                  from(m, {use("t3")})};
  TranscriptView view = repair_for_send(history, m);
  REQUIRE(view.messages().size() == 7);
  const auto& r2 = at<ToolResultMessage>(view, 2);
  CHECK(r2.tool_use_id == "t2");
  const auto& synthetic = at<ToolResultMessage>(view, 3);
  CHECK(synthetic.tool_use_id == "t1");
  CHECK(synthetic.is_error);
  CHECK(text_of(synthetic.content) == "No result provided");
  CHECK(at<ToolResultMessage>(view, 6).tool_use_id == "t3");
  CHECK(view.report().synthetic_results == 2);
  CHECK(agentkit::testing::view_problems(view.messages(), m).empty());
}

TEST_CASE("orphaned, duplicated and out-of-run tool results are dropped") {
  Model m = target();
  std::vector<Message> history = {result("ghost"), user_text("q"), from(m, {use("t1")}), result("t1"), result("t1"),
                                  user_text("x"), result("t1")};
  TranscriptView view = repair_for_send(history, m);
  CHECK(view.report().dropped_results == 3);
  CHECK(agentkit::testing::view_problems(view.messages(), m).empty());
}

TEST_CASE("another model's signed thinking becomes text, its redacted thinking and thought signatures go") {
  Model gemini = target("google", "google-generative-ai", "gemini-4-argon");
  Model claude = target();
  ToolUseBlock call = use("call_0");
  call.thought_signature = "opaque";
  std::vector<Message> history = {user_text("q"),
                                  from(gemini, {ThinkingBlock{"plan", "sig", false, ""}, ThinkingBlock{"", "enc", true, ""}, call}),
                                  result("call_0")};
  TranscriptView view = repair_for_send(history, claude);
  const auto& a = at<AssistantMessage>(view, 1);
  REQUIRE(a.content.size() == 2);
  CHECK(std::get<TextBlock>(a.content[0]).text == "plan");
  CHECK(std::get<ToolUseBlock>(a.content[1]).thought_signature.empty());
  CHECK(view.report().thinking_to_text == 1);
  CHECK(view.report().dropped_thinking == 1);
  CHECK(view.report().stripped_signatures == 1);
}

TEST_CASE("the same model's signed and redacted thinking are replayed untouched") {
  Model m = target();
  std::vector<Message> history = {user_text("q"), from(m, {ThinkingBlock{"plan", "sig", false, ""},
                                                           ThinkingBlock{"", "encrypted", true, ""}, TextBlock{"a"}})};
  TranscriptView view = repair_for_send(history, m);
  CHECK_FALSE(view.copied());
}

TEST_CASE("unsigned thinking becomes text, or is dropped when empty, even from the same model") {
  Model m = target();
  std::vector<Message> history = {user_text("q"), from(m, {ThinkingBlock{"half a thought", "", false, ""},
                                                           ThinkingBlock{"", "", false, ""}, TextBlock{"a"}})};
  TranscriptView view = repair_for_send(history, m);
  const auto& a = at<AssistantMessage>(view, 1);
  REQUIRE(a.content.size() == 2);
  CHECK(std::get<TextBlock>(a.content[0]).text == "half a thought");
  CHECK(view.report().dropped_thinking == 1);
}

TEST_CASE("an assistant message left empty by the rules is dropped") {
  Model other = target("openai", "openai-responses", "gpt-6.2-sol");
  std::vector<Message> history = {user_text("q"), from(other, {ThinkingBlock{"", "enc", true, ""}}), user_text("r")};
  TranscriptView view = repair_for_send(history, target());
  REQUIRE(view.messages().size() == 1);
  CHECK(view.report().dropped_empty_messages == 1);
}

TEST_CASE("another model's tool-call ids are rewritten to the target's format, results following the mapping") {
  Model openai = target("openai", "openai-responses", "gpt-6.2-sol");
  Model claude = target();
  std::string long_id(100, 'x');
  std::vector<Message> history = {user_text("q"), from(openai, {use("call:1/x"), use(long_id)}), result("call:1/x"),
                                  result(long_id)};
  TranscriptView view = repair_for_send(history, claude);
  const auto& a = at<AssistantMessage>(view, 1);
  CHECK(std::get<ToolUseBlock>(a.content[0]).id == "call_1_x");
  CHECK(std::get<ToolUseBlock>(a.content[1]).id == std::string(64, 'x'));
  CHECK(at<ToolResultMessage>(view, 2).tool_use_id == "call_1_x");
  CHECK(at<ToolResultMessage>(view, 3).tool_use_id == std::string(64, 'x'));
  CHECK(view.report().rewritten_ids == 2);
}

TEST_CASE("the same model's ids are never rewritten, even when the target format would change them") {
  Model m = target("openai", "openai-responses", "gpt-6.2-sol");
  std::vector<Message> history = {user_text("q"), from(m, {use("fc_1|item:2")}), result("fc_1|item:2")};
  TranscriptView view = repair_for_send(history, m);
  CHECK_FALSE(view.copied());
}

TEST_CASE("the id mapping is injective: ids that would collide after rewriting stay distinct") {
  Model gemini = target("google", "google-generative-ai", "gemini-4-argon");
  Model claude = target();
  // Two Gemini turns both numbered their calls "call_0"; a third id sanitises to the same text.
  std::vector<Message> history = {user_text("q"),   from(gemini, {use("call_0"), use("call.0")}), result("call_0"),
                                  result("call.0"), from(gemini, {use("call_0")}),                  result("call_0")};
  TranscriptView view = repair_for_send(history, claude);
  std::set<std::string> ids;
  for (const auto& msg : view.messages()) {
    if (const auto* a = std::get_if<AssistantMessage>(&msg)) {
      for (const auto* u : tool_uses(*a)) ids.insert(u->id);
    }
  }
  CHECK(ids.size() == 3);
  CHECK(agentkit::testing::view_problems(view.messages(), claude).empty());
  // A 64-character id that collides keeps its suffix within the limit.
  std::string id64(64, 'y');
  std::vector<Message> long_ids = {user_text("q"), from(gemini, {use(id64), use(id64 + "z")}), result(id64), result(id64 + "z")};
  TranscriptView v2 = repair_for_send(long_ids, claude);
  const auto& a = at<AssistantMessage>(v2, 1);
  CHECK(std::get<ToolUseBlock>(a.content[1]).id.size() <= 64);
  CHECK(std::get<ToolUseBlock>(a.content[0]).id != std::get<ToolUseBlock>(a.content[1]).id);
}

TEST_CASE("images become a placeholder for a model without image input") {
  Model text_only = target("deepseek", "openai-completions", "deepseek-v4-flash", false);
  UserMessage u{{TextBlock{"look"}, ImageBlock{"image/png", "iVBORw0KGgo="}}};
  ToolResultMessage r = result("t1");
  r.content.push_back(ImageBlock{"image/jpeg", "/9j/"});
  std::vector<Message> history = {u, from(text_only, {use("t1")}), r};
  TranscriptView view = repair_for_send(history, text_only);
  CHECK(text_of(at<UserMessage>(view, 0).content) == "look(image omitted: model does not support images)");
  CHECK(text_of(at<ToolResultMessage>(view, 2).content) == "ok(image omitted: model does not support images)");
  CHECK(view.report().replaced_images == 2);
  CHECK(agentkit::testing::view_problems(view.messages(), text_only).empty());
  TranscriptView with_images = repair_for_send(history, target("deepseek", "openai-completions", "deepseek-v4-flash", true));
  CHECK_FALSE(with_images.copied());
}

TEST_CASE("Chat Completions and Responses targets get their own id limits") {
  CHECK(sanitize_tool_call_id(std::string(50, 'a'), "openai-completions").size() == 40);
  CHECK(sanitize_tool_call_id("call_9|fc_123", "openai-responses") == "call_9");
  CHECK(sanitize_tool_call_id("", "anthropic-messages") == "call");
  CHECK(sanitize_tool_call_id("a b/c", "anthropic-messages") == "a_b_c");
}

TEST_CASE("repairing a repaired view changes nothing") {
  Model gemini = target("google", "google-generative-ai", "gemini-4-argon");
  Model claude = target();
  std::vector<Message> history = {user_text("q"), from(gemini, {ThinkingBlock{"t", "s", false, ""}, use("a.b")}),
                                  user_text("x"), from(claude, {use("c")}, StopReason::aborted), result("c")};
  TranscriptView first = repair_for_send(history, claude);
  std::vector<Message> once(first.messages().begin(), first.messages().end());
  TranscriptView second = repair_for_send(once, claude);
  CHECK_FALSE(second.copied());
}

TEST_CASE(
    "the unchanged prefix ends before the first message a rule touched, a merged user message "
    "included") {
  Model claude = target();
  Model gemini = target("google", "google-generative-ai", "gemini-4-argon");
  SECTION("nothing repaired: the whole view") {
    std::vector<Message> history = {user_text("q"), from(claude, {TextBlock{"a"}})};
    TranscriptView view = repair_for_send(history, claude);
    CHECK(view.unchanged_prefix() == 2);
    CHECK(testing::unchanged_prefix_holds(history, view));
  }
  SECTION("a failed turn dropped, the next user message merged into the one before it") {
    std::vector<Message> history = {user_text("q"), from(claude, {TextBlock{"a"}}), user_text("u2"),
                                    from(claude, {TextBlock{"cut"}}, StopReason::error),
                                    user_text("u3")};
    TranscriptView view = repair_for_send(history, claude);
    REQUIRE(view.messages().size() == 3);
    CHECK(view.unchanged_prefix() == 2);  // "u2" now carries "u3" too
    CHECK(testing::unchanged_prefix_holds(history, view));
  }
  SECTION("a synthetic result at the end leaves every history message untouched") {
    std::vector<Message> history = {user_text("q"), from(claude, {use("c")}, StopReason::tool_use)};
    TranscriptView view = repair_for_send(history, claude);
    REQUIRE(view.copied());
    CHECK(view.unchanged_prefix() == 2);
    CHECK(testing::unchanged_prefix_holds(history, view));
  }
  SECTION("another model's thinking rewritten") {
    std::vector<Message> history = {
        user_text("q"), from(gemini, {ThinkingBlock{"t", "s", false, ""}, TextBlock{"a"}}),
        user_text("next")};
    TranscriptView view = repair_for_send(history, claude);
    CHECK(view.unchanged_prefix() == 1);
    CHECK(testing::unchanged_prefix_holds(history, view));
  }
}

namespace {

// A random history of every shape the rules act on: foreign and own turns, signed, unsigned and
// redacted thinking, failed turns, colliding ids, orphaned, duplicated and missing results,
// empty, image and back-to-back user messages.
Message random_message(std::mt19937& rng, const Model& own, const Model& foreign) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  static const char* ids[] = {"a", "b", "a.b", "a_b", "c|d", "toolu_1"};
  const int kind = pick(10);
  if (kind < 3) {
    UserMessage u;
    if (pick(8) > 0) u.content.push_back(TextBlock{"u" + std::to_string(pick(100))});
    if (pick(6) == 0) u.content.push_back(ImageBlock{"image/png", "iVBORw0KGgo="});
    return u;
  }
  if (kind < 7) {
    std::vector<ContentBlock> content;
    if (pick(3) == 0) content.push_back(ThinkingBlock{"t", pick(2) ? "sig" : "", pick(5) == 0, ""});
    if (pick(2) == 0) content.push_back(TextBlock{"a"});
    for (int n = pick(3); n > 0; --n) content.push_back(use(ids[pick(6)]));
    if (pick(8) == 0) content.push_back(ImageBlock{"image/png", "iVBORw0KGgo="});
    const StopReason reason = pick(10) == 0   ? StopReason::error
                              : pick(10) == 0 ? StopReason::aborted
                                              : StopReason::tool_use;
    return from(pick(4) == 0 ? foreign : own, std::move(content), reason);
  }
  return result(ids[pick(6)]);
}

bool same_view(const TranscriptView& a, const TranscriptView& b) {
  return a.copied() == b.copied() && a.report() == b.report() &&
         a.unchanged_prefix() == b.unchanged_prefix() &&
         std::equal(a.messages().begin(), a.messages().end(), b.messages().begin(),
                    b.messages().end());
}

}  // namespace

TEST_CASE(
    "a repair started at the clean point of an earlier, shorter history makes the same view as "
    "one started at the beginning") {
  const Model own = target();
  const Model foreign = target("google", "google-generative-ai", "gemini-4-argon");
  const Model text_only = target("anthropic", "anthropic-messages", "claude-sonnet-5-5", false);
  std::size_t resumed_past_zero = 0;
  // Grows `history` one message at a time, each build started at the previous one's clean point.
  auto grow = [&](const std::vector<Message>& all, const Model& to) {
    std::vector<Message> history;
    std::size_t clean = 0;
    for (const Message& m : all) {
      history.push_back(m);  // the history only grows
      INFO("message " << history.size() << " from " << clean);
      std::size_t ignored = 0;
      const TranscriptView whole =
          providers::detail::TranscriptViewAccess::repair(history, to, 0, ignored);
      std::size_t next = 0;
      const TranscriptView resumed =
          providers::detail::TranscriptViewAccess::repair(history, to, clean, next);
      REQUIRE(same_view(whole, resumed));
      CHECK(next >= clean);
      if (clean > 0) ++resumed_past_zero;
      clean = next;
    }
  };
  SECTION("random histories") {
    for (std::uint32_t seed = 1; seed <= 300; ++seed) {
      INFO("seed " << seed);
      std::mt19937 rng(seed);
      std::vector<Message> all;
      for (int step = 0; step < 40; ++step) all.push_back(random_message(rng, own, foreign));
      grow(all, seed % 3 == 0 ? text_only : own);
    }
    CHECK(resumed_past_zero > 1000);  // the histories did have clean points to start from
  }
  SECTION("another model's id kept as it was, then the same id again: the second is renamed") {
    // The first claim leaves the view unchanged, so only the claim itself marks the point as
    // unclean: a build started after it would give the second call the same id.
    grow({user_text("q"), from(foreign, {use("x")}, StopReason::tool_use), result("x"),
          user_text("again"), from(foreign, {use("x")}, StopReason::tool_use), result("x")},
         own);
  }
}

TEST_CASE(
    "a wire's repair starts at the session's clean point only under the same promise and target") {
  // The start is trusted, not checked: a message before it changed in place under the same
  // serial (which the loop never does) is not repaired again, proving it was skipped.
  const Model own = target();
  Model other = own;
  other.id = "claude-other";
  auto own_model = std::make_shared<const Model>(own);
  auto other_model = std::make_shared<const Model>(other);
  struct Call {
    std::uint64_t serial;
    std::shared_ptr<const Model> model;
  };
  // Whether the second request's repair skipped the first message, changed after the first.
  auto skipped = [&](Call first, Call second, bool enabled = true) {
    // [user, a turn with a call, its result, user]: clean after every message but the call.
    std::vector<Message> history = {user_text("q"), from(own, {use("a")}, StopReason::tool_use),
                                    result("a"), user_text("next")};
    auto request = [&](const Call& c) {
      Request r;
      r.model = c.model;
      r.messages = history;
      r.session_id = "s";
      r.history_serial = c.serial;
      return r;
    };
    providers::detail::RepairResume resume(enabled);
    REQUIRE(resume.repair(request(first)).report().dropped_empty_messages == 0);
    history[0] = UserMessage{};  // now a rule would drop it
    history.push_back(from(own, {TextBlock{"fine"}}));
    return resume.repair(request(second)).report().dropped_empty_messages == 0;
  };
  CHECK(skipped({5, own_model}, {5, own_model}));
  CHECK_FALSE(skipped({5, own_model}, {6, own_model}));    // a new promise: from the start
  CHECK_FALSE(skipped({5, own_model}, {5, other_model}));  // another target: from the start
  CHECK_FALSE(skipped({5, own_model}, {0, own_model}));    // no promise: from the start
  CHECK_FALSE(skipped({0, own_model}, {0, own_model}));
  CHECK_FALSE(skipped({5, own_model}, {5, own_model}, false));  // reuse off

  // Requests of one session made at once may finish out of order: a clean point past the end of
  // a shorter request is not one of its points.
  std::vector<Message> longer = {user_text("q"), from(own, {use("a")}, StopReason::tool_use),
                                 result("a"), user_text("next")};
  std::vector<Message> shorter(longer.begin(), longer.begin() + 2);
  providers::detail::RepairResume resume;
  Request r;
  r.model = own_model;
  r.session_id = "s";
  r.history_serial = 9;
  r.messages = longer;
  resume.repair(r);
  r.messages = shorter;
  const TranscriptView view = resume.repair(r);
  CHECK(same_view(view, repair_for_send(shorter, own)));
  CHECK(view.report().synthetic_results == 1);
}

namespace {

// A request of `session` viewing `history` (which must outlive it) for `model`, under the loop's
// promise (serial 3).
Request promised_request(std::shared_ptr<const Model> model, const std::vector<Message>& history,
                         const std::string& session) {
  Request r;
  r.model = std::move(model);
  r.messages = history;
  r.session_id = session;
  r.history_serial = 3;
  return r;
}

}  // namespace

TEST_CASE(
    "a full clean point table drops its least recently used sessions, not a session still in use") {
  // The table was cleared whole at 256 sessions; now it keeps kMaxSessions and, when full, drops
  // the least recently used quarter.
  const Model own = target();
  auto model = std::make_shared<const Model>(own);
  std::vector<Message> history = {user_text("q"), from(own, {TextBlock{"a"}}), user_text("next")};
  auto request = [&](const std::string& session) {
    return promised_request(model, history, session);
  };
  providers::detail::RepairResume resume;
  resume.repair(request("old"));
  resume.repair(request("kept"));
  const std::size_t n = providers::detail::RepairResume::kMaxSessions;
  for (std::size_t s = 0; s < n; ++s) {
    resume.repair(request("s-" + std::to_string(s)));
    if (s % 1000 == 0) resume.repair(request("kept"));  // in use all along
  }
  history[0] = UserMessage{};  // a rule would now drop it: seen only by a repair from the start
  history.push_back(from(own, {TextBlock{"fine"}}));
  CHECK(resume.repair(request("kept")).report().dropped_empty_messages == 0);  // resumed
  CHECK(resume.repair(request("old")).report().dropped_empty_messages == 1);   // from 0
}

TEST_CASE("a closed session's clean point is forgotten: its next repair starts from the start") {
  const Model own = target();
  auto model = std::make_shared<const Model>(own);
  std::vector<Message> history = {user_text("q"), from(own, {TextBlock{"a"}}), user_text("next")};
  auto request = [&](const std::string& session) {
    return promised_request(model, history, session);
  };
  providers::detail::RepairResume resume;
  resume.repair(request("closed"));
  resume.repair(request("open"));
  resume.forget("closed");
  history[0] = UserMessage{};  // a rule would now drop it: seen only by a repair from the start
  history.push_back(from(own, {TextBlock{"fine"}}));
  CHECK(resume.repair(request("closed")).report().dropped_empty_messages == 1);
  CHECK(resume.repair(request("open")).report().dropped_empty_messages == 0);
}
