#include "wire_client_base.hpp"

#include <condition_variable>
#include <deque>

#include "agentkit/base/strings.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/providers/repair.hpp"

namespace agentkit::providers::detail {
namespace {

// A whole JSON reply is read into memory before decoding: REQ-SEC-11's per-message bound.
constexpr std::size_t kMaxWholeReplyBytes = wire::kDefaultMaxMessageBytes;

enum class BodyKind : std::uint8_t { sse, ndjson, whole };

BodyKind kind_of(std::string_view content_type) {
  const std::string type = to_lower_ascii(trim_ows(content_type.substr(0, content_type.find(';'))));
  if (type == "text/event-stream") return BodyKind::sse;
  if (type == "application/x-ndjson" || type == "application/jsonl" || type == "application/json-seq") {
    return BodyKind::ndjson;
  }
  return BodyKind::whole;
}

// Picks the reply decoder from the Content-Type of the response being read: the same request may
// be answered streamed or whole (a gateway that ignores stream:true; the difftest recorder).
class ContentTypeRouter final : public BodyDecoder {
 public:
  ContentTypeRouter(ReplyDecoder& reply, const std::string& content_type) : reply_(reply), content_type_(content_type) {}

  Result<void> feed(std::string_view bytes) override {
    if (!chosen_) choose();
    if (body_) return body_->feed(bytes);
    if (whole_.size() + bytes.size() > kMaxWholeReplyBytes) {
      return fail(Errc::limit_exceeded, "the reply is larger than " + std::to_string(kMaxWholeReplyBytes) + " bytes");
    }
    whole_.append(bytes);
    return {};
  }

  Result<void> finish() override {
    if (!chosen_) choose();
    if (body_) return body_->finish();
    return reply_.whole(whole_);
  }

 private:
  void choose() {
    chosen_ = true;
    switch (kind_of(content_type_)) {
      case BodyKind::sse:
        body_ = std::make_unique<SseBodyDecoder>([this](const wire::SseEvent& e) { return reply_.event(e); },
                                                 [this] { return reply_.stream_end(); });
        break;
      case BodyKind::ndjson:
        body_ = std::make_unique<NdjsonBodyDecoder>([this](std::string_view l) { return reply_.line(l); },
                                                    [this] { return reply_.stream_end(); });
        break;
      case BodyKind::whole:
        break;
    }
  }

  ReplyDecoder& reply_;
  const std::string& content_type_;
  bool chosen_ = false;
  std::unique_ptr<BodyDecoder> body_;
  std::string whole_;
};

// One token that fires when either the caller cancels or the client shuts down.
agentkit::stop_source either(agentkit::stop_token a, agentkit::stop_token b, std::optional<agentkit::stop_callback<std::function<void()>>>& ca,
                        std::optional<agentkit::stop_callback<std::function<void()>>>& cb) {
  agentkit::stop_source s;
  ca.emplace(a, [s]() mutable { s.request_stop(); });
  cb.emplace(b, [s]() mutable { s.request_stop(); });
  return s;
}

}  // namespace

// ---- ReplyDecoder defaults -------------------------------------------------------------------------

Result<void> ReplyDecoder::event(const wire::SseEvent&) {
  return fail(Errc::protocol_error, "this wire does not stream server-sent events; the reply's Content-Type is wrong");
}

Result<void> ReplyDecoder::line(std::string_view) {
  return fail(Errc::protocol_error, "this wire does not stream NDJSON; the reply's Content-Type is wrong");
}

// ---- CallThreads --------------------------------------------------------------------------------------

namespace {
// The pool whose worker runs on this thread, and whether that worker announced its call's end.
thread_local CallThreads::State* current_worker = nullptr;
thread_local bool marked_finishing = false;
std::atomic<std::uint64_t> g_threads_started{0};
}  // namespace

struct CallThreads::State {
  struct Worker {
    agentkit::jthread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex mu;
  std::condition_variable cv;    // workers wait here for tasks
  std::condition_variable idle;  // the destructor waits here for calls on callers' threads
  bool closed = false;
  std::size_t parked = 0;        // workers waiting for a task
  std::size_t finishing = 0;     // workers whose call has delivered its result and is returning
  std::size_t running_here = 0;  // run_here calls in progress
  std::deque<Work> tasks;
  std::list<Worker> workers;
  agentkit::stop_source shutdown;
  std::uint64_t started = 0;

