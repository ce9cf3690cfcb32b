// Header precedence and validation (REQ-PROV-18, REQ-AUTH-02, REQ-SEC-13).
#include "agentkit/providers/headers.hpp"

#include <algorithm>
#include <array>

#include "agentkit/base/strings.hpp"

namespace agentkit::providers {
namespace {

constexpr char kHorizontalTab = '\t';
constexpr unsigned char kDelete = 0x7f;
constexpr unsigned char kFirstPrintable = 0x20;

// Headers the transport computes from the request itself; a caller-supplied copy would disagree
// with the body actually sent (request smuggling's favourite ingredient).
constexpr std::array<std::string_view, 4> kTransportOwned = {"host", "content-length", "transfer-encoding", "connection"};

std::string hex_byte(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 0xF];
}

struct Slot {
  std::string name;
  std::optional<std::string> value;  // nullopt: deleted
};

}  // namespace

Result<void> check_header(std::string_view name, std::string_view value, std::string_view origin) {
  auto refuse = [&](std::string why) {
    return make_error(Errc::invalid_argument, "header '" + std::string(name) + "' from " + std::string(origin) + " " + why)
        .with_detail("header", std::string(name));
  };
  if (name.empty()) return refuse("has an empty name");
  for (char c : name) {
    if (!is_token_char(c)) return refuse("has a name that is not an HTTP token");
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    auto c = static_cast<unsigned char>(value[i]);
    if ((c < kFirstPrintable && value[i] != kHorizontalTab) || c == kDelete) {
      return refuse("contains the control byte " + hex_byte(c) + " at offset " + std::to_string(i) +
                    "; it is refused rather than sent (header injection)");
    }
  }
  for (auto owned : kTransportOwned) {
    if (iequals(name, owned)) return refuse("is set by the HTTP transport from the request itself");
  }
  return {};
}

Result<http::Headers> merge_headers(std::span<const HeaderLayer> layers) {
  std::vector<Slot> slots;
  std::size_t entries = 0;
  for (const HeaderLayer& layer : layers)
    entries += layer.entries == nullptr ? 0 : layer.entries->size();
  slots.reserve(entries);  // one allocation, not one per doubling
  for (const HeaderLayer& layer : layers) {
    if (layer.entries == nullptr) continue;
    for (const auto& entry : *layer.entries) {
      const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture those
      std::optional<std::string> effective = entry.second;
      if (effective && effective->empty() && layer.drop_empty_values) effective.reset();  // resolved to nothing
      if (effective) {
        if (auto ok = check_header(name, *effective, layer.origin); !ok) return ok.error();
      }
      auto it = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) { return iequals(s.name, name); });
      if (it == slots.end()) {
        slots.push_back(Slot{name, std::move(effective)});
      } else {
        it->name = name;  // the spelling of the layer that decided
        it->value = std::move(effective);
      }
    }
  }
  http::Headers out;
  for (auto& slot : slots) {
    if (slot.value) out.add(std::move(slot.name), std::move(*slot.value));
  }
  return out;
}

}  // namespace agentkit::providers
