// Scenario files: the logical cases both sides run, written once and shared by every wire
// (NFR-TEST-06.1). A provider with no scenarios counts as untested, so the wire list is explicit.
//
//   auto set = load_scenarios("difftest/scenarios");      // strict: an unknown key is an error
//   for (const Scenario& s : set->scenarios) for (const std::string& w : s.wires) ...
//
// Layout of the folder:
//   wires.json              {"wires":{"<api>":{"model":"vendor/model-id","sdk":"<npm package>",
//                            "stream_content_type"?}}}
//   request/<name>.json     {"about","stream","request":{...},"model_overrides"?,"reference"?,
//                            "wires"?,"order_sensitive_paths"?}
//   response/<name>.json    {"about","stream","split","request_from","canned":{"<api>":{...}},
//                            "order_sensitive_paths"?}
// A scenario's id is "<direction>/<name>" ("request/one_tool"), which is also how ledger entries
// and record files name it. The request object is read by our driver (into agentkit::Request)
// and by the node producers (into each SDK's call); see difftest/README.md for its members.
//
// Thread safety: plain values.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::difftest {

enum class Direction { request, response };

struct WireInfo {
  std::string api;    // "anthropic-messages"
  std::string model;  // catalog spec "anthropic/claude-sonnet-5-5"
  std::string sdk;    // the npm package that produces its references
  // Content-Type of the wire's streamed replies ("text/event-stream"; Ollama: NDJSON).
  std::string stream_content_type = "text/event-stream";
};

struct CannedReply {
  std::string file;          // relative to difftest/canned
  std::string content_type;  // sent as Content-Type
  int status = 200;
};

struct Scenario {
  std::string id;  // "request/one_tool"
  Direction direction = Direction::request;
  std::string about;
  bool stream = false;
  std::vector<std::string> wires;                 // the APIs it runs on
  std::vector<std::string> order_sensitive_paths;  // globs
  json::Value document;                           // the whole file, for the drivers
  // response direction only
  std::string split = "whole";  // "whole", "inside_utf8" or "every:<n>"
  std::string request_from;     // the request scenario whose request is sent
  std::map<std::string, CannedReply> canned;
};

struct ScenarioSet {
  std::vector<WireInfo> wires;
  std::vector<Scenario> scenarios;  // sorted by id
  const WireInfo* find_wire(const std::string& api) const;
  const Scenario* find(const std::string& id) const;
};

// Loads and checks every scenario under `folder`.
Result<ScenarioSet> load_scenarios(const std::filesystem::path& folder);

// Reads a whole file; Errc::not_found naming it when it cannot be read.
Result<std::string> read_text_file(const std::filesystem::path& file);

}  // namespace agentkit::difftest
