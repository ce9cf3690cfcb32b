// agentkit/audit.hpp — the audit trail: an append-only, hash-chained JSONL record of what an
// agent did (runs, model calls with usage and cost, tool calls, loaded skills), and its offline
// verifier.
//
//   auto trail = agentkit::audit::open_file("audit.jsonl").value();  // creates or continues
//   agentkit::RuntimeConfig rt;
//   rt.observability.audit = trail;                // every session of the agent writes to it
//   ...
//   agentkit::audit::Report r = agentkit::audit::verify_file("audit.jsonl").value();
//   for (const auto& p : r.problems) std::cerr << "line " << p.line << ": " << p.detail << "\n";
//
// One record per line, members in this order: {"seq","type","t",...facts,"prev","hash"}.
//   seq   1, 2, 3, ... across the whole file (a continued file goes on counting)
//   t     milliseconds since the Unix epoch (the agent's clock)
//   prev  the previous record's hash (64 zeros for the first)
//   hash  SHA-256, lowercase hex, of the line's bytes up to (not including) `,"hash":`
// Types: session_start {session_id, provider, model, skills}, session_end {session_id, reason,
// usage, error}, model_call {session_id, model, stop_reason, usage, error},
// tool_call {session_id, tool, server (MCP tools), arguments_sha256, outcome, error_code,
// duration_ms, approval}, skill_loaded {session_id, skill}. Tool arguments and results are never
// written, only the SHA-256 of the argument bytes the model sent.
//
// A failing sink (an error or a throw) never ends the run: the failure reaches observers and
// subscribers as an ErrorEvent, and the record is lost (the chain skips nothing: the next record
// links to the last one written).
//
// Thread safety: a Trail serialises its appends under its own mutex; one Trail may be shared by
// every session and agent of a process. A Sink is called under that mutex, one append at a time.
// verify() and verify_file() are pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::audit {

// Where the lines go. The file sink of open_file() is the usual one; a test or an embedder that
// ships records elsewhere writes its own.
class Sink {
 public:
  virtual ~Sink() = default;
  // Appends one record line (with its trailing '\n'). May fail or throw; either is reported.
  virtual Result<void> append(std::string_view line) = 0;
};

// The chain state and the sink. Made by open_file() or make_trail().
class Trail {
 public:
  // `last_seq`/`last_hash`: where the chain continues (0 and "" for a new chain).
  Trail(std::shared_ptr<Sink> sink, std::uint64_t last_seq, std::string last_hash);

  // Writes one record of `type` whose facts are `members` (a JSON object body without braces,
  // e.g. `"tool":"read"`, possibly empty) stamped with `unix_ms`. Answers the failure of the sink.
  Result<void> append(std::string_view type, std::string_view members, std::int64_t unix_ms);

  std::uint64_t last_seq() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<Sink> sink_;
  std::uint64_t seq_;
  std::string prev_;  // 64 hex
  std::string line_;  // reused buffer
};

// A trail over any sink, starting a new chain.
std::shared_ptr<Trail> make_trail(std::shared_ptr<Sink> sink);

// Opens `path` for appending, creating it if absent. An existing file continues its chain from
// its last whole record; a torn last line (a writer died mid-record) is cut off first, as the
// session log does, and the number of bytes cut is the `torn_bytes_cut` fact of the next
// record. Fails (naming the file) when the file cannot be opened or its last record has no
// readable seq/hash.
Result<std::shared_ptr<Trail>> open_file(const std::filesystem::path& path);

// ---- Verification (offline) -------------------------------------------------------------------

struct Problem {
  enum class Kind : std::uint8_t {
    malformed,    // not a record (bad JSON, missing seq/prev/hash, over the length bound)
    changed,      // its hash does not match its bytes
    removed,      // seq jumps forward: records are missing before this one
    reordered,    // seq goes backwards or repeats
    broken_link,  // prev is not the previous record's hash (an edit or a splice)
    torn,         // the file ends inside a record (no final newline)
  };
  Kind kind = Kind::malformed;
  std::size_t line = 0;   // 1-based line number in the file
  std::uint64_t seq = 0;  // the record's seq when it could be read, else 0
  std::string detail;
};

struct VerifyOptions {
  // A line longer than this is reported malformed without being parsed. Default 1 MiB.
  std::size_t max_line_bytes = std::size_t(1) << 20;
  // At most this many problems are listed (the count goes on). Default 1000.
  std::size_t max_problems = 1000;
};

struct Report {
  std::size_t records = 0;  // whole lines read as records
  std::size_t problem_count = 0;
  std::vector<Problem> problems;
  bool ok() const noexcept { return problem_count == 0; }
};

// Checks a whole file's bytes: every hash, every link, the seq order, the final newline.
Report verify(std::string_view bytes, const VerifyOptions& options = {});
// Reads `path` and verifies it; fails only when the file cannot be read.
Result<Report> verify_file(const std::filesystem::path& path, const VerifyOptions& options = {});

std::string_view kind_name(Problem::Kind kind) noexcept;

}  // namespace agentkit::audit
