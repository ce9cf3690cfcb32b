// Lowering an answer schema into a wire's structured-output dialect (answer.hpp).
//
// Decisions the header leaves here (docs/providers.md "Typed answers" has the per-vendor facts):
// - A keyword a dialect does not accept is dropped and recorded in `removed`; the loop still
//   validates with the full schema, so dropping only ever makes the wire looser than the contract,
//   and the local check catches what the model sends past it.
// - Anthropic's dropped keywords become text in the node's description ("{minimum: 1}"), the way
//   the vendor's SDK transform does, so the model still reads the bound it is no longer held to.
// - An open object cannot be sent to a strict mode (it would be closed, and the model could then
//   never produce the members the user allowed): that is an error, reported at run start.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

using namespace std::string_view_literals;

#include "agentkit/core/answer.hpp"
#include "fnv.hpp"

namespace agentkit {
namespace {

using detail::fnv_mix, detail::kFnvOffset;

constexpr std::array kOpenAiKeep = {
    "type"sv,
    "properties"sv,
    "required"sv,
    "additionalProperties"sv,
    "items"sv,
    "enum"sv,
    "const"sv,
    "anyOf"sv,
    "allOf"sv,
    "$ref"sv,
    "$defs"sv,
    "definitions"sv,
    "description"sv,
    "title"sv,
    "pattern"sv,
    "format"sv,
    "minimum"sv,
    "maximum"sv,
    "exclusiveMinimum"sv,
    "exclusiveMaximum"sv,
    "multipleOf"sv,
    "minItems"sv,
    "maxItems"sv,
};

constexpr std::array kGeminiKeep = {
    "$id"sv,
    "$defs"sv,
    "$ref"sv,
    "$anchor"sv,
    "type"sv,
    "format"sv,
    "title"sv,
    "description"sv,
    "enum"sv,
    "items"sv,
    "prefixItems"sv,
    "minItems"sv,
    "maxItems"sv,
    "minimum"sv,
    "maximum"sv,
    "anyOf"sv,
    "allOf"sv,
    "properties"sv,
    "additionalProperties"sv,
    "required"sv,
    "propertyOrdering"sv,
};

// The string formats Anthropic's structured outputs accept.
constexpr std::array kAnthropicFormats = {
    "date-time"sv, "time"sv, "date"sv, "duration"sv, "email"sv,
    "hostname"sv,  "uri"sv,  "ipv4"sv, "ipv6"sv,     "uuid"sv,
};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

bool is_path_identifier(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
  });
}

bool is_type(const json::Value& node, std::string_view type) {
  const json::Value* t = node.find("type");
  return t != nullptr && t->is_string() && t->as_string() == type;
}

bool has_object_shape(const json::Value& node) {
  return is_type(node, "object") ||
         (node.find("type") == nullptr && node.find("properties") != nullptr);
}

// The JSON path of the node being lowered, kept in one buffer that grows and shrinks as the walk
// descends: a path is spelt out only for an error or a dropped keyword, so the common node costs
// no allocation for it.
class PathBuffer {
 public:
  PathBuffer() : text_("$") {}
  const std::string& str() const noexcept { return text_; }
  std::size_t size() const noexcept { return text_.size(); }
  void truncate(std::size_t n) { text_.resize(n); }
  void key(std::string_view k) {
    if (is_path_identifier(k)) {
      text_ += '.';
      text_ += k;
    } else {
      text_ += '[';
      json::append_quoted(text_, k);
      text_ += ']';
    }
  }
  void index(std::string_view keyword, std::size_t i) {
    text_ += '.';
    text_ += keyword;
    text_ += '[';
    text_ += std::to_string(i);
    text_ += ']';
  }

 private:
  std::string text_;
};

// Restores the path's length when a step of the walk returns.
class PathMark {
 public:
  explicit PathMark(PathBuffer& path) : path_(path), size_(path.size()) {}
  PathMark(const PathMark&) = delete;
  PathMark& operator=(const PathMark&) = delete;
  ~PathMark() { path_.truncate(size_); }

 private:
  PathBuffer& path_;
  std::size_t size_;
};

class Lowerer {
 public:
  explicit Lowerer(SchemaDialect dialect) : dialect_(dialect) {}

