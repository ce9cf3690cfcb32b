// What the built-in wires share beyond the request pipeline: preparing a call (send-time repair,
// level-0 affinity, on_payload), running it on a thread the client owns, choosing the reply
// decoder from the Content-Type, pricing the usage against the served model, and reporting cache
// statistics. A wire supplies only encode() and a ReplyDecoder; an encoder writes the history's
// array with history_.append_array(..., promise, ...), passing encode()'s promise on (it carries
// the stream path's lend of the kept bytes, see EncodedHistory).
//
//   class MyWire final : public WireClientBase {
//     Result<PreparedCall> encode(const Request&, std::span<const Message> view,
//                                 HistoryPromise promise) const override;
//     std::unique_ptr<ReplyDecoder> decoder(const PreparedCall&, MessageAssembler&) const override;
//   };
//
// Thread safety: a client serves concurrent calls; destroying it cancels and joins them.
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "../cache/tool_schema_cache.hpp"
#include "agentkit/core/answer.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/wires.hpp"
#include "agentkit/wire/sse_decoder.hpp"
#include "../repair_resume.hpp"
#include "encoded_history.hpp"
#include "message_assembler.hpp"

namespace agentkit::providers::detail {

// A wire's decoder of one reply. Exactly one of event/line/whole is used per reply, chosen by the
// reply's Content-Type (text/event-stream, application/x-ndjson, anything else = one JSON body).
class ReplyDecoder {
 public:
  virtual ~ReplyDecoder() = default;
  virtual Result<void> event(const wire::SseEvent& event);
  virtual Result<void> line(std::string_view line);
  virtual Result<void> whole(std::string_view body) = 0;
  // The streamed body ended: an error unless the wire's terminal event arrived.
  virtual Result<void> stream_end() = 0;

  // Filled while decoding, read for pricing (REQ-PROV-05 rules 5 and 6).
  std::string served_model;
  std::string service_tier;
};

// Where calls run: on the caller's thread (run_here, for a deferred stream read by drain()) or on
// a pooled worker (spawn). Workers are reused: a thread is created only when every worker is busy,
// and at most kMaxIdleWorkers stay parked once the load drops. Destruction stops and joins them
// all, and waits for calls running on callers' threads. The state is shared: a deferred stream may
// outlive its client, and then finds it closed.
//
// Thread safety: every member may be called from any thread.
class CallThreads {
 public:
  static constexpr std::size_t kMaxIdleWorkers = 16;
  using Work = std::function<void(agentkit::stop_token shutdown)>;

  CallThreads();
  CallThreads(const CallThreads&) = delete;
  CallThreads& operator=(const CallThreads&) = delete;
  ~CallThreads();
  // Runs `work(shutdown)` on a pooled thread; `shutdown` fires when the owner is destroyed.
  // False (and `work` dropped) once the owner is being destroyed.
  bool spawn(Work work) const;
  // Runs `work(shutdown)` here; false without running it once the owner is being destroyed.
  bool run_here(const Work& work) const;
  // A handle that keeps the state alive for deferred streams.
  struct State;
  std::shared_ptr<State> state() const noexcept { return state_; }
  static bool spawn(const std::shared_ptr<State>& state, Work work);
  static bool run_here(const std::shared_ptr<State>& state, const Work& work);
  // Threads this pool created, over its life (tests count them: one per concurrent call at most).
  std::uint64_t threads_started() const;
  // Threads every pool of the process created (a run's model calls must add none).
  static std::uint64_t threads_started_everywhere() noexcept;

 private:
  std::shared_ptr<State> state_;
};

class WireClientBase : public WireClient {
 public:
  WireClientBase(std::string_view api, const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline);
  ~WireClientBase() override;

  Result<PreparedCall> prepare(const Request& request, const StreamOptions& options) const final;
  EventStream send(PreparedCall call, const StreamOptions& options, agentkit::stop_token stop) final;
  // prepare() then send(), but the body borrows the session's kept encoding instead of copying it
  // (EncodedHistory, HistoryLend): nobody else sees the body between the two, so it comes back
  // as it was sent. Not with an on_payload hook, which may rewrite it.
  EventStream stream(const Request& request, const StreamOptions& options,
                     agentkit::stop_token stop) final;
  std::string_view api() const noexcept final { return api_; }
  std::shared_ptr<CacheMeter> meter() const final { return meter_; }
  // Drops the session's kept encoding, repair point, tool prefix and figures.
  void session_closed(std::string_view session_id) final;

 protected:
  // The wire's body and path for `request`, whose messages have been repaired into `view`.
  // `promise`: what the request promises about the view (Request::history_serial), for
  // EncodedHistory.
  virtual Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                                      HistoryPromise promise) const = 0;
  // Called on the caller's thread; the decoder must not refer back to the client (it outlives
  // nothing but its own call).
  virtual std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const = 0;

