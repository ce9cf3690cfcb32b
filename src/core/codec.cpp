// The lossless JSON codec of message.hpp and the event names, JSON form and size estimate of
// event.hpp.
//
// Shapes (docs: core codec section):
//   block    {"type":"text","text":...}
//            {"type":"thinking","thinking":...,"signature"?,"redacted"?,"id"?}
//            {"type":"tool_use","id":...,"name":...,"input":<bytes verbatim> | "input_raw":"...",
//             "thought_signature"?}
//            {"type":"image","mime_type":...,"data":<base64>}
//            {"type":"unknown","block_type"?:...,"raw"?:<kept verbatim>}
//   message  {"role":"user","content":[...],"timestamp"?}
//            {"role":"assistant","content":[...],"stop_reason":...,"raw_stop_reason"?,
//             "error_message"?,"usage"?,"timestamp"?,"provider"?,"api"?,"model"?,
//             "response_model"?,"response_id"?}
//            {"role":"tool_result","tool_use_id":...,"tool_name":...,"content":[...],
//             "is_error"?,"timestamp"?,"metadata"?,"added_tool_names"?}
//   usage    {"input_tokens","output_tokens","cache_read_tokens","cache_write_tokens",
//             "cache_write_1h_tokens","reasoning_tokens","cost"?:{...non-zero parts},"billed_model"?}
// "?" members are omitted when empty, false or zero. Timestamps are integer milliseconds since the
// Unix epoch (finer precision is floored away). Tool-call input is emitted as the model's bytes
// (a json::Raw) when they are exactly the compact JSON text json::dump would write for them; any
// other bytes — truncated, pretty-printed, escaped differently — travel as the string
// "input_raw". Either way the bytes survive dump -> parse -> decode exactly, and the encoded text
// never holds a raw newline, so one message always fits one line of a line-per-record file.
//
// Decoding ignores members it does not know (forward compatibility) and treats an absent member
// as its default, but a known member of the wrong type is an error naming its path
// ("$.content[2].text: expected a string, got number"). A block "type" this build does not know
// becomes an UnknownBlock holding the whole block.
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"

