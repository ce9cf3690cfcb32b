#include "agentkit/tools/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "agentkit/base/base64.hpp"
#include "agentkit/images/encode.hpp"
#include "support/catch.hpp"
#include "support/shared_testdata.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using agentkit::testing::TempDir;
using agentkit::tools::ReadRequest;
using agentkit::tools::Workspace;
namespace tools = agentkit::tools;

namespace {
std::string lines(std::size_t n, std::size_t width = 0) {
  std::string s;
  for (std::size_t i = 1; i <= n; ++i) s += "line " + std::to_string(i) + std::string(width, 'x') + "\n";
  return s;
}
Workspace ws_of(const TempDir& t) { return Workspace::open(t.path()).value(); }
}  // namespace

TEST_CASE("read_file numbers lines in the cat -n layout") {
  TempDir t;
  t.write("a.txt", "alpha\nbeta\n");
  auto r = tools::read_file(ws_of(t), "a.txt");
  REQUIRE(r.has_value());
  REQUIRE(r->text.has_value());
  CHECK(r->text->content == "     1\talpha\n     2\tbeta\n");
  CHECK_FALSE(r->text->more_available);
  CHECK(r->text->marker.empty());
  CHECK(r->text->total_lines == std::optional<std::size_t>{2});
}

TEST_CASE("an 8000-line file stops at 2000 lines with a marker naming offset=2001") {
  TempDir t;
  t.write("big.txt", lines(8000));
  auto r = tools::read_file(ws_of(t), "big.txt");
  REQUIRE(r.has_value());
  CHECK(r->text->last_line == 2000);
  CHECK(r->text->truncated_by == std::optional<std::string>{"lines"});
  CHECK(r->text->marker == "[Showing lines 1-2000 of 8000. Use offset=2001 to continue.]");
  CHECK(r->text->content.ends_with("  2000\tline 2000\n[Showing lines 1-2000 of 8000. Use offset=2001 to continue.]"));
  auto next = tools::read_file(ws_of(t), "big.txt", ReadRequest{2001, std::nullopt});
  CHECK(next->text->first_line == 2001);
  CHECK(next->text->marker == "[Showing lines 2001-4000 of 8000. Use offset=4001 to continue.]");
}

TEST_CASE("offset is 1-based and 0 reads as 1; limit narrows the window") {
  TempDir t;
  t.write("a.txt", lines(10));
  auto zero = tools::read_file(ws_of(t), "a.txt", ReadRequest{0, 2});
  auto one = tools::read_file(ws_of(t), "a.txt", ReadRequest{1, 2});
  CHECK(zero->text->content == one->text->content);
  CHECK(one->text->marker == "[Showing lines 1-2 of 10. Use offset=3 to continue.]");
  CHECK_FALSE(one->text->truncated_by.has_value());  // the caller's limit, not a cap
  auto tail = tools::read_file(ws_of(t), "a.txt", ReadRequest{9, 5});
  CHECK(tail->text->content == "     9\tline 9\n    10\tline 10\n");
  auto past = tools::read_file(ws_of(t), "a.txt", ReadRequest{12, std::nullopt});
  REQUIRE_FALSE(past.has_value());
  CHECK(past.error().code == Errc::invalid_argument);
}

TEST_CASE("100 lines of 1 KB are cut at 50 KB and the cut is recorded as bytes") {
  TempDir t;
  t.write("wide.txt", lines(100, 1024));
  auto r = tools::read_file(ws_of(t), "wide.txt");
  REQUIRE(r.has_value());
  CHECK(r->text->truncated_by == std::optional<std::string>{"bytes"});
  CHECK(r->text->content.size() - r->text->marker.size() <= 50 * 1024);
  CHECK(r->text->last_line == 49);  // 49 numbered lines of about 1,040 bytes fit in 51,200
  CHECK(r->text->marker == "[Showing lines 1-49 of 100. Use offset=50 to continue.]");
}

