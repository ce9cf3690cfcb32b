// The private zlib layer: our inflate against our deflate, Python's zlib, and hostile streams.
#include "zlib.hpp"

#include <random>
#include <string>
#include <vector>

#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::images::detail::zlib_deflate;
using agentkit::images::detail::zlib_inflate;

namespace {

std::vector<std::uint8_t> sample_bytes(std::size_t n) {
  std::mt19937 rng(7);
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Runs and repeats with some noise, so LZ77 finds matches at many distances.
    v[i] = (i % 1000 < 600) ? static_cast<std::uint8_t>((i / 7) % 50)
                            : static_cast<std::uint8_t>(rng() % 256);
  }
  return v;
}

}  // namespace

TEST_CASE("deflate output inflates back to the input and is smaller than stored blocks") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{300}, std::size_t{200000}}) {
    INFO("n=" << n);
    const std::vector<std::uint8_t> in = sample_bytes(n);
    const std::vector<std::uint8_t> z = zlib_deflate(in);
    agentkit::Result<std::vector<std::uint8_t>> back = zlib_inflate(z, n + 1);
    REQUIRE(back.has_value());
    CHECK(*back == in);
    // Stored blocks would cost 5 bytes per 64 KB on top of the input.
    if (n >= 300) CHECK(z.size() < n * 3 / 4);
  }
}

TEST_CASE("inflate stops a zlib bomb at its output cap") {
  const std::vector<std::uint8_t> z = zlib_deflate(std::vector<std::uint8_t>(4 << 20, 0));
  CHECK(z.size() < 64 * 1024);
  agentkit::Result<std::vector<std::uint8_t>> r = zlib_inflate(z, 1 << 20);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::limit_exceeded);
}

TEST_CASE("inflate refuses a wrong Adler-32 checksum and a truncated stream") {
  const std::vector<std::uint8_t> in = sample_bytes(5000);
  std::vector<std::uint8_t> z = zlib_deflate(in);
  std::vector<std::uint8_t> bad_sum = z;
  bad_sum.back() ^= 1;
  agentkit::Result<std::vector<std::uint8_t>> r = zlib_inflate(bad_sum, 10000);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("Adler-32") != std::string::npos);
  for (std::size_t cut = 0; cut < z.size(); cut += 7) {
    CHECK_FALSE(zlib_inflate(std::span(z.data(), cut), 10000).has_value());
  }
}

TEST_CASE("inflate decodes stored, fixed and dynamic blocks written by zlib itself") {
  // Each stream was written by Python's zlib.compress (levels 0, 9 and 9); the block type is in
  // bits 1-2 of the third byte.
  const std::string phrase =
      "the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. ";
  struct Case {
    const char* hex;
    std::string text;
  };
  const Case cases[] = {
      {"7801012400dbff6167656e746b6974206167656e746b6974206167656e746b6974206167656e746b69742003f9"
       "0ddd",
       "agentkit agentkit agentkit agentkit "},
      {"78da4b4c4fcd2bc9ce2c51481c65d0920100e1038a99",
       [] {
         std::string s;
         for (int i = 0; i < 40; ++i) s += "agentkit ";
         return s;
       }()},
      {"78dad58c571580300c45ad3c0518404d0be96034dd05d493830bbeefa88e909a5f76e8cc23c0f085ad9db180"
       "3b6554c1877a6eac6c674425de79438b347c7530be93a087020e9f1a67696d99beec2fd71779f05d82",
       phrase + phrase + phrase},
  };
  int type = 0;
  for (const Case& c : cases) {
    std::vector<std::uint8_t> z;
    for (std::size_t i = 0; c.hex[i] != 0; i += 2) {
      z.push_back(static_cast<std::uint8_t>(std::stoi(std::string(c.hex + i, 2), nullptr, 16)));
    }
    CHECK(((z[2] >> 1) & 3) == (type == 0 ? 0 : type));
    agentkit::Result<std::vector<std::uint8_t>> r = zlib_inflate(z, 1000);
    REQUIRE(r.has_value());
    CHECK(std::string(r->begin(), r->end()) == c.text);
    ++type;
  }
}
