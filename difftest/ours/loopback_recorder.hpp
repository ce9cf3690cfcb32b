// Our side's loopback recorder: an agentkit_http server on 127.0.0.1 (ephemeral port) that keeps
// every request it receives and answers with the reply it was told to give, cut into the pieces
// the scenario asks for.
//
//   auto rec = LoopbackRecorder::start();
//   rec->answer_with({.status = 200, .content_type = "text/event-stream", .body = bytes, .split = "inside_utf8"});
//   model.base_url = rec->origin();                       // "http://127.0.0.1:40123"
//   ... run the wire ...
//   std::vector<CapturedRequest> seen = rec->take();
//
// Thread safety: the handler runs on server threads; answer_with/take lock a mutex.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/http/server.hpp"
#include "records.hpp"

namespace agentkit::difftest {

struct CannedAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string split = "whole";
};

class LoopbackRecorder {
 public:
  // Chooses the answer from the request (request-direction scenarios answer streamed or whole
  // replies depending on what the wire asked for).
  using Answerer = std::function<CannedAnswer(const CapturedRequest&)>;

  static Result<std::unique_ptr<LoopbackRecorder>> start();

  void answer_with(CannedAnswer answer);
  void answer_with(Answerer answerer);
  std::vector<CapturedRequest> take();
  std::string origin() const;  // "http://127.0.0.1:<port>"

 private:
  LoopbackRecorder() = default;
  void handle(const http::ServerRequest& request, http::ResponseWriter& out);

  std::mutex mutex_;
  Answerer answerer_;
  std::vector<CapturedRequest> seen_;
  std::unique_ptr<http::HttpServer> server_;
};

}  // namespace agentkit::difftest