TEST_CASE("one line longer than the byte cap gets its own marker with a sed command") {
  TempDir t;
  std::string content = "a\nb\n" + std::string(1200 * 1024, 'm') + "\nd\n";
  auto p = t.write("min.js", content);
  auto r = tools::read_file(ws_of(t), "min.js", ReadRequest{3, std::nullopt});
  REQUIRE(r.has_value());
  CHECK(r->text->marker == "[Line 3 is 1.2MB, exceeds 50.0KB limit. Use execute: sed -n '3p' '" +
                               fs::canonical(p).string() + "' | head -c 51200]");
  auto from_start = tools::read_file(ws_of(t), "min.js");
  CHECK(from_start->text->last_line == 2);
  CHECK(from_start->text->marker == "[Showing lines 1-2 of 4. Use offset=3 to continue.]");
}

TEST_CASE("a 10 GB sparse file is read capped and fast, never whole") {
  TempDir t;
  auto p = t.write("huge.log", "");
  {
    int fd = ::open(p.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    std::string head = lines(3000);
    REQUIRE(::write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size()));
    constexpr off_t kTenGiB = off_t(10) << 30;
    REQUIRE(::ftruncate(fd, kTenGiB) == 0);
    ::close(fd);
  }
  auto start = std::chrono::steady_clock::now();
  auto r = tools::read_file(ws_of(t), "huge.log");
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(r.has_value());
  CHECK(r->text->last_line == 2000);
  CHECK_FALSE(r->text->total_lines.has_value());  // too big to count
  CHECK(r->text->marker == "[Showing lines 1-2000. Use offset=2001 to continue.]");
  CHECK(took < std::chrono::seconds(2));
  auto hole = tools::read_file(ws_of(t), "huge.log", ReadRequest{3001, std::nullopt});
  REQUIRE(hole.has_value());
  CHECK(hole->text->marker.starts_with("[Line 3001 is more than "));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

namespace {

// Real (tiny) image files: read_file reads their headers, so bare magic bytes are not enough.
std::string tiny_png() {
  agentkit::images::Raster r;
  r.width = r.height = 2;
  r.rgba.assign(16, 200);
  const auto png = agentkit::images::encode_png(r);
  return std::string(png.begin(), png.end());
}
std::string tiny_jpeg() {
  agentkit::images::Raster r;
  r.width = r.height = 2;
  r.rgba.assign(16, 200);
  const auto jpg = agentkit::images::encode_jpeg(r);
  return std::string(jpg.begin(), jpg.end());
}
const std::string kTinyGif(
    "GIF89a\x02\0\x02\0\x80\0\0\xff\0\0\0\0\xff"
    "\x2c\0\0\0\0\x02\0\x02\0\0\x02\x03\x44\x02\x05\0\x3b",
    36);
// RIFF/WEBP with a VP8 key frame header of 4x4 (the payload is never decoded).
const std::string kTinyWebp(
    "RIFF\x1a\0\0\0WEBPVP8 \x0e\0\0\0\0\0\0\x9d\x01\x2a\x04\0\x04\0\0\0\0\0", 34);

}  // namespace

TEST_CASE("images are recognised by magic bytes and returned as base64 image data") {
  TempDir t;
  const std::string png = tiny_png();
  t.write("pic.dat", png);  // the extension does not matter
  t.write("a.gif", kTinyGif);
  t.write("a.webp", kTinyWebp);
  t.write("a.jpg", tiny_jpeg());
  auto r = tools::read_file(ws_of(t), "pic.dat");
  REQUIRE(r.has_value());
  REQUIRE(r->image.has_value());
  CHECK(r->image->mime_type == "image/png");
  CHECK(agentkit::base64::decode(r->image->base64).value() == png);
  CHECK(tools::read_file(ws_of(t), "a.gif")->image->mime_type == "image/gif");
  CHECK(tools::read_file(ws_of(t), "a.webp")->image->mime_type == "image/webp");
  CHECK(tools::read_file(ws_of(t), "a.jpg")->image->mime_type == "image/jpeg");
}

TEST_CASE(
    "read_file refuses an animated PNG, a CMYK JPEG and a PNG whose first chunk is not IHDR") {
  TempDir t;
  std::string no_ihdr = tiny_png();
  no_ihdr.replace(12, 4, "tEXt");  // the first chunk's type
  t.write("bad.png", no_ihdr);
  auto bad = tools::read_file(ws_of(t), "bad.png");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().find_detail("code") == std::optional<std::string_view>{"unsupported_image"});
  AGENTKIT_SHARED_TESTDATA(dir, "images");
  for (const char* name : {"apng/basic_f20.png", "jpeg/pil_sample_cmyk.jpg"}) {
    INFO(name);
    std::filesystem::copy_file(dir / name, t.path() / std::filesystem::path(name).filename());
    auto r = tools::read_file(ws_of(t), std::filesystem::path(name).filename().string());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == agentkit::Errc::unsupported);
  }
}

