// The audit trail (agentkit/audit.hpp): the hash chain, the file sink, the verifier, and the
// records the loop and the batch executor write (audit_sites.hpp).
#include "agentkit/audit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agentkit/base/sha256.hpp"
#include "agentkit/json/value.hpp"
#include "audit_sites.hpp"
#include "run_context.hpp"

namespace agentkit::audit {
namespace {

constexpr std::string_view kZeroHash =
    "0000000000000000000000000000000000000000000000000000000000000000";
constexpr std::string_view kHashKey = ",\"hash\":\"";
// `,"hash":"` + 64 hex + `"}`
constexpr std::size_t kHashSuffix = kHashKey.size() + 64 + 2;

Error os_error(std::string_view what, const std::filesystem::path& path, int err) {
  return make_error(Errc::io_error, std::string(what) + " audit file '" + path.string() +
                                        "': " + std::strerror(err))
      .with_detail("path", path.string());
}

// Appends to one descriptor; a write that tore is cut back so the next line is never glued to
// half a record.
class FileSink final : public Sink {
 public:
  FileSink(int fd, std::filesystem::path path, std::size_t size)
      : fd_(fd), path_(std::move(path)), good_size_(size) {}
  ~FileSink() override { ::close(fd_); }

  Result<void> append(std::string_view line) override {
    std::size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = n < 0 ? errno : EIO;
        if (done > 0) (void)::ftruncate(fd_, static_cast<off_t>(good_size_));
        return os_error("cannot append to", path_, err);
      }
      done += static_cast<std::size_t>(n);
    }
    good_size_ += done;
    return {};
  }

 private:
  int fd_;
  std::filesystem::path path_;
  std::size_t good_size_;
};

Result<std::string> read_all(int fd, const std::filesystem::path& path) {
  std::string bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) bytes.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error("cannot read", path, errno);
    if (n == 0) return bytes;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
}

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The parts of one record line that the chain is made of.
struct Parsed {
  std::uint64_t seq = 0;
  std::string prev;
  std::string hash;
  std::string_view body;  // the hashed bytes
};

// Reads one line as a record; answers why not.
Result<Parsed> parse_record(std::string_view line, std::size_t max_line) {
  if (line.size() > max_line) {
    return make_error(Errc::limit_exceeded, "the line is " + std::to_string(line.size()) +
                                                " bytes, over the bound of " +
                                                std::to_string(max_line));
  }
  json::ParseOptions bounds;
  bounds.max_bytes = max_line;
  bounds.max_depth = 16;
  Result<json::Value> doc = json::parse(line, bounds);
  if (!doc) return make_error(Errc::parse_error, "not JSON: " + doc.error().message);
  const json::Value* seq = doc->find("seq");
  const json::Value* prev = doc->find("prev");
  const json::Value* hash = doc->find("hash");
  if (seq == nullptr || prev == nullptr || hash == nullptr || !prev->is_string() ||
      !hash->is_string()) {
    return make_error(Errc::parse_error, "not an audit record (seq, prev or hash missing)");
  }
  Result<std::uint64_t> n = seq->to_uint64();
  if (!n || *n == 0) return make_error(Errc::parse_error, "seq is not a positive integer");
  if (!is_hex64(prev->as_string()) || !is_hex64(hash->as_string())) {
    return make_error(Errc::parse_error, "prev or hash is not 64 lowercase hex digits");
  }
  // The hash must be the last member, written exactly as the writer writes it.
  if (line.size() < kHashSuffix ||
      line.substr(line.size() - kHashSuffix, kHashKey.size()) != kHashKey) {
    return make_error(Errc::parse_error, "the hash is not the record's last member");
  }
  return Parsed{*n, prev->as_string(), hash->as_string(),
                line.substr(0, line.size() - kHashSuffix)};
}

class Verifier {
 public:
  explicit Verifier(const VerifyOptions& options) : options_(options) {}

