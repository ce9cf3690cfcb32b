// Send-time repair that does not grow with history: under the loop's promise that a session's
// messages only grow (Request::history_serial), a wire remembers per session the last clean point
// of its previous repair and starts the next one there.
//
//   RepairResume resume;
//   TranscriptView view = resume.repair(request);   // request.messages repaired for request.model
//
// A clean point is where a build that starts there makes the same view as one that starts at 0:
// nothing before it was changed by a rule, no tool use before it waits for its result, and no
// tool-call id was claimed for another model (ViewBuilder::clean_end). The promise makes the
// messages before it the same in every later request of the session, so the point stays clean
// for the same target; a new serial or another target starts from 0.
//
// Thread safety: RepairResume is safe for concurrent use (one mutex around a small table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "agentkit/core/provider.hpp"
#include "agentkit/providers/repair.hpp"

namespace agentkit::providers::detail {

struct TranscriptViewAccess {
  // repair_for_send(history, target) started at `start` (a clean point of history for target,
  // or 0); sets `clean_end` to the last clean point of this build.
  static TranscriptView repair(std::span<const Message> history, const Model& target,
                               std::size_t start, std::size_t& clean_end);
};

class RepairResume {
 public:
  // Sessions remembered (a point is about 150 bytes); past it the least recently used quarter is
  // dropped (such a session then repairs once from 0).
  static constexpr std::size_t kMaxSessions = 16 * 1024;

  explicit RepairResume(bool enabled = true) : enabled_(enabled) {}

  // repair_for_send(request.messages, *request.model), started at the session's clean point when
  // the request carries a promise.
  TranscriptView repair(const Request& request);
  // Forgets the session's clean point (it has closed).
  void forget(std::string_view session);

 private:
  struct Point {
    std::uint64_t serial = 0;
    // The target: vendor, api, id and image input are all the repair reads of the model.
    std::string vendor;
    std::string api;
    std::string id;
    bool images = false;
    std::size_t clean = 0;
    std::uint64_t used = 0;  // the table's clock at its last use
    bool same_target(const Model& model) const;
  };
  using Points = std::map<std::string, Point, std::less<>>;

  // Makes room for one more point: drops the least recently used quarter. Called with mu_ held.
  void drop_least_used();

  bool enabled_;
  std::mutex mu_;
  Points points_;
  std::uint64_t clock_ = 0;
};

}  // namespace agentkit::providers::detail
