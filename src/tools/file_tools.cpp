// read_file, write_file and edit_file as ToolDefinitions over the engines of files.hpp/edit.hpp,
// with write_file and edit_file serialised per file by the mutation queue (REQ-LOOP-12).
#include <memory>
#include <utility>

#include "agentkit/tools/coding_tools.hpp"
#include "agentkit/tools/edit.hpp"
#include "tool_support.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;
using detail::count;

namespace {

constexpr std::string_view kPathHelp =
    "File path, relative to the workspace root (absolute paths inside the workspace also work)";

std::shared_ptr<FileMutationQueue> queue_of(const CodingToolsOptions& options) {
  return options.mutation_queue ? options.mutation_queue : std::make_shared<FileMutationQueue>();
}

// ---- read_file ----------------------------------------------------------------------------------

ToolResult image_result(const Workspace& ws, const FileContent& file) {
  const ImageContent& image = *file.image;
  ToolResult r = ToolResult::text_result("Image file " + ws.relative(file.path) + " (" + image.mime_type + ", " +
                                         format_size(image.bytes) + "), attached below.");
  r.images.push_back(ImageBlock{image.mime_type, image.base64});
  r.data = json::Object{{"encoding", "base64"}, {"mime_type", image.mime_type}};
  r.metadata.set("path", file.path.string());
  r.metadata.set("mime_type", image.mime_type);
  r.metadata.set("bytes", count(image.bytes));
  return r;
}

ToolResult text_file_result(const FileContent& file) {
  const TextContent& t = *file.text;
  const bool empty = t.first_line == 0 && !t.more_available;
  ToolResult r = ToolResult::text_result(empty ? "[The file is empty.]" : t.content);
  r.data = json::Object{{"content", t.content}, {"encoding", "utf-8"}};
  r.metadata.set("path", file.path.string());
  r.metadata.set("first_line", count(t.first_line));
  r.metadata.set("last_line", count(t.last_line));
  if (t.total_lines) r.metadata.set("total_lines", count(*t.total_lines));
  r.metadata.set("truncated", t.more_available);
  if (t.truncated_by) r.metadata.set("truncated_by", *t.truncated_by);
  return r;
}

// ---- edit_file ----------------------------------------------------------------------------------

std::vector<Edit> edits_of(const json::Value& args) {
  std::vector<Edit> edits;
  if (const json::Value* list = args.find("edits"); list && list->is_array()) {
    for (const json::Value& e : list->as_array()) {
      edits.push_back({detail::string_arg(e, "old_string"), detail::string_arg(e, "new_string")});
    }
  }
  return edits;
}

Schema edit_schema() {
  using namespace schema;
  Schema one = object({
      required("old_string", string().describe("Exact text to replace, found in the ORIGINAL file; must occur exactly once")),
      required("new_string", string().describe("Replacement text")),
  });
  return object({
      required("path", string().describe(std::string(kPathHelp))),
      required("edits", array(std::move(one)).min_items(1).describe(
                            "Replacements, all applied at once; each old_string is matched against the original "
                            "file, never against the result of an earlier edit")),
  });
}

}  // namespace

