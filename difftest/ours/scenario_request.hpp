// A scenario's logical request turned into our canonical agentkit::Request, for one wire.
//
//   auto built = build_request(scenario_request_json, wire_info, recorder_origin, overrides);
//   EventStream s = client->stream(built->request, options, {});
//
// The model comes from the built-in catalog (the wire's "vendor/model-id" from wires.json, an
// unknown id cloned from its sibling as users get it) with its base URL's origin moved to the
// loopback recorder (the path part, such as "/v1", is kept). Assistant messages in the scenario
// are stamped with the target model's provenance, so send-time repair treats the transcript as
// same-model (no id rewriting, signatures kept), as it would be in a real session.
//
// Thread safety: plain values.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/json/value.hpp"
#include "scenario.hpp"

namespace agentkit::difftest {

// Owns what Request's spans point at; keep it alive until the stream has finished.
struct BuiltRequest {
  std::shared_ptr<Model> model;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  Request request;
};

// `logical` is the scenario's "request" object; `model_overrides` its "model_overrides" (or null).
Result<std::unique_ptr<BuiltRequest>> build_request(const json::Value& logical, const WireInfo& wire,
                                                    const std::string& recorder_origin,
                                                    const json::Value& model_overrides);

// "http://127.0.0.1:1234" + "https://api.openai.com/v1" -> "http://127.0.0.1:1234/v1".
std::string rebase_origin(const std::string& base_url, const std::string& origin);

}  // namespace agentkit::difftest
