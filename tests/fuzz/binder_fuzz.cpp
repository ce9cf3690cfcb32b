// The binder on arbitrary bytes, through structs that use every field type and a recursive one:
// no crash or throw; `reject` never accepts what `tolerate` refuses; binding from bytes and from
// the decoded Value agree (except that Raw keeps exact bytes, which must parse to the same value
// as the dump); every error names a JSON path.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/wire/binder.hpp"

namespace json = agentkit::json;
namespace wire = agentkit::wire;
using wire::UnknownFields;

struct FuzzLeaf {
  bool flag = false;
  std::int32_t small = 0;
  std::uint64_t count = 0;
  double real = 0;
  std::optional<std::string> label;
  friend bool operator==(const FuzzLeaf&, const FuzzLeaf&) = default;
};
template <>
struct wire::Fields<FuzzLeaf> {
  static constexpr auto list = std::tuple{
      wire::optional("flag", &FuzzLeaf::flag), wire::optional("small", &FuzzLeaf::small),
      wire::optional("count", &FuzzLeaf::count), wire::optional("real", &FuzzLeaf::real),
      wire::field("label", &FuzzLeaf::label)};
  static agentkit::Result<void> validate(const FuzzLeaf& leaf) {
    if (leaf.small < 0) return agentkit::fail(agentkit::Errc::validation_error, "small < 0");
    return {};
  }
};

struct FuzzNode {
  std::string name;
  std::vector<FuzzNode> children;
  std::optional<json::Raw> payload;
  json::Value any;
  wire::Map<FuzzLeaf> leaves;
  std::vector<json::Raw> raws;
  std::int64_t id = 0;
};
template <>
struct wire::Fields<FuzzNode> {
  static constexpr auto list = std::tuple{
      wire::field("name", &FuzzNode::name), wire::optional("children", &FuzzNode::children),
      wire::optional("payload", &FuzzNode::payload), wire::optional("any", &FuzzNode::any),
      wire::optional("leaves", &FuzzNode::leaves), wire::optional("raws", &FuzzNode::raws),
      wire::optional("id", &FuzzNode::id)};
};

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

bool same_parse(const json::Raw& exact, const json::Raw& dumped) {
  auto a = json::parse(exact.bytes());
  auto b = json::parse(dumped.bytes());
  return a && b && *a == *b;
}

// The two bindings agree member by member; Raw members agree up to formatting.
void require_same(const FuzzNode& from_bytes, const FuzzNode& from_value) {
  require(from_bytes.name == from_value.name && from_bytes.id == from_value.id);
  require(from_bytes.any == from_value.any && from_bytes.leaves == from_value.leaves);
  require(from_bytes.payload.has_value() == from_value.payload.has_value());
  if (from_bytes.payload) require(same_parse(*from_bytes.payload, *from_value.payload));
  require(from_bytes.raws.size() == from_value.raws.size());
  for (std::size_t i = 0; i < from_bytes.raws.size(); ++i) {
    require(same_parse(from_bytes.raws[i], from_value.raws[i]));
  }
  require(from_bytes.children.size() == from_value.children.size());
  for (std::size_t i = 0; i < from_bytes.children.size(); ++i) {
    require_same(from_bytes.children[i], from_value.children[i]);
  }
}

template <class T>
void check_policies(std::string_view bytes) {
  const auto rejecting = wire::decode_as<T>(bytes, UnknownFields::reject);
  const auto tolerating = wire::decode_as<T>(bytes, UnknownFields::tolerate);
  if (rejecting) require(tolerating.has_value());
  for (const auto* r : {&rejecting, &tolerating}) {
    if (!*r && r->error().code == agentkit::Errc::validation_error) {
      const auto path = r->error().find_detail("path");
      require(path.has_value() && path->starts_with("$"));
    }
    require(*r || r->error().code != agentkit::Errc::internal);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_policies<FuzzNode>(bytes);
  check_policies<std::vector<FuzzLeaf>>(bytes);
  const auto decoded = wire::decode(bytes);
  if (!decoded) return 0;
  for (UnknownFields policy : {UnknownFields::reject, UnknownFields::tolerate}) {
    const auto from_bytes = wire::decode_as<FuzzNode>(bytes, policy);
    const auto from_value = wire::bind<FuzzNode>(*decoded, policy);
    require(from_bytes.has_value() == from_value.has_value());
    if (from_bytes) {
      require_same(*from_bytes, *from_value);
    } else {
      require(from_bytes.error().message == from_value.error().message);
    }
  }
  return 0;
}
