#include "agentkit/base/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace agentkit::utf8 {
namespace {

// Bit patterns of RFC 3629 §3.
constexpr unsigned char continuation_mask = 0xC0;
constexpr unsigned char continuation_tag = 0x80;
constexpr char32_t first_surrogate = 0xD800;
constexpr char32_t last_surrogate = 0xDFFF;
constexpr std::uint64_t high_bits_of_eight_bytes = 0x8080808080808080ULL;
constexpr std::size_t ascii_block = sizeof(std::uint64_t);

bool is_continuation(unsigned char byte) noexcept {
  return (byte & continuation_mask) == continuation_tag;
}

// Bytes [0, n) of `bytes` are ASCII; returns n (the first non-ASCII offset or the size).
std::size_t skip_ascii(std::string_view bytes, std::size_t from) noexcept {
  std::size_t i = from;
  while (i + ascii_block <= bytes.size()) {
    std::uint64_t block = 0;
    std::memcpy(&block, bytes.data() + i, ascii_block);  // memcpy: no unaligned or aliasing UB
    if ((block & high_bits_of_eight_bytes) != 0) break;
    i += ascii_block;
  }
  while (i < bytes.size() && static_cast<unsigned char>(bytes[i]) < continuation_tag) ++i;
  return i;
}

// The table of RFC 3629 §4 ("UTF8-2" .. "UTF8-4"): the allowed range of the second byte depends
// on the lead byte, which is what excludes overlong forms, surrogates and values above U+10FFFF.
struct LeadByteRule {
  std::size_t length;
  unsigned char second_min;
  unsigned char second_max;
  char32_t payload_mask;
};

std::optional<LeadByteRule> rule_for(unsigned char lead) noexcept {
  if (lead >= 0xC2 && lead <= 0xDF) return LeadByteRule{2, 0x80, 0xBF, 0x1F};
  if (lead == 0xE0) return LeadByteRule{3, 0xA0, 0xBF, 0x0F};
  if (lead == 0xED) return LeadByteRule{3, 0x80, 0x9F, 0x0F};  // no surrogates
  if (lead >= 0xE1 && lead <= 0xEF) return LeadByteRule{3, 0x80, 0xBF, 0x0F};
  if (lead == 0xF0) return LeadByteRule{4, 0x90, 0xBF, 0x07};
  if (lead >= 0xF1 && lead <= 0xF3) return LeadByteRule{4, 0x80, 0xBF, 0x07};
  if (lead == 0xF4) return LeadByteRule{4, 0x80, 0x8F, 0x07};  // nothing above U+10FFFF
  return std::nullopt;  // continuation bytes, C0, C1, F5..FF
}

constexpr int payload_bits_per_continuation = 6;
constexpr unsigned char continuation_payload_mask = 0x3F;
// Lead-byte tags of the 2-, 3- and 4-byte forms (RFC 3629 §3).
constexpr unsigned char two_byte_tag = 0xC0;
constexpr unsigned char three_byte_tag = 0xE0;
constexpr unsigned char four_byte_tag = 0xF0;

Error invalid_at(std::size_t offset) {
  return fail(Errc::parse_error, "invalid UTF-8 at byte " + std::to_string(offset) +
                                     "; the text must be valid UTF-8 (RFC 3629)")
      .with_detail("offset", std::to_string(offset));
}

}  // namespace

std::optional<DecodedChar> decode_front(std::string_view bytes) noexcept {
  if (bytes.empty()) return std::nullopt;
  const auto lead = static_cast<unsigned char>(bytes[0]);
  if (lead < continuation_tag) return DecodedChar{lead, 1};
  const auto rule = rule_for(lead);
  if (!rule || bytes.size() < rule->length) return std::nullopt;
  const auto second = static_cast<unsigned char>(bytes[1]);
  if (second < rule->second_min || second > rule->second_max) return std::nullopt;
  char32_t cp = lead & rule->payload_mask;
  for (std::size_t k = 1; k < rule->length; ++k) {
    const auto byte = static_cast<unsigned char>(bytes[k]);
    if (!is_continuation(byte)) return std::nullopt;
    cp = (cp << payload_bits_per_continuation) | (byte & continuation_payload_mask);
  }
  return DecodedChar{cp, rule->length};
}

