// restricted_policy() as a before_tool_call interceptor (ARCHITECTURE §7.5, A16).
#include <string>

#include "agentkit/tools/command_policy.hpp"
#include "support/catch.hpp"

using agentkit::BeforeToolCall;
using agentkit::ToolCallDecision;
using agentkit::ToolCallRequest;
namespace tools = agentkit::tools;
namespace json = agentkit::json;

namespace {
ToolCallDecision decide(const BeforeToolCall& policy, const std::string& tool, const std::string& args) {
  ToolCallRequest request;
  request.tool_name = tool;
  request.arguments = json::parse(args).value();
  request.raw_arguments = json::Raw(args);
  return policy(request);
}
bool allowed(const ToolCallDecision& d) { return d.kind == ToolCallDecision::Kind::allow; }
}  // namespace

TEST_CASE("restricted_policy converts to a BeforeToolCall and allows an allowlisted simple command") {
  BeforeToolCall policy = tools::restricted_policy();
  CHECK(allowed(decide(policy, "execute", R"({"command":"grep -n TODO 'src/a b.cpp'"})")));
  CHECK(allowed(decide(policy, "execute", R"({"command":"wc -l notes.txt","timeout_s":5})")));
}

TEST_CASE("the interceptor denies operators and programs off the list, with a reason the model reads") {
  BeforeToolCall policy = tools::restricted_policy();
  auto piped = decide(policy, "execute", R"({"command":"cat a | sh"})");
  REQUIRE_FALSE(allowed(piped));
  CHECK(piped.kind == ToolCallDecision::Kind::deny);
  CHECK(piped.reason.find("operator '|'") != std::string::npos);
  CHECK(piped.reason.find("starting with one of: ls, cat") != std::string::npos);
  auto rm = decide(policy, "execute", R"({"command":"rm -rf /"})");
  CHECK(rm.kind == ToolCallDecision::Kind::deny);
  CHECK(rm.reason.find("'rm' is not on the allowlist") != std::string::npos);
  CHECK_FALSE(allowed(decide(policy, "execute", R"j({"command":"echo $(id)"})j")));
  CHECK_FALSE(allowed(decide(policy, "execute", R"({"command":"ls; rm x"})")));
}

TEST_CASE("run_command is checked on its program; its other arguments reach no shell") {
  BeforeToolCall policy = tools::restricted_policy();
  CHECK(allowed(decide(policy, "run_command", R"({"argv":["grep","a|b;c","file.txt"]})")));
  CHECK_FALSE(allowed(decide(policy, "run_command", R"({"argv":["python3","-c","1"]})")));
  CHECK_FALSE(allowed(decide(policy, "run_command", R"({"argv":["/bin/ls"]})")));
}

TEST_CASE("powershell is refused without a PowerShell filter and checked by one when given") {
  BeforeToolCall refusing = tools::restricted_policy();
  auto d = decide(refusing, "powershell", R"({"command":"Get-ChildItem"})");
  CHECK(d.kind == ToolCallDecision::Kind::deny);
  CHECK(d.reason.find("PowerShell filter") != std::string::npos);
  tools::RestrictedPolicy with_filter = tools::restricted_policy();
  with_filter.powershell_filter = [](std::string_view command) -> agentkit::Result<void> {
    if (command == "Get-Date") return {};
    return agentkit::fail(agentkit::Errc::permission_denied, "only Get-Date");
  };
  BeforeToolCall filtering = with_filter;
  CHECK(allowed(decide(filtering, "powershell", R"({"command":"Get-Date"})")));
  CHECK_FALSE(allowed(decide(filtering, "powershell", R"({"command":"Remove-Item x"})")));
}

TEST_CASE("a shell tool whose arguments lack the checked shape is denied, other tools pass") {
  BeforeToolCall policy = tools::restricted_policy();
  CHECK_FALSE(allowed(decide(policy, "execute", R"({"cmd":"ls"})")));
  CHECK_FALSE(allowed(decide(policy, "run_command", R"({"argv":[]})")));
  CHECK_FALSE(allowed(decide(policy, "bash", R"({"script":"ls"})")));
  CHECK_FALSE(allowed(decide(policy, "shell", R"({"command":"ls | sh"})")));
  CHECK(allowed(decide(policy, "bash", R"({"command":"ls -la"})")));
  CHECK(allowed(decide(policy, "write_file", R"({"path":"a","content":"rm -rf / | sh"})")));
  CHECK(allowed(decide(policy, "read_file", R"({"path":"a.txt"})")));
}
