// The never-refusing loader: every line is either an entry, the header, or a listed repair.
#include <chrono>
#include <ctime>
#include <unordered_map>

#include "agentkit/json/value.hpp"
#include "format.hpp"

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
};

constexpr std::string_view kHeaderType = "session";

Result<std::string_view> string_member(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (v == nullptr || !v->is_string()) {
    return make_error(Errc::parse_error, "member '" + std::string(key) + "' is not a string");
  }
  return std::string_view(v->as_string());
}

// Reads the entry members every type shares; the reason when the line is no entry.
Result<Entry> entry_from_object(json::Object fields) {
  Entry e;
  auto id = string_member(fields, "id");
  auto type = string_member(fields, "type");
  if (!id || id->empty()) return make_error(Errc::parse_error, "the entry has no id");
  if (!type) return make_error(Errc::parse_error, "the entry has no type");
  e.id = std::string(*id);
  e.type_name = std::string(*type);
  e.type = detail::entry_type_from_name(e.type_name);
  if (const json::Value* p = fields.find("parent_id"); p != nullptr && !p->is_null()) {
    if (!p->is_string()) return make_error(Errc::parse_error, "parent_id is not a string");
    e.parent_id = p->as_string();
  }
  if (auto ts = string_member(fields, "timestamp")) e.timestamp = std::string(*ts);
  e.fields = std::move(fields);
  if (auto ok = detail::check_payload(e); !ok) return ok.error();
  return e;
}

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

// Parses one log into `out`, line by line.
class Loader {
 public:
  explicit Loader(LoadResult& out) : out_(out) {}

  void run(std::string_view bytes) {
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
    Result<json::Value> parsed = json::parse(text);
    if (!parsed || !parsed->is_object()) {
      repair(RepairKind::corrupt_line, parsed ? "skipped a line that is not a JSON object"
                                              : "skipped a line that is not JSON: " +
                                                    parsed.error().message);
      return;
    }
    json::Object& o = parsed->as_object();
    const json::Value* type = o.find("type");
    bool is_header = type != nullptr && type->get_string() == kHeaderType;
    if (is_header) return header(o, text);
    if (!seen_header_) synthesize_header();
    entry(std::move(o), text);
  }

  void header(const json::Object& o, std::string_view text) {
    if (seen_header_) {
      repair(RepairKind::corrupt_line, "skipped a second header line");
      return;
    }
    seen_header_ = true;
    out_.header = header_from_object(o, text);
  }

  void synthesize_header() {
    seen_header_ = true;
    out_.header.synthesized = true;
    repair(RepairKind::missing_header,
           "the log has no header line; one was made up in memory (the file is not changed)");
  }

  void entry(json::Object o, std::string_view text) {
    Result<Entry> e = entry_from_object(std::move(o));
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
    index_.emplace(e->id, out_.entries.size());
    out_.entries.push_back(std::move(*e));
  }

  void reparent(Entry& e) {
    std::string to = out_.entries.empty() ? std::string() : out_.entries.back().id;
    repair(RepairKind::dangling_parent,
           "entry '" + e.id + "' named a missing parent '" + e.parent_id + "'; attached to " +
               (to.empty() ? std::string("the root") : "'" + to + "'"));
    e.parent_id = to;
    e.fields.set("parent_id", to.empty() ? json::Value() : json::Value(to));
    // An unknown entry keeps its bytes even so: this build cannot know what else a newer
    // version put in them. Loading them again repeats the same re-parenting (the entry before
    // it is the same), so the repair is stable without rewriting the line.
  }

  LoadResult& out_;
  std::size_t line_ = 0;
  bool seen_header_ = false;
  std::unordered_map<std::string, std::size_t> index_;
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
    case EntryType::message: return message_of(e).transform([](const Message&) {});
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

std::string now_timestamp() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char text[32];
  std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(ms % 1000));
  return text;
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
      json::dump_to(out, json::Value(e.fields));
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
  return message_from_json(*m);
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
    return make_error(Errc::parse_error, "thinking_level_change '" + e.id +
                                             "' names no known thinking level");
  }
  return level;
}

}  // namespace agentkit::session
