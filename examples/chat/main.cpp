// chat — an interactive terminal chat with any catalog model, with the built-in coding tools.
//
//   chat --model anthropic/claude-sonnet-5-5                       # key from ANTHROPIC_API_KEY
//   chat --model ollama/llama3.3 --base-url http://127.0.0.1:11434 # a local server, no key
//   chat --model google/gemini-4-hydrogen --thinking medium --workspace ~/src/project
//   chat --workspace ~/src/project --trust-project --skills ~/team-skills  # skills, AGENTS.md
//   chat --otlp http://127.0.0.1:4318                               # GenAI traces to a collector
//
// Each line you type is one turn. The reply streams as it arrives; every tool call the model makes
// is shown when it starts and when its result comes back. Tools: read_file, write_file,
// edit_file, list_files, find_files, search_files, execute, run_command (the shell tools behind
// tools::restricted_policy(): one simple read-only command at a time). Ctrl-C cancels the turn in
// flight; /quit or end of input leaves. Keys come from the environment variables the catalog
// names for the vendor. https:// needs the TLS adapter (a build with -DAGENTKIT_WITH_OPENSSL=ON).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <unistd.h>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/skills/context_files.hpp"
#include "agentkit/skills/discovery.hpp"
#include "agentkit/telemetry/otlp.hpp"
#include "agentkit/tools/coding_tools.hpp"
#include "agentkit/tools/command_policy.hpp"
#if AGENTKIT_CHAT_HAVE_TLS
#include "agentkit/openssl/tls.hpp"
#endif

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

constexpr int kUsageError = 2;
constexpr int kSetupError = 1;
// How much of a tool result is echoed to the terminal (the model gets all of it).
constexpr std::size_t kResultPreviewLines = 6;
constexpr std::size_t kResultPreviewChars = 400;
// How often the Ctrl-C watcher looks at the signal flag.
constexpr auto kSignalPoll = 50ms;

struct Options {
  std::string model = "anthropic/claude-sonnet-5-5";
  std::optional<std::string> base_url;
  std::string workspace = ".";
  std::optional<ThinkingLevel> thinking;
  std::optional<std::int64_t> max_tokens;
  std::string system = "You are a concise coding assistant working in the user's workspace. Use the tools to look "
                       "before you answer questions about files.";
  bool tools = true;
  bool show_thinking = false;
  std::vector<std::string> skill_dirs;  // --skills, repeatable
  bool trust_project = false;           // read the workspace's own skills and AGENTS.md
  std::optional<std::string> otlp;      // --otlp URL: OTLP/HTTP collector base URL
};

void usage(std::ostream& out) {
  out << "usage: chat [--model VENDOR/MODEL] [--base-url URL] [--workspace DIR] [--thinking "
         "LEVEL]\n"
         "            [--max-tokens N] [--system TEXT] [--no-tools] [--show-thinking]\n"
         "            [--skills DIR]... [--trust-project] [--otlp URL]\n"
         "  Skills load from each --skills DIR and from ~/.agents/skills, ~/.claude/skills; the\n"
         "  workspace's own skills and AGENTS.md / CLAUDE.md load only with --trust-project.\n"
         "  Keys are read from the vendor's environment variables (ANTHROPIC_API_KEY, "
         "OPENAI_API_KEY,\n"
         "  GEMINI_API_KEY, ...). Type a message per line; /quit or end of input leaves; Ctrl-C\n"
         "  cancels the turn in flight.\n";
}

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (arg == "--help" || arg == "-h") {
      usage(std::cout);
      std::exit(0);
    } else if (arg == "--no-tools") {
      o.tools = false;
    } else if (arg == "--trust-project") {
      o.trust_project = true;
    } else if (arg == "--skills" && (v = value())) {
      o.skill_dirs.push_back(*v);
    } else if (arg == "--show-thinking") {
      o.show_thinking = true;
    } else if ((arg == "--model" || arg == "--base-url" || arg == "--workspace" ||
                arg == "--thinking" || arg == "--max-tokens" || arg == "--system" ||
                arg == "--otlp") &&
               (v = value())) {
      if (arg == "--model") o.model = *v;
      if (arg == "--base-url") o.base_url = *v;
      if (arg == "--workspace") o.workspace = *v;
      if (arg == "--system") o.system = *v;
      if (arg == "--otlp") o.otlp = *v;
      if (arg == "--thinking") {
        o.thinking = parse_thinking_level(*v);
        if (!o.thinking) {
          std::cerr << "chat: unknown thinking level '" << *v << "' (off, minimal, low, medium, high, xhigh, max)\n";
          return std::nullopt;
        }
      }
      if (arg == "--max-tokens") {
        try {
          o.max_tokens = std::stoll(*v);
        } catch (...) {
          std::cerr << "chat: --max-tokens needs a number, not '" << *v << "'\n";
          return std::nullopt;
        }
      }
    } else {
      std::cerr << "chat: unexpected argument '" << arg << "'\n";
      usage(std::cerr);
      return std::nullopt;
    }
  }
  return o;
}

