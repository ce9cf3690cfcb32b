// agentdemo scenario 8: kill -9 in the middle of a parallel tool batch, then load, resume, finish.
//
// The conversation runs in a child process (this program again, started with --crash-child)
// that writes a session log. Its model asks for three pages at once; while the batch runs, the
// parent kills the child with SIGKILL. The parent then does what a restarted application does:
// it loads the log (listing any repairs), shows that loading did not rewrite the file, folds the
// log into the model and the transcript, builds a new agent from them and runs to the end. The
// three calls the child never answered are answered at send time (synthesised results in the
// request: providers::repair_for_send, which every built-in wire applies), not by rewriting the
// log.
#include "crash_scenario.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/providers/repair.hpp"
#include "agentkit/session/log.hpp"

namespace agentdemo {
namespace {

using namespace agentkit;
namespace faux = agentkit::providers;
using namespace std::chrono_literals;

std::mutex g_out_mu;
void out(const std::string& line) {
  std::lock_guard lock(g_out_mu);
  std::cout << line << std::flush;
}

int g_failed = 0;
void claim(bool holds, const std::string& what) {
  out(std::string(holds ? "  \u2714 " : "  \u2718 ") + what + "\n");
  if (!holds) ++g_failed;
}

// What the child tells the parent through the pipe: a handler started, page c finished.
constexpr char kStarted = 'S';
constexpr char kFinished = 'E';
constexpr int kCalls = 3;

ToolDefinition fetch_tool(ToolHandler handler) {
  ToolDefinition t;
  t.name = "fetch_page";
  t.description = "Fetch a page";
  t.handler = std::move(handler);
  return t;
}

Result<Agent> demo_agent(std::shared_ptr<faux::FauxProvider> model, ToolDefinition tool,
                         std::string spec) {
  RuntimeConfig rt;
  rt.model.spec = std::move(spec);
  rt.providers.add("faux", std::move(model));
  AgentDefinition def;
  def.instructions = "You are the agentdemo assistant.";
  def.tools.direct.push_back(std::move(tool));
  return make_agent(std::move(def), std::move(rt));
}

struct FileFacts {
  std::string bytes;
  std::uint64_t hash = 0;
};

// FNV-1a (64 bits): enough to show that bytes did not change, no library needed.
std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

FileFacts facts_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  FileFacts f{ss.str(), 0};
  f.hash = fnv1a(f.bytes);
  return f;
}

std::string show(const FileFacts& f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu bytes, FNV-1a %016" PRIx64, f.bytes.size(), f.hash);
  return buf;
}

// One log line, for a person: its type and the gist of its payload.
std::string describe(const std::string& line) {
  auto v = json::parse(line);
  if (!v || !v->is_object()) return "(not JSON)";
  std::string type(v->find("type") ? v->find("type")->get_string().value_or("?") : "?");
  if (type == "session") return "header (session id, version, cwd)";
  if (type == "model_change") {
    return "model_change " + v->find("provider")->as_string() + " / " +
           v->find("api")->as_string() + " / " + v->find("model")->as_string();
  }
  if (type != "message") return type;
  auto m = message_from_json(*v->find("message"));
  if (!m) return "message (unreadable)";
  if (const auto* u = std::get_if<UserMessage>(&*m)) return "user: " + text_of(u->content);
  if (const auto* a = std::get_if<AssistantMessage>(&*m)) {
    std::string calls;
    for (const auto& b : a->content) {
      if (const auto* use = std::get_if<ToolUseBlock>(&b)) {
        calls += (calls.empty() ? "" : ", ") + use->id;
      }
    }
    return "assistant: " + (calls.empty() ? text_of(*a) : "tool calls " + calls);
  }
  const auto& r = std::get<ToolResultMessage>(*m);
  return "tool result for " + r.tool_use_id;
}

void print_lines(const std::string& bytes, std::size_t from_line) {
  std::size_t n = 0;
  std::istringstream in(bytes);
  for (std::string line; std::getline(in, line);) {
    if (++n >= from_line) out("    line " + std::to_string(n) + ": " + describe(line) + "\n");
  }
}

// Waits (at most 10 s) until the child reports all three handlers started and page c done.
bool wait_mid_batch(int fd) {
  int started = 0;
  bool finished = false;
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (started < kCalls || !finished) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(fd, &c, 1) != 1) return false;  // the child died early
    started += c == kStarted ? 1 : 0;
    finished |= c == kFinished;
  }
  return true;
}

