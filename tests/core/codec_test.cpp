// The lossless JSON codec for blocks, messages and usage, and the JSON form, names and size
// estimate of events.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

json::Value parse(std::string_view text) { return json::parse(text).value(); }

Timestamp at_ms(std::int64_t ms) { return Timestamp(std::chrono::milliseconds(ms)); }

std::string encode(const Message& m) { return json::dump(to_json(m)); }
std::string encode(const ContentBlock& b) { return json::dump(to_json(b)); }

// What the session log does: write the JSON text, read it back later.
Result<Message> through_text(const Message& m) { return message_from_json(parse(json::dump(to_json(m)))); }

std::string decode_error(std::string_view text) {
  Result<Message> r = message_from_json(parse(text));
  if (r) return "decoded";
  return std::string(r.error().find_detail("path").value_or("?")) + " | " + r.error().message;
}

ToolUseBlock call(std::string input) { return ToolUseBlock{"call_1", "read_file", json::Raw(std::move(input)), ""}; }

// ---- Random messages for the round-trip property -------------------------------------------

class MessageGenerator {
 public:
  // `encode_only` also makes what an encoder must write but a decode cannot give back: strings
  // holding bytes that are not UTF-8 (a caller's std::string may; written as U+FFFD) and trees
  // holding json::Raw (written verbatim).
  explicit MessageGenerator(std::uint32_t seed, bool encode_only = false)
      : rng_(seed), encode_only_(encode_only) {}

  Message message() {
    switch (pick(3)) {
      case 0: return user();
      case 1: return assistant();
      default: return tool_result();
    }
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool coin() { return pick(2) == 0; }

  // Valid UTF-8 with the characters codecs get wrong: quotes, backslashes, controls, U+2028,
  // astral characters, and an empty string now and then.
  std::string text() {
    static const std::vector<std::string> pieces = {"a",
                                                    "Z",
                                                    " ",
                                                    "\"",
                                                    "\\",
                                                    "\n",
                                                    "\t",
                                                    std::string(1, '\0'),
                                                    "\x1f",
                                                    "\x7f",
                                                    "é",
                                                    "€",
                                                    "\xE2\x80\xA8",
                                                    "\xE2\x80\xA9",
                                                    "\xE2\x80\xA7",
                                                    "😀",
                                                    "{}",
                                                    "[1,",
                                                    "null",
                                                    "/",
                                                    "abcdefghijklmnopqrstuvwxyz0123456789"};
    // Not UTF-8: a stray continuation byte, a cut sequence, an overlong form, a surrogate.
    static const std::vector<std::string> bad = {"\x80", "\xE2\x80", "\xC0\xAF", "\xED\xA0\x80",
                                                 "\xFF"};
    std::string out;
    const std::size_t n = pick(4) == 0 ? 0 : pick(12);
    for (std::size_t i = 0; i < n; ++i) {
      out += encode_only_ && pick(8) == 0 ? bad[pick(bad.size())] : pieces[pick(pieces.size())];
    }
    return out;
  }

  std::string tool_input() {
    static const std::vector<std::string> inputs = {
        "{}", R"({"path":"a.txt","limit":20})", R"({"b":1.0,"a":[true,null,"x"]})",  // canonical
        R"({"path": "a.txt"})", "{\n  \"x\": 1\n}", R"({"e":"\u00e9"})",              // valid, not canonical
        R"({"path":"a.t)", "", "not json", R"({"a":1,"a":2})",                           // not valid
        "[1,2]", "\"just a string\"", "12.50"};
    return coin() ? inputs[pick(inputs.size())] : "{\"q\":" + quoted(text()) + "}";
  }

  static std::string quoted(const std::string& s) {
    std::string out;
    json::append_quoted(out, s);
    return out;
  }

