// The agent loop (REQ-LOOP-01..16; ARCHITECTURE §7.2). One run, top to bottom:
//
//   claim the run slot, append the input
//   per turn:  context transform -> steering poll -> model call -> append the assistant message
//              error/aborted -> end;  tool calls -> batch -> append one result per call
//              turn end -> stop checks (only now: every stop leaves a resumable transcript)
//              -> steering poll; loop while there are tool calls or pending steering
//   inner loop exhausted -> follow-ups restart it inside the same run
//   release the slot only when no accepted send() is left undelivered
//
// Human in the loop: a batch with a call that needs a person is held (no handler runs) and the
// run stops awaiting approval. The next run carries the decisions and starts by running that
// held batch as a whole (no model call first); its input follows the results.
#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "agentkit/providers/retry.hpp"
#include "answer_gate.hpp"
#include "audit_sites.hpp"
#include "compaction.hpp"
#include "image_boundary.hpp"
#include "plugins.hpp"
#include "run_context.hpp"

namespace agentkit::detail {
namespace {

// Which of the session's queued inputs to deliver now, per the queue mode.
std::vector<UserMessage> take(std::vector<QueuedInput>& queue, QueueMode mode) {
  const std::size_t n =
      mode == QueueMode::one_at_a_time ? std::min<std::size_t>(queue.size(), 1) : queue.size();
  std::vector<UserMessage> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::move(queue[i].message));
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(n));
  return out;
}

bool is_terminal(StopReason r) { return r == StopReason::error || r == StopReason::aborted; }

std::string describe_calls(const std::vector<PendingApproval>& calls) {
  std::string out;
  for (const auto& p : calls)
    out += (out.empty() ? "'" : ", '") + p.tool_use_id + "' (" + p.tool_name + ")";
  return out;
}

// Checks a run's decisions against what the session waits for; changes nothing.
Result<void> check_decisions(const ApprovalBook& book,
                             const std::vector<ApprovalDecision>& decisions) {
  std::set<std::string, std::less<>> seen;
  for (const auto& d : decisions) {
    bool pending =
        std::any_of(book.pending.begin(), book.pending.end(),
                    [&](const PendingApproval& p) { return p.tool_use_id == d.tool_use_id; });
    if (!pending) {
      return fail(Errc::invalid_argument,
                  "an approval decision names tool call '" + d.tool_use_id +
                      "', which is not awaiting approval" +
                      (book.pending.empty() ? std::string(" (no call is pending)")
                                            : "; pending: " + describe_calls(book.pending)));
    }
    if (!seen.insert(d.tool_use_id).second) {
      return fail(Errc::invalid_argument,
                  "two approval decisions for tool call '" + d.tool_use_id + "'");
    }
  }
  std::vector<PendingApproval> undecided;
  for (const auto& p : book.pending) {
    if (!seen.contains(p.tool_use_id)) undecided.push_back(p);
  }
  if (!undecided.empty()) {
    return fail(Errc::invalid_argument,
                "the session is waiting for a decision on tool call(s) " +
                    describe_calls(undecided) +
                    ": pass one ApprovalDecision per pending call in Turn::approvals");
  }
  return {};
}

// The last assistant message and the calls of it already answered in `history`.
const AssistantMessage* held_message(const std::vector<Message>& history,
                                     std::set<std::string, std::less<>>& answered) {
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (const auto* a = std::get_if<AssistantMessage>(&*it)) return a;
    if (const auto* r = std::get_if<ToolResultMessage>(&*it)) answered.insert(r->tool_use_id);
  }
  return nullptr;
}

// True when the model owes a reply to this transcript: what an empty-input run continues.
bool model_owes_reply(const std::vector<Message>& history) {
  if (history.empty()) return false;
  const Message& last = history.back();
  if (const auto* a = std::get_if<AssistantMessage>(&last)) return is_terminal(a->stop_reason);
  return true;  // a user message or a tool result
}

class Run {
 public:
  Run(SessionCore& session, agentkit::stop_source stop)
      : s_(session),
        a_(*session.agent),
        rc_{session, *session.agent, stop.get_token(), {}, 0, tracing::noop_span(), nullptr, {}},
        stop_(std::move(stop)) {}

