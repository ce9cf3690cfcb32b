// The never-refusing loader: every line is either an entry, the header, or a listed repair.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <limits>
#include <unordered_map>

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

// Parses one log into `out`, line by line.
class Loader {
 public:
  explicit Loader(LoadResult& out) : out_(out) {}

  void run(std::string_view bytes) {
    // Exactly one entry slot per line, reserved up front: the index below holds views of the
    // entries' ids, which must never move.
    out_.entries.reserve(count_lines(bytes) + 1);
    index_.reserve(out_.entries.capacity());
    std::size_t pos = 0;
    while (pos < bytes.size()) {
      std::size_t nl = bytes.find('\n', pos);
      ++line_;
      if (nl == std::string_view::npos) {
        torn_tail(bytes.substr(pos));
        break;
      }
      line(bytes.substr(pos, nl - pos));
      pos = nl + 1;
      out_.intact_bytes = pos;
    }
    if (!seen_header_) synthesize_header();
  }

 private:
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
    if (index_.count(e->id) != 0) {
      repair(RepairKind::corrupt_line, "skipped an entry repeating the id '" + e->id + "'");
      return;
    }
    if (e->type == EntryType::unknown) {
      repair(RepairKind::unknown_type, "kept an entry of unknown type '" + e->type_name +
                                           "' unchanged (written by a newer version?)");
      e->verbatim = std::string(text);
    }
    if (!e->parent_id.empty() && index_.count(e->parent_id) == 0) reparent(*e);
    out_.entries.push_back(std::move(*e));
    // A view of the id where it now lives: the reserve in run() keeps it from moving.
    index_.emplace(out_.entries.back().id, out_.entries.size() - 1);
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
  std::unordered_map<std::string_view, std::size_t> index_;
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

void append_entry_line(std::string& out, const Entry& e) {
  out += R"({"id":)";
  json::append_quoted(out, e.id);
  out += R"(,"parent_id":)";
  if (e.parent_id.empty()) {
    out += "null";
  } else {
    json::append_quoted(out, e.parent_id);
  }
  out += R"(,"type":)";
  json::append_quoted(out, e.type_name);
  if (!e.timestamp.empty()) {
    out += R"(,"timestamp":)";
    json::append_quoted(out, e.timestamp);
  }
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
  Loader(out).run(bytes);
  return out;
}

Result<LoadResult> load(Store& store) {
  Result<std::string> bytes = store.read();
  if (!bytes) return bytes.error();
  return parse_log(*bytes);
}

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
