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
  FauxAgent fa = faux_agent(one_call(), {image_tool(png_base64(3000, 1500))});
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
  CHECK(info_of(*image).height == 1000);
  CHECK(note.find("3000x1500") != std::string::npos);
  CHECK(note.find("2000x1000") != std::string::npos);
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
  in.content.push_back(ImageBlock{"image/png", png_base64(2400, 2400)});
  Result<RunResult> r = fa.agent.run(std::move(in));
  REQUIRE(r.has_value());
  const auto requests = fa.faux->requests();
  REQUIRE(requests.size() == 1);
  const auto& user = std::get<UserMessage>(requests[0].messages.front());
  CHECK(info_of(std::get<ImageBlock>(user.content.at(1))).width == 2000);
}
