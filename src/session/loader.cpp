// The never-refusing loader: every line is either an entry, the header, or a listed repair.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <utility>

#include "agentkit/base/utf8.hpp"
#include "agentkit/json/value.hpp"
#include "format.hpp"
#include "line_scan.hpp"

namespace agentkit::session {
namespace {

struct TypeName {
  EntryType type;
  std::string_view name;
};
constexpr TypeName kTypeNames[] = {
    {EntryType::message, "message"},
    {EntryType::model_change, "model_change"},
    {EntryType::thinking_level_change, "thinking_level_change"},
    {EntryType::compaction, "compaction"},
    {EntryType::custom_message, "custom_message"},
    {EntryType::branch_summary, "branch_summary"},
    {EntryType::approval_request, "approval_request"},
    {EntryType::approval_decision, "approval_decision"},
    {EntryType::tool_call_started, "tool_call_started"},
};

constexpr std::string_view kHeaderType = "session";

Result<std::string_view> string_member(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (v == nullptr || !v->is_string()) {
    return make_error(Errc::parse_error, "member '" + std::string(key) + "' is not a string");
  }
  return std::string_view(v->as_string());
}

// A JSON string value's text; `quoted` is its exact bytes, already checked by the scan.
std::string string_text(std::string_view quoted) {
  if (!detail::has_escape(quoted)) return std::string(quoted.substr(1, quoted.size() - 2));
  Result<json::Value> v = json::parse(quoted);
  return v && v->is_string() ? std::move(v->as_string()) : std::string();
}

bool is_string_value(std::string_view value) { return !value.empty() && value.front() == '"'; }

Header header_from_object(const json::Object& o, std::string_view line) {
  Header h;
  if (const json::Value* v = o.find("version"); v != nullptr) {
    if (auto n = v->to_int64(); n && *n > 0 && *n <= std::numeric_limits<int>::max()) {
      h.version = static_cast<int>(*n);
    }
  }
  if (auto s = string_member(o, "id")) h.id = std::string(*s);
  if (auto s = string_member(o, "timestamp")) h.timestamp = std::string(*s);
  if (auto s = string_member(o, "cwd")) h.cwd = std::string(*s);
  h.verbatim = std::string(line);
  return h;
}

// One line's members as the scan found them, keys decoded.
struct LineMember {
  std::string_view key;  // a view of the line, or of `decoded` when the key had escapes
  std::string_view value;
  std::string decoded;
};

// Builds an entry from a scanned line: the envelope members decoded, a message payload kept
// as its exact bytes (a json::Raw: one copy of the text, no tree), other payloads as trees
// (they are small). The reason when the line is no usable entry.
Result<Entry> entry_from_members(const std::vector<LineMember>& members) {
  Entry e;
  const LineMember* id = nullptr;
  const LineMember* type = nullptr;
  const LineMember* parent = nullptr;
  const LineMember* timestamp = nullptr;
  for (const LineMember& m : members) {
    if (m.key == "id") id = &m;
    else if (m.key == "type") type = &m;
    else if (m.key == "parent_id") parent = &m;
    else if (m.key == "timestamp") timestamp = &m;
  }
  if (id == nullptr || !is_string_value(id->value) || id->value.size() == 2) {
    return make_error(Errc::parse_error, "the entry has no id");
  }
  if (type == nullptr || !is_string_value(type->value)) {
    return make_error(Errc::parse_error, "the entry has no type");
  }
  e.id = string_text(id->value);
  e.type_name = string_text(type->value);
  e.type = detail::entry_type_from_name(e.type_name);
  if (parent != nullptr && parent->value != "null") {
    if (!is_string_value(parent->value)) {
      return make_error(Errc::parse_error, "parent_id is not a string");
    }
    e.parent_id = string_text(parent->value);
  }
  // A timestamp that is not a string is no envelope member: it stays in the payload as read.
  if (timestamp != nullptr && !is_string_value(timestamp->value)) timestamp = nullptr;
  if (timestamp != nullptr) e.timestamp = string_text(timestamp->value);
  e.fields.reserve(members.size() - (parent ? 1 : 0) - (timestamp ? 1 : 0) - 2);
  for (const LineMember& m : members) {
    if (&m == id || &m == type || &m == parent || &m == timestamp) continue;
    if (e.type == EntryType::message && m.key == "message") {
      e.fields.append_unique(std::string(m.key), json::Raw(std::string(m.value)));
      continue;
    }
    Result<json::Value> v = json::parse(m.value);
    if (!v) {
      return make_error(Errc::parse_error,
                        "member '" + std::string(m.key) + "': " + v.error().message);
    }
    e.fields.append_unique(std::string(m.key), std::move(*v));
  }
  if (auto ok = detail::check_payload(e); !ok) return ok.error();
  return e;
}

// The ids of the entries loaded so far, for repeated ids and dangling parents: an open-addressed
// table of positions in the entry list, so that an id costs no allocation of its own and the
// entries may move as the list grows.
class IdIndex {
 public:
  explicit IdIndex(const std::vector<Entry>& entries) : entries_(entries) {}

