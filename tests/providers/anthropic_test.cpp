// anthropic-messages beyond the shared conformance rules: level-1 breakpoints, deferred tools,
// server-side compaction, thinking styles and the request shapes only this wire has.
#include <random>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/wire/decode.hpp"
#include "anthropic/anthropic_wire.hpp"
#include "conformance/conversation.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::conformance;

namespace {

const std::string kOkReply =
    R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"OK."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}})";

ToolSpec tool(std::string name) {
  return tool_spec(std::move(name), "A tool", json::parse(R"({"type":"object","properties":{"x":{"type":"string"}}})").value());
}

std::shared_ptr<providers::WireClient> anthropic_client(const providers::WireOptions& o) {
  return providers::make_anthropic_messages_client(o);
}

Model sonnet() { return *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5"); }

// An Anthropic conversation answering kOkReply (or the given reply / script).
struct AnthropicConversation : Conversation {
  explicit AnthropicConversation(providers::WireOptions options = test_wire_options(), std::string reply = kOkReply)
      : Conversation(anthropic_client, sonnet(), {whole(std::move(reply))}, options) {}
  AnthropicConversation(providers::WireOptions options, std::vector<testing::ScriptedResponse> script)
      : Conversation(anthropic_client, sonnet(), std::move(script), options) {}
};

// The reply decoded from `sse`, served as one streamed piece.
AssistantMessage streamed_reply(const std::string& sse) {
  AnthropicConversation c(test_wire_options(), {Conversation::streamed(sse)});
  c.user("hi");
  c.send();
  return c.last_reply;
}

int markers(const json::Value& v) {
  int n = 0;
  if (const auto* o = v.get_object()) {
    for (const auto& m : *o) n += (m.key == "cache_control") + markers(m.value);
  } else if (const auto* a = v.get_array()) {
    for (const auto& e : *a) n += markers(e);
  }
  return n;
}

// (message index, block index) of every marked block in body.messages.
std::vector<std::pair<std::size_t, std::size_t>> marked_blocks(const json::Value& body) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const auto& messages = body.find("messages")->as_array();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json::Value* content = messages[i].find("content");
    if (!content->is_array()) continue;
    for (std::size_t b = 0; b < content->size(); ++b) {
      if ((*content)[b].find("cache_control")) out.emplace_back(i, b);
    }
  }
  return out;
}

std::vector<std::string> marked_tools(const json::Value& body) {
  std::vector<std::string> out;
  for (const auto& t : body.find("tools")->as_array()) {
    if (t.find("cache_control")) out.push_back(t.find("name")->as_string());
  }
  return out;
}

}  // namespace

TEST_CASE("the rolling breakpoint moves to the last user block on every request") {
  // REQ-CACHE level 1: three consecutive requests in one session.
  AnthropicConversation c;
  c.tools = {tool("read_file"), tool("list_files"), tool("grep")};
  std::size_t previous_message = 0;
  for (int turn = 0; turn < 3; ++turn) {
    c.user("question " + std::to_string(turn));
    json::Value body = c.send();
    auto marked = marked_blocks(body);
    REQUIRE(marked.size() == 1);
    const auto& messages = body.find("messages")->as_array();
    CHECK(marked[0].first == messages.size() - 1);  // the last message...
    CHECK(marked[0].second == messages.back().find("content")->size() - 1);  // ...its last block
    if (turn > 0) CHECK(marked[0].first > previous_message);  // it advanced
    previous_message = marked[0].first;
    CHECK(marked_tools(body) == std::vector<std::string>{"grep"});  // the last tool only
    CHECK(markers(body) <= 4);
    CHECK(markers(body) == 3);  // system, last tool, rolling
  }
}

TEST_CASE("only the last system block is marked and the prefix takes the long lifetime only where supported") {
  providers::WireOptions o = test_wire_options();
  o.caching.retention = providers::CacheRetention::long_term;
  AnthropicConversation c(o);
  c.tools = {tool("read_file")};
  c.user("hi");
  json::Value body = c.send();
  const auto& system = body.find("system")->as_array();
  REQUIRE(system.size() == 1);
  CHECK(json::dump(*system[0].find("cache_control")) == R"({"type":"ephemeral","ttl":"1h"})");
  CHECK(json::dump(*body.find("tools")->as_array()[0].find("cache_control")) == R"({"type":"ephemeral","ttl":"1h"})");
  // The rolling breakpoint keeps the default lifetime (post-PRD ruling).
  CHECK(json::dump(*body.find("messages")->as_array().back().find("content")->as_array().back().find("cache_control")) ==
        R"({"type":"ephemeral"})");

  // A row whose endpoint does not support the hour never receives "ttl".
  AnthropicConversation plain(o);
  plain.model.compat.as_object().set("supports_long_cache_retention", false);
  plain.user("hi");
  CHECK(plain.send().find("system")->as_array()[0].find("cache_control")->find("ttl") == nullptr);
}

