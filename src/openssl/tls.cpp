#include "agentkit/openssl/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <array>
#include <chrono>
#include <cstring>

namespace agentkit::openssl {
namespace {

constexpr std::size_t io_block = 16 * 1024;
// ALPN wire format (RFC 7301 §3.1): a length byte, then the protocol name.
constexpr unsigned char alpn_http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
};
struct SslFree {
  void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;

// OpenSSL's queued error text for this thread, cleared after reading.
std::string drain_openssl_errors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    if (!out.empty()) out += "; ";
    out += text.data();
  }
  return out.empty() ? "no detail from OpenSSL" : out;
}

// A TLS session over any agentkit Stream (a TCP socket or a proxy tunnel). OpenSSL reads and
// writes memory BIOs; this class moves the bytes between them and the transport, so every wait
// happens in the transport with its deadline and stop token.
class TlsStream final : public http::Stream {
 public:
  TlsStream(std::unique_ptr<http::Stream> transport, SslPtr ssl, BIO* network_in, BIO* network_out)
      : transport_(std::move(transport)), ssl_(std::move(ssl)), in_(network_in), out_(network_out) {}

  Result<void> handshake(const std::string& host, const http::IoDeadline& deadline) {
    while (true) {
      ERR_clear_error();
      const int rc = SSL_connect(ssl_.get());
      if (auto f = flush(deadline); !f) return f;
      if (rc == 1) return {};
      const int err = SSL_get_error(ssl_.get(), rc);
      if (err == SSL_ERROR_WANT_READ) {
        auto got = fill(deadline);
        if (!got) return std::move(got).error();
        if (*got) continue;
      }
      return handshake_error(host);
    }
  }

  Result<std::size_t> read_some(std::span<char> buffer, const http::IoDeadline& deadline) override {
    while (true) {
      ERR_clear_error();
      std::size_t n = 0;
      if (SSL_read_ex(ssl_.get(), buffer.data(), buffer.size(), &n) == 1) return n;
      const int err = SSL_get_error(ssl_.get(), 0);
      if (err == SSL_ERROR_ZERO_RETURN) return std::size_t{0};
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        if (auto f = flush(deadline); !f) return std::move(f).error();
        if (err == SSL_ERROR_WANT_WRITE) continue;
        auto got = fill(deadline);
        if (!got) return std::move(got).error();
        if (*got) continue;
        // The transport ended without close_notify; the HTTP framing above decides whether the
        // message was complete (Content-Length, chunked) or truncated.
        return std::size_t{0};
      }
      if (transport_eof_) return std::size_t{0};
      return fail(Errc::io_error, "TLS read failed: " + drain_openssl_errors());
    }
  }

  // Plaintext or records OpenSSL already holds are readable now; otherwise the transport waits.
  Result<void> wait_readable(const http::IoDeadline& deadline) override {
    if (SSL_pending(ssl_.get()) > 0 || BIO_ctrl_pending(in_) > 0 || transport_eof_) return {};
    return transport_->wait_readable(deadline);
  }

  Result<void> write_all(std::string_view bytes, const http::IoDeadline& deadline) override {
    while (!bytes.empty()) {
      ERR_clear_error();
      std::size_t n = 0;
      if (SSL_write_ex(ssl_.get(), bytes.data(), bytes.size(), &n) == 1) {
        bytes.remove_prefix(n);
        if (auto f = flush(deadline); !f) return f;
        continue;
      }
      const int err = SSL_get_error(ssl_.get(), 0);
      if (auto f = flush(deadline); !f) return f;
      if (err == SSL_ERROR_WANT_READ) {
        auto got = fill(deadline);
        if (!got) return std::move(got).error();
        if (*got) continue;
      }
      if (err == SSL_ERROR_WANT_WRITE) continue;
      return fail(Errc::io_error, "TLS write failed: " + drain_openssl_errors());
    }
    return {};
  }

  // An idle connection may legitimately receive TLS records that carry no data (TLS 1.3 session
  // tickets, key updates); only application data, close_notify or EOF make it unusable.
  bool has_unexpected_input() override {
    if (SSL_pending(ssl_.get()) > 0) return true;
    if (!transport_->has_unexpected_input()) return false;
    const http::IoDeadline no_wait{{}, std::chrono::steady_clock::now()};
    auto got = fill(no_wait);
    if (!got || !*got) return true;
    char byte = 0;
    std::size_t n = 0;
    ERR_clear_error();
    if (SSL_peek_ex(ssl_.get(), &byte, 1, &n) == 1) return true;
    const bool only_handshake_records = SSL_get_error(ssl_.get(), 0) == SSL_ERROR_WANT_READ;
    ERR_clear_error();
    return !only_handshake_records;
  }

 private:
  // Sends whatever OpenSSL has queued for the network.
  Result<void> flush(const http::IoDeadline& deadline) {
    std::array<char, io_block> block{};
    while (BIO_ctrl_pending(out_) > 0) {
      const int n = BIO_read(out_, block.data(), static_cast<int>(block.size()));
      if (n <= 0) break;
      if (auto w = transport_->write_all(std::string_view(block.data(), static_cast<std::size_t>(n)), deadline); !w) {
        return w;
      }
    }
    return {};
  }

  // Reads once from the network into OpenSSL; false at the end of the transport.
  Result<bool> fill(const http::IoDeadline& deadline) {
    std::array<char, io_block> block{};
    auto n = transport_->read_some(block, deadline);
    if (!n) return std::move(n).error();
    if (*n == 0) {
      transport_eof_ = true;
      BIO_set_mem_eof_return(in_, 0);  // from now on an empty BIO means EOF, not "try again"
      return false;
    }
    BIO_write(in_, block.data(), static_cast<int>(*n));
    return true;
  }

  Error handshake_error(const std::string& host) {
    const long verify = SSL_get_verify_result(ssl_.get());
    if (verify != X509_V_OK) {
      return fail(Errc::unauthenticated, "the TLS certificate of '" + host + "' was refused: " +
                                             X509_verify_cert_error_string(verify) +
                                             " (trust a private CA with TlsOptions::extra_ca_file; verification cannot be disabled)")
          .with_detail("host", host)
          .with_detail("verify_error", std::to_string(verify));
    }
    const std::string detail = drain_openssl_errors();
    if (transport_eof_) {
      return fail(Errc::io_error, "the server at '" + host + "' closed the connection during the TLS handshake (" + detail + ")");
    }
    return fail(Errc::protocol_error, "the TLS handshake with '" + host + "' failed: " + detail).with_detail("host", host);
  }

  std::unique_ptr<http::Stream> transport_;
  SslPtr ssl_;
  BIO* in_;   // owned by ssl_
  BIO* out_;  // owned by ssl_
  bool transport_eof_ = false;
};