  // Fills the offered set for the turn's policy; an unknown name is an error.
  [[gnu::noinline]] Result<void> apply_policy(const ToolPolicy& policy) {
    const ToolRegistry& reg = a_.registry;
    if (!policy.allowed) {
      offered_specs_ = reg.specs;
      for (const auto& t : reg.tools) rc_.offered.insert(t.definition.name);
      return {};
    }
    std::vector<std::string> unknown;
    for (const auto& name : *policy.allowed) {
      if (reg.find(name) == nullptr) unknown.push_back(name);
    }
    if (!unknown.empty()) {
      std::string list;
      for (const auto& n : unknown) list += (list.empty() ? "'" : ", '") + n + "'";
      return fail(Errc::invalid_argument, "tool policy names tools this agent does not have: " + list);
    }
    for (std::size_t i = 0; i < reg.tools.size(); ++i) {
      const std::string& name = reg.tools[i].definition.name;
      bool listed = std::find(policy.allowed->begin(), policy.allowed->end(), name) != policy.allowed->end();
      if (listed || name == kReadSkillToolName) {  // read_skill is intrinsic: never filtered out
        rc_.offered.insert(name);
        filtered_.push_back(reg.specs[i]);
      }
    }
    offered_specs_ = filtered_;
    return {};
  }

  // Typed answers: the gate for the turn's schema (an inexpressible one fails the run here,
  // before anything is sent or recorded); in tool mode the final-answer tool joins the offer.
  [[gnu::noinline]] Result<void> apply_answer(const std::optional<AnswerSchema>& answer) {
    if (!answer) return {};
    Result<AnswerGate> gate = AnswerGate::make(a_, *answer, offered_specs_);
    if (!gate) return gate.error();
    gate_.emplace(std::move(*gate));
    offered_specs_ = gate_->tools(offered_specs_);
    return {};
  }

  // Claims the slot and records the input, under the session lock.
  [[gnu::noinline]] Result<void> begin(Input input, std::vector<ApprovalDecision> decisions) {
    std::lock_guard lock(s_.mu);
    if (s_.closed) return fail(Errc::closed, "the session is closed");
    if (s_.run_active) {
      return fail(Errc::busy, "a run is already in flight on this session; wait for it or use send()");
    }
    if (auto checked = check_decisions(s_.approvals, decisions); !checked) return checked.error();
    run_start_ = s_.history.size();
    if (s_.approvals.holds_batch()) {
      // The held batch runs first; the input waits until its results are in.
      for (auto& d : decisions) s_.approvals.decided.insert_or_assign(d.tool_use_id, d);
      s_.approvals.pending.clear();
      held_ = s_.approvals;
      new_decisions_ = std::move(decisions);
      resuming_ = true;
      if (!input.empty()) {
        normalize_images_for_history(a_.image_normalizer, input.content);
        held_input_ = UserMessage{std::move(input.content), a_.now()};
      }
    } else if (!input.empty()) {
      normalize_images_for_history(a_.image_normalizer, input.content);
      std::lock_guard grow(s_.store->mu);  // handles read the store
      append_to_transcript(s_.history, UserMessage{std::move(input.content), a_.now()});
    } else if (!model_owes_reply(s_.history)) {
      // Continuing after a completed answer needs something queued to say (REQ-LOOP-16).
      auto follow = take(s_.follow_ups, QueueMode::all);
      auto steer = take(s_.steering, QueueMode::all);
      if (follow.empty() && steer.empty()) {
        return fail(Errc::invalid_argument,
                    s_.history.empty() ? "empty input on an empty session: nothing to run"
                                       : "empty input, but the model already answered and nothing is "
                                         "queued: there is nothing to continue");
      }
      std::lock_guard grow(s_.store->mu);  // handles read the store
      for (auto& m : follow) append_to_transcript(s_.history, std::move(m));
      for (auto& m : steer) append_to_transcript(s_.history, std::move(m));
    }
    s_.run_active = true;
    s_.accepting_sends = true;
    return {};
  }

  // The result is left in the run (result()), on the heap: returned by value, its 536 bytes were
  // a slot in the caller's frame, above every model call and tool batch of the run.
  void execute() {
    start();
    RunStopReason reason = loop();
    finish(reason);
  }
  RunResult& result() noexcept { return result_; }