TEST_CASE("caching switched off sends no marker and the system prompt as a string") {
  providers::WireOptions o = test_wire_options();
  o.caching.retention = providers::CacheRetention::none;
  AnthropicConversation c(o);
  c.tools = {tool("read_file")};
  c.user("hi");
  json::Value body = c.send();
  CHECK(markers(body) == 0);
  CHECK(body.find("system")->is_string());
}

TEST_CASE("a tool first offered mid-session is declared after the cached prefix without a marker") {
  // REQ-CACHE-10 with ruling L-10: appended after the established tools, never defer_loading.
  AnthropicConversation c;
  c.tools = {tool("read_file"), tool("list_files")};
  c.user("connect the server");
  json::Value first = c.send();
  const std::string established = json::dump(*first.find("tools"));

  AssistantMessage a = providers::start_message(c.model);
  a.content.push_back(ToolUseBlock{"toolu_1", "read_file", json::Raw(R"({"x":"a"})"), {}});
  c.history.push_back(a);
  ToolResultMessage r;
  r.tool_use_id = "toolu_1";
  r.tool_name = "read_file";
  r.content = {TextBlock{"done"}};
  r.added_tool_names = {"mcp__search"};
  c.history.push_back(r);
  c.tools.insert(c.tools.begin(), tool("mcp__search"));  // offered first, still deferred
  json::Value second = c.send();
  const auto& tools = second.find("tools")->as_array();
  REQUIRE(tools.size() == 3);
  CHECK(tools[2].find("name")->as_string() == "mcp__search");
  CHECK(tools[2].find("cache_control") == nullptr);
  CHECK(tools[2].find("defer_loading") == nullptr);
  CHECK(marked_tools(second) == std::vector<std::string>{"list_files"});
  // The established tools' bytes are unchanged: the cached prefix survives the addition.
  CHECK(c.last_body_text.find(established.substr(0, established.size() - 1)) != std::string::npos);

  // Using the late tool later never moves it back into the prefix.
  AssistantMessage use = providers::start_message(c.model);
  use.content.push_back(ToolUseBlock{"toolu_2", "mcp__search", json::Raw(R"({"x":"q"})"), {}});
  c.history.push_back(use);
  ToolResultMessage r2;
  r2.tool_use_id = "toolu_2";
  r2.tool_name = "mcp__search";
  r2.content = {TextBlock{"found"}};
  c.history.push_back(r2);
  json::Value third = c.send();
  CHECK(third.find("tools")->as_array()[2].find("name")->as_string() == "mcp__search");
  CHECK(c.meter->stats("s-1").prefix_invalidations == 0);
}

TEST_CASE("server-side compaction is opt-in and its blocks are replayed byte for byte") {
  // REQ-PROV-07.
  const std::string block = R"({"type":"compaction","content":"Summary: the user asked about Paris.","encrypted_content":"EqQBCkYIBxgCKkA=","signature":"sig\u00e9"})";
  const std::string reply = R"({"id":"msg_c","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[)" + block +
                            R"(,{"type":"text","text":"Go on."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}})";
  AnthropicConversation off;
  off.user("hi");
  off.send();
  CHECK_FALSE(off.server.last_request().headers.contains("anthropic-beta"));
  CHECK(off.last_body_text.find("context_management") == std::string::npos);

  providers::WireOptions o = test_wire_options();
  o.anthropic.server_compaction = true;
  AnthropicConversation on(o, reply);
  on.user("hi");
  json::Value first = on.send();
  CHECK(on.server.last_request().headers.get("anthropic-beta") == std::optional<std::string_view>("compact-2026-01-12"));
  CHECK(json::dump(*first.find("context_management")) == R"({"edits":[{"type":"compact_20260112"}]})");
  REQUIRE(std::holds_alternative<UnknownBlock>(on.last_reply.content[0]));
  on.user("and then?");
  on.send();
  CHECK(on.last_body_text.find(block) != std::string::npos);
}

