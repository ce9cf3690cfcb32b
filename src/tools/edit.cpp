#include "agentkit/tools/edit.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "agentkit/tools/files.hpp"
#include "pattern_program.hpp"
#include "text.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// ---- Folding (REQ-TOOL-04d): a hand-rolled fold over the confusable set, since NFKC is not in
// the standard library (PRD digest A21). --------------------------------------------------------

std::optional<std::string_view> confusable_replacement(std::uint32_t c) {
  switch (c) {
    case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032: case 0x2035:
      return "'";
    case 0x201C: case 0x201D: case 0x201E: case 0x201F: case 0x2033: case 0x2036:
      return "\"";
    case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2015: case 0x2212:
      return "-";
    case 0x00A0: case 0x2000: case 0x2001: case 0x2002: case 0x2003: case 0x2004: case 0x2005:
    case 0x2006: case 0x2007: case 0x2008: case 0x2009: case 0x200A: case 0x202F: case 0x205F:
    case 0x3000:
      return " ";
    case 0x200B: case 0x2060: case 0xFEFF:
      return "";
    case 0x2026:
      return "...";
    default:
      return std::nullopt;
  }
}

// Full-width ASCII (U+FF01..U+FF5E) is ASCII shifted by this much (NFKC maps it back).
constexpr std::uint32_t kFullWidthFirst = 0xFF01, kFullWidthLast = 0xFF5E, kFullWidthShift = 0xFEE0;

bool is_trailing_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// ---- Line-ending and BOM normalisation --------------------------------------------------------

struct Normalised {
  bool bom = false;
  bool crlf = false;
  std::string text;
};