  void work_loop(std::atomic<bool>& done) {
    std::unique_lock lock(mu);
    for (;;) {
      ++parked;
      cv.wait(lock, [&] { return closed || !tasks.empty(); });
      --parked;
      if (closed) break;
      Work task = std::move(tasks.front());
      tasks.pop_front();
      lock.unlock();
      current_worker = this;
      task(shutdown.get_token());
      task = nullptr;  // what the call captured is released before the worker parks
      current_worker = nullptr;
      lock.lock();
      if (marked_finishing) {
        marked_finishing = false;
        --finishing;
      }
      // Enough threads wait already (a queued task may be counting on this one: it stays).
      if (tasks.empty() && parked >= kMaxIdleWorkers) break;
    }
    done.store(true);
  }
};

namespace {
// A call that has delivered its result marks its worker as about to be free, so the caller's next
// call (which may start before this worker has parked again) is queued for it instead of starting
// a thread: sequential calls then run on one thread.
void worker_about_to_finish() {
  CallThreads::State* s = current_worker;
  if (!s || marked_finishing) return;
  std::lock_guard lock(s->mu);
  marked_finishing = true;
  ++s->finishing;
}
}  // namespace

CallThreads::CallThreads() : state_(std::make_shared<State>()) {}

CallThreads::~CallThreads() {
  State& s = *state_;
  std::list<State::Worker> workers;
  std::deque<Work> dropped;
  {
    std::unique_lock lock(s.mu);
    s.closed = true;
    s.shutdown.request_stop();
    s.cv.notify_all();
    s.idle.wait(lock, [&] { return s.running_here == 0; });
    workers.swap(s.workers);
    dropped.swap(s.tasks);
  }
  // jthread destructors join; dropped tasks release their streams (which end with an error).
}

bool CallThreads::spawn(Work work) const { return spawn(state_, std::move(work)); }
bool CallThreads::run_here(const Work& work) const { return run_here(state_, work); }

bool CallThreads::spawn(const std::shared_ptr<State>& state, Work work) {
  State& s = *state;
  std::list<State::Worker> finished;  // joined after the lock is released; they have returned
  std::lock_guard lock(s.mu);
  if (s.closed) return false;
  for (auto it = s.workers.begin(); it != s.workers.end();) {
    auto next = std::next(it);
    if (it->done->load()) finished.splice(finished.end(), s.workers, it);
    it = next;
  }
  s.tasks.push_back(std::move(work));
  // Every queued task needs a parked worker of its own: a task must never wait behind another
  // call (two calls of one test may need each other's progress).
  if (s.parked + s.finishing < s.tasks.size()) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    State* raw = &s;
    s.workers.push_back(
        State::Worker{agentkit::jthread([raw, done] { raw->work_loop(*done); }), done});
    ++s.started;
    g_threads_started.fetch_add(1, std::memory_order_relaxed);
  } else {
    s.cv.notify_one();
  }
  return true;
}

bool CallThreads::run_here(const std::shared_ptr<State>& state, const Work& work) {
  State& s = *state;
  {
    std::lock_guard lock(s.mu);
    if (s.closed) return false;
    ++s.running_here;
  }
  work(s.shutdown.get_token());
  std::lock_guard lock(s.mu);
  if (--s.running_here == 0 && s.closed) s.idle.notify_all();
  return true;
}

std::uint64_t CallThreads::threads_started_everywhere() noexcept {
  return g_threads_started.load(std::memory_order_relaxed);
}

std::uint64_t CallThreads::threads_started() const {
  std::lock_guard lock(state_->mu);
  return state_->started;
}

// ---- WireClientBase ------------------------------------------------------------------------------------------

WireClientBase::WireClientBase(std::string_view api, const WireOptions& options,
                               std::shared_ptr<const RequestPipeline> pipeline)
    : history_(options.caching.reuse_encoded_history, options.caching.encoded_history_bytes),
      api_(api),
      options_(options),
      pipeline_(pipeline ? std::move(pipeline)
                         : std::make_shared<const RequestPipeline>(options.transport)),
      meter_(options.meter ? options.meter : std::make_shared<CacheMeter>()),
      catalog_(options.transport.credentials.catalog
                   ? options.transport.credentials.catalog
                   : std::shared_ptr<const catalog::Catalog>(std::shared_ptr<void>(),
                                                             &catalog::Catalog::builtin())),
      repairs_(options.caching.reuse_encoded_history) {}

WireClientBase::~WireClientBase() = default;

void WireClientBase::session_closed(std::string_view session_id) {
  history_.forget(session_id);
  schemas_.forget(session_id);
  repairs_.forget(session_id);
  WireClient::session_closed(session_id);
}

std::vector<ToolBytes> WireClientBase::tool_forms(const Request& request, std::span<const ToolSpec> tools,
                                                  const ToolSchemaCache::Render& render) const {
  return schemas_.wire_forms(request.session_id, tools, render, *meter_);
}

Result<ToolBytes> WireClientBase::answer_form(const Request& request, SchemaDialect dialect) const {
  if (!request.answer) return ToolBytes{};
  const AnswerFormat& format = *request.answer;
  const std::uint64_t fp =
      format.fingerprint != 0 ? format.fingerprint : answer_fingerprint(format);
  {
    std::lock_guard lock(answer_mu_);
    if (auto it = answer_forms_.find({fp, dialect}); it != answer_forms_.end()) return it->second;
  }
  Result<LoweredSchema> lowered = lower_schema(format.schema, dialect);
  if (!lowered) {
    Error e = lowered.error();
    e.message = "answer format '" + format.name + "' for " + request.model->vendor + "/" +
                request.model->id + " (" + api_ + "): " + e.message;
    return e;
  }
  auto bytes = std::make_shared<const std::string>(json::dump(lowered->schema));
  meter_->record_serialised(request.session_id, 1);
  std::lock_guard lock(answer_mu_);
  if (answer_forms_.size() >= ToolSchemaCache::kMaxEntries) answer_forms_.clear();
  answer_forms_.emplace(std::make_pair(fp, dialect), bytes);
  return bytes;
}

Result<ToolBytes> WireClientBase::native_answer(const Request& request,
                                                SchemaDialect dialect) const {
  if (!request.answer ||
      catalog::answer_support(*request.model).mode != catalog::AnswerSupport::Mode::native) {
    return ToolBytes{};
  }
  return answer_form(request, dialect);
}

WireClientBase::OfferedTools WireClientBase::offered_tools(const Request& request, const ToolSchemaCache::Render& render) const {
  OfferedTools out;
  if (request.tools.empty()) return out;
  DeferredSplit split = split_deferred_tools(request.tools, request.messages);
  if (split.promoted_all) meter_->record_promotion(request.session_id);
  if (split.deferred.empty()) {
    // The usual request defers nothing: its tools are rendered where they are, in their order,
    // not copied (schemas and all) into a list of their own first.
    out.established = tool_forms(request, request.tools, render);
    return out;
  }
  std::vector<ToolSpec> ordered;
  ordered.reserve(request.tools.size());
  for (std::size_t i : split.immediate) ordered.push_back(request.tools[i]);
  for (std::size_t i : split.deferred) ordered.push_back(request.tools[i]);
  std::vector<ToolBytes> forms = tool_forms(request, ordered, render);
  const std::size_t established = split.immediate.size();
  out.established.assign(forms.begin(), forms.begin() + static_cast<std::ptrdiff_t>(established));
  out.late.assign(forms.begin() + static_cast<std::ptrdiff_t>(established), forms.end());
  for (std::size_t k = 0; k < split.deferred.size(); ++k) {
    if (const auto* result = std::get_if<ToolResultMessage>(&request.messages[split.declared_after[k]])) {
      out.declared_after[result->tool_use_id].push_back(out.late[k]);
    }
  }
  return out;
}

Result<PreparedCall> WireClientBase::prepare(const Request& request, const StreamOptions& options) const {
  return prepare_call(request, options, nullptr);
}

Result<PreparedCall> WireClientBase::prepare_call(const Request& request,
                                                  const StreamOptions& options,
                                                  HistoryLend* lend) const {
  if (!request.model) return fail(Errc::invalid_argument, "the request has no model; set Request::model");
  if (request.model->api != api_) {
    return fail(Errc::invalid_argument, "model '" + request.model->vendor + "/" + request.model->id + "' speaks '" +
                                            request.model->api + "', not '" + api_ + "'");
  }
  // REQ-PROV-11: every request is encoded from the repaired view, never from raw history.
  TranscriptView view = repairs_.repair(request);
  const HistoryPromise promise{request.history_serial,
                               request.history_serial != 0 ? view.unchanged_prefix() : 0, lend};
  Result<PreparedCall> call = encode(request, view.messages(), promise);
  if (!call) return call;
  call->model = request.model;
  call->session_id = request.session_id;
  call->samples = !request.temperature || *request.temperature > 0;
  if (!request.session_id.empty() && !options_.caching.affinity_header.empty()) {
    // Level 0: route the session to the warm node. The id is the caller's; nothing else goes in.
    call->wire.headers.emplace_back(options_.caching.affinity_header, request.session_id);
  }
  if (options.on_payload) {
    // The hook sees (and may replace) the exact bytes; its error is the call's error, verbatim.
    if (auto ok = options.on_payload(call->wire.body); !ok) return ok.error();
  }
  return call;
}

// Everything one call's thread uses, built on the caller's thread: the decoder comes from a
// virtual function, which must never run while the client is being destroyed.
struct WireClientBase::Call {
  Call(EventSink s, PreparedCall c, HistoryLend l)
      : sink(std::move(s)),
        prepared(std::move(c)),
        lend(std::move(l)),
        out(sink, start_message(*prepared.model)) {}
  EventSink sink;
  PreparedCall prepared;
  HistoryLend lend;  // the session's kept encoding, out with this call's body
  MessageAssembler out;
  std::unique_ptr<ReplyDecoder> reply;
};

EventStream WireClientBase::stream(const Request& request, const StreamOptions& options,
                                   agentkit::stop_token stop) {
  HistoryLend lend;
  Result<PreparedCall> call = prepare_call(request, options, options.on_payload ? nullptr : &lend);
  if (!call) return failed_stream(request, api(), options, call.error());
  return send_call(std::move(*call), std::move(lend), options, std::move(stop));
}

EventStream WireClientBase::send(PreparedCall call, const StreamOptions& options, agentkit::stop_token stop) {
  return send_call(std::move(call), HistoryLend{}, options, std::move(stop));
}

EventStream WireClientBase::send_call(PreparedCall call, HistoryLend lend,
                                      const StreamOptions& options, agentkit::stop_token stop) {
  StreamOptions run_options = options;
  run_options.on_payload = nullptr;  // applied by prepare()
  if (options.deferred) {
    auto state = std::make_shared<Call>(EventSink(), std::move(call), std::move(lend));
    state->reply = decoder(state->prepared, state->out);
    return send_deferred(std::move(state), std::move(run_options), std::move(stop));
  }
  auto [sink, events] = make_event_stream(options.stream);
  auto state = std::make_shared<Call>(std::move(sink), std::move(call), std::move(lend));
  state->out.start();
  for (const Error& e : state->prepared.unsupported) state->out.report(e);
  state->reply = decoder(state->prepared, state->out);
  threads_.spawn([this, state, run_options = std::move(run_options), stop = std::move(stop)](agentkit::stop_token shutdown) mutable {
    std::optional<agentkit::stop_callback<std::function<void()>>> a, b;
    agentkit::stop_source cancel = either(stop, shutdown, a, b);
    run_call(*state, std::move(run_options), cancel.get_token());
  });
  return std::move(events);
}

// The call runs when the stream is read: on the reader's thread under drain(), or on a pooled
// worker under next()/result(). Either way `this` is touched only inside the pool's guard, which
// fails once the client is being destroyed (the sink is then dropped: the stream ends with an
// error instead of a message).
EventStream WireClientBase::send_deferred(std::shared_ptr<Call> state, StreamOptions options,
                                          agentkit::stop_token stop) {
  std::shared_ptr<CallThreads::State> pool = threads_.state();
  const EventStreamOptions stream_options = options.stream;
  auto produce = [this, pool, state, options = std::move(options),
                  stop = std::move(stop)](EventSink sink) mutable {
    // The assembler refers to state->sink: the real sink takes the placeholder's place.
    state->sink = std::move(sink);
    CallThreads::run_here(pool, [&](agentkit::stop_token shutdown) {
      state->out.start();
      for (const Error& e : state->prepared.unsupported) state->out.report(e);
      std::optional<agentkit::stop_callback<std::function<void()>>> a, b;
      agentkit::stop_source cancel = either(stop, shutdown, a, b);
      run_call(*state, std::move(options), cancel.get_token());
    });
  };
  auto launch = [pool](std::function<void()> task) {
    CallThreads::spawn(pool, [task = std::move(task)](agentkit::stop_token) { task(); });
  };
  return make_deferred_event_stream(std::move(produce), std::move(launch), stream_options);
}

void WireClientBase::run_call(Call& call, StreamOptions&& options, agentkit::stop_token stop) {
  std::string content_type;
  std::function<void(int, const std::vector<std::pair<std::string, std::string>>&)>
      user_on_response;
  arm_call(call, options, content_type, user_on_response);
  ContentTypeRouter router(*call.reply, content_type);
  std::string sent;
  std::optional<CallFailure> failure =
      pipeline_->run(*call.prepared.model, std::move(call.prepared.wire), options, router, stop,
                     call.lend.lease != 0 ? &sent : nullptr);
  settle_call(call, std::move(failure), std::move(sent));
}

// The response's content type is noted for the router; the body gives up its long strings once
// written.
[[gnu::noinline]] void WireClientBase::arm_call(
    Call& call, StreamOptions& options, std::string& content_type,
    std::function<void(int, const std::vector<std::pair<std::string, std::string>>&)>&
        user_on_response) {
  user_on_response = std::move(options.on_response);
  options.on_response = [&content_type, &user_on_response](int status, const std::vector<std::pair<std::string, std::string>>& headers) {
    content_type.clear();
    for (const auto& [name, value] : headers) {
      if (iequals(name, "content-type")) content_type = value;
    }
    if (user_on_response) user_on_response(status, headers);
  };
  if (call.lend.lease != 0 && !call.lend.splices.empty()) {
    // Through the model's wait the body holds its long strings once, as the transcript's.
    const std::size_t at = call.lend.at;
    const std::vector<Splice>* splices = &call.lend.splices;
    call.prepared.wire.shrink_body = [at, splices](std::string& body) {
      cut_splices(body, at, *splices);
    };
    call.prepared.wire.restore_body = [at, splices](std::string& body) {
      body = restore_splices(body, at, *splices);
    };
  }
}

// The kept history back, the usage priced, the message finished.
[[gnu::noinline]] void WireClientBase::settle_call(Call& call, std::optional<CallFailure> failure,
                                                   std::string sent) {
  ReplyDecoder& reply = *call.reply;
  const Model& model = *call.prepared.model;
  // Back before the result is delivered: the session's next request may follow at once.
  history_.give_back(call.prepared.session_id, std::move(call.lend), std::move(sent));
  // REQ-PROV-05: priced against the model that served it, a failed turn's usage included.
  AssistantMessage& message = call.out.message();
  price_served(message.usage, model, reply.served_model, *catalog_, reply.service_tier);
  if (!reply.served_model.empty() && reply.served_model != model.id) message.response_model = reply.served_model;
  const Model* served = message.usage.billed_model.empty() ? nullptr : catalog_->find(model.vendor, message.usage.billed_model);
  meter_->record_response(call.prepared.session_id, message.usage, served ? served->pricing : model.pricing);
  worker_about_to_finish();  // before the result is delivered: the reader may call again at once
  call.out.finish(failure);
}

// ---- Encoder helpers --------------------------------------------------------------------------------------------

std::string result_text(const ToolResultMessage& result, bool mark_errors) {
  std::string text = text_of(result.content);
  return mark_errors && result.is_error ? "Error: " + text : text;
}

std::string data_url(const ImageBlock& image) { return "data:" + image.mime_type + ";base64," + image.data_base64; }

bool compat_flag(const Model& model, std::string_view key, bool fallback) {
  const json::Value* v = model.compat.find(key);
  return v && v->is_bool() ? v->as_bool() : fallback;
}

std::string compat_text(const Model& model, std::string_view key, std::string fallback) {
  const json::Value* v = model.compat.find(key);
  return v && v->is_string() ? v->as_string() : fallback;
}

std::string base_url_host(const Model& model) {
  // Asked by every encode and decoder, always of the same few URLs: the last answer of this
  // thread is kept (parsing the URL was a tenth of a small request's encoding).
  thread_local std::string last_url;
  thread_local std::string last_host;
  thread_local bool known = false;
  if (known && model.base_url == last_url) return last_host;
  auto url = http::parse_url(model.base_url);
  last_host = url ? to_lower_ascii(url->host) : std::string();
  last_url = model.base_url;
  known = true;
  return last_host;
}

std::optional<ThinkingChoice> thinking_choice(const Request& request) {
  if (!request.thinking || !request.model) return std::nullopt;
  auto level = catalog::clamp_thinking_level(*request.model, *request.thinking);
  if (!level) return std::nullopt;
  auto value = catalog::thinking_wire_value(*request.model, *level);
  if (!value || value->is_null()) return std::nullopt;
  return ThinkingChoice{*level, std::move(*value)};
}

json::Value number(double value) { return json::Value(value); }

std::int64_t count_at(const json::Value* object, std::string_view key) {
  if (!object) return 0;
  const json::Value* v = object->find(key);
  if (!v || !v->is_number()) return 0;
  auto n = v->to_int64();
  return n && *n > 0 ? *n : 0;
}

std::string string_at(const json::Value* object, std::string_view key) {
  return std::string(text_at(object, key));
}

std::string_view text_at(const json::Value* object, std::string_view key) {
  if (!object) return {};
  const json::Value* v = object->find(key);
  return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

}  // namespace agentkit::providers::detail
