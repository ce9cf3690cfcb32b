// agentkit_openssl against independent TLS peers: `openssl s_server` and Python's ssl module,
// with a CA and certificates the test generates with the openssl CLI.
#include "agentkit/openssl/tls.hpp"

#include <fstream>

#include "agentkit/http/client.hpp"
#include "http_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using agentkit::Errc;
using agentkit::http::HttpClient;
using agentkit::http::HttpOptions;
using agentkit::testing::PeerProcess;

namespace {

void openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = agentkit::testing::run_program(argv);
  INFO("openssl " << args.front() << ": " << out.err);
  REQUIRE(out.exit_code == 0);
}

// A throwaway PKI: two CAs and server certificates that are good, for the wrong host, from the
// unknown CA, and expired. EC P-256 keys keep generation fast.
class TestPki {
 public:
  TestPki() {
    REQUIRE(agentkit::testing::find_program("openssl"));
    make_ca("ca");
    make_ca("other_ca");
    make_cert("good", "ca", "DNS:localhost,IP:127.0.0.1", "2");
    make_cert("wrong_host", "ca", "DNS:wrong.example", "2");
    make_cert("unknown_ca", "other_ca", "DNS:localhost,IP:127.0.0.1", "2");
    make_cert("expired", "ca", "DNS:localhost,IP:127.0.0.1", "-1");  // notAfter before now
  }
  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }

 private:
  void make_ca(const std::string& name) {
    openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             path(name + ".key"), "-out", path(name + ".pem"), "-days", "2", "-subj", "/CN=AgentKit test " + name,
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
  }
  void make_cert(const std::string& name, const std::string& ca, const std::string& san, const std::string& days) {
    openssl({"req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             path(name + ".key"), "-out", path(name + ".csr"), "-subj", "/CN=" + name});
    dir_.write(name + ".ext", "subjectAltName=" + san + "\nextendedKeyUsage=serverAuth\n");
    openssl({"x509", "-req", "-in", path(name + ".csr"), "-CA", path(ca + ".pem"), "-CAkey", path(ca + ".key"),
             "-CAcreateserial", "-out", path(name + ".pem"), "-days", days, "-extfile", path(name + ".ext")});
  }
  agentkit::testing::TempDir dir_;
};

const TestPki& pki() {
  static const TestPki instance;  // generated once per test run
  return instance;
}

PeerProcess s_server(const std::string& cert, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {"openssl", "s_server", "-accept", "127.0.0.1:0", "-www",
                                   "-cert", pki().path(cert + ".pem"), "-key", pki().path(cert + ".key")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return PeerProcess(argv);
}

HttpClient client_trusting_test_ca(agentkit::openssl::TlsOptions tls = {}) {
  if (!tls.extra_ca_file) tls.extra_ca_file = pki().path("ca.pem");
  auto provider = agentkit::openssl::make_tls_provider(tls);
  REQUIRE(provider);
  HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{};
  o.tls = *provider;
  return HttpClient(o);
}

agentkit::Result<std::string> fetch(HttpClient& client, const std::string& url) {
  auto resp = client.send({.url = url});
  if (!resp) return resp.error();
  return resp->read_all();
}

}  // namespace

TEST_CASE("a certificate from a trusted CA for the right host connects") {
  PeerProcess server = s_server("good");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  INFO((body ? "" : body.error().to_string()));
  REQUIRE(body);
  CHECK(body->find("s_server") != std::string::npos);  // s_server -www's status page
}

TEST_CASE("an IP-literal URL is verified against the certificate's IP address") {
  PeerProcess server = s_server("good");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://127.0.0.1:" + std::to_string(server.port()) + "/");
  INFO((body ? "" : body.error().to_string()));
  CHECK(body);
}

TEST_CASE("an IP-literal URL is refused by a certificate that does not list that address") {
  PeerProcess server = s_server("wrong_host");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://127.0.0.1:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::unauthenticated);
  CHECK(body.error().message.find("IP address mismatch") != std::string::npos);
}

TEST_CASE("a certificate for another host name is refused") {
  PeerProcess server = s_server("wrong_host");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::unauthenticated);
  CHECK(body.error().message.find("hostname mismatch") != std::string::npos);
}