  void reserve(std::size_t ids) {
    if (ids * 2 > slots_.size()) rehash(ids * 2);
  }

  bool contains(std::string_view id) const {
    if (slots_.empty()) return false;
    for (std::size_t i = home(id);; i = (i + 1) & mask()) {
      if (slots_[i] == 0) return false;
      if (entries_[slots_[i] - 1].id == id) return true;
    }
  }

  // Adds the entry at `position` of the list; its id must not be present yet.
  void insert(std::size_t position) {
    if ((count_ + 1) * 2 > slots_.size()) rehash(std::max<std::size_t>(slots_.size() * 2, 16));
    place(position);
    ++count_;
  }

 private:
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  std::size_t home(std::string_view id) const noexcept {
    return std::hash<std::string_view>{}(id)&mask();
  }
  void place(std::size_t position) {
    std::size_t i = home(entries_[position].id);
    while (slots_[i] != 0) i = (i + 1) & mask();
    slots_[i] = static_cast<std::uint32_t>(position + 1);
  }
  void rehash(std::size_t at_least) {
    std::size_t size = 16;
    while (size < at_least) size *= 2;
    std::vector<std::uint32_t> old = std::exchange(slots_, std::vector<std::uint32_t>(size, 0));
    for (std::uint32_t slot : old) {
      if (slot != 0) place(slot - 1);
    }
  }

  const std::vector<Entry>& entries_;
  std::vector<std::uint32_t> slots_;  // position + 1; 0 is empty; a power of two in size
  std::size_t count_ = 0;
};

// Newlines in `bytes`, by memchr (vectorised; a byte loop costs a tenth of the whole load).
std::size_t count_lines(std::string_view bytes) {
  std::size_t n = 0;
  const char* p = bytes.data();
  const char* end = bytes.data() + bytes.size();
  while (p != end) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (p == nullptr) break;
    ++p;
    ++n;
  }
  return n;
}

// Parses one log into `out`, line by line, from its bytes given in pieces of any size.
class Loader {
 public:
  explicit Loader(LoadResult& out) : out_(out) {}

  // Room for `lines` entries (a hint: growing past it only costs moves).
  void reserve(std::size_t lines) {
    out_.entries.reserve(lines);
    index_.reserve(lines);
  }

  // The size of the whole log, when the store knows it: the entry list is then sized from the
  // lines read so far rather than doubled again and again (each doubling moves every entry and
  // faults in a fresh block of memory).
  void expect_bytes(std::uint64_t total) { expected_bytes_ = total; }

  void feed(std::string_view piece) {
    stored_bytes_ += piece.size();
    if (!partial_.empty()) {
      // The line the previous piece cut: complete it, or keep waiting for its newline.
      const char* nl = find_newline(piece);
      if (nl == nullptr) {
        partial_.append(piece);
        return;
      }
      const std::size_t head = static_cast<std::size_t>(nl - piece.data());
      partial_.append(piece.substr(0, head));
      complete_line(partial_);
      partial_.clear();
      piece.remove_prefix(head + 1);
    }
    while (!piece.empty()) {
      const char* nl = find_newline(piece);
      if (nl == nullptr) {
        partial_.assign(piece);
        return;
      }
      const std::size_t length = static_cast<std::size_t>(nl - piece.data());
      complete_line(piece.substr(0, length));
      piece.remove_prefix(length + 1);
    }
  }

