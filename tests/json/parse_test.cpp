// json::parse and json::dump: round trips, escapes, UTF-8, errors and the limits.
#include <string>
#include <vector>
#include <thread>

#include "agentkit/json/value.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"
#include "parse_scratch.hpp"

using namespace agentkit;
using json::Value;

namespace {

std::string roundtrip(std::string_view text) { return json::dump(json::parse(text).value()); }

Error parse_error(std::string_view text, const json::ParseOptions& options = {}) {
  auto r = json::parse(text, options);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

std::string detail_of(const Error& e, std::string_view key) {
  const auto d = e.find_detail(key);
  return d ? std::string(*d) : std::string("<none>");
}

}  // namespace

TEST_CASE("number literals survive a round trip exactly as written") {
  for (const char* text : {"1.0", "10000000000000000001", "-0", "1E+2", "1e-7", "-0.0", "123456789012345678901234567890.5e-3",
                           "0.10", "2.5E400"}) {
    INFO(text);
    CHECK(roundtrip(text) == text);
    CHECK(roundtrip(std::string("[") + text + "]") == std::string("[") + text + "]");
  }
}

TEST_CASE("member order and nesting survive a round trip, whitespace is dropped") {
  CHECK(roundtrip(R"( { "b" : 1 , "a" : [ true , false , null , { } , [ ] ] , "c" : { "z" : "" } } )") ==
        R"({"b":1,"a":[true,false,null,{},[]],"c":{"z":""}})");
}

TEST_CASE("escapes decode to UTF-8 and dump back to the minimal form") {
  const Value v = json::parse(R"("q\" b\\ s\/ \b\f\n\r\t \u0001 \u00e9 \u20AC \ud83d\ude00 \u0000")").value();
  CHECK(v.as_string() == std::string("q\" b\\ s/ \b\f\n\r\t \x01 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \0", 30));
  CHECK(json::dump(v) == std::string(R"("q\" b\\ s/ \b\f\n\r\t \u0001 )") + "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \\u0000\"");
}

TEST_CASE("U+2028 and U+2029 are escaped on output so the text is also safe JavaScript") {
  const Value v = json::parse("\"a\xE2\x80\xA8" "b\\u2029c\"").value();
  CHECK(v.as_string() == "a\xE2\x80\xA8" "b\xE2\x80\xA9" "c");
  CHECK(json::dump(v) == R"("a\u2028b\u2029c")");
}

TEST_CASE("ascii_only escapes every non-ASCII character, astral ones as surrogate pairs") {
  const Value v("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80x");
  json::DumpOptions ascii;
  ascii.ascii_only = true;
  CHECK(json::dump(v, ascii) == R"("\u00e9\u20ac\ud83d\ude00x")");
  CHECK(json::parse(json::dump(v, ascii)).value() == v);
}

TEST_CASE("bytes that are not UTF-8 in a caller's string are printed as U+FFFD, never raw") {
  const Value v(std::string("a\xFF" "b\xC3", 4));
  CHECK(json::dump(v) == R"("a\ufffdb\ufffd")");
  CHECK(json::parse(json::dump(v)).has_value());
}

TEST_CASE("pretty printing indents nested containers and keeps empty ones short") {
  json::DumpOptions pretty;
  pretty.indent = 2;
  CHECK(json::dump(json::parse(R"({"a":[1,{}],"b":{"c":[]}})").value(), pretty) ==
        "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {\n    \"c\": []\n  }\n}");
  CHECK(json::dump(Value(json::Array{}), pretty) == "[]");
  pretty.indent = 0;
  CHECK(json::dump(json::parse("[1,2]").value(), pretty) == "[\n1,\n2\n]");
}

TEST_CASE("append_quoted appends one escaped string") {
  std::string out = "x=";
  json::append_quoted(out, "a\"b\n");
  CHECK(out == R"(x="a\"b\n")");
}

namespace {

// The escaping json::dump promises, one character at a time, for well-formed UTF-8: quote,
// backslash and C0 controls escaped (the five with short forms short), U+2028 and U+2029
// escaped, and with ascii_only every other non-ASCII character as \u escapes (astral ones as a
// surrogate pair); everything else as it is.
std::string reference_quoted(const std::string& s, bool ascii_only) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto u_escape = [](std::string& out, unsigned unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
  };
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    unsigned cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; k < n; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    const std::string bytes = s.substr(i, n);
    i += n;
    if (cp == '"') out += "\\\"";
    else if (cp == '\\') out += "\\\\";
    else if (cp == '\b') out += "\\b";
    else if (cp == '\f') out += "\\f";
    else if (cp == '\n') out += "\\n";
    else if (cp == '\r') out += "\\r";
    else if (cp == '\t') out += "\\t";
    else if (cp < 0x20 || cp == 0x2028 || cp == 0x2029) u_escape(out, cp);
    else if (cp < 0x80 || !ascii_only) out += bytes;
    else if (cp < 0x10000) u_escape(out, cp);
    else {
      u_escape(out, 0xD800 + ((cp - 0x10000) >> 10));
      u_escape(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
  }
  return out + "\"";
}

}  // namespace

TEST_CASE(
    "append_quoted writes the reference escaping for every character at every position of "
    "strings up to 80 bytes") {
  // Short strings take a whole-string path, longer ones the word scan: each special character
  // placed at each position of each length checks both paths and the seam between them.
  const std::vector<std::string> specials = {"\"",
                                             "\\",
                                             std::string(1, '\0'),
                                             "\x01",
                                             "\b",
                                             "\t",
                                             "\n",
                                             "\x1f",
                                             "\x7f",
                                             "/",
                                             "\xC3\xA9",
                                             "\xE2\x80\xA8",
                                             "\xE2\x80\xA9",
                                             "\xE2\x82\xAC",
                                             "\xF0\x9F\x98\x80",
                                             "\xEF\xBF\xBF"};
  for (std::size_t length = 0; length <= 80; ++length) {
    for (const std::string& special : specials) {
      for (std::size_t at = 0; at <= length; ++at) {
        const std::string s = std::string(at, 'a') + special + std::string(length - at, 'b');
        for (const bool ascii_only : {false, true}) {
          std::string out = "<";
          json::append_quoted(out, s, ascii_only);
          INFO("length " << length << ", at " << at << ", ascii_only " << ascii_only);
          REQUIRE(out == "<" + reference_quoted(s, ascii_only));
        }
      }
    }
    std::string plain = "<";
    json::append_quoted(plain, std::string(length, 'p'));
    REQUIRE(plain == "<\"" + std::string(length, 'p') + "\"");
  }
}

TEST_CASE("invalid UTF-8 inside a string is a parse error with its offset") {
  for (const std::string& bad : {std::string("\"\xFF\""), std::string("\"\xC0\xAF\""), std::string("\"\xED\xA0\x80\""),
                                std::string("\"\xF4\x90\x80\x80\""), std::string("\"\xE2\x82\""), std::string("\"a\x80\""),
                                std::string("\"\xF0\x9F\x98\"")}) {
    const Error e = parse_error(bad);
    CHECK(e.code == Errc::parse_error);
    CHECK(detail_of(e, "reason") == "invalid UTF-8");
  }
  CHECK(detail_of(parse_error("\"abc\xFF\""), "offset") == "4");
}

TEST_CASE("a short string is checked like a long one when the rest of the document follows it") {
  // Strings whose closing quote falls within eight bytes of the opening one take a shorter path
  // when eight bytes follow; every check must still apply there, for keys and values alike.
  const std::string padding = R"(,"padding":"0123456789abcdef"})";
  for (const std::string& bad : {std::string("\xFF"), std::string("\xC0\xAF"), std::string("a\x80"),
                                 std::string("\xE2\x82"), std::string("\xED\xA0\x80")}) {
    INFO(bad);
    CHECK(detail_of(parse_error("{\"k\":\"" + bad + "\"" + padding), "reason") == "invalid UTF-8");
    CHECK(detail_of(parse_error("{\"" + bad + "\":1" + padding), "reason") == "invalid UTF-8");
  }
  const Error control = parse_error("{\"k\":\"a\x01\"" + padding);
  CHECK(detail_of(control, "reason") == "a control character must be escaped inside a string");
  CHECK(detail_of(control, "offset") == "7");
  // Every length around the eight-byte word, at the end of the input and inside it.
  for (std::size_t n = 0; n <= 17; ++n) {
    const std::string text(n, 'x');
    INFO(n);
    CHECK(json::parse("\"" + text + "\"").value().as_string() == text);
    const Value v = json::parse("{\"" + text + "\":\"" + text + "\"" + padding).value();
    REQUIRE(v.find(text) != nullptr);
    CHECK(v.find(text)->as_string() == text);
    CHECK(json::parse("[\"" + text + "\u00e9\"]").value()[0].as_string() == text + "\xC3\xA9");
  }
}

TEST_CASE("escaped keys keep their text while nested objects with escaped keys come and go") {
  // Decoded keys wait in a buffer of their own until their object closes; an inner object
  // closing must not disturb the keys of the objects around it.
  const std::string nested =
      R"({"k\u00e9y1":{"in\u006eer":[{"d\u0065ep":1}],"x":2},"k\u00e9y2":3})";
  CHECK(json::dump(json::parse(nested).value()) ==
        "{\"k\xC3\xA9y1\":{\"inner\":[{\"deep\":1}],\"x\":2},\"k\xC3\xA9y2\":3}");
  const std::string siblings = R"([{"\u0061":1},{"\u0061":2}])";
  CHECK(json::dump(json::parse(siblings).value()) == R"([{"a":1},{"a":2}])");
  // A large object (checked through its index) with escaped keys.
  std::string big = "{";
  for (int i = 0; i < 100; ++i) {
    big += "\"\\u006b" + std::to_string(i) + "\":{\"\\u0069\":" + std::to_string(i) + "},";
  }
  const Value large = json::parse(big + "\"end\":0}").value();
  REQUIRE(large.size() == 101);
  CHECK(large.find("k42")->find("i")->number_text() == "42");
  const Error repeated = parse_error(big + "\"\\u006b7\":0}");
  CHECK(detail_of(repeated, "reason").find("duplicate key \"k7\"") != std::string::npos);
  // The duplicate check compares decoded text.
  const Error decoded = parse_error(R"({"\u0061":1,"a":2})");
  CHECK(decoded.message.find("duplicate key \"a\"") != std::string::npos);
}

TEST_CASE("number literals of every length keep their text at the end of the input and inside it") {
  // Short literals are copied by a fixed-size copy when enough input follows them.
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::string literal = "1" + std::string(n - 1, '0');
    INFO(n);
    CHECK(json::parse(literal).value().number_text() == literal);
    const Value v = json::parse("[" + literal + ",\"" + std::string(40, 'p') + "\"]").value();
    CHECK(v[0].number_text() == literal);
    CHECK(json::dump(v[0]) == literal);
  }
}

