#include "agentkit/base/sha256.hpp"

#include <random>
#include <string>
#include <vector>

#include "agentkit/base/hex.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace {
std::string hex_of(const agentkit::Sha256::Digest& d) {
  return agentkit::hex::encode(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}
}  // namespace

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
TEST_CASE("SHA-256 reproduces the NIST test vectors") {
  CHECK(agentkit::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(agentkit::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(agentkit::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(agentkit::sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  agentkit::Sha256 h;
  const std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.update(thousand);
  CHECK(hex_of(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("streaming in pieces of any size gives the one-shot digest") {
  std::mt19937 rng(180);
  std::string msg(300, '\0');
  for (auto& c : msg) c = static_cast<char>(rng());
  const auto expected = agentkit::sha256(msg);
  for (std::size_t piece = 1; piece <= 130; ++piece) {
    agentkit::Sha256 h;
    for (std::size_t i = 0; i < msg.size(); i += piece) h.update(std::string_view(msg).substr(i, piece));
    REQUIRE(h.finish() == expected);
  }
}

TEST_CASE("finish resets the hasher for the next message") {
  agentkit::Sha256 h;
  h.update("junk");
  (void)h.finish();
  h.update("abc");
  CHECK(hex_of(h.finish()) == agentkit::sha256_hex("abc"));
}

// sha256sum (GNU coreutils) is the independent peer. Lengths 0..200 cover every padding boundary
// (55/56/63/64/119/120 bytes); a few large inputs cover multi-block streaming.
TEST_CASE("digests agree with sha256sum on seeded random inputs of many lengths") {
  REQUIRE(agentkit::testing::find_program("sha256sum"));
  std::mt19937_64 rng(256);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 200; ++n) lengths.push_back(n);
  for (std::size_t n : {1000u, 4095u, 4096u, 65537u, 1000003u}) lengths.push_back(n);
  for (std::size_t len : lengths) {
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    auto out = agentkit::testing::run_program({"sha256sum"}, s);
    REQUIRE(out.exit_code == 0);
    INFO("length " << len);
    REQUIRE(out.out.size() >= 64);
    CHECK(agentkit::sha256_hex(s) == out.out.substr(0, 64));
  }
}

TEST_CASE("hex encodes lowercase and decodes strictly") {
  CHECK(agentkit::hex::encode(std::string("\x00\x01\xab\xff", 4)) == "0001abff");
  CHECK(agentkit::hex::decode("0001ABff").value() == std::string("\x00\x01\xab\xff", 4));
  CHECK(agentkit::hex::decode("").value().empty());
  for (std::string bad : {"1", "abc", "0x01", "zz", " 01", "01 ", "g0"}) {
    INFO("input '" << bad << "'");
    auto r = agentkit::hex::decode(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == agentkit::Errc::parse_error);
  }
  CHECK(agentkit::hex::decode("01zz").error().find_detail("offset") == "2");
  CHECK(agentkit::hex::decode("abc").error().message.find("odd length") != std::string::npos);
}