bool is_pure_crlf(std::string_view s) {
  bool any = false;
  for (std::size_t p = s.find('\n'); p != std::string_view::npos; p = s.find('\n', p + 1)) {
    if (p == 0 || s[p - 1] != '\r') return false;
    any = true;
  }
  return any;
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t pos = 0;
  for (std::size_t p = s.find(from); p != std::string_view::npos; p = s.find(from, pos)) {
    out.append(s.substr(pos, p - pos));
    out.append(to);
    pos = p + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

Normalised normalise(std::string_view original) {
  Normalised n;
  if (original.starts_with(kBom)) {
    n.bom = true;
    original.remove_prefix(kBom.size());
  }
  n.crlf = is_pure_crlf(original);
  n.text = n.crlf ? replace_all(original, "\r\n", "\n") : std::string(original);
  return n;
}

std::string restore(const std::string& text, const Normalised& n) {
  std::string body = n.crlf ? replace_all(text, "\n", "\r\n") : text;
  return n.bom ? std::string(kBom) + body : body;
}

// ---- Matching ---------------------------------------------------------------------------------

struct Span {
  std::size_t start = 0;
  std::size_t length = 0;
  std::string replacement;
  std::size_t edit = 0;
};

struct ExactCount {
  std::size_t count = 0;
  std::size_t first = 0;
};

ExactCount count_exact(std::string_view text, std::string_view needle) {
  ExactCount c;
  for (std::size_t p = text.find(needle); p != std::string_view::npos; p = text.find(needle, p + 1)) {
    if (c.count++ == 0) c.first = p;
  }
  return c;
}

struct Lines {
  std::vector<std::string_view> lines;
  bool ends_with_newline = false;
};

Lines split_lines(std::string_view s) {
  Lines l;
  if (s.empty()) return l;
  l.ends_with_newline = s.back() == '\n';
  if (l.ends_with_newline) s.remove_suffix(1);
  std::size_t pos = 0;
  while (true) {
    std::size_t nl = s.find('\n', pos);
    l.lines.push_back(s.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return l;
}

// The file's lines with their offsets and folded forms, built once per call when needed.
struct FileLines {
  std::vector<std::size_t> starts;
  std::vector<std::size_t> ends;  // exclusive, before the '\n'
  std::vector<std::string> folded;
  explicit FileLines(std::string_view text) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::size_t end = nl == std::string_view::npos ? text.size() : nl;
      if (nl == std::string_view::npos && pos == text.size() && !starts.empty()) break;
      starts.push_back(pos);
      ends.push_back(end);
      folded.push_back(fold_line(text.substr(pos, end - pos)));
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
  }
};

struct FoldedMatch {
  std::size_t count = 0;
  std::size_t first_line = 0;
};

FoldedMatch count_folded(const FileLines& file, const std::vector<std::string>& old_folded) {
  FoldedMatch m;
  const std::size_t k = old_folded.size();
  if (k == 0 || k > file.folded.size()) return m;
  for (std::size_t i = 0; i + k <= file.folded.size(); ++i) {
    bool all = true;
    for (std::size_t j = 0; j < k && all; ++j) all = file.folded[i + j] == old_folded[j];
    if (all && m.count++ == 0) m.first_line = i;
  }
  return m;
}

// Builds the replacement of a folded match: lines new_string keeps as old_string had them (a
// common prefix and suffix) take the file's own bytes; only the changed middle is new text.
std::string splice_folded(std::string_view text, const FileLines& file, std::size_t first,
                          const Lines& old_lines, const Lines& new_lines) {
  const std::size_t k = old_lines.lines.size(), m = new_lines.lines.size();
  std::size_t prefix = 0;
  while (prefix < k && prefix < m && old_lines.lines[prefix] == new_lines.lines[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < k - prefix && suffix < m - prefix &&
         old_lines.lines[k - 1 - suffix] == new_lines.lines[m - 1 - suffix]) {
    ++suffix;
  }
  auto file_line = [&](std::size_t i) { return text.substr(file.starts[i], file.ends[i] - file.starts[i]); };
  std::vector<std::string_view> out;
  for (std::size_t j = 0; j < prefix; ++j) out.push_back(file_line(first + j));
  for (std::size_t j = prefix; j < m - suffix; ++j) out.push_back(new_lines.lines[j]);
  for (std::size_t j = 0; j < suffix; ++j) out.push_back(file_line(first + k - suffix + j));
  std::string r;
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (j != 0) r += '\n';
    r.append(out[j]);
  }
  if (new_lines.ends_with_newline) r += '\n';
  return r;
}

Error rejection(std::string_view code, std::size_t edit, std::string message) {
  return fail(Errc::invalid_argument, std::move(message))
      .with_detail("code", std::string(code))
      .with_detail("edit", std::to_string(edit));
}

std::vector<Edit> normalise_edits(const std::vector<Edit>& edits, bool crlf) {
  std::vector<Edit> out = edits;
  if (crlf) {
    for (auto& e : out) {
      e.old_string = replace_all(e.old_string, "\r\n", "\n");
      e.new_string = replace_all(e.new_string, "\r\n", "\n");
    }
  }
  return out;
}

}  // namespace

std::string fold_line(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  std::size_t i = 0;
  while (i < line.size()) {
    if (static_cast<unsigned char>(line[i]) < 0x80) {
      out += line[i++];
      continue;
    }
    std::size_t start = i;
    std::uint32_t c = detail::decode_utf8(line, i);
    if (auto r = confusable_replacement(c)) {
      out.append(*r);
    } else if (c >= kFullWidthFirst && c <= kFullWidthLast) {
      out += static_cast<char>(c - kFullWidthShift);
    } else {
      out.append(line.substr(start, i - start));
    }
  }
  while (!out.empty() && is_trailing_space(out.back())) out.pop_back();
  return out;
}

std::string not_unique_message(std::size_t occurrences) {
  return "Found " + std::to_string(occurrences) +
         " occurrences of the string to replace. The text must be unique. Please provide more "
         "context to make it unique.";
}

Result<EditOutcome> apply_edits(std::string_view original, const std::vector<Edit>& raw_edits) {
  if (raw_edits.empty()) return rejection("edit_empty", 0, "no edits given; pass at least one {old_string, new_string}");
  // Rule 1, over the whole batch.
  for (std::size_t i = 0; i < raw_edits.size(); ++i) {
    if (raw_edits[i].old_string.empty()) {
      return rejection("edit_empty_old_string", i,
                       "edit " + std::to_string(i) + " has an empty old_string; to create a file use write_file");
    }
  }
  const Normalised norm = normalise(original);
  const std::vector<Edit> edits = normalise_edits(raw_edits, norm.crlf);
  const std::string& text = norm.text;

  std::vector<ExactCount> exact(edits.size());
  bool all_exact = true;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    exact[i] = count_exact(text, edits[i].old_string);
    all_exact = all_exact && exact[i].count > 0;
  }
  // The tolerant pass runs only when exact matching failed somewhere in the batch, and only for
  // the edits that had no exact match: an exact match is never overridden by a folded one.
  std::optional<FileLines> file;
  std::vector<FoldedMatch> folded(edits.size());
  std::vector<Lines> old_lines(edits.size());
  if (!all_exact) {
    file.emplace(text);
    for (std::size_t i = 0; i < edits.size(); ++i) {
      if (exact[i].count > 0) continue;
      old_lines[i] = split_lines(edits[i].old_string);
      std::vector<std::string> old_folded;
      for (auto l : old_lines[i].lines) old_folded.push_back(fold_line(l));
      folded[i] = count_folded(*file, old_folded);
    }
  }
  // Rule 2: not found (after the rescue attempt); the whole batch is rejected.
  for (std::size_t i = 0; i < edits.size(); ++i) {
    if (exact[i].count == 0 && folded[i].count == 0) {
      return rejection("edit_not_found", i,
                       "edit " + std::to_string(i) + ": old_string was not found in the file (not exactly, "
                       "and not ignoring trailing whitespace and typographic quotes, dashes and spaces); "
                       "read the file again and copy the text to replace exactly");
    }
  }
  // Rule 3: more than one occurrence is always a rejection (no replace-all).
  for (std::size_t i = 0; i < edits.size(); ++i) {
    std::size_t n = exact[i].count > 0 ? exact[i].count : folded[i].count;
    if (n > 1) return rejection("edit_not_unique", i, not_unique_message(n)).with_detail("occurrences", std::to_string(n));
  }
  std::vector<Span> spans;
  bool any_folded = false;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    if (exact[i].count == 1) {
      spans.push_back({exact[i].first, edits[i].old_string.size(), edits[i].new_string, i});
      continue;
    }
    any_folded = true;
    const std::size_t first = folded[i].first_line, k = old_lines[i].lines.size();
    std::size_t start = file->starts[first];
    std::size_t end = file->ends[first + k - 1];
    if (old_lines[i].ends_with_newline && end < text.size()) ++end;  // the block's own '\n'
    spans.push_back({start, end - start,
                     splice_folded(text, *file, first, old_lines[i], split_lines(edits[i].new_string)), i});
  }
  // Rule 4: overlap after sorting by offset; touching ranges are legal.
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  for (std::size_t j = 1; j < spans.size(); ++j) {
    if (spans[j - 1].start + spans[j - 1].length > spans[j].start) {
      std::size_t a = std::min(spans[j - 1].edit, spans[j].edit), b = std::max(spans[j - 1].edit, spans[j].edit);
      return rejection("edit_overlap", a,
                       "edits " + std::to_string(a) + " and " + std::to_string(b) +
                           " overlap in the file; merge them into one edit")
          .with_detail("other_edit", std::to_string(b));
    }
  }
  std::string result;
  result.reserve(text.size());
  std::size_t pos = 0;
  for (const auto& s : spans) {
    result.append(text, pos, s.start - pos);
    result.append(s.replacement);
    pos = s.start + s.length;
  }
  result.append(text, pos, std::string::npos);
  std::string restored = restore(result, norm);
  // Rule 5: a batch that changes nothing is a mistake worth reporting.
  if (restored == original) {
    return rejection("edit_noop", 0, "the edits leave the file byte-for-byte unchanged; nothing was written");
  }
  return EditOutcome{std::move(restored), edits.size(), any_folded ? EditMatch::folded : EditMatch::exact};
}

Result<EditFileResult> edit_file(const Workspace& workspace, std::string_view path, const std::vector<Edit>& edits) {
  auto resolved = workspace.resolve(path);
  if (!resolved) return resolved.error();
  std::error_code ec;
  if (!fs::exists(*resolved, ec)) {
    return fail(Errc::not_found, "file '" + std::string(path) + "' does not exist; create it with write_file");
  }
  if (fs::is_directory(*resolved, ec)) {
    return fail(Errc::invalid_argument, detail::quoted(path) + " is a folder; pass a file path");
  }
  std::ifstream in(*resolved, std::ios::binary);
  if (!in) return fail(Errc::io_error, "cannot open '" + resolved->string() + "' for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string original = std::move(buf).str();
  auto outcome = apply_edits(original, edits);
  if (!outcome) return std::move(outcome).error().with_detail("path", resolved->string());
  auto written = write_file_atomically(*resolved, outcome->content);
  if (!written) return written.error();
  return EditFileResult{*resolved, outcome->edits_applied, outcome->match, written->bytes};
}

}  // namespace agentkit::tools
