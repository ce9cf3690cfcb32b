// The anthropic-messages client: request assembly over the encoder pieces, and the factory.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/cache.hpp"
#include "../wire_common/encoded_history.hpp"
#include "anthropic_wire.hpp"

namespace agentkit::providers::detail {
namespace {

// REQ-PROV-15 (post-PRD): an integer thinking budget is at least 1,024 tokens and below max_tokens.
constexpr std::int64_t kMinThinkingBudget = 1024;
// The compaction edit's type, paired with kAnthropicCompactionBeta.
constexpr std::string_view kCompactionEdit = "compact_20260112";

json::Value anthropic_tool_choice(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::automatic: return json::Object{{"type", "auto"}};
    case ToolChoice::Mode::none: return json::Object{{"type", "none"}};
    case ToolChoice::Mode::required: return json::Object{{"type", "any"}};
    case ToolChoice::Mode::tool: return json::Object{{"type", "tool"}, {"name", choice.tool_name}};
  }
  return json::Object{{"type", "auto"}};
}

class AnthropicClient final : public WireClientBase {
 public:
  AnthropicClient(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline)
      : WireClientBase(catalog::kAnthropicMessages, options, std::move(pipeline)) {}

 protected:
  Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                              HistoryPromise promise) const override {
    const Model& model = *request.model;
    Breakpoints marks;
    marks.enabled = options().caching.retention != CacheRetention::none;
    marks.long_prefix = options().caching.retention == CacheRetention::long_term &&
                        compat_flag(model, "supports_long_cache_retention", false);

    json::Object body;
    std::int64_t max_tokens =
        request.max_tokens ? *request.max_tokens : default_max_tokens(request, view);
    if (!request.tools.empty()) {
      body.append_unique("tools", tools(request, marks));
      if (request.tool_choice)
        body.append_unique("tool_choice", anthropic_tool_choice(*request.tool_choice));
    }
    if (request.temperature) body.append_unique("temperature", number(*request.temperature));
    if (request.top_p) body.append_unique("top_p", number(*request.top_p));
    if (!request.stop_sequences.empty()) {
      json::Array stops;
      for (const auto& s : request.stop_sequences) stops.push_back(s);
      body.append_unique("stop_sequences", std::move(stops));
    }
    add_thinking(body, request, max_tokens);
    if (auto answer = native_answer(request, SchemaDialect::anthropic); !answer) {
      return answer.error();
    } else if (*answer) {
      // output_config.format, beside the effort an adaptive row may already have put there.
      json::Value format = json::Object{{"type", "json_schema"}, {"schema", json::Raw(*answer)}};
      if (json::Value* config = body.find("output_config")) {
        (*config)["format"] = std::move(format);
      } else {
        body.append_unique("output_config", json::Object{{"format", std::move(format)}});
      }
    }
    PreparedCall call;
    if (options().anthropic.server_compaction) add_compaction(body, call);
    body.append_unique("stream", true);
    // max_tokens is required by this API; placed second, where the SDK puts it.
    json::Object head{{"model", model.id}, {"max_tokens", max_tokens}};
    if (!request.system.empty()) head.append_unique("system", system(request.system, marks));
    call.wire.path = "/v1/messages";
    call.wire.body = object_around(
        std::move(head), "messages",
        [&](std::string& out, std::size_t after) {
          append_messages(request, view, promise, marks, out, after);
        },
        std::move(body));
    call.wire.headers.emplace_back("content-type", "application/json");
    call.wire.headers.emplace_back("accept", "text/event-stream");
    call.wire.headers.emplace_back("anthropic-version", std::string(kAnthropicApiVersion));
    if (options().anthropic.server_compaction) {
      call.wire.headers.emplace_back("anthropic-beta", std::string(kAnthropicCompactionBeta));
    }
    return call;
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall&, MessageAssembler& out) const override {
    return std::make_unique<AnthropicDecoder>(out);
  }

