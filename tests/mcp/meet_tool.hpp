// The `meet` tool, for the fixture server and the in-process servers of the tests: two calls in
// flight at once, each logging while the other runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "agentkit/mcp/server.hpp"

namespace agentkit::mcp_test {

// meet {tag}: logs "<tag> arrived", waits (up to 5 s) until two calls have arrived, logs "<tag>
// leaving" and answers "met".
inline mcp::ServerTool meet_tool() {
  struct Room {
    std::mutex mu;
    std::condition_variable cv;
    int arrived = 0;
  };
  auto room = std::make_shared<Room>();
  return {.name = "meet",
          .description = "Logs, waits for a second caller, logs again",
          .handler = [room](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            const json::Value* t = call.arguments.find("tag");
            const std::string tag = t && t->is_string() ? t->as_string() : "?";
            call.log(mcp::LogLevel::info, json::Value(tag + " arrived"), "meet");
            {
              std::unique_lock lock(room->mu);
              ++room->arrived;
              room->cv.notify_all();
              room->cv.wait_for(lock, std::chrono::seconds(5), [&] { return room->arrived >= 2; });
            }
            call.log(mcp::LogLevel::info, json::Value(tag + " leaving"), "meet");
            return mcp::ServerToolResult::text("met");
          }};
}

}  // namespace agentkit::mcp_test