  Report run(std::string_view bytes) {
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos < bytes.size()) {
      std::size_t nl = bytes.find('\n', pos);
      ++line_no;
      if (nl == std::string_view::npos) {
        add(Problem::Kind::torn, line_no, 0,
            "the file ends inside a record (" + std::to_string(bytes.size() - pos) +
                " bytes without a final newline): a writer stopped mid-record");
        break;
      }
      check(bytes.substr(pos, nl - pos), line_no);
      pos = nl + 1;
    }
    return std::move(report_);
  }

 private:
  void check(std::string_view line, std::size_t line_no) {
    Result<Parsed> rec = parse_record(line, options_.max_line_bytes);
    if (!rec) {
      add(Problem::Kind::malformed, line_no, 0, rec.error().message);
      have_prev_ = false;  // nothing to link the next record to
      return;
    }
    ++report_.records;
    if (sha256_hex(rec->body) != rec->hash) {
      add(Problem::Kind::changed, line_no, rec->seq,
          "record " + std::to_string(rec->seq) + " was changed: its hash does not match its bytes");
    }
    if (have_prev_) {
      if (rec->seq <= last_seq_) {
        add(Problem::Kind::reordered, line_no, rec->seq,
            "record " + std::to_string(rec->seq) + " comes after record " +
                std::to_string(last_seq_));
      } else if (rec->seq != last_seq_ + 1) {
        add(Problem::Kind::removed, line_no, rec->seq,
            std::to_string(rec->seq - last_seq_ - 1) + " record(s) missing before record " +
                std::to_string(rec->seq));
      }
      if (rec->prev != last_hash_) {
        add(Problem::Kind::broken_link, line_no, rec->seq,
            "record " + std::to_string(rec->seq) +
                " does not link to the record before it (prev differs from its hash)");
      }
    } else if (line_no == 1 && (rec->seq != 1 || rec->prev != kZeroHash)) {
      add(Problem::Kind::removed, line_no, rec->seq,
          "the file does not start with record 1: records are missing before record " +
              std::to_string(rec->seq));
    }
    have_prev_ = true;
    last_seq_ = rec->seq;
    last_hash_ = rec->hash;
  }

  void add(Problem::Kind kind, std::size_t line, std::uint64_t seq, std::string detail) {
    ++report_.problem_count;
    if (report_.problems.size() < options_.max_problems)
      report_.problems.push_back(Problem{kind, line, seq, std::move(detail)});
  }

  const VerifyOptions& options_;
  Report report_;
  bool have_prev_ = false;
  std::uint64_t last_seq_ = 0;
  std::string last_hash_;
};

}  // namespace

Trail::Trail(std::shared_ptr<Sink> sink, std::uint64_t last_seq, std::string last_hash)
    : sink_(std::move(sink)),
      seq_(last_seq),
      prev_(last_hash.empty() ? std::string(kZeroHash) : std::move(last_hash)) {}

std::uint64_t Trail::last_seq() const {
  std::lock_guard lock(mu_);
  return seq_;
}

Result<void> Trail::append(std::string_view type, std::string_view members, std::int64_t unix_ms) {
  std::lock_guard lock(mu_);
  line_.clear();
  line_ += "{\"seq\":";
  line_ += std::to_string(seq_ + 1);
  line_ += ",\"type\":\"";
  line_ += type;  // our own identifiers: no escaping needed
  line_ += "\",\"t\":";
  line_ += std::to_string(unix_ms);
  if (!members.empty()) {
    line_ += ',';
    line_ += members;
  }
  line_ += ",\"prev\":\"";
  line_ += prev_;
  line_ += '"';
  std::string hash = sha256_hex(line_);
  line_ += kHashKey;
  line_ += hash;
  line_ += "\"}\n";
  Result<void> written = make_error(Errc::internal, "the audit sink threw");
  try {
    written = sink_->append(line_);
  } catch (const std::exception& e) {
    written = make_error(Errc::internal, std::string("the audit sink threw: ") + e.what());
  } catch (...) {}
  if (!written) return written.error();
  ++seq_;
  prev_ = std::move(hash);
  return {};
}

std::shared_ptr<Trail> make_trail(std::shared_ptr<Sink> sink) {
  return std::make_shared<Trail>(std::move(sink), 0, std::string());
}

Result<std::shared_ptr<Trail>> open_file(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("cannot open", path, errno);
  Result<std::string> bytes = read_all(fd, path);
  if (!bytes) {
    ::close(fd);
    return bytes.error();
  }
  std::size_t whole = bytes->rfind('\n');
  whole = whole == std::string::npos ? 0 : whole + 1;
  std::size_t torn = bytes->size() - whole;
  if (torn > 0 && ::ftruncate(fd, static_cast<off_t>(whole)) != 0) {
    int err = errno;
    ::close(fd);
    return os_error("cannot cut the torn last record of", path, err);
  }
  std::uint64_t seq = 0;
  std::string hash;
  if (whole > 0) {
    std::size_t start = bytes->rfind('\n', whole - 2);
    start = start == std::string::npos ? 0 : start + 1;
    Result<Parsed> last = parse_record(std::string_view(*bytes).substr(start, whole - 1 - start),
                                       std::size_t(1) << 20);
    if (!last) {
      ::close(fd);
      return make_error(Errc::parse_error, "audit file '" + path.string() +
                                               "' does not end with a record, so its chain "
                                               "cannot be continued: " +
                                               last.error().message)
          .with_detail("path", path.string());
    }
    seq = last->seq;
    hash = last->hash;
  }
  auto trail = std::make_shared<Trail>(std::make_shared<FileSink>(fd, path, whole), seq, hash);
  if (torn > 0) {
    std::string members = "\"torn_bytes_cut\":" + std::to_string(torn);
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    if (auto noted = trail->append("writer_resumed", members, now.count()); !noted)
      return noted.error();
  }
  return trail;
}