  // After the last piece: what is left without a newline is a torn line (or padding).
  void finish() {
    if (!partial_.empty()) {
      ++line_;
      torn_tail(partial_);
    }
    if (!seen_header_) synthesize_header();
  }

  // Every byte fed, the torn tail included.
  std::uint64_t stored_bytes() const noexcept { return stored_bytes_; }

 private:
  static const char* find_newline(std::string_view bytes) noexcept {
    return static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
  }

  void complete_line(std::string_view text) {
    ++line_;
    line(text);
    out_.intact_bytes += text.size() + 1;
  }

  void repair(RepairKind kind, std::string detail) {
    out_.repairs.push_back(Repair{kind, line_, std::move(detail)});
  }

  void torn_tail(std::string_view tail) {
    if (tail.find_first_not_of('\0') == std::string_view::npos) {
      repair(RepairKind::nul_padding, "skipped " + std::to_string(tail.size()) +
                                          " NUL bytes at the end of the log");
      return;
    }
    repair(RepairKind::torn_last_line, "dropped an incomplete last line of " +
                                           std::to_string(tail.size()) + " bytes");
  }

  void line(std::string_view text) {
    if (std::size_t nuls = text.find_first_not_of('\0'); nuls != 0) {
      nuls = nuls == std::string_view::npos ? text.size() : nuls;
      repair(RepairKind::nul_padding, "skipped " + std::to_string(nuls) + " NUL bytes");
      text.remove_prefix(nuls);
      if (text.empty()) return;
    }
    // The fast path: one validating scan, no tree. Anything it refuses goes to json::parse,
    // which names what is wrong (and would read a line the scan wrongly refused).
    if (!utf8::is_valid(text) || !detail::scan_object_line(text, scanned_) || !decode_keys()) {
      return slow_line(text);
    }
    const LineMember* type = nullptr;
    for (const LineMember& m : members_) {
      if (m.key == "type") type = &m;
    }
    if (type != nullptr && is_string_value(type->value) &&
        string_text(type->value) == kHeaderType) {
      return header(text);
    }
    if (!seen_header_) synthesize_header();
    entry(entry_from_members(members_), text);
  }

  // Decodes the scanned keys into members_; false on a repeated key (json::parse refuses it).
  bool decode_keys() {
    members_.resize(scanned_.size());
    for (std::size_t i = 0; i < scanned_.size(); ++i) {
      const detail::ScannedMember& m = scanned_[i];
      LineMember& out = members_[i];
      out.value = m.value;
      if (m.key_escaped) {
        out.decoded = string_text(std::string_view(m.key.data() - 1, m.key.size() + 2));
        out.key = out.decoded;
      } else {
        out.key = m.key;
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (members_[j].key == out.key) return false;
      }
    }
    return true;
  }

  void slow_line(std::string_view text) {
    Result<json::Value> parsed = json::parse(text);
    if (!parsed || !parsed->is_object()) {
      repair(RepairKind::corrupt_line, parsed ? "skipped a line that is not a JSON object"
                                              : "skipped a line that is not JSON: " +
                                                    parsed.error().message);
      return;
    }
    // json::parse read what the scan refused: go on from its compact text (the original bytes
    // stay the line's verbatim copy).
    std::string canonical = json::dump(*parsed);
    if (!detail::scan_object_line(canonical, scanned_) || !decode_keys()) {
      repair(RepairKind::corrupt_line, "skipped a line this build cannot read");
      return;
    }
    const json::Value* type = parsed->find("type");
    if (type != nullptr && type->get_string() == kHeaderType) return header(text);
    if (!seen_header_) synthesize_header();
    entry(entry_from_members(members_), text);
  }

  void header(std::string_view text) {
    if (seen_header_) {
      repair(RepairKind::corrupt_line, "skipped a second header line");
      return;
    }
    seen_header_ = true;
    Result<json::Value> parsed = json::parse(text);
    out_.header = header_from_object(parsed ? parsed->as_object() : json::Object(), text);
  }