// ---- Ctrl-C: cancel the turn, not the program ----------------------------------------------------

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

// ---- Printing events as they happen ---------------------------------------------------------------

std::string preview(const std::string& text) {
  std::string out;
  std::size_t lines = 0;
  for (char c : text) {
    if (out.size() >= kResultPreviewChars || lines >= kResultPreviewLines) {
      out += " …";
      break;
    }
    if (c == '\n') {
      ++lines;
      out += "\n      ";
      continue;
    }
    out += c;
  }
  return out;
}

// Reads a session's events on its own thread and prints them; run_finished() tells the prompt
// loop when a run's last line is out.
class Printer {
 public:
  Printer(Session& session, bool show_thinking)
      : events_(session.events()), show_thinking_(show_thinking), thread_([this] { loop(); }) {}
  ~Printer() { thread_.join(); }  // the stream ends when the session closes

  void wait_for_run_end() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return runs_ended_ > runs_waited_; });
    ++runs_waited_;
  }

 private:
  void loop() {
    while (auto ev = events_.next()) std::visit([this](const auto& e) { print(e); }, *ev);
  }
  void out(const std::string& s) { std::cout << s << std::flush; }
  void end_line() {
    if (mid_line_) out("\n");
    mid_line_ = false;
  }

  void print(const TextDeltaEvent& e) {
    out(e.delta);
    mid_line_ = !e.delta.empty() && e.delta.back() != '\n';
  }
  void print(const ThinkingDeltaEvent& e) {
    if (!show_thinking_) return;
    out("\x1b[2m" + e.delta + "\x1b[0m");
    mid_line_ = true;
  }
  void print(const BlockEndEvent&) { end_line(); }
  void print(const ToolExecutionStartEvent& e) {
    end_line();
    out("  → " + e.tool_name + " " + json::dump(e.arguments) + "\n");
  }
  void print(const ToolExecutionEndEvent& e) {
    std::string text = text_of(e.result.content);
    out(std::string("  ← ") + (e.result.is_error ? "error: " : "") + preview(text) + "  (" + std::to_string(e.elapsed.count()) +
        " ms)\n");
  }
  void print(const ErrorEvent& e) {
    if (e.terminal) return;  // the run's own result reports it
    end_line();
    out("  [warning] " + e.error.message + "\n");
  }
  void print(const AgentEndEvent& e) {
    end_line();
    const Usage& u = e.run_usage;
    char cost[32];
    std::snprintf(cost, sizeof cost, "$%.4f", u.cost.total);
    out("  [" + std::string(to_string(e.reason)) + " · " + std::to_string(u.input_tokens + u.cache_read_tokens) + " in / " +
        std::to_string(u.output_tokens) + " out · " + cost + "]\n");
    {
      std::lock_guard lock(mu_);
      ++runs_ended_;
    }
    cv_.notify_all();
  }
  template <class Other>
  void print(const Other&) {}

  EventStream events_;
  bool show_thinking_;
  bool mid_line_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  int runs_ended_ = 0;
  int runs_waited_ = 0;
  std::thread thread_;  // last: starts once the rest is ready
};

// ---- Setup ---------------------------------------------------------------------------------------

Result<Model> resolve_model(const Options& o) {
  auto model = catalog::Catalog::builtin().resolve(o.model);
  if (!model) return model.error();
  if (o.base_url) model->base_url = *o.base_url;
  return model;
}

// The transport for the model's base URL: plain http always works, https needs the TLS adapter.
Result<std::shared_ptr<http::HttpTransport>> transport_for(const Model& model) {
  http::HttpOptions options;
  if (model.base_url.rfind("https://", 0) == 0) {
#if AGENTKIT_CHAT_HAVE_TLS
    auto tls = openssl::make_tls_provider();
    if (!tls) return tls.error();
    options.tls = *tls;
#else
    return make_error(Errc::unsupported, model.base_url + " is https://, and this chat was built without the TLS adapter: "
                                         "rebuild with -DAGENTKIT_WITH_OPENSSL=ON (libssl-dev), or point --base-url at an "
                                         "http:// endpoint (a local server or gateway)");
#endif
  }
  return std::shared_ptr<http::HttpTransport>(std::make_shared<http::HttpClient>(options));
}

