// make_agent and the Agent handle: validation (every problem, not only the first), deep copies,
// model resolution, MCP connection and the one registry.
#include <algorithm>
#include <optional>
#include <random>
#include <set>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/session/store.hpp"
#include "internal.hpp"
#include "plugins.hpp"
#include "run_context.hpp"

namespace agentkit {
namespace detail {
namespace {

bool has_surrounding_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  return !s.empty() && (space(s.front()) || space(s.back()));
}

Result<Model> resolve_model(const ModelConfig& cfg) {
  if (cfg.descriptor) return *cfg.descriptor;
  if (cfg.spec.empty()) {
    return fail(Errc::invalid_argument,
                "no model: set runtime.model.spec (\"vendor/model-id\") or runtime.model.descriptor");
  }
  // "faux/<id>" is the offline test wire: it needs no catalog row.
  constexpr std::string_view kFaux = "faux/";
  if (cfg.spec.size() > kFaux.size() && std::string_view(cfg.spec).substr(0, kFaux.size()) == kFaux) {
    Model m;
    m.id = cfg.spec.substr(kFaux.size());
    m.name = "faux " + m.id;
    m.vendor = "faux";
    m.api = "faux";
    return m;
  }
  // Everything else through the catalog (REQ-CAT-02/03): unknown ids under a known vendor clone a
  // sibling row; an unknown vendor is an error listing the known ones (faux included).
  const catalog::Catalog& known = catalog::Catalog::builtin();
  auto model = known.resolve(cfg.spec);
  if (model || model.error().code != Errc::not_found) return model;
  std::vector<std::string> vendors = known.vendor_ids();
  vendors.emplace_back("faux");
  std::sort(vendors.begin(), vendors.end());
  std::string list;
  for (const auto& v : vendors) list += (list.empty() ? "" : ", ") + v;
  std::string vendor(model.error().find_detail("vendor").value_or(cfg.spec));
  return fail(Errc::not_found, "unknown vendor '" + vendor + "' in model spec '" + cfg.spec + "'; known vendors: " + list)
      .with_detail("vendor", vendor);
}

// The model vendor's image budget with the embedder's overrides.
images::ImageBudget image_budget(const ImageConfig& cfg, const Model* model) {
  images::ImageBudget b = images::budget_for_vendor(model != nullptr ? model->vendor : "");
  if (cfg.max_base64_bytes) b.max_base64_bytes = *cfg.max_base64_bytes;
  if (cfg.max_side) b.max_side = *cfg.max_side;
  if (cfg.max_side_when_many) b.max_side_when_many = *cfg.max_side_when_many;
  if (cfg.many_images) b.many_images = *cfg.many_images;
  if (cfg.max_request_base64_bytes) b.max_request_base64_bytes = *cfg.max_request_base64_bytes;
  if (cfg.max_images_per_request) b.max_images_per_request = *cfg.max_images_per_request;
  return b;
}

void check_definition(const AgentDefinition& def, std::vector<std::string>& problems) {
  std::set<std::string, std::less<>> skill_names;
  for (std::size_t i = 0; i < def.skills.size(); ++i) {
    const Skill& s = def.skills[i];
    std::string where = "skill #" + std::to_string(i + 1);
    if (s.name.empty()) {
      problems.push_back(where + " has an empty name");
    } else if (has_surrounding_space(s.name)) {
      problems.push_back(where + " name '" + s.name + "' has surrounding whitespace");
    } else if (!skill_names.insert(s.name).second) {
      problems.push_back("skill name '" + s.name + "' is used twice");
    }
  }
  std::set<std::string, std::less<>> sources;
  for (std::size_t i = 0; i < def.tools.mcp.size(); ++i) {
    const McpToolSource& src = def.tools.mcp[i];
    std::string where = "MCP source #" + std::to_string(i + 1);
    if (src.name.empty()) {
      problems.push_back(where + " has an empty name");
    } else if (has_surrounding_space(src.name) || src.name.find("__") != std::string::npos) {
      problems.push_back(where + " name '" + src.name +
                         "' must have no surrounding whitespace and no \"__\"");
    } else if (!sources.insert(src.name).second) {
      problems.push_back("MCP source name '" + src.name + "' is used twice");
    }
    if (!src.connect) problems.push_back(where + " ('" + src.name + "') has no connect function");
  }
}

void check_runtime(const RuntimeConfig& rt, const ToolRegistry& reg, std::vector<std::string>& problems) {
  if (rt.loop.max_turns && *rt.loop.max_turns < 1) {
    problems.push_back("runtime.loop.max_turns must be at least 1 (got " +
                       std::to_string(*rt.loop.max_turns) + ")");
  }
  if (rt.model.max_tokens && *rt.model.max_tokens < 1) {
    problems.push_back("runtime.model.max_tokens must be at least 1");
  }
  for (std::size_t i = 0; i < rt.extensions.middleware.size(); ++i) {
    if (!rt.extensions.middleware[i]) {
      problems.push_back("runtime.extensions.middleware[" + std::to_string(i) + "] is empty");
    }
  }
  for (std::size_t i = 0; i < rt.observability.observers.size(); ++i) {
    if (!rt.observability.observers[i]) {
      problems.push_back("runtime.observability.observers[" + std::to_string(i) + "] is empty");
    }
  }
  const ImageConfig& im = rt.images;
  auto at_least = [&](const auto& value, std::size_t minimum, std::string_view name) {
    if (value && static_cast<std::size_t>(*value) < minimum) {
      problems.push_back("runtime.images." + std::string(name) + " must be at least " +
                         std::to_string(minimum) + " (got " + std::to_string(*value) + ")");
    }
  };
  // Below these an image cannot be re-encoded into anything useful.
  at_least(im.max_base64_bytes, 1024, "max_base64_bytes");
  at_least(im.max_request_base64_bytes, 1024, "max_request_base64_bytes");
  at_least(im.max_side, 16, "max_side");
  at_least(im.max_side_when_many, 16, "max_side_when_many");
  at_least(im.max_images_per_request, 1, "max_images_per_request");
  // ARCHITECTURE §7.5: a shell tool runs whatever the model writes; the embedder must guard it.
  if (!rt.extensions.before_tool_call && !rt.extensions.allow_all_tool_calls) {
    for (const auto& t : reg.tools) {
      if (is_shell_tool_name(t.definition.name)) {
        problems.push_back("unguarded_execute: tool '" + t.definition.name + "' (" + t.owner +
                           ") runs programs but runtime.extensions.before_tool_call is not set; "
                           "install an interceptor (e.g. tools::restricted_policy()) or set "
                           "runtime.extensions.allow_all_tool_calls");
      }
    }
  }
}

// The innermost model call: the provider's stream, its events forwarded as they arrive. It also
// guarantees the event contract whatever the provider did: one message_start and one message_end
// per attempt, and every block_start closed by a block_end (with the content the message kept).
class ProviderEventRelay {
 public:
  explicit ProviderEventRelay(const EventCallback& emit) : emit_(emit) {}

