// The audit verifier (agentkit/audit.hpp) on arbitrary bytes: it must never crash, its counts must
// agree with each other, and every problem must name a line that exists. A valid chain built from
// the input's lines must verify clean.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "agentkit/audit.hpp"
#include "agentkit/json/value.hpp"

using namespace agentkit;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

class StringSink final : public audit::Sink {
 public:
  std::string bytes;
  Result<void> append(std::string_view line) override {
    bytes += line;
    return {};
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  audit::VerifyOptions options;
  options.max_line_bytes = 4096;
  options.max_problems = 16;
  audit::Report r = audit::verify(bytes, options);
  std::size_t lines = 0;
  for (char c : bytes) lines += c == '\n' ? 1 : 0;
  if (!bytes.empty() && bytes.back() != '\n') ++lines;
  require(r.records <= lines);
  require(r.problems.size() <= options.max_problems);
  require(r.problems.size() <= r.problem_count);
  for (const auto& p : r.problems) require(p.line >= 1 && p.line <= lines);

  // Each input line as the facts of one record (quoted, so any bytes are a valid member): the
  // chain the writer makes of them always verifies.
  auto sink = std::make_shared<StringSink>();
  auto trail = audit::make_trail(sink);
  std::size_t pos = 0;
  int written = 0;
  while (pos < bytes.size() && written < 64) {
    std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) nl = bytes.size();
    std::string members = "\"fact\":";
    json::append_quoted(members, bytes.substr(pos, nl - pos));
    require(static_cast<bool>(trail->append("fuzz", members, written)));
    ++written;
    pos = nl + 1;
  }
  audit::Report clean = audit::verify(sink->bytes);
  // A line of invalid UTF-8 is escaped by append_quoted only if valid; the parser may refuse it.
  for (const auto& p : clean.problems) require(p.kind == audit::Problem::Kind::malformed);
  return 0;
}
