#include "answer_gate.hpp"

#include <algorithm>
#include <string_view>

#include "agentkit/wire/decode.hpp"

namespace agentkit::detail {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// The dialect of the wire's native mode; faux sends nothing, so it lowers nothing.
SchemaDialect native_dialect(std::string_view api) {
  if (api == catalog::kOpenAiResponses || api == catalog::kOpenAiCompletions)
    return SchemaDialect::openai_strict;
  if (api == catalog::kAnthropicMessages) return SchemaDialect::anthropic;
  if (api == catalog::kGoogleGenerativeAi) return SchemaDialect::gemini;
  return SchemaDialect::ollama;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// A model outside a native mode often fences its JSON (```json ... ```): the fence is not the
// answer.
std::string_view unfence(std::string_view s) {
  s = trim(s);
  if (!s.starts_with("```") || !s.ends_with("```") || s.size() < 6) return s;
  s.remove_suffix(3);
  s.remove_prefix(3);
  const auto newline = s.find('\n');
  if (newline == std::string_view::npos) return trim(s);
  return trim(s.substr(newline + 1));
}

}  // namespace

Result<AnswerGate> AnswerGate::make(const AgentCore& agent, const AnswerSchema& answer,
                                    std::span<const ToolSpec> offered) {
  const Model& model = *agent.model;
  const std::string who = model.vendor + "/" + model.id + " (" + model.api + ")";
  if (!valid_name(answer.name)) {
    return make_error(
        Errc::invalid_argument,
        "answer schema name '" + answer.name + "' must be 1 to 64 of A-Z, a-z, 0-9, '_' and '-'");
  }
  if (answer.max_repairs < 0) {
    return make_error(Errc::invalid_argument, "answer schema max_repairs must not be negative");
  }
  AnswerGate gate;
  const catalog::AnswerSupport support = catalog::answer_support(model);
  gate.mode_ = support.mode;
  if (gate.mode_ == Mode::native && !support.with_tools && !offered.empty())
    gate.mode_ = Mode::tool;
  gate.can_force_ = support.can_force_tool;
  gate.max_repairs_ = answer.max_repairs;
  gate.name_ = answer.name;
  gate.schema_ = answer.schema;
  gate.compiled_.emplace(answer.schema);
  const SchemaDialect dialect =
      gate.mode_ == Mode::native ? native_dialect(model.api) : SchemaDialect::tool_input;
  if (auto lowered = lower_schema(answer.schema.json(), dialect); !lowered) {
    Error e = lowered.error();
    e.message = "the turn's answer schema cannot be sent to " + who + ": " + e.message;
    return e;
  }
  if (gate.mode_ == Mode::tool) {
    if (agent.registry.find(answer.name) != nullptr) {
      return make_error(
          Errc::invalid_argument,
          "the answer schema's name '" + answer.name +
              "' is also a tool of this agent; the final-answer tool needs its own name");
    }
    gate.tool_.name = answer.name;
    gate.tool_.description =
        answer.description.empty()
            ? "Give your final answer by calling this tool; its input is the answer."
            : answer.description +
                  " Give your final answer by calling this tool; its input is the answer.";
    gate.tool_.input_schema = answer.schema.json();
    gate.tool_.fingerprint = fingerprint_of(gate.tool_);
  } else {
    auto format = std::make_shared<AnswerFormat>();
    format->name = answer.name;
    format->description = answer.description;
    format->schema = answer.schema.json();
    format->fingerprint = answer_fingerprint(*format);
    gate.format_ = std::move(format);
  }
  return gate;
}

std::span<const ToolSpec> AnswerGate::tools(std::span<const ToolSpec> offered) {
  if (mode_ != Mode::tool) return offered;
  with_tool_.assign(offered.begin(), offered.end());
  with_tool_.push_back(tool_);
  return with_tool_;
}

std::string AnswerGate::instructions() const {
  if (mode_ != Mode::json_object) return {};
  return "Give your final answer as one JSON object, and nothing else, that is valid against this "
         "JSON Schema:\n" +
         json::dump(schema_.json());
}

void AnswerGate::shape(Request& request, bool force) const {
  if (mode_ != Mode::tool) {
    request.answer = format_;
  } else if (force && can_force_) {
    request.tool_choice = ToolChoice{ToolChoice::Mode::tool, name_};
  }
}

AnswerVerdict AnswerGate::check_text(std::string text) const {
  AnswerVerdict v;
  v.final = true;
  v.text = std::move(text);
  const std::string_view body = unfence(v.text);
  if (body.empty()) {
    v.violations.push_back({"$", "the answer is empty; a JSON value was expected"});
    return v;
  }
  Result<json::Value> parsed = wire::decode(body);
  if (!parsed) {
    v.violations.push_back({"$", "the answer is not JSON (" + parsed.error().message + ")"});
    return v;
  }
  json::Value value = compiled_ ? drop_optional_nulls(*compiled_, std::move(*parsed))
                                : drop_optional_nulls(schema_, std::move(*parsed));
  v.violations = compiled_ ? find_violations(*compiled_, value) : find_violations(schema_, value);
  if (v.violations.empty()) v.value = std::move(value);
  return v;
}

AnswerVerdict AnswerGate::judge(const AssistantMessage& reply) const {
  if (mode_ == Mode::tool) {
    for (const auto& block : reply.content) {
      if (const auto* call = std::get_if<ToolUseBlock>(&block); call && call->name == name_) {
        AnswerVerdict v = check_text(call->input.str());
        v.call_id = call->id;
        return v;
      }
    }
  }
  if (has_tool_use(reply)) return {};  // a tool turn: unconstrained
  AnswerVerdict v = check_text(text_of(reply));
  if (mode_ == Mode::tool && !v.value) {
    v.violations.insert(v.violations.begin(),
                        SchemaViolation{"$", "no call of the '" + name_ +
                                                 "' tool, whose input is the final answer"});
  }
  return v;
}

std::string AnswerGate::repair_note(const AnswerVerdict& verdict) const {
  std::string out = "Your final answer does not satisfy the required JSON Schema:";
  for (const auto& violation : verdict.violations)
    out += "\n- " + violation.path + ": " + violation.message;
  out += mode_ == Mode::tool ? "\nCall the '" + name_ + "' tool again with a corrected input."
                             : std::string("\nReply again with only the corrected JSON.");
  return out;
}

AssistantMessage AnswerGate::without_answer_call(const AssistantMessage& reply) const {
  AssistantMessage out = reply;
  std::erase_if(out.content, [&](const ContentBlock& b) {
    const auto* call = std::get_if<ToolUseBlock>(&b);
    return call != nullptr && call->name == name_;
  });
  return out;
}

}  // namespace agentkit::detail
