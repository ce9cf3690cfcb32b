// agentkit/wire/binder.hpp — binds a decoded JSON tree (or untrusted bytes) into C++ structs,
// with a declared policy for members the struct does not declare.
//
//   struct CallParams {
//     std::string name;
//     std::optional<agentkit::json::Value> arguments;
//     std::int64_t n = 0;
//   };
//   template <>
//   struct agentkit::wire::Fields<CallParams> {
//     static constexpr auto list = std::tuple{
//         wire::field("name", &CallParams::name),              // required
//         wire::optional("arguments", &CallParams::arguments), // may be absent or null
//         wire::field("n", &CallParams::n)};
//     // Optional: runs after the struct is filled; its error is reported at the struct's path.
//     static agentkit::Result<void> validate(const CallParams& p) {
//       if (p.name.empty()) return agentkit::fail(agentkit::Errc::validation_error, "empty name");
//       return {};
//     }
//   };
//   agentkit::Result<CallParams> r =
//       agentkit::wire::bind<CallParams>(value, agentkit::wire::UnknownFields::reject);
//   agentkit::Result<CallParams> s =                       // decode (bounded) + bind in one step
//       agentkit::wire::decode_as<CallParams>(bytes, agentkit::wire::UnknownFields::tolerate);
//
// Policy: UnknownFields::reject for protocol payloads (JSON-RPC, MCP), where a smuggled member
// must not reach dynamic code; UnknownFields::tolerate for provider responses, which gain fields
// without notice. The policy applies to every struct in the tree.
//
// Field types and what they accept:
//   bool; std::string; integers (int32, int64, uint64, ...): a JSON number that is integral and
//   within ±(2^53−1) and the type's range ("3.0" and "1e2" are integral; "1.5" and
//   "9007199254740992.0" are not accepted); double (an integer is accepted; a literal beyond the
//   double range is refused); json::Value (anything, null included); json::Raw (the member's
//   exact bytes when binding from bytes, the compact dump when binding from a Value);
//   json::Object; json::Array; std::optional<T> (null → nullopt); std::vector<T>; wire::Map<T>
//   (any object, members in order); any struct with a Fields specialisation.
// Presence: `field` is required (absence is an error; for std::optional<T> it may still be
// null). `optional` may be absent, and for a type that cannot hold null an explicit null counts
// as absent; either way the member keeps its initial value. An explicit null for a required
// field of a type that cannot hold null is an error that says so; nothing throws.
// Errors (Errc::validation_error, or the validator's own code) carry the JSON path of the
// offending value in their message and in detail "path", e.g. "$.params.items[2].name".
//
// Thread safety: pure functions over values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/wire/decode.hpp"
#include "agentkit/wire/limits.hpp"

namespace agentkit::wire {

// What to do with an object member the struct does not declare.
enum class UnknownFields { reject, tolerate };

enum class Presence { required, optional };

// One declared member: its JSON name, the C++ member it fills, whether it must be present.
template <class T, class M>
struct FieldSpec {
  using struct_type = T;
  using member_type = M;
  std::string_view name;
  M T::*member;
  Presence presence;
};

// A member that must be present.
template <class T, class M>
constexpr FieldSpec<T, M> field(std::string_view name, M T::*member) {
  return {name, member, Presence::required};
}

// A member that may be absent (or, for a type that cannot hold null, null).
template <class T, class M>
constexpr FieldSpec<T, M> optional(std::string_view name, M T::*member) {
  return {name, member, Presence::optional};
}

// Specialise for each bound struct with `static constexpr auto list = std::tuple{...};` and
// optionally `static Result<void> validate(const T&);`.
template <class T>
struct Fields {};

template <class T>
concept Bindable = requires { Fields<T>::list; };

// A JSON object with arbitrary keys and values of one type, in document order.
template <class T>
struct Map {
  using value_type = T;
  std::vector<std::pair<std::string, T>> entries;