  // forward() and finish() are out of line: the events they build would otherwise widen the
  // provider call's frame, under which the whole model call runs, listened to or not.
  [[gnu::noinline]] void forward(Event ev) {
    if (std::holds_alternative<MessageStartEvent>(ev)) {
      if (started_) return;
      started_ = true;
    } else if (!started_) {
      emit(MessageStartEvent{});
      started_ = true;
    }
    if (const auto* b = std::get_if<BlockStartEvent>(&ev)) open_.push_back(b->block_index);
    if (const auto* b = std::get_if<BlockEndEvent>(&ev)) std::erase(open_, b->block_index);
    if (const auto* end = std::get_if<MessageEndEvent>(&ev)) {
      close_blocks(end->message);
      ended_ = true;
    }
    emit(std::move(ev));
  }

  [[gnu::noinline]] void finish(const AssistantMessage& final) {
    if (!started_) emit(MessageStartEvent{});
    close_blocks(final);
    if (!ended_) emit(MessageEndEvent{final});
  }

 private:
  void close_blocks(const AssistantMessage& m) {
    for (int index : open_) {
      auto i = static_cast<std::size_t>(index);
      ContentBlock block = i < m.content.size() ? m.content[i] : ContentBlock(TextBlock{});
      emit(BlockEndEvent{index, std::move(block)});
    }
    open_.clear();
  }
  void emit(Event e) {
    if (emit_) emit_(std::move(e));
  }

