// Fuzz support for the provider reply decoders (anthropic_fuzz, openai_fuzz, google_fuzz,
// ollama_fuzz; Framing::ndjson for Ollama's line-delimited stream, SSE for the others): one body decoded
// whole, byte by byte and in pseudo-random chunks must give the same message and the same events,
// every block_start must be closed by a block_end carrying the block the message kept, and the
// whole-reply path must survive the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "agentkit/providers/pipeline.hpp"
#include "providers/wire_common/message_assembler.hpp"
#include "providers/wire_common/wire_client_base.hpp"
#include "wire/fuzz_chunking.hpp"

namespace wire_test {

enum class Framing { sse, ndjson };

struct DecodedReply {
  agentkit::AssistantMessage message;
  std::vector<agentkit::Event> events;
};

// MakeDecoder: (MessageAssembler&) -> std::unique_ptr<ReplyDecoder>.
template <class MakeDecoder>
DecodedReply decode_stream(const std::vector<std::string_view>& chunks, MakeDecoder make, Framing framing = Framing::sse) {
  using namespace agentkit;
  auto [sink, stream] = make_event_stream();
  providers::detail::MessageAssembler out(sink, AssistantMessage{});
  out.start();
  std::unique_ptr<providers::detail::ReplyDecoder> reply = make(out);
  std::unique_ptr<providers::BodyDecoder> framed;
  if (framing == Framing::sse) {
    framed = std::make_unique<providers::SseBodyDecoder>([&](const wire::SseEvent& e) { return reply->event(e); },
                                                         [&] { return reply->stream_end(); });
  } else {
    framed = std::make_unique<providers::NdjsonBodyDecoder>([&](std::string_view l) { return reply->line(l); },
                                                            [&] { return reply->stream_end(); });
  }
  providers::BodyDecoder& body = *framed;
  std::optional<providers::CallFailure> failure;
  for (std::string_view chunk : chunks) {
    if (auto ok = body.feed(chunk); !ok) {
      failure = providers::CallFailure{StopReason::error, ok.error().message, std::nullopt, ok.error().code};
      break;
    }
  }
  if (!failure) {
    if (auto ok = body.finish(); !ok) failure = providers::CallFailure{StopReason::error, ok.error().message, std::nullopt, ok.error().code};
  }
  out.finish(failure);
  DecodedReply d;
  while (auto ev = stream.try_next()) d.events.push_back(std::move(*ev));
  d.message = stream.result().value();
  return d;
}

inline void require_balanced(const DecodedReply& d) {
  using namespace agentkit;
  std::vector<int> open;
  for (const auto& ev : d.events) {
    if (const auto* s = std::get_if<BlockStartEvent>(&ev)) open.push_back(s->block_index);
    if (const auto* e = std::get_if<BlockEndEvent>(&ev)) {
      require(!open.empty() && std::erase(open, e->block_index) == 1);
      require(static_cast<std::size_t>(e->block_index) < d.message.content.size());
      require(e->block == d.message.content[static_cast<std::size_t>(e->block_index)]);
    }
  }
  require(open.empty());
  require(std::holds_alternative<MessageEndEvent>(d.events.back()));
}

template <class MakeDecoder>
void require_consistent_decoding(std::string_view body, std::uint32_t seed, MakeDecoder make, Framing framing = Framing::sse) {
  const DecodedReply whole = decode_stream(std::vector<std::string_view>{body}, make, framing);
  require_balanced(whole);
  for (const auto& chunks : {byte_chunks(body), pseudo_random_chunks(body, seed)}) {
    const DecodedReply cut = decode_stream(chunks, make, framing);
    require(cut.message == whole.message);
    require(cut.events.size() == whole.events.size());
  }
  // The same bytes as a whole (application/json) reply: any outcome but a crash.
  auto [sink, stream] = agentkit::make_event_stream();
  agentkit::providers::detail::MessageAssembler out(sink, agentkit::AssistantMessage{});
  auto reply = make(out);
  (void)reply->whole(body);
  out.finish(std::nullopt);
}

}  // namespace wire_test
