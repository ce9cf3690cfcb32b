// openai-completions beyond the shared conformance rules: the compatibility profile (REQ-PROV-12),
// thinking formats, level 0, tool-result rendering and late tools.
#include <map>
#include <memory>
#include <random>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/openai.hpp"
#include "conformance/conversation.hpp"
#include "openai_completions/completions_wire.hpp"
#include "openai_shared/openai_common.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::conformance;

namespace {

const std::string kOkReply =
    R"({"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"OK."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2}})";

std::shared_ptr<providers::WireClient> chat_client(const providers::WireOptions& o) {
  return providers::make_openai_completions_client(o);
}

Model row(std::string_view vendor, std::string_view id) { return *catalog::Catalog::builtin().find(vendor, id); }

struct ChatConversation : Conversation {
  explicit ChatConversation(Model m, std::string reply = kOkReply) : Conversation(chat_client, std::move(m), {whole(std::move(reply))}) {}
};

const json::Value* message_with_role(const json::Value& body, std::string_view role) {
  for (const auto& m : body.find("messages")->as_array()) {
    if (m.find("role")->as_string() == role) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a DeepSeek row sends max_tokens, no store, a system role, and replays reasoning_content") {
  ChatConversation c(row("deepseek", "deepseek-v4-flash"),
                     R"({"id":"c1","model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Thinking hard.","content":"Four."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}})");
  c.user("2+2?");
  json::Value first = c.send();
  CHECK(first.find("max_tokens"));
  CHECK_FALSE(first.find("max_completion_tokens"));
  CHECK_FALSE(first.find("store"));
  CHECK(message_with_role(first, "system"));
  CHECK_FALSE(message_with_role(first, "developer"));
  c.user("and 3+3?");
  json::Value second = c.send();
  const json::Value* assistant = message_with_role(second, "assistant");
  REQUIRE(assistant);
  // Same-model reasoning survives send-time repair and goes back where DeepSeek expects it.
  CHECK(assistant->find("reasoning_content")->as_string() == "Thinking hard.");
  CHECK(assistant->find("content")->as_string() == "Four.");
}

TEST_CASE("a catalog compat override flips exactly its own flag") {
  Model base = row("xai", "grok-4.5");
  Model flipped = base;
  flipped.compat.as_object().set("use_max_tokens", true);
  ChatConversation a(base), b(flipped);
  a.user("hi");
  b.user("hi");
  json::Value x = a.send(), y = b.send();
  CHECK(x.find("max_completion_tokens"));
  CHECK(y.find("max_tokens"));
  // Everything else is identical.
  y.as_object().erase("max_tokens");
  x.as_object().erase("max_completion_tokens");
  CHECK(json::dump(x) == json::dump(y));
}

TEST_CASE("api.openai.com is told not to store the completion") {
  Model m = row("xai", "grok-4.5");
  m.compat = json::Object{};
  m.vendor = "openai";
  ChatConversation c(m);
  c.model.base_url = "http://api.openai.com.invalid";  // host inference only; never contacted
  auto call = c.client->prepare(c.request(), {});
  REQUIRE(call);
  // Built from the inferred profile: host api.openai.com.invalid is not api.openai.com.
  CHECK(call->wire.body.find("\"store\"") == std::string::npos);
  Model direct = m;
  direct.base_url = "https://api.openai.com/v1";
  Request req = c.request();
  req.model = std::make_shared<Model>(direct);
  auto openai_call = c.client->prepare(req, {});
  REQUIRE(openai_call);
  CHECK(openai_call->wire.body.find(R"("store":false)") != std::string::npos);
}

TEST_CASE("each thinking format reaches the wire in its host's vocabulary") {
  struct Case {
    std::string vendor, id;
    ThinkingLevel level;
    std::string expected;
  };
  for (const Case& k : std::vector<Case>{
           {"deepseek", "deepseek-v4-flash", ThinkingLevel::high, R"("thinking":{"type":"enabled"})"},
           {"deepseek", "deepseek-v4-flash", ThinkingLevel::off, R"("thinking":{"type":"disabled"})"},
           {"moonshot", "kimi-k2.6", ThinkingLevel::high, R"("thinking":{"type":"enabled"})"},
           {"xai", "grok-4.5", ThinkingLevel::medium, R"("reasoning_effort":"medium")"},
           {"openrouter", "openai/gpt-6.2-sol", ThinkingLevel::low, R"("reasoning":{"effort":"low"})"},
           {"together", "openai/gpt-oss-120b", ThinkingLevel::high, R"("reasoning":{"enabled":true})"},
           {"vllm", "Qwen/Qwen3-32B", ThinkingLevel::low,
            R"("chat_template_kwargs":{"enable_thinking":true},"thinking_token_budget":4096)"},
           {"llamacpp", "default", ThinkingLevel::off, R"("chat_template_kwargs":{"enable_thinking":false})"},
       }) {
    ChatConversation c(row(k.vendor, k.id));
    c.user("think");
    c.thinking = k.level;
    c.send();
    INFO(k.vendor << "/" << k.id << ": " << c.last_body_text);
    CHECK(c.last_body_text.find(k.expected) != std::string::npos);
  }
}

TEST_CASE("the prompt-cache key goes only to vendors that take it, the affinity header everywhere") {
  ChatConversation openrouter(row("openrouter", "openai/gpt-6.2-sol"));
  openrouter.user("hi");
  CHECK(openrouter.send().find("prompt_cache_key")->as_string() == "s-1");
  CHECK(openrouter.server.last_request().headers.get("x-session-affinity") == std::optional<std::string_view>("s-1"));
  ChatConversation xai(row("xai", "grok-4.5"));
  xai.user("hi");
  CHECK_FALSE(xai.send().find("prompt_cache_key"));
  CHECK(xai.server.last_request().headers.get("x-session-affinity") == std::optional<std::string_view>("s-1"));
  xai.session_id.clear();
  xai.send();
  CHECK_FALSE(xai.server.last_request().headers.contains("x-session-affinity"));
}

TEST_CASE("a failed call's result text starts with Error and names may be required") {
  Model m = row("xai", "grok-4.5");
  m.compat.as_object().set("requires_tool_result_name", true);
  ChatConversation c(m);
  c.user("go");
  c.assistant_calls({ToolUseBlock{"call_1", "get_weather", json::Raw(R"({"city":"X"})"), {}}});
  c.result("call_1", "get_weather", "no such city", true);
  json::Value body = c.send();
  const json::Value* tool = message_with_role(body, "tool");
  REQUIRE(tool);
  CHECK(tool->find("content")->as_string() == "Error: no such city");
  CHECK(tool->find("name")->as_string() == "get_weather");
  const json::Value* assistant = message_with_role(body, "assistant");
  CHECK_FALSE(assistant->find("content"));  // no text: omitted (null allowed)
}

TEST_CASE("hosts that reject a user turn after tool results get a bridging assistant turn") {
  Model m = row("xai", "grok-4.5");
  m.compat.as_object().set("allows_user_after_tool_result", false);
  m.compat.as_object().set("allows_null_assistant_content", false);
  ChatConversation c(m);
  c.user("go");
  c.assistant_calls({ToolUseBlock{"call_1", "t", json::Raw("{}"), {}}});
  c.result("call_1", "t", "ok");
  c.user("now summarise");
  json::Value body = c.send();
  const auto& messages = body.find("messages")->as_array();
  std::vector<std::string> roles;
  for (const auto& msg : messages) roles.push_back(msg.find("role")->as_string());
  CHECK(roles == std::vector<std::string>{"system", "user", "assistant", "tool", "assistant", "user"});
  CHECK(messages[2].find("content")->as_string().empty());  // "" where null is not allowed
}

TEST_CASE("a tool first offered mid-session is declared in prose after its result, not in tools") {
  // REQ-CACHE-10, ruling L-8 (Chat Completions re-declares late tools in a system message).
  ChatConversation c(row("xai", "grok-4.5"));
  c.tools = {tool_spec("read_file", "Read", json::parse(R"({"type":"object"})").value())};
  c.user("connect");
  json::Value first = c.send();
  const std::string established = json::dump(*first.find("tools"));
  c.assistant_calls({ToolUseBlock{"call_1", "read_file", json::Raw("{}"), {}}});
  c.result("call_1", "read_file", "connected", false, {"mcp__search"});
  c.tools.push_back(tool_spec("mcp__search", "Search the index", json::parse(R"({"type":"object"})").value()));
  json::Value second = c.send();
  CHECK(json::dump(*second.find("tools")) == established);
  const auto& messages = second.find("messages")->as_array();
  std::size_t tool_at = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].find("role")->as_string() == "tool") tool_at = i;
  }
  REQUIRE(tool_at + 1 < messages.size());
  CHECK(messages[tool_at + 1].find("role")->as_string() == "system");
  CHECK(messages[tool_at + 1].find("content")->as_string().find("\"name\":\"mcp__search\"") != std::string::npos);
}

