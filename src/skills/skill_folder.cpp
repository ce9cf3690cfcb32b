// SKILL.md fields and bundled files. The rules follow the Agent Skills specification; where the
// specification is strict and other hosts are not (a name that differs from its folder, a long
// description, vendor keys), the skill loads with a warning, because users' skills do that.
#include "agentkit/skills/skill_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <optional>
#include <system_error>

#include "agentkit/base/utf8.hpp"
#include "file_reader.hpp"
#include "skill_loader.hpp"

namespace agentkit::skills {
namespace {

// Limits from the Agent Skills specification.
constexpr std::size_t kMaxNameChars = 64;
constexpr std::size_t kMaxDescriptionChars = 1024;
constexpr std::size_t kMaxCompatibilityChars = 500;
constexpr std::string_view kSkillFileName = "SKILL.md";

std::string_view trim_whitespace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  std::size_t b = 0, e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::size_t chars(std::string_view s) {
  auto n = utf8::count_code_points(s);
  return n ? *n : s.size();
}

class FieldReader {
 public:
  FieldReader(LoadedSkill& out, std::string_view file, std::vector<Diagnostic>& notes)
      : out_(out), file_(file), notes_(notes) {}

  void note(DiagnosticCode code, std::size_t line, std::string message) {
    notes_.push_back(
        Diagnostic{Severity::warning, code, std::string(file_), line, std::move(message)});
  }

  // The text of a scalar field, or nullopt (with a diagnostic) for a list or map.
  std::optional<std::string> text(const YamlEntry& e) {
    if (e.value.kind == YamlValue::Kind::scalar) return e.value.text;
    note(DiagnosticCode::field_not_text, e.value.line,
         "'" + e.key + "' should be text but is a " +
             (e.value.kind == YamlValue::Kind::map ? "map" : "list") + "; it was ignored");
    return std::nullopt;
  }

  void metadata(const YamlEntry& e) {
    if (e.value.kind != YamlValue::Kind::map) {
      note(DiagnosticCode::field_not_text, e.value.line,
           "'metadata' should be a map of text values; it was ignored");
      return;
    }
    for (const auto& m : e.value.entries) {
      if (m.value.kind == YamlValue::Kind::scalar) {
        out_.metadata.emplace_back(m.key, m.value.text);
        continue;
      }
      std::string joined;
      for (const auto& item : m.value.items) {
        if (item.kind != YamlValue::Kind::scalar) continue;
        joined += (joined.empty() ? "" : ",") + item.text;
      }
      note(DiagnosticCode::field_not_text, m.value.line,
           "metadata '" + m.key + "' should be text; its list items were joined with ','");
      out_.metadata.emplace_back(m.key, joined);
    }
  }

  void allowed_tools(const YamlEntry& e) {
    if (e.value.kind == YamlValue::Kind::sequence) {
      for (const auto& item : e.value.items) {
        if (item.kind == YamlValue::Kind::scalar) out_.allowed_tools.push_back(item.text);
      }
      return;
    }
    auto t = text(e);
    if (!t) return;
    // The format says space-separated; commas are common in the wild and never part of a name.
    std::string current;
    for (char c : *t + " ") {
      if (c == ' ' || c == ',' || c == '\t') {
        if (!current.empty()) out_.allowed_tools.push_back(std::move(current));
        current.clear();
      } else {
        current += c;
      }
    }
  }