 private:
  // What the run does around its model calls (its start and end, a turn's events, the replies'
  // and results' copies into the history, steering, approvals, typed answers) is out of line
  // ([[gnu::noinline]]): what it builds would otherwise sit in the loop's frame, under every model
  // call and tool batch of the run. Only the reply itself lives in that frame.
  [[gnu::noinline]] void start() {
    skills::AssembledPrompt prompt = system_prompt_for_turn(a_, offered_specs_);
    system_prompt_ = std::move(prompt.text);
    if (gate_) {
      if (std::string extra = gate_->instructions(); !extra.empty()) {
        system_prompt_ += system_prompt_.empty() ? extra : "\n\n" + extra;
      }
    }
    // The run's input reaches the log before the first model call: a crash in turn 1 keeps it.
    log_messages(s_, std::span<const Message>(s_.history).subspan(run_start_));
    if (!new_decisions_.empty()) log_approval_decision(s_, new_decisions_);
    AgentStartEvent start{s_.id, a_.model->vendor, a_.model->api, a_.model->id,
                          std::move(prompt.skill_names)};
    audit_run_start(rc_, start);
    rc_.emit(std::move(start));
    open_run_budget(rc_);  // the run's budget; a subagent's slice of its parent's
    if (auto deadline = rc_.budget->deadline()) wall_clock_.arm(s_.timer, *deadline, stop_);
    rc_.run_span = trace::start_run(a_.runtime, *a_.model, s_.id, delegation_parent_span(a_));
    notify_session_start(rc_, HookSessionStart{s_.id, a_.model->id});
  }

  [[gnu::noinline]] RunStopReason loop() {
    std::vector<UserMessage> pending;  // steering polled at a turn end, delivered next turn
    while (true) {
      start_turn();

      std::set<std::string, std::less<>> answered;
      const bool resumed = std::exchange(resuming_, false);
      // Built where it lives: the reply is this frame's one AssistantMessage.
      AssistantMessage reply = resumed ? held_reply(answered) : model_reply(pending);
      if (!resumed && is_terminal(reply.stop_reason)) {
        end_turn(reply, {});
        return reply.stop_reason == StopReason::aborted ? RunStopReason::aborted
                                                        : RunStopReason::error;
      }

      if (gate_ && reply.stop_reason != StopReason::refusal) {  // a refusal ends as one, unrepaired
        AnswerStep step = judge_answer(reply);
        if (step.stop) return *step.stop;
        if (step.repair) continue;
      }

      BatchOutcome batch;
      bool had_tools = has_tool_use(reply);  // presence decides, never the stop reason (REQ-LOOP-01)
      if (had_tools) {
        batch =
            run_tool_batch(rc_, reply, resumed ? &held_ : nullptr, resumed ? &answered : nullptr);
        if (!batch.pending.empty()) {
          hold(std::move(batch.pending));
          end_turn(reply, {});
          return RunStopReason::awaiting_approval;
        }
        append_results(batch.results);
      }
      if (resumed) release_held_batch();
      end_turn(reply, batch.results);

      // Stop checks run here, after the results are in the history (REQ-LOOP-04a).
      if (rc_.stop.stop_requested()) return RunStopReason::aborted;
      if (had_tools && batch.all_voted_terminate) return RunStopReason::tool_terminate;
      if (had_tools || has_queued_input()) {
        if (auto stop = check_stop(reply, batch.results)) return *stop;
      }
      pending = poll_steering();
      if (had_tools || !pending.empty()) continue;

      // The inner loop is exhausted: a follow-up restarts it inside this run (REQ-LOOP-14).
      std::vector<UserMessage> follow = poll_follow_ups();
      if (!follow.empty()) {
        deliver(follow, /*steering=*/false);
        continue;
      }
      if (close_the_door()) return to_run_stop_reason(reply.stop_reason);
    }
  }

  struct AnswerStep {
    std::optional<RunStopReason> stop;  // the run ends here
    bool repair = false;                // the answer went back to the model: next turn
  };

  // The held batch's message, already in the history: its batch runs, with no model call.
  [[gnu::noinline]] AssistantMessage held_reply(std::set<std::string, std::less<>>& answered) {
    std::lock_guard lock(s_.mu);
    const AssistantMessage* held = held_message(s_.history, answered);
    return held ? *held : AssistantMessage{};
  }