TEST_CASE("a binary file is refused, invalid UTF-8 in text shows as a replacement character") {
  TempDir t;
  t.write("a.bin", std::string("ab\0cd", 5));
  auto r = tools::read_file(ws_of(t), "a.bin");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().find_detail("code") == std::optional<std::string_view>{"binary_file"});
  t.write("latin1.txt", "caf\xE9\n");
  CHECK(tools::read_file(ws_of(t), "latin1.txt")->text->content == "     1\tcaf\xEF\xBF\xBD\n");
}

TEST_CASE("read_file refuses paths outside the workspace and folders") {
  TempDir t;
  t.write("d/x", "");
  CHECK(tools::read_file(ws_of(t), "../etc/passwd").error().code == Errc::permission_denied);
  CHECK(tools::read_file(ws_of(t), "d").error().code == Errc::invalid_argument);
  CHECK(tools::read_file(ws_of(t), "missing").error().code == Errc::not_found);
}

TEST_CASE("write_file creates parent folders and writes the exact bytes") {
  TempDir t;
  auto r = tools::write_file(ws_of(t), "new/deep/file.txt", "hello\r\nworld");
  REQUIRE(r.has_value());
  CHECK(r->created);
  CHECK(r->bytes == 12);
  CHECK(agentkit::testing::read_file(t.path() / "new/deep/file.txt") == "hello\r\nworld");
  // Nothing else is left beside it (the temporary file was renamed, not copied).
  CHECK(std::distance(fs::directory_iterator(t.path() / "new/deep"), fs::directory_iterator()) == 1);
}

TEST_CASE("write_file keeps an existing file's mode") {
  TempDir t;
  auto p = t.write("run.sh", "#!/bin/sh\n");
  fs::permissions(p, fs::perms(0750));
  auto r = tools::write_file(ws_of(t), "run.sh", "#!/bin/sh\necho hi\n");
  REQUIRE(r.has_value());
  CHECK_FALSE(r->created);
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0750);
}

TEST_CASE("write_file replaces atomically: the old inode is never written in place") {
  TempDir t;
  auto p = t.write("f.txt", "old");
  struct stat before {};
  REQUIRE(::stat(p.c_str(), &before) == 0);
  REQUIRE(tools::write_file(ws_of(t), "f.txt", "new").has_value());
  struct stat after {};
  REQUIRE(::stat(p.c_str(), &after) == 0);
  CHECK(before.st_ino != after.st_ino);
  CHECK(agentkit::testing::read_file(p) == "new");
}

TEST_CASE("write_file refuses escapes through a symlinked folder") {
  TempDir t;
  TempDir outside;
  fs::create_directory_symlink(outside.path(), t.path() / "out");
  auto r = tools::write_file(ws_of(t), "out/planted.txt", "x");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::permission_denied);
  CHECK_FALSE(fs::exists(outside.path() / "planted.txt"));
}
