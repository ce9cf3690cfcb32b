// agentkit/providers/ollama.hpp — the ollama-chat wire (Ollama's native POST /api/chat).
//
//   using namespace agentkit;
//   providers::WireOptions wires;                          // wires.hpp; plain http:// is enough
//   providers::OllamaOptions ollama;
//   ollama.context_tokens = 32768;                         // Ollama's own default window is small
//   ProviderRegistry registry;
//   registry.add("ollama-chat", providers::make_ollama_client(wires, ollama));
//   Model m = catalog::Catalog::builtin().resolve("ollama/qwen3").value();   // 127.0.0.1:11434
//
// The reply is NDJSON (application/x-ndjson), one JSON object per line, the last with done:true; a
// whole application/json reply (stream:false, or a gateway that buffers) decodes into the same
// canonical message. Wire facts kept here: Ollama carries no tool-call ids, so ids are synthesised
// per response from the request bytes (the streamed and whole paths agree, a replayed transcript
// still pairs) and results go back as N role:"tool" messages paired by position; arguments arrive
// as a JSON object and their source bytes are kept; a failure can arrive as {"error": "..."} inside
// an HTTP 200 body and is an error, not text; a body that ends without its done:true line was cut
// short and is an error. Ollama has no provider prompt cache (only the L2 dedup layer applies), no
// forced tool choice (a Mode::required or Mode::tool choice is reported unsupported, never silently
// dropped) and reports no cached-token count.
//
// Thread safety: the client accepts concurrent calls; destroying it joins every thread it started.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers {

// Ollama-only settings. Safe to copy. Unset fields are not sent (the server's defaults apply).
struct OllamaOptions {
  // options.num_ctx: the context window the server allocates. Unset, the server uses its own
  // default (a few thousand tokens) and silently drops the start of a longer prompt; the model
  // row's context_window is sent instead when the row knows it.
  std::optional<std::int64_t> context_tokens;
  // keep_alive: how long the server keeps the model loaded after the call ("5m", "-1" = forever).
  std::optional<std::string> keep_alive;
};

// An ollama-chat client. `pipeline` may be shared with other wires; nullptr builds one from
// options.transport.
std::shared_ptr<WireClient> make_ollama_client(const WireOptions& options = {}, const OllamaOptions& ollama = {},
                                               std::shared_ptr<const RequestPipeline> pipeline = nullptr);

}  // namespace agentkit::providers