  void synthesize_header() {
    seen_header_ = true;
    out_.header.synthesized = true;
    repair(RepairKind::missing_header,
           "the log has no header line; one was made up in memory (the file is not changed)");
  }

  void entry(Result<Entry> e, std::string_view text) {
    if (!e) {
      repair(RepairKind::corrupt_line, "skipped an unusable entry: " + e.error().message);
      return;
    }
    if (index_.contains(e->id)) {
      repair(RepairKind::corrupt_line, "skipped an entry repeating the id '" + e->id + "'");
      return;
    }
    if (e->type == EntryType::unknown) {
      repair(RepairKind::unknown_type, "kept an entry of unknown type '" + e->type_name +
                                           "' unchanged (written by a newer version?)");
      e->verbatim = std::string(text);
    }
    if (!e->parent_id.empty() && !index_.contains(e->parent_id)) reparent(*e);
    if (out_.entries.size() == out_.entries.capacity()) grow();
    out_.entries.push_back(std::move(*e));
    index_.insert(out_.entries.size() - 1);
  }

  static constexpr std::size_t kLinesBeforeEstimate = 64;

  // Room for the lines still to come, at the average length of those read so far (a tenth
  // more for slack). Memory reserved and never used is never touched, so it costs no RSS.
  void grow() {
    const std::uint64_t read = out_.intact_bytes;
    // Too few lines to judge by (a header is no entry): push_back doubles meanwhile.
    if (expected_bytes_ <= read || line_ < kLinesBeforeEstimate) return;
    const std::uint64_t average = std::max<std::uint64_t>(read / line_, 1);
    const std::uint64_t more = (expected_bytes_ - read) / average;
    const std::size_t want = out_.entries.size() + static_cast<std::size_t>(more + more / 10) + 1;
    out_.entries.reserve(want);
    index_.reserve(want);
  }

  void reparent(Entry& e) {
    std::string to = out_.entries.empty() ? std::string() : out_.entries.back().id;
    repair(RepairKind::dangling_parent,
           "entry '" + e.id + "' named a missing parent '" + e.parent_id + "'; attached to " +
               (to.empty() ? std::string("the root") : "'" + to + "'"));
    e.parent_id = to;
    // An unknown entry keeps its bytes even so: this build cannot know what else a newer
    // version put in them. Loading them again repeats the same re-parenting (the entry before
    // it is the same), so the repair is stable without rewriting the line.
  }

  LoadResult& out_;
  std::size_t line_ = 0;
  bool seen_header_ = false;
  std::uint64_t stored_bytes_ = 0;
  std::uint64_t expected_bytes_ = 0;  // 0: not known
  // The start of a line whose newline is in a later piece.
  std::string partial_;
  IdIndex index_{out_.entries};
  std::vector<detail::ScannedMember> scanned_;  // reused from line to line
  std::vector<LineMember> members_;
};

}  // namespace

