// list_files, find_files and search_files as ToolDefinitions over the engines of search.hpp.
#include <map>
#include <utility>

#include "agentkit/tools/coding_tools.hpp"
#include "tool_support.hpp"

namespace agentkit::tools {
using detail::count;

namespace {

constexpr std::string_view kFolderHelp = "Folder relative to the workspace root (default: the root)";
// REQ-TOOL-04 defaults.
constexpr std::int64_t kListLimit = 500;
constexpr std::int64_t kFindLimit = 1000;
constexpr std::int64_t kMaxMatches = 100;
// More context than this per match floods the 50 KB cap with little gain.
constexpr std::int64_t kMaxContextLines = 20;

std::string lines_with_marker(const std::vector<std::string>& lines, const std::string& marker) {
  std::string text;
  for (const auto& l : lines) text.append(l).append("\n");
  if (!marker.empty()) text += marker;
  return text;
}

json::Array strings_of(const std::vector<std::string>& v) {
  json::Array out;
  out.reserve(v.size());
  for (const auto& s : v) out.emplace_back(s);
  return out;
}

FileType file_type_of(std::string_view name) {
  if (name == "directory") return FileType::directory;
  if (name == "any") return FileType::any;
  return FileType::file;
}

// ---- search_files text: ripgrep's layout, one line printed once --------------------------------

struct PrintedLine {
  std::string text;
  bool is_match = false;
};

// Renders the matches of one file: a line shared by two contexts (or a context that is also a
// match) appears once, and "--" separates groups that are not adjacent.
void render_file(std::string& out, const std::string& file, const std::map<std::size_t, PrintedLine>& lines) {
  std::size_t previous = 0;
  for (const auto& [n, line] : lines) {
    if (previous != 0 && n != previous + 1) out += "--\n";
    out.append(file).append(line.is_match ? ":" : "-").append(std::to_string(n));
    out.append(line.is_match ? ":" : "-").append(line.text).append("\n");
    previous = n;
  }
}

std::string render_search(const SearchResult& result) {
  if (result.matches.empty()) return "No matches found.\n" + result.marker;
  std::string out;
  std::size_t k = 0;
  while (k < result.matches.size()) {
    const std::string& file = result.matches[k].file;
    std::map<std::size_t, PrintedLine> lines;
    for (; k < result.matches.size() && result.matches[k].file == file; ++k) {
      const SearchMatch& m = result.matches[k];
      for (std::size_t b = 0; b < m.before.size(); ++b) lines.emplace(m.line - m.before.size() + b, PrintedLine{m.before[b], false});
      for (std::size_t a = 0; a < m.after.size(); ++a) lines.emplace(m.line + 1 + a, PrintedLine{m.after[a], false});
      lines[m.line] = PrintedLine{m.text, true};
    }
    if (!out.empty()) out += "--\n";
    render_file(out, file, lines);
  }
  return out + result.marker;
}

json::Value search_data(const SearchResult& result) {
  json::Array matches;
  matches.reserve(result.matches.size());
  for (const SearchMatch& m : result.matches) {
    matches.emplace_back(json::Object{{"file", m.file},
                                      {"line", count(m.line)},
                                      {"text", m.text},
                                      {"before", strings_of(m.before)},
                                      {"after", strings_of(m.after)}});
  }
  return json::Object{{"matches", std::move(matches)},
                      {"truncated", result.truncated},
                      {"files_searched", count(result.files_searched)}};
}

}  // namespace

ToolDefinition list_files_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      optional("path", string().describe(std::string(kFolderHelp))),
      optional("limit", integer().minimum(1).describe("Most entries to return (default 500)")),
  });
  IgnoreOptions ignore = options.search.ignore;
  auto handler = [ws, ignore](const json::Value& args, const ToolContext&) -> ToolResult {
    ListRequest request;
    request.path = detail::string_arg(args, "path", ".");
    request.limit = static_cast<std::size_t>(detail::int_arg(args, "limit").value_or(kListLimit));
    auto listed = tools::list_files(ws, request, ignore);
    if (!listed) return ToolResult::failure(listed.error());
    ToolResult r = ToolResult::text_result(listed->entries.empty() ? "[The folder is empty.]"
                                                                   : lines_with_marker(listed->entries, listed->marker));
    r.data = json::Object{{"entries", strings_of(listed->entries)}, {"truncated", listed->truncated}};
    r.metadata.set("count", count(listed->entries.size()));
    r.metadata.set("truncated", listed->truncated);
    return r;
  };
  return ToolDefinition{
      .name = "list_files",
      .description =
          "List one folder's entries (not recursive), in name order; folders end in '/'. Entries ignored by "
          ".gitignore rules are left out. At most `limit` entries (default 500).",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines = "Use list_files to look around a folder; use find_files to locate files by name.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition find_files_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      required("pattern", string().describe(
                              "Glob: * and ? stay within a folder, ** spans folders, {a,b} alternatives (nestable), "
                              "[abc] [!x] sets. Without '/', it matches file names anywhere in the tree")),
      optional("path", string().describe(std::string(kFolderHelp))),
      optional("file_type", enumeration({"file", "directory", "any"}).describe("What to list (default: file)")),
      optional("limit", integer().minimum(1).describe("Most results (default 1000)")),
  });
  IgnoreOptions ignore = options.search.ignore;
  auto handler = [ws, ignore](const json::Value& args, const ToolContext& ctx) -> ToolResult {
    FindRequest request;
    request.pattern = detail::string_arg(args, "pattern");
    request.path = detail::string_arg(args, "path", ".");
    request.file_type = file_type_of(detail::string_arg(args, "file_type", "file"));
    request.limit = static_cast<std::size_t>(detail::int_arg(args, "limit").value_or(kFindLimit));
    auto found = tools::find_files(ws, request, ignore, ctx.stop);
    if (!found) return ToolResult::failure(found.error());
    ToolResult r = ToolResult::text_result(found->files.empty()
                                               ? "No files found matching '" + request.pattern + "'."
                                               : lines_with_marker(found->files, found->marker));
    r.data = json::Object{{"files", strings_of(found->files)}, {"truncated", found->truncated}};
    r.metadata.set("count", count(found->files.size()));
    r.metadata.set("truncated", found->truncated);
    return r;
  };
  return ToolDefinition{
      .name = "find_files",
      .description =
          "Find files (or folders) whose path matches a glob, honouring .gitignore rules. Paths come back "
          "relative to the workspace root, in tree order; at most `limit` (default 1000).",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines = "Use find_files instead of `find` through execute: it honours .gitignore and caps output.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition search_files_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      required("pattern", string().describe("Regular expression (ripgrep syntax; no look-around or backreferences)")),
      optional("path", string().describe("Folder or file to search, relative to the workspace root (default: the root)")),
      optional("context_lines", integer().minimum(0).maximum(static_cast<double>(kMaxContextLines))
                                    .describe("Lines of context before and after each match (default 0)")),
      optional("file_glob", string().describe("Only files whose path (relative to `path`) matches this glob, e.g. **/*.{cpp,hpp}")),
      optional("case_sensitive", boolean().describe("Default: smart case (insensitive unless the pattern has an upper-case letter)")),
      optional("max_matches", integer().minimum(1).describe("Most matches to return (default 100)")),
  });
  SearchOptions search = options.search;
  auto handler = [ws, search](const json::Value& args, const ToolContext& ctx) -> ToolResult {
    SearchRequest request;
    request.pattern = detail::string_arg(args, "pattern");
    request.path = detail::string_arg(args, "path", ".");
    request.context_lines = static_cast<std::size_t>(detail::int_arg(args, "context_lines").value_or(0));
    if (const json::Value* g = args.find("file_glob"); g && g->is_string()) request.file_glob = g->as_string();
    request.case_sensitive = detail::bool_arg(args, "case_sensitive");
    request.max_matches = static_cast<std::size_t>(detail::int_arg(args, "max_matches").value_or(kMaxMatches));
    auto found = tools::search_files(ws, request, search, ctx.stop);
    if (!found) return ToolResult::failure(found.error());
    ToolResult r = ToolResult::text_result(render_search(*found));
    r.data = search_data(*found);
    r.metadata.set("backend", found->backend);
    r.metadata.set("matches", count(found->matches.size()));
    r.metadata.set("files_searched", count(found->files_searched));
    r.metadata.set("files_with_matches", count(found->files_with_matches));
    r.metadata.set("truncated", found->truncated);
    if (found->truncated_by) r.metadata.set("truncated_by", *found->truncated_by);
    return r;
  };
  return ToolDefinition{
      .name = "search_files",
      .description =
          "Search file contents with a regular expression, honouring .gitignore rules and skipping binary "
          "files. Results read like ripgrep: `path:line:text` for matches, `path-line-text` for context. At "
          "most `max_matches` matches (default 100), 500 characters per line and 50 KB in total.",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines =
          "Use search_files rather than grep or rg through execute; narrow with path and file_glob when "
          "results are truncated.",
      .origin = std::string(kBuiltinOrigin),
  };
}

}  // namespace agentkit::tools