TEST_CASE("a certificate from an unknown CA is refused") {
  PeerProcess server = s_server("unknown_ca");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::unauthenticated);
  CHECK(body.error().message.find("unable to get local issuer certificate") != std::string::npos);
}

TEST_CASE("an expired certificate is refused") {
  PeerProcess server = s_server("expired");
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::unauthenticated);
  CHECK(body.error().message.find("certificate has expired") != std::string::npos);
}

TEST_CASE("the system trust store alone does not trust a private CA") {
  PeerProcess server = s_server("good");
  REQUIRE(server.started());
  auto provider = agentkit::openssl::make_tls_provider();
  REQUIRE(provider);
  HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{};
  o.tls = *provider;
  HttpClient client(o);
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::unauthenticated);
}

TEST_CASE("SNI names the host, so a server can pick the matching certificate") {
  // The server's default certificate is for the wrong host; only a client sending SNI
  // "localhost" gets the good one.
  PeerProcess server = s_server("wrong_host", {"-servername", "localhost", "-cert2", pki().path("good.pem"), "-key2",
                                               pki().path("good.key")});
  REQUIRE(server.started());
  HttpClient client = client_trusting_test_ca();
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  INFO((body ? "" : body.error().to_string()));
  CHECK(body);
}

TEST_CASE("TLS 1.2 is accepted by default and refused when TLS 1.3 is required") {
  PeerProcess server = s_server("good", {"-tls1_2"});
  REQUIRE(server.started());
  HttpClient lenient = client_trusting_test_ca();
  CHECK(fetch(lenient, "https://localhost:" + std::to_string(server.port()) + "/"));
  HttpClient strict = client_trusting_test_ca({.require_tls13 = true});
  auto refused = fetch(strict, "https://localhost:" + std::to_string(server.port()) + "/");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code != Errc::unauthenticated);  // a protocol refusal, not a certificate one
}

TEST_CASE("a missing CA file is an error naming it") {
  auto provider = agentkit::openssl::make_tls_provider({.extra_ca_file = "/nonexistent/ca.pem"});
  REQUIRE_FALSE(provider);
  CHECK(provider.error().code == Errc::invalid_argument);
  CHECK(provider.error().find_detail("file") == "/nonexistent/ca.pem");
}

TEST_CASE("keep-alive works over TLS against Python's ssl server") {
  PeerProcess origin({"python3", agentkit::testing::peer_script("origin_server.py"), pki().path("good.pem"),
                      pki().path("good.key")});
  REQUIRE(origin.started());
  HttpClient client = client_trusting_test_ca();
  const std::string base = "https://localhost:" + std::to_string(origin.port());
  for (int i = 0; i < 3; ++i) {
    auto body = fetch(client, base + "/big?n=70000");  // several TLS records per body
    INFO((body ? "" : body.error().to_string()));
    REQUIRE(body);
    CHECK(body->size() == 70000);
  }
  auto chunked = fetch(client, base + "/chunked?parts=a,b,c");
  CHECK(chunked.value_or("") == "abc");
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("TLS runs end to end through a CONNECT proxy") {
  PeerProcess server = s_server("good");
  REQUIRE(server.started());
  agentkit::testing::TempDir dir;
  const std::string log = (dir.path() / "proxy.log").string();
  PeerProcess proxy({"python3", agentkit::testing::peer_script("connect_proxy.py"), log});
  REQUIRE(proxy.started());
  auto provider = agentkit::openssl::make_tls_provider({.extra_ca_file = pki().path("ca.pem")});
  REQUIRE(provider);
  HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{.https_proxy = "http://127.0.0.1:" + std::to_string(proxy.port()),
                                          .proxy_loopback = true};
  o.tls = *provider;
  HttpClient client(o);
  auto body = fetch(client, "https://localhost:" + std::to_string(server.port()) + "/");
  INFO((body ? "" : body.error().to_string()));
  REQUIRE(body);
  std::ifstream f(log);
  std::string line;
  std::getline(f, line);
  CHECK(line == "CONNECT localhost:" + std::to_string(server.port()) + " auth=-");
}
