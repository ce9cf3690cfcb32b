#include "agentkit/http/resolver.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

namespace agentkit::http {
namespace {

constexpr int bits_per_byte = 8;
constexpr std::uint8_t ipv4_loopback_first_byte = 127;  // 127.0.0.0/8, RFC 1122 §3.2.1.3
constexpr std::size_t v4_mapped_prefix_size = 12;       // ::ffff:0:0/96, RFC 4291 §2.5.5.2
constexpr std::uint8_t mapped_marker = 0xFF;

bool is_v4_mapped(const IpAddress& a) {
  if (a.family != IpAddress::Family::v6) return false;
  for (std::size_t i = 0; i < v4_mapped_prefix_size - 2; ++i) {
    if (a.bytes[i] != 0) return false;
  }
  return a.bytes[v4_mapped_prefix_size - 2] == mapped_marker && a.bytes[v4_mapped_prefix_size - 1] == mapped_marker;
}

IpAddress from_sockaddr(const sockaddr* sa) {
  IpAddress out;
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    std::memcpy(out.bytes.data(), &in->sin_addr, IpAddress::v4_size);
  } else {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    out.family = IpAddress::Family::v6;
    std::memcpy(out.bytes.data(), &in6->sin6_addr, IpAddress::v6_size);
  }
  return out;
}

Result<std::vector<IpAddress>> run_getaddrinfo(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) {
    const Errc code = (rc == EAI_NONAME || rc == EAI_NODATA) ? Errc::not_found : Errc::io_error;
    return fail(code, "cannot resolve host '" + host + "': " + ::gai_strerror(rc) +
                          "; check the host name and the network's DNS settings")
        .with_detail("host", host);
  }
  std::vector<IpAddress> out;
  for (const addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    const IpAddress a = from_sockaddr(ai->ai_addr);
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  ::freeaddrinfo(list);
  if (out.empty()) return fail(Errc::not_found, "host '" + host + "' has no IPv4 or IPv6 address").with_detail("host", host);
  return out;
}

struct Lookup {
  std::mutex mutex;
  agentkit::condition_variable_any done_cv;
  bool done = false;
  Result<std::vector<IpAddress>> result;
};

}  // namespace

Result<IpAddress> IpAddress::parse(std::string_view text) {
  const std::string s(text);
  IpAddress out;
  if (::inet_pton(AF_INET, s.c_str(), out.bytes.data()) == 1) return out;
  out.family = Family::v6;
  if (::inet_pton(AF_INET6, s.c_str(), out.bytes.data()) == 1) return out;
  constexpr std::size_t max_quoted = 64;
  return fail(Errc::invalid_argument, "'" + s.substr(0, max_quoted) + "' is not an IPv4 or IPv6 address");
}

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept {
  IpAddress out;
  out.bytes[0] = a;
  out.bytes[1] = b;
  out.bytes[2] = c;
  out.bytes[3] = d;
  return out;
}

IpAddress IpAddress::unmapped() const noexcept {
  if (!is_v4_mapped(*this)) return *this;
  const auto* v4_part = bytes.data() + v4_mapped_prefix_size;
  return v4(v4_part[0], v4_part[1], v4_part[2], v4_part[3]);
}

bool IpAddress::is_loopback() const noexcept {
  const IpAddress a = unmapped();
  if (a.family == Family::v4) return a.bytes[0] == ipv4_loopback_first_byte;
  static constexpr std::array<std::uint8_t, v6_size> v6_loopback = {0, 0, 0, 0, 0, 0, 0, 0,
                                                                     0, 0, 0, 0, 0, 0, 0, 1};
  return a.bytes == v6_loopback;
}

bool IpAddress::in_prefix(const IpAddress& network, unsigned prefix_bits) const noexcept {
  if (family != network.family || prefix_bits > size() * bits_per_byte) return false;
  const unsigned whole = prefix_bits / bits_per_byte;
  const unsigned rest = prefix_bits % bits_per_byte;
  if (!std::equal(bytes.begin(), bytes.begin() + whole, network.bytes.begin())) return false;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xFF << (bits_per_byte - rest));
  return (bytes[whole] & mask) == (network.bytes[whole] & mask);
}

std::string IpAddress::to_string() const {
  std::array<char, INET6_ADDRSTRLEN> text{};
  ::inet_ntop(family == Family::v4 ? AF_INET : AF_INET6, bytes.data(), text.data(), text.size());
  return text.data();
}

struct SystemResolver::State {
  std::mutex mutex;
  std::vector<std::pair<std::shared_ptr<Lookup>, agentkit::jthread>> running;

  // Joins lookups that have finished; a finished thread's join returns at once.
  void reap_finished() {
    std::erase_if(running, [](auto& entry) {
      std::lock_guard lock(entry.first->mutex);
      return entry.first->done;
    });
  }
};

SystemResolver::SystemResolver() : state_(std::make_unique<State>()) {}
SystemResolver::~SystemResolver() = default;  // the jthreads join here

Result<std::vector<IpAddress>> SystemResolver::resolve(std::string_view host, const IoDeadline& deadline) {
  if (auto literal = IpAddress::parse(host)) return std::vector<IpAddress>{*literal};
  if (deadline.stop.stop_requested()) return fail(Errc::cancelled, "resolving '" + std::string(host) + "' was cancelled");
  auto lookup = std::make_shared<Lookup>();
  {
    std::lock_guard lock(state_->mutex);
    state_->reap_finished();
    state_->running.emplace_back(lookup, agentkit::jthread([lookup, name = std::string(host)] {
      auto result = run_getaddrinfo(name);
      std::lock_guard inner(lookup->mutex);
      lookup->result = std::move(result);
      lookup->done = true;
      lookup->done_cv.notify_all();
    }));
  }
  std::unique_lock lock(lookup->mutex);
  auto finished = [&] { return lookup->done; };
  agentkit::stop_token stop = deadline.stop;
  const bool done = deadline.unbounded() ? lookup->done_cv.wait(lock, stop, finished)
                                         : lookup->done_cv.wait_until(lock, stop, deadline.at, finished);
  if (done) return lookup->result;
  if (stop.stop_requested()) return fail(Errc::cancelled, "resolving '" + std::string(host) + "' was cancelled");
  return fail(Errc::timeout, "resolving '" + std::string(host) + "' timed out").with_detail("host", std::string(host));
}

}  // namespace agentkit::http
