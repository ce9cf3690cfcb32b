// Schema combinators, the validator and the argument pipeline of schema.hpp.
//
// Decisions the header leaves to the implementation (docs: core schema section):
// - "integer" is a number whose value is whole ("3", "3.0", "1e3", "-0") AND fits a signed 64-bit
//   integer, because every handler reads it with to_int64; "1e400" is therefore a number but not
//   an integer. "number" is any literal a double can hold; "1e400" overflows one and is rejected
//   with a message saying so. Numeric bounds compare the literal texts exactly (decimal
//   arithmetic on the digits), so 9007199254740993 > 9007199254740992 holds and nothing overflows.
// - enum/const compare by JSON value: 1 equals 1.0, objects compare without regard to member order.
// - Local references ("$ref": "#/$defs/X", JSON-pointer form) are followed; any other reference
//   (a URL, an anchor) is ignored like an unknown keyword. A pointer that does not resolve makes
//   Schema::from_json fail. Cycles and exponential reference fan-out are cut off by a hop limit
//   and an evaluation budget, never by the stack.
// - `pattern`, `format`, `patternProperties`, `not`, `if/then/else` and the other keywords not
//   listed in the header are ignored.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agentkit/core/schema.hpp"

namespace agentkit {

// The one definition of the friend that Schema grants construction from a document.
struct SchemaAccess {
  static Schema wrap(json::Value doc) { return Schema(std::move(doc)); }
  static json::Value& document(Schema& s) { return s.doc_; }
};

namespace {

// ---- Limits -----------------------------------------------------------------------------------

// Consecutive $ref resolutions without descending into the value; a longer chain is a cycle.
constexpr int kMaxRefHops = 32;
// Evaluation budget: this many subschema evaluations per value node, plus a floor for tiny values.
// Real tool schemas use a handful per node; only reference fan-out (anyOf of two refs to itself)
// gets near it, and that would otherwise take exponential time.
constexpr std::size_t kEvaluationsPerValueNode = 256;
constexpr std::size_t kEvaluationFloor = 65'536;
// Nested subschema evaluations (value depth plus schema nesting at one value); a bound on the
// validator's stack use. json::parse allows 512 levels of value, each at most two evaluations deep
// in a recursive schema ({"items":{"$ref":"#"}}), which stays well inside it.
constexpr int kMaxNesting = 2'000;
// How much of a string value a violation message quotes, in code points.
constexpr std::size_t kQuotedValueChars = 40;
// How many allowed member names an "unknown member" message lists.
constexpr std::size_t kListedNames = 16;
// How many violations validate()'s message spells out (the details carry every path).
constexpr std::size_t kViolationsInMessage = 20;

constexpr std::string_view kKnownTypes[] = {"null",   "boolean", "object", "array",
                                            "number", "string",  "integer"};

// ---- Exact decimal comparison ---------------------------------------------------------------

// A number literal as sign × digits × 10^exponent, digits without leading or trailing zeros
// (empty for zero). Comparing two of these is exact at any magnitude.
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;
};

// Exponents beyond this are clamped: no comparison needs more, and the arithmetic stays in range.
constexpr std::int64_t kExponentClamp = 1'000'000'000;

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

std::int64_t read_exponent(std::string_view text) {
  bool negative = false;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::int64_t value = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) value = std::min(value * 10 + (text[i] - '0'), kExponentClamp);
  return negative ? -value : value;
}

Decimal to_decimal(std::string_view literal) {
  Decimal d;
  std::size_t i = 0;
  if (i < literal.size() && literal[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::int64_t fraction_digits = 0;
  bool after_point = false;
  for (; i < literal.size() && literal[i] != 'e' && literal[i] != 'E'; ++i) {
    const char c = literal[i];
    if (c == '.') {
      after_point = true;
      continue;
    }
    if (!is_digit(c)) continue;
    if (after_point) ++fraction_digits;
    if (c == '0' && d.digits.empty()) continue;  // a leading zero carries no magnitude
    d.digits.push_back(c);
  }
  const std::int64_t written_exponent = i < literal.size() ? read_exponent(literal.substr(i + 1)) : 0;
  d.exponent = written_exponent - fraction_digits;
  while (!d.digits.empty() && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exponent;
  }
  return d;
}

int compare_magnitude(const Decimal& a, const Decimal& b) noexcept {
  if (a.digits.empty() || b.digits.empty()) return int(!a.digits.empty()) - int(!b.digits.empty());
  // The position of the leading digit decides first: 9e2 < 1e3 whatever the digits.
  const std::int64_t lead_a = static_cast<std::int64_t>(a.digits.size()) + a.exponent;
  const std::int64_t lead_b = static_cast<std::int64_t>(b.digits.size()) + b.exponent;
  if (lead_a != lead_b) return lead_a < lead_b ? -1 : 1;
  const std::size_t n = std::max(a.digits.size(), b.digits.size());
  for (std::size_t k = 0; k < n; ++k) {
    const char da = k < a.digits.size() ? a.digits[k] : '0';
    const char db = k < b.digits.size() ? b.digits[k] : '0';
    if (da != db) return da < db ? -1 : 1;
  }
  return 0;
}

int sign_of(const Decimal& d) noexcept { return d.digits.empty() ? 0 : (d.negative ? -1 : 1); }

// <0, 0, >0 as a is less than, equal to or greater than b; -0 equals 0.
int compare(const Decimal& a, const Decimal& b) noexcept {
  const int sa = sign_of(a);
  const int sb = sign_of(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  const int magnitude = compare_magnitude(a, b);
  return sa < 0 ? -magnitude : magnitude;
}

bool is_whole(const Decimal& d) noexcept { return d.digits.empty() || d.exponent >= 0; }

// ---- Reading schema keywords ------------------------------------------------------------------

bool list_contains(const std::vector<std::string_view>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The names in "type" (a string or an array of strings); empty when the keyword is absent.
std::vector<std::string_view> declared_types(const json::Value& schema) {
  std::vector<std::string_view> out;
  const json::Value* type = schema.find("type");
  if (type == nullptr) return out;
  if (auto one = type->get_string()) {
    out.push_back(*one);
  } else if (const json::Array* many = type->get_array()) {
    for (const json::Value& t : *many) {
      if (auto name = t.get_string()) out.push_back(*name);
    }
  }
  return out;
}

std::vector<std::string_view> required_names(const json::Value& schema) {
  std::vector<std::string_view> out;
  const json::Value* required = schema.find("required");
  if (required == nullptr || !required->is_array()) return out;
  for (const json::Value& name : required->as_array()) {
    if (auto s = name.get_string()) out.push_back(*s);
  }
  return out;
}

// Where a "$ref" points. `local` is false for references this validator does not follow.
struct RefTarget {
  bool local = false;
  const json::Value* target = nullptr;
};

std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out.push_back(token[i + 1] == '0' ? '~' : '/');
      ++i;
    } else {
      out.push_back(token[i]);
    }
  }
  return out;
}

const json::Value* step_into(const json::Value& node, const std::string& token) {
  if (const json::Object* object = node.get_object()) return object->find(token);
  const json::Array* array = node.get_array();
  if (array == nullptr || token.empty() || (token.size() > 1 && token[0] == '0')) return nullptr;
  std::size_t index = 0;
  for (char c : token) {
    if (!is_digit(c) || index > array->size()) return nullptr;  // also stops overflow early
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index < array->size() ? &(*array)[index] : nullptr;
}

// RFC 6901 JSON pointer in a URI fragment ("#/$defs/Point"), resolved against the root document.
RefTarget resolve_ref(const json::Value& root, std::string_view ref) {
  if (ref.empty() || ref.front() != '#') return {};
  std::string_view pointer = ref.substr(1);
  if (pointer.empty()) return {true, &root};
  if (pointer.front() != '/') return {};  // a named anchor: not followed
  const json::Value* node = &root;
  while (node != nullptr && !pointer.empty()) {
    pointer.remove_prefix(1);  // the '/'
    const std::size_t end = std::min(pointer.find('/'), pointer.size());
    node = step_into(*node, unescape_pointer_token(pointer.substr(0, end)));
    pointer.remove_prefix(end);
  }
  return {true, node};
}

// ---- Paths -----------------------------------------------------------------------------------

bool is_plain_key(std::string_view key) noexcept {
  if (key.empty() || is_digit(key.front())) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
  });
}