  Result<LoweredSchema> run(const json::Value& schema) {
    if (dialect_ == SchemaDialect::openai_strict || dialect_ == SchemaDialect::anthropic ||
        dialect_ == SchemaDialect::tool_input) {
      if (!has_object_shape(schema) || schema.find("anyOf") != nullptr ||
          schema.find("oneOf") != nullptr) {
        return fail("$",
                    "the root must be an object schema (type \"object\"), not a union or a scalar");
      }
    }
    if (dialect_ == SchemaDialect::ollama || dialect_ == SchemaDialect::tool_input) {
      return LoweredSchema{schema, {}};
    }
    json::Value out = node(schema);
    if (error_) return std::move(*error_);
    return LoweredSchema{std::move(out), std::move(removed_)};
  }

 private:
  Error fail(const std::string& path, std::string what) {
    return make_error(Errc::invalid_argument, "the answer schema cannot be expressed in the " +
                                                  std::string(to_string(dialect_)) +
                                                  " dialect at " + path + ": " + std::move(what))
        .with_detail("path", path);
  }
  void set_error(std::string what) {
    if (!error_) error_ = fail(path_.str(), std::move(what));
  }
  // An error at a step below the current node ("items").
  void set_error_at(std::string_view step, std::string what) {
    PathMark mark(path_);
    path_.key(step);
    set_error(std::move(what));
  }
  void drop(std::string_view keyword) {
    std::string entry = path_.str();
    entry += ": ";
    entry += keyword;
    removed_.push_back(std::move(entry));
  }

  bool keeps(std::string_view key) const {
    switch (dialect_) {
      case SchemaDialect::openai_strict: return listed(kOpenAiKeep, key) || key == "oneOf";
      case SchemaDialect::gemini: return listed(kGeminiKeep, key) || key == "oneOf";
      default: return true;
    }
  }

  // The schemas of a name -> schema map ("properties", "$defs") at `keyword` below this node.
  json::Value schemas_in(const json::Value& map, std::string_view keyword) {
    const json::Object* members = map.get_object();
    if (members == nullptr) return map;
    PathMark at_keyword(path_);
    path_.key(keyword);
    json::Object out;
    out.reserve(members->size());
    for (const auto& m : *members) {
      PathMark at_member(path_);
      path_.key(m.key);
      out.append_unique(m.key, node(m.value));
    }
    return out;
  }

  json::Value list_of(const json::Value& list, std::string_view keyword) {
    const json::Array* items = list.get_array();
    if (items == nullptr) return list;
    json::Array out;
    out.reserve(items->size());
    for (std::size_t i = 0; i < items->size(); ++i) {
      PathMark mark(path_);
      path_.index(keyword, i);
      out.push_back(node((*items)[i]));
    }
    return out;
  }

  // The schema at `step` below this node ("items", "additionalProperties").
  json::Value child(const json::Value& in, std::string_view step) {
    PathMark mark(path_);
    path_.key(step);
    return node(in);
  }

  json::Value node(const json::Value& in) {
    if (!in.is_object()) {
      if (dialect_ == SchemaDialect::openai_strict || dialect_ == SchemaDialect::anthropic) {
        set_error("a boolean schema has no equivalent");
      }
      return in;
    }
    if (dialect_ == SchemaDialect::anthropic) return anthropic_node(in.as_object());
    return generic_node(in);
  }

  // openai_strict and gemini: a keyword filter plus the rewrites each needs.
  json::Value generic_node(const json::Value& in) {
    const bool strict = dialect_ == SchemaDialect::openai_strict;
    json::Object out;
    out.reserve(in.as_object().size() + (strict ? 2 : 0));
    for (const auto& m : in.as_object()) {
      if (!keeps(m.key)) {
        drop(m.key);
        continue;
      }
      if (m.key == "properties" || m.key == "$defs" || m.key == "definitions") {
        out.append_unique(m.key, schemas_in(m.value, m.key));
      } else if (m.key == "items") {
        if (m.value.is_array() && strict)
          set_error_at("items", "tuple-form items (one schema per position)");
        out.append_unique(m.key,
                          m.value.is_array() ? list_of(m.value, "items") : child(m.value, "items"));
      } else if (m.key == "anyOf" || m.key == "oneOf" || m.key == "allOf" ||
                 m.key == "prefixItems") {
        // Strict modes reject oneOf; anyOf accepts a superset and exclusivity is checked locally.
        // Gemini reads oneOf itself (as its SDK sends it), so it keeps the keyword.
        std::string key = m.key == "oneOf" && strict ? "anyOf" : m.key;
        json::Value alternatives = list_of(m.value, m.key);
        if (json::Value* existing = out.find(key);
            existing && existing->is_array() && alternatives.is_array()) {
          for (auto& a : alternatives.as_array()) existing->as_array().push_back(std::move(a));
        } else {
          out.append_unique(std::move(key), std::move(alternatives));
        }
      } else if (m.key == "additionalProperties") {
        if (m.value.is_object()) {
          if (strict) set_error("an open object (additionalProperties is a schema)");
          out.append_unique(m.key, child(m.value, "additionalProperties"));
        } else {
          if (strict && m.value.get_bool() == true)
            set_error("an open object (additionalProperties: true)");
          out.append_unique(m.key, m.value);
        }
      } else {
        out.append_unique(m.key, m.value);
      }
    }
    if (strict) close_strict(out);
    return out;
  }

