// Level 2 (REQ-CACHE-01..05): identical wire bytes answered from a store. The fingerprint is the
// SHA-256 of what the wire would send (prepare(), the PRD's tension #4 seam), never of a DOM or a
// canonicalised form: two requests that differ only in argument key order are different requests.
#include <list>
#include <map>
#include <mutex>

#include "../wire_common/wire_client_base.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers {
namespace {

// What a replayed answer looks like: the stored content and stop reason, with no usage of its own
// (nothing was billed); the saving is credited to the meter instead.
AssistantMessage replayed(AssistantMessage stored) {
  stored.usage = Usage{};
  return stored;
}

void replay_blocks(detail::MessageAssembler& out, const AssistantMessage& stored) {
  for (const ContentBlock& block : stored.content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) {
      int b = out.begin_text();
      out.text(b, t->text);
      out.end(b);
    } else if (const auto* th = std::get_if<ThinkingBlock>(&block)) {
      int b = out.begin_thinking();
      out.thinking(b, th->thinking);
      if (th->redacted) out.set_redacted(b, th->signature);
      else out.set_signature(b, th->signature);
      out.set_thinking_id(b, th->id);
      out.end(b);
    } else if (const auto* call = std::get_if<ToolUseBlock>(&block)) {
      int b = out.begin_tool(call->id, call->name);
      out.arguments(b, call->input.bytes());
      out.end(b);
      std::get<ToolUseBlock>(out.message().content[static_cast<std::size_t>(b)]).thought_signature = call->thought_signature;
    } else {
      out.add_opaque(block);
    }
  }
}

// The caller's token and the client's shutdown as one token, for as long as a call runs.
struct CancelBridge {
  CancelBridge(agentkit::stop_token caller, agentkit::stop_token shutdown)
      : from_caller(caller, [this] { source.request_stop(); }), from_shutdown(shutdown, [this] { source.request_stop(); }) {}
  agentkit::stop_source source;
  agentkit::stop_callback<std::function<void()>> from_caller;
  agentkit::stop_callback<std::function<void()>> from_shutdown;
};

class DedupClient final : public WireClient {
 public:
  DedupClient(std::shared_ptr<WireClient> inner, DedupOptions options) : inner_(std::move(inner)), options_(std::move(options)) {}
  ~DedupClient() override { shutdown_.request_stop(); }
  DedupClient(const DedupClient&) = delete;
  DedupClient& operator=(const DedupClient&) = delete;

  Result<PreparedCall> prepare(const Request& request, const StreamOptions& options) const override {
    return inner_->prepare(request, options);
  }
  std::string_view api() const noexcept override { return inner_->api(); }
  std::shared_ptr<CacheMeter> meter() const override { return inner_->meter(); }
  void session_closed(std::string_view session_id) override {
    inner_->session_closed(session_id);
    std::shared_ptr<ResponseCache> dropped;  // freed after the lock
    std::lock_guard lock(mu_);
    auto it = stores_.find(std::string(session_id));
    if (it == stores_.end()) return;
    dropped = std::move(it->second.first);
    recent_.erase(it->second.second);
    stores_.erase(it);
  }

  EventStream send(PreparedCall call, const StreamOptions& options, agentkit::stop_token stop) override {
    // REQ-CACHE-04: a sampled answer is one draw among many; repeating it is not a cache hit.
    if (call.samples && !options_.ignore_temperature) return inner_->send(std::move(call), options, std::move(stop));
    const std::string key = fingerprint(call);
    std::shared_ptr<ResponseCache> store = store_for(call.session_id);
    if (auto stored = store->find(key)) return hit(call, key, std::move(*stored), options);
    inner_->meter()->record_miss(call.session_id);
    return miss(std::move(call), key, std::move(store), options, std::move(stop));
  }

 private:
  std::string fingerprint(const PreparedCall& call) const {
    Sha256 h;
    h.update(inner_->api());
    h.update("\n");
    h.update(call.model->base_url);
    h.update(call.wire.path);
    h.update("\n");
    h.update(call.wire.body);
    const auto digest = h.finish();
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (auto byte : digest) {
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
    return out;
  }

  std::shared_ptr<ResponseCache> store_for(const std::string& session) {
    if (options_.shared_store) return options_.shared_store;
    std::lock_guard lock(mu_);
    auto it = stores_.find(session);
    if (it != stores_.end()) {
      recent_.splice(recent_.begin(), recent_, it->second.second);
      return it->second.first;
    }
    recent_.push_front(session);
    auto store = std::make_shared<ResponseCache>(options_.capacity);
    stores_.emplace(session, std::make_pair(store, recent_.begin()));
    while (stores_.size() > std::max<std::size_t>(1, options_.max_sessions)) {
      stores_.erase(recent_.back());
      recent_.pop_back();
    }
    return store;
  }

  EventStream hit(const PreparedCall& call, const std::string& key, AssistantMessage stored, const StreamOptions& options) {
    inner_->meter()->record_hit(call.session_id, stored.usage.cost.total);
    auto [sink, events] = make_event_stream(options.stream);
    AssistantMessage header = replayed(stored);
    header.content.clear();
    detail::MessageAssembler out(sink, header);
    out.start();
    sink.push(CacheEvent{true, key});
    replay_blocks(out, stored);
    out.finish(std::nullopt);
    return std::move(events);
  }

  EventStream miss(PreparedCall call, const std::string& key, std::shared_ptr<ResponseCache> store,
                   const StreamOptions& options, agentkit::stop_token stop) {
    auto [sink, events] = make_event_stream(options.stream);
    auto cancel = std::make_shared<CancelBridge>(std::move(stop), shutdown_.get_token());
    auto inner_events = std::make_shared<EventStream>(inner_->send(std::move(call), options, cancel->source.get_token()));
    auto out = std::make_shared<EventSink>(std::move(sink));
    threads_.spawn([inner_events, out, key, store, cancel](agentkit::stop_token) {
      bool announced = false;
      while (auto ev = inner_events->next()) {
        const bool is_start = std::holds_alternative<MessageStartEvent>(*ev);
        if (std::holds_alternative<MessageEndEvent>(*ev)) continue;  // finish() emits it
        out->push(std::move(*ev));
        if (is_start && !announced) {
          out->push(CacheEvent{false, key});
          announced = true;
        }
      }
      Result<AssistantMessage> answer = inner_events->result();
      if (!answer) {
        AssistantMessage broken;
        broken.stop_reason = StopReason::error;
        broken.error_message = answer.error().message;
        out->finish(std::move(broken));
        return;
      }
      // Only complete answers are worth repeating: never an error or a cancelled partial.
      if (answer->stop_reason != StopReason::error && answer->stop_reason != StopReason::aborted) {
        store->insert(key, *answer);
      }
      out->finish(std::move(*answer));
    });
    return std::move(events);
  }

  std::shared_ptr<WireClient> inner_;
  DedupOptions options_;
  std::mutex mu_;
  std::list<std::string> recent_;  // sessions, most recent first
  std::map<std::string, std::pair<std::shared_ptr<ResponseCache>, std::list<std::string>::iterator>> stores_;
  agentkit::stop_source shutdown_;
  detail::CallThreads threads_;  // last: joined first
};

}  // namespace

std::shared_ptr<WireClient> with_dedup(std::shared_ptr<WireClient> inner, DedupOptions options) {
  return std::make_shared<DedupClient>(std::move(inner), std::move(options));
}

}  // namespace agentkit::providers
