// agentkit/session/log.hpp — the append-only session log: entries, loading, the tree, resume.
//
//   #include "agentkit/session/log.hpp"
//   using namespace agentkit;
//   auto log = session::Log::create(session::file_store("chat.jsonl"), {}).value();
//   (void)log.append_model_change({"anthropic", "anthropic-messages", "claude-sonnet-4-5"});
//   (void)log.append_message(user_text("hello"));      // on disk before the first model call
//   (void)log.end_turn();                              // fsync under the default durability
//
//   // Later, in a new process: loading never refuses; every repair it made is listed.
//   auto reopened = session::Log::open(session::file_store("chat.jsonl"), {}).value();
//   for (const session::Repair& r : reopened.contents().repairs) { /* log r.detail */ }
//   session::Resumed state = session::fold(reopened.contents().entries, reopened.leaf());
//   // Build the agent from state.model and state.thinking, then give it state.messages.
//
// The file is JSONL: line 1 is the header {"type":"session","version","id","timestamp","cwd"},
// then one entry per line {"id","parent_id","type","timestamp", payload...}. Lines are only ever
// appended. Entries form a tree through parent_id: a fork moves the leaf back to an earlier entry
// and the next append starts a second branch in the same file.
//
// Thread safety: a Log is used from one thread at a time. The free functions are pure.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/session/store.hpp"