TEST_CASE("a streamed compaction block is replayed as it was assembled") {
  const std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-5-5\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"compaction\",\"content\":null,\"encrypted_content\":null}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"compaction_delta\",\"content\":\"Summary.\",\"encrypted_content\":\"Eq==\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  providers::WireOptions o = test_wire_options();
  o.anthropic.server_compaction = true;
  testing::ScriptedResponse streamed;
  streamed.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  streamed.pieces = {sse};
  AnthropicConversation c(o, {streamed, Conversation::whole(kOkReply)});
  c.user("hi");
  c.send();
  REQUIRE(std::holds_alternative<UnknownBlock>(c.last_reply.content.at(0)));
  c.user("more");
  c.send();
  CHECK(c.last_body_text.find(R"({"type":"compaction","content":"Summary.","encrypted_content":"Eq=="})") != std::string::npos);
}

TEST_CASE("budget-style thinking sends an integer budget below max_tokens and at least 1024") {
  AnthropicConversation c;
  c.model = *catalog::Catalog::builtin().find("anthropic", "claude-haiku-4-5");
  c.model.base_url = c.server.base_url();
  c.user("think");
  c.thinking = ThinkingLevel::medium;  // 16384 in the row's map, above max_tokens 1024
  json::Value body = c.send();
  const json::Value* thinking = body.find("thinking");
  REQUIRE(thinking);
  CHECK(thinking->find("type")->as_string() == "enabled");
  const std::int64_t budget = thinking->find("budget_tokens")->to_int64().value();
  const std::int64_t max_tokens = body.find("max_tokens")->to_int64().value();
  CHECK(budget >= 1024);
  CHECK(budget < max_tokens);
  CHECK(body.find("output_config") == nullptr);  // a budget row never gets effort levels

  c.thinking = ThinkingLevel::off;
  CHECK(json::dump(*c.send().find("thinking")) == R"({"type":"disabled"})");
  c.thinking.reset();
  CHECK(c.send().find("thinking") == nullptr);  // unset: omitted (tri-state)
}

TEST_CASE("adaptive thinking sends effort levels, and off a disabled object") {
  AnthropicConversation c;
  c.user("think");
  c.thinking = ThinkingLevel::high;
  json::Value body = c.send();
  CHECK(json::dump(*body.find("thinking")) == R"({"type":"adaptive"})");
  CHECK(json::dump(*body.find("output_config")) == R"({"effort":"high"})");
  c.thinking = ThinkingLevel::off;
  CHECK(json::dump(*c.send().find("thinking")) == R"({"type":"disabled"})");
}

TEST_CASE("an empty tool result has no content and a failed one is flagged") {
  AnthropicConversation c;
  c.user("go");
  AssistantMessage a = providers::start_message(c.model);
  a.content.push_back(ToolUseBlock{"toolu_1", "t", json::Raw("{}"), {}});
  a.content.push_back(ToolUseBlock{"toolu_2", "t", json::Raw("{}"), {}});
  c.history.push_back(a);
  ToolResultMessage empty;
  empty.tool_use_id = "toolu_1";
  empty.tool_name = "t";
  c.history.push_back(empty);
  ToolResultMessage failed;
  failed.tool_use_id = "toolu_2";
  failed.tool_name = "t";
  failed.content = {TextBlock{"boom"}};
  failed.is_error = true;
  c.history.push_back(failed);
  json::Value body = c.send();
  const auto& blocks = body.find("messages")->as_array().back().find("content")->as_array();
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].find("content") == nullptr);
  CHECK(blocks[1].find("is_error")->as_bool());
  CHECK(blocks[1].find("content")->as_string() == "boom");  // no "Error: " prefix: the flag says it
}

TEST_CASE("signed and redacted thinking from the same model are replayed as they came") {
  AnthropicConversation c;
  c.user("go");
  AssistantMessage a = providers::start_message(c.model);
  a.content.push_back(ThinkingBlock{"Let me see.", "sig-1", false, {}});
  a.content.push_back(ThinkingBlock{"", "opaque-data", true, {}});
  a.content.push_back(TextBlock{"Done."});
  c.history.push_back(a);
  c.user("next");
  json::Value body = c.send();
  const auto& blocks = body.find("messages")->as_array()[1].find("content")->as_array();
  REQUIRE(blocks.size() == 3);
  CHECK(json::dump(blocks[0]) == R"({"type":"thinking","thinking":"Let me see.","signature":"sig-1"})");
  CHECK(json::dump(blocks[1]) == R"({"type":"redacted_thinking","data":"opaque-data"})");
}

