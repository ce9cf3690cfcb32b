// Encoding that does not grow with history: per session, a wire keeps the wire items it encoded
// for the leading messages of the last request's view, and the next request encodes only what
// follows them. The transcript is append-only between compactions, so a steady-state request
// encodes just the messages added since the last one.
//
//   EncodedHistory::Wire wire{.closed = responses_closed, .encode = encode_items};
//   std::string body = R"({"model":"m","input":)";
//   history_.append_array(request.session_id, context, view, wire, body, meter);   // "[...]"
//
// Why it stays equal to a fresh encode. Every wire encodes a message from that message alone,
// except inside a group of neighbours it merges (a run of tool results, a user message folded into
// the run before it, Gemini's same-role contents). `Wire::closed(before, after)` says whether a
// boundary between two messages is outside every such group; the view is cut at closed boundaries
// into segments, and the items of a segment encoded alone are exactly its items in the whole
// encoding. A kept prefix is reused only up to a boundary that was a segment boundary when it was
// encoded and is closed in the new view; the messages before it must be equal to the ones
// encoded, and `context` (model, wire options, the tools re-declared after results) must be equal
// too. Equal is known one of two ways:
//   - promised: the request carries the loop's promise (Request::history_serial) that its
//     messages only grow, and the message lies in the part of the view that send-time repair left
//     as the history's own (TranscriptView::unchanged_prefix) both now and when it was encoded.
//     Nothing is compared and no copy is kept: a steady-state request reads no old message;
//   - compared: every other kept message is held as a copy (kept_copy) and compared
//     (same_for_encoding: every field an encoder reads, compared, never hashed).
// A compaction (a new serial), a branch switch or resumed session (a new serial), a model change
// (the context) or a repair that rewrites a sent message (outside the unchanged prefix, so
// compared) fails one of those checks and re-encodes from the first difference.
// The last segment is always encoded fresh, so a wire may mark it (Anthropic's rolling breakpoint)
// without the mark entering the kept bytes.
//
// Where the kept bytes live. Between requests an entry holds them in one string, either its own
// copy or the body it last sent. A request made through the stream path lends them (HistoryLend):
// the body is built with a copy of them, the entry lets its own string go, and the pipeline gives
// the body back when the call is over (give_back), so a request in flight holds the history's
// bytes once, in its body, instead of twice. Until the body is back the entry has no bytes, and a
// request of the session encodes whole; a body that never comes back costs one whole encode.
//
// Thread safety: safe for concurrent use. An entry is taken out of the table while a request of
// its session is encoded; a concurrent request of the same session encodes from scratch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/cache.hpp"

namespace agentkit::providers::detail {

// A long string an item writes that the transcript already holds (a call's arguments, shared
// through json::Raw): the kept history and a body waiting for its answer hold a reference to it
// instead of its bytes, and write it again where they need them (write_splice). `length`: how
// long its written form is. `at`: in a segment's items, where that form lies; in a list of
// splices cut out of bytes (an entry's kept text, a lent body), where it goes back in, counted
// in the bytes without any of the list's splices.
struct Splice {
  std::size_t at = 0;
  std::size_t length = 0;
  json::Raw bytes;
  bool quoted = true;  // written as a JSON string (escaped); false: the bytes verbatim
};
// Strings shorter than this are kept as bytes: a reference costs more than they do.
inline constexpr std::size_t kSpliceFromBytes = 256;
// Appends the splice's written form to `out`.
void write_splice(std::string& out, const Splice& splice);
// Appends `shared`'s bytes verbatim (a call's arguments on the wires that send them as a JSON
// object: Anthropic, Gemini, Ollama), recording a long one in `splices` when given, at its offset
// in `out` (the segment's items).
void append_shared_raw(std::string& out, const json::Raw& shared, std::vector<Splice>* splices);
// A call's arguments where the wire wants a JSON object (Gemini's args, Ollama's arguments): the
// bytes the model produced, unchanged (REQ-PROV-17), through append_shared_raw. Anything else (a
// call cut off by the output limit, another wire's non-object arguments) cannot be expressed and
// is written as {}; that call's result already says it failed.
void append_object_arguments(std::string& out, const ToolUseBlock& call,
                             std::vector<Splice>* splices);
// Takes the splices' written forms out of `bytes` from `from` on (their `at` relative to
// `from`, counted without them, in order), in place, and gives back the memory they took.
void cut_splices(std::string& bytes, std::size_t from, std::span<const Splice> splices);
// The inverse of cut_splices: `bytes` as it was before the cut.
std::string restore_splices(std::string_view bytes, std::size_t from,
                            std::span<const Splice> splices);
// Appends `cut` (bytes the splices were taken out of, their `at` relative to its start) with
// the splices written back in.
void append_restored(std::string& out, std::string_view cut, std::span<const Splice> splices);

// The kept bytes a request's body borrows until the call is over (EncodedHistory::give_back).
struct HistoryLend {
  std::uint64_t lease = 0;  // set by append_array; 0: nothing was lent
  // Where the kept items start in the string append_array wrote into. A wire that puts that
  // string into a larger body adds the string's offset in it; one that rewrites the array after
  // append_array first hands it back (give_back, with `at` made relative to the array) and sets
  // `lease` to 0.
  std::size_t at = 0;
  // The long strings in the array, relative to `at` (counted without them): the body may give
  // up their bytes once it has been written (cut_splices) and must, before it comes back
  // (give_back). The session's entry has none while they are out.
  std::vector<Splice> splices;
};

// The caller's promise about a view (Request::history_serial): under a non-zero `serial`, the
// view's first `prefix` messages are the request's own, and they only ever grow. `lend`, when set,
// asks append_array to lend the kept bytes to the body instead of keeping a copy.
struct HistoryPromise {
  std::uint64_t serial = 0;
  std::size_t prefix = 0;
  HistoryLend* lend = nullptr;
};

class EncodedHistory {
 public:
  struct Segment {
    std::string items;       // the segment's items, each followed by ','
    std::string body_items;  // when not empty: what the body carries instead (last segment only)
    std::vector<Splice> splices;  // long strings in `items` (none in body_items)
  };
  struct Wire {
    // True when no wire item spans the boundary between `before` and `after`.
    std::function<bool(const Message& before, const Message& after)> closed;
    // The items of `segment`; `last` = the segment ends the view.
    std::function<Segment(std::span<const Message> segment, bool last)> encode;
  };