namespace agentkit::session {

// The log format this build writes. A newer version's header is read, and its unknown entry
// types are kept verbatim.
inline constexpr int kLogVersion = 1;

enum class EntryType : std::uint8_t {
  message,                // a transcript message (the lossless message codec): {"message":{...}}
  model_change,           // {"provider","api","model"}: the full triple the next turns use
  thinking_level_change,  // {"thinking_level":"high"}, or null: no level set (provider default)
  compaction,             // {"summary","first_kept_entry_id"}: earlier entries leave the context
  custom_message,         // {"custom_type","content"}: embedder text the model reads as a user turn
  branch_summary,         // {"from_id","summary"}: what was done on the branch that was left
  approval_request,       // {"calls":[PendingApproval...]}: a batch held for a person
  approval_decision,      // {"decisions":[ApprovalDecision...]}: the person's answers
  tool_call_started,      // {"tool_use_id","tool_name"}: a held batch's handler is about to run
  unknown,                // a type this build does not know (a newer version's); kept verbatim
};
std::string_view to_string(EntryType type) noexcept;

// Which model wrote, or will write, the turns: vendor, wire API and model id. All three are the
// same-model key of send-time repair, so a resume must recover all three.
struct ModelRef {
  std::string provider;
  std::string api;
  std::string model;
  friend bool operator==(const ModelRef&, const ModelRef&) = default;
};

struct Header {
  int version = kLogVersion;
  std::string id;
  std::string timestamp;  // RFC 3339, UTC
  std::string cwd;
  bool synthesized = false;  // the file had none; made up in memory, never written
  // The header line exactly as read (a newer version's extra members included), written back
  // unchanged; empty when synthesised or new.
  std::string verbatim;
};

// One line of the log after the header.
struct Entry {
  std::string id;
  std::string parent_id;  // empty: a root of the tree
  EntryType type = EntryType::unknown;
  std::string type_name;  // as written
  std::string timestamp;
  // The payload: every member of the line but id, parent_id, type and timestamp. A message's
  // payload is kept as its exact bytes (fields["message"] is a json::Raw; message_of decodes
  // it), so a loaded log costs about one copy of its text in memory.
  json::Object fields;
  // The exact bytes of an unknown entry's line (without the newline), written back unchanged.
  std::string verbatim;
};

enum class RepairKind : std::uint8_t {
  torn_last_line,   // the last line had no newline (a crash mid-write): dropped
  nul_padding,      // NUL bytes (left by some filesystems after power loss): skipped
  corrupt_line,     // not one JSON object, no id, a repeated id, or a bad payload: skipped
  unknown_type,     // an entry type from a newer version: kept verbatim
  dangling_parent,  // parent_id names no earlier entry: re-parented to the last valid entry
  missing_header,   // line 1 is not a header: one is synthesised in memory only
};
std::string_view to_string(RepairKind kind) noexcept;

struct Repair {
  RepairKind kind;
  std::size_t line = 0;  // 1-based line in the file (0: not tied to a line)
  std::string detail;    // for the person reading the log
};

struct LoadResult {
  Header header;
  std::vector<Entry> entries;  // file order
  std::vector<Repair> repairs;
  // Length of the prefix that ends with the last complete line: where the next append goes.
  std::uint64_t intact_bytes = 0;
};

// Reads a log from its bytes. Never fails: damage is repaired in memory and listed. Only the
// log's structure is repaired; a log ending in an unanswered tool call stays exactly so (making
// it sendable is send-time repair's job).
LoadResult parse_log(std::string_view bytes);
// parse_log over a store's bytes; fails only when the store cannot be read.
Result<LoadResult> load(Store& store);
// The log as JSONL: the header, then every entry (unknown ones byte for byte). Loading the
// output gives back the same entries; the only repairs listed are those of the unknown entries
// kept again byte for byte (their type, and a re-parenting the same as the first load's).
std::string to_jsonl(const LoadResult& log);

// ---- The tree -------------------------------------------------------------------------------

// The root-to-leaf path ending at `leaf`; empty for the empty leaf ("before the first entry")
// or an id that is not in `entries`.
std::vector<const Entry*> branch(std::span<const Entry> entries, std::string_view leaf);
// Ids of entries no other entry names as parent, in file order.
std::vector<std::string> leaves(std::span<const Entry> entries);

// ---- Payload readers ------------------------------------------------------------------------

Result<Message> message_of(const Entry& entry);
Result<ModelRef> model_of(const Entry& entry);
// The level a thinking_level_change sets; nullopt when it records "no level set".
Result<std::optional<ThinkingLevel>> thinking_level_of(const Entry& entry);
Result<std::vector<PendingApproval>> approval_request_of(const Entry& entry);
Result<std::vector<ApprovalDecision>> approval_decisions_of(const Entry& entry);
// The tool_use_id of a tool_call_started entry.
Result<std::string> started_call_of(const Entry& entry);

// A compaction entry: the summary that replaces the older part of the branch in the context,
// where the verbatim part starts, and what the summary replaced. The summarised entries stay in
// the file (summarised_entries lists them).
struct CompactionRecord {
  std::string id;  // the entry's id; empty in a record not yet appended
  std::string summary;
  // The first entry of the branch still sent verbatim after the summary.
  std::string first_kept_entry_id;
  // Entries before the kept point sent verbatim all the same, after the summary and in branch
  // order: the tool calls that read a skill's body, with their results.
  std::vector<std::string> pinned_entry_ids;
  // What the summary replaced: how many messages, and the first and last of those entries.
  std::size_t dropped_messages = 0;
  std::string dropped_from_entry_id;
  std::string dropped_to_entry_id;
  // The estimated size of the request before and after (tokens).
  std::int64_t tokens_before = 0;
  std::int64_t tokens_after = 0;
};
// A compaction entry's record (id included). An entry written with only a summary and a kept
// point reads with the other members empty.
Result<CompactionRecord> compaction_of(const Entry& entry);
// Every compaction on the branch ending at `leaf`, oldest first.
std::vector<CompactionRecord> compactions(std::span<const Entry> entries, std::string_view leaf);
// The entries the compaction `compaction_id` took out of the context: the message, custom and
// branch-summary entries on its branch before its kept point, minus the pinned ones, in branch
// order (an earlier compaction's summarised entries included: the later summary stands for them
// too). Empty when `compaction_id` names no compaction entry.
std::vector<const Entry*> summarised_entries(std::span<const Entry> entries,
                                             std::string_view compaction_id);

// The user-message text a compaction summary is shown to the model as. A model-visible
// contract: changing it changes every resumed conversation.
std::string render_compaction(std::string_view summary);
// The user-message text a branch summary is shown to the model as (same contract).
std::string render_branch_summary(std::string_view summary);

// ---- Resume ---------------------------------------------------------------------------------

// The approval state of a branch's last tool batch, when that batch was held for a person and
// has not been answered in full. A call runs at most once: a call in `started` whose result is
// not in the messages is answered "interrupted", never run again.
struct ApprovalState {
  std::vector<PendingApproval> pending;   // still waiting for a decision, in call order
  std::vector<ApprovalDecision> decided;  // answers already recorded for the batch
  std::vector<std::string> started;       // calls whose handler began (tool_use_ids)
  bool empty() const noexcept { return pending.empty() && decided.empty() && started.empty(); }
};

// What a resumed agent is built from, folded from one branch.
struct Resumed {
  // The context: the branch's messages, with the last compaction applied (its summary, then
  // the entries from first_kept_entry_id on), branch summaries and custom messages rendered as
  // user messages.
  std::vector<Message> messages;
  // The id of the entry each message came from (parallel to `messages`; a compaction's summary
  // comes from the compaction entry).
  std::vector<std::string> entry_ids;
  // The compaction applied to `messages` (the last on the branch), if any: messages[0] is its
  // summary.
  std::optional<CompactionRecord> compaction;
  // The last model_change, or else the provenance of the last assistant message.
  std::optional<ModelRef> model;
  // The level of the last thinking_level_change; nullopt when there is none, or when it
  // recorded an agent with no level set.
  std::optional<ThinkingLevel> thinking;
  // The held batch at the end of the branch (empty when there is none): a session started over
  // the log waits for decisions on `pending`, or finishes the decided batch on its next run.
  ApprovalState approvals;
  // The message entries of the context whose payload is valid JSON but no message the codec
  // reads (a newer role, a missing member): each left out of `messages`, its line still in the
  // log. Kind corrupt_line, line 0, the detail naming the entry and the codec's reason. A
  // session started over the log reports each through ErrorEvent and on_log_error.
  std::vector<Repair> unreadable;
  std::string leaf;
};
Resumed fold(std::span<const Entry> entries, std::string_view leaf);

// ---- Writing --------------------------------------------------------------------------------

// When appended entries are forced to stable storage. Every mode writes each entry to the
// operating system as it is recorded, so a killed process loses at most the line in flight;
// the modes differ on power failure or a kernel crash.
enum class Durability : std::uint8_t {
  every_entry,  // fsync after each entry: nothing appended is lost
  every_turn,   // fsync at end_turn(): at most the turn in flight is lost
  none,         // never fsync: whatever the kernel had not written back is lost
};

// Settings for a new log. Read once by Log::create.
struct CreateOptions {
  // The session id in the header; empty generates a random one.
  std::string id;
  // Recorded in the header; empty records the process's working directory.
  std::string cwd;
  Durability durability = Durability::every_turn;
  // Who holds the writer's lock, shown to a second writer; empty means "pid <n>".
  std::string holder;
};

// Settings for appending to an existing log. Read once by Log::open.
struct OpenOptions {
  Durability durability = Durability::every_turn;
  // As in CreateOptions.
  std::string holder;
};

// A log open for appending: its contents in memory, the store it writes through, and the leaf
// that the next entry hangs from. Appends write through at once; an error is returned, never
// swallowed, and the entry is kept in memory all the same so the conversation can go on.
class Log {
 public:
  // Starts a new log: takes the lock, writes the header now. Errc::already_exists (the existing
  // log untouched) when one is there.
  static Result<Log> create(std::unique_ptr<Store> store, const CreateOptions& options);
  // Opens an existing log: takes the lock, loads it (repairs listed in contents()), cuts a torn
  // last line off so the next append starts on a fresh line, and sets the leaf to the last entry.
  static Result<Log> open(std::unique_ptr<Store> store, const OpenOptions& options);