 private:
  // The messages array: the history kept from the session's previous request, then the rest,
  // the rolling breakpoint on the last message (never in the kept bytes).
  void append_messages(const Request& request, std::span<const Message> view,
                       HistoryPromise promise, const Breakpoints& marks, std::string& out,
                       std::size_t after) const {
    const bool compaction = options().anthropic.server_compaction;
    bool marked_tail = !marks.enabled;
    EncodedHistory::Wire wire{
        splits_result_runs_and_following_user, [&](std::span<const Message> segment, bool last) {
          EncodedHistory::Segment encoded =
              anthropic_item_text(segment, compaction, last ? &marks : nullptr);
          if (last && !encoded.items.empty()) marked_tail = true;
          return encoded;
        }};
    const std::size_t start = out.size();
    std::string context =
        request.model->vendor + '/' + request.model->id + (compaction ? "\0c" : "\0-");
    history_.append_array(request.session_id, std::move(context), view, wire, out, *meter(),
                          promise, {}, after);
    if (marked_tail || view.empty()) return;
    // The last message encoded to nothing, so the mark belongs on an earlier one: encode whole.
    // The array about to be written over holds the kept items as lent: the entry takes a copy of
    // it now, and the body (rewritten) is not given back.
    if (promise.lend && promise.lend->lease != 0) {
      HistoryLend lend = std::move(*promise.lend);
      lend.at -= start;
      std::string items = out.substr(start);
      cut_splices(items, lend.at, lend.splices);  // given back as the body would come back
      history_.give_back(request.session_id, std::move(lend), std::move(items));
      *promise.lend = HistoryLend{};
    }
    out.resize(start);
    json::Array messages = anthropic_messages(view, compaction);
    stamp_rolling_breakpoint(messages, marks);
    json::dump_to(out, json::Value(std::move(messages)));
  }

  static json::Value system(const std::string& text, const Breakpoints& marks) {
    if (!marks.enabled) return text;
    // One system block, so "the last system block" is the only one and carries the marker.
    return json::Array{json::Object{{"type", "text"}, {"text", text}, {"cache_control", marks.prefix()}}};
  }

  json::Array tools(const Request& request, const Breakpoints& marks) const {
    OfferedTools offered = offered_tools(request, anthropic_tool_form);
    return anthropic_tools(offered.established, offered.late, marks);
  }

  // The catalog's default bound, clamped to the model's window (REQ-CAT-04). The estimate counts
  // text only: the schemas' size would cost a serialisation per request (level 3).
  static std::int64_t default_max_tokens(const Request& request, std::span<const Message> view) {
    return catalog::clamp_max_tokens(*request.model, std::nullopt,
                                     catalog::estimate_prompt_tokens(request.system, view, {}));
  }

  static void add_thinking(json::Object& body, const Request& request, std::int64_t& max_tokens) {
    auto choice = thinking_choice(request);
    if (!choice) return;  // unset: the key is omitted (tri-state, REQ-PROV-15)
    const std::string style = compat_text(*request.model, "thinking_style", "adaptive");
    if (choice->level == ThinkingLevel::off || (choice->value.is_number() && choice->value.number_text() == "0")) {
      body.append_unique("thinking", json::Object{{"type", "disabled"}});
      return;
    }
    if (style == "budget" && choice->value.is_number()) {
      std::int64_t budget = choice->value.to_int64().value_or(kMinThinkingBudget);
      if (budget >= max_tokens) budget = max_tokens - 1;
      if (budget < kMinThinkingBudget) {
        budget = kMinThinkingBudget;
        max_tokens = std::max(max_tokens, budget + 1);
      }
      body.append_unique("thinking", json::Object{{"type", "enabled"}, {"budget_tokens", budget}});
      return;
    }
    // Adaptive rows speak effort levels, never a budget translated from one (post-PRD ruling).
    body.append_unique("thinking", json::Object{{"type", "adaptive"}});
    body.append_unique("output_config", json::Object{{"effort", choice->value}});
  }

  void add_compaction(json::Object& body, PreparedCall&) const {
    json::Object edit{{"type", std::string(kCompactionEdit)}};
    if (auto trigger = options().anthropic.compaction_trigger_tokens) {
      edit.append_unique("trigger", json::Object{{"type", "input_tokens"}, {"value", *trigger}});
    }
    // REQ-PROV-07 (post-PRD): the beta header without this body does nothing.
    body.append_unique("context_management", json::Object{{"edits", json::Array{std::move(edit)}}});
  }
};

}  // namespace

std::shared_ptr<WireClient> make_anthropic_client(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline) {
  return std::make_shared<AnthropicClient>(options, std::move(pipeline));
}

}  // namespace agentkit::providers::detail

namespace agentkit::providers {

std::shared_ptr<WireClient> make_anthropic_messages_client(const WireOptions& options,
                                                           std::shared_ptr<const RequestPipeline> pipeline) {
  return detail::make_anthropic_client(options, std::move(pipeline));
}

}  // namespace agentkit::providers