// ".name", or ["odd key"] when the key is not an identifier.
void append_key(std::string& path, std::string_view key) {
  if (is_plain_key(key)) {
    path.push_back('.');
    path.append(key);
  } else {
    path.push_back('[');
    json::append_quoted(path, key);
    path.push_back(']');
  }
}

void append_index(std::string& path, std::size_t index) {
  path.push_back('[');
  path.append(std::to_string(index));
  path.push_back(']');
}

// The position in the value being validated: a printable path and an ordering key (member and
// element positions) that sorts violations into document order.
class Location {
 public:
  void push_key(std::string_view key, std::size_t position) {
    steps_.push_back({key, 0, true});
    order_.push_back(position);
  }
  void push_index(std::size_t index) {
    steps_.push_back({{}, index, false});
    order_.push_back(index);
  }
  void pop() {
    steps_.pop_back();
    order_.pop_back();
  }
  std::string path() const {
    std::string out = "$";
    for (const Step& s : steps_) s.is_key ? append_key(out, s.key) : append_index(out, s.index);
    return out;
  }
  const std::vector<std::size_t>& order() const noexcept { return order_; }

 private:
  struct Step {
    std::string_view key;
    std::size_t index = 0;
    bool is_key = false;
  };
  std::vector<Step> steps_;
  std::vector<std::size_t> order_;
};

class Descend {
 public:
  Descend(Location& where, std::string_view key, std::size_t position) : where_(where) {
    where_.push_key(key, position);
  }
  Descend(Location& where, std::size_t index) : where_(where) { where_.push_index(index); }
  Descend(const Descend&) = delete;
  Descend& operator=(const Descend&) = delete;
  ~Descend() { where_.pop(); }

 private:
  Location& where_;
};

// ---- Describing values in messages ------------------------------------------------------------

std::size_t count_code_points(std::string_view s) noexcept {
  // Every byte that is not a UTF-8 continuation byte starts a character; for invalid UTF-8 this
  // still gives a sensible count instead of failing.
  constexpr unsigned char kContinuationMask = 0xC0;
  constexpr unsigned char kContinuationTag = 0x80;
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & kContinuationMask) != kContinuationTag;
  }));
}

std::string_view first_code_points(std::string_view s, std::size_t n) noexcept {
  constexpr unsigned char kContinuationMask = 0xC0;
  constexpr unsigned char kContinuationTag = 0x80;
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & kContinuationMask) == kContinuationTag) continue;
    if (seen++ == n) return s.substr(0, i);
  }
  return s;
}

std::string quote_truncated(std::string_view s) {
  std::string out;
  const std::string_view head = first_code_points(s, kQuotedValueChars);
  json::append_quoted(out, head);
  if (head.size() < s.size()) out.insert(out.size() - 1, "...");
  return out;
}

std::string describe_value(const json::Value& v) {
  switch (v.type()) {
    case json::Type::string: return "string " + quote_truncated(v.as_string());
    case json::Type::number: return "number " + std::string(first_code_points(v.number_text(), kQuotedValueChars));
    case json::Type::boolean: return v.as_bool() ? "boolean true" : "boolean false";
    default: return std::string(json::type_name(v.type()));
  }
}

std::string render_compact(const json::Value& v) {
  const std::string text = json::dump(v);
  const std::string_view head = first_code_points(text, kQuotedValueChars);
  return head.size() < text.size() ? std::string(head) + "..." : text;
}

std::string join_types(const std::vector<std::string_view>& types) {
  std::string out;
  for (std::string_view t : types) {
    if (!out.empty()) out += " or ";
    out.append(t);
  }
  return out;
}

// ---- Type tests ----------------------------------------------------------------------------

bool fits_double(const json::Value& v) { return v.to_double().has_value(); }

bool is_integer_value(const json::Value& v) {
  return v.is_number() && is_whole(to_decimal(v.number_text())) && v.to_int64().has_value();
}

bool has_type(const json::Value& v, std::string_view type) {
  if (type == "null") return v.is_null();
  if (type == "boolean") return v.is_bool();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number() && fits_double(v);
  if (type == "integer") return is_integer_value(v);
  return false;
}

// Why a number failed "integer" or "number" although it is a number, for the message.
std::string number_range_note(const json::Value& v, const std::vector<std::string_view>& types) {
  if (!v.is_number()) return {};
  if (list_contains(types, "integer") && is_whole(to_decimal(v.number_text())) && !v.to_int64()) {
    return " (a whole number outside the signed 64-bit range)";
  }
  if (list_contains(types, "number") && !fits_double(v)) return " (beyond the range of a double)";
  return {};
}

// JSON Schema equality: numbers by value, objects regardless of member order.
bool json_equal(const json::Value& a, const json::Value& b) {
  if (a.is_number() && b.is_number()) return compare(to_decimal(a.number_text()), to_decimal(b.number_text())) == 0;
  if (a.type() != b.type()) return false;
  if (const json::Array* aa = a.get_array()) {
    const json::Array& bb = b.as_array();
    if (aa->size() != bb.size()) return false;
    for (std::size_t i = 0; i < aa->size(); ++i) {
      if (!json_equal((*aa)[i], bb[i])) return false;
    }
    return true;
  }
  if (const json::Object* ao = a.get_object()) {
    const json::Object& bo = b.as_object();
    if (ao->size() != bo.size()) return false;
    return std::all_of(ao->begin(), ao->end(), [&bo](const json::Member& m) {
      const json::Value* other = bo.find(m.key);
      return other != nullptr && json_equal(m.value, *other);
    });
  }
  return a == b;
}

std::size_t count_nodes(const json::Value& v) {
  std::size_t n = 1;
  if (const json::Array* a = v.get_array()) {
    for (const json::Value& e : *a) n += count_nodes(e);
  } else if (const json::Object* o = v.get_object()) {
    for (const json::Member& m : *o) n += count_nodes(m.value);
  }
  return n;
}

