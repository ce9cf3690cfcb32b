// Span names and attributes of the OpenTelemetry GenAI semantic conventions (semconv 1.37 with
// the development-status names of the gen_ai registry; docs/architecture.md lists each choice).
#include "trace_sites.hpp"

#include <string>

#include "agentkit/json/value.hpp"

namespace agentkit::detail::trace {
namespace {

using tracing::Attribute;
using tracing::SpanKind;
using tracing::StatusCode;

std::string agent_name(const tracing::TracingConfig& config) {
  return config.agent_name.empty() ? std::string("agentkit") : config.agent_name;
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// The finish reason as the provider wrote it, else the library's own name for it.
std::string finish_reason(const AssistantMessage& m) {
  return m.raw_stop_reason.empty() ? std::string(to_string(m.stop_reason)) : m.raw_stop_reason;
}

std::string messages_json(std::span<const Message> messages) {
  json::Array out;
  out.reserve(messages.size());
  for (const auto& m : messages) out.push_back(to_json(m));
  return json::dump(json::Value(std::move(out)));
}

}  // namespace

SpanPtr start_run(const RuntimeConfig& runtime, const Model& model, std::string_view session_id,
                  tracing::Span* parent) {
  const tracing::TracingConfig& config = runtime.observability.tracing;
  if (!config.tracer) return tracing::noop_span();
  std::string name = agent_name(config);
  tracing::Context& under =
      parent != nullptr ? static_cast<tracing::Context&>(*parent) : *config.tracer;
  SpanPtr span = under.start_span("invoke_agent " + name, SpanKind::internal);
  if (!span) return tracing::noop_span();
  if (!span->recording()) return span;
  span->set_attributes({
      {"gen_ai.operation.name", std::string("invoke_agent")},
      {"gen_ai.provider.name", model.vendor},
      {"gen_ai.agent.name", std::move(name)},
      {"gen_ai.request.model", model.id},
      {"gen_ai.conversation.id", std::string(session_id)},
  });
  return span;
}

void end_run(tracing::Span& span, RunStopReason reason, const Usage& usage, int turns,
             std::string_view error) {
  if (!span.recording()) return;
  span.set_attributes({
      {"gen_ai.usage.input_tokens",
       usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens},
      {"gen_ai.usage.output_tokens", usage.output_tokens},
      {"agentkit.run.stop_reason", std::string(to_string(reason))},
      {"agentkit.run.turn_count", std::int64_t{turns}},
      {"agentkit.usage.cost_usd", usage.cost.total},
  });
  if (reason == RunStopReason::error) {
    span.set_attribute("error.type", std::string("agent_error"));
    span.set_status(StatusCode::error, error);
  }
  span.end();
}

ChatSpan::ChatSpan(tracing::Span& parent, const RuntimeConfig& runtime, const Request& request,
                   int turn_index)
    : span_(tracing::noop_span()) {
  if (!parent.recording()) return;
  const tracing::TracingConfig& config = runtime.observability.tracing;
  span_ = parent.start_span("chat " + request.model->id, SpanKind::client);
  recording_ = span_ && span_->recording();
  if (!recording_) return;
  capture_ = config.capture_content;
  started_ = std::chrono::steady_clock::now();
  std::vector<Attribute> a{
      {"gen_ai.operation.name", std::string("chat")},
      {"gen_ai.provider.name", request.model->vendor},
      {"gen_ai.request.model", request.model->id},
      {"gen_ai.request.stream", true},  // every wire of the library streams
      {"agentkit.turn_index", std::int64_t{turn_index}},
  };
  if (request.max_tokens) a.push_back({"gen_ai.request.max_tokens", *request.max_tokens});
  if (request.temperature) a.push_back({"gen_ai.request.temperature", *request.temperature});
  if (request.top_p) a.push_back({"gen_ai.request.top_p", *request.top_p});
  if (!request.stop_sequences.empty())
    a.push_back({"gen_ai.request.stop_sequences", request.stop_sequences});
  if (capture_) {
    if (!request.system.empty()) a.push_back({"gen_ai.system_instructions", request.system});
    a.push_back({"gen_ai.input.messages", messages_json(request.messages)});
  }
  span_->set_attributes(a);
}

bool ChatSpan::is_chunk(const Event& event) noexcept {
  return std::holds_alternative<TextDeltaEvent>(event) ||
         std::holds_alternative<ThinkingDeltaEvent>(event) ||
         std::holds_alternative<ToolArgumentsDeltaEvent>(event) ||
         std::holds_alternative<BlockEndEvent>(event);
}

void ChatSpan::end(const AssistantMessage& reply) {
  if (!recording_) return;
  const Usage& u = reply.usage;
  std::vector<Attribute> a{
      {"gen_ai.response.model", reply.response_model.empty() ? reply.model : reply.response_model},
      {"gen_ai.response.finish_reasons", std::vector<std::string>{finish_reason(reply)}},
      {"gen_ai.usage.input_tokens", u.input_tokens + u.cache_read_tokens + u.cache_write_tokens},
      {"gen_ai.usage.output_tokens", u.output_tokens},
      {"gen_ai.usage.cache_read.input_tokens", u.cache_read_tokens},
      {"gen_ai.usage.cache_creation.input_tokens", u.cache_write_tokens},
      {"gen_ai.usage.reasoning.output_tokens", u.reasoning_tokens},
      {"agentkit.usage.cost_usd", u.cost.total},
  };
  if (!reply.response_id.empty()) a.push_back({"gen_ai.response.id", reply.response_id});
  if (first_chunk_)
    a.push_back({"gen_ai.response.time_to_first_chunk", seconds(*first_chunk_ - started_)});
  if (capture_) {
    a.push_back({"gen_ai.output.messages",
                 messages_json(std::span<const Message>(std::vector<Message>{Message(reply)}))});
  }
  if (reply.stop_reason == StopReason::error) {
    a.push_back({"error.type", std::string("provider_error")});
    span_->set_status(StatusCode::error, reply.error_message);
  } else if (reply.stop_reason == StopReason::aborted) {
    a.push_back({"error.type", std::string("cancelled")});
    span_->set_status(StatusCode::error,
                      reply.error_message.empty() ? "cancelled" : reply.error_message);
  }
  span_->set_attributes(a);
  span_->end();
}

SpanPtr start_tool(tracing::Span& parent, const tracing::TracingConfig&, const ToolUseBlock& call) {
  if (!parent.recording()) return tracing::noop_span();
  SpanPtr span = parent.start_span("execute_tool " + call.name, SpanKind::internal);
  if (!span || !span->recording()) return span ? span : tracing::noop_span();
  span->set_attributes({
      {"gen_ai.operation.name", std::string("execute_tool")},
      {"gen_ai.tool.name", call.name},
      {"gen_ai.tool.call.id", call.id},
      {"gen_ai.tool.type", std::string("function")},
  });
  return span;
}

void end_tool(tracing::Span& span, const tracing::TracingConfig& config,
              const json::Value& arguments, const ToolResultMessage& message,
              std::string_view error_code) {
  if (!span.recording()) return;
  if (config.capture_content) {
    span.set_attribute("gen_ai.tool.call.arguments", json::dump(arguments));
    span.set_attribute(
        "gen_ai.tool.call.result",
        messages_json(std::span<const Message>(std::vector<Message>{Message(message)})));
  }
  if (message.is_error) {
    span.set_attribute("error.type",
                       error_code.empty() ? std::string("tool_error") : std::string(error_code));
    span.set_status(StatusCode::error);
  }
  span.end();
}

SpanPtr start_compaction(tracing::Span& parent, CompactionTrigger trigger,
                         std::int64_t tokens_before, std::size_t messages_summarised) {
  if (!parent.recording()) return tracing::noop_span();
  SpanPtr span = parent.start_span("compaction", SpanKind::internal);
  if (!span || !span->recording()) return span ? span : tracing::noop_span();
  span->set_attributes({
      {"agentkit.compaction.trigger", std::string(to_string(trigger))},
      {"agentkit.compaction.tokens_before", tokens_before},
      {"agentkit.compaction.messages_summarised", static_cast<std::int64_t>(messages_summarised)},
  });
  return span;
}

void end_compaction(tracing::Span& span, std::int64_t tokens_after, std::string_view error) {
  if (!span.recording()) return;
  if (error.empty()) {
    span.set_attribute("agentkit.compaction.tokens_after", tokens_after);
  } else {
    span.set_attribute("error.type", std::string("compaction_failed"));
    span.set_status(StatusCode::error, error);
  }
  span.end();
}

SpanPtr start_transform(tracing::Span& parent, std::size_t messages_in) {
  if (!parent.recording()) return tracing::noop_span();
  SpanPtr span = parent.start_span("context_transform", SpanKind::internal);
  if (span && span->recording())
    span->set_attribute("agentkit.context.messages_in", static_cast<std::int64_t>(messages_in));
  return span ? span : tracing::noop_span();
}

void end_transform(tracing::Span& span, std::size_t messages_out, bool ok) {
  if (!span.recording()) return;
  span.set_attribute("agentkit.context.messages_out", static_cast<std::int64_t>(messages_out));
  if (!ok) {
    span.set_attribute("error.type", std::string("transform_threw"));
    span.set_status(StatusCode::error);
  }
  span.end();
}

}  // namespace agentkit::detail::trace
