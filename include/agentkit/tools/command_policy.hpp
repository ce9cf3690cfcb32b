// agentkit/tools/command_policy.hpp — the restricted command policy.
//
//   using namespace agentkit::tools;
//   RestrictedPolicy policy = restricted_policy();             // read-only program allowlist
//   check_command("grep -n TODO src/main.cpp", policy);       // ok
//   check_command("cat a | sh", policy);                      // permission_denied: operator '|'
//   check_tool_call("powershell", "Get-ChildItem", policy);   // permission_denied: no PS filter
//
//   agentkit::RuntimeConfig rt;
//   rt.extensions.before_tool_call = restricted_policy();      // the policy IS an interceptor
//
// The command string always reaches the shell untouched; this is a FILTER that an
// embedder installs as a before_tool_call interceptor, and it declares the grammar it accepts —
// a strict subset of POSIX sh (XCU §2):
//   command  := word (blank+ word)*            ; one simple command, nothing else
//   word     := ( plain | '...' | "..." | \c )+
//   plain    := any byte except blank and the metacharacters below
//   "..."    := any byte except " ` $ \  (so no expansion can happen inside)
//   blank    := space | tab
// Refused anywhere outside single quotes: ; & | < > ( ) $ ` newline, carriage return, and a
// leading `VAR=value` assignment (it would change what the program does), plus `{ }` `!` `#` `~`
// `*` `?` `[` as first characters of a word (reserved words, comments, tilde and glob
// expansion). The first word must name an allowed program, by bare name (no '/'). A policy only
// knows POSIX sh: it refuses `powershell` unless it was given a PowerShell filter.
//
// As a before_tool_call interceptor it looks at the shell tools only,
// by name (is_shell_tool_name: execute, run_command, powershell, bash, shell — custom tools
// included): `execute`, `bash` and `shell` must carry a `command` string that passes
// check_command; `run_command` an `argv` whose first element is an allowed program (no shell
// parses the rest); `powershell` goes to the PowerShell filter. A shell tool whose arguments do not
// have that shape is denied (fail closed). Every other tool is allowed: the file tools are held
// to the workspace by their own path check. A denial's reason is what the model reads.
//
// Thread safety: RestrictedPolicy is a value; checks are pure functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/tool.hpp"

namespace agentkit::tools {

struct RestrictedPolicy {
  // Programs a command may start, by bare name.
  std::vector<std::string> allowed_programs;
  // Checks a PowerShell command; empty: every powershell call is refused (no grammar declared).
  std::function<Result<void>(std::string_view command)> powershell_filter;

  // The interceptor form (see above): usable directly as RuntimeConfig's before_tool_call.
  ToolCallDecision operator()(const ToolCallRequest& call) const;
};

// The default allowlist: read-only utilities that cannot run other programs or write files:
// ls cat head tail wc grep pwd echo stat file diff uniq cut du df which date uname basename
// dirname realpath. (find -exec, sort -o, rg --pre, git hooks and aliases can all run or write
// things, so they are left out; an embedder adds them knowingly.)
RestrictedPolicy restricted_policy();

// Splits a command under the declared grammar into its words (quotes removed).
// Errors: permission_denied naming the refused construct and its offset.
Result<std::vector<std::string>> split_simple_command(std::string_view command);

// The grammar check plus the allowlist. Errors: permission_denied (detail "reason").
Result<void> check_command(std::string_view command, const RestrictedPolicy& policy = restricted_policy());

// The check an interceptor runs for a shell tool call: `execute` → check_command; `run_command`
// → its argv[0] against the allowlist (pass the program as `command`); `powershell` → the
// PowerShell filter or a refusal. Other tool names pass.
Result<void> check_tool_call(std::string_view tool_name, std::string_view command,
                             const RestrictedPolicy& policy = restricted_policy());

}  // namespace agentkit::tools
