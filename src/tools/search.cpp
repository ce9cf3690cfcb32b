#include "agentkit/tools/search.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/base64.hpp"
#include "agentkit/base/utf8.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/tools/glob.hpp"
#include "agentkit/tools/process.hpp"
#include "regex.hpp"
#include "text.hpp"
#include "walk.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;

namespace {

// Files per ripgrep process: few at first (a query answered by the first files stops early), then
// doubling, with the command line far below ARG_MAX (2 MiB on Linux, environment included).
constexpr std::size_t kFirstRipgrepBatchFiles = 256;
constexpr std::size_t kLargestRipgrepBatchFiles = 8192;
constexpr std::size_t kRipgrepBatchBytes = 512 * 1024;
// ripgrep's JSON for one batch; a batch whose output passes this is refused rather than cut.
constexpr std::size_t kRipgrepOutputCap = 64u << 20;

// Files per chunk of the native search: small first (a query answered by the first files stops
// early), doubling up to the largest (thread start-up amortised over many files).
constexpr std::size_t kFirstChunkFiles = 64;
constexpr std::size_t kLargestChunkFiles = 4096;
// More search threads than this stop paying off: the walk and the disk are shared.
constexpr std::size_t kMaxSearchThreads = 8;

struct Candidate {
  std::string absolute;    // built by concatenation: no std::filesystem work per file
  std::string from_root;   // relative to the searched folder (what ripgrep is given)
  std::string from_workspace;
};

// The matched lines of one file and every line their context needs, by line number.
struct FileHits {
  bool binary = false;
  bool too_large = false;  // over max_file_bytes: not searched and not counted (as ripgrep's list)
  std::vector<std::size_t> match_lines;
  std::map<std::size_t, std::string> lines;
};

Result<fs::path> resolve_existing(const Workspace& ws, std::string_view path) {
  auto resolved = ws.resolve(path.empty() ? std::string_view(".") : path);
  if (!resolved) return resolved.error();
  std::error_code ec;
  if (!fs::exists(*resolved, ec)) {
    return fail(Errc::not_found, "path '" + std::string(path) + "' does not exist");
  }
  return resolved;
}

bool small_enough(const std::string& p, std::uint64_t max_bytes) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) <= max_bytes;
}

// How the workspace names files below `root`: "" for the root itself, else "dir/".
std::string display_prefix(const Workspace& ws, const fs::path& root) {
  std::string rel = ws.relative(root);
  return rel == "." ? std::string() : rel + "/";
}

// The files a search covers, in walk order. The size limit is applied here for ripgrep (it is
// handed a list); the native backend applies it when it opens the file (one stat fewer per file).
Result<std::vector<Candidate>> collect(const Workspace& ws, const fs::path& root, const std::optional<Glob>& glob,
                                       const SearchOptions& options, bool check_size, const agentkit::stop_token& stop) {
  std::vector<Candidate> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {  // one file, named explicitly: searched whatever the rules say
    if (small_enough(root.string(), options.max_file_bytes)) {
      out.push_back({root.string(), root.filename().string(), ws.relative(root)});
    }
    return out;
  }
  auto tree = IgnoreTree::open(root, options.ignore);
  if (!tree) return tree.error();
  const std::string dir = root.string() + "/";
  const std::string prefix = display_prefix(ws, root);
  bool complete = detail::walk(*tree, [&](const detail::WalkEntry& e) {
    if (!e.is_regular) return true;
    if (glob && !glob->matches(e.relative)) return true;
    std::string abs = dir + e.relative;
    if (check_size && !small_enough(abs, options.max_file_bytes)) return true;
    out.push_back({std::move(abs), e.relative, prefix + e.relative});
    return true;
  }, stop);
  if (!complete) return fail(Errc::cancelled, "search cancelled");
  return out;
}

enum class ReadOutcome : std::uint8_t { read, too_large, unreadable };

// Reads a whole file into `data` (its capacity is reused from file to file).
ReadOutcome read_whole(const std::string& path, std::uint64_t max_bytes, std::string& data) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ReadOutcome::unreadable;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return ReadOutcome::unreadable;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return ReadOutcome::too_large;
  }
  data.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  data.resize(done);
  return ReadOutcome::read;
}