// Keys from the process environment; with --base-url, the vendor's base-URL variables
// (OLLAMA_HOST, ANTHROPIC_BASE_URL, ...) are hidden so the flag wins.
providers::EnvironmentLookup environment_for(const Options& o, const Model& model) {
  providers::EnvironmentLookup process = providers::process_environment();
  if (!o.base_url) return process;
  std::vector<std::string> hidden;
  if (const catalog::Vendor* v = catalog::Catalog::builtin().vendor(model.vendor)) hidden = v->auth.base_url_variables;
  return [process, hidden](std::string_view name) -> std::optional<std::string> {
    for (const auto& h : hidden) {
      if (h == name) return std::nullopt;
    }
    return process(name);
  };
}

// Skills and context files for the workspace, each shown with where it came from.
void add_project_knowledge(const Options& o, AgentDefinition& def) {
  skills::DiscoveryOptions discovery;
  discovery.project_root = o.workspace;
  discovery.trust_project = o.trust_project;
  for (const auto& dir : o.skill_dirs) discovery.folders.emplace_back(dir);
  skills::SkillCatalog catalog = skills::discover_skills(discovery);
  skills::ContextFileOptions context;
  context.working_dir = o.workspace;
  context.trust_project = o.trust_project;
  skills::ContextFiles files = skills::load_context_files(context);
  for (const auto& s : catalog.skills) {
    std::cout << "skill: " << s.loaded.skill.name << " (" << skills::skill_tier_name(s.tier) << ", "
              << s.loaded.skill_file.string() << ")\n";
  }
  for (const auto& f : files.files) {
    std::cout << "context: " << f.path.string() << " (" << f.body.size() << " bytes"
              << (f.truncated ? ", truncated" : "") << ")\n";
  }
  for (const auto* notes : {&catalog.diagnostics, &files.diagnostics}) {
    for (const auto& d : *notes) std::cerr << "chat: " << d.to_string() << "\n";
  }
  def.skills = catalog.definitions();
  def.context_files = std::move(files.files);
}

// --otlp: GenAI spans and metrics to an OTLP/HTTP collector (OTEL_EXPORTER_OTLP_* read first).
Result<std::shared_ptr<telemetry::OtlpHttpExporter>> otlp_exporter(const Options& o) {
  telemetry::OtlpOptions options = telemetry::OtlpOptions::from_environment();
  options.endpoint = *o.otlp;
  if (o.otlp->rfind("https://", 0) == 0) {
#if AGENTKIT_CHAT_HAVE_TLS
    auto tls = openssl::make_tls_provider();
    if (!tls) return tls.error();
    options.tls = *tls;
#else
    return make_error(Errc::unsupported,
                      "--otlp " + *o.otlp +
                          " is https://, and this chat was built without the TLS "
                          "adapter (-DAGENTKIT_WITH_OPENSSL=ON)");
#endif
  }
  return std::make_shared<telemetry::OtlpHttpExporter>(std::move(options));
}

// When the first streamed chunk of the current turn arrived (for the status line).
struct FirstChunk {
  std::mutex mu;
  std::chrono::steady_clock::time_point turn_start;
  std::optional<std::chrono::steady_clock::time_point> first;
};

Result<Agent> build_agent(const Options& o, const Model& model,
                          const std::shared_ptr<telemetry::OtlpHttpExporter>& otlp,
                          const std::shared_ptr<FirstChunk>& first_chunk) {
  auto transport = transport_for(model);
  if (!transport) return transport.error();
  AgentDefinition def;
  def.instructions = o.system;
  add_project_knowledge(o, def);
  RuntimeConfig rt;
  if (o.tools) {
    auto ws = tools::Workspace::open(o.workspace);
    if (!ws) return ws.error();
    def.tools.direct = tools::coding_tools(*ws);
    // The shell tools run only what the restricted policy allows (one simple read-only command).
    rt.extensions.before_tool_call = tools::restricted_policy();
  }
  rt.model.descriptor = model;
  rt.model.thinking = o.thinking;
  rt.model.max_tokens = o.max_tokens;
  providers::ProviderOptions wires;
  wires.http = *transport;
  wires.credentials.environment = environment_for(o, model);
  providers::register_defaults(rt.providers, wires);
  if (otlp) {
    rt.observability.tracing.tracer =
        telemetry::make_tracer({.service_name = "agentkit-chat"}, otlp);
    rt.observability.tracing.agent_name = "chat";
  }
  rt.observability.observers.push_back([first_chunk](const Event& e) {
    if (!std::holds_alternative<TextDeltaEvent>(e) &&
        !std::holds_alternative<ThinkingDeltaEvent>(e) &&
        !std::holds_alternative<ToolArgumentsDeltaEvent>(e)) {
      return;
    }
    std::lock_guard lock(first_chunk->mu);
    if (!first_chunk->first) first_chunk->first = std::chrono::steady_clock::now();
  });
  return make_agent(std::move(def), std::move(rt));
}