class OpenSslProvider final : public http::TlsProvider {
 public:
  explicit OpenSslProvider(CtxPtr ctx) : ctx_(std::move(ctx)) {}

  Result<std::unique_ptr<http::Stream>> connect(std::unique_ptr<http::Stream> transport,
                                                const http::TlsClientSettings& settings,
                                                const http::IoDeadline& deadline) override {
    auto session = new_session(settings);
    if (!session) return std::move(session).error();
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    if (in == nullptr || out == nullptr) {
      BIO_free(in);
      BIO_free(out);
      return fail(Errc::internal, "OpenSSL could not allocate memory BIOs");
    }
    SSL_set_bio(session->get(), in, out);
    auto stream = std::make_unique<TlsStream>(std::move(transport), std::move(*session), in, out);
    if (auto h = stream->handshake(settings.server_name, deadline); !h) return std::move(h).error();
    return std::unique_ptr<http::Stream>(std::move(stream));
  }

 private:
  Result<SslPtr> new_session(const http::TlsClientSettings& settings) {
    SslPtr ssl(SSL_new(ctx_.get()));
    if (!ssl) return fail(Errc::internal, "OpenSSL could not create a TLS session: " + drain_openssl_errors());
    const std::string& host = settings.server_name;
    bool named = true;
    if (settings.server_name_is_ip) {
      // IP literals are checked against IP SANs and are never sent as SNI (RFC 6066 §3).
      named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), host.c_str()) == 1;
    } else {
      named = SSL_set_tlsext_host_name(ssl.get(), host.c_str()) == 1 && SSL_set1_host(ssl.get(), host.c_str()) == 1;
    }
    if (!named) {
      return fail(Errc::invalid_argument, "cannot verify TLS for host '" + host + "': " + drain_openssl_errors());
    }
    SSL_set_alpn_protos(ssl.get(), alpn_http11, sizeof alpn_http11);
    return ssl;
  }

  CtxPtr ctx_;
};

}  // namespace

Result<std::shared_ptr<http::TlsProvider>> make_tls_provider(const TlsOptions& options) {
  CtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return fail(Errc::internal, "OpenSSL could not create a TLS context: " + drain_openssl_errors());
  SSL_CTX_set_min_proto_version(ctx.get(), options.require_tls13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
  if (options.use_system_trust && SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    return fail(Errc::internal, "OpenSSL could not load the system trust store: " + drain_openssl_errors());
  }
  if (options.extra_ca_file &&
      SSL_CTX_load_verify_locations(ctx.get(), options.extra_ca_file->c_str(), nullptr) != 1) {
    return fail(Errc::invalid_argument, "cannot load CA certificates from '" + *options.extra_ca_file +
                                            "': " + drain_openssl_errors())
        .with_detail("file", *options.extra_ca_file);
  }
  return std::shared_ptr<http::TlsProvider>(std::make_shared<OpenSslProvider>(std::move(ctx)));
}

}  // namespace agentkit::openssl
