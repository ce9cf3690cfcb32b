// Private: the table of built-in wires that pipeline.cpp defines and wires.cpp builds clients from.
// It stays out of include/ because nothing outside this module may depend on its layout.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers::detail {

// One built-in wire: its API and factory, in builtin_wire_apis() order.
struct BuiltinWire {
  std::string_view api;
  std::shared_ptr<WireClient> (*make)(const WireOptions& options,
                                      std::shared_ptr<const RequestPipeline> pipeline);
};

std::span<const BuiltinWire> builtin_wires() noexcept;

}  // namespace agentkit::providers::detail