  json::Value value(int depth) {
    if (encode_only_ && pick(10) == 0) return json::Raw(tool_input());
    switch (depth > 2 ? pick(4) : pick(6)) {
      case 0: return nullptr;
      case 1: return coin();
      case 2: return json::Value::number(std::vector<std::string>{"0", "-1", "1.50", "1e400", "12345678901234567890"}[pick(5)]).value();
      case 3: return text();
      case 4: {
        json::Array a;
        for (std::size_t i = pick(4); i > 0; --i) a.push_back(value(depth + 1));
        return a;
      }
      default: return object(depth + 1);
    }
  }

  json::Object object(int depth) {
    json::Object o;
    for (std::size_t i = pick(4); i > 0; --i) o.set(text() + std::to_string(i), value(depth));
    return o;
  }

  ContentBlock block() {
    switch (pick(5)) {
      case 0: return TextBlock{text()};
      case 1: return ThinkingBlock{text(), coin() ? text() : "", coin(), coin() ? text() : ""};
      case 2: return ToolUseBlock{text(), text(), json::Raw(tool_input()), coin() ? text() : ""};
      case 3: return ImageBlock{"image/png", coin() ? "iVBORw0KGgo=" : ""};
      default: return UnknownBlock{text(), coin() ? json::Value(object(0)) : value(0)};
    }
  }

  std::vector<ContentBlock> content() {
    std::vector<ContentBlock> out;
    for (std::size_t i = pick(5); i > 0; --i) out.push_back(block());
    return out;
  }

  Timestamp timestamp() {
    if (pick(4) == 0) return Timestamp{};
    // Any millisecond the clock can represent, before or after the epoch.
    constexpr std::int64_t kSpan = std::int64_t(1) << 42;
    return at_ms(std::uniform_int_distribution<std::int64_t>(-kSpan, kSpan)(rng_));
  }

  std::int64_t tokens() {
    return coin() ? std::int64_t(pick(100'000)) : std::uniform_int_distribution<std::int64_t>(
                                                      std::numeric_limits<std::int64_t>::min(),
                                                      std::numeric_limits<std::int64_t>::max())(rng_);
  }

  double amount() {
    switch (pick(4)) {
      case 0: return 0.0;
      case 1: return std::uniform_real_distribution<double>(0, 10)(rng_);
      case 2: return std::numeric_limits<double>::denorm_min() * double(pick(1000) + 1);
      default: return -std::numeric_limits<double>::max() / double(pick(1000) + 1);
    }
  }

  Usage usage() {
    Usage u;
    if (coin()) return u;
    u.input_tokens = tokens();
    u.output_tokens = tokens();
    u.cache_read_tokens = tokens();
    u.cache_write_tokens = tokens();
    u.cache_write_1h_tokens = tokens();
    u.reasoning_tokens = tokens();
    u.cost = Cost{amount(), amount(), amount(), amount(), amount()};
    u.billed_model = coin() ? text() : "";
    return u;
  }

  UserMessage user() { return UserMessage{content(), timestamp()}; }

  AssistantMessage assistant() {
    AssistantMessage m;
    m.content = content();
    m.stop_reason = static_cast<StopReason>(pick(8));
    m.raw_stop_reason = text();
    m.error_message = text();
    m.usage = usage();
    m.timestamp = timestamp();
    m.provider = text();
    m.api = text();
    m.model = text();
    m.response_model = text();
    m.response_id = text();
    return m;
  }

  ToolResultMessage tool_result() {
    ToolResultMessage m;
    m.tool_use_id = text();
    m.tool_name = text();
    m.content = content();
    m.is_error = coin();
    m.timestamp = timestamp();
    if (coin()) m.metadata = object(0);
    for (std::size_t i = pick(3); i > 0; --i) m.added_tool_names.push_back(text());
    return m;
  }

  std::mt19937 rng_;
  bool encode_only_ = false;
};

// The session log's encoder: the message's text written without the tree.
std::string direct_text(const Message& m) {
  std::string out;
  append_json_text(out, m);
  return out;
}

}  // namespace

// ---- Blocks -------------------------------------------------------------------------------

