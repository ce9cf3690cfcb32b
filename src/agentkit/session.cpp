// The Session handle, event fan-out, send(), close(), SessionHandle and Input.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <random>

#include "agentkit/base/hex.hpp"
#include "internal.hpp"

namespace agentkit {
namespace detail {

std::string generate_session_id() {
  // One device for the process: opening one costs more than a session start should (on x86 it
  // probes the CPU, which a virtual machine traps). Its calls are not thread-safe, so a lock.
  static std::mutex mu;
  static std::random_device rd;
  std::string bytes(16, '\0');
  {
    std::lock_guard lock(mu);
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      const std::uint32_t word = rd();
      for (std::size_t j = 0; j < 4; ++j)
        bytes[i + j] = static_cast<char>((word >> (8 * j)) & 0xff);
    }
  }
  return "ses_" + hex::encode(bytes);
}

bool SessionCore::has_listeners() const noexcept {
  return subscriber_count.load(std::memory_order_relaxed) != 0 ||
         !agent->runtime.observability.observers.empty() || agent->delegation != nullptr;
}

void SessionCore::emit(Event e) {
  // A subagent's child: its events also go to the parent's session, tagged with its path.
  if (agent->delegation && agent->delegation->forward) agent->delegation->forward(e);
  // Observers first, synchronously, without our lock; a throwing observer never ends the run.
  for (const auto& observer : agent->runtime.observability.observers) {
    try {
      observer(e);
    } catch (...) {
      // Reported to subscribers only: re-entering observers with the error could loop.
      std::lock_guard lock(mu);
      for (auto& s : subscribers) s.push(ErrorEvent{make_error(Errc::internal, "an observer threw"), false});
    }
  }
  if (subscriber_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu);
  for (std::size_t i = 0; i + 1 < subscribers.size(); ++i) subscribers[i].push(e);
  if (!subscribers.empty()) subscribers.back().push(std::move(e));
  std::size_t before = subscribers.size();
  std::erase_if(subscribers, [](const EventSink& s) { return !s.consumer_alive(); });
  if (subscribers.size() != before) subscriber_count.store(subscribers.size(), std::memory_order_relaxed);
}

std::uint64_t next_view_serial() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

PromisedMessages& promised_messages() {
  thread_local PromisedMessages promised;
  return promised;
}

SessionHandle make_snapshot(const SessionCore& session) {
  auto state = std::make_shared<SessionState>();
  std::lock_guard lock(session.mu);
  state->session_id = session.id;
  state->store = session.store;  // shared: the history only grows
  state->count = session.committed;
  state->usage = session.usage;
  state->approvals = session.approvals;
  // A checkpoint made for the turn in flight (its kept part not yet committed) is left out: the
  // resumed session compacts again if it needs to.
  const CompactionCheckpoint& cp = session.compaction;
  if (cp.active() && cp.prefix_len <= session.committed) {
    state->compaction = cp;
    state->compaction.created_at = std::min(cp.created_at, session.committed);
  }
  return SessionStateAccess::make(std::move(state));
}

void SessionCore::close() {
  std::unique_lock lock(mu);
  if (closed) return;
  closed = true;
  close_source.request_stop();
  run_finished.wait(lock, [&] { return !run_active; });
  for (auto& s : subscribers) s.close();
  subscribers.clear();
  subscriber_count.store(0);
  lock.unlock();
  timer.shutdown();
  // The provider may let go of what it keeps for this session (its kept encoding, its cache
  // figures), which would otherwise stay until its budgets pushed it out. A session resumed from
  // this one's handle promises its history under a serial of its own, so it could reuse little
  // of it: at most one whole encode is lost. An id named by TransportConfig::session_id may be
  // shared, so that one is left to the provider's budgets.
  if (agent->provider && agent->runtime.transport.session_id.empty())
    agent->provider->session_closed(id);
}

}  // namespace detail

// ---- Session -----------------------------------------------------------------------------------

Session::Session(std::shared_ptr<detail::SessionCore> core) noexcept : core_(std::move(core)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&& other) noexcept {
  if (this != &other) {
    (void)close();
    core_ = std::move(other.core_);
  }
  return *this;
}
Session::~Session() { (void)close(); }

Result<RunResult> Session::run(Turn turn, agentkit::stop_token stop) {
  if (!core_) return fail(Errc::closed, "run() on a moved-from Session");
  return core_->run(std::move(turn), std::move(stop));
}