  // The turn's model call, its reply recorded in the history and the usage.
  [[gnu::noinline]] AssistantMessage model_reply(std::vector<UserMessage>& pending) {
    // Second poll, only when nothing is pending, so one-at-a-time never doubles up.
    if (pending.empty()) pending = poll_steering();
    deliver(pending, /*steering=*/true);
    AssistantMessage reply = call_model(CompactionTrigger::threshold);
    retry_after_overflow(reply);
    append_reply(reply);
    run_usage_ += reply.usage;
    rc_.budget->charge(reply.usage);  // live, up the delegation chain
    {
      std::lock_guard lock(s_.mu);
      s_.usage += reply.usage;
    }
    return reply;
  }

  // A prompt the provider refused as too long: compact once and send it once more.
  [[gnu::noinline]] void retry_after_overflow(AssistantMessage& reply) {
    if (providers::is_context_overflow(reply) && a_.runtime.compaction.retry_on_overflow &&
        compact_if_due(rc_, system_prompt_, offered_specs_, CompactionTrigger::overflow,
                       run_usage_)) {
      reply = call_model(std::nullopt);
    }
  }

  // The turn's events and its messages' copies are built out of line: in the loop's frame they
  // would stay on the stack under every model call (docs/architecture.md, "the caller's stack").
  [[gnu::noinline]] void start_turn() {
    ++rc_.turn_index;
    rc_.emit(TurnStartEvent{rc_.turn_index});
    call_hook(a_.runtime.extensions.hooks.on_turn_start, TurnStartEvent{rc_.turn_index});
  }
  [[gnu::noinline]] void append_reply(const AssistantMessage& reply) { append(Message(reply)); }
  [[gnu::noinline]] void append_results(const std::vector<ToolResultMessage>& results) {
    for (const auto& r : results) append(Message(r));
  }

  // A reply judged against the turn's answer schema: not a final answer goes on as a tool turn.
  [[gnu::noinline]] AnswerStep judge_answer(const AssistantMessage& reply) {
    AnswerVerdict verdict = gate_->judge(reply);
    if (!verdict.final) return {};
    return settle_answer(reply, std::move(verdict));
  }

  // A final answer arrived. Valid from the text: the turn ends as an ordinary text turn. From the
  // final-answer tool: the turn's other calls run, the call gets its result, and a valid answer
  // ends the run. Invalid: a repair turn with the violations while repairs are left, then the
  // distinct stop; never a silent success.
  [[gnu::noinline]] AnswerStep settle_answer(const AssistantMessage& reply, AnswerVerdict verdict) {
    const bool valid = verdict.value.has_value();
    const bool by_tool = !verdict.call_id.empty();
    const std::string note = valid ? std::string() : gate_->repair_note(verdict);
    verdict_ = std::move(verdict);
    if (valid && !by_tool) return {};
    std::vector<ToolResultMessage> results;
    if (by_tool) {
      AssistantMessage others = gate_->without_answer_call(reply);
      if (has_tool_use(others)) results = run_tool_batch(rc_, others).results;
      ToolResultMessage r;
      r.tool_use_id = verdict_->call_id;
      r.tool_name = gate_->tool_name();
      r.content.emplace_back(TextBlock{valid ? "Answer accepted." : note});
      r.is_error = !valid;
      r.timestamp = a_.now();
      results.push_back(std::move(r));
      for (const auto& result : results) append(Message(result));
    }
    if (valid) {
      end_turn(reply, results);
      return {RunStopReason::stop, false};
    }
    if (!by_tool) append(Message(UserMessage{{TextBlock{note}}, a_.now()}));
    end_turn(reply, results);
    if (repairs_ >= gate_->max_repairs()) return {RunStopReason::invalid_answer, false};
    ++repairs_;
    force_answer_ = true;
    if (rc_.stop.stop_requested()) return {RunStopReason::aborted, false};
    if (auto stop = check_stop(reply, results)) return {*stop, false};
    return {std::nullopt, true};
  }

  // The final-answer tool is forced on a repair turn and on the last turn max_turns allows.
  bool force_answer_tool() const {
    const auto& max_turns = a_.runtime.loop.max_turns;
    return force_answer_ || (max_turns && turn_count_ + 1 >= *max_turns);
  }

  // The batch waits for a person: the session remembers the asks (and the decisions already
  // taken for it, when a resumed batch asks again), and so does the log.
  [[gnu::noinline]] void hold(std::vector<PendingApproval> asks) {
    log_approval_request(s_, asks);
    std::lock_guard lock(s_.mu);
    s_.approvals.pending = std::move(asks);
  }