  const EventCallback& emit_;
  bool started_ = false;
  bool ended_ = false;
  std::vector<int> open_;
};

// `req`'s promise holds for the messages the loop made it for (PromisedMessages).
bool promise_holds(const Request& req) {
  const PromisedMessages& p = promised_messages();
  return req.history_serial == p.serial && req.messages.data() == p.data &&
         req.messages.size() == p.size;
}

ModelCall provider_call(std::shared_ptr<ProviderClient> provider) {
  return [provider](const Request& given, const StreamOptions& opts, const EventCallback& emit,
                    agentkit::stop_token stop) -> AssistantMessage {
    // A middleware changed the messages: no promise. On the heap, as it is rare: a Request
    // (264 bytes) in this frame sat above every model call.
    std::unique_ptr<Request> unpromised;
    if (given.history_serial != 0 && !promise_holds(given)) {
      unpromised = std::make_unique<Request>(given);
      unpromised->history_serial = 0;
    }
    const Request& req = unpromised ? *unpromised : given;
    // Deferred and drained: the call runs on this thread and each event reaches the relay as a
    // direct call — no thread per call, no queue, no wakeup per delta (a client that does not
    // defer is read the same way).
    StreamOptions deferred = opts;
    deferred.deferred = true;
    EventStream stream = provider->stream(req, deferred, stop);
    // Nothing reads the events: drained without a callback, the provider builds none.
    const bool quiet = !emit || emit.target<NoEventListener>() != nullptr;
    ProviderEventRelay relay(emit);
    std::function<void(Event &&)> forward;
    if (!quiet) forward = [&relay](Event&& ev) { relay.forward(std::move(ev)); };
    Result<AssistantMessage> final = drain(std::move(stream), forward);  // handed over, no copy
    AssistantMessage reply;
    if (final) {
      reply = std::move(*final);
    } else {
      reply.stop_reason = StopReason::error;
      reply.error_message = final.error().message;
    }
    if (!quiet) relay.finish(reply);
    return reply;
  };
}

ModelCall compose_middleware(ModelCall inner, const std::vector<Middleware>& middleware,
                             std::vector<std::string>& problems) {
  ModelCall call = std::move(inner);
  for (std::size_t i = 0; i < middleware.size(); ++i) {  // last registered ends up outermost
    try {
      call = middleware[i](std::move(call));
    } catch (const std::exception& e) {
      problems.push_back("middleware[" + std::to_string(i) + "] threw while being composed: " + e.what());
      return {};
    } catch (...) {
      problems.push_back("middleware[" + std::to_string(i) + "] threw while being composed");
      return {};
    }
    if (!call) {
      problems.push_back("middleware[" + std::to_string(i) + "] returned an empty model call");
      return {};
    }
  }
  return call;
}

Error definition_error(const std::vector<std::string>& problems) {
  std::string msg = "cannot build the agent: " + std::to_string(problems.size()) +
                    (problems.size() == 1 ? " problem" : " problems");
  for (const auto& p : problems) msg += "\n  - " + p;
  Error e = make_error(Errc::invalid_argument, std::move(msg));
  for (const auto& p : problems) e.with_detail("problem", p);
  return e;
}

// Connects every MCP source; on failure, records the problem (the tools it would have brought are
// simply absent, and the build fails as a whole).
std::vector<std::pair<std::string, std::vector<ToolDefinition>>> connect_mcp(
    const AgentDefinition& def, std::vector<std::string>& problems) {
  std::vector<std::pair<std::string, std::vector<ToolDefinition>>> out;
  for (const auto& src : def.tools.mcp) {
    if (!src.connect) continue;
    Result<std::vector<ToolDefinition>> tools = [&]() -> Result<std::vector<ToolDefinition>> {
      try {
        return src.connect(agentkit::stop_token{});
      } catch (const std::exception& e) {
        return fail(Errc::io_error, std::string("connect threw: ") + e.what());
      } catch (...) {
        return fail(Errc::io_error, "connect threw");
      }
    }();
    if (!tools) {
      problems.push_back("MCP source '" + src.name + "' failed to connect: " + tools.error().message);
      continue;
    }
    out.emplace_back(src.name, std::move(*tools));
  }
  return out;
}

// The agent's own plugins: problems join make_agent's, warnings go to on_warning, and the
// backends join this agent's copy of the provider registry (after the embedder's: a clash is
// won by the plugin, with a warning).
std::shared_ptr<const PluginSet> load_configured_plugins(RuntimeConfig& runtime,
                                                         std::vector<std::string>& problems) {
  PluginReport report;
  auto set = std::make_shared<PluginSet>(load_plugins(runtime.extensions.plugins, report));
  for (auto& p : report.problems) problems.push_back("plugins: " + p);
  for (const auto& [api, client] : set->backends) {
    if (runtime.providers.find(api)) {
      report.warnings.push_back("a backend plugin replaces the provider registered for api '" +
                                api + "'");
    }
    runtime.providers.add(api, client);
  }
  if (const auto& warn = runtime.extensions.plugins.on_warning) {
    for (const auto& w : report.warnings) {
      std::string failure;
      if (!call_guarded([&] { warn(w); }, failure)) {
        problems.push_back("plugins: the on_warning callback threw: " + failure);
      }
    }
  }
  return set;
}

Result<std::shared_ptr<session::Log>> open_plugin_log(const AgentCore& agent,
                                                      const std::string& name) {
  if (!agent.plugins->storage) {
    return fail(Errc::invalid_argument,
                "StartOptions::log_name is '" + name + "' but no storage plugin is loaded");
  }
  Result<std::unique_ptr<session::Store>> store = nullptr;
  std::string failure;
  if (!call_guarded([&] { store = agent.plugins->storage->open(name); }, failure)) {
    return fail(Errc::io_error, "the storage plugin threw opening log '" + name + "': " + failure);
  }
  if (!store) return store.error();
  if (!*store)
    return fail(Errc::io_error, "the storage plugin returned no store for log '" + name + "'");
  std::unique_ptr<session::Store> s = std::move(*store);
  Result<std::string> bytes = s->read();
  Result<session::Log> log = (!bytes && bytes.error().code == Errc::not_found)
                                 ? session::Log::create(std::move(s), {})
                                 : session::Log::open(std::move(s), {});
  if (!log) return log.error();
  return std::make_shared<session::Log>(std::move(*log));
}

}  // namespace

Timestamp AgentCore::now() const {
  return runtime.observability.clock ? runtime.observability.clock() : std::chrono::system_clock::now();
}

}  // namespace detail