Result<Delivery> Session::send(Input input) {
  if (!core_) return fail(Errc::closed, "send() on a moved-from Session");
  if (input.empty()) return fail(Errc::invalid_argument, "send() needs non-empty input");
  std::lock_guard lock(core_->mu);
  if (core_->closed) return fail(Errc::closed, "the session is closed");
  if (!core_->run_active || !core_->accepting_sends) {
    return fail(Errc::invalid_argument,
                "no run is in flight: send() only steers or follows up a running run; start one "
                "with run()");
  }
  detail::QueuedInput q{UserMessage{std::move(input.content), core_->agent->now()}};
  if (input.queue == Input::Queue::follow_up) {
    core_->follow_ups.push_back(std::move(q));
    return Delivery{Delivery::Mode::queued_follow_up};
  }
  core_->steering.push_back(std::move(q));
  return Delivery{Delivery::Mode::queued_steering};
}

SessionHandle Session::snapshot() const {
  if (!core_) return {};
  return detail::make_snapshot(*core_);
}

EventStream Session::events() {
  if (!core_) return EventStream();
  auto [sink, stream] = make_event_stream(core_->agent->runtime.observability.events);
  std::lock_guard lock(core_->mu);
  if (core_->closed) return EventStream();
  core_->subscribers.push_back(std::move(sink));
  core_->subscriber_count.store(core_->subscribers.size(), std::memory_order_relaxed);
  return std::move(stream);
}

Result<void> Session::close() {
  if (!core_) return {};
  core_->close();
  return {};
}

// ---- Input -------------------------------------------------------------------------------------

Input::Input(std::string text) { content.emplace_back(TextBlock{std::move(text)}); }
Input::Input(const char* text) : Input(std::string(text)) {}
Input::Input(std::vector<ContentBlock> blocks, Queue q) : content(std::move(blocks)), queue(q) {}

Input Input::follow_up(std::string text) {
  Input in(std::move(text));
  in.queue = Queue::follow_up;
  return in;
}

bool Input::empty() const noexcept {
  for (const auto& b : content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      if (!t->text.empty()) return false;
    } else {
      return false;
    }
  }
  return true;
}

// ---- SessionHandle -----------------------------------------------------------------------------

namespace {
constexpr std::int64_t kHandleVersion = 1;

json::Value approvals_to_json(const detail::ApprovalBook& book) {
  json::Array pending, decided, started;
  for (const auto& p : book.pending) pending.push_back(to_json(p));
  for (const auto& [id, d] : book.decided) decided.push_back(to_json(d));
  for (const auto& id : book.started) started.emplace_back(id);
  json::Object o;
  o.append_unique("pending", std::move(pending));
  o.append_unique("decided", std::move(decided));
  o.append_unique("started", std::move(started));
  return json::Value(std::move(o));
}

Result<detail::ApprovalBook> approvals_from_json(const json::Value& v) {
  detail::ApprovalBook book;
  auto list = [&v](std::string_view key) -> const json::Array* {
    const json::Value* a = v.find(key);
    return a != nullptr && a->is_array() ? &a->as_array() : nullptr;
  };
  const json::Array* pending = list("pending");
  const json::Array* decided = list("decided");
  const json::Array* started = list("started");
  if (pending == nullptr || decided == nullptr || started == nullptr) {
    return fail(Errc::parse_error, "\"approvals\" needs the arrays pending, decided and started");
  }
  for (const auto& p : *pending) {
    auto one = pending_approval_from_json(p);
    if (!one) return one.error();
    book.pending.push_back(std::move(*one));
  }
  for (const auto& d : *decided) {
    auto one = approval_decision_from_json(d);
    if (!one) return one.error();
    std::string id = one->tool_use_id;
    book.decided.insert_or_assign(std::move(id), std::move(*one));
  }
  for (const auto& id : *started) {
    if (!id.is_string()) return fail(Errc::parse_error, "\"approvals.started\" holds a non-string");
    book.started.insert(id.as_string());
  }
  return book;
}
json::Value compaction_to_json(const detail::CompactionCheckpoint& cp) {
  json::Array pinned;
  for (std::size_t i : cp.pinned) pinned.emplace_back(static_cast<std::int64_t>(i));
  return json::Object{{"prefix_len", static_cast<std::int64_t>(cp.prefix_len)},
                      {"pinned", json::Value(std::move(pinned))},
                      {"summary", cp.summary},
                      {"created_at", static_cast<std::int64_t>(cp.created_at)}};
}

// A checkpoint must index the handle's own messages: one that does not would send a view of
// some other transcript.
Result<detail::CompactionCheckpoint> compaction_from_json(const json::Value& v,
                                                          std::size_t messages) {
  auto index = [&](const json::Value* n) -> std::optional<std::size_t> {
    if (n == nullptr || !n->is_number()) return std::nullopt;
    auto i = n->to_int64();
    if (!i || *i < 0 || static_cast<std::size_t>(*i) > messages) return std::nullopt;
    return static_cast<std::size_t>(*i);
  };
  const json::Value* summary = v.find("summary");
  const json::Value* pinned = v.find("pinned");
  auto prefix = index(v.find("prefix_len"));
  auto created = index(v.find("created_at"));
  if (!v.is_object() || summary == nullptr || !summary->is_string() || pinned == nullptr ||
      !pinned->is_array() || !prefix || *prefix == 0 || !created) {
    return fail(Errc::parse_error,
                "\"compaction\" needs prefix_len, pinned, summary and created_at "
                "within the handle's messages");
  }
  detail::CompactionCheckpoint cp;
  cp.prefix_len = *prefix;
  cp.summary = summary->as_string();
  cp.created_at = *created;
  for (const json::Value& p : pinned->as_array()) {
    auto i = index(&p);
    if (!i || *i >= cp.prefix_len) {
      return fail(Errc::parse_error,
                  "\"compaction.pinned\" holds an index outside the summarised part");
    }
    cp.pinned.push_back(*i);
  }
  return cp;
}

}  // namespace