  // The held batch has run: forget it, then deliver the run's input after its results.
  [[gnu::noinline]] void release_held_batch() {
    {
      std::lock_guard lock(s_.mu);
      s_.approvals = ApprovalBook{};
    }
    if (held_input_) {
      UserMessage input = std::move(*held_input_);
      held_input_.reset();
      append(Message(std::move(input)));
    }
  }

  // `compaction`: whether to compact first when the request would not fit (nullopt: the retry
  // after an overflow, which has just compacted).
  AssistantMessage call_model(std::optional<CompactionTrigger> compaction) {
    // Compaction prepares this request, right before it is made (never at a turn end).
    if (compaction) compact_if_due(rc_, system_prompt_, offered_specs_, *compaction, run_usage_);
    std::optional<std::vector<Message>> compacted = compacted_request_view(s_);
    // The view only grows while it is the history or its compacted view (Request::history_serial).
    std::uint64_t serial = s_.view_serial;
    std::vector<Message> transformed;
    std::span<const Message> view = compacted ? std::span<const Message>(*compacted) : s_.history;
    if (a_.runtime.extensions.context_transform) transform_view(view, serial, transformed);
    // Replayed images are re-checked against this request's limits (the many-images rule).
    std::optional<std::vector<Message>> fitted = fit_request_images(a_.image_normalizer, view);
    if (fitted) {
      view = *fitted;
      serial = 0;  // older images may be rewritten as more arrive
    }
    Request req;
    req.model = a_.model;
    req.system = system_prompt_;
    req.messages = view;
    req.tools = offered_specs_;
    const ModelConfig& mc = a_.runtime.model;
    req.tool_choice = mc.tool_choice;
    req.max_tokens = mc.max_tokens;
    req.temperature = mc.temperature;
    req.top_p = mc.top_p;
    req.stop_sequences = mc.stop_sequences;
    req.thinking = mc.thinking;
    req.session_id = a_.runtime.transport.session_id.empty() ? s_.id : a_.runtime.transport.session_id;
    req.history_serial = serial;
    if (gate_) gate_->shape(req, force_answer_tool());

    trace::ChatSpan chat(*rc_.run_span, a_.runtime, req, rc_.turn_index);
    const bool listened =
        s_.has_listeners() || chat.wants_events() || a_.runtime.extensions.hooks.on_error;
    EventCallback emit = NoEventListener{};  // nothing reads them: the provider builds none
    if (listened) {
      emit = [this, &chat](Event e) {
        chat.observe(e);
        rc_.emit(std::move(e));
      };
    }
    promised_messages() = {req.messages.data(), req.messages.size(), req.history_serial};
    struct Unpromise {
      ~Unpromise() { promised_messages() = {}; }
    } unpromise;
    AssistantMessage reply = guarded_model_call(req, emit);  // made in place: no copy in this frame
    stamp(reply);
    audit_model_call(rc_, reply);
    chat.end(reply);
    notify_model_call(rc_, HookModelCall{s_.id, rc_.turn_index, reply});
    return reply;
  }

  // The model's reply, or an error reply when the call threw.
  AssistantMessage guarded_model_call(const Request& req, const EventCallback& emit) {
    try {
      return a_.model_call(req, a_.runtime.transport.request, emit, rc_.stop);
    } catch (const std::exception& e) { return threw_reply(e.what()); } catch (...) {
      return threw_reply("unknown exception");
    }
  }
  [[gnu::cold, gnu::noinline]] static AssistantMessage threw_reply(std::string_view failure) {
    AssistantMessage reply;
    reply.stop_reason = StopReason::error;
    reply.error_message =
        "the model call threw (middleware or provider bug): " + std::string(failure);
    return reply;
  }

  // The caller's context transform applied to the request's view; on a throw, the view is sent
  // as it was and the error reported.
  [[gnu::noinline]] void transform_view(std::span<const Message>& view, std::uint64_t& serial,
                                        std::vector<Message>& transformed) {
    std::string failure;
    trace::SpanPtr span = trace::start_transform(*rc_.run_span, view.size());
    bool ok = call_guarded(
        [&] {
          transformed = a_.runtime.extensions.context_transform(
              std::vector<Message>(view.begin(), view.end()));
        },
        failure);
    trace::end_transform(*span, ok ? transformed.size() : view.size(), ok);
    if (ok) {
      view = transformed;
      serial = 0;  // the caller's function promises nothing
    } else {
      rc_.emit(ErrorEvent{make_error(Errc::internal,
                                     "context transform threw (history sent "
                                     "untransformed): " +
                                         failure),
                          false});
    }
  }