  const T* find(std::string_view key) const noexcept {
    for (const auto& [k, v] : entries) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  friend bool operator==(const Map&, const Map&) = default;
};

template <class T>
Result<T> bind(const json::Value& value, UnknownFields unknown);

template <class T>
Result<T> decode_as(std::string_view bytes, UnknownFields unknown, const Limits& limits = {});

// ---- Implementation ------------------------------------------------------------------------

namespace detail {

// One step of the JSON path to the value being bound; a chain of these lives on the stack and
// is formatted only when an error needs it.
struct PathNode {
  const PathNode* parent = nullptr;
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

std::string format_path(const PathNode& at);
Error type_mismatch(const PathNode& at, std::string_view expected, const json::Value& got);
Error missing_member(const PathNode& at, std::string_view name);
Error unknown_member(const PathNode& at, std::string_view name);
Error validation_failed(const PathNode& at, Error inner);
Error integer_out_of_type(const PathNode& at, std::string_view type, const json::Value& got);
Error source_mismatch(const PathNode& at);
// A JSON number that is integral and within ±(2^53−1), else an error naming the path.
Result<std::int64_t> read_safe_integer(const json::Value& value, const PathNode& at);
Result<double> read_double(const json::Value& value, const PathNode& at);
// The exact bytes of each member value of the object (each element of the array) whose exact
// bytes are `text`, in order. Precondition: `text` is valid JSON of that kind.
std::optional<std::vector<std::string_view>> member_spans(std::string_view text);
std::optional<std::vector<std::string_view>> element_spans(std::string_view text);
std::string_view trim_json_space(std::string_view text);

template <class>
inline constexpr bool always_false = false;
template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;
template <class T>
inline constexpr bool is_vector = false;
template <class T, class A>
inline constexpr bool is_vector<std::vector<T, A>> = true;
template <class T>
inline constexpr bool is_map = false;
template <class T>
inline constexpr bool is_map<Map<T>> = true;

// Types that take an explicit null as a value rather than as "absent".
template <class M>
inline constexpr bool holds_null =
    is_optional<M> || std::is_same_v<M, json::Value> || std::is_same_v<M, json::Raw>;

template <class T>
using field_list_t = std::remove_cvref_t<decltype(Fields<T>::list)>;

template <class T>
consteval bool names_are_unique() {
  constexpr auto& list = Fields<T>::list;
  constexpr std::size_t n = std::tuple_size_v<field_list_t<T>>;
  std::array<std::string_view, n> names{};
  std::apply([&](const auto&... f) {
    std::size_t i = 0;
    ((names[i++] = f.name), ...);
  }, list);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (names[i] == names[j]) return false;
    }
  }
  return true;
}

// Whether binding M may need the exact source bytes (a json::Raw somewhere inside). `Seen`
// stops the walk on recursive types (a Node holding a std::vector<Node>).
template <class M, class... Seen>
constexpr bool needs_source() {
  if constexpr ((std::is_same_v<M, Seen> || ...)) {
    return false;
  } else if constexpr (std::is_same_v<M, json::Raw>) {
    return true;
  } else if constexpr (is_optional<M> || is_vector<M> || is_map<M>) {
    return needs_source<typename M::value_type, Seen...>();
  } else if constexpr (Bindable<M>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (needs_source<typename std::tuple_element_t<I, field_list_t<M>>::member_type, M,
                           Seen...>() ||
              ...);
    }(std::make_index_sequence<std::tuple_size_v<field_list_t<M>>>{});
  } else {
    return false;
  }
}

template <class T>
concept HasValidator = requires(const T& t) {
  { Fields<T>::validate(t) } -> std::same_as<Result<void>>;
};

template <class I>
constexpr std::string_view integer_type_name() {
  if constexpr (std::is_signed_v<I>) {
    if constexpr (sizeof(I) == sizeof(std::int8_t)) return "int8";
    if constexpr (sizeof(I) == sizeof(std::int16_t)) return "int16";
    if constexpr (sizeof(I) == sizeof(std::int32_t)) return "int32";
    return "int64";
  } else {
    if constexpr (sizeof(I) == sizeof(std::uint8_t)) return "uint8";
    if constexpr (sizeof(I) == sizeof(std::uint16_t)) return "uint16";
    if constexpr (sizeof(I) == sizeof(std::uint32_t)) return "uint32";
    return "uint64";
  }
}

// `source` is the exact bytes of `value` when binding from bytes and a Raw may be inside;
// empty otherwise (no JSON value is empty text, so empty means "no source").
template <class M>
Result<void> bind_into(M& out, const json::Value& value, std::string_view source,
                       const PathNode& at, UnknownFields unknown);

template <class I>
Result<void> bind_integer(I& out, const json::Value& value, const PathNode& at) {
  auto n = read_safe_integer(value, at);
  if (!n) return std::move(n).error();
  if (!std::in_range<I>(*n)) return integer_out_of_type(at, integer_type_name<I>(), value);
  out = static_cast<I>(*n);
  return {};
}

inline Result<void> bind_raw(json::Raw& out, const json::Value& value, std::string_view source) {
  if (!source.empty()) {
    out = json::Raw(std::string(source));
  } else if (const json::Raw* raw = value.get_raw()) {
    out = *raw;
  } else {
    out = json::Raw(json::dump(value));
  }
  return {};
}

template <class M>
Result<void> bind_vector(M& out, const json::Value& value, std::string_view source,
                         const PathNode& at, UnknownFields unknown) {
  const json::Array* array = value.get_array();
  if (array == nullptr) return type_mismatch(at, "an array", value);
  std::vector<std::string_view> spans;
  if (!source.empty()) {
    auto found = element_spans(source);
    if (!found || found->size() != array->size()) return source_mismatch(at);
    spans = std::move(*found);
  }
  out.clear();
  out.reserve(array->size());  // bounded: the decoder already held this many elements
  for (std::size_t i = 0; i < array->size(); ++i) {
    const PathNode here{&at, {}, i, true};
    typename M::value_type element{};
    auto r = bind_into(element, (*array)[i], spans.empty() ? std::string_view() : spans[i], here,
                       unknown);
    if (!r) return r;
    out.push_back(std::move(element));
  }
  return {};
}

template <class M>
Result<void> bind_map(M& out, const json::Value& value, std::string_view source,
                      const PathNode& at, UnknownFields unknown) {
  const json::Object* object = value.get_object();
  if (object == nullptr) return type_mismatch(at, "an object", value);
  std::vector<std::string_view> spans;
  if (!source.empty()) {
    auto found = member_spans(source);
    if (!found || found->size() != object->size()) return source_mismatch(at);
    spans = std::move(*found);
  }
  out.entries.clear();
  out.entries.reserve(object->size());
  std::size_t i = 0;
  for (const json::Member& member : *object) {
    const PathNode here{&at, member.key, 0, false};
    typename M::value_type element{};
    auto r = bind_into(element, member.value, spans.empty() ? std::string_view() : spans[i], here,
                       unknown);
    if (!r) return r;
    out.entries.emplace_back(member.key, std::move(element));
    ++i;
  }
  return {};
}

// Binds one member of `out` if `key` names a declared field; answers whether it did.
template <class T, std::size_t... I>
bool bind_declared_member(T& out, const json::Member& member, std::string_view source,
                          const PathNode& here, UnknownFields unknown,
                          std::array<bool, sizeof...(I)>& seen, Result<void>& result,
                          std::index_sequence<I...>) {
  constexpr auto& list = Fields<T>::list;
  const auto try_field = [&](const auto& spec, bool& was_seen) {
    if (spec.name != member.key) return false;
    was_seen = true;
    using M = typename std::remove_cvref_t<decltype(spec)>::member_type;
    if constexpr (!holds_null<M>) {
      // An explicit null for an optional member means "not given"; the member keeps its value.
      if (spec.presence == Presence::optional && member.value.is_null()) return true;
    }
    result = bind_into(out.*(spec.member), member.value, source, here, unknown);
    return true;
  };
  return (try_field(std::get<I>(list), seen[I]) || ...);
}

template <class T, std::size_t... I>
Result<void> check_required(const std::array<bool, sizeof...(I)>& seen, const PathNode& at,
                            std::index_sequence<I...>) {
  constexpr auto& list = Fields<T>::list;
  Result<void> result;
  const auto check = [&](const auto& spec, bool was_seen) {
    if (was_seen || spec.presence != Presence::required) return false;
    result = missing_member(at, spec.name);
    return true;
  };
  (check(std::get<I>(list), seen[I]) || ...);
  return result;
}

template <class T>
Result<void> bind_struct(T& out, const json::Value& value, std::string_view source,
                         const PathNode& at, UnknownFields unknown) {
  static_assert(names_are_unique<T>(), "wire::Fields<T>::list declares one JSON name twice");
  constexpr std::size_t kCount = std::tuple_size_v<field_list_t<T>>;
  constexpr auto kIndices = std::make_index_sequence<kCount>{};
  const json::Object* object = value.get_object();
  if (object == nullptr) return type_mismatch(at, "an object", value);
  std::vector<std::string_view> spans;
  if (!source.empty()) {
    auto found = member_spans(source);
    if (!found || found->size() != object->size()) return source_mismatch(at);
    spans = std::move(*found);
  }
  std::array<bool, kCount> seen{};
  std::size_t i = 0;
  for (const json::Member& member : *object) {
    const PathNode here{&at, member.key, 0, false};
    Result<void> result;
    const std::string_view member_source = spans.empty() ? std::string_view() : spans[i++];
    if (!bind_declared_member(out, member, member_source, here, unknown, seen, result, kIndices)) {
      if (unknown == UnknownFields::reject) return unknown_member(at, member.key);
    }
    if (!result) return result;
  }
  if (auto missing = check_required<T>(seen, at, kIndices); !missing) return missing;
  if constexpr (HasValidator<T>) {
    // Required members: after the struct is filled, reported at this struct's own path.
    if (auto valid = Fields<T>::validate(std::as_const(out)); !valid) {
      return validation_failed(at, std::move(valid).error());
    }
  }
  return {};
}

template <class M>
Result<void> bind_into(M& out, const json::Value& value, std::string_view source,
                       const PathNode& at, UnknownFields unknown) {
  if constexpr (std::is_same_v<M, json::Value>) {
    out = value;
    return {};
  } else if constexpr (std::is_same_v<M, json::Raw>) {
    return bind_raw(out, value, source);
  } else if constexpr (is_optional<M>) {
    if (value.is_null()) {
      out.reset();
      return {};
    }
    typename M::value_type inner{};
    auto r = bind_into(inner, value, source, at, unknown);
    if (r) out = std::move(inner);
    return r;
  } else if constexpr (std::is_same_v<M, bool>) {
    const auto b = value.get_bool();
    if (!b) return type_mismatch(at, "a boolean", value);
    out = *b;
    return {};
  } else if constexpr (std::is_same_v<M, std::string>) {
    const auto s = value.get_string();
    if (!s) return type_mismatch(at, "a string", value);
    out.assign(*s);
    return {};
  } else if constexpr (std::is_integral_v<M>) {
    return bind_integer(out, value, at);
  } else if constexpr (std::is_floating_point_v<M>) {
    auto d = read_double(value, at);
    if (!d) return std::move(d).error();
    out = static_cast<M>(*d);
    return {};
  } else if constexpr (std::is_same_v<M, json::Object>) {
    if (!value.is_object()) return type_mismatch(at, "an object", value);
    out = value.as_object();
    return {};
  } else if constexpr (std::is_same_v<M, json::Array>) {
    if (!value.is_array()) return type_mismatch(at, "an array", value);
    out = value.as_array();
    return {};
  } else if constexpr (is_vector<M>) {
    return bind_vector(out, value, source, at, unknown);
  } else if constexpr (is_map<M>) {
    return bind_map(out, value, source, at, unknown);
  } else if constexpr (Bindable<M>) {
    return bind_struct(out, value, source, at, unknown);
  } else {
    static_assert(always_false<M>, "no wire binding for this member type; specialise wire::Fields");
    return {};
  }
}

template <class T>
Result<T> bind_root(const json::Value& value, std::string_view source, UnknownFields unknown) {
  T out{};
  const PathNode root;
  auto r = bind_into(out, value, source, root, unknown);
  if (!r) return std::move(r).error();
  return out;
}

}  // namespace detail

template <class T>
Result<T> bind(const json::Value& value, UnknownFields unknown) {
  return detail::bind_root<T>(value, {}, unknown);
}

template <class T>
Result<T> decode_as(std::string_view bytes, UnknownFields unknown, const Limits& limits) {
  auto value = decode(bytes, limits);
  if (!value) return std::move(value).error();
  // Only a Raw member needs the exact bytes; without one, no span is ever computed.
  std::string_view source;
  if constexpr (detail::needs_source<T>()) source = detail::trim_json_space(bytes);
  return detail::bind_root<T>(*value, source, unknown);
}

}  // namespace agentkit::wire
