// Streamed decode throughput of every built-in wire, side by side with the vendor's own SDK parsing
// the same bytes in node (difftest/node/bench_sdk_parse.mjs), and the ratio. Prints figures;
// asserts nothing (NFR-PERF-09: wall-clock numbers are reported, never gated).
//
//   bench_wires_decode [--repeat N] [--target-bytes B] [--chunk C] [--no-sdk]
//
// The reply: the difftest's canned tool-call stream of each wire (difftest/canned/<wire>/), with
// its first text-delta event repeated until the body is about --target-bytes long — what a long
// answer streamed token by token looks like, in the vendor's exact framing. Both sides read it
// from memory in --chunk byte pieces (no socket): ours through the public WireClient with an
// in-memory HttpTransport (SSE/NDJSON framing, the bounded JSON decoder, the message assembler and
// one event per delta, consumed as a UI would), the SDK through a replaced global fetch (its
// framing, JSON.parse and accumulation). MB = 10^6 bytes.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

using namespace agentkit;
using BenchClock = std::chrono::steady_clock;

namespace {

struct Settings {
  int repeat = 30;
  std::size_t target_bytes = 1'000'000;
  std::size_t chunk = 4096;  // bench_sdk_parse.mjs's default piece size
  bool sdk = true;
};

const std::filesystem::path kSourceRoot = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The events (SSE blocks ending in a blank line, or NDJSON lines) of a canned stream.
std::vector<std::string> split_events(const std::string& body, bool ndjson) {
  std::vector<std::string> out;
  const std::string sep = ndjson ? "\n" : "\n\n";
  std::size_t at = 0;
  while (at < body.size()) {
    std::size_t end = body.find(sep, at);
    end = end == std::string::npos ? body.size() : end + sep.size();
    out.push_back(body.substr(at, end - at));
    at = end;
  }
  return out;
}

// The canned stream with its first text delta ("Let me ") repeated to about `target` bytes.
std::string amplified(const std::string& canned, bool ndjson, std::size_t target) {
  std::vector<std::string> events = split_events(canned, ndjson);
  std::size_t delta = events.size();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].find("Let me ") != std::string::npos) {
      delta = i;
      break;
    }
  }
  if (delta == events.size()) return canned;
  std::string out;
  for (std::size_t i = 0; i < delta; ++i) out += events[i];
  const std::size_t rest = canned.size() - out.size();
  while (out.size() + rest < target) out += events[delta];
  for (std::size_t i = delta; i < events.size(); ++i) out += events[i];
  return out;
}

// Serves one fixed body from memory, in `chunk` byte reads.
class MemoryBody final : public http::BodyReader {
 public:
  MemoryBody(const std::string& bytes, std::size_t chunk) : bytes_(bytes), chunk_(chunk) {}
  Result<std::size_t> read_some(std::span<char> buffer) override {
    const std::size_t n = std::min({chunk_, buffer.size(), bytes_.size() - at_});
    std::copy_n(bytes_.data() + at_, n, buffer.data());
    at_ += n;
    return n;
  }

 private:
  const std::string& bytes_;
  std::size_t chunk_;
  std::size_t at_ = 0;
};

class MemoryTransport final : public http::HttpTransport {
 public:
  MemoryTransport(std::string content_type, const std::string& body, std::size_t chunk)
      : content_type_(std::move(content_type)), body_(body), chunk_(chunk) {}
  Result<http::Response> send(const http::Request&, agentkit::stop_token) override {
    return http::Response(200, "OK", http::Headers({{"Content-Type", content_type_}}), std::make_unique<MemoryBody>(body_, chunk_));
  }

 private:
  std::string content_type_;
  const std::string& body_;
  std::size_t chunk_;
};

struct WireUnderTest {
  std::string api;
  std::string model_spec;
  std::string content_type;
  std::filesystem::path canned;
};

// The difftest's own list: the catalog row each wire is driven with and its stream's type.
std::vector<WireUnderTest> wires_under_test() {
  auto doc = json::parse(read_file(kSourceRoot / "difftest/scenarios/wires.json")).value();
  std::vector<WireUnderTest> out;
  for (auto api : providers::builtin_wire_apis()) {
    const json::Value* w = doc.find("wires")->find(api);
    if (w == nullptr) continue;
    const json::Value* type = w->find("stream_content_type");
    WireUnderTest t{std::string(api), w->find("model")->as_string(), type ? type->as_string() : "text/event-stream", {}};
    const bool ndjson = t.content_type == "application/x-ndjson";
    t.canned = kSourceRoot / "difftest/canned" / t.api / (ndjson ? "tool_calls.ndjson" : "tool_calls.sse");
    out.push_back(t);
  }
  return out;
}

