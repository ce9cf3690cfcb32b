// execute, run_command and powershell as ToolDefinitions over the process engine (REQ-TOOL-06,
// REQ-TOOL-09a/d, REQ-TOOL-17, REQ-SEC-08). The handler's stop token reaches the engine, so an
// abort (or the tool's timeout) kills the whole process group.
#include <chrono>
#include <functional>
#include <utility>

#include "agentkit/tools/coding_tools.hpp"
#include "tool_support.hpp"

namespace agentkit::tools {
using detail::count;

namespace {

using Runner = std::function<Result<ProcessResult>(const json::Value& args, const ProcessOptions&, agentkit::stop_token)>;

constexpr std::string_view kTimeoutHelp =
    "Kill the command (and everything it started) after this many seconds; no limit when absent";

ProcessOptions options_for(const Workspace& ws, ProcessOptions base, const json::Value& args) {
  if (base.cwd.empty()) base.cwd = ws.root();
  if (auto seconds = detail::int_arg(args, "timeout_s")) base.timeout = std::chrono::seconds(*seconds);
  return base;
}

std::string status_line(const ProcessResult& r, const ProcessOptions& used) {
  switch (r.outcome) {
    case Outcome::exited:
      return "[exit code " + std::to_string(r.exit_code) + "]";
    case Outcome::timed_out: {
      auto seconds = std::chrono::duration_cast<std::chrono::seconds>(used.timeout.value_or(std::chrono::milliseconds{0}));
      return "[timed out after " + std::to_string(seconds.count()) + " s; the process group was killed]";
    }
    case Outcome::aborted:
      return "[aborted; the process group was killed]";
  }
  return {};
}

ToolResult process_result(const ProcessResult& r, const ProcessOptions& used) {
  std::string text = format_output(r);
  if (text.empty()) text = "(no output)";
  if (text.back() != '\n') text += '\n';
  text += status_line(r, used);
  ToolResult out;
  if (r.outcome == Outcome::exited) {
    out = ToolResult::text_result(std::move(text));
  } else {
    const char* code = r.outcome == Outcome::timed_out ? "timeout" : "aborted";
    out = ToolResult::failure(code, std::move(text));
  }
  out.data = json::Object{{"exit_code", r.exit_code}, {"outcome", outcome_name(r.outcome)}, {"output", r.output}};
  out.metadata.set("outcome", outcome_name(r.outcome));
  out.metadata.set("exit_code", r.exit_code);
  out.metadata.set("duration_ms", static_cast<long long>(r.duration.count()));
  out.metadata.set("truncated", r.truncated);
  if (r.truncated) out.metadata.set("truncated_by", "bytes");
  out.metadata.set("total_bytes", count(r.total_bytes));
  if (r.spill_file) out.metadata.set("spill_file", r.spill_file->string());
  out.metadata.set("program", r.program);
  return out;
}

ToolHandler process_handler(const Workspace& ws, const ProcessOptions& base, Runner run) {
  return [ws, base, run = std::move(run)](const json::Value& args, const ToolContext& ctx) -> ToolResult {
    ProcessOptions used = options_for(ws, base, args);
    auto result = run(args, used, ctx.stop);
    if (!result) return ToolResult::failure(result.error());
    return process_result(*result, used);
  };
}

Schema command_schema(std::string command_help) {
  using namespace schema;
  return object({
      required("command", string().min_length(1).describe(std::move(command_help))),
      optional("timeout_s", integer().minimum(1).describe(std::string(kTimeoutHelp))),
  });
}

constexpr std::string_view kOutputContract =
    "stdout and stderr arrive interleaved in write order; only the last 50 KB are returned, and longer "
    "output is saved whole to a file named in the result. stdin is empty. Runs in the workspace root with a "
    "reduced environment (no credentials).";

}  // namespace

ToolDefinition execute_tool(const Workspace& ws, const CodingToolsOptions& options) {
  Schema input = command_schema("The command line, run by bash (or sh)");
  Runner run = [](const json::Value& args, const ProcessOptions& o, agentkit::stop_token stop) {
    return tools::execute(detail::string_arg(args, "command"), o, std::move(stop));
  };
  return ToolDefinition{
      .name = "execute",
      .description = "Run a shell command line with bash; pipes, redirections and && work. " + std::string(kOutputContract),
      .input_schema = input,
      .handler = detail::validated(input, process_handler(ws, options.process, std::move(run))),
      .execution_mode = ExecutionMode::sequential,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines =
          "Use execute for builds, tests and git. Give long-running commands a timeout_s. Prefer read_file, "
          "edit_file and search_files over cat, sed and grep.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition run_command_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      required("argv", array(string()).min_items(1).describe(
                           "Program and arguments, e.g. [\"git\", \"status\", \"--short\"]; no shell interprets them")),
      optional("timeout_s", integer().minimum(1).describe(std::string(kTimeoutHelp))),
  });
  Runner run = [](const json::Value& args, const ProcessOptions& o, agentkit::stop_token stop) -> Result<ProcessResult> {
    std::vector<std::string> argv;
    if (const json::Value* list = args.find("argv"); list && list->is_array()) {
      for (const json::Value& a : list->as_array()) argv.emplace_back(a.get_string().value_or(""));
    }
    return tools::run_command(argv, o, std::move(stop));
  };
  return ToolDefinition{
      .name = "run_command",
      .description = "Run one program with an argument list, without a shell (no quoting or expansion "
                     "surprises). " + std::string(kOutputContract),
      .input_schema = input,
      .handler = detail::validated(input, process_handler(ws, options.process, std::move(run))),
      .execution_mode = ExecutionMode::sequential,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines = "Use run_command when arguments hold spaces, quotes or shell characters.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition powershell_tool(const Workspace& ws, const CodingToolsOptions& options) {
  Schema input = command_schema("The PowerShell command");
  Runner run = [](const json::Value& args, const ProcessOptions& o, agentkit::stop_token stop) {
    return tools::powershell(detail::string_arg(args, "command"), o, std::move(stop));
  };
  return ToolDefinition{
      .name = "powershell",
      .description = "Run a PowerShell command (pwsh); fails where PowerShell is not installed. " +
                     std::string(kOutputContract),
      .input_schema = input,
      .handler = detail::validated(input, process_handler(ws, options.process, std::move(run))),
      // Not sequential by the PRD's table; but like execute it can touch anything.
      .execution_mode = ExecutionMode::sequential,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines = "Use powershell only for Windows-specific tasks; prefer execute elsewhere.",
      .origin = std::string(kBuiltinOrigin),
  };
}

}  // namespace agentkit::tools
