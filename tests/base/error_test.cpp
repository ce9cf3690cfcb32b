#include "agentkit/base/error.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "agentkit/base/thread.hpp"
#include "support/catch.hpp"

namespace {

// The C library's own text, read once on this thread (std::strerror is the peer here, and it is
// only unsafe when called concurrently).
std::string strerror_peer(int err) { return std::strerror(err); }

}  // namespace

TEST_CASE("errno text is the C library's message for the value") {
  for (int err : {ENOENT, EACCES, EINTR, ECONNREFUSED, EMFILE, ENOTDIR}) {
    INFO("errno " << err);
    CHECK(agentkit::errno_text(err) == strerror_peer(err));
    CHECK_FALSE(agentkit::errno_text(err).empty());
  }
  CHECK(agentkit::errno_text(ENOENT) == "No such file or directory");
}

TEST_CASE("an errno value the C library does not know still names its number") {
  CHECK(agentkit::errno_text(98765).find("98765") != std::string::npos);
}

TEST_CASE("an errno error reads what failed, then the system's reason, with the code kept") {
  const agentkit::Error e =
      agentkit::errno_error(agentkit::Errc::io_error, "cannot open '/x/y'", ENOENT);
  CHECK(e.code == agentkit::Errc::io_error);
  CHECK(e.message == "cannot open '/x/y': No such file or directory");
  CHECK(e.detail.empty());
}

TEST_CASE("errno text is the same when many threads ask at once") {
  const std::vector<int> values = {ENOENT, EACCES, EPIPE, ETIMEDOUT, EAGAIN, EBADF, ENOSPC, EEXIST};
  std::vector<std::string> expected;
  for (int err : values) expected.push_back(strerror_peer(err));
  std::vector<int> mismatches(values.size(), 0);
  {
    std::vector<agentkit::jthread> threads;
    for (std::size_t t = 0; t < values.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 2000; ++i) {
          if (agentkit::errno_text(values[t]) != expected[t]) ++mismatches[t];
        }
      });
    }
  }
  for (std::size_t t = 0; t < values.size(); ++t) CHECK(mismatches[t] == 0);
}
