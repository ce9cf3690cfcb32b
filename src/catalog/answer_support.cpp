// The reader of the typed-answer compat keys (catalog.hpp answer_support), the one place the loop
// and every wire learn whether a model has a native structured-output mode.
#include "agentkit/catalog/catalog.hpp"

namespace agentkit::catalog {

AnswerSupport answer_support(const Model& model) noexcept {
  AnswerSupport out;
  const std::string_view api = model.api;
  const bool known = api == kOpenAiResponses || api == kOpenAiCompletions || api == kOllamaChat ||
                     api == kGoogleGenerativeAi || api == kAnthropicMessages || api == "faux";
  if (!known || api == kAnthropicMessages) out.mode = AnswerSupport::Mode::tool;
  if (api == kGoogleGenerativeAi) out.with_tools = false;
  if (api == kOllamaChat) out.can_force_tool = false;
  if (const json::Value* v = model.compat.find("structured_output"); v && v->is_string()) {
    const std::string& mode = v->as_string();
    if (mode == "native") out.mode = AnswerSupport::Mode::native;
    if (mode == "tool") out.mode = AnswerSupport::Mode::tool;
    if (mode == "json_object") out.mode = AnswerSupport::Mode::json_object;
  }
  if (const json::Value* v = model.compat.find("structured_output_with_tools"); v && v->is_bool()) {
    out.with_tools = v->as_bool();
  }
  return out;
}

}  // namespace agentkit::catalog