bool is_binary(std::string_view data) { return std::memchr(data.data(), '\0', data.size()) != nullptr; }

// ---- Native backend ---------------------------------------------------------------------------

FileHits search_native(const Candidate& c, const detail::Regex& regex, std::size_t context, std::size_t per_file_cap,
                       std::uint64_t max_file_bytes, std::string& buffer) {
  FileHits hits;
  ReadOutcome read = read_whole(c.absolute, max_file_bytes, buffer);
  if (read == ReadOutcome::too_large) hits.too_large = true;
  if (read != ReadOutcome::read) return hits;
  if (is_binary(buffer)) {
    hits.binary = true;
    return hits;
  }
  std::string_view text = buffer;
  std::size_t line_no = 1, counted_to = 0;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  regex.for_each_matching_line(text, [&](std::size_t start, std::size_t end) {
    for (std::size_t p = text.find('\n', counted_to); p != std::string_view::npos && p < start; p = text.find('\n', p + 1)) ++line_no;
    counted_to = start;
    hits.match_lines.push_back(line_no);
    spans.emplace_back(start, end);
    return hits.match_lines.size() < per_file_cap;
  });
  for (std::size_t k = 0; k < spans.size(); ++k) {
    const std::size_t n = hits.match_lines[k];
    hits.lines[n] = std::string(text.substr(spans[k].first, spans[k].second - spans[k].first));
    std::size_t start = spans[k].first;
    for (std::size_t back = 1; back <= context && start > 0; ++back) {
      std::size_t prev_end = start - 1;  // the '\n' before this line
      std::size_t prev_start = prev_end == 0 ? 0 : text.rfind('\n', prev_end - 1);
      prev_start = prev_start == std::string_view::npos || prev_end == 0 ? 0 : prev_start + 1;
      hits.lines.emplace(n - back, std::string(text.substr(prev_start, prev_end - prev_start)));
      start = prev_start;
    }
    std::size_t end = spans[k].second;
    for (std::size_t fwd = 1; fwd <= context && end + 1 < text.size(); ++fwd) {
      std::size_t next_start = end + 1;
      std::size_t next_end = text.find('\n', next_start);
      if (next_end == std::string_view::npos) next_end = text.size();
      hits.lines.emplace(n + fwd, std::string(text.substr(next_start, next_end - next_start)));
      end = next_end;
    }
  }
  return hits;
}

// ---- ripgrep backend --------------------------------------------------------------------------

std::optional<std::string> rg_text(const json::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (const json::Value* t = v->find("text"); t && t->is_string()) return t->as_string();
  if (const json::Value* b = v->find("bytes"); b && b->is_string()) {
    auto decoded = base64::decode(b->as_string());
    if (decoded) return *decoded;
  }
  return std::nullopt;
}

std::string strip_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

