#include "agentkit/core/provider.hpp"

#include <array>

#include "fnv.hpp"

namespace agentkit {
namespace {

constexpr std::array<std::string_view, 7> kThinkingNames = {"off",  "minimal", "low", "medium",
                                                            "high", "xhigh",   "max"};

using detail::fnv_mix, detail::kFnvOffset;

}  // namespace

std::string_view to_string(ThinkingLevel level) noexcept {
  return kThinkingNames[static_cast<std::size_t>(level)];
}

std::optional<ThinkingLevel> parse_thinking_level(std::string_view s) noexcept {
  for (std::size_t i = 0; i < kThinkingNames.size(); ++i) {
    if (kThinkingNames[i] == s) return static_cast<ThinkingLevel>(i);
  }
  return std::nullopt;
}

std::uint64_t fingerprint_of(const ToolSpec& spec) {
  std::uint64_t h = kFnvOffset;
  fnv_mix(h, spec.name);
  fnv_mix(h, spec.description);
  fnv_mix(h, json::dump(spec.input_schema));
  return h;
}

AssistantMessage complete(ProviderClient& client, const Request& request,
                          const StreamOptions& options, agentkit::stop_token stop) {
  EventStream stream = client.stream(request, options, stop);
  Result<AssistantMessage> r = stream.result();
  if (r) return std::move(*r);
  // A provider that broke its contract still yields a message, never an exception.
  AssistantMessage m;
  m.stop_reason = StopReason::error;
  m.error_message = r.error().message;
  if (request.model) {
    m.model = request.model->id;
    m.api = request.model->api;
    m.provider = request.model->vendor;
  }
  return m;
}

void ProviderRegistry::add(std::string api, std::shared_ptr<ProviderClient> client) {
  clients_[std::move(api)] = std::move(client);
}

Result<std::shared_ptr<ProviderClient>> ProviderRegistry::find(std::string_view api) const {
  auto it = clients_.find(api);
  if (it != clients_.end() && it->second) return it->second;
  std::string known;
  for (const auto& [name, client] : clients_) {
    if (!known.empty()) known += ", ";
    known += name;
  }
  return fail(Errc::not_found,
              "no provider registered for wire API '" + std::string(api) + "'; registered: " +
                  (known.empty() ? std::string("none (call providers::register_defaults)") : known))
      .with_detail("api", std::string(api));
}

std::vector<std::string> ProviderRegistry::apis() const {
  std::vector<std::string> out;
  out.reserve(clients_.size());
  for (const auto& [name, client] : clients_) out.push_back(name);
  return out;
}

}  // namespace agentkit
