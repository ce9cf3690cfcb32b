// Redaction (NFR-SEC-01, REQ-AUTH-07) and the injectable environment (REQ-AUTH-03).
#include <cstdlib>

#include "agentkit/providers/credentials.hpp"

namespace agentkit::providers {
namespace {

// How many characters redaction keeps at each end of a long secret (NFR-SEC-01).
constexpr std::size_t kRevealedEnds = 4;
constexpr std::string_view kMask = "***";

}  // namespace

std::string redact(std::string_view secret) {
  if (secret.size() < kMinRevealedSecretLength) return std::string(kMask);
  std::string out(secret.substr(0, kRevealedEnds));
  out += kMask;
  out += secret.substr(secret.size() - kRevealedEnds);
  return out;
}

std::string scrub(std::string text, std::span<const Secret> secrets) {
  for (const Secret& s : secrets) {
    const std::string& raw = s.reveal();
    if (raw.empty()) continue;
    std::string masked = redact(raw);
    for (auto pos = text.find(raw); pos != std::string::npos; pos = text.find(raw, pos + masked.size())) {
      text.replace(pos, raw.size(), masked);
    }
  }
  return text;
}

Error scrub(Error error, std::span<const Secret> secrets) {
  error.message = scrub(std::move(error.message), secrets);
  for (auto& d : error.detail) d.value = scrub(std::move(d.value), secrets);
  return error;
}

std::vector<Secret> ModelAuth::secrets() const {
  std::vector<Secret> out;
  if (!key.empty()) out.push_back(key);
  for (const auto& [name, value] : headers) {
    if (value && !value->empty()) out.emplace_back(*value);
  }
  return out;
}

EnvironmentLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    // getenv needs a NUL-terminated name; the copy is the price of a string_view interface.
    const char* v = std::getenv(std::string(name).c_str());  // NOLINT(concurrency-mt-unsafe): read-only use
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

EnvironmentLookup fixed_environment(std::map<std::string, std::string, std::less<>> variables) {
  return [vars = std::move(variables)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

EnvironmentLookup overlay_environment(std::map<std::string, std::string, std::less<>> overrides, EnvironmentLookup base) {
  return [over = std::move(overrides), base = std::move(base)](std::string_view name) -> std::optional<std::string> {
    auto it = over.find(name);
    if (it != over.end() && !it->second.empty()) return it->second;  // "" falls through (REQ-AUTH-03)
    return base ? base(name) : std::nullopt;
  };
}

}  // namespace agentkit::providers
