// The never-refusing loader: one test per repair kind, newer versions, bad paths.
#include "agentkit/session/log.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "session/session_support.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using agentkit::testing::lines_of;

namespace {

constexpr std::string_view kHeader =
    R"({"type":"session","version":1,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"})";

std::string entry(std::string_view id, std::string_view parent, std::string_view text) {
  std::string p = parent.empty() ? "null" : "\"" + std::string(parent) + "\"";
  return R"({"id":")" + std::string(id) + R"(","parent_id":)" + p +
         R"(,"type":"message","timestamp":"t","message":{"role":"user","content":)" +
         R"([{"type":"text","text":")" + std::string(text) + "\"}]}}";
}

std::string log_of(std::initializer_list<std::string> lines) {
  std::string out(kHeader);
  out += '\n';
  for (const std::string& l : lines) out += l + '\n';
  return out;
}

std::vector<session::RepairKind> kinds(const session::LoadResult& r) {
  std::vector<session::RepairKind> out;
  for (const auto& repair : r.repairs) out.push_back(repair.kind);
  return out;
}

using K = session::RepairKind;

}  // namespace

TEST_CASE("a torn last line and a newer version's entry type load with exactly two repairs") {
  // REQ-SESS-05
  // Spacing and an escape our own writer would not produce: only a verbatim copy keeps them.
  std::string future =
      R"({"id":"f1", "parent_id":"a","type":"future_x","timestamp":"t","x":[1.50,"\u00e9"]})";
  std::string bytes =
      log_of({entry("a", "", "hi"), future}) + entry("b", "f1", "cut").substr(0, 30);
  auto loaded = session::parse_log(bytes);
  REQUIRE(loaded.entries.size() == 2);
  CHECK(kinds(loaded) == std::vector<K>{K::unknown_type, K::torn_last_line});
  CHECK(loaded.entries[1].type == session::EntryType::unknown);
  std::vector<std::string> out = lines_of(session::to_jsonl(loaded));
  REQUIRE(out.size() == 3);
  CHECK(out[0] == kHeader);
  CHECK(out[2] == future);  // byte for byte
}

TEST_CASE("NUL padding left by a power loss is skipped, at the end and at a line start") {
  std::string bytes = log_of({entry("a", "", "one")}) + std::string(5, '\0') +
                      entry("b", "a", "two") + "\n" + std::string(64, '\0');
  auto loaded = session::parse_log(bytes);
  CHECK(loaded.entries.size() == 2);
  CHECK(kinds(loaded) == std::vector<K>{K::nul_padding, K::nul_padding});
  CHECK(loaded.intact_bytes == bytes.size() - 64);
}

TEST_CASE("a corrupt line in the middle is skipped and reported, the lines after it load") {
  // Resuming must not stop at the first malformed line.
  std::string bytes = log_of({entry("a", "", "one"), "{not json", "[1,2]", R"({"type":"message"})",
                              entry("b", "a", "two")});
  auto loaded = session::parse_log(bytes);
  REQUIRE(loaded.entries.size() == 2);
  CHECK(loaded.entries[1].id == "b");
  CHECK(kinds(loaded) == std::vector<K>{K::corrupt_line, K::corrupt_line, K::corrupt_line});
  CHECK(loaded.repairs[0].line == 3);
}

TEST_CASE("a repeated id, a bad payload and a second header are corrupt lines") {
  std::string bad_payload = R"({"id":"c","parent_id":"a","type":"model_change","model":7})";
  std::string bytes = log_of({entry("a", "", "one"), entry("a", "", "again"), bad_payload,
                              std::string(kHeader)});
  auto loaded = session::parse_log(bytes);
  CHECK(loaded.entries.size() == 1);
  CHECK(kinds(loaded) == std::vector<K>{K::corrupt_line, K::corrupt_line, K::corrupt_line});
}

TEST_CASE("a thinking level naming no known level is a corrupt line; null (no level set) loads") {
  std::string unset =
      R"({"id":"t1","parent_id":"a","type":"thinking_level_change","thinking_level":null})";
  std::string bogus =
      R"({"id":"t2","parent_id":"t1","type":"thinking_level_change","thinking_level":"galaxy"})";
  auto loaded = session::parse_log(log_of({entry("a", "", "one"), unset, bogus}));
  REQUIRE(loaded.entries.size() == 2);
  CHECK(kinds(loaded) == std::vector<K>{K::corrupt_line});
  CHECK(session::thinking_level_of(loaded.entries[1]).value() == std::nullopt);
  CHECK(session::fold(loaded.entries, "t1").thinking == std::nullopt);
}

