// Images at the history boundary, through the public API: whichever path adds an image (a tool,
// after_tool_call, user input), history holds it normalised; each request re-checks its images.
#include <string>
#include <vector>

#include "agentkit/base/base64.hpp"
#include "agentkit/images/encode.hpp"
#include "agentkit/images/image.hpp"
#include "harness.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

// A noisy RGB image as PNG base64 (noise keeps it from compressing to nothing).
std::string png_base64(std::uint32_t w, std::uint32_t h) {
  images::Raster r;
  r.width = w;
  r.height = h;
  r.rgba.resize(std::size_t{w} * h * 4);
  std::uint32_t seed = 1;
  for (std::size_t i = 0; i < r.rgba.size(); ++i) {
    seed = seed * 1103515245u + 12345u;
    r.rgba[i] = i % 4 == 3 ? 255 : static_cast<std::uint8_t>((i / 4 % w) + (seed >> 28));
  }
  const std::vector<std::uint8_t> png = images::encode_png(r);
  return base64::encode({reinterpret_cast<const char*>(png.data()), png.size()});
}

images::ImageInfo info_of(const ImageBlock& b) {
  const std::string bytes = base64::decode(b.data_base64).value();
  return images::probe({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}).value();
}

const ToolResultMessage& only_tool_result(const RunResult& r) {
  for (const Message& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) return *t;
  }
  FAIL("no tool result");
  static const ToolResultMessage none;
  return none;
}

ToolDefinition image_tool(std::string base64_text, std::string mime = "image/png") {
  return tool_with("shot",
                   [text = std::move(base64_text), mime](const json::Value&, const ToolContext&) {
                     ToolResult r = ToolResult::text_result("here it is");
                     r.images.push_back(ImageBlock{mime, text});
                     return r;
                   });
}

std::vector<faux::FauxResponse> one_call() {
  return {faux::tool_call_response({faux::tool_call("c1", "shot", "{}")}),
          faux::text_response("done")};
}

}  // namespace

TEST_CASE("images: a tool's oversized image enters history downscaled, with a note of both sizes") {
  // Wide and short: past the 2000-pixel side at a tenth of a square's pixels (the suites run
  // this under TSan too, where every pixel costs).
  FauxAgent fa = faux_agent(one_call(), {image_tool(png_base64(3000, 150))});
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  const ToolResultMessage& result = only_tool_result(*r);
  const ImageBlock* image = nullptr;
  std::string note;
  for (const ContentBlock& b : result.content) {
    if (const auto* i = std::get_if<ImageBlock>(&b)) image = i;
    if (const auto* t = std::get_if<TextBlock>(&b); t && image != nullptr) note = t->text;
  }
  REQUIRE(image != nullptr);
  CHECK(info_of(*image).width == 2000);
  CHECK(info_of(*image).height == 100);
  CHECK(note.find("3000x150") != std::string::npos);
  CHECK(note.find("2000x100") != std::string::npos);
}

TEST_CASE("images: a conforming tool image reaches history and the request byte for byte") {
  const std::string text = png_base64(64, 48);
  FauxAgent fa = faux_agent(one_call(), {image_tool(text)});
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  const ToolResultMessage& result = only_tool_result(*r);
  CHECK(std::get<ImageBlock>(result.content.at(1)).data_base64 == text);
  CHECK(result.content.size() == 2);  // no note
}

TEST_CASE("images: normalisation runs after the post-tool hook, on the image it adds") {
  RuntimeConfig rt;
  rt.extensions.after_tool_call = [](ToolCallOutcome& o) -> std::optional<bool> {
    o.message.content.push_back(ImageBlock{"image/png", png_base64(2500, 100)});
    return std::nullopt;
  };
  FauxAgent fa = faux_agent(one_call(), {counting_tool("shot").definition}, std::move(rt));
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  const ToolResultMessage& result = only_tool_result(*r);
  const ImageBlock* image = nullptr;
  for (const ContentBlock& b : result.content) {
    if (const auto* i = std::get_if<ImageBlock>(&b)) image = i;
  }
  REQUIRE(image != nullptr);
  CHECK(info_of(*image).width == 2000);
}

TEST_CASE("images: a normalisation failure keeps the original block and adds the reason") {
  FauxAgent fa = faux_agent(one_call(), {image_tool("bm90IGFuIGltYWdl")});  // "not an image"
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  const ToolResultMessage& result = only_tool_result(*r);
  REQUIRE(result.content.size() == 3);
  CHECK(std::get<ImageBlock>(result.content[1]).data_base64 == "bm90IGFuIGltYWdl");
  CHECK(std::get<TextBlock>(result.content[2]).text.find("not usable") != std::string::npos);
  // The request carries the reason instead of bytes the provider would refuse.
  const auto requests = fa.faux->requests();
  REQUIRE(requests.size() == 2);
  const auto& sent = std::get<ToolResultMessage>(requests[1].messages.back());
  for (const ContentBlock& b : sent.content) CHECK_FALSE(std::holds_alternative<ImageBlock>(b));
}

