// The scripted provider. Instant responses are produced synchronously (the benchmark path);
// responses with delays, a hang or an on_request hook stream from a thread the provider owns.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

#include "agentkit/providers/faux.hpp"

namespace agentkit::providers {

struct FauxProvider::State {
  mutable std::mutex mu;
  std::deque<FauxResponse> script;
  std::function<FauxResponse(const Request&)> responder;
  FauxOptions options;
  std::vector<RecordedRequest> recorded;
  std::size_t request_count = 0;
  // Producer threads with a flag each so finished ones can be reaped without blocking.
  struct Worker {
    agentkit::jthread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers;
};

namespace {

FauxResponse script_exhausted() {
  return error_response("faux: the script has no response left for this request");
}

// Waits `d` or until `stop`; answers false when stopped.
bool wait_for(std::chrono::milliseconds d, agentkit::stop_token stop) {
  if (d.count() <= 0) return !stop.stop_requested();
  std::mutex mu;
  agentkit::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

// Replays one scripted message as events.
class Producer {
 public:
  Producer(FauxResponse response, EventSink sink, agentkit::stop_token stop)
      : r_(std::move(response)), sink_(std::move(sink)), stop_(std::move(stop)) {}

  void run() {
    partial_ = r_.message;
    partial_.content.clear();
    sink_.push(MessageStartEvent{partial_});
    if (!wait_for(r_.first_byte_delay, stop_)) return abort();
    for (std::size_t i = 0; i < r_.message.content.size(); ++i) {
      if (!emit_block(static_cast<int>(i), r_.message.content[i])) return;  // ended early
    }
    if (r_.hang_until_cancelled) {
      wait_for(std::chrono::hours(24), stop_);
      return abort();
    }
    sink_.finish(r_.message);
  }

 private:
  // Answers false when the stream already ended (aborted or failed midway).
  bool emit_block(int index, const ContentBlock& block) {
    if (const auto* t = std::get_if<TextBlock>(&block)) {
      sink_.push(BlockStartEvent{index, BlockKind::text, {}, {}});
      partial_.content.emplace_back(TextBlock{});
      if (!emit_chunks(t->text, [&](std::string chunk) {
            std::get<TextBlock>(partial_.content.back()).text += chunk;
            sink_.push(TextDeltaEvent{index, std::move(chunk)});
          })) {
        return false;
      }
    } else if (const auto* th = std::get_if<ThinkingBlock>(&block)) {
      sink_.push(BlockStartEvent{index, BlockKind::thinking, {}, {}});
      partial_.content.emplace_back(ThinkingBlock{});
      if (!emit_chunks(th->thinking, [&](std::string chunk) {
            std::get<ThinkingBlock>(partial_.content.back()).thinking += chunk;
            sink_.push(ThinkingDeltaEvent{index, std::move(chunk)});
          })) {
        return false;
      }
    } else if (const auto* use = std::get_if<ToolUseBlock>(&block)) {
      sink_.push(BlockStartEvent{index, BlockKind::tool_use, use->id, use->name});
      std::string args;
      if (!emit_chunks(use->input.str(), [&](std::string chunk) {
            args += chunk;
            sink_.push(ToolArgumentsDeltaEvent{index, use->id, std::move(chunk)});
          })) {
        return false;
      }
    }
    partial_.content.resize(static_cast<std::size_t>(index));
    partial_.content.push_back(block);
    sink_.push(BlockEndEvent{index, block});
    return true;
  }

  template <class Deliver>
  bool emit_chunks(const std::string& text, Deliver deliver) {
    if (!r_.stream_chunks || text.empty()) {
      if (!text.empty()) deliver(text);
      return count_chunk();
    }
    std::size_t step = r_.chunk_bytes == 0 ? text.size() : r_.chunk_bytes;
    for (std::size_t pos = 0; pos < text.size(); pos += step) {
      if (pos != 0 && !wait_for(r_.chunk_delay, stop_)) {
        abort();
        return false;
      }
      deliver(text.substr(pos, step));
      if (!count_chunk()) return false;
    }
    return true;
  }

  bool count_chunk() {
    ++chunks_;
    if (stop_.stop_requested()) {
      abort();
      return false;
    }
    if (r_.fail_after_chunks && chunks_ >= *r_.fail_after_chunks) {
      AssistantMessage failed = partial_;
      failed.stop_reason = StopReason::error;
      failed.error_message = r_.failure_message;
      sink_.finish(std::move(failed));
      return false;
    }
    return true;
  }

  void abort() {
    AssistantMessage aborted = partial_;
    aborted.stop_reason = StopReason::aborted;
    aborted.error_message = "the request was cancelled";
    sink_.finish(std::move(aborted));
  }

  FauxResponse r_;
  EventSink sink_;
  agentkit::stop_token stop_;
  AssistantMessage partial_;
  std::size_t chunks_ = 0;
};

RecordedRequest record(const Request& req) {
  RecordedRequest r;
  r.system = req.system;
  r.messages.assign(req.messages.begin(), req.messages.end());
  for (const auto& t : req.tools) r.tool_names.push_back(t.name);
  r.max_tokens = req.max_tokens;
  r.thinking = req.thinking;
  r.stop_sequences = req.stop_sequences;
  r.session_id = req.session_id;
  r.history_serial = req.history_serial;
  r.tool_choice = req.tool_choice;
  r.answer = req.answer;
  return r;
}

// Gives every tool call without an id one, unique within this response.
void name_calls(AssistantMessage& m) {
  int n = 0;
  for (auto& block : m.content) {
    if (auto* use = std::get_if<ToolUseBlock>(&block)) {
      ++n;
      if (use->id.empty()) use->id = "faux_call_" + std::to_string(n);
    }
  }
}

}  // namespace

FauxResponse text_response(std::string text, StopReason reason) {
  FauxResponse r;
  r.message.content.emplace_back(TextBlock{std::move(text)});
  r.message.stop_reason = reason;
  return r;
}

FauxResponse tool_call_response(std::vector<ToolUseBlock> calls, StopReason reason, std::string text) {
  FauxResponse r;
  if (!text.empty()) r.message.content.emplace_back(TextBlock{std::move(text)});
  for (auto& c : calls) r.message.content.emplace_back(std::move(c));
  r.message.stop_reason = reason;
  return r;
}

FauxResponse error_response(std::string message) {
  FauxResponse r;
  r.message.stop_reason = StopReason::error;
  r.message.error_message = std::move(message);
  return r;
}

ToolUseBlock tool_call(std::string id, std::string name, std::string arguments_json) {
  return ToolUseBlock{std::move(id), std::move(name), json::Raw(std::move(arguments_json)), {}};
}

FauxProvider::FauxProvider(std::vector<FauxResponse> script, FauxOptions options)
    : state_(std::make_shared<State>()) {
  state_->script.assign(std::make_move_iterator(script.begin()), std::make_move_iterator(script.end()));
  state_->options = std::move(options);
}

FauxProvider::FauxProvider(std::function<FauxResponse(const Request&)> responder, FauxOptions options)
    : state_(std::make_shared<State>()) {
  state_->responder = std::move(responder);
  state_->options = std::move(options);
}

FauxProvider::~FauxProvider() {
  std::list<State::Worker> workers;
  {
    std::lock_guard lock(state_->mu);
    workers.swap(state_->workers);
  }
  for (auto& w : workers) w.thread.request_stop();
  // jthread destructors join.
}

void FauxProvider::push(FauxResponse response) {
  std::lock_guard lock(state_->mu);
  state_->script.push_back(std::move(response));
}

std::vector<RecordedRequest> FauxProvider::requests() const {
  std::lock_guard lock(state_->mu);
  return state_->recorded;
}

std::size_t FauxProvider::request_count() const {
  std::lock_guard lock(state_->mu);
  return state_->request_count;
}

EventStream FauxProvider::stream(const Request& request, const StreamOptions& options, agentkit::stop_token stop) {
  FauxResponse response;
  std::function<FauxResponse(const Request&)> responder;
  {
    std::lock_guard lock(state_->mu);
    ++state_->request_count;
    if (state_->options.record_requests) state_->recorded.push_back(record(request));
    responder = state_->responder;
    if (!responder) {
      if (state_->script.empty()) {
        response = script_exhausted();
      } else {
        response = std::move(state_->script.front());
        state_->script.pop_front();
      }
    }
  }
  if (responder) response = responder(request);
  if (request.model) {
    if (response.message.provider.empty()) response.message.provider = request.model->vendor;
    if (response.message.api.empty()) response.message.api = request.model->api;
    if (response.message.model.empty()) response.message.model = request.model->id;
  }
  if (state_->options.usage_per_response && response.message.usage == Usage{}) {
    response.message.usage = *state_->options.usage_per_response;
  }
  name_calls(response.message);

  auto [sink, events] = make_event_stream(options.stream);
  bool asynchronous = response.first_byte_delay.count() > 0 || response.chunk_delay.count() > 0 ||
                      response.hang_until_cancelled || static_cast<bool>(response.on_request);
  if (!asynchronous) {
    Producer(std::move(response), std::move(sink), std::move(stop)).run();
    return std::move(events);
  }
  // The request's views are only valid until the stream finishes; the hook sees it first, here.
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(state_->mu);
  state_->workers.remove_if([](const State::Worker& w) { return w.done->load(); });
  auto hook = std::move(response.on_request);
  Request request_copy = request;
  state_->workers.push_back(State::Worker{
      agentkit::jthread([response = std::move(response), sink = std::move(sink), stop, done, hook,
                    request_copy](agentkit::stop_token own) mutable {
        // Either the caller's token or the provider's shutdown cancels the stream.
        agentkit::stop_source either;
        agentkit::stop_callback a(stop, [&] { either.request_stop(); });
        agentkit::stop_callback b(own, [&] { either.request_stop(); });
        if (hook) hook(request_copy);
        Producer(std::move(response), std::move(sink), either.get_token()).run();
        done->store(true);
      }),
      done});
  return std::move(events);
}

}  // namespace agentkit::providers
