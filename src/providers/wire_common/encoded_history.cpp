#include "encoded_history.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <variant>

#include "agentkit/base/strings.hpp"

namespace agentkit::providers::detail {
namespace {

bool is_result(const Message& m) { return std::holds_alternative<ToolResultMessage>(m); }

}  // namespace

bool splits_result_runs(const Message& before, const Message& after) {
  return !(is_result(before) && is_result(after));
}

bool splits_result_runs_and_following_user(const Message& before, const Message& after) {
  return !(is_result(before) && (is_result(after) || std::holds_alternative<UserMessage>(after)));
}

bool same_for_encoding(const Message& a, const Message& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<AssistantMessage>(&a)) {
    const auto& y = std::get<AssistantMessage>(b);
    return x->content == y.content && x->stop_reason == y.stop_reason &&
           x->raw_stop_reason == y.raw_stop_reason && x->error_message == y.error_message &&
           x->provider == y.provider && x->api == y.api && x->model == y.model &&
           x->response_model == y.response_model && x->response_id == y.response_id;
  }
  if (const auto* x = std::get_if<ToolResultMessage>(&a)) {
    const auto& y = std::get<ToolResultMessage>(b);
    return x->tool_use_id == y.tool_use_id && x->tool_name == y.tool_name &&
           x->is_error == y.is_error && x->content == y.content &&
           x->added_tool_names == y.added_tool_names;
  }
  return std::get<UserMessage>(a).content == std::get<UserMessage>(b).content;
}

Message kept_copy(const Message& m) {
  if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
    ToolResultMessage copy;
    copy.tool_use_id = r->tool_use_id;
    copy.tool_name = r->tool_name;
    copy.content = r->content;
    copy.is_error = r->is_error;
    copy.added_tool_names = r->added_tool_names;
    return copy;
  }
  Message copy = m;
  if (auto* a = std::get_if<AssistantMessage>(&copy)) a->usage = Usage{};
  return copy;
}

EncodedHistory::Kept EncodedHistory::reusable(const Entry& entry, std::span<const Message> view,
                                              const Wire& wire, HistoryPromise promise) {
  // The last message is always encoded fresh (it may be marked), so at most view.size() - 1.
  const std::size_t limit = std::min(entry.encoded(), view.empty() ? 0 : view.size() - 1);
  std::size_t same = 0;
  // Promised now and when encoded: equal without a look.
  if (promise.serial != 0 && promise.serial == entry.serial) {
    same = std::min({entry.promised, promise.prefix, limit});
  }
  while (same < limit && same >= entry.copies_from &&
         same_for_encoding(entry.copies[same - entry.copies_from], view[same])) {
    ++same;
  }
  for (std::size_t k = entry.ends.size(); k > 0; --k) {
    const std::size_t b = entry.ends[k - 1];
    if (b <= same && wire.closed(view[b - 1], view[b])) return {b, k};
  }
  return {};
}

// Leaves entry.copies holding the view's messages [from, kept) (none when from >= kept): the
// kept ones the next request may have to compare; the caller appends the new ones from
// max(kept, from). view[0, kept) equal what was encoded.
void EncodedHistory::keep_copies(Entry& entry, std::span<const Message> view, std::size_t kept,
                                 std::size_t from) {
  const auto cut = [&](std::size_t n) {
    entry.copies.erase(entry.copies.begin() + static_cast<std::ptrdiff_t>(n), entry.copies.end());
  };
  cut(std::min(entry.copies.size(), kept > entry.copies_from ? kept - entry.copies_from : 0));
  if (from >= entry.copies_from) {
    const std::size_t drop = std::min(entry.copies.size(), from - entry.copies_from);
    entry.copies.erase(entry.copies.begin(),
                       entry.copies.begin() + static_cast<std::ptrdiff_t>(drop));
  } else {  // the promise was lost: copy what it had covered from the view
    entry.copies.clear();
    for (std::size_t i = from; i < kept; ++i) entry.copies.push_back(kept_copy(view[i]));
  }
  entry.copies_from = from;
}

