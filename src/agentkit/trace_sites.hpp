// The loop's tracing sites (OpenTelemetry GenAI conventions; docs/architecture.md names the
// version): one start and one end per run, model call and tool call, so loop.cpp and batch.cpp
// each carry a line per site. With tracing off every function sees the no-op span and returns
// before building any attribute.
#pragma once

#include <chrono>
#include <memory>

#include "agentkit/core/tracing.hpp"
#include "agentkit/runtime.hpp"

namespace agentkit::detail::trace {

using SpanPtr = std::shared_ptr<tracing::Span>;

// `invoke_agent {agent}` for one run, a root span of the configured tracer (or the no-op span);
// a subagent's run is a child of `parent`, the delegating call's execute_tool span.
SpanPtr start_run(const RuntimeConfig& runtime, const Model& model, std::string_view session_id,
                  tracing::Span* parent = nullptr);
void end_run(tracing::Span& span, RunStopReason reason, const Usage& usage, int turns,
             std::string_view error);

// `chat {model}` for one model call: watches the call's events for the first chunk.
class ChatSpan {
 public:
  ChatSpan(tracing::Span& parent, const RuntimeConfig& runtime, const Request& request,
           int turn_index);
  void observe(const Event& event) noexcept {
    if (!first_chunk_ && recording_ && is_chunk(event))
      first_chunk_ = std::chrono::steady_clock::now();
  }
  void end(const AssistantMessage& reply);
  // Whether observe() needs the model's events (the span records its first chunk).
  bool wants_events() const noexcept { return recording_; }

 private:
  static bool is_chunk(const Event& event) noexcept;
  SpanPtr span_;
  bool recording_ = false;
  bool capture_ = false;
  std::chrono::steady_clock::time_point started_;
  std::optional<std::chrono::steady_clock::time_point> first_chunk_;
};

// `execute_tool {tool}` for one call, a child of the run span.
SpanPtr start_tool(tracing::Span& parent, const tracing::TracingConfig& config,
                   const ToolUseBlock& call);
void end_tool(tracing::Span& span, const tracing::TracingConfig& config,
              const json::Value& arguments, const ToolResultMessage& message,
              std::string_view error_code);

// `compaction` around one compaction, from its plan to its checkpoint; the summary call is a
// `chat {model}` span beneath it, so its tokens are not mistaken for a turn's.
SpanPtr start_compaction(tracing::Span& parent, CompactionTrigger trigger,
                         std::int64_t tokens_before, std::size_t messages_summarised);
void end_compaction(tracing::Span& span, std::int64_t tokens_after, std::string_view error);

// A span around the context transform, when one is set.
SpanPtr start_transform(tracing::Span& parent, std::size_t messages_in);
void end_transform(tracing::Span& span, std::size_t messages_out, bool ok);

}  // namespace agentkit::detail::trace