Result<std::map<std::string, FileHits>> ripgrep_batch(const fs::path& rg, const fs::path& root,
                                                      const std::vector<const Candidate*>& batch,
                                                      const detail::Regex& regex, std::size_t context,
                                                      std::size_t per_file_cap, const agentkit::stop_token& stop) {
  // ripgrep's own threads search the batch; events are keyed by path, so their order is irrelevant.
  std::vector<std::string> argv = {rg.string(), "--json", "--no-config", "--no-messages",
                                   "--case-sensitive", "--encoding", "none",
                                   "--max-count", std::to_string(per_file_cap),
                                   "--context", std::to_string(context), "--regexp", regex.rust_syntax(), "--"};
  for (const Candidate* c : batch) argv.push_back(c->from_root);
  ProcessOptions po;
  po.cwd = root;
  po.keep_head = true;
  po.output_cap = kRipgrepOutputCap;
  po.spill = false;
  auto run = run_command(argv, po, stop);
  if (!run) return run.error();
  if (run->outcome == Outcome::aborted) return fail(Errc::cancelled, "search cancelled");
  if (run->truncated) {
    return fail(Errc::limit_exceeded, "ripgrep produced more than " + format_size(kRipgrepOutputCap) +
                                          " for one batch; narrow the path or the pattern");
  }
  if (run->exit_code != 0 && run->exit_code != 1 && run->exit_code != 2) {
    return fail(Errc::io_error, "ripgrep failed (exit " + std::to_string(run->exit_code) + "): " +
                                    run->output.substr(0, 500));
  }
  std::map<std::string, FileHits> out;
  std::string_view rest = run->output;
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    auto event = json::parse(line);
    if (!event || !event->is_object()) continue;  // a stray message on the shared pipe
    const json::Value* type = event->find("type");
    if (!type || !type->is_string()) continue;
    bool is_match = type->as_string() == "match";
    if (!is_match && type->as_string() != "context") continue;
    const json::Value* data = event->find("data");
    auto path = rg_text(data ? data->find("path") : nullptr);
    auto text = rg_text(data ? data->find("lines") : nullptr);
    const json::Value* number = data ? data->find("line_number") : nullptr;
    if (!path || !text || number == nullptr || !number->is_number()) continue;
    auto n = number->to_uint64();
    if (!n) continue;
    FileHits& hits = out[*path];
    hits.lines[*n] = strip_newline(std::move(*text));
    if (is_match) hits.match_lines.push_back(*n);
  }
  return out;
}

// ---- Assembly (shared by both backends, so ordering, context and truncation cannot differ) ---

std::string display(std::string_view raw, std::size_t max_chars) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  std::string clean = detail::sanitized(raw);
  return std::string(utf8::truncate_code_points(clean, max_chars));
}

struct Assembler {
  const SearchRequest& request;
  const SearchOptions& options;
  SearchResult result;
  std::size_t bytes = 0;
  bool done = false;

  void add_file(const Candidate& c, FileHits& hits) {
    if (hits.too_large) return;
    ++result.files_searched;
    if (hits.binary || hits.match_lines.empty()) return;
    ++result.files_with_matches;
    std::sort(hits.match_lines.begin(), hits.match_lines.end());
    for (std::size_t n : hits.match_lines) {
      if (result.matches.size() == request.max_matches) {
        stop("matches");
        return;
      }
      SearchMatch m;
      m.file = c.from_workspace;
      m.line = n;
      m.text = display(hits.lines[n], options.max_line_chars);
      std::size_t size = m.file.size() + m.text.size();
      for (std::size_t k = n > request.context_lines ? n - request.context_lines : 1; k < n; ++k) {
        if (auto it = hits.lines.find(k); it != hits.lines.end()) {
          m.before.push_back(display(it->second, options.max_line_chars));
          size += m.before.back().size();
        }
      }
      for (std::size_t k = n + 1; k <= n + request.context_lines; ++k) {
        if (auto it = hits.lines.find(k); it != hits.lines.end()) {
          m.after.push_back(display(it->second, options.max_line_chars));
          size += m.after.back().size();
        }
      }
      if (bytes + size > options.max_result_bytes) {
        stop("bytes");
        return;
      }
      bytes += size;
      result.matches.push_back(std::move(m));
    }
  }

  void stop(const char* why) {
    done = true;
    result.truncated = true;
    result.truncated_by = why;
    if (std::string_view(why) == "matches") {
      result.marker = "[" + std::to_string(request.max_matches) + " matches limit reached. Use max_matches=" +
                      std::to_string(request.max_matches * 2) + " for more, or refine pattern]";
    } else {
      result.marker = "[Results cut at " + format_size(options.max_result_bytes) +
                      ". Narrow path or file_glob, or refine pattern]";
    }
  }
};

std::size_t search_threads(const SearchOptions& options) {
  std::size_t n = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(n, 1, kMaxSearchThreads);
}

// The native backend: chunks of files searched on several threads, each with its own matcher (the
// lazy DFA cache is per matcher) and read buffer, then assembled in walk order after each chunk —
// so ordering, statistics and truncation are exactly those of one thread.
class NativeBackend {
 public:
  NativeBackend(const detail::Regex& regex, std::size_t threads) : buffers_(threads) {
    matchers_.push_back(regex);
    for (std::size_t t = 1; t < threads; ++t) matchers_.push_back(regex.for_another_thread());
  }

