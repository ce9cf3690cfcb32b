// Command hooks: an external program is told about the events it names (a tool call about to run,
// one that ran, a run's start and end, a model call, a compaction). It reads the event as JSON on
// stdin and answers with its exit status (0 allow, 2 block with stderr as the reason) or a JSON
// verdict on stdout. It runs through the shell tools' process engine (no shell, its own process
// group, killed on timeout or abort, the reduced environment). On the two tool events
// everything it might do wrong fails closed: a guard that cannot be understood must not let the
// call, or its result, through. The other events block nothing: a failure is reported.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <stdexcept>

#include "agentkit/base/hex.hpp"
#include "agentkit/base/utf8.hpp"
#include "agentkit/plugins.hpp"
#include "agentkit/tools/process.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit {
namespace {

namespace fs = std::filesystem;

// The exit status that blocks the call (the convention hook authors know from other hosts).
constexpr int kBlockExitStatus = 2;
// A verdict object is a few members; deeper is not one.
constexpr std::size_t kVerdictDepth = 8;

// A private file in the temporary folder, removed when this object goes.
class TempFile {
 public:
  static Result<TempFile> create(std::string_view contents) {
    std::random_device rd;
    std::string random(8, '\0');
    for (auto& b : random) b = static_cast<char>(rd() & 0xff);
    fs::path path = fs::temp_directory_path() / ("agentkit-hook-" + hex::encode(random));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return errno_error(Errc::io_error, "cannot create '" + path.string() + "'", errno);
    TempFile file(path);
    std::string_view rest = contents;
    while (!rest.empty()) {
      ssize_t n = ::write(fd, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd);
        return errno_error(Errc::io_error, "cannot write '" + path.string() + "'", err);
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    ::close(fd);
    return file;
  }
  TempFile(TempFile&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  const fs::path& path() const noexcept { return path_; }

  // At most `max` bytes of the file.
  std::string read_head(std::size_t max) const {
    std::ifstream in(path_, std::ios::binary);
    std::string out(max, '\0');
    in.read(out.data(), static_cast<std::streamsize>(max));
    out.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return out;
  }

 private:
  explicit TempFile(fs::path p) : path_(std::move(p)) {}
  fs::path path_;
};

std::string trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// Text from a program is shown to the model: cut to the bound on a character boundary, and
// never invalid UTF-8.
std::string readable(std::string_view bytes, std::size_t max) {
  std::string_view cut = utf8::truncate_bytes(bytes, max);
  if (auto bad = utf8::find_invalid(cut)) cut = cut.substr(0, *bad);
  return trim(cut);
}

// What the program answered: a decision, or what went wrong (the program could not be run, or
// its answer cannot be understood).
struct Answer {
  HookDecision decision;
  std::string failure;  // "did not answer within 100 ms"; empty when it answered
};

json::Value content_json(const std::vector<ContentBlock>& content) {
  json::Array blocks;
  blocks.reserve(content.size());
  for (const ContentBlock& b : content) blocks.push_back(to_json(b));
  return json::Value(std::move(blocks));
}

class CommandHook final : public EventHookPlugin {
 public:
  explicit CommandHook(CommandHookOptions options) : o_(std::move(options)) {}

  std::string name() const override { return o_.name; }

  HookDecision before_tool_call(const HookToolCall& call) override {
    if (!listens(HookEvent::pre_tool_use) || !names(call.tool_name))
      return HookDecision::no_opinion();
    json::Object event = envelope(HookEvent::pre_tool_use, call.session_id);
    event.set("tool_name", std::string(call.tool_name));
    event.set("tool_use_id", std::string(call.tool_use_id));
    event.set("tool_input", call.arguments);
    if (!call.mcp_server.empty()) event.set("mcp_server", std::string(call.mcp_server));
    event.set("turn_index", call.turn_index);
    Answer a = ask(std::move(event), call.stop);
    if (!a.failure.empty())
      return HookDecision::block("The hook '" + o_.name + "' " + a.failure +
                                 ", so the call was blocked.");
    return a.decision;
  }

  HookDecision review_tool_result(const HookToolResult& r) override {
    if (!listens(HookEvent::post_tool_use) || !names(r.tool_name))
      return HookDecision::no_opinion();
    json::Object event = envelope(HookEvent::post_tool_use, r.session_id);
    event.set("tool_name", std::string(r.tool_name));
    event.set("tool_use_id", std::string(r.tool_use_id));
    event.set("tool_input", r.arguments);
    event.set("tool_response",
              json::Value(json::Object{{"is_error", r.message.is_error},
                                       {"content", content_json(r.message.content)}}));
    event.set("duration_ms", static_cast<std::int64_t>(r.elapsed.count()));
    if (!r.mcp_server.empty()) event.set("mcp_server", std::string(r.mcp_server));
    Answer a = ask(std::move(event), r.stop);
    // The handler has run: what fails closed here is the model seeing its result.
    if (!a.failure.empty())
      return HookDecision::block("The hook '" + o_.name + "' " + a.failure +
                                 ", so the call's result was withheld.");
    return a.decision;
  }

  void on_session_start(const HookSessionStart& e) override {
    if (!listens(HookEvent::session_start)) return;
    json::Object event = envelope(HookEvent::session_start, e.session_id);
    event.set("model", std::string(e.model_id));
    tell(HookEvent::session_start, std::move(event));
  }

  void on_session_end(const HookSessionEnd& e) override {
    if (!listens(HookEvent::session_end)) return;
    json::Object event = envelope(HookEvent::session_end, e.session_id);
    event.set("reason", std::string(to_string(e.reason)));
    if (!e.error_message.empty()) event.set("error_message", std::string(e.error_message));
    event.set("usage", to_json(e.run_usage));
    tell(HookEvent::session_end, std::move(event));
  }

  void on_model_call(const HookModelCall& e) override {
    if (!listens(HookEvent::model_call)) return;
    json::Object event = envelope(HookEvent::model_call, e.session_id);
    event.set("turn_index", e.turn_index);
    event.set("model", e.reply.model);
    event.set("stop_reason", std::string(to_string(e.reply.stop_reason)));
    event.set("usage", to_json(e.reply.usage));
    if (!e.reply.error_message.empty()) event.set("error_message", e.reply.error_message);
    tell(HookEvent::model_call, std::move(event));
  }

  void on_compaction(const HookCompaction& e) override {
    if (!listens(HookEvent::compaction)) return;
    json::Object event = envelope(HookEvent::compaction, e.session_id);
    event.set("messages_before", static_cast<std::int64_t>(e.messages_before));
    event.set("messages_after", static_cast<std::int64_t>(e.messages_after));
    event.set("tokens_before", e.tokens_before);
    event.set("tokens_after", e.tokens_after);
    tell(HookEvent::compaction, std::move(event));
  }

 private:
  bool listens(HookEvent event) const {
    return std::find(o_.events.begin(), o_.events.end(), event) != o_.events.end();
  }
  bool names(std::string_view tool) const {
    return o_.tools.empty() || std::find(o_.tools.begin(), o_.tools.end(), tool) != o_.tools.end();
  }

  static json::Object envelope(HookEvent event, std::string_view session_id) {
    json::Object o;
    o.set("hook_event_name", std::string(to_string(event)));
    o.set("session_id", std::string(session_id));
    return o;
  }

  // An event nothing can be blocked on: a block or a failure is thrown, and the loop reports it
  // as an ErrorEvent naming this hook (the run goes on).
  void tell(HookEvent event, json::Object payload) {
    Answer a = ask(std::move(payload), {});
    if (!a.failure.empty()) throw std::runtime_error("the command " + a.failure);
    if (a.decision.verdict == HookVerdict::block) {
      throw std::runtime_error("the command asked to block, which " +
                               std::string(to_string(event)) + " cannot be: " + a.decision.reason);
    }
  }

  Answer ask(json::Object event, agentkit::stop_token stop) {
    if (o_.command.empty()) return failed("has no command to run");
    Result<TempFile> input = TempFile::create(json::dump(json::Value(std::move(event))));
    if (!input) return failed("could not be given the event: " + input.error().message);
    Result<TempFile> errors = TempFile::create("");
    if (!errors) return failed("could not be started: " + errors.error().message);

    tools::ProcessOptions p;
    p.cwd = o_.cwd;
    p.timeout = o_.timeout;
    p.output_cap = o_.max_output_bytes;
    p.keep_head = true;  // a verdict is at the start; a flood is refused, not tailed
    p.spill = false;
    p.environment = o_.environment;
    p.stdin_file = input->path();
    p.stderr_file = errors->path();
    Result<tools::ProcessResult> r = tools::run_command(o_.command, p, stop);
    if (!r) return failed("could not be started: " + r.error().message);
    return judge(*r, errors->read_head(o_.max_output_bytes));
  }

  static Answer failed(std::string why) { return Answer{{}, std::move(why)}; }

  Answer judge(const tools::ProcessResult& r, const std::string& stderr_text) const {
    if (r.outcome == tools::Outcome::timed_out) {
      return failed("did not answer within " + std::to_string(o_.timeout.count()) + " ms");
    }
    if (r.outcome == tools::Outcome::aborted) return failed("was cancelled with the run");
    if (r.exit_code == kBlockExitStatus) {
      std::string reason = readable(stderr_text, o_.max_output_bytes);
      if (reason.empty()) reason = "Blocked by the hook '" + o_.name + "'.";
      return Answer{HookDecision::block(std::move(reason)), {}};
    }
    if (r.exit_code != 0) {
      std::string detail = r.exit_code > 128
                               ? "was killed by signal " + std::to_string(r.exit_code - 128)
                               : "exited with status " + std::to_string(r.exit_code);
      std::string said = readable(stderr_text, 200);
      return failed(detail + (said.empty() ? "" : " (" + said + ")"));
    }
    if (r.truncated) {
      return failed("printed more than " + std::to_string(o_.max_output_bytes) + " bytes");
    }
    std::string out = trim(r.output);
    if (out.empty()) return Answer{HookDecision::allow(), {}};
    return verdict(out);
  }

  // A JSON verdict on stdout: {"decision":"block"|"allow", "reason":"..."}.
  Answer verdict(std::string_view out) const {
    wire::Limits limits;
    limits.max_message_bytes = o_.max_output_bytes;
    limits.max_depth = kVerdictDepth;
    Result<json::Value> doc = wire::decode(out, limits);
    if (!doc || !doc->is_object()) {
      return failed("printed something that is not a JSON verdict (" + readable(out, 80) + ")");
    }
    const json::Value* decision = doc->find("decision");
    const json::Value* reason = doc->find("reason");
    std::string because = reason != nullptr && reason->is_string()
                              ? readable(reason->as_string(), o_.max_output_bytes)
                              : std::string();
    if (decision == nullptr) return Answer{HookDecision::allow(), {}};
    if (decision->is_string() && decision->as_string() == "block") {
      return Answer{
          HookDecision::block(because.empty() ? "Blocked by the hook '" + o_.name + "'." : because),
          {}};
    }
    if (decision->is_string() && decision->as_string() == "allow")
      return Answer{HookDecision::allow(), {}};
    return failed("answered an unknown decision (use \"allow\" or \"block\")");
  }

  CommandHookOptions o_;
};

}  // namespace

std::shared_ptr<EventHookPlugin> command_hook(CommandHookOptions options) {
  return std::make_shared<CommandHook>(std::move(options));
}

}  // namespace agentkit
