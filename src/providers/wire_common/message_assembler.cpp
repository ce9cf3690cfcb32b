#include "message_assembler.hpp"

#include <algorithm>
#include <utility>

namespace agentkit::providers::detail {

MessageAssembler::MessageAssembler(EventSink& sink, AssistantMessage start) : sink_(sink), message_(std::move(start)) {}

void MessageAssembler::start() {
  if (started_) return;
  started_ = true;
  quiet_ = !sink_.consumer_alive();
  if (quiet_) return;
  AssistantMessage header = message_;
  header.content.clear();
  sink_.push(MessageStartEvent{std::move(header)});
}

int MessageAssembler::open(ContentBlock block, BlockKind kind, std::string id, std::string name) {
  start();
  const int index = static_cast<int>(message_.content.size());
  message_.content.push_back(std::move(block));
  open_.push_back(true);
  arguments_.emplace_back();
  if (!quiet_) sink_.push(BlockStartEvent{index, kind, std::move(id), std::move(name)});
  return index;
}

int MessageAssembler::begin_text() { return open(TextBlock{}, BlockKind::text); }

int MessageAssembler::begin_thinking() { return open(ThinkingBlock{}, BlockKind::thinking); }

int MessageAssembler::begin_tool(std::string id, std::string name) {
  ToolUseBlock call;
  call.id = id;
  call.name = name;
  call.input = json::Raw();  // filled by fragments; "{}" only if none arrive
  return open(std::move(call), BlockKind::tool_use, std::move(id), std::move(name));
}

int MessageAssembler::add_opaque(ContentBlock block) {
  start();
  const int index = static_cast<int>(message_.content.size());
  message_.content.push_back(std::move(block));
  open_.push_back(false);
  arguments_.emplace_back();
  return index;
}

void MessageAssembler::text(int block, std::string_view delta) {
  if (delta.empty()) return;
  TextBlock* t = get<TextBlock>(block, "a text delta");
  if (t == nullptr) return;
  t->text += delta;
  if (!quiet_) sink_.push(TextDeltaEvent{block, std::string(delta)});
}

void MessageAssembler::thinking(int block, std::string_view delta) {
  if (delta.empty()) return;
  ThinkingBlock* t = get<ThinkingBlock>(block, "a thinking delta");
  if (t == nullptr) return;
  t->thinking += delta;
  if (!quiet_) sink_.push(ThinkingDeltaEvent{block, std::string(delta)});
}

namespace {
constexpr std::size_t kFirstArgumentsRoom = 512;
}  // namespace

void MessageAssembler::arguments(int block, std::string_view delta) {
  if (delta.empty()) return;
  // Joined exactly as they arrived: no parse, no re-encode (REQ-PROV-17).
  ToolUseBlock* call = get<ToolUseBlock>(block, "a tool-argument delta");
  if (call == nullptr) return;
  std::string& joined = arguments_[static_cast<std::size_t>(block)];
  // Deltas are a few bytes each: doubling from the small-string size would reallocate eight
  // times on the way to a few kilobytes, so the first growth makes room for many. Arguments that
  // fit the string itself ("{}") allocate nothing; settle() drops what is left over.
  const std::size_t needed = joined.size() + delta.size();
  if (needed > joined.capacity() && joined.capacity() < kFirstArgumentsRoom)
    joined.reserve(std::max(kFirstArgumentsRoom, needed));
  joined += delta;
  if (!quiet_) sink_.push(ToolArgumentsDeltaEvent{block, call->id, std::string(delta)});
}

void MessageAssembler::set_signature(int block, std::string signature) {
  if (auto* t = get<ThinkingBlock>(block, "a thinking signature")) t->signature = std::move(signature);
}

void MessageAssembler::set_redacted(int block, std::string data) {
  ThinkingBlock* t = get<ThinkingBlock>(block, "redacted thinking");
  if (t == nullptr) return;
  t->redacted = true;
  t->signature = std::move(data);
}

void MessageAssembler::set_thinking_id(int block, std::string id) {
  if (auto* t = get<ThinkingBlock>(block, "a reasoning id")) t->id = std::move(id);
}

void MessageAssembler::set_tool_id(int block, std::string id) {
  if (auto* call = get<ToolUseBlock>(block, "a tool-call id")) call->id = std::move(id);
}

void MessageAssembler::set_tool_name(int block, std::string name) {
  if (auto* call = get<ToolUseBlock>(block, "a tool name")) call->name = std::move(name);
}

void MessageAssembler::replace_arguments(int block, std::string bytes) {
  if (get<ToolUseBlock>(block, "tool-call arguments") == nullptr) return;
  arguments_[static_cast<std::size_t>(block)] = std::move(bytes);
}

void MessageAssembler::note_violation(int index, std::string_view what) {
  if (violation_) return;
  std::string text = "the reply sent " + std::string(what) + " for content block " + std::to_string(index);
  if (index < 0 || static_cast<std::size_t>(index) >= message_.content.size()) {
    text += ", which was never opened";
  } else if (!is_open(index)) {
    text += ", which had already ended";
  } else {
    text += ", a block of another kind";
  }
  violation_ = std::move(text);
}

namespace {

// A block's bytes grew by doubling as the deltas arrived, so up to half of the buffer can be
// slack; the transcript keeps the reply for the session's life (the agent's loop is handed the
// message, not a copy, and json::Raw shares the arguments' buffer with every copy). One exact
// copy when the slack is over an eighth.
void drop_growth_slack(std::string& bytes) {
  if (bytes.capacity() - bytes.size() > bytes.size() / 8) bytes.shrink_to_fit();
}

}  // namespace

void MessageAssembler::settle(std::size_t index) {
  ContentBlock& block = message_.content[index];
  if (auto* call = std::get_if<ToolUseBlock>(&block)) {
    drop_growth_slack(arguments_[index]);
    call->input = json::Raw(std::move(arguments_[index]));
    arguments_[index].clear();
  } else if (auto* text = std::get_if<TextBlock>(&block)) {
    drop_growth_slack(text->text);
  } else if (auto* thinking = std::get_if<ThinkingBlock>(&block)) {
    drop_growth_slack(thinking->thinking);
  }
}

bool MessageAssembler::is_open(int block) const {
  return block >= 0 && static_cast<std::size_t>(block) < open_.size() && open_[static_cast<std::size_t>(block)];
}

void MessageAssembler::end(int block) {
  if (!is_open(block)) return;
  open_[static_cast<std::size_t>(block)] = false;
  settle(static_cast<std::size_t>(block));
  if (auto* call = std::get_if<ToolUseBlock>(&message_.content[static_cast<std::size_t>(block)])) {
    if (call->input.empty()) call->input = json::Raw("{}");
  }
  if (!quiet_) sink_.push(BlockEndEvent{block, message_.content[static_cast<std::size_t>(block)]});
}

void MessageAssembler::report(Error unsupported) {
  start();
  if (!quiet_) sink_.push(ErrorEvent{std::move(unsupported), false});
}

void MessageAssembler::finish(const std::optional<CallFailure>& failure) {
  start();
  for (std::size_t i = 0; i < open_.size(); ++i) {
    // A call cut short keeps the bytes it had: they are not executed (the message is an error or
    // aborted) and rule 2 of send-time repair keeps them out of later requests.
    if (open_[i]) {
      open_[i] = false;
      settle(i);
      if (!quiet_) sink_.push(BlockEndEvent{static_cast<int>(i), message_.content[i]});
    }
  }
  std::optional<CallFailure> ending = failure;
  if (!ending && violation_) ending = CallFailure{.stop_reason = StopReason::error, .message = *violation_, .http_status = std::nullopt, .code = Errc::protocol_error};
  if (ending) {
    apply_failure(message_, *ending);
    std::string text = ending->message.empty() ? std::string("the call was cancelled") : ending->message;
    if (!quiet_) sink_.push(ErrorEvent{make_error(ending->code, std::move(text)), true});
  }
  sink_.finish(std::move(message_), !quiet_);
}

}  // namespace agentkit::providers::detail
