// The lossless message codec on arbitrary JSON. Whatever message_from_json accepts must come
// back identical through to_json, both in memory and through the JSON text a session log holds,
// and the direct text encoder (what the log writes) must write exactly json::dump of the tree;
// any bytes as a tool call's arguments must be written the same both ways (the direct encoder's
// quick canonical check against the parser's); the block and usage decoders and the event
// encoders must not crash on anything.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"

using namespace agentkit;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

constexpr json::ParseOptions kParseOptions{.max_bytes = 1 << 16, .max_depth = 128};

void check_message(const json::Value& doc) {
  const Result<Message> m = message_from_json(doc);
  if (!m) {
    require(m.error().find_detail("path").has_value());
    return;
  }
  const json::Value encoded = to_json(*m);
  std::string direct;
  append_json_text(direct, *m);
  require(direct == json::dump(encoded));
  const Result<Message> in_memory = message_from_json(encoded);
  require(in_memory.has_value() && *in_memory == *m);
  const Result<json::Value> reread = json::parse(json::dump(encoded));
  require(reread.has_value());
  const Result<Message> through_text = message_from_json(*reread);
  require(through_text.has_value() && *through_text == *m);
  if (const auto* assistant = std::get_if<AssistantMessage>(&*m)) {
    const Event end = MessageEndEvent{*assistant};
    require(approximate_size(end) >= sizeof(Event));
    require(to_json(end).find("type") != nullptr);
  }
}

void check_block(const json::Value& doc) {
  const Result<ContentBlock> b = content_block_from_json(doc);
  if (!b) return;
  const Result<json::Value> reread = json::parse(json::dump(to_json(*b)));
  require(reread.has_value());
  const Result<ContentBlock> again = content_block_from_json(*reread);
  require(again.has_value() && *again == *b);
  require(approximate_size(BlockEndEvent{0, *b}) >= sizeof(Event));
}

void check_usage(const json::Value& doc) {
  const Result<Usage> u = usage_from_json(doc);
  if (!u) return;
  const Result<Usage> again = usage_from_json(to_json(*u));
  require(again.has_value() && *again == *u);
}

}  // namespace

// The bytes as a tool call's arguments: "input" verbatim or "input_raw", the same decision both
// ways.
void check_arguments(std::string_view bytes) {
  AssistantMessage m;
  m.content.push_back(ToolUseBlock{"call_1", "f", json::Raw(std::string(bytes)), ""});
  std::string direct;
  append_json_text(direct, m);
  require(direct == json::dump(to_json(Message(m))));
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_arguments(input);
  const Result<json::Value> doc = json::parse(input, kParseOptions);
  if (!doc) return 0;
  check_message(*doc);
  check_block(*doc);
  check_usage(*doc);
  return 0;
}