void EncodedHistory::append_array(std::string_view session, std::string context,
                                  std::span<const Message> view, const Wire& wire, std::string& out,
                                  CacheMeter& meter, HistoryPromise promise, std::string_view lead,
                                  std::size_t reserve_after) {
  Entries::node_type node;  // the session's entry, out of the table while it is used
  if (enabled_) {
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(session); it != entries_.end()) {
      bytes_ -= it->second.bytes;
      node = entries_.extract(it);
    }
  }
  Entry fresh;
  Entry& entry = node ? node.mapped() : fresh;
  if (entry.lease != 0) forget_text(entry);  // its bytes are still out with a body
  Kept kept;
  if (entry.context == context) {
    kept = reusable(entry, view, wire, promise);
  } else {
    entry.context = std::move(context);
  }
  // What the next request may trust without a look; copies of the rest.
  const std::size_t promised = promise.serial != 0 ? std::min(promise.prefix, view.size()) : 0;
  keep_copies(entry, view, kept.messages, promised);
  entry.serial = promise.serial;
  entry.promised = promised;
  entry.ends.resize(kept.segments);

  // The new segments first, so the body is sized once and written in one pass.
  std::string whole;  // reuse off: the view as one segment
  std::vector<Segment>& added = entry.added;
  std::size_t first = kept.messages;
  for (std::size_t end = first + 1; end <= view.size(); ++end) {
    // Off, the view is one segment: exactly the wire's whole encoding (what the tests compare to).
    if (end < view.size() && (!enabled_ || !wire.closed(view[end - 1], view[end]))) continue;
    Segment segment = wire.encode(view.subspan(first, end - first), end == view.size());
    if (!enabled_) {
      whole = segment.body_items.empty() ? std::move(segment.items) : std::move(segment.body_items);
    } else {
      added.push_back(std::move(segment));
      entry.ends.push_back(end);
      for (std::size_t i = std::max(first, promised); i < end; ++i) {
        entry.copies.push_back(kept_copy(view[i]));
      }
    }
    first = end;
  }
  // The kept segments: those in the text, and the one kept apart when the body last carried
  // another form of it (Anthropic's rolling breakpoint on the last segment).
  const std::size_t from_text = std::min(kept.segments, entry.in_text.size());
  const bool kept_apart = kept.segments > from_text;
  const std::size_t text_bytes = entry.text_bytes(from_text);  // as kept: splices cut out
  entry.splices.erase(entry.splices.begin() +
                          static_cast<std::ptrdiff_t>(splices_within(entry.splices, text_bytes)),
                      entry.splices.end());
  std::size_t spliced_bytes = 0;
  for (const Splice& splice : entry.splices) spliced_bytes += splice.length;
  // What the body carries for each new segment: the last one's body form when it has one.
  const auto carried = [&](std::size_t k) -> const std::string& {
    const Segment& segment = added[k];
    return k + 1 == added.size() && !segment.body_items.empty() ? segment.body_items
                                                                : segment.items;
  };
  std::size_t bytes =
      whole.size() + text_bytes + spliced_bytes + (kept_apart ? entry.last_items.size() : 0);
  for (std::size_t k = 0; k < added.size(); ++k) bytes += carried(k).size();
  const std::size_t start = out.size();
  const std::size_t items_at = start + 1 + lead.size();
  const std::size_t needed = items_at + 1 + bytes + reserve_after;
  if (promise.lend && entry.splices.empty() && holds_body_for(entry, out, lead, text_bytes)) {
    // The entry's text is the body this session last sent, with the same head: the new body is
    // written over it, and the kept items are not copied. A large body is given an eighth more
    // room when it must grow, so a long session's turns allocate no body and copy no history
    // until they have added an eighth to it. A small one is grown to its size: copying it costs
    // little, and the room would be held by every one of many short sessions between turns.
    std::string body = std::move(entry.text);
    body.resize(items_at + text_bytes);
    if (body.capacity() < needed) {
      // A new string, sized here: reserve() on the old one may double its capacity instead.
      std::string grown;
      grown.reserve(needed >= kBodyRoomFrom ? needed + needed / 8 : needed);
      grown.append(body);
      body.swap(grown);
    }
    out.swap(body);
  } else {
    out.reserve(needed);
    out += '[';
    out += lead;
    append_restored(out, std::string_view(entry.text).substr(entry.at, text_bytes), entry.splices);
  }
  if (kept_apart) out += entry.last_items;
  for (std::size_t k = 0; k < added.size(); ++k) out += carried(k);
  out += whole;
  if (out.size() > start + 1 && out.back() == ',') out.back() = ']';
  else out += ']';
  meter.record_encoded(session, static_cast<std::int64_t>(view.size() - kept.messages),
                       static_cast<std::int64_t>(kept.messages));

  if (!enabled_) return;
  std::string lent;  // the text the body now carries a copy of; freed after the lock
  if (promise.lend) {
    lent = std::move(entry.text);
    lend_text(entry, from_text, kept_apart, added);
    entry.lease = leases_.fetch_add(1, std::memory_order_relaxed) + 1;
    promise.lend->lease = entry.lease;
    promise.lend->at = items_at;
    // The splices go with the text: the body's, until it comes back (no copy of the list).
    promise.lend->splices = std::move(entry.splices);
    entry.splices.clear();
  } else {
    keep_text(entry, from_text, kept_apart, added);
  }
  added.clear();
  entry.count_bytes();
  if (!node) {
    Entries one;
    one.emplace(std::string(session), std::move(fresh));
    node = one.extract(one.begin());
  }
  std::vector<Entries::node_type> dropped;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  place(std::move(node), dropped);
}

