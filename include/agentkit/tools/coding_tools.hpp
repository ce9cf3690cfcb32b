// agentkit/tools/coding_tools.hpp — the built-in coding tools as ordinary ToolDefinitions.
//
//   using namespace agentkit;
//   auto ws = tools::Workspace::open("/home/me/project").value();
//   AgentDefinition def{.instructions = "You maintain this repository.", .skills = {},
//                       .tools = {.direct = tools::coding_tools(ws), .mcp = {}}};
//   RuntimeConfig rt;
//   rt.extensions.before_tool_call = tools::restricted_policy();   // required: execute is in the set
//   auto agent = make_agent(std::move(def), std::move(rt));
//
//   // or one tool at a time:
//   std::vector<ToolDefinition> read_only = {tools::read_file_tool(ws), tools::search_files_tool(ws)};
//
// The default set, in this order: read_file, write_file, edit_file, list_files, find_files,
// search_files, execute, run_command, powershell. fetch_url is NOT in it (fetch.hpp). Every tool
// has origin "builtin", a schema built with the combinators, a description stating its caps, and
// prompt_guidelines. execute and run_command and powershell are
// ExecutionMode::sequential: commands can touch anything, so a batch holding one runs one call at
// a time.
//
// What the model reads (ToolResult::text) and what it does not (ToolResult::metadata):
//   read_file     numbered lines ending with the continuation marker; an image file gives a one-line
//                 note plus an image block. metadata: path, first_line, last_line, total_lines,
//                 truncated, truncated_by ("lines"|"bytes"); images: mime_type, bytes.
//   write_file    "Wrote N bytes to <path>." metadata: path, bytes, created.
//   edit_file     "Applied N edit(s) to <path>." (+ a note when the whitespace-tolerant pass was
//                 needed). metadata: path, edits_applied, match ("exact"|"folded"), bytes.
//   list_files    one entry per line (folders end in '/'), then the marker. metadata: count, truncated.
//   find_files    one path per line, then the marker; "No files found ..." when empty.
//                 metadata: count, truncated.
//   search_files  ripgrep's layout: "path:line:text" for a match, "path-line-text" for context, "--"
//                 between non-adjacent groups, then the marker. metadata: backend, matches,
//                 files_searched, files_with_matches, truncated, truncated_by.
//   execute, run_command, powershell
//                 the output (tail, 50 KB) with the truncation marker naming the spill file, then
//                 one status line: "[exit code N]", "[timed out after S s; process group killed]"
//                 or "[aborted; process group killed]". metadata: outcome, exit_code, duration_ms,
//                 truncated, truncated_by, total_bytes, spill_file, program.
// ToolResult::data carries the same facts as a structured value for after_tool_call and
// embedders (read_file {content, encoding}, write_file {written, bytes}, edit_file
// {edits_applied}, list_files {entries, truncated}, find_files {files, truncated}, search_files
// {matches[{file, line, text, before, after}], truncated, files_searched}, the shell tools
// {exit_code, outcome, output}); it is not sent to the model.
// A failure is ToolResult::failure (core/tool.hpp) with a stable code — path_not_allowed,
// not_found, binary_file, edit_empty, edit_empty_old_string, edit_not_found, edit_not_unique,
// edit_overlap, edit_noop, exec_failed, timeout, aborted, invalid_arguments, unsupported,
// io_error, limit_exceeded — and the model reading the message (which says what to do instead).
//
// Paths: every path argument goes through Workspace::resolve (symlinks resolved before the
// containment check); the shell tools are NOT path-constrained (a shell reaches whatever the
// process can) and run in the workspace root with reduced_environment() (process.hpp).
//
// Thread safety: the returned definitions are values; their handlers may run concurrently with
// themselves and with each other (write_file/edit_file serialise per file through the shared
// FileMutationQueue).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "agentkit/core/tool.hpp"
#include "agentkit/tools/files.hpp"
#include "agentkit/tools/mutation_queue.hpp"
#include "agentkit/tools/process.hpp"
#include "agentkit/tools/search.hpp"
#include "agentkit/tools/workspace.hpp"

namespace agentkit::tools {

// The origin every built-in tool carries (named when two tools collide in make_agent).
inline constexpr std::string_view kBuiltinOrigin = "builtin";

struct CodingToolsOptions {
  // Serialises write_file and edit_file per file. nullptr: coding_tools() creates
  // one shared by its two mutating tools; a single write_file_tool()/edit_file_tool() call
  // creates its own (pass the same queue to tools built separately so they serialise together).
  std::shared_ptr<FileMutationQueue> mutation_queue{};
  // Called with the file's mutation lock held, just before write_file or edit_file changes it,
  // with the resolved path (e.g. to snapshot the file for an undo log). Empty: nothing is called.
  std::function<void(const std::filesystem::path& resolved)> before_mutation{};
  // read_file's caps (2000 lines / 50 KB).
  ReadOptions read{};
  // search_files' backend and caps; its `ignore` settings also drive list_files and find_files.
  SearchOptions search{};
  // The shell tools' settings. An empty cwd means the workspace root (the embedder
  // may change it, the model never can); environment nullopt means reduced_environment().
  // timeout is the default when a call gives no timeout_s (nullopt: none).
  ProcessOptions process{};
};

ToolDefinition read_file_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition write_file_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition edit_file_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition list_files_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition find_files_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition search_files_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition execute_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition run_command_tool(const Workspace& workspace, const CodingToolsOptions& options = {});
ToolDefinition powershell_tool(const Workspace& workspace, const CodingToolsOptions& options = {});

// The default set (see above), sharing one mutation queue.
std::vector<ToolDefinition> coding_tools(const Workspace& workspace, CodingToolsOptions options = {});

}  // namespace agentkit::tools