  const WireOptions& options() const noexcept { return options_; }
  // Each session's encoded history; a wire passes encode()'s promise on to append_array.
  mutable EncodedHistory history_;
  const catalog::Catalog& catalog() const noexcept { return *catalog_; }
  // The wire form of each tool, rendered only when new (level 3), counted on the meter.
  std::vector<ToolBytes> tool_forms(const Request& request, std::span<const ToolSpec> tools,
                                    const ToolSchemaCache::Render& render) const;
  // The offered tools in wire form (each rendered only when new: level 3, counted on the meter),
  // split into the established prefix and the tools first offered mid-session (REQ-CACHE-10).
  struct OfferedTools {
    std::vector<ToolBytes> established;  // in offered order
    std::vector<ToolBytes> late;         // in offered order
    // Late tools by the id of the tool result that first listed them (for prose re-declaration).
    std::map<std::string, std::vector<ToolBytes>, std::less<>> declared_after;
  };
  OfferedTools offered_tools(const Request& request, const ToolSchemaCache::Render& render) const;
  // The request's answer schema lowered for `dialect` as compact JSON, serialised once per schema
  // and dialect for the client's life (level 3: counted on the meter as one schema serialised);
  // null when the request carries no answer format. An error when the dialect cannot express it
  // (the loop reports that at run start; a direct caller gets it here, never as a vendor 400).
  Result<ToolBytes> answer_form(const Request& request, SchemaDialect dialect) const;
  // answer_form when the model's answer mode is native (catalog::answer_support); null otherwise.
  Result<ToolBytes> native_answer(const Request& request, SchemaDialect dialect) const;

 private:
  struct Call;
  Result<PreparedCall> prepare_call(const Request& request, const StreamOptions& options,
                                    HistoryLend* lend) const;
  EventStream send_call(PreparedCall call, HistoryLend lend, const StreamOptions& options,
                        agentkit::stop_token stop);
  // The call's request and answer. Its setup and its settling are out of line (arm_call,
  // settle_call): what they build would otherwise sit in this frame, under the model's wait.
  void run_call(Call& call, StreamOptions&& options, agentkit::stop_token stop);
  void arm_call(Call& call, StreamOptions& options, std::string& content_type,
                std::function<void(int, const std::vector<std::pair<std::string, std::string>>&)>&
                    user_on_response);
  void settle_call(Call& call, std::optional<CallFailure> failure, std::string sent);
  EventStream send_deferred(std::shared_ptr<Call> state, StreamOptions options,
                            agentkit::stop_token stop);

  std::string api_;
  WireOptions options_;
  std::shared_ptr<const RequestPipeline> pipeline_;
  std::shared_ptr<CacheMeter> meter_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  mutable ToolSchemaCache schemas_;
  // Each session's clean point of send-time repair, under the loop's promise (off with
  // reuse_encoded_history, so the tests' fresh client repairs every request from the start).
  mutable RepairResume repairs_;
  mutable std::mutex answer_mu_;
  mutable std::map<std::pair<std::uint64_t, SchemaDialect>, ToolBytes> answer_forms_;
  CallThreads threads_;  // last: joined before the rest is destroyed
};

// The pre-closed error stream of a call that failed before it was sent (REQ-PROV-04).
EventStream failed_stream(const Request& request, std::string_view api,
                          const StreamOptions& options, const Error& error);

// Helpers shared by the encoders.
// The text of a tool result for wires whose results are a single string: "Error: " marks a
// failed call where the wire has no is_error slot (REQ-LOOP-02, post-PRD).
std::string result_text(const ToolResultMessage& result, bool mark_errors);
// "data:<mime>;base64,<data>"
std::string data_url(const ImageBlock& image);
// A boolean/string compat flag of the model row, or `fallback`.
bool compat_flag(const Model& model, std::string_view key, bool fallback);
std::string compat_text(const Model& model, std::string_view key, std::string fallback);
// The lower-cased host of the model's base URL ("api.openai.com").
std::string base_url_host(const Model& model);
// The thinking value to send for the request, after clamping (REQ-PROV-15); nullopt = send none.
struct ThinkingChoice {
  ThinkingLevel level;
  json::Value value;  // the catalog's wire value for that level
};
std::optional<ThinkingChoice> thinking_choice(const Request& request);
// A whole-number double prints as an integer literal ("0", "100"), others with their shortest form.
json::Value number(double value);
// Non-negative integer member of `object` (0 when absent or not a number).
std::int64_t count_at(const json::Value* object, std::string_view key);
std::string string_at(const json::Value* object, std::string_view key);
// The same member read in place: valid while `object` is; for values that are only compared or
// copied once into their place (a copy that would be compared and dropped allocates past 15 bytes).
std::string_view text_at(const json::Value* object, std::string_view key);

}  // namespace agentkit::providers::detail