TEST_CASE("max_tokens is always sent, from the catalog when the caller sets none") {
  AnthropicConversation c;
  c.user("hi");
  Request req = c.request();
  req.max_tokens.reset();
  auto call = c.client->prepare(req, {});
  REQUIRE(call);
  json::Value body = json::parse(call->wire.body).value();
  CHECK(body.find("max_tokens")->to_int64().value() == catalog::clamp_max_tokens(c.model, std::nullopt, 1));
}

TEST_CASE("hour-long cache writes are read from the usage breakdown") {
  const std::string reply =
      R"({"id":"m","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"x"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_creation_input_tokens":300,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200},"output_tokens":2}})";
  AnthropicConversation c(test_wire_options(), reply);
  c.user("hi");
  c.send();
  CHECK(c.last_reply.usage.cache_write_tokens == 300);
  CHECK(c.last_reply.usage.cache_write_1h_tokens == 200);
  CHECK(c.last_reply.usage.cache_read_tokens == 0);  // present zero stays zero
}

TEST_CASE("an argument delta aimed at a text block ends the reply as a protocol error instead of crashing") {
  // Found by fuzz_anthropic: the assembler trusted the index's kind and std::get threw.
  const std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-5-5\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  // What arrived is kept.
  check_violation_kept_text(streamed_reply(sse), "tool-argument delta for content block 0", "Hi");
}

TEST_CASE(
    "a delta after its content block stopped ends the reply as a protocol error and the ended "
    "block is not changed") {
  // The rule the assembler and the other four wires follow: the block_end event already carried
  // the block whole, so a later change would make the message disagree with what observers saw.
  const auto& event = sse_event;
  const std::string sse =
      event(
          "message_start",
          R"("message":{"id":"m","model":"claude-sonnet-5-5",)"
          R"("usage":{"input_tokens":5,"output_tokens":1}})") +
      event("content_block_start", R"("index":0,"content_block":{"type":"text","text":""})") +
      event("content_block_delta", R"("index":0,"delta":{"type":"text_delta","text":"Hi"})") +
      event("content_block_stop", R"("index":0)") +
      event("content_block_delta", R"("index":0,"delta":{"type":"text_delta","text":" again"})") +
      event("message_delta", R"("delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3})") +
      event("message_stop", "");
  check_violation_kept_text(streamed_reply(sse), "which had already ended", "Hi");
}

TEST_CASE(
    "the thinking share of output tokens is read from the usage details, whole and streamed") {
  const std::string usage =
      R"({"input_tokens":52,"output_tokens":221,"output_tokens_details":{"thinking_tokens":65}})";
  AnthropicConversation whole_reply(
      test_wire_options(),
      R"({"id":"m","type":"message","role":"assistant","model":"claude-sonnet-5-5",)"
      R"("content":[{"type":"text","text":"OK."}],)"
      R"("stop_reason":"end_turn","usage":)" +
          usage + "}");
  whole_reply.user("hi");
  whole_reply.send();
  CHECK(whole_reply.last_reply.usage.reasoning_tokens == 65);
  CHECK(whole_reply.last_reply.usage.output_tokens == 221);  // thinking is inside output already

  const std::string sse =
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-5-5\","
      "\"usage\":{\"input_tokens\":52,\"output_tokens\":1}}}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":" +
      usage + "}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  CHECK(streamed_reply(sse).usage.reasoning_tokens == 65);
}