TEST_CASE("a streamed call without an id gets one made from the response, the same on both paths") {
  const std::string whole =
      R"({"id":"chatcmpl-9","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"t","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})";
  const std::string streamed =
      "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"t\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
  testing::ScriptedResponse sse;
  sse.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  sse.pieces = {streamed};
  Conversation c(chat_client, row("xai", "grok-4.5"), {Conversation::whole(whole), sse});
  c.user("go");
  c.send();
  AssistantMessage a = c.last_reply;
  c.send();
  REQUIRE(tool_uses(a).size() == 1);
  REQUIRE(tool_uses(c.last_reply).size() == 1);
  CHECK(tool_uses(a)[0]->id == "call_chatcmpl-9_0");
  CHECK(tool_uses(c.last_reply)[0]->id == tool_uses(a)[0]->id);
}

TEST_CASE("a finish_reason ends the stream where the host sends no [DONE], unless the row says it cannot") {
  const std::string no_done =
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  testing::ScriptedResponse sse;
  sse.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  sse.pieces = {no_done};
  Conversation ok(chat_client, row("xai", "grok-4.5"), {sse});
  ok.user("hi");
  ok.send();
  CHECK(ok.last_reply.stop_reason == StopReason::stop);
  Model strict = row("xai", "grok-4.5");
  strict.compat.as_object().set("supports_finish_reason", false);
  Conversation cut(chat_client, strict, {sse});
  cut.user("hi");
  cut.send();
  CHECK(cut.last_reply.stop_reason == StopReason::error);
}