  // OpenAI strict: every object closed, every property required, the optional ones nullable.
  void close_strict(json::Object& out) {
    const json::Value* type = out.find("type");
    const bool array_type =
        type && ((type->is_string() && type->as_string() == "array") ||
                 (type->is_array() && std::find(type->as_array().begin(), type->as_array().end(),
                                                json::Value("array")) != type->as_array().end()));
    if (array_type && out.find("items") == nullptr) set_error("an array without an items schema");
    const bool object_type =
        (type && type->is_string() && type->as_string() == "object") || out.contains("properties");
    if (!object_type) return;
    if (!out.contains("additionalProperties")) out.append_unique("additionalProperties", false);
    json::Value* properties = out.find("properties");
    if (properties == nullptr) {
      out.set("properties", json::Object{});
      properties = out.find("properties");
    }
    // The names already required, sorted for lookup: a linear search per property would make a
    // wide schema quadratic.
    std::vector<std::string_view> required;
    if (const json::Value* r = out.find("required"); r && r->is_array()) {
      required.reserve(r->as_array().size());
      for (const auto& name : r->as_array()) {
        if (name.is_string()) required.push_back(name.as_string());
      }
    }
    std::sort(required.begin(), required.end());
    json::Array all;
    all.reserve(properties->as_object().size());
    for (auto& m : properties->as_object()) {
      if (!std::binary_search(required.begin(), required.end(), std::string_view(m.key)))
        make_nullable(m.value);
      all.push_back(m.key);
    }
    out.set("required", std::move(all));
  }

  static void make_nullable(json::Value& schema) {
    json::Object* node = schema.get_object();
    if (node == nullptr) return;
    const json::Value null_type = json::Object{{"type", "null"}};
    if (json::Value* any = node->find("anyOf"); any && any->is_array()) {
      if (std::find(any->as_array().begin(), any->as_array().end(), null_type) ==
          any->as_array().end()) {
        any->as_array().push_back(null_type);
      }
      return;
    }
    json::Value* type = node->find("type");
    if (type == nullptr && node->find("enum") == nullptr) {
      schema = json::Object{{"anyOf", json::Array{std::move(schema), null_type}}};
      return;
    }
    if (type && type->is_string() && type->as_string() != "null") {
      *type = json::Array{type->as_string(), "null"};
    } else if (type && type->is_array() &&
               std::find(type->as_array().begin(), type->as_array().end(), json::Value("null")) ==
                   type->as_array().end()) {
      type->as_array().push_back("null");
    }
    if (json::Value* values = node->find("enum");
        values && values->is_array() &&
        std::find(values->as_array().begin(), values->as_array().end(), json::Value(nullptr)) ==
            values->as_array().end()) {
      values->as_array().push_back(nullptr);
    }
  }