namespace agentkit {

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// ---- Encoding ---------------------------------------------------------------------------------

inline void put_members(json::Object&) {}
template <class V, class... Rest>
void put_members(json::Object& o, std::string_view key, V&& value, Rest&&... rest) {
  o.append_unique(std::string(key), json::Value(std::forward<V>(value)));
  put_members(o, std::forward<Rest>(rest)...);
}

// An object from (key, value) arguments with distinct keys, each value moved in once. Object's
// initializer_list constructor copies every member (a message's whole content array included)
// and looks each key up again; the session log encodes every message with these.
template <class... Args>
json::Object members(Args&&... args) {
  json::Object o;
  o.reserve(sizeof...(Args) / 2 + 4);  // room for the optional members the encoders append
  put_members(o, std::forward<Args>(args)...);
  return o;
}

std::int64_t epoch_milliseconds(Timestamp t) noexcept {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

void put_string_if(json::Object& o, std::string_view key, const std::string& value) {
  if (!value.empty()) o.append_unique(std::string(key), value);
}

void put_timestamp_if(json::Object& o, Timestamp t) {
  if (const std::int64_t ms = epoch_milliseconds(t); ms != 0) o.append_unique("timestamp", ms);
}

// True when `bytes` are one JSON document written exactly as json::dump writes it, so that
// emitting them verbatim and reading them back through a parser reproduces them.
bool is_compact_canonical_json(std::string_view bytes) {
  Result<json::Value> parsed = json::parse(bytes);
  return parsed && json::dump(*parsed) == bytes;
}

// What the quick look at tool arguments can tell without a parser.
enum class Canonical : std::uint8_t { yes, no, ask_the_parser };

// The common case of is_compact_canonical_json without a tree: arguments as models write them
// (printable ASCII strings without escapes, numbers, literals, no whitespace, no repeated key,
// shallow nesting). Answers `yes` only when json::parse reads the bytes and json::dump writes them
// back the same, `no` only when it cannot; anything unusual (an escape, a byte outside printable
// ASCII, deep nesting, many keys, a long input) is left to the exact check. The direct text
// encoder uses it; the tree encoder keeps the exact check, so the codec test comparing the two
// also checks this answer.
class CanonicalScan {
 public:
  explicit CanonicalScan(std::string_view bytes)
      : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  Canonical run() {
    if (p_ == end_ || end_ - p_ > kLongestInput) return Canonical::ask_the_parser;
    if (!value(0)) return give_up_;
    return p_ == end_ ? Canonical::yes : Canonical::ask_the_parser;
  }

 private:
  static constexpr std::ptrdiff_t kLongestInput = 16 * 1024;
  static constexpr int kDeepest = 16;
  static constexpr std::size_t kMostKeys = 64;  // open objects' keys held at once

  bool ask() {
    give_up_ = Canonical::ask_the_parser;
    return false;
  }
  bool at(char c) const { return p_ != end_ && *p_ == c; }
  // Steps past the closing byte of a container or string.
  bool close() {
    ++p_;
    return true;
  }

  bool value(int depth) {
    if (p_ == end_) return ask();
    switch (*p_) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  bool object(int depth) {
    if (depth > kDeepest) return ask();
    ++p_;
    if (at('}')) return close();
    const std::size_t first_key = key_count_;
    for (;;) {
      const char* key_start = p_;
      if (!at('"') || !string()) return ask();
      const std::string_view key(key_start, static_cast<std::size_t>(p_ - key_start));
      // Plain ASCII keys are their own text: equal bytes are equal keys. json::parse refuses a
      // repeated key, so the input cannot be canonical.
      for (std::size_t i = first_key; i < key_count_; ++i) {
        if (std::string_view(key_begin_[i], key_size_[i]) == key) {
          give_up_ = Canonical::no;
          return false;
        }
      }
      if (key_count_ == kMostKeys) return ask();
      key_begin_[key_count_] = key.data();
      key_size_[key_count_++] = key.size();
      if (!at(':')) return ask();
      ++p_;
      if (!value(depth)) return false;
      if (at('}')) break;
      if (!at(',')) return ask();
      ++p_;
    }
    key_count_ = first_key;
    return close();
  }

  bool array(int depth) {
    if (depth > kDeepest) return ask();
    ++p_;
    if (at(']')) return close();
    for (;;) {
      if (!value(depth)) return false;
      if (at(']')) return close();
      if (!at(',')) return ask();
      ++p_;
    }
  }

  // Printable ASCII without a backslash: the bytes are the string's text, and dump writes them
  // so (a quote would have ended it; controls, escapes and other bytes are the parser's).
  bool string() {
    for (++p_; p_ != end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') return close();
      if (c < 0x20 || c >= 0x80 || c == '\\') return ask();
    }
    return ask();
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::string_view(p_, word.size()) != word) {
      return ask();
    }
    p_ += word.size();
    return true;
  }

  // RFC 8259's grammar, which json::parse keeps as written and json::dump writes back.
  bool number() {
    const auto digit = [this] { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; };
    if (at('-')) ++p_;
    if (!digit()) return ask();
    if (at('0')) {
      ++p_;
    } else {
      while (digit()) ++p_;
    }
    if (at('.')) {
      ++p_;
      if (!digit()) return ask();
      while (digit()) ++p_;
    }
    if (at('e') || at('E')) {
      ++p_;
      if (at('+') || at('-')) ++p_;
      if (!digit()) return ask();
      while (digit()) ++p_;
    }
    return true;
  }

  const char* p_;
  const char* end_;
  Canonical give_up_ = Canonical::ask_the_parser;
  // The keys of the objects open around p_, innermost last (written before they are read).
  const char* key_begin_[kMostKeys];
  std::size_t key_size_[kMostKeys];
  std::size_t key_count_ = 0;
};

// is_compact_canonical_json, the common case answered without a tree.
bool is_compact_canonical_json_fast(std::string_view bytes) {
  switch (CanonicalScan(bytes).run()) {
    case Canonical::yes: return true;
    case Canonical::no: return false;
    case Canonical::ask_the_parser: return is_compact_canonical_json(bytes);
  }
  return is_compact_canonical_json(bytes);
}

json::Array encode_content(const std::vector<ContentBlock>& content) {
  json::Array out;
  out.reserve(content.size());
  for (const ContentBlock& block : content) out.push_back(to_json(block));
  return out;
}

json::Value encode_text(const TextBlock& b) { return members("type", "text", "text", b.text); }

json::Value encode_thinking(const ThinkingBlock& b) {
  json::Object o = members("type", "thinking", "thinking", b.thinking);
  put_string_if(o, "signature", b.signature);
  if (b.redacted) o.append_unique("redacted", true);
  put_string_if(o, "id", b.id);
  return o;
}

json::Value encode_tool_use(const ToolUseBlock& b) {
  json::Object o = members("type", "tool_use", "id", b.id, "name", b.name);
  if (is_compact_canonical_json(b.input.bytes())) {
    o.append_unique("input", b.input);  // the model's bytes, dumped verbatim (REQ-PROV-17)
  } else {
    o.append_unique("input_raw", b.input.str());
  }
  put_string_if(o, "thought_signature", b.thought_signature);
  return o;
}

json::Value encode_image(const ImageBlock& b) {
  return members("type", "image", "mime_type", b.mime_type, "data", b.data_base64);
}

json::Value encode_unknown(const UnknownBlock& b) {
  json::Object o{{"type", "unknown"}};
  put_string_if(o, "block_type", b.type);
  if (!b.raw.is_null()) o.append_unique("raw", b.raw);
  return o;
}

json::Value encode_user(const UserMessage& m) {
  json::Object o = members("role", "user", "content", encode_content(m.content));
  put_timestamp_if(o, m.timestamp);
  return o;
}

json::Value encode_assistant(const AssistantMessage& m) {
  json::Object o = members("role", "assistant", "content", encode_content(m.content), "stop_reason",
                           to_string(m.stop_reason));
  put_string_if(o, "raw_stop_reason", m.raw_stop_reason);
  put_string_if(o, "error_message", m.error_message);
  if (m.usage != Usage{}) o.append_unique("usage", to_json(m.usage));
  put_timestamp_if(o, m.timestamp);
  put_string_if(o, "provider", m.provider);
  put_string_if(o, "api", m.api);
  put_string_if(o, "model", m.model);
  put_string_if(o, "response_model", m.response_model);
  put_string_if(o, "response_id", m.response_id);
  return o;
}

json::Value encode_tool_result(const ToolResultMessage& m) {
  json::Object o = members("role", "tool_result", "tool_use_id", m.tool_use_id, "tool_name",
                           m.tool_name, "content", encode_content(m.content));
  if (m.is_error) o.append_unique("is_error", true);
  put_timestamp_if(o, m.timestamp);
  if (!m.metadata.empty()) o.append_unique("metadata", m.metadata);
  if (!m.added_tool_names.empty()) {
    json::Array names(m.added_tool_names.begin(), m.added_tool_names.end());
    o.append_unique("added_tool_names", std::move(names));
  }
  return o;
}

// A cost part is written only when it is a non-zero finite amount: JSON cannot carry NaN or
// infinity, and a zero is the default a reader assumes.
void put_amount_if(json::Object& o, std::string_view key, double amount) {
  if (amount != 0 && std::isfinite(amount)) o.append_unique(std::string(key), amount);
}

json::Value encode_cost(const Cost& c) {
  json::Object o;
  put_amount_if(o, "input", c.input);
  put_amount_if(o, "output", c.output);
  put_amount_if(o, "cache_read", c.cache_read);
  put_amount_if(o, "cache_write", c.cache_write);
  put_amount_if(o, "total", c.total);
  return o;
}

// ---- Encoding straight to text ---------------------------------------------------------------
// The shapes above written directly as compact JSON text, byte for byte what json::dump of the
// tree gives, without building the tree: the session log writes every message this way, and the
// tree costs more than the text. Member order, the omission rules and the choice between
// "input" and "input_raw" mirror the tree encoders line for line; a change to one is a change
// to both, and the codec test comparing the two over every block kind is the guard.

// A member's key as written after an earlier member, `,"name":`, made at compile time from the
// name (this file's constants: plain ASCII that needs no escaping), so writing it is one append.
class Key {
 public:
  template <std::size_t N>
  consteval Key(const char (&name)[N]) : size_(N - 1 + kPunctuation) {  // NOLINT: implicit
    static_assert(N - 1 <= kLongestName, "raise kLongestName");
    text_[0] = ',';
    text_[1] = '"';
    for (std::size_t i = 0; i + 1 < N; ++i) text_[i + 2] = name[i];
    text_[N + 1] = '"';
    text_[N + 2] = ':';
  }
  std::string_view text() const noexcept { return {text_, size_}; }

 private:
  static constexpr std::size_t kLongestName = 24;  // "cache_write_1h_tokens" and room
  static constexpr std::size_t kPunctuation = 4;   // , " " :
  char text_[kLongestName + kPunctuation] = {};
  std::size_t size_;
};

using std::string_view_literals::operator""sv;  // a literal's length known at compile time

void text_key(std::string& out, Key key) { out += key.text(); }

void text_string(std::string& out, Key key, std::string_view value) {
  text_key(out, key);
  json::append_quoted(out, value);
}

void text_string_if(std::string& out, Key key, const std::string& value) {
  if (!value.empty()) text_string(out, key, value);
}

// The decimal digits json::Value writes for an integer (std::to_chars, as the tree does).
void text_digits(std::string& out, std::int64_t n) {
  constexpr std::size_t kInt64Chars = 20;  // 19 digits and a sign
  char digits[kInt64Chars];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, static_cast<std::size_t>(end - digits));
}

void text_integer(std::string& out, Key key, std::int64_t n) {
  text_key(out, key);
  text_digits(out, n);
}

void text_timestamp_if(std::string& out, Timestamp t) {
  if (const std::int64_t ms = epoch_milliseconds(t); ms != 0) text_integer(out, "timestamp", ms);
}

// An enumerator's name: plain ASCII, quoted as it is.
void text_name(std::string& out, Key key, std::string_view name) {
  text_key(out, key);
  out += '"';
  out += name;
  out += '"';
}

// The members of an object as json::dump writes them, braces included.
void text_object(std::string& out, const json::Object& object) {
  char separator = '{';
  for (const json::Member& m : object) {
    out += separator;
    separator = ',';
    json::append_quoted(out, m.key);
    out += ':';
    json::dump_to(out, m.value);
  }
  if (separator == '{') out += '{';
  out += '}';
}

void text_block(std::string& out, const ContentBlock& block);

void text_content(std::string& out, const std::vector<ContentBlock>& content) {
  text_key(out, "content");
  out += '[';
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (i != 0) out += ',';
    text_block(out, content[i]);
  }
  out += ']';
}

