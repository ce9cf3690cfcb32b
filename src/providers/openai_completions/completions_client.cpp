// The openai-completions client: body assembly under the profile, and the factory.
#include "../openai_shared/openai_common.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/openai.hpp"
#include "../wire_common/encoded_history.hpp"
#include "completions_wire.hpp"

namespace agentkit::providers::detail {
namespace {

json::Value completions_tool_choice(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::automatic: return "auto";
    case ToolChoice::Mode::none: return "none";
    case ToolChoice::Mode::required: return "required";
    case ToolChoice::Mode::tool:
      return json::Object{{"type", "function"}, {"function", json::Object{{"name", choice.tool_name}}}};
  }
  return "auto";
}

Error unsupported(const Model& model, std::string what) {
  return make_error(Errc::unsupported, what + " is not supported by " + model.vendor + "/" + model.id +
                                           " (openai-completions); it was not sent");
}

// Puts Anthropic-style cache_control on the system message and on the last part of the last user
// message (OpenRouter's anthropic/* models over Chat Completions, REQ-PROV-12 cache_control_format).
void stamp_cache_control(json::Array& messages) {
  const json::Value mark = json::Object{{"type", "ephemeral"}};
  auto mark_last_part = [&](json::Value& message) {
    json::Value* content = message.find("content");
    if (!content) return;
    if (content->is_string()) *content = json::Array{json::Object{{"type", "text"}, {"text", content->as_string()}}};
    if (content->is_array() && !content->as_array().empty()) content->as_array().back()["cache_control"] = mark;
  };
  for (auto& m : messages) {
    const std::string_view role = text_at(&m, "role");
    if (role == "system" || role == "developer") {
      mark_last_part(m);
      break;
    }
  }
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (text_at(&*it, "role") == "user") {
      mark_last_part(*it);
      break;
    }
  }
}

class CompletionsClient final : public WireClientBase {
 public:
  CompletionsClient(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline)
      : WireClientBase(catalog::kOpenAiCompletions, options, std::move(pipeline)) {}

