// Typed answers on each wire (issue 17): the native structured-output member each encoder sends
// for Request::answer, lowered for its dialect, checked on the bytes a loopback server received.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/answer.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/ollama.hpp"
#include "agentkit/providers/openai.hpp"
#include "conformance/conversation.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::conformance;

namespace {

const char* kSchema = R"({"type":"object","properties":{"verdict":{"oneOf":[{"type":")"
                      R"(string","enum":["approve","reject"]},{"type":"null"}]},)"
                      R"("score":{"type":"integer","minimum":1}},"required":["verdict)"
                      R"("],"additionalProperties":false})";

std::shared_ptr<const AnswerFormat> format(std::string_view schema = kSchema) {
  auto f = std::make_shared<AnswerFormat>();
  f->name = "verdict";
  f->schema = json::parse(schema).value();
  f->fingerprint = answer_fingerprint(*f);
  return f;
}

std::string lowered(SchemaDialect d, std::string_view schema = kSchema) {
  return json::dump(lower_schema(json::parse(schema).value(), d).value().schema);
}

Model row(std::string_view vendor, std::string_view id) {
  return *catalog::Catalog::builtin().find(vendor, id);
}

const std::string kResponsesReply =
    R"({"id":"resp_1","object":"response","status":"completed","mod)"
    R"(el":"gpt-6.2-sol","output":[{"type":"message","id":"m1","rol)"
    R"(e":"assistant","content":[{"type":"output_text","text":"{}"})"
    R"(]}],"usage":{"input_tokens":1,"output_tokens":1}})";
const std::string kCompletionsReply =
    R"({"id":"c1","object":"chat.completion","model":"m","choices":)"
    R"([{"index":0,"message":{"role":"assistant","content":"{}"},"f)"
    R"(inish_reason":"stop"}],"usage":{"prompt_tokens":1,"completio)"
    R"(n_tokens":1,"total_tokens":2}})";
const std::string kAnthropicReply =
    R"({"id":"msg_1","type":"message","role":"assistant","model":"c)"
    R"(laude-sonnet-5-5","content":[{"type":"text","text":"{}"}],"s)"
    R"(top_reason":"end_turn","usage":{"input_tokens":1,"output_tok)"
    R"(ens":1}})";
const std::string kGeminiReply = R"({"candidates":[{"content":{"role":"model","parts":[{"text":")"
                                 R"({}"}]},"finishReason":"STOP"}],"usageMetadata":{"promptToken)"
                                 R"(Count":1,"candidatesTokenCount":1}})";
const std::string kOllamaReply = R"({"model":"llama3.3","message":{"role":"assistant","content":)"
                                 R"("{}"},"done":true,"done_reason":"stop","prompt_eval_count":1)"
                                 R"(,"eval_count":1})";

auto responses = [](const providers::WireOptions& o) {
  return providers::make_openai_responses_client(o);
};
auto completions = [](const providers::WireOptions& o) {
  return providers::make_openai_completions_client(o);
};
auto anthropic = [](const providers::WireOptions& o) {
  return providers::make_anthropic_messages_client(o);
};
auto google = [](const providers::WireOptions& o) { return providers::make_google_client(o); };
auto ollama = [](const providers::WireOptions& o) { return providers::make_ollama_client(o); };

}  // namespace

TEST_CASE("Responses sends the answer schema as text.format json_schema, strict and lowered") {
  Conversation c(responses, row("openai", "gpt-6.2-sol"), {Conversation::whole(kResponsesReply)});
  c.answer = format();
  c.user("review");
  json::Value body = c.send();
  REQUIRE(body.find("text"));
  CHECK(json::dump(*body.find("text")) ==
        R"({"format":{"type":"json_schema","name":"verdict","schema":)" +
            lowered(SchemaDialect::openai_strict) + R"(,"strict":true}})");
  CHECK(lowered(SchemaDialect::openai_strict).find(R"("oneOf")") == std::string::npos);
}

