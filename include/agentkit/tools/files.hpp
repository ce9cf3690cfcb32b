// agentkit/tools/files.hpp — the read_file and write_file engines: caps and truncation
// markers, image and binary detection by magic bytes, workspace containment.
//
//   using namespace agentkit::tools;
//   auto ws = Workspace::open("/home/me/project").value();
//   auto r = read_file(ws, "src/main.cpp", ReadRequest{.offset = 2001});
//   if (r && r->text) std::cout << r->text->content << r->text->marker;
//   if (r && r->image) send_image(r->image->mime_type, r->image->base64);
//   auto w = write_file(ws, "notes/todo.md", "- ship it\n");   // creates notes/, atomic
//
// read_file:
// - Text comes back line-numbered ("     1\tfirst line", the `cat -n` layout), from line
//   `offset` (1-based; 0 reads as 1) for at most `limit` lines. Two caps compose: 2000 lines and
//   50 KB (51,200 bytes) of returned text, keeping the head; `truncated_by` says which fired.
// - Whenever more of the file remains, the text ends with a marker naming the exact call that
//   reads on: "[Showing lines 1-2000 of 8000. Use offset=2001 to continue.]" (the total is left
//   out for files past kLineCountScanLimit rather than reading them whole).
// - A line that alone exceeds the byte cap gets its own marker:
//   "[Line 3 is 1.2MB, exceeds 50.0KB limit. Use execute: sed -n '3p' <path> | head -c 51200]".
// - The file is streamed, never read whole: a 10 GB file costs what the requested lines cost.
// - PNG, JPEG, GIF and WebP are recognised by their magic bytes (not the extension) and returned
//   as image data: MIME type + base64. Other files with a NUL byte in their first 8000 bytes
//   (git's binary heuristic) are refused as binary. Invalid UTF-8 is shown as U+FFFD.
// write_file:
// - Creates missing parent folders, writes a temporary file in the same folder, fsyncs it and
//   renames it over the target, so a reader sees the old bytes or the new, never a mix. An
//   existing file keeps its permission bits (and, where allowed, its owner); a new one gets
//   0666 minus the umask.
//
// Thread safety: reentrant. Concurrent writes to one path are serialised by the agent's mutation
// queue, not here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/tools/workspace.hpp"

namespace agentkit::tools {

struct ReadRequest {
  // First line to return, 1-based; 0 is read as 1.
  std::size_t offset = 0;
  // At most this many lines; nullopt: up to the line cap.
  std::optional<std::size_t> limit;
};

struct ReadOptions {
  // 2000 lines and 50 KB, whichever comes first.
  std::size_t max_lines = 2000;
  std::size_t max_bytes = 50 * 1024;
  // Files up to this size are scanned to the end to count their lines for the marker.
  std::uint64_t line_count_scan_limit = kLineCountScanLimit;
  // Image files larger than this are refused rather than base64-encoded into the context.
  std::uint64_t max_image_bytes = 20u << 20;

  static constexpr std::uint64_t kLineCountScanLimit = 64u << 20;
};

struct TextContent {
  std::string content;                  // numbered lines, '\n'-terminated, plus the marker
  std::size_t first_line = 0;           // 1-based; 0 when no line was returned
  std::size_t last_line = 0;            // inclusive
  std::optional<std::size_t> total_lines;  // when known
  bool more_available = false;          // lines remain after last_line
  std::optional<std::string> truncated_by;  // "lines" or "bytes" when a cap fired
  std::string marker;                   // the continuation marker (also at the end of content)
};

struct ImageContent {
  std::string mime_type;  // image/png, image/jpeg, image/gif, image/webp
  std::string base64;     // the file's bytes, standard alphabet, padded
  std::uint64_t bytes = 0;
};

struct FileContent {
  std::filesystem::path path;  // resolved
  std::optional<TextContent> text;
  std::optional<ImageContent> image;
};

// Errors: permission_denied (outside the workspace); not_found; invalid_argument for a folder
// (use list_files) or an offset past the end; unsupported with detail code=binary_file for a
// binary file; limit_exceeded for an image over max_image_bytes; io_error.
Result<FileContent> read_file(const Workspace& workspace, std::string_view path,
                              const ReadRequest& request = {}, const ReadOptions& options = {});

// The MIME type when `head` (a file's first bytes) starts with a known image signature.
std::optional<std::string> sniff_image_type(std::string_view head);

struct WriteResult {
  std::filesystem::path path;  // resolved
  std::uint64_t bytes = 0;
  bool created = false;  // the file did not exist before
};

// Errors: permission_denied; invalid_argument when the path is a folder; io_error.
Result<WriteResult> write_file(const Workspace& workspace, std::string_view path, std::string_view content);

// The atomic replace used by write_file and edit_file, on an already resolved path.
Result<WriteResult> write_file_atomically(const std::filesystem::path& resolved, std::string_view content);

}  // namespace agentkit::tools