 private:
  LoadedSkill& out_;
  std::string_view file_;
  std::vector<Diagnostic>& notes_;
};

void settle_name(LoadedSkill& out, const YamlValue* declared, std::string_view folder_name,
                 FieldReader& r) {
  const std::string name = declared ? std::string(trim_whitespace(declared->text)) : std::string();
  const std::size_t line = declared ? declared->line : 0;
  out.skill.name = std::string(folder_name);
  if (name.empty()) {
    r.note(DiagnosticCode::name_missing, line,
           "no 'name'; the folder name '" + std::string(folder_name) + "' is used");
    return;
  }
  const bool valid = is_valid_skill_name(name);
  if (!valid) {
    r.note(DiagnosticCode::name_invalid, line,
           "name '" + name +
               "' is not 1-64 lowercase letters, digits and single inner hyphens; "
               "the folder name '" +
               std::string(folder_name) + "' is used");
  }
  if (name != folder_name) {
    r.note(DiagnosticCode::name_mismatch, line,
           "name '" + name + "' differs from its folder '" + std::string(folder_name) + "'" +
               (valid ? "; the declared name is used" : ""));
  }
  if (valid) out.skill.name = name;
}

Result<void> settle_description(LoadedSkill& out, const YamlValue* d, std::string_view file,
                                FieldReader& r) {
  std::string text =
      d && d->kind == YamlValue::Kind::scalar ? std::string(trim_whitespace(d->text)) : "";
  if (text.empty()) {
    return Unexpected(make_error(Errc::invalid_argument,
                                 std::string(file) + ": no 'description'; a skill needs one so "
                                                     "the model knows when to use it")
                          .with_detail(std::string(kDiagnosticDetail), "description_missing"));
  }
  if (chars(text) > kMaxDescriptionChars) {
    r.note(DiagnosticCode::description_too_long, d->line,
           "description is " + std::to_string(chars(text)) + " characters, over the " +
               std::to_string(kMaxDescriptionChars) + " the format allows; it was shortened");
    text = std::string(utf8::truncate_code_points(text, kMaxDescriptionChars));
  }
  out.skill.description = std::move(text);
  return {};
}

bool is_known_key(std::string_view key) {
  for (std::string_view k :
       {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}) {
    if (key == k) return true;
  }
  return false;
}

void read_fields(LoadedSkill& out, const YamlValue& fields, FieldReader& r) {
  for (const auto& e : fields.entries) {
    if (e.key == "license") {
      if (auto t = r.text(e)) out.license = *t;
    } else if (e.key == "compatibility") {
      if (auto t = r.text(e)) out.compatibility = *t;
      if (chars(out.compatibility) > kMaxCompatibilityChars) {
        r.note(DiagnosticCode::compatibility_too_long, e.value.line,
               "compatibility is over " + std::to_string(kMaxCompatibilityChars) +
                   " characters; kept as written");
      }
    } else if (e.key == "metadata") {
      r.metadata(e);
    } else if (e.key == "allowed-tools") {
      r.allowed_tools(e);
    } else if (e.key == "name" || e.key == "description") {
      if (e.value.kind != YamlValue::Kind::scalar) r.text(e);
    } else if (!is_known_key(e.key)) {
      out.unknown_keys.push_back(e.key);
      out.extra.push_back(e);
      r.note(DiagnosticCode::unknown_key, e.value.line,
             "key '" + e.key + "' is not part of the skill format; kept and ignored");
    }
  }
}

// ---- bundled files ------------------------------------------------------------------------------

bool is_skipped_folder(std::string_view name) { return name == ".git" || name == "node_modules"; }

class BundleLister {
 public:
  BundleLister(const std::filesystem::path& root, std::vector<BundledFile>& out,
               std::vector<Diagnostic>& notes, const SkillFolderOptions& options)
      : root_(root), out_(out), notes_(notes), options_(options) {}

  void list(const std::filesystem::path& dir, const std::string& rel, std::size_t depth) {
    std::error_code ec;
    std::vector<std::filesystem::directory_entry> entries;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) {
      note(DiagnosticCode::file_unreadable, dir, "cannot list: " + ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.path().filename() < b.path().filename();
    });
    for (const auto& entry : entries) visit(entry, rel, depth);
  }

 private:
  void visit(const std::filesystem::directory_entry& entry, const std::string& rel,
             std::size_t depth) {
    const std::string name = entry.path().filename().string();
    const std::string child = rel.empty() ? name : rel + "/" + name;
    if (depth == 0 && name == kSkillFileName) return;
    if (is_skipped_folder(name)) return;
    std::error_code ec;
    if (entry.is_symlink(ec) && !detail::stays_inside(root_, entry.path())) {
      note(DiagnosticCode::path_escapes, entry.path(),
           "a symlink that leads outside the skill folder (or nowhere); not bundled");
      return;
    }
    if (entry.is_directory(ec)) {
      if (std::filesystem::exists(entry.path() / kSkillFileName, ec)) return;  // its own skill
      if (depth + 1 >= options_.max_bundled_depth) {
        note(DiagnosticCode::scan_limit, entry.path(), "deeper than the bundled-file depth cap");
        return;
      }
      list(entry.path(), child, depth + 1);
      return;
    }
    if (!entry.is_regular_file(ec)) {
      note(DiagnosticCode::file_unreadable, entry.path(),
           "not a regular file (a FIFO, socket or device); not bundled");
      return;
    }
    add_file(entry, child);
  }