// ---- The validator ---------------------------------------------------------------------------

struct Found {
  std::vector<std::size_t> order;
  SchemaViolation violation;
};
using Findings = std::vector<Found>;

// ---- Compiled schema nodes -------------------------------------------------------------------

// What the validator reads from one schema node, found once: the keywords as pointers into the
// document and the types as a bit set. A compiled schema keeps one per node of its document, so
// validating a value never searches a schema object for a keyword again; an uncompiled run (or a
// node a compiled schema does not know, such as a $ref target outside the subschema positions)
// builds one on the stack per visit, which costs what the keyword searches always cost.
enum TypeBit : std::uint8_t {
  kNullBit = 1,
  kBooleanBit = 2,
  kObjectBit = 4,
  kArrayBit = 8,
  kNumberBit = 16,
  kStringBit = 32,
  kIntegerBit = 64,
};

std::uint8_t type_bit(std::string_view name) noexcept {
  if (name == "null") return kNullBit;
  if (name == "boolean") return kBooleanBit;
  if (name == "object") return kObjectBit;
  if (name == "array") return kArrayBit;
  if (name == "number") return kNumberBit;
  if (name == "string") return kStringBit;
  if (name == "integer") return kIntegerBit;
  return 0;
}

std::optional<std::uint64_t> count_of(const json::Value* k) {
  if (k == nullptr || !k->is_number()) return std::nullopt;
  auto n = k->to_uint64();
  return n ? std::optional<std::uint64_t>(*n) : std::nullopt;
}

struct NodeInfo {
  std::optional<bool> boolean_schema;  // the schema is `true` or `false`
  bool is_object = false;
  const json::Value* ref = nullptr;  // "$ref" when it is a string
  const json::Value* type = nullptr;
  std::uint8_t type_bits = 0;  // the named types; 0 with `type` set: none known
  const json::Value* enumeration = nullptr;
  const json::Value* constant = nullptr;
  const json::Value* minimum = nullptr;
  const json::Value* maximum = nullptr;
  const json::Value* exclusive_minimum = nullptr;
  const json::Value* exclusive_maximum = nullptr;
  std::optional<std::uint64_t> min_length, max_length, min_items, max_items;
  const json::Array* required = nullptr;
  const json::Object* properties = nullptr;
  const json::Value* additional = nullptr;
  const json::Value* items = nullptr;
  const json::Array* all_of = nullptr;
  const json::Array* any_of = nullptr;
  const json::Array* one_of = nullptr;
  // `required` sorted, for drop_optional_nulls; filled for compiled nodes only.
  std::vector<std::string_view> required_sorted;
};

void read_node(const json::Value& schema, NodeInfo& n) {
  if (auto b = schema.get_bool()) {
    n.boolean_schema = *b;
    return;
  }
  const json::Object* o = schema.get_object();
  if (o == nullptr) return;
  n.is_object = true;
  // One pass over the members instead of a search per keyword.
  for (const json::Member& m : *o) {
    const std::string& k = m.key;
    const json::Value* v = &m.value;
    if (k == "type") {
      n.type = v;
      if (v->is_string()) {
        n.type_bits = type_bit(v->as_string());
      } else if (const json::Array* many = v->get_array()) {
        for (const json::Value& t : *many) {
          if (t.is_string()) n.type_bits |= type_bit(t.as_string());
        }
      }
    } else if (k == "$ref") {
      if (v->is_string()) n.ref = v;
    } else if (k == "enum") {
      n.enumeration = v;
    } else if (k == "const") {
      n.constant = v;
    } else if (k == "minimum") {
      n.minimum = v;
    } else if (k == "maximum") {
      n.maximum = v;
    } else if (k == "exclusiveMinimum") {
      n.exclusive_minimum = v;
    } else if (k == "exclusiveMaximum") {
      n.exclusive_maximum = v;
    } else if (k == "minLength") {
      n.min_length = count_of(v);
    } else if (k == "maxLength") {
      n.max_length = count_of(v);
    } else if (k == "minItems") {
      n.min_items = count_of(v);
    } else if (k == "maxItems") {
      n.max_items = count_of(v);
    } else if (k == "required") {
      n.required = v->get_array();
    } else if (k == "properties") {
      n.properties = v->get_object();
    } else if (k == "additionalProperties") {
      n.additional = v;
    } else if (k == "items") {
      n.items = v;
    } else if (k == "allOf") {
      n.all_of = v->get_array();
    } else if (k == "anyOf") {
      n.any_of = v->get_array();
    } else if (k == "oneOf") {
      n.one_of = v->get_array();
    }
  }
}

}  // namespace

// Every subschema position of a document, read once (schema.hpp, CompiledSchema).
struct CompiledSchemaNodes {
  std::unordered_map<const json::Value*, NodeInfo> nodes;

  const NodeInfo* find(const json::Value& schema) const {
    auto it = nodes.find(&schema);
    return it == nodes.end() ? nullptr : &it->second;
  }

  void add(const json::Value& schema) {
    if (!schema.is_object() && !schema.is_bool()) return;
    auto [it, inserted] = nodes.try_emplace(&schema);
    if (!inserted) return;
    NodeInfo& n = it->second;
    read_node(schema, n);
    if (n.required != nullptr) {
      for (const json::Value& name : *n.required) {
        if (name.is_string()) n.required_sorted.push_back(name.as_string());
      }
      std::sort(n.required_sorted.begin(), n.required_sorted.end());
    }
    const json::Object* o = schema.get_object();
    if (o == nullptr) return;
    for (const json::Member& m : *o) {
      const std::string& k = m.key;
      if (k == "properties" || k == "$defs" || k == "definitions") {
        if (const json::Object* map = m.value.get_object()) {
          for (const json::Member& entry : *map) add(entry.value);
        }
      } else if (k == "items" || k == "allOf" || k == "anyOf" || k == "oneOf") {
        if (const json::Array* list = m.value.get_array()) {
          for (const json::Value& e : *list) add(e);
        } else {
          add(m.value);
        }
      } else if (k == "additionalProperties") {
        add(m.value);
      }
    }
  }
};

namespace {

class Validator {
 public:
  Validator(const json::Value& root, std::size_t budget,
            const CompiledSchemaNodes* compiled = nullptr)
      : root_(root), compiled_(compiled), budget_(budget) {}

  void check(const json::Value& schema, const json::Value& value, Findings& out) {
    check_node(schema, value, out, 0);
    if (exhausted_) {
      // What was found before the cut-off is unreliable (an alternative never evaluated looks
      // like a miss), so the cut-off is the whole answer.
      out.clear();
      out.push_back({{}, {"$", "the schema is too complex to evaluate against this value (it needs more "
                               "subschema evaluations or deeper nesting than the limits allow); simplify "
                               "its $ref and anyOf/allOf structure"}});
    }
  }

 private:
  void report(Findings& out, std::string message) const {
    out.push_back({where_.order(), {where_.path(), std::move(message)}});
  }
  void report_member(Findings& out, std::string_view key, std::string message) const {
    std::string path = where_.path();
    append_key(path, key);
    out.push_back({where_.order(), {std::move(path), std::move(message)}});
  }