  static constexpr std::size_t kDefaultBudgetBytes = 64 * 1024 * 1024;
  // A body written over the last one grows with an eighth of room from this size on.
  static constexpr std::size_t kBodyRoomFrom = 64 * 1024;

  // `budget_bytes`: the most bytes kept across sessions (PromptCacheOptions::
  // encoded_history_bytes); past it the least recently used sessions' entries are dropped.
  explicit EncodedHistory(bool enabled = true, std::size_t budget_bytes = kDefaultBudgetBytes)
      : enabled_(enabled), budget_bytes_(budget_bytes) {}

  // Appends the JSON array of the items of `view` to `out`. `context` is everything besides the
  // messages that the items depend on. Counts the messages encoded and reused on `meter`.
  // `lead`: items (each followed by ',') that go first in the array, outside the kept bytes.
  // `reserve_after`: bytes the caller appends after the array (the body is sized once).
  // `promise`: what the caller promises about `view` (none by default: every kept message is
  // compared).
  void append_array(std::string_view session, std::string context, std::span<const Message> view,
                    const Wire& wire, std::string& out, CacheMeter& meter,
                    HistoryPromise promise = {}, std::string_view lead = {},
                    std::size_t reserve_after = 0);
  // The body a lending request sent, back from the pipeline: its bytes from `lend.at` on hold the
  // kept items, with `lend.splices` cut out (cut_splices). Ignored unless it is the session's
  // latest lease (an abandoned call's body comes back after its session moved on).
  void give_back(std::string_view session, HistoryLend lend, std::string body);
  // Drops the session's entry (it has closed). A body it lent that comes back later is dropped.
  void forget(std::string_view session);
  // The bytes the table holds, as counted against the budget (for tests).
  std::size_t held_bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
  }

