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

namespace agentkit {
namespace {

constexpr std::uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

void fnv_mix(std::uint64_t& h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  h ^= 0xFF;  // separator, so ("ab","c") and ("a","bc") differ
  h *= kFnvPrime;
}

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

bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
  });
}

std::string child_path(const std::string& path, std::string_view key) {
  if (is_plain_key(key)) return path + "." + std::string(key);
  std::string out = path + "[";
  json::append_quoted(out, key);
  return out + "]";
}

std::string index_path(const std::string& path, std::string_view keyword, std::size_t i) {
  return path + "." + std::string(keyword) + "[" + std::to_string(i) + "]";
}

bool is_type(const json::Value& node, std::string_view type) {
  const json::Value* t = node.find("type");
  return t != nullptr && t->is_string() && t->as_string() == type;
}

bool has_object_shape(const json::Value& node) {
  return is_type(node, "object") ||
         (node.find("type") == nullptr && node.find("properties") != nullptr);
}

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
    json::Value out = node(schema, "$");
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
  void set_error(const std::string& path, std::string what) {
    if (!error_) error_ = fail(path, std::move(what));
  }
  void drop(const std::string& path, std::string_view keyword) {
    removed_.push_back(path + ": " + std::string(keyword));
  }

  bool keeps(std::string_view key) const {
    switch (dialect_) {
      case SchemaDialect::openai_strict: return listed(kOpenAiKeep, key) || key == "oneOf";
      case SchemaDialect::gemini: return listed(kGeminiKeep, key) || key == "oneOf";
      default: return true;
    }
  }

  json::Value schemas_in(const json::Value& map, const std::string& path) {
    const json::Object* members = map.get_object();
    if (members == nullptr) return map;
    json::Object out;
    out.reserve(members->size());
    for (const auto& m : *members) out.append_unique(m.key, node(m.value, child_path(path, m.key)));
    return out;
  }

  json::Value list_of(const json::Value& list, const std::string& path, std::string_view keyword) {
    const json::Array* items = list.get_array();
    if (items == nullptr) return list;
    json::Array out;
    out.reserve(items->size());
    for (std::size_t i = 0; i < items->size(); ++i)
      out.push_back(node((*items)[i], index_path(path, keyword, i)));
    return out;
  }

  json::Value node(const json::Value& in, const std::string& path) {
    if (!in.is_object()) {
      if (dialect_ == SchemaDialect::openai_strict || dialect_ == SchemaDialect::anthropic) {
        set_error(path, "a boolean schema has no equivalent");
      }
      return in;
    }
    if (dialect_ == SchemaDialect::anthropic) return anthropic_node(in, path);
    return generic_node(in, path);
  }

  // openai_strict and gemini: a keyword filter plus the rewrites each needs.
  json::Value generic_node(const json::Value& in, const std::string& path) {
    const bool strict = dialect_ == SchemaDialect::openai_strict;
    json::Object out;
    for (const auto& m : in.as_object()) {
      if (!keeps(m.key)) {
        drop(path, m.key);
        continue;
      }
      if (m.key == "properties" || m.key == "$defs" || m.key == "definitions") {
        out.append_unique(m.key, schemas_in(m.value, child_path(path, m.key)));
      } else if (m.key == "items") {
        if (m.value.is_array() && strict)
          set_error(path + ".items", "tuple-form items (one schema per position)");
        out.append_unique(m.key, m.value.is_array() ? list_of(m.value, path, "items")
                                                    : node(m.value, path + ".items"));
      } else if (m.key == "anyOf" || m.key == "oneOf" || m.key == "allOf" ||
                 m.key == "prefixItems") {
        // Strict modes reject oneOf; anyOf accepts a superset and exclusivity is checked locally.
        // Gemini reads oneOf itself (as its SDK sends it), so it keeps the keyword.
        std::string key = m.key == "oneOf" && strict ? "anyOf" : m.key;
        json::Value alternatives = list_of(m.value, path, m.key);
        if (json::Value* existing = out.find(key);
            existing && existing->is_array() && alternatives.is_array()) {
          for (auto& a : alternatives.as_array()) existing->as_array().push_back(std::move(a));
        } else {
          out.append_unique(std::move(key), std::move(alternatives));
        }
      } else if (m.key == "additionalProperties") {
        if (m.value.is_object()) {
          if (strict) set_error(path, "an open object (additionalProperties is a schema)");
          out.append_unique(m.key, node(m.value, path + ".additionalProperties"));
        } else {
          if (strict && m.value.get_bool() == true)
            set_error(path, "an open object (additionalProperties: true)");
          out.append_unique(m.key, m.value);
        }
      } else {
        out.append_unique(m.key, m.value);
      }
    }
    if (strict) close_strict(out, path);
    return out;
  }

  // OpenAI strict: every object closed, every property required, the optional ones nullable.
  void close_strict(json::Object& out, const std::string& path) {
    const json::Value* type = out.find("type");
    const bool array_type =
        type && ((type->is_string() && type->as_string() == "array") ||
                 (type->is_array() && std::find(type->as_array().begin(), type->as_array().end(),
                                                json::Value("array")) != type->as_array().end()));
    if (array_type && out.find("items") == nullptr)
      set_error(path, "an array without an items schema");
    const bool object_type =
        (type && type->is_string() && type->as_string() == "object") || out.contains("properties");
    if (!object_type) return;
    if (!out.contains("additionalProperties")) out.append_unique("additionalProperties", false);
    json::Value* properties = out.find("properties");
    if (properties == nullptr) {
      out.set("properties", json::Object{});
      properties = out.find("properties");
    }
    std::vector<std::string> required;
    if (const json::Value* r = out.find("required"); r && r->is_array()) {
      for (const auto& name : r->as_array()) {
        if (name.is_string()) required.push_back(name.as_string());
      }
    }
    json::Array all;
    for (auto& m : properties->as_object()) {
      if (std::find(required.begin(), required.end(), m.key) == required.end())
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
  json::Value anthropic_node(const json::Value& in_value, const std::string& path) {
    json::Object rest = in_value.as_object();
    json::Object out;
    auto pop = [&rest](std::string_view key) -> std::optional<json::Value> {
      json::Value* v = rest.find(key);
      if (v == nullptr) return std::nullopt;
      json::Value taken = std::move(*v);
      rest.erase(key);
      return taken;
    };
    if (auto defs = pop("$defs")) out.append_unique("$defs", schemas_in(*defs, path + ".$defs"));
    if (auto ref = pop("$ref")) {
      for (const auto& m : rest) drop(path, m.key);
      out.append_unique("$ref", std::move(*ref));
      return out;
    }
    bool literals = false;
    if (const json::Value* e = rest.find("enum");
        e && e->is_array() && !e->as_array().empty() &&
        std::all_of(e->as_array().begin(), e->as_array().end(),
                    [](const json::Value& v) { return !v.is_array() && !v.is_object(); })) {
      out.append_unique("enum", *pop("enum"));
      literals = true;
    }
    if (const json::Value* c = rest.find("const"); c && !c->is_array() && !c->is_object()) {
      out.append_unique("const", *pop("const"));
      literals = true;
    }
    std::optional<json::Value> declared = pop("type");
    std::optional<json::Value> any = pop("anyOf");
    std::optional<json::Value> one = pop("oneOf");
    std::optional<json::Value> all = pop("allOf");
    pop("$schema");
    if (any && any->is_array()) {
      out.append_unique("anyOf", list_of(*any, path, "anyOf"));
    } else if (one && one->is_array()) {
      out.append_unique("anyOf", list_of(*one, path, "oneOf"));
    } else if (all && all->is_array()) {
      out.append_unique("allOf", list_of(*all, path, "allOf"));
    } else if (!literals) {
      if (!declared) {
        set_error(path, "a node without a type, enum, const, anyOf, oneOf or allOf");
        return out;
      }
      out.append_unique("type", *declared);
    }
    if (auto d = pop("description")) out.append_unique("description", std::move(*d));
    if (auto t = pop("title")) out.append_unique("title", std::move(*t));
    const std::string type =
        !literals && declared && declared->is_string() ? declared->as_string() : std::string();
    if (type == "object") {
      std::optional<json::Value> properties = pop("properties");
      out.append_unique("properties", properties ? schemas_in(*properties, path + ".properties")
                                                 : json::Object{});
      if (auto extra = pop("additionalProperties");
          extra && !(extra->is_bool() && !extra->as_bool())) {
        set_error(path, "an open object (additionalProperties is not false)");
      }
      out.append_unique("additionalProperties", false);
      if (auto required = pop("required")) out.append_unique("required", std::move(*required));
    } else if (type == "string") {
      if (const json::Value* f = rest.find("format");
          f && f->is_string() && listed(kAnthropicFormats, f->as_string())) {
        out.append_unique("format", *pop("format"));
      }
    } else if (type == "array") {
      if (auto items = pop("items")) {
        if (items->is_array())
          set_error(path + ".items", "tuple-form items (one schema per position)");
        out.append_unique("items", node(*items, path + ".items"));
      }
      if (const json::Value* n = rest.find("minItems");
          n && n->is_number() && (n->number_text() == "0" || n->number_text() == "1")) {
        out.append_unique("minItems", *pop("minItems"));
      }
    }
    if (!rest.empty()) {
      std::string note = "{";
      bool first = true;
      for (const auto& m : rest) {
        drop(path, m.key);
        if (!first) note += ", ";
        first = false;
        note += m.key + ": " + json::dump(m.value);
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