void text_block(std::string& out, const ContentBlock& block) {
  std::visit(Overloaded{
                 [&](const TextBlock& b) {
                   out += R"({"type":"text")"sv;
                   text_string(out, "text", b.text);
                 },
                 [&](const ThinkingBlock& b) {
                   out += R"({"type":"thinking")"sv;
                   text_string(out, "thinking", b.thinking);
                   text_string_if(out, "signature", b.signature);
                   if (b.redacted) out += R"(,"redacted":true)"sv;
                   text_string_if(out, "id", b.id);
                 },
                 [&](const ToolUseBlock& b) {
                   out += R"({"type":"tool_use")"sv;
                   text_string(out, "id", b.id);
                   text_string(out, "name", b.name);
                   if (is_compact_canonical_json_fast(b.input.bytes())) {
                     text_key(out, "input");
                     out += b.input.bytes();
                   } else {
                     text_string(out, "input_raw", b.input.str());
                   }
                   text_string_if(out, "thought_signature", b.thought_signature);
                 },
                 [&](const ImageBlock& b) {
                   out += R"({"type":"image")"sv;
                   text_string(out, "mime_type", b.mime_type);
                   text_string(out, "data", b.data_base64);
                 },
                 [&](const UnknownBlock& b) {
                   out += R"({"type":"unknown")"sv;
                   text_string_if(out, "block_type", b.type);
                   if (!b.raw.is_null()) {
                     text_key(out, "raw");
                     json::dump_to(out, b.raw);
                   }
                 },
             },
             block);
  out += '}';
}

void text_amount_if(std::string& out, Key key, double amount) {
  if (amount == 0 || !std::isfinite(amount)) return;
  text_key(out, key);
  out += json::Value(amount).number_text();  // the tree's own shortest round-trip text
}

void text_usage(std::string& out, const Usage& u) {
  out += R"({"input_tokens":)"sv;
  text_digits(out, u.input_tokens);
  text_integer(out, "output_tokens", u.output_tokens);
  text_integer(out, "cache_read_tokens", u.cache_read_tokens);
  text_integer(out, "cache_write_tokens", u.cache_write_tokens);
  text_integer(out, "cache_write_1h_tokens", u.cache_write_1h_tokens);
  text_integer(out, "reasoning_tokens", u.reasoning_tokens);
  const std::size_t cost_at = out.size();
  text_key(out, "cost");
  const std::size_t parts_at = out.size();
  text_amount_if(out, "input", u.cost.input);
  text_amount_if(out, "output", u.cost.output);
  text_amount_if(out, "cache_read", u.cost.cache_read);
  text_amount_if(out, "cache_write", u.cost.cache_write);
  text_amount_if(out, "total", u.cost.total);
  if (out.size() == parts_at) {
    out.resize(cost_at);  // no part to write: the member is omitted, as the tree omits it
  } else {
    out[parts_at] = '{';  // the first part's comma opens the object
    out += '}';
  }
  text_string_if(out, "billed_model", u.billed_model);
  out += '}';
}