TEST_CASE(
    "an unknown entry with a dangling parent is re-parented in memory, written back byte for "
    "byte") {
  std::string newer =
      R"({"id":"u","parent_id":"gone","type":"approval_v9","timestamp":"t",  "x":[1.50]})";
  auto loaded = session::parse_log(log_of({entry("a", "", "one"), newer}));
  REQUIRE(loaded.entries.size() == 2);
  CHECK(loaded.entries[1].parent_id == "a");
  CHECK(kinds(loaded) == std::vector<K>{K::unknown_type, K::dangling_parent});
  std::string again = session::to_jsonl(loaded);
  CHECK(lines_of(again).at(2) == newer);
  // Stable: the same bytes load to the same tree with the same two repairs.
  auto reloaded = session::parse_log(again);
  CHECK(reloaded.entries[1].parent_id == "a");
  CHECK(session::to_jsonl(reloaded) == again);
}

TEST_CASE("a line repeating a top-level key, or a message payload that is no object, is corrupt") {
  std::string twice = R"({"id":"b","id":"c","parent_id":"a","type":"custom_message",)"
                      R"("custom_type":"n","content":"x"})";
  std::string flat = R"({"id":"d","parent_id":"a","type":"message","message":"hello"})";
  auto loaded = session::parse_log(log_of({entry("a", "", "one"), twice, flat}));
  REQUIRE(loaded.entries.size() == 1);
  CHECK(kinds(loaded) == std::vector<K>{K::corrupt_line, K::corrupt_line});
  CHECK(loaded.repairs[0].detail.find("duplicate") != std::string::npos);
}

TEST_CASE("a dangling parent is re-parented to the last valid entry and said so") {
  auto loaded = session::parse_log(log_of({entry("a", "", "one"), entry("b", "gone", "two")}));
  REQUIRE(loaded.entries.size() == 2);
  CHECK(loaded.entries[1].parent_id == "a");
  CHECK(kinds(loaded) == std::vector<K>{K::dangling_parent});
  CHECK(loaded.repairs[0].detail.find("gone") != std::string::npos);
  // The repair is in memory: what re-serialises loads with no repair at all.
  CHECK(session::parse_log(session::to_jsonl(loaded)).repairs.empty());
}

TEST_CASE("a missing header is synthesised in memory and the file is not changed") {
  agentkit::testing::TempDir dir;
  std::string bytes = entry("a", "", "one") + "\n";
  auto path = dir.write("s.jsonl", bytes);
  auto log = session::Log::open(session::file_store(path), {}).value();
  CHECK(log.contents().header.synthesized);
  CHECK(kinds(log.contents()) == std::vector<K>{K::missing_header});
  CHECK(log.contents().entries.size() == 1);
  CHECK(agentkit::testing::read_file(path) == bytes);
}

TEST_CASE("raw U+2028 and U+2029 inside strings survive a load") {
  std::string text = "a\xE2\x80\xA8" "b\xE2\x80\xA9" "c";
  auto loaded = session::parse_log(log_of({entry("a", "", text)}));
  REQUIRE(loaded.repairs.empty());
  auto m = session::message_of(loaded.entries[0]).value();
  CHECK(text_of(std::get<UserMessage>(m).content) == text);
  auto again = session::parse_log(session::to_jsonl(loaded));
  CHECK(text_of(std::get<UserMessage>(session::message_of(again.entries[0]).value()).content) ==
        text);
}

TEST_CASE("a log ending in an unanswered tool call loads with that call still last") {
  // REQ-SESS-06: the loader repairs structure only; send-time repair answers the call.
  session::MemoryStore memory;
  {
    auto log = session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
    REQUIRE(log.append_message(user_text("read a.txt")));
    AssistantMessage call;
    call.content.push_back(ToolUseBlock{"call_1", "read", json::Raw(R"({"path":"a.txt"})"), ""});
    call.stop_reason = StopReason::tool_use;
    REQUIRE(log.append_message(call));
  }
  auto log = session::Log::open(std::make_unique<session::MemoryStore>(memory), {}).value();
  CHECK(log.contents().repairs.empty());
  auto state = session::fold(log.contents().entries, log.leaf());
  REQUIRE(state.messages.size() == 2);
  const auto& last = std::get<AssistantMessage>(state.messages.back());
  REQUIRE(has_tool_use(last));
  CHECK(tool_uses(last)[0]->input.str() == R"({"path":"a.txt"})");
}