TEST_CASE("images: user input images are normalised before they enter history") {
  FauxAgent fa = faux_agent({faux::text_response("seen")});
  Input in;
  in.content.push_back(TextBlock{"what is this?"});
  in.content.push_back(ImageBlock{"image/png", png_base64(2400, 240)});
  Result<RunResult> r = fa.agent.run(std::move(in));
  REQUIRE(r.has_value());
  const auto requests = fa.faux->requests();
  REQUIRE(requests.size() == 1);
  const auto& user = std::get<UserMessage>(requests[0].messages.front());
  CHECK(info_of(std::get<ImageBlock>(user.content.at(1))).width == 2000);
}

namespace {

// A tool returning `count` small distinct images in one result.
ToolDefinition many_images_tool(std::size_t count) {
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < count; ++i) texts.push_back(png_base64(8 + i % 50, 8));
  return tool_with("shots", [texts](const json::Value&, const ToolContext&) {
    ToolResult r = ToolResult::text_result("here they are");
    for (const std::string& t : texts) r.images.push_back(ImageBlock{"image/png", t});
    return r;
  });
}

std::size_t images_in(const Message& m) {
  std::size_t n = 0;
  if (const auto* t = std::get_if<ToolResultMessage>(&m)) {
    for (const ContentBlock& b : t->content) n += std::holds_alternative<ImageBlock>(b) ? 1 : 0;
  }
  return n;
}

// An agent on the faux provider serving a catalog model (`spec`, whose wire is `api`).
FauxAgent catalog_agent(const std::string& spec, const std::string& api, ToolDefinition tool,
                        RuntimeConfig rt = {}) {
  auto faux = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c1", tool.name, "{}")}),
      faux::text_response("done")});
  rt.model.spec = spec;
  rt.providers.add(api, faux);
  AgentDefinition def;
  def.instructions = "You are a test agent.";
  def.tools.direct.push_back(std::move(tool));
  auto agent = make_agent(std::move(def), std::move(rt));
  if (!agent) FAIL(agent.error().to_string());
  return FauxAgent{faux, std::move(*agent)};
}

}  // namespace

TEST_CASE("images: runtime.images overrides the budget for every image entering history") {
  RuntimeConfig rt;
  rt.images.max_side = 500;
  FauxAgent fa = faux_agent(one_call(), {image_tool(png_base64(800, 400))}, std::move(rt));
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  const ImageBlock& image = std::get<ImageBlock>(only_tool_result(*r).content.at(1));
  CHECK(info_of(image).width == 500);
  CHECK(info_of(image).height == 250);
}

TEST_CASE(
    "images: a request over the image count sends the latest images and a note for each older "
    "one") {
  RuntimeConfig rt;
  rt.images.max_images_per_request = 2;
  FauxAgent fa = faux_agent(
      {faux::tool_call_response({faux::tool_call("c1", "shots", "{}")}), faux::text_response("ok")},
      {many_images_tool(3)}, std::move(rt));
  Result<RunResult> r = fa.agent.run("look");
  REQUIRE(r.has_value());
  CHECK(images_in(only_tool_result(*r)) == 3);  // history keeps every image
  const auto requests = fa.faux->requests();
  REQUIRE(requests.size() == 2);
  const auto& sent = std::get<ToolResultMessage>(requests[1].messages.back());
  CHECK(images_in(sent) == 2);
  // The first image (the oldest) is the one replaced, by a note naming the limit.
  REQUIRE(std::holds_alternative<TextBlock>(sent.content.at(1)));
  CHECK(std::get<TextBlock>(sent.content.at(1)).text.find("at most 2 per request") !=
        std::string::npos);
  CHECK(std::holds_alternative<ImageBlock>(sent.content.at(3)));
  // Older images are rewritten as more arrive: a fitted request carries no promise.
  CHECK(requests[0].history_serial != 0);
  CHECK(requests[1].history_serial == 0);
}

TEST_CASE(
    "images: the model's vendor sets the image count: an Anthropic model gets 100, an OpenAI one "
    "101") {
  FauxAgent anthropic =
      catalog_agent("anthropic/claude-sonnet-5-5", "anthropic-messages", many_images_tool(101));
  REQUIRE(anthropic.agent.run("look").has_value());
  REQUIRE(anthropic.faux->requests().size() == 2);
  CHECK(images_in(anthropic.faux->requests()[1].messages.back()) == 100);

  FauxAgent openai = catalog_agent("openai/gpt-6.2-sol", "openai-responses", many_images_tool(101));
  REQUIRE(openai.agent.run("look").has_value());
  REQUIRE(openai.faux->requests().size() == 2);
  CHECK(images_in(openai.faux->requests()[1].messages.back()) == 101);
}

TEST_CASE("images: an explicit runtime.images figure wins over the vendor's") {
  RuntimeConfig rt;
  rt.images.max_images_per_request = 10;
  FauxAgent openai =
      catalog_agent("openai/gpt-6.2-sol", "openai-responses", many_images_tool(12), std::move(rt));
  REQUIRE(openai.agent.run("look").has_value());
  CHECK(images_in(openai.faux->requests().at(1).messages.back()) == 10);
}

TEST_CASE("images: make_agent names an unusable runtime.images figure") {
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{}));
  rt.images.max_side = 0;
  rt.images.max_images_per_request = 0;
  AgentDefinition def;
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE_FALSE(agent.has_value());
  CHECK(agent.error().message.find("runtime.images.max_side must be at least 16") !=
        std::string::npos);
  CHECK(agent.error().message.find("runtime.images.max_images_per_request") != std::string::npos);
}
