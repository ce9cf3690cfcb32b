// What a model sees of an MCP tool result (REQ-MCP-CLIENT-09): one budget spent across the whole
// result, counted in code points so CJK text gets the same room as ASCII (seed: "counts runes,
// not bytes"). Images are not charged against it: a screenshot is hundreds of KB of base64, so
// charging it would drop nearly every one; the agent's image normaliser fits each image to the
// model's budget where it enters history (src/agentkit/image_boundary.cpp), and images are never
// sliced.
#include <string>

#include "agentkit/base/utf8.hpp"
#include "agentkit/mcp/client.hpp"

namespace agentkit::mcp {
namespace {

class ResultBudget {
 public:
  explicit ResultBudget(std::size_t cap) : remaining_(cap), cap_(cap) {}

  void add_text(std::string_view piece) {
    if (piece.empty()) return;
    if (!text_.empty()) piece_separator();
    const std::size_t count = utf8::count_code_points(piece).value_or(piece.size());
    total_ += count;
    if (count <= remaining_) {
      text_ += piece;
      remaining_ -= count;
      return;
    }
    text_ += utf8::truncate_code_points(piece, remaining_);
    remaining_ = 0;
    cut_text_ = true;
  }

  void add_image(std::string mime, std::string data) {
    images_.push_back(ImageBlock{std::move(mime), std::move(data)});
  }

  ToolResult finish(bool is_error) {
    ToolResult r;
    std::string text = std::move(text_);
    if (cut_text_) {
      text += "\n\n[Result truncated: ";
      text += "the server returned " + std::to_string(total_) +
              " characters of text and only the first " + std::to_string(cap_) + " fit";
      text += ". Ask for less (a narrower query, a smaller range, fewer items) to see the rest.]";
      r.metadata.append_unique("truncated", true);
      r.metadata.append_unique("total_characters", json::Value(static_cast<unsigned long long>(total_)));
    }
    if (text.empty() && images_.empty()) text = "[the tool returned no content]";
    r.text = std::move(text);
    r.images = std::move(images_);
    if (is_error) {
      r.ok = false;
      r.error = "mcp_tool_error";
    }
    return r;
  }

  bool empty() const { return text_.empty() && images_.empty(); }

 private:
  void piece_separator() {
    // The newline between blocks is part of what the model reads, so it is charged too.
    if (remaining_ == 0) {
      cut_text_ = true;
      return;
    }
    text_ += '\n';
    --remaining_;
  }

  std::string text_;
  std::vector<ImageBlock> images_;
  std::size_t remaining_;
  std::size_t cap_;
  std::size_t total_ = 0;
  bool cut_text_ = false;
};

std::string member(const json::Value& v, std::string_view key) {
  const json::Value* m = v.find(key);
  return m && m->is_string() ? m->as_string() : std::string();
}

bool is_image_mime(std::string_view mime) { return mime.starts_with("image/"); }

void add_embedded_resource(ResultBudget& budget, const json::Value& resource) {
  const std::string uri = member(resource, "uri");
  const std::string mime = member(resource, "mimeType");
  if (const json::Value* text = resource.find("text"); text && text->is_string()) {
    budget.add_text("[resource " + uri + "]\n" + text->as_string());
    return;
  }
  std::string blob = member(resource, "blob");
  if (is_image_mime(mime)) {
    budget.add_image(mime, std::move(blob));
    return;
  }
  budget.add_text("[binary resource " + uri + (mime.empty() ? "" : " (" + mime + ")") + ", " +
                  std::to_string(blob.size()) + " bytes of base64, not shown]");
}

void add_block(ResultBudget& budget, const json::Value& block) {
  const std::string type = member(block, "type");
  if (type == "text") {
    budget.add_text(member(block, "text"));
  } else if (type == "image") {
    budget.add_image(member(block, "mimeType"), member(block, "data"));
  } else if (type == "audio") {
    budget.add_text("[audio (" + member(block, "mimeType") + ", " + std::to_string(member(block, "data").size()) +
                    " bytes of base64) is not passed to the model]");
  } else if (type == "resource_link") {
    std::string line = "[resource link: " + member(block, "name") + " <" + member(block, "uri") + ">";
    if (auto mime = member(block, "mimeType"); !mime.empty()) line += " (" + mime + ")";
    if (auto d = member(block, "description"); !d.empty()) line += ": " + d;
    budget.add_text(line + "]");
  } else if (type == "resource") {
    if (const json::Value* r = block.find("resource")) add_embedded_resource(budget, *r);
  }
}

}  // namespace

ToolResult to_tool_result(const CallResult& result, std::size_t cap) {
  ResultBudget budget(cap);
  for (const auto& block : result.content) add_block(budget, block);
  if (budget.empty() && result.structured_content) budget.add_text(json::dump(*result.structured_content));
  return budget.finish(result.is_error);
}

}  // namespace agentkit::mcp
