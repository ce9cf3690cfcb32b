// Building the built-in wire clients (wires.hpp): one shared pipeline and meter per registration.
#include "agentkit/providers/wires.hpp"

#include "wire_common/builtin_wires.hpp"
#include "wire_common/wire_client_base.hpp"

namespace agentkit::providers {
namespace {

std::string builtin_list() {
  std::string out;
  for (const auto& w : detail::builtin_wires()) {
    if (!out.empty()) out += ", ";
    out += w.api;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

// ---- WireClient ---------------------------------------------------------------------------------------------

std::optional<CacheStats> WireClient::cache_stats(std::string_view session_id) const {
  std::shared_ptr<CacheMeter> m = meter();
  if (!m) return std::nullopt;
  return m->stats(session_id);
}

void WireClient::session_closed(std::string_view session_id) {
  if (std::shared_ptr<CacheMeter> m = meter()) m->forget(session_id);
}

EventStream WireClient::stream(const Request& request, const StreamOptions& options, agentkit::stop_token stop) {
  Result<PreparedCall> call = prepare(request, options);
  if (call) return send(std::move(*call), options, std::move(stop));
  return detail::failed_stream(request, api(), options, call.error());
}

namespace detail {

EventStream failed_stream(const Request& request, std::string_view api,
                          const StreamOptions& options, const Error& error) {
  // REQ-PROV-04: a pre-send failure is a pre-closed error stream, never an exception or a value.
  auto [sink, events] = make_event_stream(options.stream);
  AssistantMessage m = request.model ? start_message(*request.model) : AssistantMessage{};
  if (m.api.empty()) m.api = std::string(api);
  AssistantMessage header = m;
  sink.push(MessageStartEvent{header});
  m.stop_reason = StopReason::error;
  m.error_message = error.message;
  sink.push(ErrorEvent{error, true});
  sink.finish(std::move(m));
  return std::move(events);
}

}  // namespace detail

Result<std::shared_ptr<WireClient>> make_wire_client(std::string_view api, const WireOptions& options) {
  for (const auto& w : detail::builtin_wires()) {
    if (w.api == api) {
      std::shared_ptr<WireClient> client = w.make(options, nullptr);
      if (options.caching.dedup) client = with_dedup(std::move(client), *options.caching.dedup);
      return client;
    }
  }
  return fail(Errc::not_found, "no built-in wire speaks '" + std::string(api) + "'; built-in wires: " + builtin_list());
}

RegisteredWires register_wires(ProviderRegistry& registry, WireOptions options) {
  RegisteredWires out;
  if (!options.meter) options.meter = std::make_shared<CacheMeter>();
  out.meter = options.meter;
  auto pipeline = std::make_shared<const RequestPipeline>(options.transport);
  for (const auto& w : detail::builtin_wires()) {
    std::shared_ptr<WireClient> client = w.make(options, pipeline);
    if (options.caching.dedup) client = with_dedup(std::move(client), *options.caching.dedup);
    registry.add(std::string(w.api), std::move(client));
    out.apis.emplace_back(w.api);
  }
  return out;
}

}  // namespace agentkit::providers
