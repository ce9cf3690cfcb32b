#include "loopback_recorder.hpp"

#include <thread>
#include <utility>

#include "canned.hpp"

namespace agentkit::difftest {

namespace {

// A pause between pieces, so each piece leaves in its own TCP segment and the client's reads see
// the cuts (without it the kernel may coalesce the writes and hide a split character).
constexpr std::chrono::milliseconds kPieceGap{2};

CapturedRequest capture(const http::ServerRequest& request) {
  CapturedRequest c;
  c.method = request.method;
  c.target = request.target;
  for (const http::Header& h : request.headers) c.headers.emplace_back(h.name, h.value);
  c.body = request.body;
  return c;
}

}  // namespace

Result<std::unique_ptr<LoopbackRecorder>> LoopbackRecorder::start() {
  std::unique_ptr<LoopbackRecorder> recorder(new LoopbackRecorder());
  LoopbackRecorder* self = recorder.get();
  Result<http::HttpServer> server = http::HttpServer::start(
      http::ServerOptions{}, [self](const http::ServerRequest& req, http::ResponseWriter& out) { self->handle(req, out); });
  if (!server) return std::move(server).error();
  recorder->server_ = std::make_unique<http::HttpServer>(std::move(*server));
  return recorder;
}

void LoopbackRecorder::answer_with(CannedAnswer answer) {
  answer_with([answer = std::move(answer)](const CapturedRequest&) { return answer; });
}

void LoopbackRecorder::answer_with(Answerer answerer) {
  std::lock_guard lock(mutex_);
  answerer_ = std::move(answerer);
}

std::vector<CapturedRequest> LoopbackRecorder::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(seen_, {});
}

std::string LoopbackRecorder::origin() const { return server_->base_url(); }

void LoopbackRecorder::handle(const http::ServerRequest& request, http::ResponseWriter& out) {
  CapturedRequest captured = capture(request);
  Answerer answerer;
  {
    std::lock_guard lock(mutex_);
    seen_.push_back(captured);
    answerer = answerer_;
  }
  if (!answerer) {
    (void)out.respond(404, {{"Content-Type", "application/json"}}, R"({"error":"no canned reply"})");
    return;
  }
  const CannedAnswer answer = answerer(captured);
  const http::Headers headers{{"Content-Type", answer.content_type}, {"request-id", "req_difftest"},
                              {"x-request-id", "req_difftest"}};
  if (!out.start_stream(answer.status, headers)) return;
  for (std::string_view piece : split_body(answer.body, answer.split)) {
    if (out.stop_token().stop_requested() || !out.write(piece)) return;
    std::this_thread::sleep_for(kPieceGap);
  }
  (void)out.finish();
}

}  // namespace agentkit::difftest
