// Typed answers in the loop (Turn::answer): how a run's requests ask for the answer, and the local
// judgement of each final answer against the user's whole schema.
//
//   auto gate = AnswerGate::make(agent, turn.answer, offered_specs);   // an error fails run()
//   gate->shape(request, force);              // the native format, or the final-answer tool
//   AnswerVerdict v = gate->judge(reply);     // final? valid? which violations?
//
// Modes (catalog::answer_support): native and json_object put an AnswerFormat on the request and
// read the answer from the reply's text; tool offers a final-answer tool (named after the
// schema) whose input is the answer. A native model whose native mode cannot be combined with
// tools (structured_output_with_tools false) uses the tool mode on a run that offers tools.
//
// Thread safety: one per run, used by the run's thread only.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/answer.hpp"
#include "internal.hpp"

namespace agentkit::detail {

struct AnswerVerdict {
  // The reply is (or holds) the final answer. False: an ordinary tool turn, not judged.
  bool final = false;
  // With final: the answer, valid against the whole schema (optional nulls dropped).
  std::optional<json::Value> value;
  std::vector<SchemaViolation> violations;  // with final and no value: why not
  std::string text;                         // the answer's JSON text as the model sent it
  // Tool mode: the id of the final-answer call (its result must be appended); empty otherwise.
  std::string call_id;
};

class AnswerGate {
 public:
  using Mode = catalog::AnswerSupport::Mode;

  // Fails (Errc::invalid_argument, naming the model and the JSON path) when the schema cannot be
  // expressed by the mode the model would use, or its name is malformed or names a tool.
  static Result<AnswerGate> make(const AgentCore& agent, const AnswerSchema& answer,
                                 std::span<const ToolSpec> offered);

  Mode mode() const noexcept { return mode_; }
  int max_repairs() const noexcept { return max_repairs_; }
  const std::string& tool_name() const noexcept { return name_; }
  // The tools a request offers: the policy's, plus the final-answer tool in tool mode.
  std::span<const ToolSpec> tools(std::span<const ToolSpec> offered);
  // The instructions to append to the system prompt (json_object mode: the schema in prose).
  std::string instructions() const;
  // Puts the answer format on `request` (native, json_object), or forces the final-answer tool
  // when `force` and the wire can force one.
  void shape(Request& request, bool force) const;
  AnswerVerdict judge(const AssistantMessage& reply) const;
  // The model-facing note for an invalid answer (a user message, or the tool result's text).
  std::string repair_note(const AnswerVerdict& verdict) const;
  // `reply` without the final-answer call, for the batch to run the other calls of the turn.
  AssistantMessage without_answer_call(const AssistantMessage& reply) const;

 private:
  AnswerVerdict check_text(std::string text) const;

  Mode mode_ = Mode::native;
  bool can_force_ = true;
  int max_repairs_ = 2;
  std::string name_;
  Schema schema_;
  // The schema's keywords read once per run: every answer of the run is judged against it.
  std::optional<CompiledSchema> compiled_;
  std::shared_ptr<const AnswerFormat> format_;
  ToolSpec tool_;
  std::vector<ToolSpec> with_tool_;
};

}  // namespace agentkit::detail
