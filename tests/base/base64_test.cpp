#include "agentkit/base/base64.hpp"

#include <random>
#include <string>
#include <vector>

#include "agentkit/base/hex.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace base64 = agentkit::base64;
using agentkit::base64::Alphabet;

TEST_CASE("the RFC 4648 test vectors encode and decode in the standard alphabet") {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64::encode(plain) == encoded);
    CHECK(base64::decode(encoded).value() == plain);
    CHECK(base64::encoded_size(plain.size()) == encoded.size());
  }
}

TEST_CASE("the URL-safe alphabet encodes unpadded and decodes with or without padding") {
  const std::string bytes = "\xFB\xFF\xBF";
  CHECK(base64::encode(bytes) == "+/+/");
  CHECK(base64::encode(bytes, Alphabet::url) == "-_-_");
  CHECK(base64::encode("f", Alphabet::url) == "Zg");
  CHECK(base64::encoded_size(1, Alphabet::url) == 2);
  CHECK(base64::decode("Zg", Alphabet::url).value() == "f");
  CHECK(base64::decode("Zg==", Alphabet::url).value() == "f");
  CHECK(base64::decode("Zm8", Alphabet::url).value() == "fo");
  CHECK(base64::decode("-_-_", Alphabet::url).value() == bytes);
}

TEST_CASE("strict decoding refuses every non-canonical or foreign input") {
  struct Case {
    std::string text;
    Alphabet alphabet;
  };
  const std::vector<Case> bad = {
      {"Zg", Alphabet::standard},        // standard needs padding
      {"Zm8", Alphabet::standard},
      {"Zg=", Alphabet::standard},       // short padding
      {"Zg===", Alphabet::standard},     // too much padding
      {"Zm8==", Alphabet::standard},
      {"Z===", Alphabet::standard},      // one data char cannot encode a byte
      {"====", Alphabet::standard},      // padding with nothing to pad (found by fuzz_base64)
      {"Zm9v====", Alphabet::standard},
      {"====", Alphabet::url},
      {"Z", Alphabet::url},
      {"Zm9vY", Alphabet::url},          // 4k+1
      {"Zg=", Alphabet::url},            // padding present but wrong
      {"Zm8==", Alphabet::url},
      {"Z=g=", Alphabet::standard},      // padding in the middle
      {"Zm9v\nYmFy", Alphabet::standard},  // line break
      {"Zm9v YmFy", Alphabet::standard},   // space
      {" Zm9v", Alphabet::url},
      {"-_-_", Alphabet::standard},      // URL chars in standard
      {"+/+/", Alphabet::url},           // standard chars in URL-safe
      {"Zh==", Alphabet::standard},      // non-zero trailing bits ("f" is Zg==)
      {"Zm9=", Alphabet::standard},      // non-zero trailing bits ("fo" is Zm8=)
      {"Zh", Alphabet::url},
      {"Zm\xC3\xA9", Alphabet::url},     // non-ASCII
      {std::string("Zm\0v", 4), Alphabet::standard},
  };
  for (const auto& c : bad) {
    INFO("input '" << c.text << "' alphabet " << (c.alphabet == Alphabet::url ? "url" : "standard"));
    auto r = base64::decode(c.text, c.alphabet);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == agentkit::Errc::parse_error);
    CHECK(r.error().find_detail("offset").has_value());
  }
}

TEST_CASE("the error names the offending character's offset") {
  auto r = base64::decode("Zm9v*mFy");
  REQUIRE_FALSE(r);
  CHECK(r.error().find_detail("offset") == "4");
}

// Python's base64 module is the independent encoder: for random bytes of every length 0..200 both
// alphabets must produce the same text, and our strict decoder must take that text back.
TEST_CASE("encoding agrees with Python's base64 module on random inputs") {
  REQUIRE(agentkit::testing::find_program("python3"));
  std::mt19937 rng(4648);
  std::vector<std::string> inputs;
  std::string lines;
  for (std::size_t len = 0; len <= 200; ++len) {
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    inputs.push_back(s);
    lines += agentkit::hex::encode(s) + "\n";
  }
  const std::string script =
      "import sys, base64\n"
      "for line in sys.stdin:\n"
      "    b = bytes.fromhex(line.strip())\n"
      "    print(base64.b64encode(b).decode(), base64.urlsafe_b64encode(b).decode().rstrip('='))\n";
  auto out = agentkit::testing::run_program({"python3", "-c", script}, lines);
  REQUIRE(out.exit_code == 0);
  std::size_t pos = 0;
  for (const auto& s : inputs) {
    const std::size_t eol = out.out.find('\n', pos);
    REQUIRE(eol != std::string::npos);
    const std::string line = out.out.substr(pos, eol - pos);
    pos = eol + 1;
    const std::size_t space = line.find(' ');
    const std::string standard = line.substr(0, space);
    const std::string url = line.substr(space + 1);
    INFO("length " << s.size());
    CHECK(base64::encode(s) == standard);
    CHECK(base64::encode(s, Alphabet::url) == url);
    CHECK(base64::decode(standard).value() == s);
    CHECK(base64::decode(url, Alphabet::url).value() == s);
  }
}