TEST_CASE(
    "Chat Completions sends response_format json_schema strict, or json_object where the profile "
    "says") {
  Model m = row("deepseek", "deepseek-v4-flash");
  {
    Conversation c(completions, m, {Conversation::whole(kCompletionsReply)});
    c.answer = format();
    c.user("review");
    json::Value body = c.send();
    REQUIRE(body.find("response_format"));
    CHECK(json::dump(*body.find("response_format")) ==
          R"({"type":"json_schema","json_schema":{"name":"verdict","schema":)" +
              lowered(SchemaDialect::openai_strict) + R"(,"strict":true}})");
  }
  m.compat["structured_output"] = "json_object";
  Conversation c(completions, m, {Conversation::whole(kCompletionsReply)});
  c.answer = format();
  c.user("review");
  json::Value body = c.send();
  CHECK(json::dump(*body.find("response_format")) == R"({"type":"json_object"})");
}

TEST_CASE(
    "Anthropic sends output_config.format beside the effort, only for a row with structured "
    "outputs") {
  Model m = row("anthropic", "claude-sonnet-5-5");
  {
    Conversation c(anthropic, m, {Conversation::whole(kAnthropicReply)});
    c.answer = format();
    c.thinking = ThinkingLevel::high;
    c.user("review");
    json::Value body = c.send();
    REQUIRE(body.find("output_config"));
    CHECK(json::dump(*body.find("output_config")) ==
          R"({"effort":"high","format":{"type":"json_schema","schema":)" +
              lowered(SchemaDialect::anthropic) + "}}");
    CHECK(lowered(SchemaDialect::anthropic).find("{minimum: 1}") != std::string::npos);
  }
  m.compat["structured_output"] = "tool";  // a model without them: the loop's final-answer tool
  Conversation c(anthropic, m, {Conversation::whole(kAnthropicReply)});
  c.answer = format();
  c.user("review");
  json::Value body = c.send();
  CHECK_FALSE(body.find("output_config"));
}

TEST_CASE("Gemini sends responseMimeType and responseJsonSchema in generationConfig") {
  Conversation c(google, row("google", "gemini-4-hydrogen"), {Conversation::whole(kGeminiReply)});
  c.answer = format();
  c.user("review");
  json::Value body = c.send();
  const json::Value* config = body.find("generationConfig");
  REQUIRE(config);
  CHECK(config->find("responseMimeType")->as_string() == "application/json");
  CHECK(json::dump(*config->find("responseJsonSchema")) == lowered(SchemaDialect::gemini));
}

TEST_CASE("Ollama sends the schema as format") {
  Conversation c(ollama, row("ollama", "llama3.3"), {Conversation::whole(kOllamaReply)});
  c.answer = format();
  c.user("review");
  json::Value body = c.send();
  REQUIRE(body.find("format"));
  CHECK(json::dump(*body.find("format")) == json::dump(json::parse(kSchema).value()));
}

TEST_CASE("a request without an answer format sends none of the structured-output members") {
  Conversation c(responses, row("openai", "gpt-6.2-sol"), {Conversation::whole(kResponsesReply)});
  c.user("review");
  CHECK_FALSE(c.send().find("text"));
  Conversation g(google, row("google", "gemini-4-hydrogen"), {Conversation::whole(kGeminiReply)});
  g.user("review");
  CHECK_FALSE(g.send().find("generationConfig")->find("responseJsonSchema"));
}

TEST_CASE("the lowered answer schema is serialised once per session, not per request (level 3)") {
  Conversation c(responses, row("openai", "gpt-6.2-sol"),
                 {Conversation::whole(kResponsesReply), Conversation::whole(kResponsesReply)});
  c.answer = format();
  c.user("review");
  c.send();
  CHECK(c.meter->stats("s-1").schemas_serialised == 1);
  c.user("again");
  json::Value second = c.send();
  CHECK(c.meter->stats("s-1").schemas_serialised == 1);
  CHECK(second.find("text"));
}

TEST_CASE("a direct caller's inexpressible answer schema fails the call before anything is sent") {
  Conversation c(responses, row("openai", "gpt-6.2-sol"), {Conversation::whole(kResponsesReply)});
  c.answer = format(R"({"type":"object","additionalProperties":true})");
  c.user("review");
  AssistantMessage reply = complete(*c.client, c.request());
  CHECK(reply.stop_reason == StopReason::error);
  CHECK(reply.error_message.find("openai_strict") != std::string::npos);
  CHECK(c.server.request_count() == 0);
}
