#include "agentkit/tools/command_policy.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace agentkit::tools {
namespace {

Error refused(std::string_view command, std::string reason, std::size_t offset) {
  return fail(Errc::permission_denied, "command refused by the restricted policy: " + reason + " at offset " +
                                           std::to_string(offset) + " in '" + std::string(command) + "'")
      .with_detail("reason", reason)
      .with_detail("offset", std::to_string(offset));
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Outside quotes these start an operator, a redirection, an expansion or a subshell.
bool is_operator(char c) {
  switch (c) {
    case ';': case '&': case '|': case '<': case '>': case '(': case ')': case '$': case '`':
    case '\n': case '\r':
      return true;
    default:
      return false;
  }
}

// As the first character of a word these are reserved words, comments or expansions.
bool is_word_start_hazard(char c) {
  switch (c) {
    case '{': case '}': case '!': case '#': case '~': case '*': case '?': case '[':
      return true;
    default:
      return false;
  }
}

std::string describe(char c) {
  if (c == '\n') return "a newline";
  if (c == '\r') return "a carriage return";
  return std::string("'") + c + "'";
}

}  // namespace

RestrictedPolicy restricted_policy() {
  return RestrictedPolicy{{"ls", "cat", "head", "tail", "wc", "grep", "pwd", "echo", "stat", "file", "diff",
                           "uniq", "cut", "du", "df", "which", "date", "uname", "basename", "dirname", "realpath"},
                          {}};
}

Result<std::vector<std::string>> split_simple_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  std::size_t i = 0;
  while (i < command.size()) {
    char c = command[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      ++i;
      continue;
    }
    if (!in_word && is_word_start_hazard(c)) return refused(command, describe(c) + " at the start of a word", i);
    if (is_operator(c)) return refused(command, "shell operator " + describe(c), i);
    in_word = true;
    if (c == '\\') {
      if (i + 1 >= command.size()) return refused(command, "a trailing backslash", i);
      if (command[i + 1] == '\n') return refused(command, "a line continuation", i);
      word += command[i + 1];
      i += 2;
      continue;
    }
    if (c == '\'') {
      std::size_t close = command.find('\'', i + 1);
      if (close == std::string_view::npos) return refused(command, "an unclosed single quote", i);
      word.append(command.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    if (c == '"') {
      std::size_t k = i + 1;
      for (; k < command.size() && command[k] != '"'; ++k) {
        char d = command[k];
        if (d == '$' || d == '`' || d == '\\') return refused(command, describe(d) + " inside double quotes", k);
        word += d;
      }
      if (k >= command.size()) return refused(command, "an unclosed double quote", i);
      i = k + 1;
      continue;
    }
    if (c == '=' && words.empty() && !word.empty()) return refused(command, "a variable assignment before the command", i);
    word += c;
    ++i;
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return refused(command, "an empty command", 0);
  return words;
}

namespace {
Result<void> check_program(std::string_view command, const std::string& program, const RestrictedPolicy& policy) {
  if (program.find('/') != std::string::npos) {
    return refused(command, "program '" + program + "' given as a path; name it bare", 0);
  }
  if (std::find(policy.allowed_programs.begin(), policy.allowed_programs.end(), program) == policy.allowed_programs.end()) {
    return refused(command, "program '" + program + "' is not on the allowlist", 0);
  }
  return {};
}
}  // namespace

Result<void> check_command(std::string_view command, const RestrictedPolicy& policy) {
  auto words = split_simple_command(command);
  if (!words) return words.error();
  return check_program(command, words->front(), policy);
}

Result<void> check_tool_call(std::string_view tool_name, std::string_view command, const RestrictedPolicy& policy) {
  if (tool_name == "execute") return check_command(command, policy);
  if (tool_name == "run_command") return check_program(command, std::string(command), policy);
  if (tool_name == "powershell") {
    if (!policy.powershell_filter) {
      return fail(Errc::permission_denied,
                  "powershell refused: the restricted policy declares a POSIX sh grammar only; give it a "
                  "PowerShell filter to allow powershell calls")
          .with_detail("reason", "no powershell filter");
    }
    return policy.powershell_filter(command);
  }
  return {};
}

namespace {
// The command an interceptor checks for a shell tool call, in check_tool_call's terms; nullopt when
// the arguments do not have the shape the tool name implies.
std::optional<std::pair<std::string, std::string>> shell_call_of(const ToolCallRequest& call) {
  const json::Value& args = call.arguments;
  if (call.tool_name == "run_command") {
    const json::Value* argv = args.find("argv");
    if (argv == nullptr || !argv->is_array() || argv->size() == 0) return std::nullopt;
    auto program = (*argv)[0].get_string();
    if (!program) return std::nullopt;
    return std::make_pair(std::string("run_command"), std::string(*program));
  }
  const json::Value* command = args.find("command");
  auto text = command ? command->get_string() : std::nullopt;
  if (!text) return std::nullopt;
  // bash and shell are execute by another name (is_shell_tool_name matches them too).
  std::string as = call.tool_name == "powershell" ? "powershell" : "execute";
  return std::make_pair(std::move(as), std::string(*text));
}
}  // namespace

ToolCallDecision RestrictedPolicy::operator()(const ToolCallRequest& call) const {
  if (!is_shell_tool_name(call.tool_name)) return ToolCallDecision::allow();
  auto shell_call = shell_call_of(call);
  if (!shell_call) {
    return ToolCallDecision::deny("Blocked by the restricted command policy: the arguments of '" + call.tool_name +
                                  "' do not have the shape it checks (a `command` string, or an `argv` list of "
                                  "strings for run_command).");
  }
  auto checked = check_tool_call(shell_call->first, shell_call->second, *this);
  if (checked) return ToolCallDecision::allow();
  if (shell_call->first == "powershell") return ToolCallDecision::deny("Blocked: " + checked.error().message + ".");
  std::string allowed;
  for (const auto& p : allowed_programs) allowed += (allowed.empty() ? "" : ", ") + p;
  return ToolCallDecision::deny("Blocked: " + checked.error().message +
                                ". Only one simple command per call, no shell operators, starting with one of: " +
                                allowed + ". Use the file tools (read_file, search_files, ...) for the rest.");
}

}  // namespace agentkit::tools