  // Charges one evaluation; false once the budget or the nesting limit is used up.
  bool spend() {
    if (exhausted_ || budget_ == 0 || nesting_ >= kMaxNesting) {
      exhausted_ = true;
      return false;
    }
    --budget_;
    return true;
  }

  // `hops` counts $ref resolutions since the last step down into the value; it resets there.
  void check_node(const json::Value& schema, const json::Value& value, Findings& out, int hops) {
    if (!spend()) return;
    ++nesting_;
    check_keywords(schema, value, out, hops);
    --nesting_;
  }

  void check_keywords(const json::Value& schema, const json::Value& value, Findings& out, int hops) {
    if (const json::Raw* raw = value.get_raw()) return check_raw(schema, *raw, out, hops);
    NodeInfo local;
    const NodeInfo* known = compiled_ != nullptr ? compiled_->find(schema) : nullptr;
    if (known == nullptr) read_node(schema, local);
    const NodeInfo& n = known != nullptr ? *known : local;
    if (n.boolean_schema) {
      if (!*n.boolean_schema) report(out, "no value is allowed here");
      return;
    }
    if (!n.is_object) return;  // not a schema: from_json never lets one through
    if (!check_ref(n, value, out, hops)) return;
    if (!check_type(schema, n, value, out)) return;  // the other keywords would only repeat it
    check_enum_and_const(n, value, out);
    if (value.is_number()) check_number_bounds(n, value, out);
    if (value.is_string()) check_length(n, value.as_string(), out);
    if (value.is_array()) check_array(n, value.as_array(), out);
    if (value.is_object()) check_object(n, value.as_object(), out);
    check_combinators(n, value, out, hops);
  }

  void check_raw(const json::Value& schema, const json::Raw& raw, Findings& out, int hops) {
    Result<json::Value> parsed = raw.parse();
    if (!parsed) return report(out, "is not valid JSON: " + parsed.error().message);
    check_node(schema, *parsed, out, hops);
  }

  // Answers false when the reference chain is cut off (reported).
  bool check_ref(const NodeInfo& n, const json::Value& value, Findings& out, int hops) {
    const json::Value* ref = n.ref;
    if (ref == nullptr) return true;
    const RefTarget target = resolve_ref(root_, ref->as_string());
    if (target.target == nullptr) return true;  // not followed (see the file comment)
    if (hops >= kMaxRefHops) {
      report(out, "the schema's $ref chain at this point does not end (a reference cycle)");
      return false;
    }
    check_node(*target.target, value, out, hops + 1);
    return true;
  }

  // The value's own type against the bit set; a number is tested as "number" and "integer" only
  // when the schema names them.
  static bool type_fits(std::uint8_t bits, const json::Value& value) {
    switch (value.type()) {
      case json::Type::null: return (bits & kNullBit) != 0;
      case json::Type::boolean: return (bits & kBooleanBit) != 0;
      case json::Type::object: return (bits & kObjectBit) != 0;
      case json::Type::array: return (bits & kArrayBit) != 0;
      case json::Type::string: return (bits & kStringBit) != 0;
      case json::Type::number:
        return ((bits & kNumberBit) != 0 && fits_double(value)) ||
               ((bits & kIntegerBit) != 0 && is_integer_value(value));
      default: return false;
    }
  }

  bool check_type(const json::Value& schema, const NodeInfo& n, const json::Value& value,
                  Findings& out) {
    // The accepting case tests a bit; only a miss builds the list of names for the message.
    if (n.type == nullptr) return true;
    if (type_fits(n.type_bits, value)) return true;
    const std::vector<std::string_view> types = declared_types(schema);
    if (types.empty()) return true;
    report(out, "expected " + join_types(types) + ", got " + describe_value(value) + number_range_note(value, types));
    return false;
  }

  void check_enum_and_const(const NodeInfo& n, const json::Value& value, Findings& out) {
    if (const json::Value* allowed = n.enumeration; allowed != nullptr && allowed->is_array()) {
      const json::Array& options = allowed->as_array();
      const bool listed = std::any_of(options.begin(), options.end(),
                                      [&value](const json::Value& o) { return json_equal(o, value); });
      if (!listed) report(out, "must be one of " + render_compact(*allowed) + ", got " + describe_value(value));
    }
    if (const json::Value* expected = n.constant;
        expected != nullptr && !json_equal(*expected, value)) {
      report(out, "must be exactly " + render_compact(*expected) + ", got " + describe_value(value));
    }
  }

  void check_number_bounds(const NodeInfo& node, const json::Value& value, Findings& out) {
    if (node.minimum == nullptr && node.maximum == nullptr && node.exclusive_minimum == nullptr &&
        node.exclusive_maximum == nullptr) {
      return;
    }
    const Decimal n = to_decimal(value.number_text());
    // Draft-04 wrote exclusiveness as a boolean beside minimum/maximum; both forms are read.
    const json::Value* exclusive_min = node.exclusive_minimum;
    const json::Value* exclusive_max = node.exclusive_maximum;
    const bool min_is_exclusive = exclusive_min != nullptr && exclusive_min->get_bool() == true;
    const bool max_is_exclusive = exclusive_max != nullptr && exclusive_max->get_bool() == true;
    check_bound(node.minimum, n, min_is_exclusive ? Bound::above : Bound::at_least, out);
    check_bound(node.maximum, n, max_is_exclusive ? Bound::below : Bound::at_most, out);
    if (exclusive_min != nullptr && exclusive_min->is_number()) check_bound(exclusive_min, n, Bound::above, out);
    if (exclusive_max != nullptr && exclusive_max->is_number()) check_bound(exclusive_max, n, Bound::below, out);
  }

  enum class Bound : std::uint8_t { at_least, above, at_most, below };

  void check_bound(const json::Value* limit, const Decimal& n, Bound kind, Findings& out) {
    if (limit == nullptr || !limit->is_number()) return;
    const int c = compare(n, to_decimal(limit->number_text()));
    const std::string text(limit->number_text());
    switch (kind) {
      case Bound::at_least: if (c < 0) report(out, "must be at least " + text); break;
      case Bound::above: if (c <= 0) report(out, "must be greater than " + text); break;
      case Bound::at_most: if (c > 0) report(out, "must be at most " + text); break;
      case Bound::below: if (c >= 0) report(out, "must be less than " + text); break;
    }
  }

  // The count keywords ("minLength": 3) were read as unsigned numbers; absent or malformed ones
  // are nullopt.
  void check_count(std::uint64_t actual, std::string_view unit, std::optional<std::uint64_t> min,
                   std::optional<std::uint64_t> max, Findings& out) {
    auto have = [&] { return std::to_string(actual) + " " + std::string(unit); };
    if (min && actual < *min) {
      report(out, "has " + have() + ", fewer than the minimum of " + std::to_string(*min));
    }
    if (max && actual > *max) {
      report(out, "has " + have() + ", more than the maximum of " + std::to_string(*max));
    }
  }