bool EncodedHistory::holds_body_for(const Entry& entry, std::string_view head,
                                    std::string_view lead, std::size_t text_bytes) {
  const std::string_view text = entry.text;
  return text_bytes > 0 && entry.at == head.size() + 1 + lead.size() &&
         text.size() >= entry.at + text_bytes && text.substr(0, head.size()) == head &&
         text[head.size()] == '[' && text.substr(head.size() + 1, lead.size()) == lead;
}

std::size_t EncodedHistory::splices_within(std::span<const Splice> splices,
                                           std::size_t kept_bytes) {
  // A splice starts inside an item (after its '{'), never where a segment starts.
  return static_cast<std::size_t>(
      std::partition_point(splices.begin(), splices.end(),
                           [&](const Splice& splice) { return splice.at < kept_bytes; }) -
      splices.begin());
}

void EncodedHistory::append_cut(std::string& own, const Segment& segment,
                                std::vector<Splice>& kept_splices) {
  std::size_t pos = 0;
  for (const Splice& splice : segment.splices) {
    own.append(segment.items, pos, splice.at - pos);
    kept_splices.push_back({own.size(), splice.length, splice.bytes, splice.quoted});
    pos = splice.at + splice.length;
  }
  own.append(segment.items, pos);
}

void EncodedHistory::make_room(std::vector<Splice>& splices, const std::vector<Segment>& added) {
  // Room for 8 at first, then doubling: a session's list grows a call at a time.
  constexpr std::size_t kFirstRoom = 8;
  std::size_t needed = splices.size();
  for (const Segment& segment : added) needed += segment.splices.size();
  if (needed > splices.capacity()) splices.reserve(std::max(kFirstRoom, 2 * needed));
}

std::size_t EncodedHistory::cut_size(const Segment& segment) {
  std::size_t n = segment.items.size();
  for (const Splice& splice : segment.splices) n -= splice.length;
  return n;
}

void EncodedHistory::forget_text(Entry& entry) {
  entry.text_closes_array = false;
  entry.splices.clear();
  entry.ends.clear();
  entry.in_text.clear();
  entry.text = std::string();
  entry.at = 0;
  entry.last_items = std::string();
  entry.lease = 0;
}

