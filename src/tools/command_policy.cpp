#include "agentkit/tools/command_policy.hpp"

#include <algorithm>

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

}  // namespace agentkit::tools