  void check_length(const NodeInfo& n, const std::string& s, Findings& out) {
    if (!n.min_length && !n.max_length) return;
    // Lengths count Unicode code points, as JSON Schema specifies, not bytes.
    check_count(count_code_points(s), "characters", n.min_length, n.max_length, out);
  }

  void check_array(const NodeInfo& n, const json::Array& items, Findings& out) {
    check_count(items.size(), "items", n.min_items, n.max_items, out);
    const json::Value* item_schema = n.items;
    if (item_schema == nullptr) return;
    const json::Array* positional = item_schema->get_array();  // draft-07 tuple form
    for (std::size_t i = 0; i < items.size(); ++i) {
      const json::Value* applies = positional ? (i < positional->size() ? &(*positional)[i] : nullptr) : item_schema;
      if (applies == nullptr) break;
      Descend into(where_, i);
      check_node(*applies, items[i], out, 0);
    }
  }

  void check_object(const NodeInfo& n, const json::Object& object, Findings& out) {
    if (n.required != nullptr) {
      for (const json::Value& name : *n.required) {
        if (name.is_string() && !object.contains(name.as_string())) {
          report_member(out, name.as_string(), "is required but missing");
        }
      }
    }
    const json::Object* declared = n.properties;
    const json::Value* additional = n.additional;
    std::size_t position = 0;
    for (const json::Member& m : object) {
      Descend into(where_, m.key, position++);
      if (const json::Value* property = declared ? declared->find(m.key) : nullptr) {
        check_node(*property, m.value, out, 0);
      } else if (additional != nullptr && additional->get_bool() == false) {
        report(out, "is not allowed: " + allowed_members(declared));
      } else if (additional != nullptr && additional->is_object()) {
        check_node(*additional, m.value, out, 0);
      }
    }
  }

  static std::string allowed_members(const json::Object* declared) {
    if (declared == nullptr || declared->empty()) return "this object accepts no members";
    std::string out = "this object accepts only ";
    std::size_t listed = 0;
    for (const json::Member& m : *declared) {
      if (listed == kListedNames) return out + ", ...";
      if (listed++ > 0) out += ", ";
      out += m.key;
    }
    return out;
  }

  // Subschemas of allOf/anyOf/oneOf apply to the same value, so `hops` carries on: a reference
  // cycle through a combinator ({"anyOf":[{"$ref":"#"}]}) is still a cycle.
  void check_combinators(const NodeInfo& n, const json::Value& value, Findings& out, int hops) {
    if (n.all_of != nullptr) {
      for (const json::Value& part : *n.all_of) check_node(part, value, out, hops);
    }
    if (n.any_of != nullptr) check_alternatives(*n.any_of, "anyOf", false, value, out, hops);
    if (n.one_of != nullptr) check_alternatives(*n.one_of, "oneOf", true, value, out, hops);
  }

  void check_alternatives(const json::Array& alternatives, std::string_view keyword, bool exactly_one,
                          const json::Value& value, Findings& out, int hops) {
    std::vector<Findings> per_alternative(alternatives.size());
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      check_node(alternatives[i], value, per_alternative[i], hops);
      if (per_alternative[i].empty()) matched.push_back(i);
      if (exhausted_) return;
    }
    if (matched.size() == 1 || (!exactly_one && !matched.empty())) return;
    if (!matched.empty()) {
      report(out, "matches " + std::to_string(matched.size()) + " of the " + std::string(keyword) +
                      " alternatives (" + list_positions(matched) + "); exactly one must match");
      return;
    }
    report(out, "matches none of the " + std::string(keyword) + " alternatives (" +
                    summarise(alternatives) + ")");
    // The closest alternative of the value's own type explains what to fix.
    if (const Findings* closest = closest_alternative(alternatives, per_alternative, value)) {
      out.insert(out.end(), closest->begin(), closest->end());
    }
  }

  static std::string list_positions(const std::vector<std::size_t>& positions) {
    std::string out;
    for (std::size_t p : positions) out += (out.empty() ? "#" : ", #") + std::to_string(p + 1);
    return out;
  }

  std::string summarise(const json::Array& alternatives) const {
    std::string out;
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      if (i > 0) out += " | ";
      const json::Value& alternative = resolved(alternatives[i]);
      const std::vector<std::string_view> types = declared_types(alternative);
      if (!types.empty()) {
        out += join_types(types);
      } else if (const json::Value* c = alternative.find("const")) {
        out += render_compact(*c);
      } else {
        out += "#" + std::to_string(i + 1);
      }
    }
    return out;
  }

  const Findings* closest_alternative(const json::Array& alternatives, const std::vector<Findings>& findings,
                                      const json::Value& value) const {
    const Findings* best = nullptr;
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      const std::vector<std::string_view> types = declared_types(resolved(alternatives[i]));
      const bool type_fits = types.empty() || std::any_of(types.begin(), types.end(), [&value](std::string_view t) {
                               return has_type(value, t);
                             });
      if (type_fits && (best == nullptr || findings[i].size() < best->size())) best = &findings[i];
    }
    return best;
  }

  // The schema a local $ref chain ends at (for summaries; the chain is bounded).
  const json::Value& resolved(const json::Value& schema) const {
    const json::Value* node = &schema;
    for (int hop = 0; hop < kMaxRefHops; ++hop) {
      const json::Value* ref = node->find("$ref");
      if (ref == nullptr || !ref->is_string()) break;
      const RefTarget target = resolve_ref(root_, ref->as_string());
      if (target.target == nullptr) break;
      node = target.target;
    }
    return *node;
  }

  const json::Value& root_;
  const CompiledSchemaNodes* compiled_;
  Location where_;
  std::size_t budget_;
  int nesting_ = 0;
  bool exhausted_ = false;
};

bool order_less(const Found& a, const Found& b) {
  return std::lexicographical_compare(a.order.begin(), a.order.end(), b.order.begin(), b.order.end());
}

// Document order; a violation reached twice (allOf parts repeating a check) is reported once.
std::vector<SchemaViolation> in_document_order(Findings findings) {
  std::stable_sort(findings.begin(), findings.end(), order_less);
  std::vector<SchemaViolation> out;
  std::size_t group_start = 0;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (i > 0 && findings[i].order != findings[i - 1].order) group_start = out.size();
    const auto group_begin = out.begin() + static_cast<std::ptrdiff_t>(group_start);
    if (std::find(group_begin, out.end(), findings[i].violation) == out.end()) {
      out.push_back(std::move(findings[i].violation));
    }
  }
  return out;
}

// ---- Checking a document handed to Schema::from_json ------------------------------------------

Error invalid_schema(const std::string& path, const std::string& what) {
  return fail(Errc::invalid_argument, "invalid JSON Schema at " + path + ": " + what +
                                          "; fix the schema (the tool cannot be offered with it)")
      .with_detail("path", path);
}

class ShapeChecker {
 public:
  explicit ShapeChecker(const json::Value& root) : root_(root) {}

  Result<void> check(const json::Value& schema, const std::string& path) {
    if (schema.is_bool()) return {};
    if (!schema.is_object()) {
      return invalid_schema(path, "a schema must be an object or a boolean, got " +
                                      std::string(json::type_name(schema.type())));
    }
    for (const json::Member& m : schema.as_object()) {
      std::string at = path;
      append_key(at, m.key);
      if (auto ok = check_keyword(m.key, m.value, at); !ok) return ok;
    }
    return {};
  }

