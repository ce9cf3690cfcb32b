#include "encoded_history.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace agentkit::providers::detail {
namespace {

constexpr std::size_t kInside = static_cast<std::size_t>(-1);

bool is_result(const Message& m) { return std::holds_alternative<ToolResultMessage>(m); }

}  // namespace

bool splits_result_runs(const Message& before, const Message& after) {
  return !(is_result(before) && is_result(after));
}

bool splits_result_runs_and_following_user(const Message& before, const Message& after) {
  return !(is_result(before) && (is_result(after) || std::holds_alternative<UserMessage>(after)));
}

std::size_t EncodedHistory::reusable_boundary(const Entry& entry, std::span<const Message> view,
                                              const Wire& wire) {
  // The last message is always encoded fresh (it may be marked), so at most view.size() - 1.
  const std::size_t limit = std::min(entry.messages.size(), view.empty() ? 0 : view.size() - 1);
  std::size_t same = 0;
  while (same < limit && entry.messages[same] == view[same]) ++same;
  for (std::size_t b = same; b > 0; --b) {
    if (entry.offsets[b] != kInside && wire.closed(view[b - 1], view[b])) return b;
  }
  return 0;
}

void EncodedHistory::append_array(std::string_view session, std::string context,
                                  std::span<const Message> view, const Wire& wire, std::string& out,
                                  CacheMeter& meter, std::string_view lead) {
  Entry entry;
  if (enabled_) {
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(std::string(session)); it != entries_.end()) {
      entry = std::move(it->second);
      entries_.erase(it);
    }
  }
  std::size_t kept = 0;
  if (entry.context == context && !entry.offsets.empty()) {
    kept = reusable_boundary(entry, view, wire);
  } else {
    entry.context = std::move(context);
  }
  entry.messages.erase(entry.messages.begin() + static_cast<std::ptrdiff_t>(kept),
                       entry.messages.end());
  entry.bytes.resize(kept == 0 ? 0 : entry.offsets[kept]);
  entry.offsets.resize(kept + 1);
  entry.offsets[kept] = entry.bytes.size();

  const std::size_t start = out.size();
  out += '[';
  out += lead;
  out += entry.bytes;
  std::size_t first = kept;
  for (std::size_t end = kept + 1; end <= view.size(); ++end) {
    // Off, the view is one segment: exactly the wire's whole encoding (what the tests compare to).
    if (end < view.size() && (!enabled_ || !wire.closed(view[end - 1], view[end]))) continue;
    Segment segment = wire.encode(view.subspan(first, end - first), end == view.size());
    out += segment.body_items.empty() ? segment.items : segment.body_items;
    if (enabled_) {
      entry.bytes += segment.items;
      for (std::size_t i = first; i < end; ++i) entry.messages.push_back(view[i]);
      entry.offsets.resize(end + 1, kInside);
      entry.offsets[end] = entry.bytes.size();
    }
    first = end;
  }
  if (out.size() > start + 1 && out.back() == ',') out.back() = ']';
  else out += ']';
  meter.record_encoded(session, static_cast<std::int64_t>(view.size() - kept),
                       static_cast<std::int64_t>(kept));

  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (entries_.size() >= kMaxSessions) entries_.clear();
  entries_.insert_or_assign(std::string(session), std::move(entry));
}

EncodedHistory::Segment dump_items(const json::Array& items) {
  EncodedHistory::Segment out;
  for (const auto& item : items) {
    json::dump_to(out.items, item);
    out.items += ',';
  }
  return out;
}

std::string declared_context(
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  std::string out;
  for (const auto& [id, tools] : declared_after) {
    out += id;
    out += '\0';
    for (const auto& t : tools) {
      out += *t;
      out += '\0';
    }
    out += '\1';
  }
  return out;
}

std::string object_around(json::Value head, std::string_view key,
                          const std::function<void(std::string&)>& write, json::Value tail) {
  std::string out;
  json::dump_to(out, head);  // "{...}" with at least one member
  out.back() = ',';
  if (out.size() == 2) out.pop_back();  // "{}" had no members
  json::append_quoted(out, key);
  out += ':';
  write(out);
  const std::size_t rest = out.size();
  json::dump_to(out, tail);
  if (out.size() - rest == 2) {  // "{}"
    out.resize(rest);
    out += '}';
  } else {
    out[rest] = ',';
  }
  return out;
}

}  // namespace agentkit::providers::detail
