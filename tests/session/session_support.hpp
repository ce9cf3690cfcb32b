// Fixtures for the session tests: stores that count syncs or fail on demand, and line helpers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/session/log.hpp"

namespace agentkit::testing {

// The lines of `bytes`, without their newlines (a torn tail is the last element).
inline std::vector<std::string> lines_of(std::string_view bytes) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) nl = bytes.size();
    out.emplace_back(bytes.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// A memory store that counts sync() calls and fails appends while `fail_appends` is set.
class ProbeStore final : public session::Store {
 public:
  explicit ProbeStore(session::MemoryStore memory) : memory_(std::move(memory)) {}
  Result<void> lock(std::string_view holder) override { return memory_.lock(holder); }
  Result<std::string> read() override { return memory_.read(); }
  Result<void> create(std::string_view line) override { return memory_.create(line); }
  Result<void> append(std::string_view lines) override {
    ++*appends;
    if (*fail_appends) return make_error(Errc::io_error, "no space left on device (injected)");
    return memory_.append(lines);
  }
  Result<void> sync() override {
    ++*syncs;
    return memory_.sync();
  }
  Result<void> truncate(std::uint64_t size) override { return memory_.truncate(size); }
  std::string describe() const override { return "probe store"; }

  std::shared_ptr<int> syncs = std::make_shared<int>(0);
  std::shared_ptr<int> appends = std::make_shared<int>(0);
  std::shared_ptr<bool> fail_appends = std::make_shared<bool>(false);

 private:
  session::MemoryStore memory_;
};


}  // namespace agentkit::testing
