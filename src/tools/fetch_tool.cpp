// fetch_url as a ToolDefinition (REQ-TOOL-07): not in coding_tools(); an embedder adds it knowingly.
#include <cstring>
#include <utility>

#include "agentkit/tools/coding_tools.hpp"
#include "agentkit/tools/fetch.hpp"
#include "text.hpp"
#include "tool_support.hpp"

namespace agentkit::tools {
using detail::count;

namespace {

using detail::kBinarySniffBytes;

Schema headers_schema() {
  json::Object doc{{"type", "object"},
                   {"additionalProperties", json::Object{{"type", "string"}}},
                   {"description", "Request header fields, name to value (sent only to the first origin)"}};
  return Schema::from_json(json::Value(std::move(doc))).value();
}

Schema fetch_schema(const FetchOptions& options) {
  using namespace schema;
  const auto max_seconds = std::chrono::duration_cast<std::chrono::seconds>(options.max_timeout).count();
  return object({
      required("url", string().describe(options.allow_http ? "The http:// or https:// URL to fetch"
                                                           : "The https:// URL to fetch")),
      optional("method", enumeration({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
                             .describe("HTTP method (default GET)")),
      optional("headers", headers_schema()),
      optional("body", string().describe("Request body (for POST, PUT, PATCH)")),
      optional("timeout_s", integer().minimum(1).maximum(static_cast<double>(max_seconds))
                                .describe("Time limit for the whole fetch, redirects included")),
  });
}

FetchRequest request_of(const json::Value& args) {
  FetchRequest r;
  r.url = detail::string_arg(args, "url");
  r.method = detail::string_arg(args, "method", "GET");
  r.body = detail::string_arg(args, "body");
  if (const json::Value* h = args.find("headers"); h && h->is_object()) {
    for (const auto& [name, value] : h->as_object()) r.headers.add(name, std::string(value.get_string().value_or("")));
  }
  if (auto seconds = detail::int_arg(args, "timeout_s")) r.timeout = std::chrono::seconds(*seconds);
  return r;
}

std::string body_text(const FetchResult& page, std::string_view content_type) {
  std::string_view head = std::string_view(page.body).substr(0, kBinarySniffBytes);
  if (std::memchr(head.data(), '\0', head.size()) != nullptr) {
    return "[Binary body: " + format_size(page.body.size()) + (page.truncated ? " or more" : "") + " of " +
           (content_type.empty() ? std::string("unknown type") : std::string(content_type)) + ", not shown.]";
  }
  std::string text = detail::sanitized(page.body);
  if (page.truncated) {
    text += "\n[Body cut at " + format_size(page.body.size()) + "; the rest was not downloaded.]";
  }
  return text;
}

ToolResult page_result(const FetchResult& page) {
  const std::string content_type(page.headers.get("content-type").value_or(""));
  std::string text = "HTTP " + std::to_string(page.status) + (page.reason.empty() ? "" : " " + page.reason) + "\n";
  if (page.redirects > 0) text += "URL: " + page.final_url + "\n";
  if (!content_type.empty()) text += "Content-Type: " + content_type + "\n";
  text += "\n" + body_text(page, content_type);
  ToolResult r = ToolResult::text_result(std::move(text));
  r.data = json::Object{{"status", page.status}, {"url", page.final_url}, {"body", detail::sanitized(page.body)}};
  r.metadata.set("status", page.status);
  r.metadata.set("final_url", page.final_url);
  r.metadata.set("redirects", page.redirects);
  r.metadata.set("bytes", count(page.body.size()));
  r.metadata.set("truncated", page.truncated);
  r.metadata.set("content_type", content_type);
  r.metadata.set("duration_ms", static_cast<long long>(page.duration.count()));
  return r;
}

}  // namespace

ToolDefinition fetch_url_tool(FetchOptions options) {
  Schema input = fetch_schema(options);
  auto handler = [options](const json::Value& args, const ToolContext& ctx) -> ToolResult {
    auto page = fetch_url(request_of(args), options, ctx.stop);
    if (!page) return ToolResult::failure(page.error());
    return page_result(*page);
  };
  return ToolDefinition{
      .name = "fetch_url",
      .description = std::string(options.allow_http ? "Fetch an http:// or https:// URL" : "Fetch an https:// URL") +
                     " from the public internet and return its status, content type and body as text (at most " +
                     format_size(options.max_body_bytes) + ", cut beyond). Redirects are followed (at most " +
                     std::to_string(options.max_redirects) +
                     "). Private, loopback and link-local addresses are refused.",
      .input_schema = input,
      .handler = detail::validated(input, std::move(handler)),
      .execution_mode = ExecutionMode::parallel,
      .timeout = ToolTimeout::inherit(),
      .prompt_guidelines = "Use fetch_url for documentation and public APIs; it cannot reach local or internal services.",
      .origin = std::string(kBuiltinOrigin),
  };
}

}  // namespace agentkit::tools