  Log(Log&&) noexcept;
  Log& operator=(Log&&) noexcept;
  ~Log();

  const LoadResult& contents() const noexcept { return contents_; }
  // The entry the next append hangs from; empty before the first entry.
  const std::string& leaf() const noexcept { return leaf_; }
  const Entry* find(std::string_view id) const;

  // Each append hangs the entry from the leaf, makes it the leaf and answers its id. On a write
  // failure the entry stays in memory (and becomes the leaf) and the error is returned.
  Result<std::string> append_message(const Message& message);
  Result<std::string> append_model_change(const ModelRef& model);
  // nullopt records "no level set": an agent that leaves the level to the provider.
  Result<std::string> append_thinking_level(std::optional<ThinkingLevel> level);
  // Errc::not_found (nothing appended) when `first_kept_entry_id` is not on the current branch.
  Result<std::string> append_compaction(std::string_view summary,
                                        std::string_view first_kept_entry_id);
  // The same with the whole record (its `id` is ignored); a pinned entry must be on the branch
  // before the kept point, or nothing is appended (Errc::not_found).
  Result<std::string> append_compaction(const CompactionRecord& record);
  Result<std::string> append_custom_message(std::string_view custom_type,
                                            std::string_view content);
  // Appends a model_change only when `model` differs from what fold() recovers for the leaf:
  // a different model over an existing log is recorded, the same one is not repeated. Answers
  // whether an entry was appended.
  Result<bool> record_model(const ModelRef& model);
  // The same for the thinking level: appends a thinking_level_change only when `level` differs
  // from what fold() recovers for the leaf (nullopt, "no level set", included).
  Result<bool> record_thinking(std::optional<ThinkingLevel> level);
  // The human-in-the-loop entries: a held batch's pending calls, the decisions taken on them,
  // and the marker written before a held batch's handler starts (so a later process never runs
  // a call twice).
  Result<std::string> append_approval_request(std::span<const PendingApproval> calls);
  Result<std::string> append_approval_decision(std::span<const ApprovalDecision> decisions);
  Result<std::string> append_tool_call_started(std::string_view tool_use_id,
                                               std::string_view tool_name);

  // Moves the leaf to `entry_id` (empty: before the first entry); the next append starts a new
  // branch there. Nothing is written. Errc::not_found for an unknown id.
  Result<void> fork(std::string_view entry_id);
  // Leaves the current branch for `entry_id`, recording what was done on it: fork(entry_id),
  // then a branch_summary entry hung there. Answers the summary entry's id.
  Result<std::string> leave_branch(std::string_view entry_id, std::string_view summary);

  // The end of a turn: fsync under Durability::every_turn, nothing otherwise. The loop also
  // calls it after writing tool_call_started markers, before the handlers run.
  Result<void> end_turn();

 private:
  Log(std::unique_ptr<Store> store, Durability durability);
  // A new entry hung from the leaf: a fresh id, the type and the time; no payload yet.
  Entry next_entry(EntryType type);
  Result<std::string> append_entry(EntryType type, json::Object payload);
  // Adds the entry to the log in memory, makes it the leaf and writes its line.
  Result<std::string> commit(Entry entry, std::string_view line);

  std::unique_ptr<Store> store_;
  Durability durability_ = Durability::every_turn;
  LoadResult contents_;
  std::string leaf_;
  struct Index;
  std::unique_ptr<Index> index_;
};

}  // namespace agentkit::session