Result<Agent> make_agent(AgentDefinition definition, RuntimeConfig runtime) {
  std::vector<std::string> problems;
  detail::check_definition(definition, problems);

  auto core = std::make_shared<detail::AgentCore>();
  auto plugins = detail::load_configured_plugins(runtime, problems);
  Result<Model> model = detail::resolve_model(runtime.model);
  if (!model) {
    problems.push_back(model.error().message);
  } else {
    core->model = std::make_shared<const Model>(*model);
    auto provider = runtime.providers.find(model->api);
    if (!provider) {
      problems.push_back(provider.error().message);
    } else {
      core->provider = *provider;
    }
  }

  auto mcp_tools = detail::connect_mcp(definition, problems);
  Result<detail::ToolRegistry> registry =
      detail::build_registry(definition, std::move(mcp_tools), plugins->tools, problems);
  detail::check_runtime(runtime, *registry, problems);

  if (core->provider) {
    core->model_call = detail::compose_middleware(detail::provider_call(core->provider),
                                                  runtime.extensions.middleware, problems);
  }
  if (!problems.empty()) return detail::definition_error(problems);

  core->image_normalizer =
      images::ImageNormalizer(detail::image_budget(runtime.images, core->model.get()));
  core->registry = std::move(*registry);
  core->plugins = std::move(plugins);
  core->definition = std::move(definition);
  core->runtime = std::move(runtime);
  return Agent(std::move(core));
}