TEST_CASE("a lone surrogate escape is rejected") {
  for (const char* bad : {R"("\ud800")", R"("\udc00")", R"("\ud800\u0041")", R"("\ud800\ud800")", R"("\ud800x")",
                          R"("\uDBFF\")"}) {
    INFO(bad);
    CHECK(parse_error(bad).code == Errc::parse_error);
  }
}

TEST_CASE("a duplicate key is a rejection, not a resolution") {
  const Error small = parse_error(R"({"a":1,"b":2,"a":3})");
  CHECK(small.code == Errc::parse_error);
  CHECK(small.message.find("duplicate key \"a\"") != std::string::npos);
  CHECK(detail_of(small, "offset") == "13");
  // In a large object (checked through the hash index), anywhere in the member list.
  std::string big = "{";
  for (int i = 0; i < 500; ++i) big += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  CHECK(json::parse(big + "\"last\":0}").has_value());
  for (const char* repeated : {"\"k0\":0}", "\"k499\":0}", "\"k17\":0}"}) {
    INFO(repeated);
    const Error e = parse_error(big + repeated);
    CHECK(e.message.find("duplicate key") != std::string::npos);
  }
  // Nested objects each have their own key space.
  CHECK(json::parse(R"({"a":{"a":{"a":1}},"b":{"a":2}})").has_value());
}