  Result<void> run(const std::vector<Candidate>& files, const SearchRequest& request, const SearchOptions& options,
                   Assembler& a, const agentkit::stop_token& stop) {
    std::size_t chunk = kFirstChunkFiles;
    for (std::size_t begin = 0; begin < files.size() && !a.done; begin += chunk, chunk = std::min(chunk * 2, kLargestChunkFiles)) {
      const std::size_t end = std::min(files.size(), begin + chunk);
      std::vector<FileHits> hits(end - begin);
      search_chunk(files, begin, end, hits, request, options, stop);
      if (stop.stop_requested()) return fail(Errc::cancelled, "search cancelled");
      for (std::size_t i = begin; i < end && !a.done; ++i) a.add_file(files[i], hits[i - begin]);
    }
    return {};
  }

 private:
  void search_chunk(const std::vector<Candidate>& files, std::size_t begin, std::size_t end, std::vector<FileHits>& hits,
                    const SearchRequest& request, const SearchOptions& options, const agentkit::stop_token& stop) {
    std::atomic<std::size_t> next{begin};
    std::exception_ptr failure;  // written by one worker at most (under failure_mu)
    std::mutex failure_mu;
    auto work = [&](std::size_t worker) {
      try {
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < end;) {
          if (stop.stop_requested()) return;
          hits[i - begin] = search_native(files[i], matchers_[worker], request.context_lines, request.max_matches + 1,
                                          options.max_file_bytes, buffers_[worker]);
        }
      } catch (...) {  // bad_alloc: carried to the calling thread instead of terminating
        std::lock_guard g(failure_mu);
        if (!failure) failure = std::current_exception();
        next.store(end);
      }
    };
    const std::size_t helpers = std::min(matchers_.size(), end - begin) - 1;
    {
      std::vector<agentkit::jthread> threads;
      threads.reserve(helpers);
      for (std::size_t t = 1; t <= helpers; ++t) threads.emplace_back(work, t);
      work(0);
    }  // joined: every hits[] slot is complete and visible here
    if (failure) std::rethrow_exception(failure);
  }

  std::vector<detail::Regex> matchers_;
  std::vector<std::string> buffers_;
};

}  // namespace

Result<SearchResult> search_files(const Workspace& ws, const SearchRequest& request, const SearchOptions& options,
                                  agentkit::stop_token stop) {
  if (request.max_matches == 0) return fail(Errc::invalid_argument, "max_matches must be at least 1");
  bool insensitive;
  if (request.case_sensitive) {
    insensitive = !*request.case_sensitive;
  } else {
    auto upper = detail::Regex::has_uppercase_literal(request.pattern);
    if (!upper) return upper.error();
    insensitive = !*upper;  // smart case
  }
  detail::RegexOptions ro;
  ro.case_insensitive = insensitive;
  auto regex = detail::Regex::compile(request.pattern, ro);
  if (!regex) return regex.error();
  std::optional<Glob> glob;
  if (request.file_glob && !request.file_glob->empty()) {
    auto g = Glob::compile(*request.file_glob);
    if (!g) return g.error();
    glob = std::move(*g);
  }
  std::optional<fs::path> rg;
  if (options.backend != SearchBackend::native) {
    rg = options.ripgrep.empty() ? find_program("rg") : std::optional<fs::path>(options.ripgrep);
    if (!rg && options.backend == SearchBackend::ripgrep) {
      return fail(Errc::unsupported, "the ripgrep backend was requested but 'rg' is not on PATH");
    }
  }
  auto root = resolve_existing(ws, request.path);
  if (!root) return root.error();
  auto files = collect(ws, *root, glob, options, /*check_size=*/rg.has_value(), stop);
  if (!files) return files.error();
  const fs::path search_dir = fs::is_directory(*root) ? *root : root->parent_path();

  Assembler a{request, options, {}, 0, false};
  a.result.backend = rg ? "ripgrep" : "native";
  if (!rg) {
    NativeBackend native(*regex, search_threads(options));
    if (auto r = native.run(*files, request, options, a, stop); !r) return r.error();
    return std::move(a.result);
  }
  const std::size_t per_file_cap = request.max_matches + 1;
  std::size_t next = 0;
  for (std::size_t limit = kFirstRipgrepBatchFiles; next < files->size() && !a.done;
       limit = std::min(limit * 2, kLargestRipgrepBatchFiles)) {
    if (stop.stop_requested()) return fail(Errc::cancelled, "search cancelled");
    std::vector<const Candidate*> batch;
    std::size_t arg_bytes = 0;
    while (next + batch.size() < files->size() && batch.size() < limit && arg_bytes < kRipgrepBatchBytes) {
      const Candidate& c = (*files)[next + batch.size()];
      arg_bytes += c.from_root.size() + 1;
      batch.push_back(&c);
    }
    auto hits = ripgrep_batch(*rg, search_dir, batch, *regex, request.context_lines, per_file_cap, stop);
    if (!hits) return hits.error();
    for (const Candidate* c : batch) {
      if (a.done) break;
      FileHits empty;
      auto it = hits->find(c->from_root);
      FileHits& h = it == hits->end() ? empty : it->second;
      if (!h.match_lines.empty()) {  // ripgrep converts NULs in named files; we skip them
        std::string data;
        h.binary = read_whole(c->absolute, options.max_file_bytes, data) == ReadOutcome::read && is_binary(data);
      }
      a.add_file(*c, h);
    }
    next += batch.size();
  }
  return std::move(a.result);
}