// The layout of the body just written: the kept segments where they were, then the new ones; a
// new last segment whose body form differs is kept apart in its plain form.
void EncodedHistory::lend_text(Entry& entry, std::size_t from_text, bool kept_apart,
                               std::vector<Segment>& added) {
  entry.in_text.resize(from_text);
  std::size_t offset = entry.text_bytes(from_text);
  if (kept_apart) entry.in_text.push_back(offset += entry.last_items.size());
  std::string apart;
  make_room(entry.splices, added);
  for (std::size_t k = 0; k < added.size(); ++k) {
    if (k + 1 == added.size() && !added[k].body_items.empty()) {
      apart = std::move(added[k].items);  // whole: its splices are not cut
      apart.shrink_to_fit();
    } else {
      // The body comes back with the segment's splices cut out (give_back).
      std::size_t cut = 0;
      for (const Splice& splice : added[k].splices) {
        entry.splices.push_back(
            {offset + splice.at - cut, splice.length, splice.bytes, splice.quoted});
        cut += splice.length;
      }
      entry.in_text.push_back(offset += added[k].items.size() - cut);
    }
  }
  entry.text = std::string();
  entry.at = 0;
  entry.text_closes_array = offset > 0 && apart.empty();
  entry.last_items = std::move(apart);
}

// Every kept segment in the entry's own text, from its start.
void EncodedHistory::keep_text(Entry& entry, std::size_t from_text, bool kept_apart,
                               const std::vector<Segment>& added) {
  std::size_t total = entry.text_bytes(from_text) + (kept_apart ? entry.last_items.size() : 0);
  for (const Segment& segment : added) total += cut_size(segment);
  // Kept for the session's life, so kept without much slack: exact when first made, an eighth
  // more than it holds when a kept history grows (one copy per eighth of growth), never more
  // than half spare.
  std::string own;
  if (entry.at != 0 || kept_apart || entry.text.capacity() < total ||
      entry.text.capacity() - total > total / 2) {
    own.reserve(from_text == 0 ? total : total + total / 8);
    own.append(entry.text, entry.at, entry.text_bytes(from_text));
  } else {
    own = std::move(entry.text);
    own.resize(entry.text_bytes(from_text));
  }
  entry.in_text.resize(from_text);
  if (kept_apart) {
    own += entry.last_items;
    entry.in_text.push_back(own.size());
  }
  make_room(entry.splices, added);
  for (const Segment& segment : added) {
    append_cut(own, segment, entry.splices);
    entry.in_text.push_back(own.size());
  }
  entry.text = std::move(own);
  entry.at = 0;
  entry.last_items = std::string();
  entry.lease = 0;
}

void EncodedHistory::give_back(std::string_view session, HistoryLend lend, std::string body) {
  if (!enabled_ || lend.lease == 0) return;
  std::vector<Entries::node_type> dropped;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  auto it = entries_.find(session);
  if (it == entries_.end() || it->second.lease != lend.lease) return;
  Entry& entry = it->second;
  bytes_ -= entry.bytes;
  const std::size_t n = entry.text_bytes(entry.in_text.size());
  const bool fits = lend.at <= body.size() && body.size() - lend.at >= n;
  if (!fits || (entry.text_closes_array && body[lend.at + n - 1] != ']')) {
    forget_text(entry);  // not the body it lent to: keep nothing rather than wrong bytes
  } else {
    if (entry.text_closes_array) body[lend.at + n - 1] = ',';  // the items' own last byte
    entry.text_closes_array = false;
    entry.text = std::move(body);
    entry.at = lend.at;
    entry.splices = std::move(lend.splices);
    entry.lease = 0;
  }
  entry.count_bytes();
  bytes_ += entry.bytes;
  trim_to_budget(it, dropped);
}

void EncodedHistory::forget(std::string_view session) {
  Entries::node_type dropped;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  auto it = entries_.find(session);
  if (it == entries_.end()) return;
  bytes_ -= it->second.bytes;
  dropped = entries_.extract(it);
}

void EncodedHistory::place(Entries::node_type node, std::vector<Entries::node_type>& dropped) {
  node.mapped().used = ++clock_;
  const std::size_t added = node.mapped().bytes;
  auto placed = entries_.insert(std::move(node));
  if (!placed.inserted) {
    // A concurrent request of the session put one back first: the later encoding wins.
    bytes_ -= placed.position->second.bytes;
    placed.position->second = std::move(placed.node.mapped());
  }
  bytes_ += added;
  trim_to_budget(placed.position, dropped);
}