namespace {

// A transcript drawn from the shapes Anthropic encodes differently: a user message of one text
// (empty or not) or of several blocks (empty texts, images), text, cleartext, signed and redacted
// thinking, calls whose input is flat, nested, cut off or missing, compaction and other unknown
// blocks, results with and without text, failed, with images, and a user message after a run.
std::vector<Message> anthropic_transcript(std::mt19937& rng) {
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  const std::vector<std::string> texts = {"", "plain", "quote \" and \\ and \n", "caf\u00e9 \u2028",
                                          std::string(40, 'x')};
  const std::vector<std::string> inputs = {R"({"q":"a \"b\""})",
                                           "{}",
                                           R"({"a":{"b":[1,2]}})",
                                           R"({"cut":"off)",
                                           "",
                                           R"( [1] )",
                                           R"({"a":1,"a":2})",
                                           R"({"a":{"b":)"};
  const ImageBlock image{"image/png", "iVBORw0KGgo="};
  auto user_message = [&] {
    UserMessage user;
    switch (pick(4)) {
      case 0: user.content.push_back(TextBlock{texts[pick(5)]}); break;
      case 1: user.content.push_back(image); break;
      case 2: break;  // no blocks at all
      default:
        for (unsigned b = 0, n = 1 + pick(3); b < n; ++b)
          user.content.push_back(pick(2) ? ContentBlock{image}
                                         : ContentBlock{TextBlock{texts[pick(5)]}});
    }
    return user;
  };
  std::vector<Message> out;
  int calls = 0;
  for (unsigned turn = 0, turns = 1 + pick(5); turn < turns; ++turn) {
    out.push_back(user_message());
    AssistantMessage a;
    std::vector<std::string> ids;
    for (unsigned b = 0, n = pick(5); b < n; ++b) {
      switch (pick(6)) {
        case 0: a.content.push_back(TextBlock{texts[pick(5)]}); break;
        case 1: a.content.push_back(ThinkingBlock{texts[pick(5)], "sig", pick(3) == 0, ""}); break;
        case 2: {
          UnknownBlock other;
          other.type = pick(2) ? "compaction" : "server_tool_use";
          other.raw = json::Object{{"type", other.type}, {"content", texts[pick(5)]}};
          a.content.push_back(std::move(other));
          break;
        }
        default: {
          ids.push_back("toolu_" + std::to_string(++calls));
          a.content.push_back(ToolUseBlock{
              ids.back(), "tool_" + std::to_string(pick(3)), json::Raw(inputs[pick(8)]), {}});
        }
      }
    }
    out.push_back(std::move(a));
    for (const auto& id : ids) {
      ToolResultMessage r;
      r.tool_use_id = id;
      r.tool_name = "tool_0";
      r.is_error = pick(4) == 0;
      for (unsigned b = 0, n = pick(3); b < n; ++b) r.content.push_back(TextBlock{texts[pick(5)]});
      if (pick(4) == 0) r.content.push_back(image);
      out.push_back(std::move(r));
    }
    if (!ids.empty() && pick(3) == 0) out.push_back(user_message());
  }
  return out;
}

}  // namespace

TEST_CASE("Anthropic items written as text are the bytes of their trees and carry the same stamp") {
  // The kept history's segments are written as text; a whole-view fallback still builds trees.
  // Both must say the same, byte for byte, and the rolling breakpoint must land where
  // stamp_rolling_breakpoint puts it on the trees.
  std::mt19937 rng(40);
  int stamped = 0;
  for (int round = 0; round < 500; ++round) {
    const std::vector<Message> view = anthropic_transcript(rng);
    // Every tail of the view ends a segment some request encodes.
    const std::size_t from = rng() % view.size();
    const std::span<const Message> segment = std::span<const Message>(view).subspan(from);
    for (int flags = 0; flags < 4; ++flags) {
      const bool compaction = (flags & 1) != 0;
      providers::detail::Breakpoints marks;
      marks.enabled = (flags & 2) != 0;
      const auto text = providers::detail::anthropic_item_text(segment, compaction, &marks);
      json::Array trees = providers::detail::anthropic_messages(segment, compaction);
      REQUIRE(text.items == providers::detail::dump_items(trees).items);
      const bool marked = providers::detail::stamp_rolling_breakpoint(trees, marks);
      REQUIRE(text.body_items == (marked ? providers::detail::dump_items(trees).items : ""));
      stamped += marked ? 1 : 0;
    }
  }
  CHECK(stamped > 200);  // the stamped forms were exercised, not only the plain ones
}

TEST_CASE("Anthropic writes its new items as text: no tree of them is built") {
  // A call with 3 KB of input and its result, the last segment of a request: as trees, the
  // messages, their blocks' objects and lists, the input checked by parsing it into a tree, the
  // dump, the stamp and a second dump (21 allocations, 21,843 bytes under libstdc++); as text,
  // the segment's buffer, the body's stamped form and the list of its long strings (the input,
  // which the kept history references instead of keeping): 3 allocations.
  const std::vector<Message> view = testing::call_with_3kb_arguments("toolu_1");
  providers::detail::Breakpoints marks;
  (void)providers::detail::anthropic_item_text(view, false, &marks);  // the parser's scratch warm
  testing::AllocStats stats;
  {
    agentkit::testing::AllocCounter counter;
    (void)providers::detail::anthropic_item_text(view, false, &marks);
    stats = counter.stats();
  }
  INFO(stats.count << " allocations, " << stats.bytes << " bytes");
  CHECK(stats.count <= 3);  // an upper bound: under ThreadSanitizer the counter reads 0
}