void text_message(std::string& out, const UserMessage& m) {
  out += R"({"role":"user")"sv;
  text_content(out, m.content);
  text_timestamp_if(out, m.timestamp);
  out += '}';
}

void text_message(std::string& out, const AssistantMessage& m) {
  out += R"({"role":"assistant")"sv;
  text_content(out, m.content);
  text_name(out, "stop_reason", to_string(m.stop_reason));
  text_string_if(out, "raw_stop_reason", m.raw_stop_reason);
  text_string_if(out, "error_message", m.error_message);
  if (m.usage != Usage{}) {
    text_key(out, "usage");
    text_usage(out, m.usage);
  }
  text_timestamp_if(out, m.timestamp);
  text_string_if(out, "provider", m.provider);
  text_string_if(out, "api", m.api);
  text_string_if(out, "model", m.model);
  text_string_if(out, "response_model", m.response_model);
  text_string_if(out, "response_id", m.response_id);
  out += '}';
}

void text_message(std::string& out, const ToolResultMessage& m) {
  out += R"({"role":"tool_result")"sv;
  text_string(out, "tool_use_id", m.tool_use_id);
  text_string(out, "tool_name", m.tool_name);
  text_content(out, m.content);
  if (m.is_error) out += R"(,"is_error":true)"sv;
  text_timestamp_if(out, m.timestamp);
  if (!m.metadata.empty()) {
    text_key(out, "metadata");
    text_object(out, m.metadata);
  }
  if (!m.added_tool_names.empty()) {
    text_key(out, "added_tool_names");
    char separator = '[';
    for (const std::string& name : m.added_tool_names) {
      out += separator;
      separator = ',';
      json::append_quoted(out, name);
    }
    out += ']';
  }
  out += '}';
}

// ---- Decoding ---------------------------------------------------------------------------------

Error shape_error(const std::string& path, const std::string& what) {
  return fail(Errc::parse_error, path + ": " + what).with_detail("path", path);
}

std::string member_path(const std::string& parent, std::string_view key) {
  return parent + "." + std::string(key);
}

std::string element_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

Error wrong_type(const std::string& path, std::string_view expected, const json::Value& got) {
  return shape_error(path, "expected " + std::string(expected) + ", got " + std::string(json::type_name(got.type())));
}

Result<Timestamp> to_timestamp(const json::Value& v, const std::string& path) {
  Result<std::int64_t> ms = v.to_int64();
  if (!ms) return wrong_type(path, "integer milliseconds since the epoch", v);
  // A clock tick count must not overflow when the milliseconds are scaled up to it.
  using Ticks = Timestamp::duration;
  constexpr auto kMax = std::chrono::duration_cast<std::chrono::milliseconds>(Ticks::max()).count();
  constexpr auto kMin = std::chrono::duration_cast<std::chrono::milliseconds>(Ticks::min()).count();
  if (*ms > kMax || *ms < kMin) return shape_error(path, "timestamp " + std::to_string(*ms) + " ms is out of range");
  return Timestamp(std::chrono::duration_cast<Ticks>(std::chrono::milliseconds(*ms)));
}

// Reads the members of one object into fields: an absent member leaves its field at its
// default; a member of the wrong type records the first error, and later reads do nothing.
class Fields {
 public:
  Fields(const json::Object& object, std::string path) : object_(object), path_(std::move(path)) {}

  void text(std::string_view key, std::string& out) {
    if (const json::Value* v = member(key)) {
      if (v->is_string()) out = v->as_string();
      else record(wrong_type(member_path(path_, key), "a string", *v));
    }
  }
  void flag(std::string_view key, bool& out) {
    if (const json::Value* v = member(key)) {
      if (v->is_bool()) out = v->as_bool();
      else record(wrong_type(member_path(path_, key), "a boolean", *v));
    }
  }
  void count(std::string_view key, std::int64_t& out) {
    if (const json::Value* v = member(key)) {
      if (auto n = v->to_int64()) out = *n;
      else record(wrong_type(member_path(path_, key), "an integer that fits 64 bits", *v));
    }
  }
  void amount(std::string_view key, double& out) {
    if (const json::Value* v = member(key)) {
      if (auto d = v->to_double()) out = *d;
      else record(wrong_type(member_path(path_, key), "a number", *v));
    }
  }
  void time(std::string_view key, Timestamp& out) {
    if (const json::Value* v = member(key)) apply(to_timestamp(*v, member_path(path_, key)), out);
  }
  // Reads a member with a decoder `f(value, path) -> Result<T>`.
  template <class T, class F>
  void with(std::string_view key, T& out, F&& f) {
    if (const json::Value* v = member(key)) apply(f(*v, member_path(path_, key)), out);
  }

  Result<void> result() && {
    if (error_) return std::move(*error_);
    return {};
  }

 private:
  const json::Value* member(std::string_view key) const { return error_ ? nullptr : object_.find(key); }
  void record(Error e) {
    if (!error_) error_ = std::move(e);
  }
  template <class T>
  void apply(Result<T>&& r, T& out) {
    if (r) out = std::move(*r);
    else record(std::move(r).error());
  }

  const json::Object& object_;
  std::string path_;
  std::optional<Error> error_;
};

Result<const json::Object*> as_object(const json::Value& v, const std::string& path) {
  if (const json::Object* o = v.get_object()) return o;
  return wrong_type(path, "an object", v);
}

Result<std::string> required_string(const json::Object& o, std::string_view key, const std::string& path) {
  const json::Value* v = o.find(key);
  if (v == nullptr) return shape_error(member_path(path, key), "missing");
  if (!v->is_string()) return wrong_type(member_path(path, key), "a string", *v);
  return v->as_string();
}