double our_mb_per_s(const WireUnderTest& w, const std::string& body, const Settings& s) {
  Model model = catalog::Catalog::builtin().resolve(w.model_spec).value();
  model.base_url = "http://127.0.0.1:9/v1";
  providers::WireOptions options;
  options.transport.http = std::make_shared<MemoryTransport>(w.content_type, body, s.chunk);
  options.transport.credentials.environment = [](std::string_view name) -> std::optional<std::string> {
    if (name.ends_with("_API_KEY")) return "bench-key";
    return std::nullopt;
  };
  auto client = providers::make_wire_client(w.api, options).value();
  std::vector<Message> history = {user_text("hi")};
  Request request;
  request.model = std::make_shared<Model>(model);
  request.messages = history;
  request.max_tokens = 256;
  std::size_t events = 0;
  auto once = [&] {
    EventStream stream = client->stream(request, {}, {});
    while (auto ev = stream.next()) ++events;  // consumed as they come, like a UI
    AssistantMessage m = stream.result().value();
    if (m.stop_reason == StopReason::error) {
      std::cerr << w.api << ": our decoder failed: " << m.error_message << "\n";
      std::exit(1);
    }
  };
  for (int i = 0; i < 3; ++i) once();
  const auto start = BenchClock::now();
  for (int i = 0; i < s.repeat; ++i) once();
  const double seconds = std::chrono::duration<double>(BenchClock::now() - start).count();
  return static_cast<double>(body.size()) * s.repeat / 1e6 / seconds;
}

// The SDK's figure from bench_sdk_parse.mjs; a negative value when it cannot be measured here.
double sdk_mb_per_s(const WireUnderTest& w, const std::filesystem::path& file, const Settings& s, std::string& why) {
  const auto node_dir = kSourceRoot / "difftest/node";
  if (!std::filesystem::exists(kSourceRoot / "difftest/node_modules")) {
    why = "difftest/node_modules missing (npm ci in difftest/)";
    return -1;
  }
  const std::string command = "node " + (node_dir / "bench_sdk_parse.mjs").string() + " --wire " + w.api + " --file " + file.string() +
                              " --stream true --repeat " + std::to_string(s.repeat) + " --chunk " + std::to_string(s.chunk) +
                              " --content-type " + w.content_type + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    why = "cannot start node";
    return -1;
  }
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) output += buf;
  const int status = pclose(pipe);
  const auto at = output.find("MB/s=");
  if (status != 0 || at == std::string::npos) {
    why = "node failed: " + output.substr(0, 300);
    return -1;
  }
  return std::stod(output.substr(at + 5));
}

Settings parse_args(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--no-sdk") s.sdk = false;
    else if (a == "--repeat" && i + 1 < argc) s.repeat = std::stoi(argv[++i]);
    else if (a == "--target-bytes" && i + 1 < argc) s.target_bytes = std::stoul(argv[++i]);
    else if (a == "--chunk" && i + 1 < argc) s.chunk = std::stoul(argv[++i]);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse_args(argc, argv);
  const auto work = std::filesystem::temp_directory_path() / ("agentkit-wires-decode-" + std::to_string(::getpid()));
  std::filesystem::create_directories(work);
  std::printf("streamed decode, %zu-byte reads, %d repeats (MB = 10^6 bytes)\n", s.chunk, s.repeat);
  std::printf("%-22s %10s %8s %12s %12s %8s\n", "wire", "bytes", "events", "ours MB/s", "SDK MB/s", "ratio");
  for (const WireUnderTest& w : wires_under_test()) {
    const bool ndjson = w.content_type == "application/x-ndjson";
    const std::string body = amplified(read_file(w.canned), ndjson, s.target_bytes);
    const auto file = work / (w.api + (ndjson ? ".ndjson" : ".sse"));
    std::ofstream(file, std::ios::binary) << body;
    const double ours = our_mb_per_s(w, body, s);
    std::string why;
    const double sdk = s.sdk ? sdk_mb_per_s(w, file, s, why) : -1;
    const std::size_t events = split_events(body, ndjson).size();
    if (sdk > 0) {
      std::printf("%-22s %10zu %8zu %12.1f %12.1f %7.1fx\n", w.api.c_str(), body.size(), events, ours, sdk, ours / sdk);
    } else {
      std::printf("%-22s %10zu %8zu %12.1f %12s %8s  (%s)\n", w.api.c_str(), body.size(), events, ours, "n/a", "-",
                  s.sdk ? why.c_str() : "--no-sdk");
    }
  }
  std::filesystem::remove_all(work);
  return 0;
}