  void add_file(const std::filesystem::directory_entry& entry, const std::string& rel) {
    if (out_.size() >= options_.max_bundled_files) {
      if (!count_noted_) {
        note(DiagnosticCode::scan_limit, entry.path(),
             "more than " + std::to_string(options_.max_bundled_files) +
                 " bundled files; this and later ones were left out");
      }
      count_noted_ = true;
      return;
    }
    std::error_code ec;
    const std::uintmax_t size = entry.file_size(ec);
    if (ec) {
      note(DiagnosticCode::file_unreadable, entry.path(), "cannot read its size: " + ec.message());
      return;
    }
    if (size > options_.max_bundled_file_bytes) {
      note(DiagnosticCode::file_too_large, entry.path(),
           std::to_string(size) + " bytes, over the bundled-file cap of " +
               std::to_string(options_.max_bundled_file_bytes) + "; not bundled");
      return;
    }
    out_.push_back(BundledFile{rel, static_cast<std::uint64_t>(size)});
  }

  void note(DiagnosticCode code, const std::filesystem::path& path, std::string message) {
    notes_.push_back(Diagnostic{Severity::warning, code, path.string(), 0, std::move(message)});
  }

  const std::filesystem::path& root_;
  std::vector<BundledFile>& out_;
  std::vector<Diagnostic>& notes_;
  const SkillFolderOptions& options_;
  bool count_noted_ = false;
};

// The '/'-joined, normalised form of a bundled path, or a reason to refuse it. Refuses absolute
// paths (also drive letters and leading backslashes), NUL, any ".." segment and the folders a
// listing skips.
std::optional<std::string> bundled_path(std::string_view raw, std::string& why) {
  std::string p(trim_whitespace(raw));
  if (p.find('\0') != std::string::npos) {
    why = "the path contains a NUL byte";
    return std::nullopt;
  }
  if (p.empty()) {
    why = "the path is empty";
    return std::nullopt;
  }
  if (p.front() == '/' || p.front() == '\\' || (p.size() >= 2 && p[1] == ':')) {
    why = "absolute paths are not allowed; give a path relative to the skill folder";
    return std::nullopt;
  }
  std::replace(p.begin(), p.end(), '\\', '/');
  for (const auto& part : std::filesystem::path(p)) {
    if (part == "..") {
      why = "'..' is not allowed: the path would leave the skill folder";
      return std::nullopt;
    }
    if (is_skipped_folder(part.native())) {
      why = "files under " + part.string() + " are not part of a skill";
      return std::nullopt;
    }
  }
  std::string normal = std::filesystem::path(p).lexically_normal().generic_string();
  while (!normal.empty() && normal.back() == '/') normal.pop_back();
  if (normal.empty() || normal == ".") {
    why = "the path names the skill folder itself, not a file";
    return std::nullopt;
  }
  return normal;
}

Error bundled_error(Errc code, const std::filesystem::path& folder, std::string_view path,
                    std::string why, std::string_view diagnostic) {
  return make_error(code, "skill folder '" + folder.string() + "': '" + std::string(path) +
                              "': " + std::move(why))
      .with_detail(std::string(kDiagnosticDetail), std::string(diagnostic));
}

// Tags an error with the diagnostic code discovery reports it under.
Error left_out(Error e, std::string_view code) {
  return std::move(e).with_detail(std::string(kDiagnosticDetail), std::string(code));
}

}  // namespace

bool is_valid_skill_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > kMaxNameChars) return false;
  if (name.front() == '-' || name.back() == '-') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && name[i + 1] == '-')) return false;
  }
  return true;
}

Result<LoadedSkill> parse_skill_file(std::string_view text, std::string_view folder_name,
                                     std::string_view file, std::vector<Diagnostic>& diagnostics,
                                     const SkillFolderOptions& options) {
  auto fm = read_front_matter(text, file, diagnostics, options.front_matter);
  if (!fm) return Unexpected(left_out(std::move(fm).error(), "front_matter_invalid"));
  if (!fm->present) {
    return Unexpected(make_error(Errc::parse_error,
                                 std::string(file) + ": no front matter; a SKILL.md opens with a "
                                                     "'---' line, then name and description")
                          .with_detail(std::string(kDiagnosticDetail), "front_matter_missing"));
  }
  LoadedSkill out;
  FieldReader reader(out, file, diagnostics);
  read_fields(out, fm->fields, reader);
  settle_name(out, fm->fields.find("name"), folder_name, reader);
  if (auto d = settle_description(out, fm->fields.find("description"), file, reader); !d) {
    return Unexpected(std::move(d).error());
  }
  out.skill.body = std::string(text.substr(fm->body_offset));
  return out;
}