// ---- Agent -----------------------------------------------------------------------------------

Agent::Agent(std::shared_ptr<detail::AgentCore> core) noexcept : core_(std::move(core)) {}
Agent::Agent(Agent&&) noexcept = default;
Agent& Agent::operator=(Agent&& other) noexcept {
  if (this != &other) {
    (void)close();
    core_ = std::move(other.core_);
  }
  return *this;
}
Agent::~Agent() { (void)close(); }

const AgentDefinition& Agent::definition() const { return core_->definition; }

// Messages of room beyond half again a resumed transcript's length (a run's worth for a short one).
constexpr std::size_t kResumeRoom = 64;

Result<Session> Agent::start(StartOptions options) {
  if (!core_) return fail(Errc::closed, "start() on a moved-from Agent");
  auto session = std::make_shared<detail::SessionCore>();
  session->agent = core_;
  if (const detail::SessionState* state = detail::SessionStateAccess::get(options.resume)) {
    session->id = state->session_id;
    {
      const detail::SessionState::Messages held = state->messages();
      // Copied with room to grow (the copy is made anyway): at its exact size, the first run's
      // first message would move the whole transcript to a new block.
      session->history.reserve(held.span.size() + held.span.size() / 2 + kResumeRoom);
      session->history.assign(held.span.begin(), held.span.end());
    }
    session->committed = session->history.size();
    session->usage = state->usage;
    session->approvals = state->approvals;
    session->compaction = state->compaction;
  } else {
    session->id = options.session_id.empty() ? detail::generate_session_id() : options.session_id;
  }
  if (!options.log && !options.log_name.empty()) {
    auto log = detail::open_plugin_log(*core_, options.log_name);
    if (!log) return log.error();
    options.log = std::move(*log);
    if (!options.subagent_logs) {  // the children's logs go where the session's went
      options.subagent_logs = [storage = core_->plugins->storage](std::string_view name) {
        return storage->open(name);
      };
    }
  }
  session->subagent_logs = std::move(options.subagent_logs);
  detail::attach_log(*session, *core_, options);
  {
    std::lock_guard lock(core_->mu);
    if (core_->closed) return fail(Errc::closed, "the agent is closed; build a new one with make_agent");
    std::erase_if(core_->sessions, [](const auto& w) { return w.expired(); });
    core_->sessions.push_back(session);
  }
  return Session(std::move(session));
}

Result<RunResult> Agent::run(Input input, agentkit::stop_token stop) {
  Result<Session> session = start();
  if (!session) return session.error();
  Result<RunResult> result = session->run(Turn(std::move(input)), std::move(stop));
  (void)session->close();
  return result;
}

Result<void> Agent::close() {
  if (!core_) return {};
  std::vector<std::shared_ptr<detail::SessionCore>> sessions;
  {
    std::lock_guard lock(core_->mu);
    core_->closed = true;
    for (auto& w : core_->sessions) {
      if (auto s = w.lock()) sessions.push_back(std::move(s));
    }
    core_->sessions.clear();
  }
  for (auto& s : sessions) s->close();
  return {};
}

}  // namespace agentkit