std::optional<std::size_t> find_invalid(std::string_view bytes) noexcept {
  std::size_t i = 0;
  while (true) {
    i = skip_ascii(bytes, i);
    if (i == bytes.size()) return std::nullopt;
    const auto ch = decode_front(bytes.substr(i));
    if (!ch) return i;
    i += ch->length;
  }
}

bool is_valid(std::string_view bytes) noexcept { return !find_invalid(bytes).has_value(); }

Result<void> validate(std::string_view bytes) {
  if (const auto bad = find_invalid(bytes)) return invalid_at(*bad);
  return {};
}

Result<std::u32string> decode(std::string_view bytes) {
  std::u32string out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto ch = decode_front(bytes.substr(i));
    if (!ch) return invalid_at(i);
    out.push_back(ch->code_point);
    i += ch->length;
  }
  return out;
}

bool is_scalar_value(char32_t code_point) noexcept {
  return code_point <= max_code_point &&
         (code_point < first_surrogate || code_point > last_surrogate);
}

std::size_t encoded_length(char32_t cp) noexcept {
  // Upper bounds of the 1-, 2- and 3-byte forms (RFC 3629 §3).
  constexpr char32_t one_byte_max = 0x7F;
  constexpr char32_t two_byte_max = 0x7FF;
  constexpr char32_t three_byte_max = 0xFFFF;
  return cp <= one_byte_max ? 1 : cp <= two_byte_max ? 2 : cp <= three_byte_max ? 3 : 4;
}

char* encode_unchecked(char32_t cp, char* out) noexcept {
  auto cont = [](char32_t bits) {
    return static_cast<char>(continuation_tag | (bits & continuation_payload_mask));
  };
  switch (encoded_length(cp)) {
    case 1: *out++ = static_cast<char>(cp); break;
    case 2:
      *out++ = static_cast<char>(two_byte_tag | (cp >> 6));
      *out++ = cont(cp);
      break;
    case 3:
      *out++ = static_cast<char>(three_byte_tag | (cp >> 12));
      *out++ = cont(cp >> 6);
      *out++ = cont(cp);
      break;
    default:
      *out++ = static_cast<char>(four_byte_tag | (cp >> 18));
      *out++ = cont(cp >> 12);
      *out++ = cont(cp >> 6);
      *out++ = cont(cp);
      break;
  }
  return out;
}

Result<void> append(std::string& out, char32_t cp) {
  if (!is_scalar_value(cp)) {
    return fail(Errc::invalid_argument,
                "cannot encode code point " + std::to_string(static_cast<std::uint32_t>(cp)) +
                    " as UTF-8: surrogates and values above U+10FFFF are not characters");
  }
  char bytes[max_encoded_length];
  out.append(bytes, encode_unchecked(cp, bytes));
  return {};
}

Result<std::string> encode(char32_t code_point) {
  std::string out;
  if (auto r = append(out, code_point); !r) return std::move(r).error();
  return out;
}

Result<std::size_t> count_code_points(std::string_view bytes) {
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const std::size_t ascii_end = skip_ascii(bytes, i);
    count += ascii_end - i;
    i = ascii_end;
    if (i == bytes.size()) break;
    const auto ch = decode_front(bytes.substr(i));
    if (!ch) return invalid_at(i);
    ++count;
    i += ch->length;
  }
  return count;
}

std::string_view truncate_code_points(std::string_view bytes, std::size_t max_code_points) noexcept {
  std::size_t i = 0;
  for (std::size_t n = 0; n < max_code_points && i < bytes.size(); ++n) {
    const auto ch = decode_front(bytes.substr(i));
    if (!ch) break;
    i += ch->length;
  }
  return bytes.substr(0, i);
}

std::string_view truncate_bytes(std::string_view bytes, std::size_t max_bytes) noexcept {
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto ch = decode_front(bytes.substr(i));
    if (!ch || i + ch->length > max_bytes) break;
    i += ch->length;
  }
  return bytes.substr(0, i);
}

}  // namespace agentkit::utf8