 private:
  struct Entry {
    std::string context;
    std::uint64_t serial = 0;  // the promise the messages were encoded under (0: none)
    std::size_t promised = 0;  // messages [0, promised) are covered by it
    // Copies (kept_copy) of the encoded messages [copies_from, encoded), for the comparison;
    // none of the promised ones.
    std::size_t copies_from = 0;
    std::vector<Message> copies;
    std::vector<std::size_t> ends;  // ends[i]: the message index segment i ends before
    // The segments' items, each followed by ',': segment i < in_text.size() is
    // text[at + (i ? in_text[i - 1] : 0), at + in_text[i]); a last segment past those (the body
    // carried another form of it) is `last_items`. `text` is the entry's own (at = 0) or the body
    // it last sent; empty while lent.
    // Offsets in `text` are of its bytes as kept: the long strings of `splices` cut out (their
    // `at` is where each goes back in, relative to `at`, in order).
    std::string text;
    std::size_t at = 0;
    std::vector<std::size_t> in_text;
    std::vector<Splice> splices;
    std::string last_items;
    // The segments a request adds, between their encoding and the body; empty between requests
    // (kept for its capacity: a request allocates no list of its own).
    std::vector<Segment> added;
    std::uint64_t lease = 0;  // non-zero while the text is out with a request's body
    // The lent text ends the array: in the body its last ',' is the closing ']'.
    bool text_closes_array = false;
    std::size_t bytes = 0;   // what it holds, as counted against the budget
    std::uint64_t used = 0;  // the table's clock at its last use
    std::size_t encoded() const { return ends.empty() ? 0 : ends.back(); }
    std::size_t text_bytes(std::size_t segments) const {
      return segments == 0 ? 0 : in_text[segments - 1];
    }
    void count_bytes() {
      // A splice's string is the transcript's; only the reference is counted.
      bytes = context.capacity() + copies.size() * sizeof(Message) + text.capacity() +
              last_items.capacity() + splices.capacity() * sizeof(Splice);
    }
  };
  struct Kept {
    std::size_t messages = 0;
    std::size_t segments = 0;
  };
  // Ordered, for lookup by string_view and node handles that move an entry out and back in
  // without an allocation.
  using Entries = std::map<std::string, Entry, std::less<>>;
  static Kept reusable(const Entry& entry, std::span<const Message> view, const Wire& wire,
                       HistoryPromise promise);
  static void keep_copies(Entry& entry, std::span<const Message> view, std::size_t kept,
                          std::size_t from);
  // Whether the entry's text is a body given back whose bytes before the kept items are `head`,
  // '[' and `lead`: a new body with that head can be written over it.
  static bool holds_body_for(const Entry& entry, std::string_view head, std::string_view lead,
                             std::size_t text_bytes);
  // How many of `splices` (in order) lie in the first `kept_bytes` of an entry's text.
  static std::size_t splices_within(std::span<const Splice> splices, std::size_t kept_bytes);
  // Appends a segment's items to kept text with their splices cut out, recording them.
  static void append_cut(std::string& own, const Segment& segment,
                         std::vector<Splice>& kept_splices);
  static std::size_t cut_size(const Segment& segment);
  // Reserves room in an entry's splices for those of the added segments.
  static void make_room(std::vector<Splice>& splices, const std::vector<Segment>& added);
  static void forget_text(Entry& entry);
  static void lend_text(Entry& entry, std::size_t from_text, bool kept_apart,
                        std::vector<Segment>& added);
  static void keep_text(Entry& entry, std::size_t from_text, bool kept_apart,
                        const std::vector<Segment>& added);

  // Puts a session's entry (back) into the table, then drops the least recently used others while
  // the table holds more than the budget. Called with mu_ held; `dropped` is destroyed by the
  // caller after the lock is released.
  void place(Entries::node_type node, std::vector<Entries::node_type>& dropped);
  // Drops the least recently used entries but `keep` while the table is over the budget.
  void trim_to_budget(Entries::iterator keep, std::vector<Entries::node_type>& dropped);

  bool enabled_;
  std::size_t budget_bytes_;
  mutable std::mutex mu_;
  Entries entries_;
  std::size_t bytes_ = 0;    // the sum of the entries' bytes
  std::uint64_t clock_ = 0;  // counts uses, for the least recently used order
  std::atomic<std::uint64_t> leases_{0};
};

// The items as a segment: each dumped and followed by ','.
EncodedHistory::Segment dump_items(const json::Array& items);
// The context text of the tools re-declared in prose after tool results (REQ-CACHE-10).
std::string declared_context(
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after);
// The body {head..., "key": <array>, tail...} with the array written in place by `write`: the
// history's bytes go once into the body's own buffer, and so does the tail after it. `write` is
// told about how many bytes follow it (exact for raw bytes such as tool schemas), so it can size
// the buffer once.
std::string object_around(json::Value head, std::string_view key,
                          const std::function<void(std::string&, std::size_t)>& write,
                          json::Value tail);

// Writes an object's members as JSON text in the order given, into a body being built: for the
// head and tail a wire writes around its history every request, where a tree would cost an
// allocation per member, per key past 15 bytes and per copied value (the system prompt), and the
// tools' bytes a copy more, only to be dumped and destroyed.
//
//   std::string body = "{";
//   MemberWriter members(body);
//   members.add("model", model.id);
//   members.add_value("stream", true);
//   body += '}';
class MemberWriter {
 public:
  // `first`: no member precedes the next one written (false: a comma goes before it).
  // `splices`: where add_shared records the long strings it writes (none: not recorded).
  explicit MemberWriter(std::string& out, bool first = true, std::vector<Splice>* splices = nullptr)
      : out_(out), first_(first), splices_(splices) {}
  void add(std::string_view key, std::string_view string_value);   // written as a JSON string
  void add_value(std::string_view key, const json::Value& value);  // dumped
  // add(key, shared.bytes()), recording a long string as a splice (offsets from the start of
  // the string written into).
  void add_shared(std::string_view key, const json::Raw& shared);
  // Writes the key and returns the body, for the caller to append the value's JSON text to.
  std::string& open(std::string_view key);

 private:
  std::string& out_;
  bool first_;
  std::vector<Splice>* splices_;
};