namespace detail {

EntryType entry_type_from_name(std::string_view name) noexcept {
  for (const TypeName& t : kTypeNames) {
    if (t.name == name) return t.type;
  }
  return EntryType::unknown;
}

Result<void> check_payload(const Entry& e) {
  switch (e.type) {
    case EntryType::message: {
      // Only the shape is checked here: the message itself is decoded when it is folded, so a
      // load costs one scan of its bytes (a payload that does not decode is left out then).
      const json::Value* m = e.fields.find("message");
      bool object = m != nullptr && (m->is_object() || (m->is_raw() && !m->get_raw()->empty() &&
                                                        m->get_raw()->bytes().front() == '{'));
      if (!object) return make_error(Errc::parse_error, "member 'message' is not an object");
      return {};
    }
    case EntryType::model_change: return model_of(e).transform([](const ModelRef&) {});
    case EntryType::thinking_level_change:
      return thinking_level_of(e).transform([](std::optional<ThinkingLevel>) {});
    case EntryType::compaction:
      if (auto s = string_member(e.fields, "summary"); !s) return s.error();
      if (auto s = string_member(e.fields, "first_kept_entry_id"); !s) return s.error();
      return {};
    case EntryType::custom_message:
      if (auto s = string_member(e.fields, "custom_type"); !s) return s.error();
      if (auto s = string_member(e.fields, "content"); !s) return s.error();
      return {};
    case EntryType::branch_summary:
      if (auto s = string_member(e.fields, "summary"); !s) return s.error();
      return {};
    case EntryType::approval_request:
      return approval_request_of(e).transform([](const std::vector<PendingApproval>&) {});
    case EntryType::approval_decision:
      return approval_decisions_of(e).transform([](const std::vector<ApprovalDecision>&) {});
    case EntryType::tool_call_started:
      return started_call_of(e).transform([](const std::string&) {});
    case EntryType::unknown: return {};
  }
  return {};
}

std::string header_line(const Header& h) {
  if (!h.verbatim.empty()) return h.verbatim;
  json::Object o;
  o.append_unique("type", std::string(kHeaderType));
  o.append_unique("version", h.version);
  o.append_unique("id", h.id);
  o.append_unique("timestamp", h.timestamp);
  o.append_unique("cwd", h.cwd);
  return json::dump(json::Value(std::move(o)));
}

void append_envelope(std::string& out, const Entry& e) {
  using std::string_view_literals::operator""sv;  // one append per literal, its length known
  out += R"({"id":)"sv;
  json::append_quoted(out, e.id);
  out += R"(,"parent_id":)"sv;
  if (e.parent_id.empty()) {
    out += "null"sv;
  } else {
    json::append_quoted(out, e.parent_id);
  }
  out += R"(,"type":)"sv;
  json::append_quoted(out, e.type_name);
  if (!e.timestamp.empty()) {
    out += R"(,"timestamp":)"sv;
    json::append_quoted(out, e.timestamp);
  }
}

void append_entry_line(std::string& out, const Entry& e) {
  append_envelope(out, e);
  for (const json::Member& m : e.fields) {
    out += ',';
    json::append_quoted(out, m.key);
    out += ':';
    json::dump_to(out, m.value);  // a json::Raw payload goes out as its exact bytes
  }
  out += '}';
}

std::string now_timestamp() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  // The date and time of day change once a second; formatting them (gmtime_r, strftime) costs
  // more than the rest of an append's bookkeeping, so each thread keeps the last second's text.
  thread_local std::time_t cached_secs = -1;
  thread_local char cached[24];
  thread_local std::size_t cached_size = 0;
  if (secs != cached_secs) {
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    cached_size = std::strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
    cached_secs = secs;
  }
  std::string out(cached, cached_size);
  int millis = static_cast<int>(ms % 1000);
  out += '.';
  out += static_cast<char>('0' + millis / 100);
  out += static_cast<char>('0' + millis / 10 % 10);
  out += static_cast<char>('0' + millis % 10);
  out += 'Z';
  return out;
}

}  // namespace detail