 protected:
  Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                              HistoryPromise promise) const override {
    const Model& model = *request.model;
    const CompletionsProfile profile = CompletionsProfile::of(model);
    PreparedCall call;
    json::Array tools;
    std::map<std::string, std::vector<ToolBytes>, std::less<>> declared_after;
    if (!request.tools.empty()) tools = tool_list(request, declared_after);
    // OpenRouter's Anthropic rows mark the last user message, which may lie anywhere in the
    // history: those requests are encoded whole (the kept history serves unmarked wires only).
    const bool stamped = profile.cache_control_format == "anthropic" &&
                         options().caching.retention != CacheRetention::none;
    json::Object head{{"model", model.id}};
    if (stamped) {
      CompletionsEncoding enc = completions_messages(request, view, profile, declared_after);
      stamp_cache_control(enc.messages);
      head.append_unique("messages", std::move(enc.messages));
    }
    json::Object body;
    if (!tools.empty()) {
      body.append_unique("tools", std::move(tools));
      if (request.tool_choice)
        body.append_unique("tool_choice", completions_tool_choice(*request.tool_choice));
    }
    if (request.answer &&
        catalog::answer_support(model).mode == catalog::AnswerSupport::Mode::json_object) {
      // JSON mode only (a compat profile says so): the loop put the schema in the instructions.
      body.append_unique("response_format", json::Object{{"type", "json_object"}});
    } else if (auto answer = native_answer(request, SchemaDialect::openai_strict); !answer) {
      return answer.error();
    } else if (*answer) {
      json::Object spec{{"name", request.answer->name}};
      if (!request.answer->description.empty())
        spec.append_unique("description", request.answer->description);
      spec.append_unique("schema", json::Raw(*answer));
      spec.append_unique("strict", true);
      body.append_unique("response_format",
                         json::Object{{"type", "json_schema"}, {"json_schema", std::move(spec)}});
    }
    if (request.max_tokens) body.append_unique(profile.use_max_tokens ? "max_tokens" : "max_completion_tokens", *request.max_tokens);
    if (request.temperature) body.append_unique("temperature", number(*request.temperature));
    if (request.top_p) body.append_unique("top_p", number(*request.top_p));
    if (!request.stop_sequences.empty()) {
      json::Array stops;
      for (const auto& s : request.stop_sequences) stops.push_back(s);
      body.append_unique("stop", std::move(stops));
    }
    add_thinking(body, request, profile, call.unsupported);
    if (profile.supports_store) body.append_unique("store", false);
    if (!request.session_id.empty() && profile.accepts_prompt_cache_key) {
      body.append_unique("prompt_cache_key", prompt_cache_key(request.session_id));
    }
    body.append_unique("stream", true);
    // Without it a stream carries no usage at all.
    body.append_unique("stream_options", json::Object{{"include_usage", true}});
    call.wire.path = "/chat/completions";
    if (stamped) {
      for (auto& m : body) head.append_unique(m.key, std::move(m.value));
      call.wire.body = json::dump(head);
    } else {
      std::string lead;
      if (!request.system.empty()) {
        json::dump_to(lead, completions_system(request, profile));
        lead += ',';
      }
      EncodedHistory::Wire wire{splits_result_runs_and_following_user,
                                [&](std::span<const Message> segment, bool) {
                                  return completions_item_text(segment, profile, declared_after);
                                }};
      std::string context = model.vendor + '/' + model.id + '\0' + model.base_url + '\0' +
                            (profile.allows_null_assistant_content ? "n" : "-") +
                            (profile.allows_user_after_tool_result ? "u" : "-") +
                            (profile.requires_tool_result_name ? "r" : "-") +
                            profile.thinking_format + '\0' + declared_context(declared_after);
      call.wire.body = object_around(
          std::move(head), "messages",
          [&](std::string& out, std::size_t after) {
            history_.append_array(request.session_id, std::move(context), view, wire, out, *meter(),
                                  promise, lead, after);
          },
          std::move(body));
    }
    call.wire.headers.emplace_back("content-type", "application/json");
    call.wire.headers.emplace_back("accept", "text/event-stream");
    return call;
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const override {
    return std::make_unique<CompletionsDecoder>(out, CompletionsProfile::of(*call.model).supports_finish_reason);
  }

 private:
  json::Array tool_list(const Request& request, std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) const {
    OfferedTools offered = offered_tools(request, completions_tool_form);
    json::Array tools;
    tools.reserve(offered.established.size());
    for (const auto& form : offered.established) tools.push_back(json::Raw(form));
    // Tools first offered mid-session stay out of `tools` (adding them there would change the
    // prompt prefix and lose the provider's cache) and are declared in prose after the result
    // that brought them (REQ-CACHE-10, ruling L-8: there is no additional_tools parameter).
    declared_after = std::move(offered.declared_after);
    return tools;
  }


  static void add_thinking(json::Object& body, const Request& request, const CompletionsProfile& profile,
                           std::vector<Error>& unsupported_out) {
    auto choice = thinking_choice(request);
    if (!choice) return;
    const json::Value& v = choice->value;
    const bool off = choice->level == ThinkingLevel::off;
    const std::string& format = profile.thinking_format;
    if (format == "deepseek") {
      body.append_unique("thinking", json::Object{{"type", v}});
    } else if (format == "openrouter") {
      if (v.is_string() && (v.as_string() == "enabled" || v.as_string() == "disabled")) {
        body.append_unique("reasoning", json::Object{{"enabled", v.as_string() == "enabled"}});
      } else {
        body.append_unique("reasoning", json::Object{{"effort", v}});
      }
    } else if (format == "together") {
      body.append_unique("reasoning", json::Object{{"enabled", !off}});
    } else if (format == "chat-template") {
      body.append_unique("chat_template_kwargs", json::Object{{"enable_thinking", !off}});
      if (!off && v.is_number() && !profile.thinking_token_budget_field.empty()) {
        body.append_unique(profile.thinking_token_budget_field, v);
      }
    } else if (profile.supports_reasoning_effort) {
      body.append_unique("reasoning_effort", v);
    } else if (v.is_string() && (v.as_string() == "enabled" || v.as_string() == "disabled")) {
      body.append_unique("thinking", json::Object{{"type", v}});  // Moonshot's switch
    } else {
      unsupported_out.push_back(unsupported(*request.model, "the thinking level '" + std::string(to_string(choice->level)) + "'"));
    }
  }
};

}  // namespace
}  // namespace agentkit::providers::detail

namespace agentkit::providers {

std::shared_ptr<WireClient> make_openai_completions_client(const WireOptions& options,
                                                           std::shared_ptr<const RequestPipeline> pipeline) {
  return std::make_shared<detail::CompletionsClient>(options, std::move(pipeline));
}

}  // namespace agentkit::providers