Result<ContentBlock> decode_block(const json::Value& v, const std::string& path);

Result<std::vector<ContentBlock>> decode_content(const json::Value& v, const std::string& path) {
  const json::Array* items = v.get_array();
  if (items == nullptr) return wrong_type(path, "an array of content blocks", v);
  std::vector<ContentBlock> out;
  out.reserve(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    Result<ContentBlock> block = decode_block((*items)[i], element_path(path, i));
    if (!block) return std::move(block).error();
    out.push_back(std::move(*block));
  }
  return out;
}

Result<json::Raw> decode_input(const json::Value& v, const std::string&) {
  if (const json::Raw* raw = v.get_raw()) return *raw;
  return json::Raw(json::dump(v));
}

Result<json::Raw> decode_input_raw(const json::Value& v, const std::string& path) {
  if (!v.is_string()) return wrong_type(path, "a string holding the argument bytes", v);
  return json::Raw(v.as_string());
}

Result<json::Value> keep_verbatim(const json::Value& v, const std::string&) { return v; }

Result<json::Object> decode_metadata(const json::Value& v, const std::string& path) {
  if (const json::Object* o = v.get_object()) return *o;
  return wrong_type(path, "an object", v);
}

Result<std::vector<std::string>> decode_names(const json::Value& v, const std::string& path) {
  const json::Array* items = v.get_array();
  if (items == nullptr) return wrong_type(path, "an array of strings", v);
  std::vector<std::string> out;
  out.reserve(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    if (!(*items)[i].is_string()) return wrong_type(element_path(path, i), "a string", (*items)[i]);
    out.push_back((*items)[i].as_string());
  }
  return out;
}

Result<StopReason> decode_stop_reason(const json::Value& v, const std::string& path) {
  if (!v.is_string()) return wrong_type(path, "a stop reason string", v);
  if (auto r = parse_stop_reason(v.as_string())) return *r;
  return shape_error(path, "unknown stop reason '" + v.as_string() +
                               "'; expected stop, length, tool_use, stop_sequence, refusal, error, aborted or deferred");
}

Result<Cost> decode_cost(const json::Value& v, const std::string& path) {
  Result<const json::Object*> o = as_object(v, path);
  if (!o) return std::move(o).error();
  Cost c;
  Fields f(**o, path);
  f.amount("input", c.input);
  f.amount("output", c.output);
  f.amount("cache_read", c.cache_read);
  f.amount("cache_write", c.cache_write);
  f.amount("total", c.total);
  if (auto ok = std::move(f).result(); !ok) return std::move(ok).error();
  return c;
}

Result<Usage> decode_usage(const json::Value& v, const std::string& path) {
  Result<const json::Object*> o = as_object(v, path);
  if (!o) return std::move(o).error();
  Usage u;
  Fields f(**o, path);
  f.count("input_tokens", u.input_tokens);
  f.count("output_tokens", u.output_tokens);
  f.count("cache_read_tokens", u.cache_read_tokens);
  f.count("cache_write_tokens", u.cache_write_tokens);
  f.count("cache_write_1h_tokens", u.cache_write_1h_tokens);
  f.count("reasoning_tokens", u.reasoning_tokens);
  f.with("cost", u.cost, decode_cost);
  f.text("billed_model", u.billed_model);
  if (auto ok = std::move(f).result(); !ok) return std::move(ok).error();
  return u;
}

// Decodes the fields of `block` from `o`, answering the block or the first error.
template <class Block, class Read>
Result<ContentBlock> read_block(const json::Object& o, const std::string& path, Read&& read) {
  Block block;
  Fields f(o, path);
  read(f, block);
  if (auto ok = std::move(f).result(); !ok) return std::move(ok).error();
  return ContentBlock(std::move(block));
}

Result<ContentBlock> decode_block(const json::Value& v, const std::string& path) {
  Result<const json::Object*> object = as_object(v, path);
  if (!object) return std::move(object).error();
  const json::Object& o = **object;
  Result<std::string> type = required_string(o, "type", path);
  if (!type) return std::move(type).error();
  if (*type == "text") {
    return read_block<TextBlock>(o, path, [](Fields& f, TextBlock& b) { f.text("text", b.text); });
  }
  if (*type == "thinking") {
    return read_block<ThinkingBlock>(o, path, [](Fields& f, ThinkingBlock& b) {
      f.text("thinking", b.thinking);
      f.text("signature", b.signature);
      f.flag("redacted", b.redacted);
      f.text("id", b.id);
    });
  }
  if (*type == "tool_use") {
    return read_block<ToolUseBlock>(o, path, [&o](Fields& f, ToolUseBlock& b) {
      f.text("id", b.id);
      f.text("name", b.name);
      // input_raw exists only when input does not; if a writer put both, the exact bytes win.
      if (o.contains("input_raw")) f.with("input_raw", b.input, decode_input_raw);
      else f.with("input", b.input, decode_input);
      f.text("thought_signature", b.thought_signature);
    });
  }
  if (*type == "image") {
    return read_block<ImageBlock>(o, path, [](Fields& f, ImageBlock& b) {
      f.text("mime_type", b.mime_type);
      f.text("data", b.data_base64);
    });
  }
  if (*type == "unknown") {
    return read_block<UnknownBlock>(o, path, [](Fields& f, UnknownBlock& b) {
      f.text("block_type", b.type);
      f.with("raw", b.raw, keep_verbatim);
    });
  }
  // A block type from a newer writer: kept whole, so nothing is lost on the next write.
  return ContentBlock(UnknownBlock{*type, v});
}

template <class M, class Read>
Result<Message> read_message(const json::Object& o, const std::string& path, Read&& read) {
  M message;
  Fields f(o, path);
  f.with("content", message.content, decode_content);
  f.time("timestamp", message.timestamp);
  read(f, message);
  if (auto ok = std::move(f).result(); !ok) return std::move(ok).error();
  return Message(std::move(message));
}