ToolDefinition read_file_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      required("path", string().describe(std::string(kPathHelp))),
      optional("offset", integer().minimum(0).describe("First line to read, 1-based (0 reads from line 1)")),
      optional("limit", integer().minimum(1).describe("Most lines to return (at most 2000)")),
  });
  ReadOptions read = options.read;
  auto handler = [ws, read](const json::Value& args, const ToolContext&) -> ToolResult {
    ReadRequest request;
    request.offset = static_cast<std::size_t>(detail::int_arg(args, "offset").value_or(0));
    if (auto limit = detail::int_arg(args, "limit")) request.limit = static_cast<std::size_t>(*limit);
    auto file = tools::read_file(ws, detail::string_arg(args, "path"), request, read);
    if (!file) return ToolResult::failure(file.error());
    return file->image ? image_result(ws, *file) : text_file_result(*file);
  };
  return ToolDefinition{
      .name = "read_file",
      .description =
          "Read a text file with line numbers (the `cat -n` layout), or an image file (PNG, JPEG, GIF, WebP). "
          "Returns at most 2000 lines or 50 KB, keeping the start; when more remains, the text ends with a "
          "marker naming the offset to continue from.",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines =
          "Read a file before you edit it. Read long files in pieces with offset and limit instead of "
          "dumping them through execute.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition write_file_tool(const Workspace& ws, const CodingToolsOptions& options) {
  using namespace schema;
  Schema input = object({
      required("path", string().describe(std::string(kPathHelp))),
      required("content", string().describe("The complete new content of the file")),
  });
  auto handler = [ws, queue = queue_of(options), before = options.before_mutation](
                     const json::Value& args, const ToolContext& ctx) -> ToolResult {
    const std::string path = detail::string_arg(args, "path");
    auto resolved = ws.resolve(path);
    if (!resolved) return ToolResult::failure(resolved.error());
    auto held = queue->lock(*resolved, ctx.stop);
    if (!held) return ToolResult::failure(held.error());
    if (before) before(*resolved);
    auto written = write_file_atomically(*resolved, detail::string_arg(args, "content"));
    if (!written) return ToolResult::failure(written.error());
    ToolResult r = ToolResult::text_result("Wrote " + std::to_string(written->bytes) + " bytes to " +
                                           ws.relative(written->path) + (written->created ? " (new file)." : "."));
    r.data = json::Object{{"written", true}, {"bytes", count(written->bytes)}};
    r.metadata.set("path", written->path.string());
    r.metadata.set("bytes", count(written->bytes));
    r.metadata.set("created", written->created);
    return r;
  };
  return ToolDefinition{
      .name = "write_file",
      .description =
          "Create or overwrite a file with the given content. Missing parent folders are created; the file "
          "is replaced atomically and keeps its permissions.",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines =
          "Use write_file for new files or complete rewrites; prefer edit_file for changes to an existing file.",
      .origin = std::string(kBuiltinOrigin),
  };
}

ToolDefinition edit_file_tool(const Workspace& ws, const CodingToolsOptions& options) {
  Schema input = edit_schema();
  auto handler = [ws, queue = queue_of(options), before = options.before_mutation](
                     const json::Value& args, const ToolContext& ctx) -> ToolResult {
    const std::string path = detail::string_arg(args, "path");
    auto resolved = ws.resolve(path);
    if (!resolved) return ToolResult::failure(resolved.error());
    auto held = queue->lock(*resolved, ctx.stop);
    if (!held) return ToolResult::failure(held.error());
    if (before) before(*resolved);
    auto edited = tools::edit_file(ws, path, edits_of(args));
    if (!edited) return ToolResult::failure(edited.error());
    std::string text = "Applied " + std::to_string(edited->edits_applied) +
                       (edited->edits_applied == 1 ? " edit to " : " edits to ") + ws.relative(edited->path) + ".";
    if (edited->match == EditMatch::folded) {
      text += " Some old_string needed whitespace/punctuation-tolerant matching; re-read the file if unsure.";
    }
    ToolResult r = ToolResult::text_result(std::move(text));
    r.data = json::Object{{"edits_applied", count(edited->edits_applied)}};
    r.metadata.set("path", edited->path.string());
    r.metadata.set("edits_applied", count(edited->edits_applied));
    r.metadata.set("match", edited->match == EditMatch::exact ? "exact" : "folded");
    r.metadata.set("bytes", count(edited->bytes));
    return r;
  };
  return ToolDefinition{
      .name = "edit_file",
      .description =
          "Edit a file by exact text replacement. Every old_string is matched against the ORIGINAL file "
          "(never against the result of an earlier edit in the same call) and must occur exactly once; "
          "there is no replace-all. Overlapping edits are rejected. The batch is all or nothing: if any edit "
          "fails, nothing is written. Line endings and a byte-order mark are kept.",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines =
          "Copy old_string exactly from read_file output (without the line-number prefix) and include enough "
          "surrounding lines to make it unique.",
      .origin = std::string(kBuiltinOrigin),
  };
}

}  // namespace agentkit::tools
