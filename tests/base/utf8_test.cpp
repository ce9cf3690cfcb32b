#include "agentkit/base/utf8.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "agentkit/base/hex.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace utf8 = agentkit::utf8;

TEST_CASE("ascii and well-formed multi-byte text is valid UTF-8") {
  CHECK(utf8::is_valid(""));
  CHECK(utf8::is_valid("plain ascii text that is longer than one eight-byte block"));
  CHECK(utf8::is_valid("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK(utf8::is_valid("\xEF\xBF\xBF\xF4\x8F\xBF\xBF"));  // U+FFFF and U+10FFFF
  CHECK(utf8::validate("h\xC3\xA9llo").has_value());
}

TEST_CASE("every ill-formed sequence is refused at the offset where it starts") {
  struct Case {
    std::string bytes;
    std::size_t offset;
  };
  const std::vector<Case> cases = {
      {"ab\x80", 2},                       // lone continuation byte
      {"abc\xC0\xAF", 3},                  // overlong '/' (C0 is never valid)
      {"\xC1\xBF", 0},                     // overlong (C1)
      {"x\xE0\x80\xAF", 1},                // overlong 3-byte form
      {"xy\xF0\x80\x80\xAF", 2},           // overlong 4-byte form
      {"\xED\xA0\x80", 0},                 // surrogate U+D800
      {"ok\xED\xBF\xBF", 2},               // surrogate U+DFFF
      {"\xF4\x90\x80\x80", 0},             // U+110000
      {"\xF5\x80\x80\x80", 0},             // lead byte above F4
      {"\xFF", 0},
      {"abcdefgh\xC3", 8},                 // truncated at the end, after a full ASCII block
      {"abcdefghijk\xE2\x82", 11},         // truncated 3-byte sequence
      {"\xE2\x28\xA1", 0},                 // bad second byte
      {"\xF0\x9F\x98\x28", 0},             // bad fourth byte
  };
  for (const auto& c : cases) {
    INFO("input " << agentkit::hex::encode(c.bytes));
    CHECK_FALSE(utf8::is_valid(c.bytes));
    REQUIRE(utf8::find_invalid(c.bytes) == c.offset);
    auto r = utf8::validate(c.bytes);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == agentkit::Errc::parse_error);
    CHECK(r.error().find_detail("offset") == std::to_string(c.offset));
    auto d = utf8::decode(c.bytes);
    REQUIRE_FALSE(d);
    CHECK(d.error().find_detail("offset") == std::to_string(c.offset));
    CHECK_FALSE(utf8::count_code_points(c.bytes));
  }
}

TEST_CASE("decoding yields the code points and decode_front their lengths") {
  auto d = utf8::decode("A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  REQUIRE(d);
  CHECK(*d == std::u32string{U'A', U'\u00E9', U'\u20AC', U'\U0001F600'});
  CHECK(utf8::decode_front("\xE2\x82\xAC!") == utf8::DecodedChar{U'\u20AC', 3});
  CHECK_FALSE(utf8::decode_front(""));
  CHECK_FALSE(utf8::decode_front("\xE2\x82"));
}

TEST_CASE("encoding covers every length class and refuses non-characters") {
  CHECK(utf8::encode(U'A').value() == "A");
  CHECK(utf8::encode(0x7F).value() == "\x7F");
  CHECK(utf8::encode(0x80).value() == "\xC2\x80");
  CHECK(utf8::encode(0x7FF).value() == "\xDF\xBF");
  CHECK(utf8::encode(0x800).value() == "\xE0\xA0\x80");
  CHECK(utf8::encode(0xFFFF).value() == "\xEF\xBF\xBF");
  CHECK(utf8::encode(0x10000).value() == "\xF0\x90\x80\x80");
  CHECK(utf8::encode(0x10FFFF).value() == "\xF4\x8F\xBF\xBF");
  for (char32_t bad : {char32_t{0xD800}, char32_t{0xDFFF}, char32_t{0x110000}, char32_t{0xFFFFFFFF}}) {
    std::string out = "keep";
    auto r = utf8::append(out, bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == agentkit::Errc::invalid_argument);
    CHECK(out == "keep");
  }
}

TEST_CASE("every scalar value round-trips through encode and decode") {
  std::string all;
  std::size_t count = 0;
  for (char32_t cp = 0; cp <= utf8::max_code_point; ++cp) {
    if (!utf8::is_scalar_value(cp)) continue;
    REQUIRE(utf8::append(all, cp));
    ++count;
  }
  CHECK(utf8::is_valid(all));
  CHECK(utf8::count_code_points(all).value() == count);
  auto back = utf8::decode(all);
  REQUIRE(back);
  REQUIRE(back->size() == count);
  CHECK((*back)[0x41] == U'A');
  CHECK(back->back() == utf8::max_code_point);
}

TEST_CASE("counting code points counts characters, not bytes") {
  CHECK(utf8::count_code_points("").value() == 0);
  CHECK(utf8::count_code_points("abcdefghij").value() == 10);
  CHECK(utf8::count_code_points("\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80").value() == 5);
}

TEST_CASE("truncation never splits a character and never keeps invalid bytes") {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // 1 + 2 + 3 + 4 bytes
  CHECK(utf8::truncate_code_points(s, 0) == "");
  CHECK(utf8::truncate_code_points(s, 2) == "a\xC3\xA9");
  CHECK(utf8::truncate_code_points(s, 99) == s);
  CHECK(utf8::truncate_bytes(s, 0) == "");
  CHECK(utf8::truncate_bytes(s, 1) == "a");
  CHECK(utf8::truncate_bytes(s, 2) == "a");           // would split U+00E9
  CHECK(utf8::truncate_bytes(s, 3) == "a\xC3\xA9");
  CHECK(utf8::truncate_bytes(s, 5) == "a\xC3\xA9");   // would split U+20AC
  CHECK(utf8::truncate_bytes(s, 9) == "a\xC3\xA9\xE2\x82\xAC");
  CHECK(utf8::truncate_bytes(s, 10) == s);
  CHECK(utf8::truncate_bytes("ab\xFF" "cd", 10) == "ab");
  CHECK(utf8::truncate_code_points("ab\xFF" "cd", 10) == "ab");
}

// Python's strict UTF-8 decoder is an independent implementation of the same RFC 3629 rules: for
// random byte strings biased towards UTF-8 shapes, validity and the first error offset must agree.
TEST_CASE("validity and error offsets agree with Python's strict UTF-8 decoder") {
  REQUIRE(agentkit::testing::find_program("python3"));
  std::mt19937 rng(20261130);
  const std::vector<std::string> pieces = {"a", "Z", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                           "\x80", "\xC0", "\xED\xA0", "\xF4\x90", "\xE0", "\xFF",
                                           "\xF0\x9F", "\xDF", "\xBF"};
  std::vector<std::string> inputs;
  std::string lines;
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) s += pieces[rng() % pieces.size()];
    inputs.push_back(s);
    lines += agentkit::hex::encode(s) + "\n";
  }
  const std::string script =
      "import sys\n"
      "for line in sys.stdin:\n"
      "    b = bytes.fromhex(line.strip())\n"
      "    try:\n"
      "        b.decode('utf-8'); print('ok')\n"
      "    except UnicodeDecodeError as e:\n"
      "        print(e.start)\n";
  auto out = agentkit::testing::run_program({"python3", "-c", script}, lines);
  REQUIRE(out.exit_code == 0);
  std::size_t pos = 0;
  for (const auto& s : inputs) {
    const std::size_t eol = out.out.find('\n', pos);
    REQUIRE(eol != std::string::npos);
    const std::string verdict = out.out.substr(pos, eol - pos);
    pos = eol + 1;
    INFO("input " << agentkit::hex::encode(s));
    const auto bad = utf8::find_invalid(s);
    if (verdict == "ok") {
      CHECK_FALSE(bad);
    } else {
      REQUIRE(bad);
      CHECK(std::to_string(*bad) == verdict);
    }
  }
}