Result<Message> decode_message(const json::Value& v, const std::string& path) {
  Result<const json::Object*> object = as_object(v, path);
  if (!object) return std::move(object).error();
  const json::Object& o = **object;
  Result<std::string> role = required_string(o, "role", path);
  if (!role) return std::move(role).error();
  if (*role == "user") {
    return read_message<UserMessage>(o, path, [](Fields&, UserMessage&) {});
  }
  if (*role == "assistant") {
    return read_message<AssistantMessage>(o, path, [](Fields& f, AssistantMessage& m) {
      f.with("stop_reason", m.stop_reason, decode_stop_reason);
      f.text("raw_stop_reason", m.raw_stop_reason);
      f.text("error_message", m.error_message);
      f.with("usage", m.usage, decode_usage);
      f.text("provider", m.provider);
      f.text("api", m.api);
      f.text("model", m.model);
      f.text("response_model", m.response_model);
      f.text("response_id", m.response_id);
    });
  }
  if (*role == "tool_result") {
    return read_message<ToolResultMessage>(o, path, [](Fields& f, ToolResultMessage& m) {
      f.text("tool_use_id", m.tool_use_id);
      f.text("tool_name", m.tool_name);
      f.flag("is_error", m.is_error);
      f.with("metadata", m.metadata, decode_metadata);
      f.with("added_tool_names", m.added_tool_names, decode_names);
    });
  }
  return shape_error(member_path(path, "role"),
                     "unknown role '" + *role + "'; expected user, assistant or tool_result");
}

// ---- Events ---------------------------------------------------------------------------------

std::string_view block_kind_name(BlockKind k) noexcept {
  switch (k) {
    case BlockKind::text: return "text";
    case BlockKind::thinking: return "thinking";
    case BlockKind::tool_use: return "tool_use";
  }
  return "unknown";
}

json::Value encode_error(const Error& e) {
  json::Object o{{"code", errc_name(e.code)}, {"message", e.message}};
  if (!e.detail.empty()) {
    // An array of pairs, not an object: detail keys may repeat (one "path" per violation).
    json::Array detail;
    detail.reserve(e.detail.size());
    for (const ErrorDetail& d : e.detail) detail.emplace_back(json::Object{{"key", d.key}, {"value", d.value}});
    o.append_unique("detail", std::move(detail));
  }
  return o;
}

json::Array encode_tool_results(const std::vector<ToolResultMessage>& results) {
  json::Array out;
  out.reserve(results.size());
  for (const ToolResultMessage& r : results) out.push_back(encode_tool_result(r));
  return out;
}

// The members after "type" for each event.
json::Object event_fields(const Event& e) {
  return std::visit(
      Overloaded{
          [](const AgentStartEvent& ev) {
            json::Object o;
            put_string_if(o, "session_id", ev.session_id);
            put_string_if(o, "provider", ev.provider);
            put_string_if(o, "api", ev.api);
            put_string_if(o, "model", ev.model);
            if (!ev.skills.empty()) {
              json::Array names;
              for (const auto& s : ev.skills) names.emplace_back(s);
              o.append_unique("skills", json::Value(std::move(names)));
            }
            return o;
          },
          [](const AgentEndEvent& ev) {
            json::Object o{{"reason", to_string(ev.reason)},
                           {"run_usage", to_json(ev.run_usage)},
                           {"session_usage", to_json(ev.session_usage)}};
            put_string_if(o, "error", ev.error);
            return o;
          },
          [](const TurnStartEvent& ev) {
            return json::Object{{"turn_index", ev.turn_index}};
          },
          [](const TurnEndEvent& ev) {
            return json::Object{{"turn_index", ev.turn_index},
                                {"message", encode_assistant(ev.message)},
                                {"tool_results", encode_tool_results(ev.tool_results)}};
          },
          [](const UserMessageEvent& ev) {
            return json::Object{{"message", encode_user(ev.message)}, {"steering", ev.steering}};
          },
          [](const MessageStartEvent& ev) {
            return json::Object{{"message", encode_assistant(ev.message)}};
          },
          [](const MessageUpdateEvent& ev) {
            return json::Object{{"message", encode_assistant(ev.message)}};
          },
          [](const MessageEndEvent& ev) {
            return json::Object{{"message", encode_assistant(ev.message)}};
          },
          [](const BlockStartEvent& ev) {
            json::Object o{{"block_index", ev.block_index}, {"kind", block_kind_name(ev.kind)}};
            put_string_if(o, "tool_use_id", ev.tool_use_id);
            put_string_if(o, "tool_name", ev.tool_name);
            return o;
          },
          [](const TextDeltaEvent& ev) {
            return json::Object{{"block_index", ev.block_index}, {"delta", ev.delta}};
          },
          [](const ThinkingDeltaEvent& ev) {
            return json::Object{{"block_index", ev.block_index}, {"delta", ev.delta}};
          },
          [](const ToolArgumentsDeltaEvent& ev) {
            return json::Object{{"block_index", ev.block_index}, {"tool_use_id", ev.tool_use_id}, {"delta", ev.delta}};
          },
          [](const BlockEndEvent& ev) {
            return json::Object{{"block_index", ev.block_index}, {"block", to_json(ev.block)}};
          },
          [](const ToolExecutionStartEvent& ev) {
            return json::Object{{"tool_use_id", ev.tool_use_id}, {"tool_name", ev.tool_name}, {"arguments", ev.arguments}};
          },
          [](const ToolExecutionUpdateEvent& ev) {
            return json::Object{{"tool_use_id", ev.tool_use_id}, {"tool_name", ev.tool_name}, {"chunk", ev.chunk}};
          },
          [](const ToolExecutionEndEvent& ev) {
            return json::Object{{"tool_use_id", ev.tool_use_id},
                                {"tool_name", ev.tool_name},
                                {"result", encode_tool_result(ev.result)},
                                {"elapsed_ms", static_cast<std::int64_t>(ev.elapsed.count())}};
          },
          [](const CacheEvent& ev) {
            return json::Object{{"hit", ev.hit}, {"key", ev.key}};
          },
          [](const ErrorEvent& ev) {
            return json::Object{{"error", encode_error(ev.error)}, {"terminal", ev.terminal}};
          },
          [](const ToolLogEvent& ev) {
            json::Object o{
                {"tool_use_id", ev.tool_use_id}, {"tool_name", ev.tool_name}, {"level", ev.level}};
            if (!ev.logger.empty()) o.append_unique("logger", ev.logger);
            o.append_unique("data", ev.data);
            return o;
          },
          [](const SubagentEvent& ev) {
            json::Object o{{"path", ev.path}, {"agent", ev.agent}};
            if (ev.event) o.append_unique("event", to_json(*ev.event));
            return o;
          },
          [](const CompactionStartEvent& ev) {
            return json::Object{
                {"trigger", to_string(ev.trigger)},
                {"tokens_before", ev.tokens_before},
                {"context_window", ev.context_window},
                {"messages_summarised", static_cast<std::int64_t>(ev.messages_summarised)},
                {"messages_kept", static_cast<std::int64_t>(ev.messages_kept)}};
          },
          [](const CompactionEndEvent& ev) {
            json::Object o{
                {"ok", ev.ok},
                {"trigger", to_string(ev.trigger)},
                {"tokens_before", ev.tokens_before},
                {"tokens_after", ev.tokens_after},
                {"messages_summarised", static_cast<std::int64_t>(ev.messages_summarised)},
                {"usage", to_json(ev.usage)}};
            put_string_if(o, "summary", ev.summary);
            put_string_if(o, "error", ev.error);
            return o;
          },
      },
      e);
}