// About the bytes of a segment's items, from what its messages carry, with room for keys,
// punctuation and escapes: a writer sizes its buffer with it once. Not a fixed roomy buffer: a
// request that encodes a whole history holds every segment until the body is built, and 8 KB a
// segment was megabytes of fresh pages for a thousand short messages.
std::size_t segment_bytes_hint(std::span<const Message> segment);

// Raw::valid() without the tree for the usual shape of a call's arguments, one object of scalar
// members, which parse_flat checks whole (its verdicts are json::parse's); any other shape is
// parsed. The wires replay a call's arguments only when they are JSON (REQ-PROV-17).
bool valid_arguments(const json::Raw& arguments);

// Walks `view` in the groups every wire encodes: each user message, each assistant message, and
// each run of consecutive tool results (whose messages the wire writes after the run; `user_next`
// says a user message follows it).
template <class OnUser, class OnAssistant, class OnResults>
void for_each_group(std::span<const Message> view, OnUser&& on_user, OnAssistant&& on_assistant,
                    OnResults&& on_results) {
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      on_user(*user);
      ++i;
    } else if (const auto* assistant = std::get_if<AssistantMessage>(&view[i])) {
      on_assistant(*assistant);
      ++i;
    } else {
      std::size_t end = i;
      while (end < view.size() && std::holds_alternative<ToolResultMessage>(view[end])) ++end;
      on_results(view.subspan(i, end - i),
                 end < view.size() && std::holds_alternative<UserMessage>(view[end]));
      i = end;
    }
  }
}

// Writes a segment's items as JSON text, each followed by ',': an item a wire writes often (a
// call, a result, a message of one text) goes in member by member, with no tree built, copied
// into and dumped; a rarer one is built as a tree and dumped in place (`tree`). Either way its
// bytes are those of dumping its tree.
//
//   std::string items;
//   items.reserve(segment_bytes_hint(segment));
//   ItemWriter out(items);
//   out.message("user", text);                 // {"role":"user","content":"..."},
//   MemberWriter call = out.open();
//   call.add("type", "function_call");
//   out.close();                               // },
class ItemWriter {
 public:
  // `splices`: where the members' add_shared record long strings (none: not recorded).
  explicit ItemWriter(std::string& out, std::vector<Splice>* splices = nullptr)
      : out_(out), splices_(splices) {}
  MemberWriter open() {
    out_ += '{';
    return MemberWriter(out_, true, splices_);
  }
  std::vector<Splice>* splices() const { return splices_; }
  void close() { out_ += "},"; }
  void tree(const json::Value& item) {
    json::dump_to(out_, item);
    out_ += ',';
  }
  // {"role":<role>,"content":<text>}
  void message(std::string_view role, std::string_view text) {
    MemberWriter m = open();
    m.add("role", role);
    m.add("content", text);
    close();
  }
  // A user message: its one text block's bytes as the content, or else the tree `parts` makes of
  // its blocks (the wire's content parts).
  template <class Parts>
  void user(const UserMessage& user_message, Parts&& parts) {
    const std::vector<ContentBlock>& content = user_message.content;
    const auto* lone = content.size() == 1 ? std::get_if<TextBlock>(&content[0]) : nullptr;
    if (lone != nullptr) {
      message("user", lone->text);
    } else {
      tree(json::Object{{"role", "user"}, {"content", parts(content)}});
    }
  }

 private:
  std::string& out_;
  std::vector<Splice>* splices_;
};

// The text of a run of text blocks, as the wires join them into one message: a lone block's own
// bytes (the usual case, no copy), several joined. `view()` is empty for an empty run.
class TextRun {
 public:
  void add(const std::string& text) {
    if (lone_ == nullptr && joined_.empty()) {
      lone_ = &text;
      return;
    }
    if (lone_ != nullptr) joined_ = *lone_;
    lone_ = nullptr;
    joined_ += text;
  }
  std::string_view view() const {
    return lone_ != nullptr ? std::string_view(*lone_) : std::string_view(joined_);
  }
  void clear() {
    lone_ = nullptr;
    joined_.clear();
  }

 private:
  const std::string* lone_ = nullptr;
  std::string joined_;
};

// What an encoder reads of a message: all of it but an assistant message's usage, every
// timestamp and a tool result's metadata (figures for people, never sent). The reuse check
// compares only this, and an entry keeps only this (kept_copy). An encoder that starts reading
// another field must add it here.
bool same_for_encoding(const Message& a, const Message& b);
Message kept_copy(const Message& m);

// Cheap predicates for the usual groups: a run of tool results; and a run with the user message
// that follows it.
bool splits_result_runs(const Message& before, const Message& after);
bool splits_result_runs_and_following_user(const Message& before, const Message& after);

}  // namespace agentkit::providers::detail