SessionHandle::SessionHandle() = default;
SessionHandle::SessionHandle(std::shared_ptr<const detail::SessionState> state) noexcept
    : state_(std::move(state)) {}

bool SessionHandle::empty() const noexcept { return state_ == nullptr; }

std::string_view SessionHandle::session_id() const noexcept {
  return state_ ? std::string_view(state_->session_id) : std::string_view();
}

std::string SessionHandle::serialize() const {
  json::Object doc;
  doc.append_unique("version", kHandleVersion);
  if (state_) {
    doc.append_unique("session_id", state_->session_id);
    doc.append_unique("usage", to_json(state_->usage));
    json::Array messages;
    {
      const detail::SessionState::Messages held = state_->messages();
      messages.reserve(held.span.size());
      for (const auto& m : held.span) messages.push_back(to_json(m));
    }
    doc.append_unique("messages", std::move(messages));
    if (state_->approvals.holds_batch())
      doc.append_unique("approvals", approvals_to_json(state_->approvals));
    if (state_->compaction.active())
      doc.append_unique("compaction", compaction_to_json(state_->compaction));
  }
  return json::dump(json::Value(std::move(doc)));
}

Result<SessionHandle> SessionHandle::parse(std::string_view text) {
  auto bad = [](std::string why) {
    return fail(Errc::parse_error, "not a serialised SessionHandle: " + std::move(why));
  };
  Result<json::Value> doc = json::parse(text);
  if (!doc) return bad(doc.error().message);
  const json::Value* version = doc->find("version");
  if (version == nullptr || !version->is_number()) return bad("missing \"version\"");
  if (auto v = version->to_int64(); !v || *v != kHandleVersion) {
    return bad("unsupported version " + std::string(version->number_text()));
  }
  const json::Value* id = doc->find("session_id");
  if (id == nullptr) return SessionHandle();  // an empty handle round-trips to empty
  if (!id->is_string()) return bad("\"session_id\" is not a string");
  auto state = std::make_shared<detail::SessionState>();
  state->session_id = id->as_string();
  if (const json::Value* usage = doc->find("usage")) {
    auto u = usage_from_json(*usage);
    if (!u) return bad(u.error().message);
    state->usage = std::move(*u);
  }
  const json::Value* messages = doc->find("messages");
  if (messages == nullptr || !messages->is_array()) return bad("\"messages\" is not an array");
  auto store = std::make_shared<detail::HistoryStore>();
  for (const auto& m : messages->as_array()) {
    auto msg = message_from_json(m);
    if (!msg) return bad(msg.error().message);
    store->messages.push_back(std::move(*msg));
  }
  state->count = store->messages.size();
  state->store = std::move(store);
  if (const json::Value* approvals = doc->find("approvals")) {
    auto book = approvals_from_json(*approvals);
    if (!book) return bad(book.error().message);
    state->approvals = std::move(*book);
  }
  if (const json::Value* compaction = doc->find("compaction")) {
    auto cp = compaction_from_json(*compaction, state->count);
    if (!cp) return bad(cp.error().message);
    state->compaction = std::move(*cp);
  }
  return SessionHandle(std::move(state));
}

std::vector<PendingApproval> pending_approvals(const SessionHandle& handle) {
  const detail::SessionState* state = detail::SessionStateAccess::get(handle);
  return state == nullptr ? std::vector<PendingApproval>{} : state->approvals.pending;
}

}  // namespace agentkit