// The ASCII fast path reads eight bytes at a time; a stray byte in any lane of any block must stop it.
TEST_CASE("a non-ASCII byte is found in every position of the eight-byte fast path") {
  for (std::size_t pos = 0; pos < 40; ++pos) {
    std::string s(40, 'a');
    s[pos] = '\x80';
    INFO("position " << pos);
    CHECK(utf8::find_invalid(s) == pos);
    s[pos] = '\xC3';
    if (pos + 1 < s.size()) s[pos + 1] = '\xA9';
    CHECK(utf8::is_valid(s) == (pos + 1 < s.size()));
    CHECK(utf8::count_code_points(s).has_value() == (pos + 1 < s.size()));
  }
}

// Python's encoder with 'surrogatepass' writes every code point, surrogates included, as its bit
// pattern: the independent reference for the unchecked encoder the JSON parser and regex use.
TEST_CASE("the unchecked encoder writes every code point as Python's surrogatepass encoder does") {
  REQUIRE(agentkit::testing::find_program("python3"));
  std::string ours;
  std::size_t lengths_ok = 0;
  for (char32_t cp = 0; cp <= utf8::max_code_point; ++cp) {
    char bytes[utf8::max_encoded_length];
    const char* end = utf8::encode_unchecked(cp, bytes);
    const auto n = static_cast<std::size_t>(end - bytes);
    if (n == utf8::encoded_length(cp)) ++lengths_ok;
    ours.append(bytes, n);
  }
  CHECK(lengths_ok == std::size_t{utf8::max_code_point} + 1);
  const std::string script =
      "import sys\n"
      "data = ''.join(map(chr, range(0x110000))).encode('utf-8', 'surrogatepass')\n"
      "sys.stdout.write(data.hex())\n";
  auto out = agentkit::testing::run_program({"python3", "-c", script}, "");
  REQUIRE(out.exit_code == 0);
  const std::string expected = out.out;
  const std::string actual = agentkit::hex::encode(ours);
  // The first differing byte, not the 8 MiB strings, is what a failure should print.
  const auto mismatch =
      std::mismatch(actual.begin(), actual.end(), expected.begin(), expected.end());
  const auto at = static_cast<std::size_t>(mismatch.first - actual.begin()) / 2;
  INFO("first difference at byte " << at << " of " << ours.size());
  CHECK(actual.size() == expected.size());
  CHECK(mismatch.first == actual.end());
}

TEST_CASE("encoded lengths change exactly at the RFC 3629 boundaries") {
  CHECK(utf8::encoded_length(0x7F) == 1);
  CHECK(utf8::encoded_length(0x80) == 2);
  CHECK(utf8::encoded_length(0x7FF) == 2);
  CHECK(utf8::encoded_length(0x800) == 3);
  CHECK(utf8::encoded_length(0xD800) == 3);
  CHECK(utf8::encoded_length(0xFFFF) == 3);
  CHECK(utf8::encoded_length(0x10000) == 4);
  CHECK(utf8::encoded_length(0x10FFFF) == 4);
}