// ---- Size estimates ---------------------------------------------------------------------------
// An estimate of heap bytes for the overrun bound: string payloads plus a fixed charge per
// container element, so it never allocates and stays proportional to what a copy costs.

constexpr std::size_t kPerValueNode = sizeof(json::Value);
constexpr std::size_t kPerMember = sizeof(json::Member);
constexpr std::size_t kPerBlock = sizeof(ContentBlock);

std::size_t value_size(const json::Value& v) noexcept {
  switch (v.type()) {
    case json::Type::string: return kPerValueNode + v.as_string().size();
    case json::Type::number: return kPerValueNode + v.number_text().size();
    case json::Type::raw: return kPerValueNode + v.get_raw()->bytes().size();
    case json::Type::array: {
      std::size_t n = kPerValueNode;
      for (const json::Value& e : v.as_array()) n += value_size(e);
      return n;
    }
    case json::Type::object: {
      std::size_t n = kPerValueNode;
      for (const json::Member& m : v.as_object()) n += kPerMember + m.key.size() + value_size(m.value);
      return n;
    }
    default: return kPerValueNode;
  }
}

std::size_t object_size(const json::Object& o) noexcept {
  std::size_t n = 0;
  for (const json::Member& m : o) n += kPerMember + m.key.size() + value_size(m.value);
  return n;
}

std::size_t block_size(const ContentBlock& block) noexcept {
  return kPerBlock + std::visit(Overloaded{
                                    [](const TextBlock& b) { return b.text.size(); },
                                    [](const ThinkingBlock& b) { return b.thinking.size() + b.signature.size() + b.id.size(); },
                                    [](const ToolUseBlock& b) {
                                      return b.id.size() + b.name.size() + b.input.bytes().size() +
                                             b.thought_signature.size();
                                    },
                                    [](const ImageBlock& b) { return b.mime_type.size() + b.data_base64.size(); },
                                    [](const UnknownBlock& b) { return b.type.size() + value_size(b.raw); },
                                },
                                block);
}

std::size_t content_size(const std::vector<ContentBlock>& content) noexcept {
  std::size_t n = 0;
  for (const ContentBlock& b : content) n += block_size(b);
  return n;
}

std::size_t message_size(const AssistantMessage& m) noexcept {
  return sizeof(AssistantMessage) + content_size(m.content) + m.raw_stop_reason.size() + m.error_message.size() +
         m.usage.billed_model.size() + m.provider.size() + m.api.size() + m.model.size() +
         m.response_model.size() + m.response_id.size();
}

std::size_t message_size(const UserMessage& m) noexcept { return sizeof(UserMessage) + content_size(m.content); }

std::size_t message_size(const ToolResultMessage& m) noexcept {
  std::size_t n = sizeof(ToolResultMessage) + m.tool_use_id.size() + m.tool_name.size() + content_size(m.content) +
                  object_size(m.metadata);
  for (const std::string& name : m.added_tool_names) n += sizeof(std::string) + name.size();
  return n;
}

