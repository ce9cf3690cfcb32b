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
    PreparedCall call;
    std::map<std::string, std::vector<ToolBytes>, std::less<>> declared_after;
    const std::vector<ToolBytes> tools =
        request.tools.empty() ? std::vector<ToolBytes>{} : tool_list(request, declared_after);
    Result<ToolBytes> answer = native_answer(request, SchemaDialect::openai_strict);
    if (!answer) return answer.error();
    if (!request.stop_sequences.empty()) {
      // This API has no stop parameter: say so rather than drop them silently.
      call.unsupported.push_back(make_error(Errc::unsupported, "stop sequences are not supported by the Responses API (" +
                                                                   model.vendor + "/" + model.id + "); they were not sent"));
    }
    call.wire.path = "/responses";
    EncodedHistory::Wire wire{splits_result_runs, [&](std::span<const Message> segment, bool) {
                                return responses_items(segment, declared_after);
                              }};
    std::string context = model.vendor + '/' + model.id + '\0' + declared_context(declared_after);
    // {"model", "instructions", "input": [history], the options}: written in place, so the
    // history's and the tools' bytes go into the body once.
    std::string& body = call.wire.body;
    body.reserve(kMembersRoom + model.id.size() + request.system.size());
    body += '{';
    MemberWriter head(body);
    head.add("model", model.id);
    if (!request.system.empty()) head.add("instructions", request.system);
    head.open("input");
    std::size_t tail_bytes = kMembersRoom + bytes_of(tools);
    if (*answer)
      tail_bytes +=
          (*answer)->size() + request.answer->name.size() + request.answer->description.size();
    history_.append_array(request.session_id, std::move(context), view, wire, body, *meter(),
                          promise, {}, tail_bytes);
    MemberWriter tail(body, /*first=*/false);
    write_options(request, tools, *answer, tail);
    body += '}';
    call.wire.headers.emplace_back("content-type", "application/json");
    call.wire.headers.emplace_back("accept", "text/event-stream");
    return call;
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const override {
    return std::make_unique<ResponsesDecoder>(out, ResponsesProfile::of(*call.model).supports_service_tier);
  }

 private:
  // Room for the members around the history, beyond the model, the system prompt, the tools and
  // the answer format (whose sizes are added where the body is sized).
  static constexpr std::size_t kMembersRoom = 256;

  void write_options(const Request& request, const std::vector<ToolBytes>& tools,
                     const ToolBytes& answer, MemberWriter& out) const {
    const Model& model = *request.model;
    const ResponsesProfile profile = ResponsesProfile::of(model);
    if (!tools.empty()) {
      std::string& list = out.open("tools");
      for (std::size_t i = 0; i < tools.size(); ++i) {
        list += i == 0 ? '[' : ',';
        list += *tools[i];
      }
      list += ']';
      if (request.tool_choice)
        out.add_value("tool_choice", responses_tool_choice(*request.tool_choice));
    }
    if (answer) {
      // text.format: the strict JSON-Schema mode (the SDK's zodTextFormat shape).
      std::string& text = out.open("text");
      text += R"({"format":{"type":"json_schema","name":)";
      json::append_quoted(text, request.answer->name);
      if (!request.answer->description.empty()) {
        text += R"(,"description":)";
        json::append_quoted(text, request.answer->description);
      }
      text += R"(,"schema":)";
      text += *answer;
      text += R"(,"strict":true}})";
    }
    if (request.max_tokens) out.add_value("max_output_tokens", *request.max_tokens);
    if (request.temperature) out.add_value("temperature", number(*request.temperature));
    if (request.top_p) out.add_value("top_p", number(*request.top_p));
    bool reasoning = false;
    if (auto choice = thinking_choice(request)) {
      std::string& effort = out.open("reasoning");
      effort += R"({"effort":)";
      json::dump_to(effort, choice->value);
      effort += '}';
      reasoning = choice->level != ThinkingLevel::off;
    }
    if (profile.supports_store) out.add_value("store", false);
    // Without storage, reasoning can only be replayed from its encrypted form.
    if (reasoning && profile.supports_encrypted_reasoning) {
      std::string& include = out.open("include");
      include += '[';
      json::append_quoted(include, kEncryptedReasoning);
      include += ']';
    }
    if (!request.session_id.empty() && accepts_prompt_cache_key(model)) {
      out.add("prompt_cache_key", prompt_cache_key(request.session_id));
    }
    if (options().caching.retention == CacheRetention::long_term &&
        profile.supports_long_cache_retention) {
      out.add("prompt_cache_retention", kLongRetention);
    }
    out.add_value("stream", true);
  }

  // The wire forms of the tools in `tools`, cached (each shares the cache's bytes).
  std::vector<ToolBytes> tool_list(
      const Request& request,
      std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) const {
    OfferedTools offered = offered_tools(request, responses_tool_form);
    // Tools first offered mid-session stay out of `tools` (adding them there would change the
    // prompt prefix and lose the provider's cache) and are declared in prose after the result
    // that brought them (REQ-CACHE-10, ruling L-8: there is no additional_tools parameter).
    declared_after = std::move(offered.declared_after);
    return std::move(offered.established);
  }

  static std::size_t bytes_of(const std::vector<ToolBytes>& tools) {
    std::size_t n = 0;
    for (const ToolBytes& t : tools) n += t->size() + 1;
    return n;
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