std::string_view to_string(EntryType type) noexcept {
  for (const TypeName& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return "unknown";
}

std::string_view to_string(RepairKind kind) noexcept {
  switch (kind) {
    case RepairKind::torn_last_line: return "torn_last_line";
    case RepairKind::nul_padding: return "nul_padding";
    case RepairKind::corrupt_line: return "corrupt_line";
    case RepairKind::unknown_type: return "unknown_type";
    case RepairKind::dangling_parent: return "dangling_parent";
    case RepairKind::missing_header: return "missing_header";
  }
  return "unknown";
}

LoadResult parse_log(std::string_view bytes) {
  LoadResult out;
  Loader loader(out);
  loader.reserve(count_lines(bytes) + 1);
  loader.feed(bytes);
  loader.finish();
  return out;
}

Result<LoadResult> load(Store& store) {
  std::uint64_t stored_bytes = 0;
  return detail::load_counting(store, stored_bytes);
}

namespace detail {

Result<LoadResult> load_counting(Store& store, std::uint64_t& stored_bytes) {
  LoadResult out;
  Loader loader(out);
  if (std::optional<std::uint64_t> size = store.size_hint()) loader.expect_bytes(*size);
  Result<void> read = store.read_pieces([&](std::string_view piece) { loader.feed(piece); });
  if (!read) return read.error();
  loader.finish();
  stored_bytes = loader.stored_bytes();
  return out;
}

}  // namespace detail

std::string to_jsonl(const LoadResult& log) {
  std::string out = detail::header_line(log.header);
  out += '\n';
  for (const Entry& e : log.entries) {
    if (!e.verbatim.empty()) {
      out += e.verbatim;
    } else {
      detail::append_entry_line(out, e);
    }
    out += '\n';
  }
  return out;
}

Result<Message> message_of(const Entry& e) {
  const json::Value* m = e.fields.find("message");
  if (e.type != EntryType::message || m == nullptr) {
    return make_error(Errc::invalid_argument, "entry '" + e.id + "' holds no message");
  }
  const auto decode = [&]() -> Result<Message> {
    const json::Raw* raw = m->get_raw();
    if (raw == nullptr) return message_from_json(*m);
    Result<json::Value> tree = raw->parse();
    if (!tree) return tree.error();
    return message_from_json(*tree);
  };
  Result<Message> out = decode();
  if (!out) return make_error(out.error().code, "entry '" + e.id + "': " + out.error().message);
  return out;
}

Result<ModelRef> model_of(const Entry& e) {
  if (e.type != EntryType::model_change) {
    return make_error(Errc::invalid_argument, "entry '" + e.id + "' is not a model_change");
  }
  auto provider = string_member(e.fields, "provider");
  auto api = string_member(e.fields, "api");
  auto model = string_member(e.fields, "model");
  if (!provider || !api || !model || model->empty()) {
    return make_error(Errc::parse_error, "model_change '" + e.id +
                                             "' lacks its provider, api or model");
  }
  return ModelRef{std::string(*provider), std::string(*api), std::string(*model)};
}

Result<std::optional<ThinkingLevel>> thinking_level_of(const Entry& e) {
  const json::Value* v = e.fields.find("thinking_level");
  if (e.type != EntryType::thinking_level_change || v == nullptr) {
    return make_error(Errc::invalid_argument,
                      "entry '" + e.id + "' is not a thinking_level_change");
  }
  if (v->is_null()) return std::optional<ThinkingLevel>();  // the agent set no level
  std::optional<std::string_view> name = v->get_string();
  std::optional<ThinkingLevel> level = name ? parse_thinking_level(*name) : std::nullopt;
  if (!level) {
    return make_error(Errc::parse_error,
                      "thinking_level_change '" + e.id + "' names no known thinking level");
  }
  return level;
}

namespace {

// The array member `key` of an entry of `type`, each element read by `read`.
template <class T, class Read>
Result<std::vector<T>> list_of(const Entry& e, EntryType type, std::string_view key, Read read) {
  const json::Value* list = e.fields.find(key);
  if (e.type != type || list == nullptr || !list->is_array()) {
    return make_error(Errc::invalid_argument, "entry '" + e.id + "' is not an " +
                                                  std::string(to_string(type)) + " with '" +
                                                  std::string(key) + "'");
  }
  std::vector<T> out;
  out.reserve(list->as_array().size());
  for (const json::Value& item : list->as_array()) {
    Result<T> one = read(item);
    if (!one) {
      return make_error(Errc::parse_error, "entry '" + e.id + "': " + one.error().message);
    }
    out.push_back(std::move(*one));
  }
  return out;
}

}  // namespace

Result<std::vector<PendingApproval>> approval_request_of(const Entry& e) {
  return list_of<PendingApproval>(e, EntryType::approval_request, "calls",
                                  pending_approval_from_json);
}

Result<std::vector<ApprovalDecision>> approval_decisions_of(const Entry& e) {
  return list_of<ApprovalDecision>(e, EntryType::approval_decision, "decisions",
                                   approval_decision_from_json);
}

Result<std::string> started_call_of(const Entry& e) {
  auto id = string_member(e.fields, "tool_use_id");
  if (e.type != EntryType::tool_call_started || !id || id->empty()) {
    return make_error(Errc::invalid_argument,
                      "entry '" + e.id + "' is not a tool_call_started with a tool_use_id");
  }
  return std::string(*id);
}

}  // namespace agentkit::session