TEST_CASE("duplicates may be allowed explicitly, and then the last value wins in the first position") {
  json::ParseOptions lenient;
  lenient.reject_duplicate_keys = false;
  CHECK(json::dump(json::parse(R"({"a":1,"b":2,"a":3})", lenient).value()) == R"({"a":3,"b":2})");
}

TEST_CASE("syntax errors name the byte offset and the reason") {
  struct Case {
    const char* text;
    std::size_t offset;
  };
  for (const Case c : {Case{"", 0}, Case{"  ", 2}, Case{"[1,]", 3}, Case{"{\"a\":1,}", 7}, Case{"[1 2]", 3},
                       Case{"01", 1}, Case{"[1.]", 3}, Case{"tru", 0}, Case{"{\"a\" 1}", 5}, Case{"{1:2}", 1},
                       Case{"[1] x", 4}, Case{"\"abc", 4}, Case{"\"a\tb\"", 2}, Case{"\"\\x\"", 1}, Case{"[", 1},
                       Case{"// c\n1", 0}, Case{"NaN", 0}, Case{"-Infinity", 1}, Case{"'a'", 0}, Case{"\"\\u12G4\"", 5}}) {
    INFO(c.text);
    const Error e = parse_error(c.text);
    CHECK(e.code == Errc::parse_error);
    CHECK(detail_of(e, "offset") == std::to_string(c.offset));
    CHECK(detail_of(e, "reason") != "<none>");
    CHECK(e.message.find("byte " + std::to_string(c.offset)) != std::string::npos);
  }
}

