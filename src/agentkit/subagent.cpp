// Subagents: an agent as a tool (agentkit/subagent.hpp; ARCHITECTURE §7.4). Each call builds a
// fresh child from a recipe under the parent's runtime, reserves its budget from the parent's
// ledger, runs one turn and answers the child's final text.
#include "agentkit/subagent.hpp"

#include <map>
#include <utility>

#include "agentkit/base/sha256.hpp"
#include "agentkit/session/log.hpp"
#include "agentkit/session/store.hpp"
#include "internal.hpp"
#include "run_context.hpp"

namespace agentkit {
namespace {

using detail::BudgetLedger;
using detail::Delegation;
using detail::RunScope;

constexpr std::string_view kMetadataKey = "subagent";
// The member of a child log's header that links it to the parent's session and call.
constexpr std::string_view kLinkKey = "subagent_of";
// How many logs one call id may have in one parent session (a provider that repeats call ids).
constexpr int kMaxLogsPerCall = 8;
// Hex digits of a derived child session id (the width of a generated one).
constexpr std::size_t kSessionIdHexDigits = 32;

// How a call gets its child's definition and model.
struct Recipe {
  std::string name;
  std::string description;
  SubagentFactory definition;
  ToolPolicy tool_policy;
  std::optional<ModelConfig> model;
  // Providers that serve `model` when the parent's registry may not (an existing Agent's).
  std::optional<ProviderRegistry> providers;
  SubagentOptions options;
};

// The parent's callbacks as the child calls them: one at a time across the whole tree.
void serialize_callbacks(ExtensionConfig& ext, const std::shared_ptr<detail::TreeLocks>& locks) {
  if (ext.before_tool_call) {
    ext.before_tool_call = [inner = std::move(ext.before_tool_call),
                            locks](const ToolCallRequest& r) {
      std::lock_guard lock(locks->callbacks);
      return inner(r);
    };
  }
  if (ext.after_tool_call) {
    ext.after_tool_call = [inner = std::move(ext.after_tool_call), locks](ToolCallOutcome& o) {
      std::lock_guard lock(locks->callbacks);
      return inner(o);
    };
  }
}

// The child's runtime: the parent's (providers, middleware, interceptors, hooks, tracer), with
// the child's model, budget and its own session id. Observers are not copied: the child's events
// reach them through the parent, tagged (Delegation::forward).
RuntimeConfig child_runtime(const RuntimeConfig& parent, const Recipe& recipe,
                            const RunBudget& slice,
                            const std::shared_ptr<detail::TreeLocks>& locks) {
  RuntimeConfig rt = parent;
  if (recipe.model) rt.model = *recipe.model;
  if (recipe.providers) {
    for (const std::string& api : recipe.providers->apis()) {
      if (auto client = recipe.providers->find(api)) rt.providers.add(api, *client);
    }
  }
  rt.loop.budget = slice;  // the explicit child config field (REQ-MULTI-03)
  if (recipe.options.budget.turns) rt.loop.max_turns = recipe.options.budget.turns;
  rt.transport.session_id.clear();
  rt.observability.observers.clear();
  rt.observability.tracing.agent_name = recipe.name;
  serialize_callbacks(rt.extensions, locks);
  return rt;
}

json::Value transcript_json(std::span<const Message> messages) {
  json::Array out;
  out.reserve(messages.size());
  for (const Message& m : messages) out.push_back(to_json(m));
  return json::Value(std::move(out));
}

json::Value budget_json(const RunBudget& b) {
  json::Object o;
  if (b.tokens) o.append_unique("tokens", *b.tokens);
  if (b.usd) o.append_unique("usd", *b.usd);
  if (b.wall_time) o.append_unique("wall_time_ms", static_cast<std::int64_t>(b.wall_time->count()));
  return json::Value(std::move(o));
}

RunBudget budget_from_json(const json::Value& v) {
  RunBudget b;
  if (const json::Value* t = v.find("tokens"); t != nullptr && t->is_number()) {
    if (auto n = t->to_int64()) b.tokens = *n;
  }
  if (const json::Value* u = v.find("usd"); u != nullptr && u->is_number()) {
    if (auto d = u->to_double()) b.usd = *d;
  }
  if (const json::Value* w = v.find("wall_time_ms"); w != nullptr && w->is_number()) {
    if (auto n = w->to_int64()) b.wall_time = std::chrono::milliseconds(*n);
  }
  return b;
}

json::Value record_json(const Recipe& recipe, const std::string& path,
                        const std::string& session_id, const std::string& log, const RunResult& r,
                        bool exhausted, const RunBudget& slice) {
  json::Object o{{"agent", recipe.name},     {"path", path},
                 {"session_id", session_id}, {"stop_reason", to_string(r.stop_reason)},
                 {"exhausted", exhausted},   {"turns", r.turn_count}};
  if (!log.empty()) o.append_unique("log", log);
  o.append_unique("usage", to_json(r.run_usage));
  o.append_unique("budget", budget_json(slice));
  o.append_unique("transcript", transcript_json(r.messages));
  return json::Value(std::move(o));
}

ToolResult refuse(const Recipe& recipe, std::string code, const std::string& why) {
  return ToolResult::failure(std::move(code),
                             "Subagent '" + recipe.name + "' was not started: " + why);
}

// ---- The child's own log -----------------------------------------------------------------------

// A child's session id derived from its parent's and the call's, so that a later process finds
// the child's log from the parent's transcript alone: the parent's log may end at the call (a
// crash mid-delegation) while the child's log holds everything the child did. `attempt` counts
// logs of one call id in one parent session (1 for the first).
std::string child_session_id(std::string_view parent_id, std::string_view tool_use_id,
                             int attempt) {
  std::string seed = std::string(parent_id) + '\n' + std::string(tool_use_id);
  if (attempt > 1) seed += '\n' + std::to_string(attempt);
  return "ses_" + sha256_hex(seed).substr(0, kSessionIdHexDigits);
}

// The link a child's log header carries to the parent's session and call.
struct LogLink {
  std::string parent_session_id;
  std::string tool_use_id;
  std::string agent;
  std::string path;
};

json::Value link_json(const LogLink& link) {
  return json::Value(json::Object{{"session_id", link.parent_session_id},
                                  {"tool_use_id", link.tool_use_id},
                                  {"agent", link.agent},
                                  {"path", link.path}});
}

// The link in a log header line; nullopt when it has none.
std::optional<LogLink> link_of(const session::Header& header) {
  Result<json::Value> doc = json::parse(header.verbatim);
  if (!doc || !doc->is_object()) return std::nullopt;
  const json::Value* link = doc->find(kLinkKey);
  if (link == nullptr || !link->is_object()) return std::nullopt;
  auto str = [&](std::string_view key) {
    const json::Value* v = link->find(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  return LogLink{str("session_id"), str("tool_use_id"), str("agent"), str("path")};
}

// The store `logs` answers for `name`; an exception or a null store is an error.
Result<std::unique_ptr<session::Store>> open_store(const SubagentLogs& logs,
                                                   const std::string& name) {
  Result<std::unique_ptr<session::Store>> store = nullptr;
  std::string failure;
  if (!detail::call_guarded([&] { store = logs(name); }, failure))
    return fail(Errc::io_error, "opening the log '" + name + "' threw: " + failure);
  if (store && !*store)
    return fail(Errc::io_error, "no store was given for the log '" + name + "'");
  return store;
}

// Creates the log `name` with the header the session module writes plus the link to the parent.
// Errc::already_exists when the log is there.
Result<std::shared_ptr<session::Log>> create_linked_log(const SubagentLogs& logs,
                                                        const std::string& name,
                                                        const LogLink& link) {
  // The session module writes the header; a draft on a memory store lends us its line.
  session::MemoryStore draft;
  session::CreateOptions options;
  options.id = name;
  if (auto made = session::Log::create(std::make_unique<session::MemoryStore>(draft), options);
      !made) {
    return made.error();
  }
  std::string bytes = draft.bytes();
  Result<json::Value> header = json::parse(std::string_view(bytes).substr(0, bytes.find('\n')));
  if (!header || !header->is_object())
    return fail(Errc::internal, "the session module wrote a header that does not parse");
  header->as_object().append_unique(std::string(kLinkKey), link_json(link));
  Result<std::unique_ptr<session::Store>> store = open_store(logs, name);
  if (!store) return store.error();
  if (auto created = (*store)->create(json::dump(*header) + "\n"); !created) return created.error();
  Result<session::Log> log = session::Log::open(std::move(*store), {});
  if (!log) return log.error();
  return std::make_shared<session::Log>(std::move(*log));
}

// The child's own log for the call: the first derived id whose log does not exist yet.
struct ChildLog {
  std::string session_id;  // also the log's name
  std::shared_ptr<session::Log> log;
};
Result<ChildLog> create_child_log(const SubagentLogs& logs, const LogLink& link) {
  for (int attempt = 1; attempt <= kMaxLogsPerCall; ++attempt) {
    std::string id = child_session_id(link.parent_session_id, link.tool_use_id, attempt);
    Result<std::shared_ptr<session::Log>> log = create_linked_log(logs, id, link);
    if (log) return ChildLog{std::move(id), std::move(*log)};
    if (log.error().code != Errc::already_exists) return log.error();
  }
  return fail(Errc::already_exists, "call '" + link.tool_use_id + "' already has " +
                                        std::to_string(kMaxLogsPerCall) + " subagent logs");
}

// Everything on the log's active branch that is a message, in order.
std::vector<Message> logged_messages(const session::LoadResult& loaded) {
  std::vector<Message> out;
  std::string leaf = loaded.entries.empty() ? std::string() : loaded.entries.back().id;
  for (const session::Entry* e : session::branch(loaded.entries, leaf)) {
    if (e->type != session::EntryType::message) continue;
    if (Result<Message> m = session::message_of(*e)) out.push_back(std::move(*m));
  }
  return out;
}

// The delegations of call `tool_use_id` that `logs` holds a linked log of.
void runs_from_logs(const SubagentLogs& logs, std::string_view parent_id,
                    const std::string& tool_use_id, std::vector<SubagentRun>& out) {
  for (int attempt = 1; attempt <= kMaxLogsPerCall; ++attempt) {
    std::string id = child_session_id(parent_id, tool_use_id, attempt);
    Result<std::unique_ptr<session::Store>> store = open_store(logs, id);
    if (!store) return;
    Result<session::LoadResult> loaded = session::load(**store);
    if (!loaded) return;  // not_found: no more logs of this call
    std::optional<LogLink> link = link_of(loaded->header);
    if (!link || link->parent_session_id != parent_id || link->tool_use_id != tool_use_id)
      continue;  // a log of that name that is not this call's child
    SubagentRun run;
    run.tool_use_id = tool_use_id;
    run.agent = link->agent;
    run.path = link->path;
    run.session_id = loaded->header.id;
    run.log = id;
    run.interrupted = true;
    run.stop_reason = RunStopReason::aborted;
    run.transcript = logged_messages(*loaded);
    for (const Message& m : run.transcript) {
      if (const auto* a = std::get_if<AssistantMessage>(&m)) {
        ++run.turns;
        run.usage += a->usage;
      }
    }
    out.push_back(std::move(run));
  }
}

// ---- One delegation -----------------------------------------------------------------------------

ToolResult delegate(const Recipe& recipe, const json::Value& args, const ToolContext& ctx) {
  const RunScope* scope = ctx.run;
  if (scope == nullptr || scope->agent == nullptr || !scope->budget) {
    return refuse(recipe, "no_parent_run", "a subagent tool runs only inside an agent's run");
  }
  const json::Value* prompt = args.find("prompt");
  if (prompt == nullptr || !prompt->is_string() || prompt->as_string().empty()) {
    return ToolResult::failure("invalid_arguments",
                               "Subagent '" + recipe.name + "' needs a non-empty 'prompt' string.");
  }
  const int depth = scope->depth + 1;
  if (depth > recipe.options.max_depth) {
    return refuse(recipe, "depth_limit",
                  "delegating from depth " + std::to_string(scope->depth) +
                      " would exceed the limit of " + std::to_string(recipe.options.max_depth) +
                      " nested subagents. Do this part yourself.");
  }
  Result<AgentDefinition> definition = recipe.definition();
  if (!definition) return refuse(recipe, "subagent_failed", definition.error().message);

  // The slice, reserved under the parent's lock before anything runs (ARCHITECTURE §7.4).
  const DelegationBudget& caps = recipe.options.budget;
  Result<RunBudget> slice =
      scope->budget->reserve(RunBudget{caps.tokens, caps.usd, caps.wall_time}, caps.share);
  if (!slice) return refuse(recipe, "budget_exhausted", slice.error().message);

  auto link = std::make_shared<Delegation>();
  link->agent = recipe.name;
  link->path = (scope->path.empty() ? "" : scope->path + "/") + recipe.name + ":" + ctx.tool_use_id;
  link->depth = depth;
  link->budget = std::make_shared<BudgetLedger>(*slice, BudgetLedger::Clock::now(), scope->budget);
  link->locks = scope->locks;
  link->parent_span = ctx.span;
  detail::SessionCore* parent = scope->session;
  const bool parent_is_top = scope->depth == 0;
  link->forward = [parent, parent_is_top, path = link->path, agent = recipe.name,
                   locks = scope->locks](Event e) {
    Event tagged =
        std::holds_alternative<SubagentEvent>(e)
            ? std::move(e)  // a grandchild's: already tagged with its full path
            : Event(SubagentEvent{path, agent, std::make_shared<const Event>(std::move(e))});
    if (parent_is_top && locks) {
      std::lock_guard lock(locks->events);
      parent->emit(std::move(tagged));
    } else {
      parent->emit(std::move(tagged));
    }
  };

  const RuntimeConfig& parent_runtime = scope->agent->runtime;
  Result<Agent> child = make_agent(std::move(*definition),
                                   child_runtime(parent_runtime, recipe, *slice, scope->locks));
  auto give_back = [&] { scope->budget->release(*slice, *link->budget); };
  if (!child) {
    give_back();
    return refuse(recipe, "subagent_failed", child.error().message);
  }
  detail::AgentAccess::core(*child)->delegation = link;
  StartOptions start;
  if (const SubagentLogs& logs = parent->subagent_logs) {
    // Written as the child runs: a crash of the parent mid-delegation loses none of it.
    Result<ChildLog> own =
        create_child_log(logs, LogLink{parent->id, ctx.tool_use_id, recipe.name, link->path});
    if (own) {
      start.session_id = own->session_id;
      start.log = std::move(own->log);
      start.subagent_logs = logs;  // and its own children's beside it
    } else {
      link->forward(
          ErrorEvent{make_error(own.error().code,
                                "subagent '" + recipe.name +
                                    "' runs without a log of its own: " + own.error().message),
                     false});
    }
  }
  const std::string log_name = start.log ? start.session_id : std::string();
  Result<Session> session = child->start(std::move(start));
  if (!session) {
    give_back();
    return refuse(recipe, "subagent_failed", session.error().message);
  }
  std::string session_id(session->snapshot().session_id());
  Result<RunResult> run =
      session->run(Turn(Input(std::string(prompt->as_string())), recipe.tool_policy), ctx.stop);
  (void)session->close();
  (void)child->close();
  give_back();
  if (!run)
    return ToolResult::failure("subagent_failed",
                               "Subagent '" + recipe.name + "' failed: " + run.error().message);

  const RunResult& r = *run;
  const bool exhausted = r.stop_reason == RunStopReason::budget_exhausted;
  ToolResult result;
  switch (r.stop_reason) {
    case RunStopReason::error:
    case RunStopReason::aborted:
    case RunStopReason::refusal:
    case RunStopReason::invalid_answer:
      result = ToolResult::failure(
          "subagent_failed",
          "Subagent '" + recipe.name + "' failed (" + std::string(to_string(r.stop_reason)) +
              "): " + (r.error_message.empty() ? r.final_text : r.error_message));
      break;
    case RunStopReason::awaiting_approval:
      result = ToolResult::failure(
          "subagent_needs_approval",
          "Subagent '" + recipe.name + "' stopped: " + std::to_string(r.pending_approvals.size()) +
              " of its tool calls need a person's approval, which a delegation cannot wait for.");
      break;
    default:
      if (exhausted) {
        result = ToolResult::text_result("[subagent '" + recipe.name +
                                         "' ran out of budget: " + r.error_message +
                                         ". What it had so far follows.]\n" + r.final_text);
      } else {
        result = ToolResult::text_result(r.final_text);
      }
      break;
  }
  result.metadata.set(std::string(kMetadataKey),
                      record_json(recipe, link->path, session_id, log_name, r, exhausted, *slice));
  return result;
}

ToolDefinition make_tool(Recipe recipe) {
  ToolDefinition def;
  def.name = recipe.name;
  def.description = recipe.description;
  def.input_schema = schema::object({schema::required(
      "prompt", schema::string().describe("The task for the subagent, self-contained: it "
                                          "sees nothing of this conversation."))});
  def.origin = "subagent";
  auto shared = std::make_shared<const Recipe>(std::move(recipe));
  def.handler = [shared](const json::Value& args, const ToolContext& ctx) {
    return delegate(*shared, args, ctx);
  };
  return def;
}

Result<SubagentRun> decode_run(const ToolResultMessage& m) {
  const json::Value* rec = m.metadata.find(kMetadataKey);
  if (rec == nullptr || !rec->is_object()) return fail(Errc::not_found, "no subagent record");
  SubagentRun out;
  out.tool_use_id = m.tool_use_id;
  auto str = [&](std::string_view key) -> std::string {
    const json::Value* v = rec->find(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  out.agent = str("agent");
  out.path = str("path");
  out.session_id = str("session_id");
  out.log = str("log");
  if (auto reason = parse_run_stop_reason(str("stop_reason"))) out.stop_reason = *reason;
  if (const json::Value* v = rec->find("exhausted"); v != nullptr && v->is_bool())
    out.exhausted = v->as_bool();
  if (const json::Value* v = rec->find("turns"); v != nullptr && v->is_number()) {
    if (auto n = v->to_int64()) out.turns = static_cast<int>(*n);
  }
  if (const json::Value* v = rec->find("usage")) {
    if (auto u = usage_from_json(*v)) out.usage = *u;
  }
  if (const json::Value* b = rec->find("budget"); b != nullptr && b->is_object())
    out.budget = budget_from_json(*b);
  if (const json::Value* t = rec->find("transcript"); t != nullptr && t->is_array()) {
    for (const json::Value& item : t->as_array()) {
      Result<Message> msg = message_from_json(item);
      if (!msg) return msg.error();
      out.transcript.push_back(std::move(*msg));
    }
  }
  return out;
}

}  // namespace

ToolDefinition subagent_tool(SubagentDefinition definition, SubagentOptions options) {
  Recipe recipe;
  recipe.name = definition.name;
  recipe.description = definition.description;
  recipe.tool_policy = definition.tool_policy;
  recipe.model = definition.model;
  recipe.options = options;
  auto def = std::make_shared<const AgentDefinition>(AgentDefinition{
      .instructions = std::move(definition.instructions),
      .skills = std::move(definition.skills),
      .tools = std::move(definition.tools),
      .context_files = {},
  });
  recipe.definition = [def]() -> Result<AgentDefinition> { return *def; };  // a fresh copy per call
  return make_tool(std::move(recipe));
}

ToolDefinition subagent_tool(std::string name, std::string description, SubagentFactory factory,
                             SubagentOptions options) {
  Recipe recipe;
  recipe.name = std::move(name);
  recipe.description = std::move(description);
  recipe.definition = std::move(factory);
  recipe.options = options;
  return make_tool(std::move(recipe));
}

ToolDefinition subagent_tool(const Agent& agent, std::string name, std::string description,
                             SubagentOptions options) {
  Recipe recipe;
  recipe.name = std::move(name);
  recipe.description = std::move(description);
  recipe.options = options;
  const std::shared_ptr<detail::AgentCore>& core = detail::AgentAccess::core(agent);
  if (core) {
    recipe.model = core->runtime.model;
    recipe.providers = core->runtime.providers;
    auto def = std::make_shared<const AgentDefinition>(core->definition);
    recipe.definition = [def]() -> Result<AgentDefinition> { return *def; };
  } else {
    recipe.definition = []() -> Result<AgentDefinition> {
      return fail(Errc::closed, "the subagent's Agent was moved from");
    };
  }
  return make_tool(std::move(recipe));
}

std::vector<SubagentRun> subagent_runs(std::span<const Message> messages) {
  std::vector<SubagentRun> out;
  for (const Message& m : messages) {
    const auto* r = std::get_if<ToolResultMessage>(&m);
    if (r == nullptr) continue;
    if (Result<SubagentRun> run = decode_run(*r)) out.push_back(std::move(*run));
  }
  return out;
}

std::vector<SubagentRun> subagent_runs(const SessionHandle& handle) {
  const detail::SessionState* state = detail::SessionStateAccess::get(handle);
  if (state == nullptr) return {};
  return subagent_runs(state->messages().span);
}

std::vector<SubagentRun> subagent_runs(const SessionHandle& handle, const SubagentLogs& logs) {
  const detail::SessionState* state = detail::SessionStateAccess::get(handle);
  if (state == nullptr) return {};
  if (!logs) return subagent_runs(state->messages().span);
  // A copy: reading the logs is file I/O, never done while the session's appends wait.
  std::vector<Message> messages;
  {
    const detail::SessionState::Messages held = state->messages();
    messages.assign(held.span.begin(), held.span.end());
  }
  // Each call's result, when it has one: a successful result without a record is an ordinary
  // tool's; a missing or failed one may hide a child that ran when the process ended.
  std::map<std::string, const ToolResultMessage*, std::less<>> results;
  for (const Message& m : messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) results[r->tool_use_id] = r;
  }
  std::vector<SubagentRun> out;
  for (const Message& m : messages) {
    const auto* a = std::get_if<AssistantMessage>(&m);
    if (a == nullptr) continue;
    for (const ContentBlock& block : a->content) {
      const auto* call = std::get_if<ToolUseBlock>(&block);
      if (call == nullptr) continue;
      auto it = results.find(call->id);
      if (it != results.end()) {
        if (Result<SubagentRun> run = decode_run(*it->second)) {
          out.push_back(std::move(*run));
          continue;
        }
        if (!it->second->is_error) continue;
      }
      runs_from_logs(logs, state->session_id, call->id, out);
    }
  }
  return out;
}

SubagentLogs subagent_logs_beside(const std::filesystem::path& parent_log) {
  std::filesystem::path folder = parent_log.parent_path();
  return [folder](std::string_view name) -> Result<std::unique_ptr<session::Store>> {
    return session::file_store(folder / (std::string(name) + ".jsonl"));
  };
}

}  // namespace agentkit