// ---- find_files and list_files ----------------------------------------------------------------

Result<FindResult> find_files(const Workspace& ws, const FindRequest& request, const IgnoreOptions& ignore,
                              agentkit::stop_token stop) {
  if (request.limit == 0) return fail(Errc::invalid_argument, "limit must be at least 1");
  auto glob = Glob::compile(request.pattern);
  if (!glob) return glob.error();
  auto root = resolve_existing(ws, request.path);
  if (!root) return root.error();
  if (!fs::is_directory(*root)) {
    return fail(Errc::invalid_argument, "'" + request.path + "' is a file; find_files searches folders");
  }
  auto tree = IgnoreTree::open(*root, ignore);
  if (!tree) return tree.error();
  FindResult out;
  const std::string prefix = display_prefix(ws, *root);
  bool complete = detail::walk(*tree, [&](const detail::WalkEntry& e) {
    bool wanted = request.file_type == FileType::any ||
                  (request.file_type == FileType::directory ? e.is_dir : !e.is_dir);
    if (!wanted || !glob->matches(e.relative)) return true;
    if (out.files.size() == request.limit) {
      out.truncated = true;
      return false;
    }
    out.files.push_back(prefix + e.relative);
    return true;
  }, stop);
  if (!complete && !out.truncated) return fail(Errc::cancelled, "find_files cancelled");
  if (out.truncated) {
    out.marker = "[" + std::to_string(request.limit) + " results limit reached. Use limit=" +
                 std::to_string(request.limit * 2) + " for more, or refine pattern]";
  }
  return out;
}

Result<ListResult> list_files(const Workspace& ws, const ListRequest& request, const IgnoreOptions& ignore) {
  if (request.limit == 0) return fail(Errc::invalid_argument, "limit must be at least 1");
  auto root = resolve_existing(ws, request.path);
  if (!root) return root.error();
  if (!fs::is_directory(*root)) {
    return fail(Errc::invalid_argument, "'" + request.path + "' is a file; use read_file");
  }
  auto tree = IgnoreTree::open(*root, ignore);
  if (!tree) return tree.error();
  ListResult out;
  for (const auto& e : detail::read_folder(*root)) {
    if (tree->is_ignored_entry("", e.name, e.is_dir)) continue;
    if (out.entries.size() == request.limit) {
      out.truncated = true;
      out.marker = "[" + std::to_string(request.limit) + " entries limit reached. Use limit=" +
                   std::to_string(request.limit * 2) + " for more]";
      break;
    }
    out.entries.push_back(e.is_dir ? e.name + "/" : e.name);
  }
  return out;
}

}  // namespace agentkit::tools