  // Fills provenance and time the provider left empty.
  void stamp(AssistantMessage& m) const {
    if (m.provider.empty()) m.provider = a_.model->vendor;
    if (m.api.empty()) m.api = a_.model->api;
    if (m.model.empty()) m.model = a_.model->id;
    if (m.timestamp == Timestamp{}) m.timestamp = a_.now();
  }

  void append(Message m) {
    if (s_.log) log_messages(s_, std::span<const Message>(&m, 1));  // outside the lock: file I/O
    std::lock_guard lock(s_.mu);
    std::lock_guard grow(s_.store->mu);  // handles read the store
    append_to_transcript(s_.history, std::move(m));
  }

  [[gnu::noinline]] void deliver(std::vector<UserMessage>& messages, bool steering) {
    for (auto& m : messages) {
      normalize_images_for_history(a_.image_normalizer, m.content);
      if (s_.has_listeners()) rc_.emit(UserMessageEvent{m, steering});
      append(Message(std::move(m)));
    }
    messages.clear();
  }

  void end_turn(const AssistantMessage& reply, const std::vector<ToolResultMessage>& results) {
    ++turn_count_;
    const auto& hook = a_.runtime.extensions.hooks.on_turn_end;
    if (s_.has_listeners() || hook) {
      TurnEndEvent ev{rc_.turn_index, reply, results};
      call_hook(hook, ev);
      rc_.emit(std::move(ev));
    }
    log_end_turn(s_);
    std::lock_guard lock(s_.mu);
    s_.committed = s_.history.size();
  }

  std::optional<RunStopReason> check_stop(const AssistantMessage& reply,
                                          const std::vector<ToolResultMessage>& results) {
    if (rc_.budget->exhausted()) return RunStopReason::budget_exhausted;
    if (a_.runtime.loop.max_turns && turn_count_ >= *a_.runtime.loop.max_turns) return RunStopReason::max_turns;
    const StopPolicy& policy = a_.runtime.extensions.stop_policy;
    if (!policy) return std::nullopt;
    std::span<const Message> history = s_.history;
    StopContext ctx{reply, results, history, history.subspan(run_start_), turn_count_, run_usage_};
    StopDecision decision;
    std::string failure;
    if (!call_guarded([&] { decision = policy(ctx); }, failure)) {
      // A limit that fails open is an unbounded bill: a throwing policy stops the run.
      rc_.emit(ErrorEvent{make_error(Errc::internal, "stop policy threw; stopping the run: " + failure), false});
      return RunStopReason::stop_policy;
    }
    if (decision.stop) return decision.reason;
    return std::nullopt;
  }

  [[gnu::noinline]] std::vector<UserMessage> poll_steering() {
    std::lock_guard lock(s_.mu);
    return take(s_.steering, a_.runtime.loop.steering);
  }
  [[gnu::noinline]] std::vector<UserMessage> poll_follow_ups() {
    std::lock_guard lock(s_.mu);
    return take(s_.follow_ups, a_.runtime.loop.follow_up);
  }
  [[gnu::noinline]] bool has_queued_input() const {
    std::lock_guard lock(s_.mu);
    return !s_.steering.empty() || !s_.follow_ups.empty();
  }

  // Ends a natural run only if nothing was accepted since the last poll; from here on send()
  // refuses, so no accepted input is ever silently left behind.
  [[gnu::noinline]] bool close_the_door() {
    std::lock_guard lock(s_.mu);
    if (!s_.steering.empty() || !s_.follow_ups.empty()) return false;
    s_.accepting_sends = false;
    return true;
  }

  template <class Hook, class Arg>
  void call_hook(const Hook& hook, const Arg& arg) {
    if (!hook) return;
    std::string failure;
    if (!call_guarded([&] { hook(arg); }, failure)) {
      rc_.emit(ErrorEvent{make_error(Errc::internal, "a turn hook threw: " + failure), false});
    }
  }