void EncodedHistory::trim_to_budget(Entries::iterator keep,
                                    std::vector<Entries::node_type>& dropped) {
  if (bytes_ <= budget_bytes_) return;
  // Over the budget: the least recently used others go until a quarter of it is free, so a full
  // table sorts once per many requests, not on each.
  std::vector<std::pair<std::uint64_t, Entries::iterator>> by_use;
  by_use.reserve(entries_.size());
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it != keep) by_use.emplace_back(it->second.used, it);
  }
  std::sort(by_use.begin(), by_use.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t target = budget_bytes_ - budget_bytes_ / 4;
  for (const auto& [used, it] : by_use) {
    if (bytes_ <= target) break;
    bytes_ -= it->second.bytes;
    dropped.push_back(entries_.extract(it));
  }
}

EncodedHistory::Segment dump_items(const json::Array& items) {
  // Dumped into a roomy buffer that is itself the segment: a segment lives only until its bytes
  // are copied into the body (and into an entry's own text), so its spare room costs nothing
  // kept. (Not a buffer kept per thread: a thousand sessions on a thousand threads would each
  // keep one.)
  constexpr std::size_t kScratchBytes = 8 * 1024;
  std::string scratch;
  scratch.reserve(kScratchBytes);
  for (const auto& item : items) {
    json::dump_to(scratch, item);
    scratch += ',';
  }
  return EncodedHistory::Segment{std::move(scratch), {}, {}};
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

namespace {

// About the bytes json::dump writes for `value`: exact for raw bytes and plain strings, short for
// escapes and long numbers. A buffer reserved with it grows at most once, where a dump into an
// empty string grew by doubling: a dozen allocations and twice the bytes for a request's tail
// (its tools' schemas) on every request.
std::size_t dumped_size_hint(const json::Value& value) {
  constexpr std::size_t kScalar = 8;  // "false", a short number
  if (const json::Raw* raw = value.get_raw()) return raw->bytes().size();
  if (value.is_string()) return value.as_string().size() + 2;
  if (value.is_array()) {
    std::size_t n = 2;
    for (const json::Value& item : value.as_array()) n += dumped_size_hint(item) + 1;
    return n;
  }
  if (value.is_object()) {
    std::size_t n = 2;
    for (const json::Member& m : value.as_object())
      n += m.key.size() + 4 + dumped_size_hint(m.value);
    return n;
  }
  return kScalar;
}

}  // namespace

std::string object_around(json::Value head, std::string_view key,
                          const std::function<void(std::string&, std::size_t)>& write,
                          json::Value tail) {
  std::string out;
  out.reserve(dumped_size_hint(head) + key.size() + 4);
  json::dump_to(out, head);  // "{...}" with at least one member
  out.back() = ',';
  if (out.size() == 2) out.pop_back();  // "{}" had no members
  json::append_quoted(out, key);
  out += ':';
  // The writer sizes the body for the tail, with room for what the hint leaves out (escapes, long
  // numbers): a tail that outgrew the body would grow it with a copy of the whole history.
  constexpr std::size_t kTailSlack = 64;
  write(out, dumped_size_hint(tail) + kTailSlack);
  const std::size_t at = out.size();
  json::dump_to(out, tail);    // into the body itself: its '{' becomes the ',' after the array
  if (out.size() - at == 2) {  // "{}"
    out.resize(at);
    out += '}';
  } else {
    out[at] = ',';
  }
  return out;
}

namespace {

// What a block puts into an item besides its keys: its texts, ids and bytes.
std::size_t block_bytes(const ContentBlock& block) {
  constexpr std::size_t kUnknownBytes = 256;  // a kept raw block's size is unknown until dumped
  if (const auto* t = std::get_if<TextBlock>(&block)) return t->text.size();
  if (const auto* t = std::get_if<ThinkingBlock>(&block))
    return t->thinking.size() + t->signature.size() + t->id.size();
  if (const auto* c = std::get_if<ToolUseBlock>(&block))
    return c->id.size() + c->name.size() + c->input.bytes().size() + c->thought_signature.size();
  if (const auto* i = std::get_if<ImageBlock>(&block))
    return i->mime_type.size() + i->data_base64.size();
  return kUnknownBytes;
}

}  // namespace

std::size_t segment_bytes_hint(std::span<const Message> segment) {
  constexpr std::size_t kMessageBytes = 96;  // role, keys, punctuation of a message
  constexpr std::size_t kBlockBytes = 64;    // the same of a block, call or part
  std::size_t bytes = 0;
  for (const Message& message : segment) {
    bytes += kMessageBytes;
    std::visit(
        [&](const auto& m) {
          for (const ContentBlock& block : m.content) bytes += kBlockBytes + block_bytes(block);
        },
        message);
    if (const auto* r = std::get_if<ToolResultMessage>(&message))
      bytes += r->tool_use_id.size() + r->tool_name.size();
  }
  return bytes + bytes / 4;  // escapes: a call's arguments are quoted again on some wires
}

bool valid_arguments(const json::Raw& arguments) {
  auto flat = json::parse_flat(arguments.bytes(), {}, [](const json::FlatMember&) {});
  if (!flat) return false;
  return *flat || arguments.valid();
}

void write_splice(std::string& out, const Splice& splice) {
  if (splice.quoted) {
    json::append_quoted(out, splice.bytes.bytes());
  } else {
    out += splice.bytes.bytes();
  }
}

void append_shared_raw(std::string& out, const json::Raw& shared, std::vector<Splice>* splices) {
  const std::size_t at = out.size();
  out += shared.bytes();
  if (splices != nullptr && shared.bytes().size() >= kSpliceFromBytes) {
    splices->push_back({at, out.size() - at, shared, false});
  }
}

void append_object_arguments(std::string& out, const ToolUseBlock& call,
                             std::vector<Splice>* splices) {
  const std::string_view bytes = trim_ows(call.input.bytes());
  if (!bytes.empty() && bytes.front() == '{' && valid_arguments(call.input)) {
    append_shared_raw(out, call.input, splices);
  } else {
    out += "{}";
  }
}

void cut_splices(std::string& bytes, std::size_t from, std::span<const Splice> splices) {
  if (splices.empty()) return;
  std::size_t write = from + splices[0].at;
  std::size_t cut = 0;  // the written lengths of the splices before the one at hand
  for (std::size_t i = 0; i < splices.size(); ++i) {
    cut += splices[i].length;
    const std::size_t read = from + splices[i].at + cut;  // the bytes after it, in `bytes`
    const std::size_t next = i + 1 < splices.size() ? from + splices[i + 1].at + cut : bytes.size();
    std::memmove(bytes.data() + write, bytes.data() + read, next - read);
    write += next - read;
  }
  bytes.resize(write);
  bytes.shrink_to_fit();  // the point: what a body holds through the model's wait
}

std::string restore_splices(std::string_view bytes, std::size_t from,
                            std::span<const Splice> splices) {
  std::size_t total = bytes.size();
  for (const Splice& splice : splices) total += splice.length;
  std::string out;
  out.reserve(total);
  out.append(bytes.substr(0, from));
  append_restored(out, bytes.substr(from), splices);
  return out;
}

void append_restored(std::string& out, std::string_view cut, std::span<const Splice> splices) {
  std::size_t pos = 0;
  for (const Splice& splice : splices) {
    out.append(cut.substr(pos, splice.at - pos));
    write_splice(out, splice);
    pos = splice.at;
  }
  out.append(cut.substr(pos));
}

void MemberWriter::add_shared(std::string_view key, const json::Raw& shared) {
  std::string& out = open(key);
  const std::size_t at = out.size();
  json::append_quoted(out, shared.bytes());
  if (splices_ != nullptr && shared.bytes().size() >= kSpliceFromBytes) {
    splices_->push_back({at, out.size() - at, shared, true});
  }
}

std::string& MemberWriter::open(std::string_view key) {
  if (!first_) out_ += ',';
  first_ = false;
  json::append_quoted(out_, key);
  out_ += ':';
  return out_;
}

void MemberWriter::add(std::string_view key, std::string_view string_value) {
  json::append_quoted(open(key), string_value);
}

void MemberWriter::add_value(std::string_view key, const json::Value& value) {
  json::dump_to(open(key), value);
}

}  // namespace agentkit::providers::detail
