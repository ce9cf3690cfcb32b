#include "repair_resume.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace agentkit::providers::detail {

bool RepairResume::Point::same_target(const Model& model) const {
  return images == model.image_input && id == model.id && api == model.api &&
         vendor == model.vendor;
}

TranscriptView RepairResume::repair(const Request& request) {
  const std::span<const Message> history = request.messages;
  const Model& target = *request.model;
  std::size_t clean_end = 0;
  if (!enabled_ || request.history_serial == 0) {
    return TranscriptViewAccess::repair(history, target, 0, clean_end);
  }
  std::size_t start = 0;
  {
    std::lock_guard lock(mu_);
    auto it = points_.find(request.session_id);
    // A point past the end belongs to a longer request of the session made concurrently: not a
    // clean point of this one.
    if (it != points_.end() && it->second.serial == request.history_serial &&
        it->second.same_target(target) && it->second.clean <= history.size()) {
      start = it->second.clean;
    }
  }
  TranscriptView view = TranscriptViewAccess::repair(history, target, start, clean_end);
  std::lock_guard lock(mu_);
  auto it = points_.find(request.session_id);
  if (it == points_.end()) {
    if (points_.size() >= kMaxSessions) drop_least_used();
    it = points_.emplace(request.session_id, Point{}).first;
  }
  Point& point = it->second;
  point.used = ++clock_;
  point.serial = request.history_serial;
  point.clean = clean_end;
  if (!point.same_target(target)) {  // assigned only when it changes: no allocation per request
    point.vendor = target.vendor;
    point.api = target.api;
    point.id = target.id;
    point.images = target.image_input;
  }
  return view;
}

void RepairResume::forget(std::string_view session) {
  std::lock_guard lock(mu_);
  if (auto it = points_.find(session); it != points_.end()) points_.erase(it);
}

void RepairResume::drop_least_used() {
  std::vector<std::pair<std::uint64_t, Points::iterator>> by_use;
  by_use.reserve(points_.size());
  for (auto it = points_.begin(); it != points_.end(); ++it)
    by_use.emplace_back(it->second.used, it);
  const std::size_t drop = std::min(by_use.size(), by_use.size() / 4 + 1);
  const auto quarter = by_use.begin() + static_cast<std::ptrdiff_t>(drop);
  std::nth_element(by_use.begin(), quarter, by_use.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto at = by_use.begin(); at != quarter; ++at) points_.erase(at->second);
}

}  // namespace agentkit::providers::detail
