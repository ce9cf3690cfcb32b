// The openai-responses client: body assembly and the factory.
#include "../openai_shared/openai_common.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/openai.hpp"
#include "../wire_common/encoded_history.hpp"
#include "responses_wire.hpp"

namespace agentkit::providers::detail {
namespace {

// OpenAI's extended prompt-cache retention value (level 1, long retention).
constexpr std::string_view kLongRetention = "24h";
// Asks the API to return reasoning encrypted, so it can be replayed without server-side storage.
constexpr std::string_view kEncryptedReasoning = "reasoning.encrypted_content";

json::Value responses_tool_choice(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::automatic: return "auto";
    case ToolChoice::Mode::none: return "none";
    case ToolChoice::Mode::required: return "required";
    case ToolChoice::Mode::tool: return json::Object{{"type", "function"}, {"name", choice.tool_name}};
  }
  return "auto";
}

struct ResponsesProfile {
  bool supports_store;
  bool supports_service_tier;
  bool supports_encrypted_reasoning;
  bool supports_long_cache_retention;
  static ResponsesProfile of(const Model& model) {
    const bool openai = base_url_host(model) == "api.openai.com" || model.vendor == "openai";
    return ResponsesProfile{compat_flag(model, "supports_store", openai), compat_flag(model, "supports_service_tier", openai),
                            compat_flag(model, "supports_encrypted_reasoning", openai),
                            compat_flag(model, "supports_long_cache_retention", openai)};
  }
};

class ResponsesClient final : public WireClientBase {
 public:
  ResponsesClient(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline)
      : WireClientBase(catalog::kOpenAiResponses, options, std::move(pipeline)) {}

 protected:
  Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                              HistoryPromise promise) const override {
    const Model& model = *request.model;
    const ResponsesProfile profile = ResponsesProfile::of(model);
    PreparedCall call;
    std::map<std::string, std::vector<ToolBytes>, std::less<>> declared_after;
    json::Array tools = request.tools.empty() ? json::Array{} : tool_list(request, declared_after);
    json::Object head{{"model", model.id}};
    if (!request.system.empty()) head.append_unique("instructions", request.system);
    json::Object body;
    if (!tools.empty()) {
      body.append_unique("tools", std::move(tools));
      if (request.tool_choice)
        body.append_unique("tool_choice", responses_tool_choice(*request.tool_choice));
    }
    if (auto answer = native_answer(request, SchemaDialect::openai_strict); !answer) {
      return answer.error();
    } else if (*answer) {
      // text.format: the strict JSON-Schema mode (the SDK's zodTextFormat shape).
      json::Object format{{"type", "json_schema"}, {"name", request.answer->name}};
      if (!request.answer->description.empty())
        format.append_unique("description", request.answer->description);
      format.append_unique("schema", json::Raw(*answer));
      format.append_unique("strict", true);
      body.append_unique("text", json::Object{{"format", std::move(format)}});
    }
    if (request.max_tokens) body.append_unique("max_output_tokens", *request.max_tokens);
    if (request.temperature) body.append_unique("temperature", number(*request.temperature));
    if (request.top_p) body.append_unique("top_p", number(*request.top_p));
    if (!request.stop_sequences.empty()) {
      // This API has no stop parameter: say so rather than drop them silently.
      call.unsupported.push_back(make_error(Errc::unsupported, "stop sequences are not supported by the Responses API (" +
                                                                   model.vendor + "/" + model.id + "); they were not sent"));
    }
    bool reasoning = false;
    if (auto choice = thinking_choice(request)) {
      body.append_unique("reasoning", json::Object{{"effort", choice->value}});
      reasoning = choice->level != ThinkingLevel::off;
    }
    if (profile.supports_store) body.append_unique("store", false);
    // Without storage, reasoning can only be replayed from its encrypted form.
    if (reasoning && profile.supports_encrypted_reasoning) body.append_unique("include", json::Array{std::string(kEncryptedReasoning)});
    if (!request.session_id.empty() && accepts_prompt_cache_key(model)) {
      body.append_unique("prompt_cache_key", prompt_cache_key(request.session_id));
    }
    if (options().caching.retention == CacheRetention::long_term && profile.supports_long_cache_retention) {
      body.append_unique("prompt_cache_retention", std::string(kLongRetention));
    }
    body.append_unique("stream", true);
    call.wire.path = "/responses";
    EncodedHistory::Wire wire{splits_result_runs, [&](std::span<const Message> segment, bool) {
                                return dump_items(responses_input(segment, declared_after));
                              }};
    std::string context = model.vendor + '/' + model.id + '\0' + declared_context(declared_after);
    call.wire.body = object_around(
        std::move(head), "input",
        [&](std::string& out, std::size_t after) {
          history_.append_array(request.session_id, std::move(context), view, wire, out, *meter(),
                                promise, {}, after);
        },
        std::move(body));
    call.wire.headers.emplace_back("content-type", "application/json");
    call.wire.headers.emplace_back("accept", "text/event-stream");
    return call;
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const override {
    return std::make_unique<ResponsesDecoder>(out, ResponsesProfile::of(*call.model).supports_service_tier);
  }

 private:
  json::Array tool_list(const Request& request, std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) const {
    OfferedTools offered = offered_tools(request, responses_tool_form);
    json::Array tools;
    tools.reserve(offered.established.size());
    for (const auto& form : offered.established) tools.push_back(json::Raw(form));
    // Tools first offered mid-session stay out of `tools` (adding them there would change the
    // prompt prefix and lose the provider's cache) and are declared in prose after the result
    // that brought them (REQ-CACHE-10, ruling L-8: there is no additional_tools parameter).
    declared_after = std::move(offered.declared_after);
    return tools;
  }
};

}  // namespace
}  // namespace agentkit::providers::detail

namespace agentkit::providers {

std::shared_ptr<WireClient> make_openai_responses_client(const WireOptions& options,
                                                         std::shared_ptr<const RequestPipeline> pipeline) {
  return std::make_shared<detail::ResponsesClient>(options, std::move(pipeline));
}

}  // namespace agentkit::providers