  // Anthropic: the vendor SDK's transform, keyword for keyword; leftovers become description text.
  // `rest` holds the members not yet placed, by pointer into the input: the input is never copied.
  json::Value anthropic_node(const json::Object& in) {
    std::vector<const json::Member*> rest;
    rest.reserve(in.size());
    for (const auto& m : in) rest.push_back(&m);
    json::Object out;
    auto pop = [&rest](std::string_view key) -> const json::Value* {
      auto it = std::find_if(rest.begin(), rest.end(),
                             [key](const json::Member* m) { return m->key == key; });
      if (it == rest.end()) return nullptr;
      const json::Value* taken = &(*it)->value;
      rest.erase(it);
      return taken;
    };
    auto peek = [&rest](std::string_view key) -> const json::Value* {
      auto it = std::find_if(rest.begin(), rest.end(),
                             [key](const json::Member* m) { return m->key == key; });
      return it == rest.end() ? nullptr : &(*it)->value;
    };
    if (const json::Value* defs = pop("$defs"))
      out.append_unique("$defs", schemas_in(*defs, "$defs"));
    if (const json::Value* ref = pop("$ref")) {
      for (const json::Member* m : rest) drop(m->key);
      out.append_unique("$ref", *ref);
      return out;
    }
    bool literals = false;
    if (const json::Value* e = peek("enum");
        e && e->is_array() && !e->as_array().empty() &&
        std::all_of(e->as_array().begin(), e->as_array().end(),
                    [](const json::Value& v) { return !v.is_array() && !v.is_object(); })) {
      out.append_unique("enum", *pop("enum"));
      literals = true;
    }
    if (const json::Value* c = peek("const"); c && !c->is_array() && !c->is_object()) {
      out.append_unique("const", *pop("const"));
      literals = true;
    }
    const json::Value* declared = pop("type");
    const json::Value* any = pop("anyOf");
    const json::Value* one = pop("oneOf");
    const json::Value* all = pop("allOf");
    pop("$schema");
    if (any && any->is_array()) {
      out.append_unique("anyOf", list_of(*any, "anyOf"));
    } else if (one && one->is_array()) {
      out.append_unique("anyOf", list_of(*one, "oneOf"));
    } else if (all && all->is_array()) {
      out.append_unique("allOf", list_of(*all, "allOf"));
    } else if (!literals) {
      if (!declared) {
        set_error("a node without a type, enum, const, anyOf, oneOf or allOf");
        return out;
      }
      out.append_unique("type", *declared);
    }
    if (const json::Value* d = pop("description")) out.append_unique("description", *d);
    if (const json::Value* t = pop("title")) out.append_unique("title", *t);
    const std::string_view type = !literals && declared && declared->is_string()
                                      ? std::string_view(declared->as_string())
                                      : std::string_view();
    if (type == "object") {
      const json::Value* properties = pop("properties");
      out.append_unique("properties",
                        properties ? schemas_in(*properties, "properties") : json::Object{});
      if (const json::Value* extra = pop("additionalProperties");
          extra && !(extra->is_bool() && !extra->as_bool())) {
        set_error("an open object (additionalProperties is not false)");
      }
      out.append_unique("additionalProperties", false);
      if (const json::Value* required = pop("required")) out.append_unique("required", *required);
    } else if (type == "string") {
      if (const json::Value* f = peek("format");
          f && f->is_string() && listed(kAnthropicFormats, f->as_string())) {
        out.append_unique("format", *pop("format"));
      }
    } else if (type == "array") {
      if (const json::Value* items = pop("items")) {
        if (items->is_array()) set_error_at("items", "tuple-form items (one schema per position)");
        out.append_unique("items", child(*items, "items"));
      }
      if (const json::Value* n = peek("minItems");
          n && n->is_number() && (n->number_text() == "0" || n->number_text() == "1")) {
        out.append_unique("minItems", *pop("minItems"));
      }
    }
    if (!rest.empty()) {
      std::string note = "{";
      bool first = true;
      for (const json::Member* m : rest) {
        drop(m->key);
        if (!first) note += ", ";
        first = false;
        note += m->key + ": " + json::dump(m->value);
      }
      note += "}";
      json::Value* d = out.find("description");
      if (d && d->is_string() && !d->as_string().empty()) {
        d->as_string() += "\n\n" + note;
      } else {
        out.set("description", std::move(note));
      }
    }
    return out;
  }

  SchemaDialect dialect_;
  PathBuffer path_;
  std::vector<std::string> removed_;
  std::optional<Error> error_;
};

}  // namespace

std::uint64_t answer_fingerprint(const AnswerFormat& format) {
  std::uint64_t h = kFnvOffset;
  fnv_mix(h, format.name);
  fnv_mix(h, format.description);
  fnv_mix(h, json::dump(format.schema));
  return h;
}

std::string_view to_string(SchemaDialect dialect) noexcept {
  switch (dialect) {
    case SchemaDialect::openai_strict: return "openai_strict";
    case SchemaDialect::anthropic: return "anthropic";
    case SchemaDialect::gemini: return "gemini";
    case SchemaDialect::ollama: return "ollama";
    case SchemaDialect::tool_input: return "tool_input";
  }
  return "unknown";
}

Result<LoweredSchema> lower_schema(const json::Value& schema, SchemaDialect dialect) {
  return Lowerer(dialect).run(schema);
}

}  // namespace agentkit