TEST_CASE("each block kind has its documented JSON shape") {
  CHECK(encode(TextBlock{"hi"}) == R"({"type":"text","text":"hi"})");
  CHECK(encode(ThinkingBlock{"hmm", "sig", true, "rs_1"}) ==
        R"({"type":"thinking","thinking":"hmm","signature":"sig","redacted":true,"id":"rs_1"})");
  CHECK(encode(ThinkingBlock{"hmm", "", false, ""}) == R"({"type":"thinking","thinking":"hmm"})");
  CHECK(encode(ToolUseBlock{"c1", "grep", json::Raw(R"({"q":"x"})"), "ts"}) ==
        R"({"type":"tool_use","id":"c1","name":"grep","input":{"q":"x"},"thought_signature":"ts"})");
  CHECK(encode(ImageBlock{"image/png", "AAAA"}) == R"({"type":"image","mime_type":"image/png","data":"AAAA"})");
  CHECK(encode(UnknownBlock{"server_tool_use", parse(R"({"type":"server_tool_use","n":1.0})")}) ==
        R"({"type":"unknown","block_type":"server_tool_use","raw":{"type":"server_tool_use","n":1.0}})");
}

TEST_CASE("tool-use input is emitted as the model's bytes, not a re-serialised value") {
  const std::string bytes = R"({"zeta":1.50,"alpha":[1e2,"\u00e9"]})";
  // Not canonical (the escape) -> exact bytes as a string; canonical -> the bytes as a Raw.
  const json::Value escaped = to_json(call(bytes));
  CHECK(escaped.find("input") == nullptr);
  CHECK(escaped.find("input_raw")->as_string() == bytes);
  const std::string canonical = R"({"zeta":1.50,"alpha":[1e2,"é"]})";
  const json::Value v = to_json(call(canonical));
  const json::Value* input = v.find("input");
  REQUIRE(input != nullptr);
  REQUIRE(input->is_raw());
  CHECK(input->get_raw()->bytes() == canonical);
  CHECK(v.find("input_raw") == nullptr);
}

TEST_CASE("a truncated tool call round-trips through input_raw") {
  const ToolUseBlock truncated = call(R"({"path":"src/ma)");
  const json::Value v = to_json(truncated);
  CHECK(v.find("input") == nullptr);
  CHECK(v.find("input_raw")->as_string() == R"({"path":"src/ma)");
  CHECK(content_block_from_json(v).value() == ContentBlock(truncated));
  CHECK(content_block_from_json(parse(json::dump(v))).value() == ContentBlock(truncated));
  CHECK(content_block_from_json(to_json(call(""))).value() == ContentBlock(call("")));
}

TEST_CASE("pretty-printed arguments keep every byte through the text form and never break a JSONL line") {
  const ToolUseBlock pretty = call("{\n  \"path\": \"a.txt\",\n  \"limit\": 1.0\n}");
  const std::string line = json::dump(to_json(pretty));
  CHECK(line.find('\n') == std::string::npos);
  CHECK(content_block_from_json(parse(line)).value() == ContentBlock(pretty));
}

TEST_CASE("canonical arguments keep their bytes through the text form") {
  const ToolUseBlock compact = call(R"({"b":1.0,"a":[true,null,"x"],"n":12345678901234567890})");
  const std::string line = json::dump(to_json(compact));
  CHECK(line.find(R"("input":{"b":1.0,"a":[true,null,"x"],"n":12345678901234567890})") != std::string::npos);
  CHECK(content_block_from_json(parse(line)).value() == ContentBlock(compact));
}

TEST_CASE("a block type this build does not know is kept whole and survives a round trip") {
  const json::Value future = parse(R"({"type":"server_tool_use","id":"s1","input":{"q":"x"},"extra":[1]})");
  const ContentBlock block = content_block_from_json(future).value();
  const auto* unknown = std::get_if<UnknownBlock>(&block);
  REQUIRE(unknown != nullptr);
  CHECK(unknown->type == "server_tool_use");
  CHECK(unknown->raw == future);
  CHECK(content_block_from_json(parse(encode(block))).value() == block);
}

TEST_CASE("decoding ignores unknown members of known blocks and messages") {
  const Message m = message_from_json(parse(
      R"({"role":"user","future":{"x":1},"content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]})"))
                        .value();
  CHECK(m == Message(user_text("hi")));
}

