// agentkit/tools/edit.hpp — the edit_file engine.
//
//   using namespace agentkit::tools;
//   std::vector<Edit> edits = {{"int a = 1;", "int a = 2;"}, {"return a;", "return a + 1;"}};
//   auto r = edit_file(workspace, "src/x.cpp", edits);     // all or nothing
//   auto s = apply_edits("A B", {{"A", "B"}, {"B", "C"}});  // "B C": each edit sees the ORIGINAL
//
// The contract (the tool description must say the first point):
// - Every old_string is located in the ORIGINAL content, never in the output of an earlier edit
//   of the same call.
// - A batch is all or nothing: a rejection writes nothing. Rejections are checked rule by rule
//   over the whole batch, in this fixed order, and the first rule that fails names the lowest
//   edit index it failed on (so one input always yields one message):
//     1. edit_empty / edit_empty_old_string — no edits, or an empty old_string;
//     2. edit_not_found — an old_string matches nowhere (exactly, nor in the tolerant pass);
//     3. edit_not_unique — an old_string matches more than once: "Found N occurrences of the
//        string to replace. The text must be unique. Please provide more context to make it
//        unique." There is no replace-all;
//     4. edit_overlap — two matched ranges overlap (touching ranges are fine);
//     5. edit_noop — the result is byte-identical to the input.
//   The code is in Error::detail("code"), the edit's index in detail("edit").
// - A leading UTF-8 BOM and CRLF line endings are kept: matching runs on the BOM-less, LF form
//   (a file is CRLF when it has CRLF and no bare LF; a mixed file is matched as it is), and the
//   BOM and CRLF are restored on write. Edits written with CRLF are folded the same way.
// - The tolerant pass runs only when exact matching found no match for some edit.
//   An edit with an exact match keeps it — an exact match always beats a folded one. The others
//   are matched at line granularity: every line of old_string must equal a run of whole file
//   lines after folding both sides; folding trims trailing whitespace and maps confusables to
//   ASCII (curly quotes, dashes and minus, non-breaking and other exotic spaces, the ellipsis,
//   full-width ASCII, zero-width space). Leading indentation is never folded. A matched block is
//   replaced line by line: lines that new_string leaves as old_string had them keep the file's
//   exact bytes, so a curly quote on an unchanged line stays curly. If any edit is still
//   unmatched, the whole batch is rejected.
//
// Thread safety: reentrant. Serialising edits of one file is the agent's mutation queue's job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/tools/workspace.hpp"

namespace agentkit::tools {

struct Edit {
  std::string old_string;
  std::string new_string;
};

enum class EditMatch : std::uint8_t {
  exact,   // every edit matched exactly
  folded,  // at least one edit needed the tolerant pass
};

struct EditOutcome {
  std::string content;  // the new file content (BOM and line endings restored)
  std::size_t edits_applied = 0;
  EditMatch match = EditMatch::exact;
};

// The pinned rule-3 message for N occurrences.
std::string not_unique_message(std::size_t occurrences);

// The pure engine: applies `edits` to `original` or explains the first rejection.
// Errors: invalid_argument with detail code=edit_* and edit=<index>.
Result<EditOutcome> apply_edits(std::string_view original, const std::vector<Edit>& edits);

struct EditFileResult {
  std::filesystem::path path;
  std::size_t edits_applied = 0;
  EditMatch match = EditMatch::exact;
  std::uint64_t bytes = 0;
};

// Reads the file, applies the edits, writes atomically keeping the mode. Errors: those of
// apply_edits (the file is untouched), plus permission_denied / not_found / io_error.
Result<EditFileResult> edit_file(const Workspace& workspace, std::string_view path, const std::vector<Edit>& edits);

// The fold used by the tolerant pass, exposed for tests and the fuzzer: confusables mapped to
// ASCII, then trailing whitespace trimmed. Leading whitespace is left exactly as it is.
std::string fold_line(std::string_view line);

}  // namespace agentkit::tools