namespace detail {

Result<LoadedSkill> load_skill_at(int dir_fd, std::string_view abs,
                                  std::vector<Diagnostic>& diagnostics,
                                  const SkillFolderOptions& options) {
  // Strings, not paths, until the result: a std::filesystem::path splits itself into components
  // on every construction, which was a tenth of a discovery's time.
  std::string file(abs);
  file += '/';
  file += kSkillFileName;
  auto bytes = read_capped_at(dir_fd, kSkillFileName.data(), file, options.max_skill_file_bytes);
  if (!bytes) return Unexpected(left_out(std::move(bytes).error(), "file_unreadable"));
  if (bytes->truncated) {
    return Unexpected(make_error(Errc::limit_exceeded,
                                 file + " is " + std::to_string(bytes->size) +
                                     " bytes, over the cap of " +
                                     std::to_string(options.max_skill_file_bytes) + "; not loaded")
                          .with_detail(std::string(kDiagnosticDetail), "file_too_large"));
  }
  const std::size_t slash = abs.rfind('/');
  const std::string_view folder_name =
      slash == std::string_view::npos ? abs : abs.substr(slash + 1);
  auto loaded = parse_skill_file(bytes->bytes, folder_name, file, diagnostics, options);
  if (!loaded) return loaded;
  loaded->folder = std::filesystem::path(abs);
  loaded->skill_file = std::filesystem::path(file);
  loaded->skill.location = std::move(file);
  return loaded;
}

}  // namespace detail

Result<LoadedSkill> load_skill_folder(const std::filesystem::path& folder,
                                      std::vector<Diagnostic>& diagnostics,
                                      const SkillFolderOptions& options) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(folder, ec).lexically_normal();
  if (!abs.empty() && abs.filename().empty()) abs = abs.parent_path();  // "pdf/" names "pdf"
  const int fd = ::open(abs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Unexpected(left_out(make_error(err == ENOENT ? Errc::not_found : Errc::io_error,
                                          "cannot open the skill folder '" + abs.string() +
                                              "': " + std::system_category().message(err)),
                               "file_unreadable"));
  }
  auto loaded = detail::load_skill_at(fd, abs.native(), diagnostics, options);
  ::close(fd);
  return loaded;
}

std::vector<BundledFile> list_bundled_files(const std::filesystem::path& folder,
                                            std::vector<Diagnostic>& diagnostics,
                                            const SkillFolderOptions& options) {
  std::vector<BundledFile> out;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(folder, ec).lexically_normal();
  BundleLister(abs, out, diagnostics, options).list(abs, "", 0);
  std::sort(out.begin(), out.end(),
            [](const BundledFile& a, const BundledFile& b) { return a.path < b.path; });
  return out;
}

Result<std::string> read_bundled_file(const std::filesystem::path& folder, std::string_view path,
                                      const SkillFolderOptions& options) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(folder, ec).lexically_normal();
  std::string why;
  auto rel = bundled_path(path, why);
  if (!rel)
    return Unexpected(bundled_error(Errc::invalid_argument, abs, path, why, "path_escapes"));
  const std::filesystem::path full = abs / *rel;
  if (!std::filesystem::exists(full, ec)) {
    return Unexpected(
        bundled_error(Errc::not_found, abs, *rel, "no such file in the skill", "file_unreadable"));
  }
  if (!detail::stays_inside(abs, full)) {
    return Unexpected(bundled_error(Errc::invalid_argument, abs, *rel,
                                    "a symlink leads outside the skill folder; not read",
                                    "path_escapes"));
  }
  // A sub-folder with its own SKILL.md is another skill: its files are not this one's.
  const std::filesystem::path rel_path(*rel);
  std::filesystem::path dir = abs;
  for (auto it = rel_path.begin(); it != rel_path.end() && std::next(it) != rel_path.end(); ++it) {
    dir /= *it;
    if (std::filesystem::exists(dir / kSkillFileName, ec)) {
      return Unexpected(bundled_error(
          Errc::invalid_argument, abs, *rel,
          "it belongs to the skill in '" + dir.string() + "', not to this one", "path_escapes"));
    }
  }
  auto bytes = detail::read_capped(full, options.max_bundled_file_bytes);
  if (!bytes) {
    return Unexpected(
        bundled_error(bytes.error().code, abs, *rel, bytes.error().message, "file_unreadable"));
  }
  if (bytes->truncated) {
    return Unexpected(bundled_error(Errc::limit_exceeded, abs, *rel,
                                    std::to_string(bytes->size) +
                                        " bytes, over the bundled-file cap of " +
                                        std::to_string(options.max_bundled_file_bytes),
                                    "file_too_large"));
  }
  return std::move(bytes->bytes);
}

}  // namespace agentkit::skills
