#include "openai_common.hpp"

#include "../wire_common/wire_client_base.hpp"
#include "agentkit/providers/cost.hpp"

namespace agentkit::providers::detail {
namespace {

bool present(const json::Value* object, std::string_view key) {
  const json::Value* v = object ? object->find(key) : nullptr;
  return v && v->is_number();
}

}  // namespace

void read_completions_usage(const json::Value& usage, Usage& out) {
  if (!usage.is_object()) return;
  const json::Value* details = usage.find("prompt_tokens_details");
  const std::int64_t read = cached_prompt_tokens(usage);
  const std::int64_t write = count_at(details, "cache_write_tokens");
  if (present(&usage, "prompt_tokens")) {
    out.input_tokens = net_prompt_tokens(count_at(&usage, "prompt_tokens"), read, write);
    out.cache_read_tokens = read;
    out.cache_write_tokens = write;
  }
  if (present(&usage, "completion_tokens")) out.output_tokens = count_at(&usage, "completion_tokens");
  const json::Value* completion = usage.find("completion_tokens_details");
  if (present(completion, "reasoning_tokens")) out.reasoning_tokens = count_at(completion, "reasoning_tokens");
}

void read_responses_usage(const json::Value& usage, Usage& out) {
  if (!usage.is_object()) return;
  const std::int64_t read = count_at(usage.find("input_tokens_details"), "cached_tokens");
  if (present(&usage, "input_tokens")) {
    out.input_tokens = net_prompt_tokens(count_at(&usage, "input_tokens"), read, 0);
    out.cache_read_tokens = read;
  }
  if (present(&usage, "output_tokens")) out.output_tokens = count_at(&usage, "output_tokens");
  const json::Value* output = usage.find("output_tokens_details");
  if (present(output, "reasoning_tokens")) out.reasoning_tokens = count_at(output, "reasoning_tokens");
}

bool accepts_prompt_cache_key(const Model& model) {
  const std::string host = base_url_host(model);
  return model.vendor == "openai" || model.vendor == "openrouter" || model.vendor == "azure" ||
         host == "api.openai.com" || host == "openrouter.ai" || host.ends_with(".openai.azure.com");
}

std::string prose_declaration(const std::vector<ToolBytes>& tools) {
  std::string out = "New tools are available from this point on (JSON declarations):";
  for (const auto& t : tools) {
    out += '\n';
    out += *t;
  }
  return out;
}

}  // namespace agentkit::providers::detail