TEST_CASE("the depth limit admits max_depth levels and refuses one more, naming the limit") {
  json::ParseOptions options;
  options.max_depth = 64;
  const std::string at_limit = std::string(64, '[') + std::string(64, ']');
  CHECK(json::parse(at_limit, options).has_value());
  const std::string over = std::string(65, '[') + std::string(65, ']');
  const Error e = parse_error(over, options);
  CHECK(e.code == Errc::limit_exceeded);
  CHECK(detail_of(e, "limit") == "max_depth");
  CHECK(detail_of(e, "max") == "64");
  CHECK(detail_of(e, "offset") == "64");
  // Objects count as levels too, and so does an empty container at the bottom.
  std::string objects;
  for (int i = 0; i < 64; ++i) objects += "{\"a\":";
  CHECK(json::parse(objects + "1" + std::string(64, '}'), options).has_value());
  CHECK(json::parse(objects + "{}" + std::string(64, '}'), options).error().code == Errc::limit_exceeded);
  options.max_depth = 0;
  CHECK(json::parse("7", options).has_value());
  CHECK(json::parse("[]", options).error().code == Errc::limit_exceeded);
}

TEST_CASE("100,000 opening brackets fail on the depth limit without exhausting the stack") {
  for (const char open : {'[', '{'}) {
    std::string deep(100'000, open);
    if (open == '{') {
      deep.clear();
      for (int i = 0; i < 100'000; ++i) deep += "{\"k\":";
    }
    const Error e = parse_error(deep);
    CHECK(e.code == Errc::limit_exceeded);
    CHECK(detail_of(e, "limit") == "max_depth");
  }
  // With the limit raised past the nesting the parser still does not recurse; it stops at the end.
  json::ParseOptions unbounded;
  unbounded.max_depth = 1'000'000;
  CHECK(parse_error(std::string(100'000, '['), unbounded).code == Errc::parse_error);
}

TEST_CASE("input larger than max_bytes is refused before any large allocation") {
  json::ParseOptions options;
  options.max_bytes = 1 << 20;
  const std::string input = "[" + std::string(options.max_bytes - 1, ' ') + "]";  // max_bytes + 1 bytes
  REQUIRE(input.size() == options.max_bytes + 1);
  testing::AllocStats stats;
  {
    testing::AllocCounter counter;
    const auto r = json::parse(input, options);
    stats = counter.stats();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::limit_exceeded);
    CHECK(detail_of(r.error(), "limit") == "max_bytes");
    CHECK(detail_of(r.error(), "max") == std::to_string(options.max_bytes));
  }
  // Only the error text is allocated.
  CHECK(stats.largest < 1024);
  const std::string fits = "[" + std::string(options.max_bytes - 2, ' ') + "]";
  CHECK(json::parse(fits, options).has_value());
}

TEST_CASE("a container one past max_container fails before the container is allocated") {
  // A power of two, so the pending-children stack (which doubles) is exactly full at the limit.
  constexpr std::size_t kLimit = 4096;
  json::ParseOptions options;
  options.max_container = kLimit;
  auto array_of = [](std::size_t n) {
    std::string s = "[";
    for (std::size_t i = 0; i < n; ++i) s += i ? ",0" : "0";
    return s + "]";
  };
  auto object_of = [](std::size_t n) {
    std::string s = "{";
    for (std::size_t i = 0; i < n; ++i) s += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
    return s + "}";
  };
  CHECK(json::parse(array_of(kLimit), options).has_value());
  CHECK(json::parse(object_of(kLimit), options).has_value());
  struct Over {
    std::string text;
    std::size_t child_size;  // bytes per pending child on the parser's largest stack: a Value
  };
  for (const Over& over :
       {Over{array_of(kLimit + 1), sizeof(Value)}, Over{object_of(kLimit + 1), sizeof(Value)}}) {
    testing::AllocStats stats;
    Error e;
    // With cold stacks: stacks grown by an earlier parse (the pool keeps them between parses)
    // would hide an allocation made past the limit.
    json::detail::drop_pooled_scratch();
    std::thread([&] {
      testing::AllocCounter counter;
      auto r = json::parse(over.text, options);
      stats = counter.stats();
      if (!r.has_value()) e = r.error();
    }).join();
    REQUIRE(e.code == Errc::limit_exceeded);
    CHECK(e.code == Errc::limit_exceeded);
    CHECK(detail_of(e, "limit") == "max_container");
    CHECK(detail_of(e, "max") == std::to_string(kLimit));
    // Neither the container of kLimit + 1 children nor a stack grown past kLimit was allocated.
    CHECK(stats.largest <= kLimit * over.child_size);
  }
}

// The scratch stacks belong to no thread: a process that runs a thousand sessions on a thousand
// blocked threads parses on a few of them at a time, and a scratch per thread (about 7 KB warm)
// was 7 MB of its memory.
TEST_CASE("a parse on a new thread reuses the warm stacks an earlier thread left") {
  std::string doc =
      R"({"a":[[1,2,[3,4]],{"b":"x\ty \"quoted\", long enough to leave the inline buffer"}],)"
      R"("c":[)";
  for (int i = 0; i < 200; ++i) doc += (i ? ",\"" : "\"") + std::to_string(i) + "\\n\"";
  doc += "]}";
  json::detail::drop_pooled_scratch();
  auto allocations_of_parse = [&]() -> std::size_t {  // on another thread: no REQUIRE there
    testing::AllocCounter counter;
    if (!json::parse(doc).has_value()) return 0;
    return counter.stats().count;
  };
  std::size_t cold = 0;
  std::size_t warm = 0;
  std::size_t other_thread = 0;
  std::thread([&] {
    cold = allocations_of_parse();
    warm = allocations_of_parse();
  }).join();
  std::thread([&] { other_thread = allocations_of_parse(); }).join();
  REQUIRE(warm > 0);   // the tree's own allocations, and a sign the parse succeeded
  CHECK(cold > warm);  // the stacks' growth: what a cold scratch costs
  CHECK(other_thread == warm);
}

TEST_CASE("whitespace is only space, tab, line feed and carriage return") {
  CHECK(json::parse(" \t\r\n[ \t\r\n1 \t\r\n] \t\r\n").has_value());
  CHECK_FALSE(json::parse("\f1").has_value());
  CHECK_FALSE(json::parse("1\v").has_value());
  CHECK_FALSE(json::parse("\xC2\xA0" "1").has_value());  // no-break space
}

TEST_CASE("a stop byte is found at every position of a long string, before and after an escape") {
  // Long strings are skipped sixteen bytes at a time, then a word at a time: a quote, an escape or
  // a control byte must be seen at whatever offset it falls, with the rest of the text kept.
  for (const std::string& lead : {std::string(), std::string("\\t")}) {
    for (std::size_t at = 0; at < 48; ++at) {
      INFO("lead " << lead.size() << ", position " << at);
      const std::string head(at, 'h');
      const std::string tail(40, 't');
      const std::string decoded_lead = lead.empty() ? "" : "\t";
      CHECK(json::parse("\"" + lead + head + "\\n" + tail + "\"").value().as_string() ==
            decoded_lead + head + "\n" + tail);
      CHECK(json::parse("[\"" + lead + head + "\",\"" + tail + "\"]").value()[0].as_string() ==
            decoded_lead + head);
      CHECK(json::parse("\"" + lead + head + "\xC3\xA9" + tail + "\"").value().as_string() ==
            decoded_lead + head + "\xC3\xA9" + tail);
      const Error control = parse_error("\"" + lead + head + "\x1F" + tail + "\"");
      CHECK(detail_of(control, "reason") == "a control character must be escaped inside a string");
      CHECK(detail_of(control, "offset") == std::to_string(1 + lead.size() + at));
      const Error high = parse_error("\"" + lead + head + "\xFF" + tail + "\"");
      CHECK(detail_of(high, "offset") == std::to_string(1 + lead.size() + at));
      CHECK(detail_of(parse_error("\"" + lead + head), "reason") == "unterminated string");
    }
  }
}

TEST_CASE("a short string reads alike with and without sixteen bytes after it, whatever it holds") {
  // A string of up to fifteen plain bytes is read from one sixteen-byte block when the input has
  // that many bytes left, else by eight-byte words: the two must agree on every outcome, with
  // each kind of stop (escape, UTF-8, bad byte, control byte, early quote) at every position.
  // (A lone backslash is left out: it escapes the closing quote, and the string then runs to the
  // end of the input, which the padding moves.)
  const std::vector<std::string> stops = {"",     "\\n", "\\u00e9",  "\xC3\xA9", "\xFF",
                                          "\x1F", "\"",  "\xE2\x82", "\\ud83d"};
  const auto outcome = [](const std::string& text) {
    auto r = json::parse(text);
    if (r) return "ok " + json::dump(*r);
    return "error " + detail_of(r.error(), "reason") + " at " + detail_of(r.error(), "offset");
  };
  for (const std::string& stop : stops) {
    for (std::size_t length = 0; length <= 17; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        const std::string s = std::string(at, 'a') + stop + std::string(length - at, 'b');
        INFO("stop " << stop.size() << " bytes, at " << at << ", length " << length);
        const std::string value = "\"" + s + "\"";
        CHECK(outcome(value + std::string(20, ' ')) == outcome(value));
        const std::string key = "{\"" + s + "\":1}";
        CHECK(outcome(key + std::string(20, ' ')) == outcome(key));
      }
    }
  }
}