  [[gnu::noinline]] void finish(RunStopReason reason) {
    // The wall-time limit stops the run where it is: what was cancelled ran out of budget.
    if (reason == RunStopReason::aborted && wall_clock_.fired())
      reason = RunStopReason::budget_exhausted;
    RunResult& result = result_;
    result.stop_reason = reason;
    result.turn_count = turn_count_;
    result.run_usage = run_usage_;
    {
      std::lock_guard lock(s_.mu);
      s_.accepting_sends = false;
      s_.committed = s_.history.size();
      result.messages.assign(s_.history.begin() + static_cast<std::ptrdiff_t>(run_start_), s_.history.end());
      result.session_usage = s_.usage;
      if (reason == RunStopReason::awaiting_approval)
        result.pending_approvals = s_.approvals.pending;
    }
    if (a_.provider) {
      const std::string& id = a_.runtime.transport.session_id.empty() ? s_.id : a_.runtime.transport.session_id;
      result.cache = a_.provider->cache_stats(id).value_or(CacheStats{});
    }
    for (auto it = result.messages.rbegin(); it != result.messages.rend(); ++it) {
      if (const auto* a = std::get_if<AssistantMessage>(&*it)) {
        result.final_text = text_of(*a);
        if (reason == RunStopReason::error || reason == RunStopReason::aborted) {
          result.error_message = a->error_message;
        }
        break;
      }
    }
    if (gate_ && verdict_) {
      if (verdict_->value) {
        result.answer = verdict_->value;
      } else {
        result.answer_violations = verdict_->violations;
      }
      if (!verdict_->call_id.empty()) result.final_text = verdict_->text;
    }
    if (reason == RunStopReason::aborted && result.error_message.empty()) {
      result.error_message = "the run was cancelled";
    }
    if (reason == RunStopReason::budget_exhausted) result.error_message = describe_exhaustion(rc_);
    result.handle = make_snapshot(s_);
    trace::end_run(*rc_.run_span, reason, run_usage_, turn_count_, result.error_message);
    // Every exit path passes here: an auditor can tell a run that ended badly from one running.
    notify_session_end(rc_, HookSessionEnd{s_.id, reason, result.error_message, run_usage_});
    AgentEndEvent end{reason, run_usage_, result.session_usage, result.error_message};
    audit_run_end(rc_, end);
    call_hook(a_.runtime.extensions.hooks.on_agent_end, end);
    rc_.emit(std::move(end));
  }

  RunResult result_;  // filled by finish()
  SessionCore& s_;
  AgentCore& a_;
  RunContext rc_;
  agentkit::stop_source stop_;  // the run's: fired by the caller, close() and the wall clock
  WallClockStop wall_clock_;
  std::vector<ToolSpec> filtered_;
  std::span<const ToolSpec> offered_specs_;
  std::string system_prompt_;
  std::size_t run_start_ = 0;
  int turn_count_ = 0;
  Usage run_usage_;
  std::optional<AnswerGate> gate_;
  std::optional<AnswerVerdict> verdict_;  // the last final answer judged
  int repairs_ = 0;
  bool force_answer_ = false;

  // A held batch this run starts with: the book as the run began, the decisions it brought (to
  // log) and the input that follows the batch's results.
  bool resuming_ = false;
  ApprovalBook held_;
  std::vector<ApprovalDecision> new_decisions_;
  std::optional<UserMessage> held_input_;
};

}  // namespace

Result<RunResult> SessionCore::run(Turn turn, agentkit::stop_token caller_stop) {
  // One stop source for the run: fired by the caller's token, by close() and by the run's
  // wall-time budget, nothing else.
  agentkit::stop_source run_stop;
  agentkit::stop_callback on_caller(caller_stop, [&run_stop] { run_stop.request_stop(); });
  agentkit::stop_callback on_close(close_source.get_token(), [&run_stop] { run_stop.request_stop(); });

  // On the heap: a run's state is some 3 KB, which would stay on the caller's stack (a thread per
  // session, often) under every model call and tool batch, deepening each by as much.
  auto run = std::make_unique<Run>(*this, run_stop);
  if (auto policy = run->apply_policy(turn.tool_policy); !policy) return policy.error();
  if (auto answer = run->apply_answer(turn.answer); !answer) return answer.error();
  if (auto begun = run->begin(std::move(turn.input), std::move(turn.approvals)); !begun)
    return begun.error();

  run->execute();
  {
    std::lock_guard lock(mu);
    run_active = false;
  }
  run_finished.notify_all();
  return std::move(run->result());  // into the caller's Result: no RunResult in this frame
}

}  // namespace agentkit::detail
