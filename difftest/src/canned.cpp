#include "canned.hpp"

#include <charconv>
#include <cstddef>

#include "agentkit/json/value.hpp"

namespace agentkit::difftest {

std::vector<std::string_view> split_body(std::string_view body, std::string_view split) {
  std::vector<std::string_view> pieces;
  constexpr std::string_view kEvery = "every:";
  if (split.substr(0, kEvery.size()) == kEvery) {
    std::size_t n = 0;
    const std::string_view digits = split.substr(kEvery.size());
    std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (n == 0) n = body.size() > 0 ? body.size() : 1;
    for (std::size_t at = 0; at < body.size(); at += n) pieces.push_back(body.substr(at, n));
    return pieces;
  }
  if (split == "inside_utf8") {
    std::size_t start = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
      const auto byte = static_cast<unsigned char>(body[i]);
      constexpr unsigned char kLeadMin = 0xC0;  // 110xxxxx and above start a multi-byte sequence
      if (byte >= kLeadMin && i + 1 < body.size()) {
        pieces.push_back(body.substr(start, i + 1 - start));
        start = i + 1;
      }
    }
    pieces.push_back(body.substr(start));
    return pieces;
  }
  pieces.push_back(body);
  return pieces;
}

bool wants_stream(std::string_view wire, std::string_view target, std::string_view body) {
  if (target.find(":streamGenerateContent") != std::string_view::npos) return true;
  Result<json::Value> doc = json::parse(body);
  const json::Value* stream = doc ? doc->find("stream") : nullptr;
  if (wire == "ollama-chat") return stream == nullptr || stream->get_bool().value_or(true);
  return stream != nullptr && stream->get_bool().value_or(false);
}

std::string request_reply_file(bool stream) { return stream ? "reply.stream" : "reply.json"; }

}  // namespace agentkit::difftest
