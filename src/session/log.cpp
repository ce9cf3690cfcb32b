// The log writer: exclusive creation, write-through appends, durability, fork and resume.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <unordered_map>

#include "format.hpp"

namespace agentkit::session {
namespace {

using std::string_view_literals::operator""sv;

// Entry ids are 8 hex digits, unique within the log: short enough to read in a diff, and 2^32
// values make a retry on collision rare even at 100,000 entries.
constexpr int kEntryIdDigits = 8;

// The line buffer kept between appends; most lines are a few kilobytes.
constexpr std::size_t kKeptLineCapacity = std::size_t{64} << 10;

std::string random_hex(std::mt19937_64& rng, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  std::uint64_t bits = rng();
  for (int i = 0; i < digits; ++i) {
    if (i == 16) bits = rng();
    out[static_cast<std::size_t>(i)] = kHex[bits & 0xF];
    bits >>= 4;
  }
  return out;
}

std::string default_holder(std::string_view holder) {
  if (!holder.empty()) return std::string(holder);
  return "pid " + std::to_string(::getpid());
}

std::string current_directory() {
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? std::string() : cwd.string();
}

}  // namespace

struct Log::Index {
  std::unordered_map<std::string, std::size_t> position;
  std::mt19937_64 rng{std::random_device{}()};
  // The line being appended, reused so that an append allocates nothing for its text; a
  // buffer grown past kKeptLineCapacity (an image, a long tool result) is given back.
  std::string line;
  void release_large_line() {
    if (line.capacity() > kKeptLineCapacity) line = std::string();
  }
};

Log::Log(std::unique_ptr<Store> store, Durability durability)
    : store_(std::move(store)), durability_(durability), index_(std::make_unique<Index>()) {}
Log::Log(Log&&) noexcept = default;
Log& Log::operator=(Log&&) noexcept = default;
Log::~Log() = default;

Result<Log> Log::create(std::unique_ptr<Store> store, const CreateOptions& options) {
  Log log(std::move(store), options.durability);
  Header& h = log.contents_.header;
  h.id = options.id.empty() ? random_hex(log.index_->rng, 32) : options.id;
  h.timestamp = detail::now_timestamp();
  h.cwd = options.cwd.empty() ? current_directory() : options.cwd;
  std::string line = detail::header_line(h) + "\n";
  if (auto created = log.store_->create(line); !created) return created.error();
  if (auto locked = log.store_->lock(default_holder(options.holder)); !locked) {
    return locked.error();
  }
  if (options.durability == Durability::every_entry) {
    if (auto synced = log.store_->sync(); !synced) return synced.error();
  }
  log.contents_.intact_bytes = line.size();
  return log;
}

Result<Log> Log::open(std::unique_ptr<Store> store, const OpenOptions& options) {
  Log log(std::move(store), options.durability);
  if (auto locked = log.store_->lock(default_holder(options.holder)); !locked) {
    return locked.error();
  }
  std::uint64_t stored_bytes = 0;
  Result<LoadResult> loaded = detail::load_counting(*log.store_, stored_bytes);
  if (!loaded) return loaded.error();
  log.contents_ = std::move(*loaded);
  // A torn last line (or NUL padding) would have the next line glued onto it: cut it off. The
  // rest of the file is never touched.
  if (log.contents_.intact_bytes < stored_bytes) {
    if (auto cut = log.store_->truncate(log.contents_.intact_bytes); !cut) return cut.error();
  }
  log.index_->position.reserve(log.contents_.entries.size());
  for (std::size_t i = 0; i < log.contents_.entries.size(); ++i) {
    log.index_->position.emplace(log.contents_.entries[i].id, i);
  }
  if (!log.contents_.entries.empty()) log.leaf_ = log.contents_.entries.back().id;
  return log;
}

const Entry* Log::find(std::string_view id) const {
  auto it = index_->position.find(std::string(id));
  return it == index_->position.end() ? nullptr : &contents_.entries[it->second];
}

Entry Log::next_entry(EntryType type) {
  Entry e;
  // The id is claimed in the index at once (one hash lookup): commit() always adds the entry at
  // that position, whatever the store answers.
  do {
    e.id = random_hex(index_->rng, kEntryIdDigits);
  } while (!index_->position.try_emplace(e.id, contents_.entries.size()).second);
  e.parent_id = leaf_;
  e.type = type;
  e.type_name = std::string(to_string(type));
  e.timestamp = detail::now_timestamp();
  return e;
}

Result<std::string> Log::append_entry(EntryType type, json::Object payload) {
  Entry e = next_entry(type);
  e.fields = std::move(payload);
  std::string& line = index_->line;
  line.clear();
  detail::append_entry_line(line, e);
  line += '\n';
  Result<std::string> id = commit(std::move(e), line);
  index_->release_large_line();
  return id;
}

Result<std::string> Log::commit(Entry entry, std::string_view line) {
  // The entry joins the in-memory log whatever the store answers: a failed write costs the
  // file an entry, never the conversation a turn. (Its id is in the index since next_entry.)
  leaf_ = entry.id;
  contents_.entries.push_back(std::move(entry));
  if (auto written = store_->append(line); !written) return written.error();
  contents_.intact_bytes += line.size();
  if (durability_ == Durability::every_entry) {
    if (auto synced = store_->sync(); !synced) return synced.error();
  }
  return leaf_;
}

Result<std::string> Log::append_message(const Message& message) {
  // The line is written straight from the message (no JSON tree), into a buffer reused from
  // append to append, and written with one write(2). The entry keeps the message as its encoded
  // text (a json::Raw), as the loader keeps it: a tenth of the memory of a tree.
  Entry e = next_entry(EntryType::message);
  std::string& line = index_->line;
  line.clear();
  detail::append_envelope(line, e);
  line += R"(,"message":)"sv;
  const std::size_t text_start = line.size();
  append_json_text(line, message);
  e.fields.append_unique("message", json::Raw(line.substr(text_start)));
  line += "}\n"sv;
  Result<std::string> id = commit(std::move(e), line);
  index_->release_large_line();
  return id;
}

Result<std::string> Log::append_model_change(const ModelRef& model) {
  json::Object payload;
  payload.append_unique("provider", model.provider);
  payload.append_unique("api", model.api);
  payload.append_unique("model", model.model);
  return append_entry(EntryType::model_change, std::move(payload));
}

Result<std::string> Log::append_thinking_level(std::optional<ThinkingLevel> level) {
  json::Object payload;
  payload.append_unique("thinking_level",
                        level ? json::Value(std::string(to_string(*level))) : json::Value());
  return append_entry(EntryType::thinking_level_change, std::move(payload));
}

Result<std::string> Log::append_compaction(std::string_view summary,
                                           std::string_view first_kept_entry_id) {
  // An anchor off the branch would make every later load "repair" damage we wrote ourselves.
  bool on_branch = false;
  for (const Entry* e : branch(contents_.entries, leaf_)) on_branch |= e->id == first_kept_entry_id;
  if (!on_branch) {
    return make_error(Errc::not_found, "compaction anchor '" + std::string(first_kept_entry_id) +
                                           "' is not an entry on the current branch");
  }
  json::Object payload;
  payload.append_unique("summary", std::string(summary));
  payload.append_unique("first_kept_entry_id", std::string(first_kept_entry_id));
  return append_entry(EntryType::compaction, std::move(payload));
}

Result<std::string> Log::append_compaction(const CompactionRecord& record) {
  std::vector<const Entry*> path = branch(contents_.entries, leaf_);
  auto kept = std::find_if(path.begin(), path.end(),
                           [&](const Entry* e) { return e->id == record.first_kept_entry_id; });
  if (kept == path.end()) {
    return make_error(Errc::not_found, "compaction anchor '" + record.first_kept_entry_id +
                                           "' is not an entry on the current branch");
  }
  for (const std::string& id : record.pinned_entry_ids) {
    if (std::none_of(path.begin(), kept, [&](const Entry* e) { return e->id == id; })) {
      return make_error(Errc::not_found, "compaction keeps entry '" + id +
                                             "', which is not on the branch before its kept point");
    }
  }
  return append_entry(EntryType::compaction, detail::compaction_payload(record));
}

Result<std::string> Log::append_custom_message(std::string_view custom_type,
                                               std::string_view content) {
  json::Object payload;
  payload.append_unique("custom_type", std::string(custom_type));
  payload.append_unique("content", std::string(content));
  return append_entry(EntryType::custom_message, std::move(payload));
}

Result<bool> Log::record_model(const ModelRef& model) {
  if (detail::fold_settings(branch(contents_.entries, leaf_)).model == model) return false;
  if (auto appended = append_model_change(model); !appended) return appended.error();
  return true;
}

Result<bool> Log::record_thinking(std::optional<ThinkingLevel> level) {
  if (detail::fold_settings(branch(contents_.entries, leaf_)).thinking == level) return false;
  if (auto appended = append_thinking_level(level); !appended) return appended.error();
  return true;
}

Result<std::string> Log::append_approval_request(std::span<const PendingApproval> calls) {
  json::Array list;
  list.reserve(calls.size());
  for (const PendingApproval& p : calls) list.push_back(to_json(p));
  json::Object payload;
  payload.append_unique("calls", std::move(list));
  return append_entry(EntryType::approval_request, std::move(payload));
}

Result<std::string> Log::append_approval_decision(std::span<const ApprovalDecision> decisions) {
  json::Array list;
  list.reserve(decisions.size());
  for (const ApprovalDecision& d : decisions) list.push_back(to_json(d));
  json::Object payload;
  payload.append_unique("decisions", std::move(list));
  return append_entry(EntryType::approval_decision, std::move(payload));
}

Result<std::string> Log::append_tool_call_started(std::string_view tool_use_id,
                                                  std::string_view tool_name) {
  json::Object payload;
  payload.append_unique("tool_use_id", std::string(tool_use_id));
  payload.append_unique("tool_name", std::string(tool_name));
  return append_entry(EntryType::tool_call_started, std::move(payload));
}

Result<void> Log::fork(std::string_view entry_id) {
  if (!entry_id.empty() && find(entry_id) == nullptr) {
    return make_error(Errc::not_found, "cannot fork: no entry '" + std::string(entry_id) +
                                           "' in " + store_->describe());
  }
  leaf_ = std::string(entry_id);
  return {};
}

Result<std::string> Log::leave_branch(std::string_view entry_id, std::string_view summary) {
  std::string from = leaf_;
  if (auto forked = fork(entry_id); !forked) return forked.error();
  json::Object payload;
  payload.append_unique("from_id", from);
  payload.append_unique("summary", std::string(summary));
  return append_entry(EntryType::branch_summary, std::move(payload));
}

Result<void> Log::end_turn() {
  if (durability_ != Durability::every_turn) return {};
  return store_->sync();
}

}  // namespace agentkit::session