Report verify(std::string_view bytes, const VerifyOptions& options) {
  return Verifier(options).run(bytes);
}

Result<Report> verify_file(const std::filesystem::path& path, const VerifyOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open", path, errno);
  Result<std::string> bytes = read_all(fd, path);
  ::close(fd);
  if (!bytes) return bytes.error();
  return verify(*bytes, options);
}

std::string_view kind_name(Problem::Kind kind) noexcept {
  switch (kind) {
    case Problem::Kind::malformed: return "malformed";
    case Problem::Kind::changed: return "changed";
    case Problem::Kind::removed: return "removed";
    case Problem::Kind::reordered: return "reordered";
    case Problem::Kind::broken_link: return "broken_link";
    case Problem::Kind::torn: return "torn";
  }
  return "unknown";
}

}  // namespace agentkit::audit

// ---- The records of a run -----------------------------------------------------------------------

namespace agentkit::detail {
namespace {

std::int64_t unix_ms(const AgentCore& agent) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(agent.now().time_since_epoch())
      .count();
}

void member(std::string& out, std::string_view key, std::string_view value) {
  if (!out.empty()) out += ',';
  out += '"';
  out += key;
  out += "\":";
  json::append_quoted(out, value);
}

void member_raw(std::string& out, std::string_view key, std::string_view raw) {
  if (!out.empty()) out += ',';
  out += '"';
  out += key;
  out += "\":";
  out += raw;
}

void write(RunContext& rc, std::string_view type, const std::string& members) {
  audit::Trail& trail = *rc.agent.runtime.observability.audit;
  if (auto ok = trail.append(type, members, unix_ms(rc.agent)); !ok) {
    Error e = ok.error();
    e.message = "the audit trail could not record a " + std::string(type) + " record: " + e.message;
    rc.emit(ErrorEvent{std::move(e), false});
  }
}

}  // namespace

void audit_run_start(RunContext& rc, const AgentStartEvent& start) {
  if (!rc.agent.runtime.observability.audit) return;
  std::string m;
  member(m, "session_id", start.session_id);
  member(m, "provider", start.provider);
  member(m, "model", start.model);
  std::string skills = "[";
  for (const auto& s : start.skills) {
    if (skills.size() > 1) skills += ',';
    json::append_quoted(skills, s);
  }
  skills += ']';
  member_raw(m, "skills", skills);
  write(rc, "session_start", m);
}

void audit_run_end(RunContext& rc, const AgentEndEvent& end) {
  if (!rc.agent.runtime.observability.audit) return;
  std::string m;
  member(m, "session_id", rc.session.id);
  member(m, "reason", to_string(end.reason));
  member_raw(m, "usage", json::dump(to_json(end.run_usage)));
  if (!end.error.empty()) member(m, "error", end.error);
  write(rc, "session_end", m);
}

void audit_model_call(RunContext& rc, const AssistantMessage& reply) {
  if (!rc.agent.runtime.observability.audit) return;
  std::string m;
  member(m, "session_id", rc.session.id);
  member(m, "provider", reply.provider);
  member(m, "model", reply.model);
  member(m, "stop_reason", to_string(reply.stop_reason));
  member_raw(m, "usage", json::dump(to_json(reply.usage)));
  if (!reply.error_message.empty()) member(m, "error", reply.error_message);
  write(rc, "model_call", m);
}

void audit_tool_call(RunContext& rc, const AuditedCall& call) {
  if (!rc.agent.runtime.observability.audit) return;
  std::string m;
  m.reserve(256);
  member(m, "session_id", rc.session.id);
  member(m, "tool", call.tool);
  if (!call.server.empty()) member(m, "server", call.server);
  member(m, "arguments_sha256", sha256_hex(call.argument_bytes));
  member(m, "outcome", call.ok ? "ok" : "error");
  if (!call.error_code.empty()) member(m, "error_code", call.error_code);
  member_raw(m, "duration_ms", std::to_string(call.elapsed.count()));
  member(m, "approval", call.approval);
  write(rc, "tool_call", m);
  if (call.ok && !call.skill.empty()) {
    std::string s;
    member(s, "session_id", rc.session.id);
    member(s, "skill", call.skill);
    write(rc, "skill_loaded", s);
  }
}

}  // namespace agentkit::detail
