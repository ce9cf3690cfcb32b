// agentkit/providers/faux.hpp — a scripted provider for tests, demos and benchmarks, offline.
//
//   using namespace agentkit;
//   auto faux = std::make_shared<providers::FauxProvider>(std::vector<providers::FauxResponse>{
//       providers::tool_call_response({providers::tool_call("c1", "read_file", R"({"path":"a.txt"})")},
//                                     StopReason::stop),     // "stop" next to a tool call
//       providers::text_response("done"),
//   });
//   RuntimeConfig rt;
//   rt.model.spec = "faux/test";
//   rt.providers.add("faux", faux);
//   ...
//   assert(faux->request_count() == 2);
//
// Each request takes the next scripted response (or asks the responder). A response can stream
// chunk by chunk or whole, wait before its first byte and between chunks, fail mid-stream, or hang
// until cancelled (then it ends `aborted` with the partial content kept) — the provider behaviours
// the loop must survive. Every request is recorded (copied) unless recording is switched off.
//
// Thread safety: stream() may be called from several threads; script, push() and requests() are
// guarded by one mutex. Streams with delays run on threads the provider owns and joins.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/core/provider.hpp"

namespace agentkit::providers {

struct FauxResponse {
  AssistantMessage message;
  // true: text, thinking and tool arguments arrive as deltas of `chunk_bytes`; false: whole blocks.
  bool stream_chunks = true;
  std::size_t chunk_bytes = 8;
  std::chrono::milliseconds first_byte_delay{0};
  std::chrono::milliseconds chunk_delay{0};
  // After this many deltas the stream fails: the message ends with stop_reason error and
  // `failure_message`, keeping what was streamed so far.
  std::optional<std::size_t> fail_after_chunks;
  std::string failure_message = "faux: the stream failed midway";
  // Stream everything, then wait until the call is cancelled; it ends aborted with the content.
  bool hang_until_cancelled = false;
  // Called on the producing thread when the request arrives, before any event (may block).
  std::function<void(const Request&)> on_request;
};

// A text reply.
FauxResponse text_response(std::string text, StopReason reason = StopReason::stop);
// A reply holding tool calls (and optional leading text), with the given stop reason.
FauxResponse tool_call_response(std::vector<ToolUseBlock> calls, StopReason reason = StopReason::tool_use,
                                std::string text = {});
// A failed call (stop_reason error).
FauxResponse error_response(std::string message);
ToolUseBlock tool_call(std::string id, std::string name, std::string arguments_json);

// What the provider saw of one request.
struct RecordedRequest {
  std::string system;
  std::vector<Message> messages;
  std::vector<std::string> tool_names;
  std::optional<std::int64_t> max_tokens;
  std::optional<ThinkingLevel> thinking;
  std::vector<std::string> stop_sequences;
  std::string session_id;
  std::uint64_t history_serial = 0;  // Request::history_serial
  std::optional<ToolChoice> tool_choice;
  // The typed-answer format the request carried (Request::answer); null = none.
  std::shared_ptr<const AnswerFormat> answer;
};

struct FauxOptions {
  // Copy every request (messages included). Benchmarks switch this off.
  bool record_requests = true;
  // Usage attached to every response that has none (cost included), for budget tests.
  std::optional<Usage> usage_per_response;
};

class FauxProvider : public ProviderClient {
 public:
  explicit FauxProvider(std::vector<FauxResponse> script = {}, FauxOptions options = {});
  // Answers every request from `responder` instead of a script.
  explicit FauxProvider(std::function<FauxResponse(const Request&)> responder, FauxOptions options = {});
  ~FauxProvider() override;
  FauxProvider(const FauxProvider&) = delete;
  FauxProvider& operator=(const FauxProvider&) = delete;

  // Appends a response to the script.
  void push(FauxResponse response);
  EventStream stream(const Request& request, const StreamOptions& options, agentkit::stop_token stop) override;

  std::vector<RecordedRequest> requests() const;
  std::size_t request_count() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace agentkit::providers
