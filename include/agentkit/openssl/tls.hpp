// agentkit/openssl/tls.hpp — the TLS adapter on the system OpenSSL (target agentkit_openssl,
// built with -DAGENTKIT_WITH_OPENSSL=ON).
//
//   auto tls = agentkit::openssl::make_tls_provider();     // system trust store, TLS 1.2+
//   if (!tls) return tls.error();
//   agentkit::http::HttpOptions options;
//   options.tls = *tls;
//   agentkit::http::HttpClient client(options);            // https:// URLs now work
//
//   // A private CA (a corporate proxy's, or a test's) in addition to the system store:
//   auto custom = agentkit::openssl::make_tls_provider({.extra_ca_file = "/etc/corp/ca.pem"});
//
// Verification is always on: the certificate chain must lead to a trusted CA, be within its
// validity dates, and name the host the URL names (DNS names against DNS SANs, IP literals
// against IP SANs). SNI carries the host name. TLS 1.2 is the floor (RFC 8996 retires 1.0 and
// 1.1). There is deliberately no switch to turn verification off; trust a CA file instead.
// A refused certificate is Errc::unauthenticated with OpenSSL's reason ("certificate has
// expired", "hostname mismatch", "unable to get local issuer certificate").
//
// Thread safety: the provider is immutable after creation and may be shared by many clients and
// threads; each connection gets its own TLS session.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "agentkit/base/result.hpp"
#include "agentkit/http/stream.hpp"

namespace agentkit::openssl {

// Settings for make_tls_provider. Read once.
struct TlsOptions {
  // Trust the operating system's CA certificates (OpenSSL's default verify paths, which honour
  // SSL_CERT_FILE and SSL_CERT_DIR). Off only when extra_ca_file is the whole trust.
  bool use_system_trust = true;
  // A PEM file of additional CA certificates to trust.
  std::optional<std::string> extra_ca_file{};
  // Refuse TLS 1.2 and accept only TLS 1.3.
  bool require_tls13 = false;
};

// Builds the provider; Errc::invalid_argument when extra_ca_file cannot be loaded, Errc::internal
// when OpenSSL cannot set up a context.
Result<std::shared_ptr<http::TlsProvider>> make_tls_provider(const TlsOptions& options = {});

}  // namespace agentkit::openssl