pid_t start_child(const char* self, const std::filesystem::path& log, int write_fd) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  std::string fd = std::to_string(write_fd);
  std::string path = log.string();
  const char* args[] = {self, "--crash-child", path.c_str(), fd.c_str(), nullptr};
  ::execvp(self, const_cast<char* const*>(args));
  ::_exit(127);
}

// The new process's half: load, show, fold, rebuild, resume.
void load_and_resume(const std::filesystem::path& path) {
  FileFacts before = facts_of(path);
  out("  the log the child left: " + show(before) + "\n");
  print_lines(before.bytes, 1);

  session::OpenOptions open_options;
  open_options.holder = "pid " + std::to_string(::getpid()) + " (agentdemo, resumed)";
  auto log = session::Log::open(session::file_store(path), open_options);
  if (!log) return claim(false, "the log opens: " + log.error().message);
  out("  loaded " + std::to_string(log->contents().entries.size()) + " entries; repairs: " +
      (log->contents().repairs.empty() ? "none (the kill fell between two writes)" : "") + "\n");
  for (const session::Repair& r : log->contents().repairs) {
    out("    line " + std::to_string(r.line) + ": " + std::string(to_string(r.kind)) + ", " +
        r.detail + "\n");
  }
  FileFacts after_load = facts_of(path);
  out("  after loading:           " + show(after_load) + "\n");
  claim(after_load.bytes == before.bytes, "loading did not rewrite the file (same size and hash)");

  session::Resumed state = session::fold(log->contents().entries, log->leaf());
  if (!state.model) return claim(false, "the fold recovered the model");
  out("  the fold: model " + state.model->provider + "/" + state.model->model + ", " +
      std::to_string(state.messages.size()) +
      " messages, the last an assistant turn whose 3 calls have no result\n");

  // Built from what the fold recovered, never patched afterwards.
  auto fetch = fetch_tool([](const json::Value& args, const ToolContext&) {
    return ToolResult::text_result("contents of " + args.find("page")->as_string());
  });
  auto model = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("r_a", "fetch_page", R"({"page":"a"})"),
                                faux::tool_call("r_b", "fetch_page", R"({"page":"b"})")}),
      faux::text_response("Read all three pages (a and b again, after the crash).")});
  auto agent = demo_agent(model, fetch, state.model->provider + "/" + state.model->model);
  if (!agent) return claim(false, "the agent builds: " + agent.error().message);
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  auto session = agent->start(std::move(start));
  if (!session) return claim(false, "the session starts: " + session.error().message);
  out("  user: The app crashed. Please go on.\n");
  auto result = session->run("The app crashed. Please go on.");
  (void)session->close();
  if (!result) return claim(false, "the resumed run: " + result.error().message);

  // What the model was sent first: the interrupted batch, answered at send time. The scripted
  // model takes the history as the loop hands it over; every built-in wire encodes from
  // providers::repair_for_send, shown here on that same request.
  std::vector<std::string> answered;
  bool all_synthesised = true;
  if (model->request_count() > 0) {
    Model target;
    target.id = state.model->model;
    target.vendor = state.model->provider;
    target.api = state.model->api;
    std::vector<Message> history = model->requests().front().messages;
    providers::TranscriptView view = providers::repair_for_send(history, target);
    out("  send-time repair of the first request: " +
        std::to_string(view.report().synthetic_results) + " synthesised results\n");
    for (const Message& m : view.messages()) {
      if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
        out("    in the request a wire encodes: result for " + r->tool_use_id +
            (r->is_error ? " (error): " : ": ") + text_of(r->content) + "\n");
        answered.push_back(r->tool_use_id);
        all_synthesised = all_synthesised && r->is_error;
      }
    }
  }
  claim(answered == std::vector<std::string>{"c_a", "c_b", "c_c"} && all_synthesised,
        "each orphaned call got exactly one synthesised result, in call order, at send time");
  claim(result->stop_reason == RunStopReason::stop,
        "the resumed run finished: " + std::string(to_string(result->stop_reason)));
  FileFacts end = facts_of(path);
  out("  after the resumed run:   " + show(end) + "; appended:\n");
  print_lines(
      end.bytes,
      static_cast<std::size_t>(std::count(before.bytes.begin(), before.bytes.end(), '\n')) + 1);
  claim(end.bytes.find(R"("tool_use_id":"c_)") == std::string::npos,
        "the synthesised results are in no log line: the repair is made for each request");
  claim(end.bytes.compare(0, before.bytes.size(), before.bytes) == 0 &&
            fnv1a(std::string_view(end.bytes).substr(0, before.bytes.size())) == before.hash,
        "the child's bytes are untouched; the new process only appended");
}

}  // namespace