 private:
  Result<void> check_keyword(std::string_view key, const json::Value& v, const std::string& at) {
    if (key == "type") return check_type(v, at);
    if (key == "properties" || key == "$defs" || key == "definitions") return check_schema_map(v, at);
    if (key == "required") return check_string_array(v, at);
    if (key == "additionalProperties") return check(v, at);
    if (key == "items") return v.is_array() ? check_schema_list(v, at, false) : check(v, at);
    if (key == "anyOf" || key == "oneOf" || key == "allOf") return check_schema_list(v, at, true);
    if (key == "enum") return v.is_array() ? Result<void>() : invalid_schema(at, "enum must be an array");
    if (key == "minimum" || key == "maximum") return check_number(v, at, false);
    if (key == "exclusiveMinimum" || key == "exclusiveMaximum") return check_number(v, at, true);
    if (key == "minLength" || key == "maxLength" || key == "minItems" || key == "maxItems") {
      return check_count(v, at);
    }
    if (key == "$ref") return check_ref(v, at);
    return {};  // unknown keywords are ignored
  }

  static Result<void> check_type(const json::Value& v, const std::string& at) {
    auto known = [](const json::Value& t) {
      auto name = t.get_string();
      return name && std::find(std::begin(kKnownTypes), std::end(kKnownTypes), *name) != std::end(kKnownTypes);
    };
    if (v.is_string()) {
      return known(v) ? Result<void>() : invalid_schema(at, "'" + v.as_string() + "' is not a JSON Schema type");
    }
    if (v.is_array() && !v.as_array().empty() && std::all_of(v.as_array().begin(), v.as_array().end(), known)) {
      return {};
    }
    return invalid_schema(at, "type must be one of null, boolean, object, array, number, string, integer, "
                              "or a non-empty array of them");
  }

  Result<void> check_schema_map(const json::Value& v, const std::string& at) {
    if (!v.is_object()) return invalid_schema(at, "must be an object mapping names to schemas");
    for (const json::Member& m : v.as_object()) {
      std::string inner = at;
      append_key(inner, m.key);
      if (auto ok = check(m.value, inner); !ok) return ok;
    }
    return {};
  }

  Result<void> check_schema_list(const json::Value& v, const std::string& at, bool non_empty) {
    if (!v.is_array() || (non_empty && v.as_array().empty())) {
      return invalid_schema(at, non_empty ? "must be a non-empty array of schemas" : "must be an array of schemas");
    }
    for (std::size_t i = 0; i < v.as_array().size(); ++i) {
      std::string inner = at;
      append_index(inner, i);
      if (auto ok = check(v.as_array()[i], inner); !ok) return ok;
    }
    return {};
  }

  static Result<void> check_string_array(const json::Value& v, const std::string& at) {
    const bool ok = v.is_array() && std::all_of(v.as_array().begin(), v.as_array().end(),
                                                [](const json::Value& e) { return e.is_string(); });
    return ok ? Result<void>() : invalid_schema(at, "must be an array of member names (strings)");
  }

  static Result<void> check_number(const json::Value& v, const std::string& at, bool boolean_allowed) {
    if (v.is_number() || (boolean_allowed && v.is_bool())) return {};
    return invalid_schema(at, boolean_allowed ? "must be a number (or, in draft-04 form, a boolean)" : "must be a number");
  }

  static Result<void> check_count(const json::Value& v, const std::string& at) {
    if (v.is_number() && v.to_uint64().has_value()) return {};
    return invalid_schema(at, "must be a non-negative integer");
  }

  Result<void> check_ref(const json::Value& v, const std::string& at) {
    if (!v.is_string()) return invalid_schema(at, "$ref must be a string");
    const RefTarget target = resolve_ref(root_, v.as_string());
    if (target.local && target.target == nullptr) {
      return invalid_schema(at, "$ref '" + v.as_string() + "' points at nothing in this document");
    }
    return {};
  }

  const json::Value& root_;
};

// Replaces every json::Raw inside `v` by its parsed value (schemas and arguments are read
// structurally); fails naming the path of a Raw that is not valid JSON.
Result<void> materialise_raw(json::Value& v, const std::string& path) {
  if (const json::Raw* raw = v.get_raw()) {
    Result<json::Value> parsed = raw->parse();
    if (!parsed) return fail(Errc::invalid_argument, path + " is not valid JSON: " + parsed.error().message)
                            .with_detail("path", path);
    v = std::move(*parsed);
    return {};
  }
  if (json::Array* a = v.get_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      std::string inner = path;
      append_index(inner, i);
      if (auto ok = materialise_raw((*a)[i], inner); !ok) return ok;
    }
  } else if (json::Object* o = v.get_object()) {
    for (json::Member& m : *o) {
      std::string inner = path;
      append_key(inner, m.key);
      if (auto ok = materialise_raw(m.value, inner); !ok) return ok;
    }
  }
  return {};
}

// ---- The argument pipeline -----------------------------------------------------------------

// Follows local references from `schema` (bounded); the last schema reached.
const json::Value& follow_refs(const json::Value& root, const json::Value& schema) {
  const json::Value* node = &schema;
  for (int hop = 0; hop < kMaxRefHops; ++hop) {
    const json::Value* ref = node->find("$ref");
    if (ref == nullptr || !ref->is_string()) break;
    const RefTarget target = resolve_ref(root, ref->as_string());
    if (target.target == nullptr) break;
    node = target.target;
  }
  return *node;
}

// The schema that describes an object's (or array's) members here: the schema itself when it
// carries `marker` ("properties" or "items"), else the first anyOf/oneOf/allOf alternative that
// does (an optional object is commonly anyOf [{object}, {null}]).
const json::Value* shape_schema(const json::Value& root, const json::Value& schema, std::string_view marker) {
  const json::Value& node = follow_refs(root, schema);
  if (node.find(marker) != nullptr) return &node;
  for (std::string_view combinator : {"anyOf", "oneOf", "allOf"}) {
    const json::Value* list = node.find(combinator);
    if (list == nullptr || !list->is_array()) continue;
    for (const json::Value& alternative : list->as_array()) {
      const json::Value& target = follow_refs(root, alternative);
      if (target.find(marker) != nullptr) return &target;
    }
  }
  return nullptr;
}

// The schema for one member of an object described by `shape`: its property schema, else an
// additionalProperties schema; nullptr when neither says anything.
const json::Value* member_schema(const json::Value& shape, std::string_view key) {
  const json::Value* properties = shape.find("properties");
  if (const json::Value* p = properties ? properties->find(key) : nullptr) return p;
  const json::Value* additional = shape.find("additionalProperties");
  return additional != nullptr && additional->is_object() ? additional : nullptr;
}

// The schema for element `i` of an array described by `shape`.
const json::Value* element_schema(const json::Value& shape, std::size_t i) {
  const json::Value* items = shape.find("items");
  if (items == nullptr) return nullptr;
  if (const json::Array* positional = items->get_array()) return i < positional->size() ? &(*positional)[i] : nullptr;
  return items;
}