TEST_CASE("a log written by a newer version loads and writes its header back unchanged") {
  std::string header =
      R"({"type":"session","version":3,"id":"s9","timestamp":"t","cwd":"/w","origin":"v3"})";
  std::string future = R"({"id":"z","parent_id":"a","type":"approval_v3","detail":{"k":[]}})";
  auto loaded = session::parse_log(header + "\n" + entry("a", "", "x") + "\n" + future + "\n");
  CHECK(loaded.header.version == 3);
  CHECK(loaded.header.id == "s9");
  CHECK(kinds(loaded) == std::vector<K>{K::unknown_type});
  auto out = lines_of(session::to_jsonl(loaded));
  CHECK(out[0] == header);
  CHECK(out[2] == future);
}

TEST_CASE("opening a log with a torn tail cuts it so the next line starts clean") {
  agentkit::testing::TempDir dir;
  std::string intact = log_of({entry("a", "", "one")});
  auto path = dir.write("s.jsonl", intact + R"({"id":"b","parent_id":"a","ty)");
  {
    auto log = session::Log::open(session::file_store(path), {}).value();
    CHECK(kinds(log.contents()) == std::vector<K>{K::torn_last_line});
    CHECK(agentkit::testing::read_file(path) == intact);
    REQUIRE(log.append_message(user_text("two")));
  }
  auto reloaded = session::load(*session::file_store(path)).value();
  CHECK(reloaded.repairs.empty());
  CHECK(reloaded.entries.size() == 2);
}

TEST_CASE("a path that is a directory or cannot be reached is an error, never a blank log") {
  agentkit::testing::TempDir dir;
  auto as_dir = session::load(*session::file_store(dir.path()));
  REQUIRE_FALSE(as_dir);
  CHECK(as_dir.error().code == Errc::io_error);
  CHECK(as_dir.error().message.find("directory") != std::string::npos);
  CHECK_FALSE(session::Log::open(session::file_store(dir.path()), {}));
  CHECK(session::Log::create(session::file_store(dir.path()), {}).error().code ==
        Errc::already_exists);

  // Through a regular file (ENOTDIR): unreadable even for root.
  auto file = dir.write("plain", "x");
  auto through = session::load(*session::file_store(file / "s.jsonl"));
  REQUIRE_FALSE(through);
  CHECK(through.error().code == Errc::io_error);
  auto missing = session::load(*session::file_store(dir.path() / "absent.jsonl"));
  CHECK(missing.error().code == Errc::not_found);
}

TEST_CASE("what the loader kept re-serialises to bytes that load again identically") {
  std::string bytes = log_of({entry("a", "", "one"), "garbage", entry("b", "zz", "two"),
                              R"({"id":"u","parent_id":"b","type":"later","v":1})"}) +
                      std::string(2, '\0');
  auto first = session::parse_log(bytes);
  std::string once = session::to_jsonl(first);
  auto second = session::parse_log(once);
  CHECK(session::to_jsonl(second) == once);
  CHECK(kinds(second) == std::vector<K>{K::unknown_type});
}