namespace {

// A transcript drawn from the shapes Chat Completions encodes differently: texts run together or
// empty, cleartext and signed reasoning, calls with and without text, results with images,
// names and re-declared tools, a user message after a run of results.
std::vector<Message> generated_transcript(std::mt19937& rng) {
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  const std::vector<std::string> texts = {"", "plain", "quote \" and \\ and \n", "caf\u00e9 \u2028",
                                          std::string(40, 'x')};
  const ImageBlock image{"image/png", "iVBORw0KGgo="};
  std::vector<Message> out;
  int calls = 0;
  for (unsigned turn = 0, turns = 1 + pick(5); turn < turns; ++turn) {
    UserMessage user;
    user.content.push_back(TextBlock{texts[pick(5)]});
    if (pick(4) == 0)
      user.content.push_back(pick(2) ? ContentBlock{image} : ContentBlock{TextBlock{"more"}});
    out.push_back(std::move(user));
    AssistantMessage a;
    std::vector<std::string> ids;
    for (unsigned b = 0, n = pick(5); b < n; ++b) {
      switch (pick(4)) {
        case 0: a.content.push_back(TextBlock{texts[pick(5)]}); break;
        case 1:
          a.content.push_back(ThinkingBlock{
              texts[pick(5)],
              pick(2) ? std::string(providers::detail::kClearReasoningSignature) : "sig", false,
              ""});
          break;
        default: {
          ids.push_back("call_" + std::to_string(++calls));
          a.content.push_back(ToolUseBlock{ids.back(),
                                           "tool_" + std::to_string(pick(3)),
                                           json::Raw(pick(2) ? R"({"q":"a \"b\""})" : "{}"),
                                           {}});
        }
      }
    }
    out.push_back(std::move(a));
    for (const auto& id : ids) {
      ToolResultMessage r;
      r.tool_use_id = id;
      r.tool_name = "tool_0";
      r.is_error = pick(4) == 0;
      r.content.push_back(TextBlock{texts[pick(5)]});
      if (pick(4) == 0) r.content.push_back(image);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Chat Completions items written as text are the bytes of their trees, under every profile") {
  // The kept history's segments are written as text; requests stamped with cache_control markers
  // still build the tree. Both must say the same, byte for byte.
  std::mt19937 rng(39);
  int compared = 0;
  for (int round = 0; round < 300; ++round) {
    const std::vector<Message> view = generated_transcript(rng);
    std::map<std::string, std::vector<providers::detail::ToolBytes>, std::less<>> declared;
    if (rng() % 3 == 0)
      declared["call_1"] = {std::make_shared<const std::string>(R"({"type":"function"})")};
    for (int flags = 0; flags < 16; ++flags) {
      providers::detail::CompletionsProfile profile;
      profile.allows_null_assistant_content = (flags & 1) != 0;
      profile.allows_user_after_tool_result = (flags & 2) != 0;
      profile.requires_tool_result_name = (flags & 4) != 0;
      profile.thinking_format = (flags & 8) != 0 ? "deepseek" : "openai";
      const std::string text =
          providers::detail::completions_item_text(view, profile, declared).items;
      const std::string tree = providers::detail::dump_items(
                                   providers::detail::completions_items(view, profile, declared))
                                   .items;
      REQUIRE(text == tree);
      ++compared;
    }
  }
  CHECK(compared == 300 * 16);
}

TEST_CASE("Chat Completions writes its new items as text: no tree of them is built") {
  // A call with 3 KB of arguments and its result: as trees, objects for the message, the call and
  // its function, the calls' list, the arguments copied in, then the dump (12 allocations, 18,285
  // bytes under libstdc++); as text, the segment's buffer alone (8,193 bytes when it was a fixed
  // 8 KB; sized from its messages since stop 40).
  const std::vector<Message> view = testing::call_with_3kb_arguments("call_1");
  providers::detail::CompletionsProfile profile;
  testing::AllocStats stats;
  {
    agentkit::testing::AllocCounter counter;
    (void)providers::detail::completions_item_text(view, profile, {});
    stats = counter.stats();
  }
  // The segment's buffer and the list of its long strings (the arguments, which the kept history
  // references instead of keeping): an upper bound, under ThreadSanitizer the counter reads 0.
  CHECK(stats.count <= 2);
}