// Step 1 (REQ-TOOL-11): constrained sampling writes null for every optional member; drop those
// wherever a schema lists the member and does not require it. A required null stays, so the
// validator can report it.
void drop_optional_nulls(const json::Value& root, const json::Value& schema, json::Value& value,
                         const CompiledSchemaNodes* compiled = nullptr) {
  if (json::Object* object = value.get_object()) {
    const json::Value* shape = shape_schema(root, schema, "properties");
    if (shape == nullptr) return;
    const json::Value& properties = *shape->find("properties");
    auto declared_null = [&](const json::Member& m) {
      return m.value.is_null() && properties.find(m.key) != nullptr;
    };
    if (std::any_of(object->begin(), object->end(), declared_null)) {
      // The required names, sorted (once per schema when compiled): a search of the list per
      // member would make a wide object quadratic.
      const NodeInfo* known = compiled != nullptr ? compiled->find(*shape) : nullptr;
      std::vector<std::string_view> sorted_here;
      if (known == nullptr) {
        const json::Value* listed = shape->find("required");
        if (const json::Array* names = listed != nullptr ? listed->get_array() : nullptr) {
          sorted_here.reserve(names->size());
          for (const json::Value& n : *names) {
            if (n.is_string()) sorted_here.push_back(n.as_string());
          }
          std::sort(sorted_here.begin(), sorted_here.end());
        }
      }
      const std::vector<std::string_view>& required =
          known != nullptr ? known->required_sorted : sorted_here;
      // One pass: erasing members one at a time would reindex a large object per dropped member.
      object->erase_if([&](const json::Member& m) {
        return declared_null(m) &&
               !std::binary_search(required.begin(), required.end(), std::string_view(m.key));
      });
    }
    for (json::Member& m : *object) {
      if (!m.value.is_object() && !m.value.is_array()) continue;  // nothing inside to drop
      if (const json::Value* sub = member_schema(*shape, m.key))
        drop_optional_nulls(root, *sub, m.value, compiled);
    }
  } else if (json::Array* array = value.get_array()) {
    const json::Value* shape = shape_schema(root, schema, "items");
    if (shape == nullptr) return;
    for (std::size_t i = 0; i < array->size(); ++i) {
      json::Value& element = (*array)[i];
      if (!element.is_object() && !element.is_array()) continue;  // nothing inside to drop
      if (const json::Value* sub = element_schema(*shape, i))
        drop_optional_nulls(root, *sub, element, compiled);
    }
  }
}

// The types a schema point accepts, from its own "type" and its anyOf/oneOf alternatives.
std::vector<std::string_view> wanted_types(const json::Value& root, const json::Value& schema) {
  const json::Value& node = follow_refs(root, schema);
  std::vector<std::string_view> out = declared_types(node);
  for (std::string_view combinator : {"anyOf", "oneOf"}) {
    const json::Value* list = node.find(combinator);
    if (list == nullptr || !list->is_array()) continue;
    for (const json::Value& alternative : list->as_array()) {
      for (std::string_view t : declared_types(follow_refs(root, alternative))) out.push_back(t);
    }
  }
  return out;
}

std::string_view trim_ascii_space(std::string_view s) noexcept {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// The value `text` stands for as a `type`, or nullopt when it does not read as one.
std::optional<json::Value> read_as(std::string_view text, std::string_view type) {
  const std::string_view trimmed = trim_ascii_space(text);
  if (type == "integer" || type == "number") {
    Result<json::Value> n = json::Value::number(trimmed);
    if (n && has_type(*n, type)) return std::move(*n);
  } else if (type == "boolean") {
    if (trimmed == "true") return json::Value(true);
    if (trimmed == "false") return json::Value(false);
  } else if (type == "array" || type == "object") {
    Result<json::Value> parsed = json::parse(trimmed);
    if (parsed && has_type(*parsed, type)) return std::move(*parsed);
  }
  return std::nullopt;
}

// Step 2: a string where the schema wants a scalar or a container becomes that, when it reads
// as one; a string is left alone wherever a string is acceptable.
void coerce(const json::Value& root, const json::Value& schema, json::Value& value) {
  if (value.is_string()) {
    const std::vector<std::string_view> types = wanted_types(root, schema);
    if (types.empty() || list_contains(types, "string")) return;
    for (std::string_view type : types) {
      if (std::optional<json::Value> read = read_as(value.as_string(), type)) {
        value = std::move(*read);
        // A container that arrived as a string skipped step 1; give it that step now.
        drop_optional_nulls(root, schema, value);
        break;
      }
    }
  }
  if (json::Object* object = value.get_object()) {
    const json::Value* shape = shape_schema(root, schema, "properties");
    if (shape == nullptr) shape = shape_schema(root, schema, "additionalProperties");
    if (shape == nullptr) return;
    for (json::Member& m : *object) {
      if (const json::Value* sub = member_schema(*shape, m.key)) coerce(root, *sub, m.value);
    }
  } else if (json::Array* array = value.get_array()) {
    const json::Value* shape = shape_schema(root, schema, "items");
    if (shape == nullptr) return;
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (const json::Value* sub = element_schema(*shape, i)) coerce(root, *sub, (*array)[i]);
    }
  }
}

// A null where the schema is an object with nothing required is the empty object: some models
// send `null` (or nothing) as the arguments of a call that takes none.
bool is_object_without_required(const json::Value& root, const json::Value& schema) {
  const json::Value& node = follow_refs(root, schema);
  return list_contains(declared_types(node), "object") && required_names(node).empty();
}

std::string violations_message(const std::vector<SchemaViolation>& violations) {
  std::string out = std::to_string(violations.size()) +
                    (violations.size() == 1 ? " schema violation: " : " schema violations: ");
  for (std::size_t i = 0; i < violations.size() && i < kViolationsInMessage; ++i) {
    if (i > 0) out += "; ";
    out += violations[i].path + ": " + violations[i].message;
  }
  if (violations.size() > kViolationsInMessage) {
    out += "; and " + std::to_string(violations.size() - kViolationsInMessage) + " more";
  }
  return out;
}

// Keyword order in built documents: type, description, then everything else as set.
void place_description(json::Value& doc, std::string text) {
  json::Object& current = doc.as_object();
  if (json::Value* existing = current.find("description")) {
    *existing = std::move(text);
    return;
  }
  json::Object rebuilt;
  rebuilt.reserve(current.size() + 1);
  if (const json::Value* type = current.find("type")) rebuilt.append_unique("type", *type);
  rebuilt.append_unique("description", std::move(text));
  for (json::Member& m : current) {
    if (m.key != "type") rebuilt.append_unique(std::move(m.key), std::move(m.value));
  }
  doc = std::move(rebuilt);
}

}  // namespace

// ---- Schema ----------------------------------------------------------------------------------

Schema::Schema() : doc_(json::Object{}) {}