bool interactive() { return isatty(STDIN_FILENO) != 0; }

// One line per turn, on stderr: tokens, cost and time to first token.
void print_status_line(const RunResult& r, FirstChunk& first_chunk) {
  const Usage& u = r.run_usage;
  char line[256];
  std::snprintf(line, sizeof line, "[tokens in %lld (cached %lld) out %lld | $%.4f",
                static_cast<long long>(u.input_tokens), static_cast<long long>(u.cache_read_tokens),
                static_cast<long long>(u.output_tokens), u.cost.total);
  std::string text = line;
  std::lock_guard lock(first_chunk.mu);
  if (first_chunk.first) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*first_chunk.first -
                                                                    first_chunk.turn_start)
                  .count();
    text += " | first token " + std::to_string(ms) + " ms";
  }
  std::cerr << text << "]\n";
}

}  // namespace

int main(int argc, char** argv) {
  auto options = parse_args(argc, argv);
  if (!options) return kUsageError;
  auto model = resolve_model(*options);
  if (!model) {
    std::cerr << "chat: " << model.error().message << "\n";
    return kUsageError;
  }
  std::shared_ptr<telemetry::OtlpHttpExporter> otlp;
  if (options->otlp) {
    auto made = otlp_exporter(*options);
    if (!made) {
      std::cerr << "chat: " << made.error().message << "\n";
      return kUsageError;
    }
    otlp = *made;
  }
  auto first_chunk = std::make_shared<FirstChunk>();
  auto agent = build_agent(*options, *model, otlp, first_chunk);
  if (!agent) {
    std::cerr << "chat: " << agent.error().message << "\n";
    return kSetupError;
  }
  auto session = agent->start();
  if (!session) {
    std::cerr << "chat: " << session.error().message << "\n";
    return kSetupError;
  }
  std::signal(SIGINT, on_sigint);
  std::cout << "chat with " << model->vendor << "/" << model->id << " (" << model->api << ", " << model->base_url << ")"
            << (options->tools ? ", tools on" : "") << ". /quit to leave.\n";
  int exit_code = 0;
  {
    Printer printer(*session, options->show_thinking);
    std::string line;
    for (;;) {
      if (interactive()) std::cout << "\n> " << std::flush;
      if (!std::getline(std::cin, line) || line == "/quit" || line == "/exit") break;
      if (line.empty()) continue;
      agentkit::stop_source cancel;
      g_interrupted = false;
      agentkit::jthread watcher([&cancel](agentkit::stop_token done) {
        while (!done.stop_requested()) {
          if (g_interrupted.exchange(false)) cancel.request_stop();
          std::this_thread::sleep_for(kSignalPoll);
        }
      });
      {
        std::lock_guard lock(first_chunk->mu);
        first_chunk->turn_start = std::chrono::steady_clock::now();
        first_chunk->first.reset();
      }
      auto result = session->run(Turn{line}, cancel.get_token());
      if (!result) {
        std::cerr << "chat: " << result.error().message << "\n";
        exit_code = kSetupError;
        continue;
      }
      printer.wait_for_run_end();  // the run's last event is printed before the next prompt
      print_status_line(*result, *first_chunk);
      if (result->stop_reason == RunStopReason::error) {
        std::cerr << "chat: the model call failed: " << result->error_message << "\n";
        exit_code = kSetupError;
      }
    }
    (void)session->close();  // ends the event stream: the printer's thread finishes
  }
  if (otlp) {
    otlp->shutdown();  // exports what is queued
    telemetry::ExportStats s = otlp->stats();
    if (s.spans_dropped + s.spans_failed + s.spans_rejected > 0) {
      std::cerr << "chat: telemetry: " << s.spans_exported << " spans exported, " << s.spans_dropped
                << " dropped, " << s.spans_failed << " failed, " << s.spans_rejected << " rejected"
                << (s.last_error.empty() ? "" : " (" + s.last_error + ")") << "\n";
    }
  }
  return exit_code;
}
