// Send-time repair (REQ-PROV-11) on any damaged transcript: the view is always sendable (every
// tool use answered in its run, no orphan or duplicate result, no failed turn, no empty message,
// no two user messages in a row, no image for a text-only model, other models' ids in the target's
// format), the history is never touched, and repairing the view again changes nothing.
//
// Input bytes are a little program: each byte picks what comes next (a user message, an assistant
// turn from one of three models with some stop reason and blocks, a tool result for an id from a
// small colliding pool), so the fuzzer explores orderings rather than JSON syntax.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "agentkit/providers/repair.hpp"
#include "providers/repair_invariants.hpp"
#include "providers/repair_resume.hpp"

namespace {

using namespace agentkit;

// Ids that collide after sanitising, are too long, contain separators, or are empty.
const char* const kIds[] = {"call_0", "call.0", "call:0", "toolu_1", "fc_1|item_2", "", "a b", "x",
                            "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"};
constexpr std::size_t kIdCount = sizeof(kIds) / sizeof(kIds[0]);
constexpr std::size_t kMaxMessages = 64;
constexpr std::size_t kMaxBlocks = 6;

struct ModelRow {
  const char* vendor;
  const char* api;
  const char* id;
};
const ModelRow kModels[] = {{"anthropic", "anthropic-messages", "claude-sonnet-5-5"},
                            {"openai", "openai-responses", "gpt-6.2-sol"},
                            {"google", "google-generative-ai", "gemini-4-argon"}};

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

void require(bool ok) {
  if (!ok) std::abort();
}

ContentBlock user_block(Bytes& in) {
  switch (in.next() % 3) {
    case 0: return TextBlock{"text"};
    case 1: return ImageBlock{"image/png", "iVBORw0KGgo="};
    default: return TextBlock{""};
  }
}

ContentBlock assistant_block(Bytes& in) {
  std::uint8_t b = in.next();
  switch (b % 6) {
    case 0: return TextBlock{"answer"};
    case 1: return ThinkingBlock{"thought", "signature", false, ""};
    case 2: return ThinkingBlock{(b & 0x40) ? "unsigned" : "", "", false, ""};
    case 3: return ThinkingBlock{"", (b & 0x40) ? "encrypted" : "", true, ""};
    case 4: return ImageBlock{"image/png", "iVBORw0KGgo="};
    default: {
      ToolUseBlock u{kIds[in.next() % kIdCount], "tool", json::Raw("{}"), (b & 0x40) ? "thought-sig" : ""};
      return u;
    }
  }
}

Message make_message(Bytes& in) {
  std::uint8_t op = in.next();
  switch (op % 4) {
    case 0: {
      UserMessage u;
      for (std::size_t n = in.next() % 3; n > 0; --n) u.content.push_back(user_block(in));
      return u;
    }
    case 1:
    case 2: {
      const ModelRow& m = kModels[in.next() % 3];
      AssistantMessage a;
      a.provider = m.vendor;
      a.api = m.api;
      a.model = m.id;
      constexpr StopReason kReasons[] = {StopReason::stop, StopReason::tool_use, StopReason::error, StopReason::aborted,
                                         StopReason::length};
      a.stop_reason = kReasons[in.next() % 5];
      for (std::size_t n = in.next() % kMaxBlocks; n > 0; --n) a.content.push_back(assistant_block(in));
      return a;
    }
    default: {
      ToolResultMessage r;
      r.tool_use_id = kIds[in.next() % kIdCount];
      r.tool_name = "tool";
      r.content.push_back(TextBlock{"result"});
      if (op & 0x80) r.content.push_back(ImageBlock{"image/png", "iVBORw0KGgo="});
      return r;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  std::uint8_t head = in.next();
  const ModelRow& row = kModels[head % 3];
  Model target;
  target.vendor = row.vendor;
  target.api = row.api;
  target.id = row.id;
  target.image_input = (head & 0x10) != 0;
  std::vector<Message> history;
  while (!in.empty() && history.size() < kMaxMessages) history.push_back(make_message(in));
  const std::vector<Message> before = history;

  providers::TranscriptView view = providers::repair_for_send(history, target);
  require(history == before);  // the stored transcript is never touched
  require(agentkit::testing::view_problems(view.messages(), target).empty());
  if (!view.copied()) require(view.messages().data() == history.data());
  require(agentkit::testing::unchanged_prefix_holds(history, view));

  // Grown one message at a time, each build started at the previous one's clean point, the
  // history's view is the one built from the start (what a wire does under the loop's promise).
  std::size_t clean = 0;
  for (std::size_t n = 1; n <= history.size(); ++n) {
    const std::span<const Message> grown(history.data(), n);
    std::size_t ignored = 0;
    std::size_t next = 0;
    providers::TranscriptView whole =
        providers::detail::TranscriptViewAccess::repair(grown, target, 0, ignored);
    providers::TranscriptView resumed =
        providers::detail::TranscriptViewAccess::repair(grown, target, clean, next);
    require(whole.copied() == resumed.copied() && whole.report() == resumed.report() &&
            whole.unchanged_prefix() == resumed.unchanged_prefix());
    require(std::equal(whole.messages().begin(), whole.messages().end(), resumed.messages().begin(),
                       resumed.messages().end()));
    require(next >= clean && next <= n);
    clean = next;
  }

  const std::vector<Message> once(view.messages().begin(), view.messages().end());
  providers::TranscriptView again = providers::repair_for_send(once, target);
  require(!again.copied());  // a sendable view needs nothing more
  return 0;
}