TEST_CASE("a known member of the wrong type is an error naming its path") {
  CHECK(decode_error(R"({"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":3}]})") ==
        "$.content[1].text | $.content[1].text: expected a string, got number");
  CHECK(decode_error(R"({"role":"assistant","content":[],"usage":{"input_tokens":"5"}})") ==
        "$.usage.input_tokens | $.usage.input_tokens: expected an integer that fits 64 bits, got string");
  CHECK(decode_error(R"({"role":"assistant","content":[],"usage":{"cost":{"total":null}}})").rfind("$.usage.cost.total |", 0) == 0);
  CHECK(decode_error(R"({"role":"tool_result","is_error":"yes"})").rfind("$.is_error |", 0) == 0);
  CHECK(decode_error(R"({"role":"tool_result","metadata":[]})").rfind("$.metadata |", 0) == 0);
  CHECK(decode_error(R"({"role":"tool_result","added_tool_names":["a",1]})").rfind("$.added_tool_names[1] |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","content":{}})").rfind("$.content |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","content":[{"type":"tool_use","input_raw":{}}]})")
            .rfind("$.content[0].input_raw |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","content":[{"text":"no type"}]})").rfind("$.content[0].type |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","timestamp":1.5})").rfind("$.timestamp |", 0) == 0);
}

TEST_CASE("role and stop reason are checked against their vocabularies") {
  CHECK(decode_error(R"({"role":"system","content":[]})") ==
        "$.role | $.role: unknown role 'system'; expected user, assistant or tool_result");
  CHECK(decode_error(R"({"content":[]})").rfind("$.role | $.role: missing", 0) == 0);
  CHECK(decode_error(R"({"role":"assistant","stop_reason":"end_turn"})").rfind("$.stop_reason |", 0) == 0);
  CHECK(decode_error("[]").rfind("$ | $: expected an object", 0) == 0);
  const Result<Message> r = message_from_json(parse(R"({"role":7})"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::parse_error);
}

// ---- Messages ---------------------------------------------------------------------------------

TEST_CASE("an assistant message carries every field, and empty ones are omitted") {
  AssistantMessage m;
  m.content = {TextBlock{"done"}};
  m.stop_reason = StopReason::length;
  m.raw_stop_reason = "max_tokens";
  m.usage.input_tokens = 3;
  m.usage.cost.total = 0.25;
  m.timestamp = at_ms(1'700'000'000'123);
  m.provider = "anthropic";
  m.api = "anthropic-messages";
  m.model = "claude-x";
  m.response_id = "msg_1";
  CHECK(encode(m) ==
        R"({"role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"length",)"
        R"("raw_stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":0,"cache_read_tokens":0,)"
        R"("cache_write_tokens":0,"cache_write_1h_tokens":0,"reasoning_tokens":0,"cost":{"total":0.25}},)"
        R"("timestamp":1700000000123,"provider":"anthropic","api":"anthropic-messages","model":"claude-x",)"
        R"("response_id":"msg_1"})");
  CHECK(encode(AssistantMessage{}) == R"({"role":"assistant","content":[],"stop_reason":"stop"})");
}

TEST_CASE("user and tool-result messages have their documented shapes") {
  CHECK(encode(user_text("hi")) == R"({"role":"user","content":[{"type":"text","text":"hi"}]})");
  ToolResultMessage r;
  r.tool_use_id = "call_1";
  r.tool_name = "grep";
  r.content = {TextBlock{"no matches"}};
  r.is_error = true;
  r.metadata = json::Object{{"exit_code", 1}};
  r.added_tool_names = {"late_tool"};
  CHECK(encode(r) == R"({"role":"tool_result","tool_use_id":"call_1","tool_name":"grep",)"
                     R"("content":[{"type":"text","text":"no matches"}],"is_error":true,)"
                     R"("metadata":{"exit_code":1},"added_tool_names":["late_tool"]})");
  CHECK(encode(ToolResultMessage{}) == R"({"role":"tool_result","tool_use_id":"","tool_name":"","content":[]})");
}

