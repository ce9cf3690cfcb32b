// Tool-call ids for the wires that carry none (Gemini generateContent, Ollama /api/chat; REQ-LOOP-02
// 0.3.2): results pair with calls by position there, but the canonical transcript is keyed by id.
//
//   PositionalCallIds ids("gemini", call.wire.body);    // one per response, from its request bytes
//   ids.next();   // "gemini_5f3a9c01d2e4b7a8_1", then "..._2", ...
//
// The id is derived from the request that produced the response and the call's position in it —
// never from a counter shared between responses. So the streamed and the whole-reply path of the
// same request name a call identically, a replayed transcript still pairs its results, and two
// turns of one session (whose request bytes differ: the history grew) never share an id. Ids stay
// inside [A-Za-z0-9_] so any wire accepts them on replay (REQ-PROV-11 rule 5).
//
// Thread safety: a value; one per decoder.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace agentkit::providers::detail {

class PositionalCallIds {
 public:
  PositionalCallIds(std::string_view prefix, std::string_view request_bytes)
      : prefix_(std::string(prefix) + "_" + hex64(fnv1a64(request_bytes)) + "_") {}

  // The id of the next call of this response (1-based position).
  std::string next() { return prefix_ + std::to_string(++count_); }

 private:
  // FNV-1a, 64-bit (offset basis and prime from the FNV specification): a fingerprint, not a
  // security boundary; a linear pass over the body, cheaper than SHA-256 on every response.
  static std::uint64_t fnv1a64(std::string_view bytes) noexcept {
    constexpr std::uint64_t kOffsetBasis = 14695981039346656037ULL;
    constexpr std::uint64_t kPrime = 1099511628211ULL;
    std::uint64_t h = kOffsetBasis;
    for (unsigned char c : bytes) {
      h ^= c;
      h *= kPrime;
    }
    return h;
  }
  static std::string hex64(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
  }

  std::string prefix_;
  int count_ = 0;
};

}  // namespace agentkit::providers::detail