int crash_child(const char* log_path, const char* fd_text) {
  int fd = std::atoi(fd_text);
  auto tell = [fd](char c) { (void)::write(fd, &c, 1); };
  session::CreateOptions options;
  options.holder = "pid " + std::to_string(::getpid()) + " (agentdemo child)";
  auto log = session::Log::create(session::file_store(log_path), options);
  if (!log) {
    out("  child: " + log.error().message + "\n");
    return 1;
  }
  auto fetch = fetch_tool([&tell](const json::Value& args, const ToolContext&) {
    std::string page(args.find("page")->as_string());
    out("  child: fetch_page " + page + " started\n");
    tell(kStarted);
    if (page == "c") {
      out("  child: fetch_page c finished (its result is in memory: the batch is not over)\n");
      tell(kFinished);
      return ToolResult::text_result("contents of c");
    }
    std::this_thread::sleep_for(30s);  // a slow page: the parent kills the child meanwhile
    return ToolResult::text_result("contents of " + page);
  });
  auto model = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c_a", "fetch_page", R"({"page":"a"})"),
                                faux::tool_call("c_b", "fetch_page", R"({"page":"b"})"),
                                faux::tool_call("c_c", "fetch_page", R"({"page":"c"})")}),
      faux::text_response("never sent: the child is killed first")});
  auto agent = demo_agent(model, fetch, "faux/demo");
  if (!agent) return 1;
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  auto session = agent->start(std::move(start));
  if (!session) return 1;
  out("  child (pid " + std::to_string(::getpid()) + "): user: Read pages a, b and c\n");
  (void)session->run("Read pages a, b and c");
  return 0;
}

int kill_and_resume(const char* self) {
  g_failed = 0;
  out("\n== 8. kill -9 in the middle of a parallel tool batch; a new process resumes from the log "
      "==\n");
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("agentdemo-crash-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / "chat.jsonl";
  int fds[2];
  if (::pipe(fds) != 0) {
    claim(false, "a pipe to the child");
    return g_failed;
  }
  pid_t child = start_child(self, path, fds[1]);
  ::close(fds[1]);
  bool mid_batch = child > 0 && wait_mid_batch(fds[0]);
  ::close(fds[0]);
  if (child > 0) {
    out("  parent: all three handlers are running and c is done; kill -9 " + std::to_string(child) +
        "\n");
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    claim(mid_batch && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          "the child was killed by SIGKILL in the middle of the batch");
  }
  if (g_failed == 0) load_and_resume(path);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return g_failed;
}

}  // namespace agentdemo
