#include "interop_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "support/fixtures.hpp"

namespace agentkit::interop {

std::optional<std::string> node_program() { return agentkit::testing::find_program("node"); }

std::optional<std::filesystem::path> package_file(const std::string& package, const std::string& relative) {
  std::filesystem::path p = std::filesystem::path(AGENTKIT_SOURCE_DIR) / "tests/interop/node_modules" / package / relative;
  if (!std::filesystem::exists(p)) return std::nullopt;
  return p;
}

std::filesystem::path fixture_script(const std::string& name) {
  return std::filesystem::path(AGENTKIT_SOURCE_DIR) / "tests/interop" / name;
}

bool interop_required() {
  const char* v = std::getenv("AGENTKIT_REQUIRE_INTEROP");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace agentkit::interop