TEST_CASE("bounds: a line nested past the parser's depth is a corrupt line, a 4 MB line loads") {
  std::string deep = R"({"id":"d","parent_id":null,"type":"x","v":)" + std::string(10'000, '[') +
                     std::string(10'000, ']') + "}";
  std::string big = entry("b", "", std::string(4 << 20, 'z'));
  auto loaded = session::parse_log(log_of({deep, big}));
  REQUIRE(loaded.entries.size() == 1);
  CHECK(loaded.entries[0].id == "b");
  CHECK(kinds(loaded) == std::vector<K>{K::corrupt_line});
  CHECK(loaded.repairs[0].line == 2);
}

namespace {

// A store that hands its bytes to the loader in pieces cut where the test says.
class PieceStore final : public session::Store {
 public:
  PieceStore(std::string bytes, std::vector<std::size_t> cuts)
      : bytes_(std::move(bytes)), cuts_(std::move(cuts)) {}
  Result<void> lock(std::string_view) override { return {}; }
  Result<std::string> read() override { return bytes_; }
  Result<void> read_pieces(const std::function<void(std::string_view)>& consume) override {
    std::size_t at = 0;
    for (std::size_t cut : cuts_) {
      cut = std::min(cut, bytes_.size());
      if (cut < at) continue;
      consume(std::string_view(bytes_).substr(at, cut - at));
      at = cut;
    }
    consume(std::string_view(bytes_).substr(at));
    return {};
  }
  std::optional<std::uint64_t> size_hint() override { return bytes_.size(); }
  Result<void> create(std::string_view) override { return {}; }
  Result<void> append(std::string_view) override { return {}; }
  Result<void> sync() override { return {}; }
  Result<void> truncate(std::uint64_t size) override {
    truncated_to = size;
    return {};
  }
  std::string describe() const override { return "piece store"; }

  std::optional<std::uint64_t> truncated_to;

 private:
  std::string bytes_;
  std::vector<std::size_t> cuts_;
};

// Everything a load answers, as one comparable text.
std::string summary(const session::LoadResult& r) {
  std::string out = r.header.verbatim + "|" + std::to_string(r.header.synthesized) + "|" +
                    std::to_string(r.intact_bytes) + "\n" + session::to_jsonl(r);
  for (const session::Entry& e : r.entries) out += e.parent_id + "<" + e.id + " ";
  for (const session::Repair& repair : r.repairs) {
    out += "\n" + std::string(session::to_string(repair.kind)) + "@" + std::to_string(repair.line) +
           ": " + repair.detail;
  }
  return out;
}

}  // namespace

TEST_CASE("a log read in pieces loads exactly as one read whole, wherever the pieces are cut") {
  // Every repair kind, a line with raw U+2028, NUL padding inside and at the end, a torn tail:
  // each cut point falls inside each of them once.
  const std::string bytes =
      log_of({entry("a", "", "one \xE2\x80\xA8 two"), "garbage", entry("b", "zz", "x"),
              R"({"id":"u","parent_id":"b","type":"later","v":1})", entry("a", "b", "repeat")}) +
      std::string(3, '\0') + entry("c", "u", "after the padding") + "\n" +
      entry("d", "c", "torn").substr(0, 25);
  const std::string whole = summary(session::parse_log(bytes));
  for (std::size_t size = 1; size <= 9; ++size) {
    std::vector<std::size_t> cuts;
    for (std::size_t at = size; at < bytes.size(); at += size) cuts.push_back(at);
    PieceStore store(bytes, cuts);
    INFO("pieces of " << size << " bytes");
    CHECK(summary(session::load(store).value()) == whole);
  }
  for (std::size_t at = 0; at <= bytes.size(); ++at) {
    PieceStore store(bytes, {at});
    INFO("one cut at byte " << at);
    REQUIRE(summary(session::load(store).value()) == whole);
  }
}

TEST_CASE("opening a log read in pieces cuts the torn tail at the same place") {
  const std::string bytes = log_of({entry("a", "", "one")}) + entry("b", "a", "two").substr(0, 9);
  auto store = std::make_unique<PieceStore>(bytes, std::vector<std::size_t>{3, 40, 41});
  PieceStore* probe = store.get();
  auto log = session::Log::open(std::move(store), {}).value();
  CHECK(log.contents().entries.size() == 1);
  REQUIRE(probe->truncated_to.has_value());
  CHECK(*probe->truncated_to == bytes.size() - 9);
}

TEST_CASE("the file store hands a log larger than its read buffer to the loader whole") {
  // Lines of 100 kB and of a few bytes, so that the file store's pieces end inside lines, at
  // line ends and inside multi-byte characters.
  agentkit::testing::TempDir dir;
  const auto path = dir.path() / "big.jsonl";
  std::string bytes(kHeader);
  bytes += '\n';
  std::string previous;
  for (int i = 0; i < 40; ++i) {
    const std::string id = "e" + std::to_string(i);
    const std::string text = i % 3 == 0 ? std::string(100'000 + i, 'x') + "\xE2\x82\xAC" : "s";
    bytes += entry(id, previous, text) + "\n";
    previous = id;
  }
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    std::fclose(f);
  }
  auto store = session::file_store(path);
  CHECK(store->size_hint() == std::optional<std::uint64_t>(bytes.size()));
  const session::LoadResult loaded = session::load(*store).value();
  CHECK(loaded.repairs.empty());
  CHECK(loaded.entries.size() == 40);
  CHECK(summary(loaded) == summary(session::parse_log(bytes)));
}