TEST_CASE("timestamps are integer milliseconds since the epoch, finer precision floored") {
  UserMessage m;
  m.timestamp = at_ms(1'700'000'000'123) + std::chrono::microseconds(999);
  CHECK(to_json(Message(m)).find("timestamp")->number_text() == "1700000000123");
  m.timestamp = at_ms(-1) + std::chrono::microseconds(1);  // just before the epoch floors to -1
  CHECK(to_json(Message(m)).find("timestamp")->number_text() == "-1");
  const Message decoded = message_from_json(parse(R"({"role":"user","timestamp":1700000000123})")).value();
  CHECK(std::get<UserMessage>(decoded).timestamp == at_ms(1'700'000'000'123));
}

TEST_CASE("a timestamp the clock cannot hold is an error, not an overflow") {
  CHECK(decode_error(R"({"role":"user","timestamp":9223372036854775807})").rfind("$.timestamp |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","timestamp":-9223372036854775808})").rfind("$.timestamp |", 0) == 0);
  CHECK(decode_error(R"({"role":"user","timestamp":1e400})").rfind("$.timestamp |", 0) == 0);
}

TEST_CASE("usage round-trips and omits zero cost parts") {
  Usage u;
  u.input_tokens = 1;
  u.output_tokens = std::numeric_limits<std::int64_t>::max();
  u.reasoning_tokens = -1;
  u.cost = Cost{0.1, 0, 0.3, 0, 0.4};
  u.billed_model = "m";
  const json::Value v = to_json(u);
  CHECK(json::dump(*v.find("cost")) == R"({"input":0.1,"cache_read":0.3,"total":0.4})");
  CHECK(usage_from_json(v).value() == u);
  CHECK(usage_from_json(parse(json::dump(v))).value() == u);
  CHECK(to_json(Usage{}).find("cost") == nullptr);
  CHECK(usage_from_json(parse("{}")).value() == Usage{});
}

TEST_CASE("a non-finite cost is left out rather than written as invalid JSON") {
  Usage u;
  u.cost.total = std::numeric_limits<double>::infinity();
  u.cost.input = std::nan("");
  const std::string text = json::dump(to_json(u));
  CHECK(text.find("cost") == std::string::npos);
  CHECK(usage_from_json(parse(text)).has_value());
}

TEST_CASE("message_from_json(to_json(m)) == m for many random messages, in memory and through text") {
  const std::uint32_t seed = 20'240'601;
  MessageGenerator generate(seed);
  constexpr int kMessages = 3000;
  for (int i = 0; i < kMessages; ++i) {
    const Message m = generate.message();
    INFO("seed " << seed << ", message " << i << ": " << json::dump(to_json(m)));
    const Result<Message> in_memory = message_from_json(to_json(m));
    REQUIRE(in_memory.has_value());
    REQUIRE(*in_memory == m);
    const Result<Message> text = through_text(m);
    REQUIRE(text.has_value());
    REQUIRE(*text == m);
  }
}

TEST_CASE(
    "the direct text encoder writes what json::dump of the tree writes, for many random "
    "messages") {
  const std::uint32_t seed = 20'261'203;
  MessageGenerator generate(seed, /*encode_only=*/true);
  constexpr int kMessages = 5000;
  for (int i = 0; i < kMessages; ++i) {
    const Message m = generate.message();
    const std::string tree = json::dump(to_json(m));
    INFO("seed " << seed << ", message " << i << ": " << tree);
    REQUIRE(direct_text(m) == tree);
  }
}

