// The ollama-chat client: WireClientBase plus Ollama's encoder and decoder.
#include <memory>

#include "../wire_common/wire_client_base.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/ollama.hpp"
#include "ollama_reply.hpp"
#include "ollama_request.hpp"
#include "ollama_wire.hpp"

namespace agentkit::providers {
namespace detail::ollama {
namespace {

class OllamaClient final : public WireClientBase {
 public:
  OllamaClient(const WireOptions& options, const OllamaOptions& ollama,
               std::shared_ptr<const RequestPipeline> pipeline)
      : WireClientBase(catalog::kOllamaChat, options, std::move(pipeline)), ollama_(ollama) {}

 protected:
  Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                              HistoryPromise promise) const override {
    const auto tools = declared_tools(request);
    Result<ToolBytes> answer = native_answer(request, SchemaDialect::ollama);
    if (!answer) return answer.error();
    OllamaRequest encoded =
        encode_request(request, view, tools, ollama_, *answer, &history_, meter().get(), promise);
    PreparedCall call;
    call.wire.path = std::string(kChatPath);
    call.wire.headers = {{"content-type", "application/json"}};
    call.wire.body = std::move(encoded.body);
    call.unsupported = std::move(encoded.unsupported);
    return call;
  }

  // Every offered tool, each rendered once per session (level 3). A tool first offered mid-session
  // goes after the established ones (REQ-CACHE-10): the declarations sent before stay a byte-
  // identical prefix. It is declared, not withheld: on this wire a withheld tool cannot be called.
  std::vector<ToolBytes> declared_tools(const Request& request) const {
    OfferedTools offered = offered_tools(request, [](const ToolSpec& t) { return render_tool(t); });
    offered.established.insert(offered.established.end(), offered.late.begin(), offered.late.end());
    return std::move(offered.established);
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const override {
    return std::make_unique<OllamaReplyDecoder>(out, call.wire.body);
  }

 private:
  OllamaOptions ollama_;
};

}  // namespace
}  // namespace detail::ollama

std::shared_ptr<WireClient> detail::make_ollama_wire(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline) {
  return std::make_shared<ollama::OllamaClient>(options, OllamaOptions{}, std::move(pipeline));
}

std::shared_ptr<WireClient> make_ollama_client(const WireOptions& options, const OllamaOptions& ollama,
                                               std::shared_ptr<const RequestPipeline> pipeline) {
  return std::make_shared<detail::ollama::OllamaClient>(options, ollama, std::move(pipeline));
}

}  // namespace agentkit::providers