Result<Schema> Schema::from_json(json::Value document) {
  if (auto ok = materialise_raw(document, "$"); !ok) return std::move(ok).error();
  if (!document.is_object() && !document.is_bool()) {
    return invalid_schema("$", "a schema must be an object or a boolean, got " +
                                   std::string(json::type_name(document.type())));
  }
  ShapeChecker checker(document);
  if (auto ok = checker.check(document, "$"); !ok) return std::move(ok).error();
  return Schema(std::move(document));
}

namespace {
// Refinements apply to object documents. The boolean schema `true` is the same as {} and becomes
// one; `false` accepts nothing, and no refinement can change that, so it stays as it is.
json::Object* refinable(json::Value& doc) {
  if (doc.get_bool() == true) doc = json::Object{};
  return doc.get_object();
}
}  // namespace

Schema& Schema::describe(std::string text) {
  if (refinable(doc_) != nullptr) place_description(doc_, std::move(text));
  return *this;
}

Schema& Schema::minimum(double v) {
  if (json::Object* o = refinable(doc_)) o->set("minimum", json::Value(v));
  return *this;
}
Schema& Schema::maximum(double v) {
  if (json::Object* o = refinable(doc_)) o->set("maximum", json::Value(v));
  return *this;
}
Schema& Schema::min_length(std::int64_t n) {
  if (json::Object* o = refinable(doc_)) o->set("minLength", json::Value(n));
  return *this;
}
Schema& Schema::max_length(std::int64_t n) {
  if (json::Object* o = refinable(doc_)) o->set("maxLength", json::Value(n));
  return *this;
}
Schema& Schema::min_items(std::int64_t n) {
  if (json::Object* o = refinable(doc_)) o->set("minItems", json::Value(n));
  return *this;
}
Schema& Schema::max_items(std::int64_t n) {
  if (json::Object* o = refinable(doc_)) o->set("maxItems", json::Value(n));
  return *this;
}
Schema& Schema::default_value(json::Value v) {
  if (json::Object* o = refinable(doc_)) o->set("default", std::move(v));
  return *this;
}
Schema& Schema::allow_additional_properties(bool allow) {
  if (json::Object* o = refinable(doc_)) o->set("additionalProperties", json::Value(allow));
  return *this;
}

// ---- Combinators ----------------------------------------------------------------------------

namespace schema {

namespace {
Schema typed(std::string_view type) { return SchemaAccess::wrap(json::Object{{"type", type}}); }
}  // namespace

Schema string() { return typed("string"); }
Schema integer() { return typed("integer"); }
Schema number() { return typed("number"); }
Schema boolean() { return typed("boolean"); }
Schema null() { return typed("null"); }
Schema any() { return Schema(); }

Schema array(Schema items) {
  Schema s = typed("array");
  SchemaAccess::document(s).as_object().append_unique("items", std::move(SchemaAccess::document(items)));
  return s;
}

Schema enumeration(std::vector<std::string> values) {
  json::Array options;
  options.reserve(values.size());
  for (std::string& v : values) options.emplace_back(std::move(v));
  Schema s = typed("string");
  SchemaAccess::document(s).as_object().append_unique("enum", std::move(options));
  return s;
}

Schema any_of(std::vector<Schema> alternatives) {
  json::Array docs;
  docs.reserve(alternatives.size());
  for (Schema& a : alternatives) docs.push_back(std::move(SchemaAccess::document(a)));
  return SchemaAccess::wrap(json::Object{{"anyOf", std::move(docs)}});
}

Property required(std::string name, Schema s) { return Property{std::move(name), std::move(s), true}; }
Property optional(std::string name, Schema s) { return Property{std::move(name), std::move(s), false}; }

// A name given twice keeps its first position and takes the later definition, like a JSON
// object initialiser; it is listed in "required" once.
Schema object(std::vector<Property> properties) {
  json::Object members;
  json::Array required_list;
  for (Property& p : properties) {
    const bool seen_required = std::any_of(required_list.begin(), required_list.end(),
                                           [&p](const json::Value& n) { return n.as_string() == p.name; });
    if (p.required && !seen_required) required_list.emplace_back(p.name);
    members.set(std::move(p.name), std::move(SchemaAccess::document(p.schema)));
  }
  json::Object doc;
  doc.append_unique("type", "object");
  doc.append_unique("properties", std::move(members));
  if (!required_list.empty()) doc.append_unique("required", std::move(required_list));
  doc.append_unique("additionalProperties", false);
  return SchemaAccess::wrap(std::move(doc));
}

}  // namespace schema

// ---- Validation and the pipeline ----------------------------------------------------------------

std::vector<SchemaViolation> find_violations(const Schema& schema, const json::Value& value) {
  const std::size_t budget = kEvaluationsPerValueNode * count_nodes(value) + kEvaluationFloor;
  Validator validator(schema.json(), budget);
  Findings findings;
  validator.check(schema.json(), value, findings);
  return in_document_order(std::move(findings));
}

// The document and its nodes together: the nodes point into this copy of the document, which
// never moves (the Impl lives on the heap behind the shared pointer).
struct CompiledSchema::Impl {
  explicit Impl(Schema s) : schema(std::move(s)) { nodes.add(schema.json()); }
  Schema schema;
  CompiledSchemaNodes nodes;
};

CompiledSchema::CompiledSchema(Schema schema)
    : impl_(std::make_shared<const Impl>(std::move(schema))) {}

const Schema& CompiledSchema::schema() const noexcept { return impl_->schema; }

std::vector<SchemaViolation> find_violations(const CompiledSchema& schema,
                                             const json::Value& value) {
  const json::Value& root = schema.impl_->schema.json();
  const std::size_t budget = kEvaluationsPerValueNode * count_nodes(value) + kEvaluationFloor;
  Validator validator(root, budget, &schema.impl_->nodes);
  Findings findings;
  validator.check(root, value, findings);
  return in_document_order(std::move(findings));
}

Result<void> validate(const Schema& schema, const json::Value& value) {
  const std::vector<SchemaViolation> violations = find_violations(schema, value);
  if (violations.empty()) return {};
  Error e = make_error(Errc::validation_error, violations_message(violations));
  for (const SchemaViolation& v : violations) e.with_detail("path", v.path);
  return e;
}

json::Value drop_optional_nulls(const Schema& schema, json::Value value) {
  drop_optional_nulls(schema.json(), schema.json(), value);
  return value;
}

json::Value drop_optional_nulls(const CompiledSchema& schema, json::Value value) {
  const json::Value& root = schema.impl_->schema.json();
  drop_optional_nulls(root, root, value, &schema.impl_->nodes);
  return value;
}

Result<json::Value> prepare_arguments(const Schema& schema, json::Value arguments) {
  const json::Value& root = schema.json();
  if (auto ok = materialise_raw(arguments, "$"); !ok) {
    return make_error(Errc::validation_error, "1 schema violation: " + ok.error().message)
        .with_detail("path", std::string(ok.error().find_detail("path").value_or("$")));
  }
  if (arguments.is_null() && is_object_without_required(root, root)) arguments = json::Object{};
  drop_optional_nulls(root, root, arguments);                       // 1.
  coerce(root, root, arguments);                                    // 2.
  if (auto ok = validate(schema, arguments); !ok) return std::move(ok).error();  // 3.
  return arguments;
}

}  // namespace agentkit