TEST_CASE(
    "the direct text encoder writes every block kind and every optional member as the tree "
    "does") {
  const std::string separators =
      "line\xE2\x80\xA8para\xE2\x80\xA9"
      "end";
  const std::string controls = std::string("nul") + '\0' + "\x01\b\f\n\r\t\x1f\x7f\"\\/";
  // An opaque token as a provider sends it: base64 with '+', '/' and '=' that must pass as is.
  const std::string signature = "EqQBCkYIBxgCKkB+/zX9==";

  AssistantMessage full;
  full.content = {
      TextBlock{separators},
      TextBlock{controls},
      TextBlock{""},
      ThinkingBlock{"let me think " + separators, signature, false, "rs_123"},
      ThinkingBlock{"", signature, true, ""},
      ToolUseBlock{"call_1", "read", json::Raw(R"({"path":"a.txt","n":1.50})"), "sig_g"},
      ToolUseBlock{"call_2", "read", json::Raw("{\"path\": \"spaced\"}"), ""},
      ToolUseBlock{"call_3", "read", json::Raw(R"({"path":"cut)"), ""},
      ToolUseBlock{"call_4", "read", json::Raw(R"({"a":1,"a":2})"), ""},
      ToolUseBlock{"call_5", "read", json::Raw("{\"s\":\"\xE2\x80\xA8\"}"), ""},
      ImageBlock{"image/png", "iVBORw0KGgo="},
      UnknownBlock{"server_tool_use",
                   parse(R"({"type":"server_tool_use","id":"x","input":{"q":[1,2.50,null]}})")},
      UnknownBlock{"", json::Value(nullptr)},
      UnknownBlock{"citation", json::Value(json::Raw(R"({"kept":"verbatim" })"))},
  };
  full.stop_reason = StopReason::error;
  full.raw_stop_reason = "end_turn";
  full.error_message = "overloaded: " + controls;
  full.usage = Usage{1200, 80, 5, 6, 2, 40, Cost{0.0036, 0.0012, 0, 1e-7, 0.0048}, "claude-x"};
  full.timestamp = at_ms(1'733'150'000'123);
  full.provider = "anthropic";
  full.api = "anthropic-messages";
  full.model = "claude-sonnet-4-5";
  full.response_model = "claude-sonnet-4-5-20250929";
  full.response_id = "msg_01";

  AssistantMessage zero_cost;  // usage without cost parts: "cost" is left out, "usage" is not
  zero_cost.usage.input_tokens = 7;
  AssistantMessage bare;  // every optional member empty: none written

  ToolResultMessage result;
  result.tool_use_id = "call_1";
  result.tool_name = "read";
  result.content = {TextBlock{"ok"}, ImageBlock{"image/jpeg", "/9j/"}};
  result.is_error = true;
  result.timestamp = at_ms(-1);
  result.metadata =
      parse(R"({"exit_code":0,"elapsed":1.50,"nested":{"a":[true,"\u2028"]},"e":{}})").as_object();
  result.metadata.set("raw", json::Raw(R"([1, 2])"));
  result.added_tool_names = {"grep", "glob\n"};

  const std::vector<Message> messages = {
      full,
      zero_cost,
      bare,
      result,
      ToolResultMessage{},
      UserMessage{},
      user_text(separators),
      UserMessage{{TextBlock{"hi"}, ImageBlock{"image/gif", ""}}, at_ms(1)}};
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::string tree = json::dump(to_json(messages[i]));
    INFO("message " << i << ": " << tree);
    CHECK(direct_text(messages[i]) == tree);
  }
  // What the comparison stands on: the separators are escaped (the text is also JavaScript),
  // the canonical arguments are the model's bytes, the others travel as input_raw.
  const std::string text = direct_text(full);
  CHECK(text.find("line\\u2028para\\u2029end") != std::string::npos);
  CHECK(text.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(text.find(R"("input":{"path":"a.txt","n":1.50})") != std::string::npos);
  CHECK(text.find(R"("input_raw":"{\"path\": \"spaced\"}")") != std::string::npos);
  CHECK(text.find(R"("signature":"EqQBCkYIBxgCKkB+/zX9==")") != std::string::npos);
  CHECK(text.find(R"("cost":{"input":0.0036,"output":0.0012,"cache_write":)") != std::string::npos);
  CHECK(direct_text(zero_cost).find("cost") == std::string::npos);
  CHECK(direct_text(bare) == R"({"role":"assistant","content":[],"stop_reason":"stop"})");
  CHECK(direct_text(result).find(R"("raw":[1, 2])") != std::string::npos);
}

TEST_CASE(
    "the direct text encoder decides input or input_raw as the tree does, for every "
    "one-byte change of real arguments") {
  // The direct encoder answers the common arguments without a parser; the tree encoder always
  // asks the parser. Each edge of the quick answer, then every one-byte change of typical
  // arguments.
  std::vector<std::string> inputs = {"{}",
                                     "[]",
                                     "{\"a\":1,\"a\":2}",
                                     "{\"a\":{\"a\":1},\"b\":[{\"a\":1,\"b\":2}]}",
                                     "{\"a\":1,\"b\":{\"c\":1,\"c\":2}}",
                                     " {}",
                                     "{} ",
                                     "{\"a\" :1}",
                                     "{\"a\":\"\\n\"}",
                                     "{\"a\":\"\\u00e9\"}",
                                     "{\"a\":\"\xC3\xA9\"}",
                                     "{\"a\":\"\xE2\x80\xA8\"}",
                                     "{\"a\":\"\\/\"}",
                                     "-0",
                                     "1E5",
                                     "1e+5",
                                     "01",
                                     "1.",
                                     "2e",
                                     ".5",
                                     "tru",
                                     "nul",
                                     "\"x\"",
                                     "\"\"",
                                     "12.50",
                                     "",
                                     "{}x",
                                     "[1,]",
                                     "{\"a\":}",
                                     "{\"a\"}",
                                     "[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]",
                                     "{\"\x7f\":true}"};
  std::string many_keys = "{";
  for (int i = 0; i < 70; ++i) many_keys += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + "0";
  inputs.push_back(many_keys + "}");
  inputs.push_back("[\"" + std::string(17 * 1024, 'x') + "\"]");
  const std::vector<std::string> typical = {
      R"({"path":"src/main.cpp","offset":120,"limit":-2.5e3,"recursive":true,"glob":null})",
      R"({"command":"ls -la","env":{"A":"1","B":[1,2,{"c":false}]},"timeout_ms":30000})"};
  for (const std::string& t : typical) {
    inputs.push_back(t);
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (const char c : std::string("{}[]\",:\\ 0-.eE+tfn\x01\xC3x")) {
        std::string changed = t;
        changed[i] = c;
        inputs.push_back(changed);
      }
      inputs.push_back(t.substr(0, i) + t.substr(i + 1));
    }
  }
  for (const std::string& input : inputs) {
    AssistantMessage reply;
    reply.content.push_back(call(input));
    const Message m = reply;
    INFO("arguments: " << input.substr(0, 200));
    REQUIRE(direct_text(m) == json::dump(to_json(m)));
  }
}

TEST_CASE("the direct text encoder appends to what the buffer already holds") {
  std::string out = "prefix:";
  append_json_text(out, user_text("hi"));
  CHECK(out == R"(prefix:{"role":"user","content":[{"type":"text","text":"hi"}]})");
}

// ---- Events --------------------------------------------------------------------------------------

TEST_CASE("event names are stable snake_case, one per event type") {
  const std::vector<Event> events = {
      AgentStartEvent{},
      AgentEndEvent{},
      TurnStartEvent{},
      TurnEndEvent{},
      UserMessageEvent{},
      MessageStartEvent{},
      MessageUpdateEvent{},
      MessageEndEvent{},
      BlockStartEvent{},
      TextDeltaEvent{},
      ThinkingDeltaEvent{},
      ToolArgumentsDeltaEvent{},
      BlockEndEvent{},
      ToolExecutionStartEvent{},
      ToolExecutionUpdateEvent{},
      ToolExecutionEndEvent{},
      CacheEvent{},
      ErrorEvent{},
      ToolLogEvent{},
      SubagentEvent{},
      CompactionStartEvent{},
      CompactionEndEvent{},
  };
  // A new event type must be added here (and to the golden list) on purpose.
  STATIC_REQUIRE(std::variant_size_v<Event> == 22);
  std::vector<std::string> names;
  for (const Event& e : events) names.emplace_back(event_name(e));
  CHECK(names == std::vector<std::string>{"agent_start",
                                          "agent_end",
                                          "turn_start",
                                          "turn_end",
                                          "user_message",
                                          "message_start",
                                          "message_update",
                                          "message_end",
                                          "block_start",
                                          "text_delta",
                                          "thinking_delta",
                                          "tool_arguments_delta",
                                          "block_end",
                                          "tool_execution_start",
                                          "tool_execution_update",
                                          "tool_execution_end",
                                          "cache",
                                          "error",
                                          "tool_log",
                                          "subagent",
                                          "compaction_start",
                                          "compaction_end"});
  for (const Event& e : events) CHECK(to_json(e).find("type")->as_string() == event_name(e));
}

TEST_CASE("an event's JSON form puts the type first and uses the message codec") {
  CHECK(json::dump(to_json(TextDeltaEvent{2, "he"})) == R"({"type":"text_delta","block_index":2,"delta":"he"})");
  TurnEndEvent turn;
  turn.turn_index = 1;
  CHECK(json::dump(to_json(turn)) ==
        R"({"type":"turn_end","turn_index":1,"message":{"role":"assistant","content":[],"stop_reason":"stop"},)"
        R"("tool_results":[]})");
  CHECK(json::dump(to_json(BlockEndEvent{0, call(R"({"a":1})")})) ==
        R"({"type":"block_end","block_index":0,"block":{"type":"tool_use","id":"call_1","name":"read_file","input":{"a":1}}})");
  CHECK(json::dump(to_json(BlockStartEvent{3, BlockKind::tool_use, "c", "grep"})) ==
        R"({"type":"block_start","block_index":3,"kind":"tool_use","tool_use_id":"c","tool_name":"grep"})");
  ToolExecutionEndEvent end;
  end.tool_use_id = "c";
  end.tool_name = "grep";
  end.elapsed = std::chrono::milliseconds(42);
  CHECK(json::dump(to_json(end)) == R"({"type":"tool_execution_end","tool_use_id":"c","tool_name":"grep",)"
                                    R"("result":{"role":"tool_result","tool_use_id":"","tool_name":"","content":[]},)"
                                    R"("elapsed_ms":42})");
  CHECK(json::dump(to_json(AgentEndEvent{RunStopReason::max_turns, {}, {}, ""})).find(R"("reason":"max_turns")") !=
        std::string::npos);
  CHECK(json::dump(to_json(CacheEvent{true, "ab"})) == R"({"type":"cache","hit":true,"key":"ab"})");
}

TEST_CASE("an error event keeps every detail, repeated keys included") {
  Error e = make_error(Errc::validation_error, "2 violations");
  e.with_detail("path", "$.a").with_detail("path", "$.b");
  CHECK(json::dump(to_json(ErrorEvent{e, true})) ==
        R"({"type":"error","error":{"code":"validation_error","message":"2 violations",)"
        R"("detail":[{"key":"path","value":"$.a"},{"key":"path","value":"$.b"}]},"terminal":true})");
}

TEST_CASE("the approximate size of an event grows with its payload") {
  const std::size_t empty = approximate_size(TextDeltaEvent{});
  CHECK(empty >= sizeof(Event));
  CHECK(approximate_size(TextDeltaEvent{0, std::string(1000, 'x')}) == empty + 1000);
  MessageEndEvent big;
  big.message.content.push_back(TextBlock{std::string(1 << 20, 'x')});
  big.message.content.push_back(call(std::string(1 << 10, ' ')));
  CHECK(approximate_size(big) > (1u << 20) + (1u << 10));
  ToolExecutionStartEvent start;
  start.arguments = parse(R"({"content":")" + std::string(5000, 'y') + R"("})");
  CHECK(approximate_size(start) > 5000);
  TurnEndEvent turn;
  turn.tool_results.resize(3);
  turn.tool_results[2].metadata = json::Object{{"spill", std::string(7000, 'z')}};
  CHECK(approximate_size(turn) > 7000);
}