std::size_t payload_size(const Event& e) noexcept {
  return std::visit(
      Overloaded{
          [](const AgentStartEvent& ev) {
            std::size_t n =
                ev.session_id.size() + ev.provider.size() + ev.api.size() + ev.model.size();
            for (const auto& s : ev.skills) n += s.size();
            return n;
          },
          [](const AgentEndEvent& ev) {
            return ev.run_usage.billed_model.size() + ev.session_usage.billed_model.size() + ev.error.size();
          },
          [](const TurnStartEvent&) { return std::size_t{0}; },
          [](const TurnEndEvent& ev) {
            std::size_t n = message_size(ev.message);
            for (const ToolResultMessage& r : ev.tool_results) n += message_size(r);
            return n;
          },
          [](const UserMessageEvent& ev) { return message_size(ev.message); },
          [](const MessageStartEvent& ev) { return message_size(ev.message); },
          [](const MessageUpdateEvent& ev) { return message_size(ev.message); },
          [](const MessageEndEvent& ev) { return message_size(ev.message); },
          [](const BlockStartEvent& ev) { return ev.tool_use_id.size() + ev.tool_name.size(); },
          [](const TextDeltaEvent& ev) { return ev.delta.size(); },
          [](const ThinkingDeltaEvent& ev) { return ev.delta.size(); },
          [](const ToolArgumentsDeltaEvent& ev) { return ev.tool_use_id.size() + ev.delta.size(); },
          [](const BlockEndEvent& ev) { return block_size(ev.block); },
          [](const ToolExecutionStartEvent& ev) {
            return ev.tool_use_id.size() + ev.tool_name.size() + value_size(ev.arguments);
          },
          [](const ToolExecutionUpdateEvent& ev) {
            return ev.tool_use_id.size() + ev.tool_name.size() + ev.chunk.size();
          },
          [](const ToolExecutionEndEvent& ev) {
            return ev.tool_use_id.size() + ev.tool_name.size() + message_size(ev.result);
          },
          [](const CacheEvent& ev) { return ev.key.size(); },
          [](const ErrorEvent& ev) {
            std::size_t n = ev.error.message.size();
            for (const ErrorDetail& d : ev.error.detail)
              n += sizeof(ErrorDetail) + d.key.size() + d.value.size();
            return n;
          },
          [](const ToolLogEvent& ev) {
            return ev.tool_use_id.size() + ev.tool_name.size() + ev.level.size() +
                   ev.logger.size() + value_size(ev.data);
          },
          [](const SubagentEvent& ev) {
            return ev.path.size() + ev.agent.size() + (ev.event ? approximate_size(*ev.event) : 0);
          },
          [](const CompactionStartEvent&) { return std::size_t{0}; },
          [](const CompactionEndEvent& ev) {
            return ev.summary.size() + ev.error.size() + ev.usage.billed_model.size();
          },
      },
      e);
}

}  // namespace

// ---- Public codec -------------------------------------------------------------------------------

json::Value to_json(const ContentBlock& block) {
  return std::visit(Overloaded{
                        [](const TextBlock& b) { return encode_text(b); },
                        [](const ThinkingBlock& b) { return encode_thinking(b); },
                        [](const ToolUseBlock& b) { return encode_tool_use(b); },
                        [](const ImageBlock& b) { return encode_image(b); },
                        [](const UnknownBlock& b) { return encode_unknown(b); },
                    },
                    block);
}

json::Value to_json(const Message& message) {
  return std::visit(Overloaded{
                        [](const UserMessage& m) { return encode_user(m); },
                        [](const AssistantMessage& m) { return encode_assistant(m); },
                        [](const ToolResultMessage& m) { return encode_tool_result(m); },
                    },
                    message);
}

void append_json_text(std::string& out, const Message& message) {
  std::visit([&out](const auto& m) { text_message(out, m); }, message);
}

json::Value to_json(const Usage& usage) {
  json::Object o = members("input_tokens", usage.input_tokens, "output_tokens", usage.output_tokens,
                           "cache_read_tokens", usage.cache_read_tokens, "cache_write_tokens",
                           usage.cache_write_tokens, "cache_write_1h_tokens",
                           usage.cache_write_1h_tokens, "reasoning_tokens", usage.reasoning_tokens);
  if (json::Value cost = encode_cost(usage.cost); cost.size() > 0) o.append_unique("cost", std::move(cost));
  put_string_if(o, "billed_model", usage.billed_model);
  return o;
}

Result<ContentBlock> content_block_from_json(const json::Value& v) { return decode_block(v, "$"); }
Result<Message> message_from_json(const json::Value& v) { return decode_message(v, "$"); }
Result<Usage> usage_from_json(const json::Value& v) { return decode_usage(v, "$"); }

std::string_view to_string(CompactionTrigger t) noexcept {
  return t == CompactionTrigger::overflow ? "overflow" : "threshold";
}

std::string_view event_name(const Event& e) noexcept {
  return std::visit(
      Overloaded{
          [](const AgentStartEvent&) { return std::string_view("agent_start"); },
          [](const AgentEndEvent&) { return std::string_view("agent_end"); },
          [](const TurnStartEvent&) { return std::string_view("turn_start"); },
          [](const TurnEndEvent&) { return std::string_view("turn_end"); },
          [](const UserMessageEvent&) { return std::string_view("user_message"); },
          [](const MessageStartEvent&) { return std::string_view("message_start"); },
          [](const MessageUpdateEvent&) { return std::string_view("message_update"); },
          [](const MessageEndEvent&) { return std::string_view("message_end"); },
          [](const BlockStartEvent&) { return std::string_view("block_start"); },
          [](const TextDeltaEvent&) { return std::string_view("text_delta"); },
          [](const ThinkingDeltaEvent&) { return std::string_view("thinking_delta"); },
          [](const ToolArgumentsDeltaEvent&) { return std::string_view("tool_arguments_delta"); },
          [](const BlockEndEvent&) { return std::string_view("block_end"); },
          [](const ToolExecutionStartEvent&) { return std::string_view("tool_execution_start"); },
          [](const ToolExecutionUpdateEvent&) { return std::string_view("tool_execution_update"); },
          [](const ToolExecutionEndEvent&) { return std::string_view("tool_execution_end"); },
          [](const CacheEvent&) { return std::string_view("cache"); },
          [](const ErrorEvent&) { return std::string_view("error"); },
          [](const ToolLogEvent&) { return std::string_view("tool_log"); },
          [](const SubagentEvent&) { return std::string_view("subagent"); },
          [](const CompactionStartEvent&) { return std::string_view("compaction_start"); },
          [](const CompactionEndEvent&) { return std::string_view("compaction_end"); },
      },
      e);
}

json::Value to_json(const Event& e) {
  json::Object fields = event_fields(e);
  json::Object o;
  o.reserve(fields.size() + 1);
  o.append_unique("type", event_name(e));
  for (json::Member& m : fields) o.append_unique(std::move(m.key), std::move(m.value));
  return o;
}

std::size_t approximate_size(const Event& e) noexcept { return sizeof(Event) + payload_size(e); }

}  // namespace agentkit
