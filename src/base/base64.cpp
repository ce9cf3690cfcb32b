#include "agentkit/base/base64.hpp"

#include <array>
#include <cstdint>

namespace agentkit::base64 {
namespace {

// RFC 4648 §4 and §5.
constexpr std::string_view standard_chars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view url_chars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr char pad = '=';
constexpr std::size_t bytes_per_group = 3;
constexpr std::size_t chars_per_group = 4;
constexpr int bits_per_char = 6;
constexpr std::uint32_t six_bits = 0x3F;
constexpr std::uint8_t not_in_alphabet = 0xFF;

using ReverseTable = std::array<std::uint8_t, 256>;

constexpr ReverseTable make_reverse(std::string_view chars) {
  ReverseTable table{};
  for (auto& entry : table) entry = not_in_alphabet;
  for (std::size_t i = 0; i < chars.size(); ++i) {
    table[static_cast<unsigned char>(chars[i])] = static_cast<std::uint8_t>(i);
  }
  return table;
}

constexpr ReverseTable standard_reverse = make_reverse(standard_chars);
constexpr ReverseTable url_reverse = make_reverse(url_chars);

std::string_view chars_of(Alphabet a) { return a == Alphabet::url ? url_chars : standard_chars; }
const ReverseTable& reverse_of(Alphabet a) {
  return a == Alphabet::url ? url_reverse : standard_reverse;
}
std::string_view name_of(Alphabet a) { return a == Alphabet::url ? "base64url" : "base64"; }

Error bad_input(Alphabet a, std::size_t offset, std::string_view why) {
  return fail(Errc::parse_error, "invalid " + std::string(name_of(a)) + " at character " +
                                     std::to_string(offset) + ": " + std::string(why))
      .with_detail("offset", std::to_string(offset));
}

// Splits `text` into its data characters and its padding, checking the padding shape.
Result<std::string_view> strip_padding(std::string_view text, Alphabet a) {
  std::size_t data_len = text.size();
  while (data_len > 0 && text[data_len - 1] == pad) --data_len;
  const std::size_t pad_len = text.size() - data_len;
  const bool padded = pad_len > 0;
  if (a == Alphabet::standard && text.size() % chars_per_group != 0) {
    return bad_input(a, text.size(), "length is not a multiple of 4; standard base64 must be padded with '='");
  }
  if (padded && text.size() % chars_per_group != 0) {
    return bad_input(a, text.size(), "padded input must be a multiple of 4 characters long");
  }
  // Only the final group may be short, by one or two characters; 4k+1 characters cannot encode
  // whole bytes.
  const std::size_t tail = data_len % chars_per_group;
  if (tail == 1) return bad_input(a, data_len - 1, "a final group of one character cannot encode a byte");
  // Padding completes a short final group of two or three characters: "====" or "Zm9v====" pad
  // nothing and are refused.
  if (padded && (tail == 0 || pad_len != chars_per_group - tail)) {
    return bad_input(a, data_len, "wrong amount of '=' padding for the final group");
  }
  return text.substr(0, data_len);
}

}  // namespace

std::size_t encoded_size(std::size_t byte_count, Alphabet alphabet) noexcept {
  const std::size_t whole = byte_count / bytes_per_group;
  const std::size_t rest = byte_count % bytes_per_group;
  if (alphabet == Alphabet::standard) return (whole + (rest != 0 ? 1 : 0)) * chars_per_group;
  return whole * chars_per_group + (rest == 0 ? 0 : rest + 1);
}

std::string encode(std::string_view bytes, Alphabet alphabet) {
  const std::string_view chars = chars_of(alphabet);
  std::string out;
  out.reserve(encoded_size(bytes.size(), alphabet));
  std::size_t i = 0;
  auto byte_at = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + bytes_per_group <= bytes.size(); i += bytes_per_group) {
    const std::uint32_t group = (byte_at(i) << 16) | (byte_at(i + 1) << 8) | byte_at(i + 2);
    for (int shift = 18; shift >= 0; shift -= bits_per_char) out.push_back(chars[(group >> shift) & six_bits]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  std::uint32_t group = byte_at(i) << 16;
  if (rest == 2) group |= byte_at(i + 1) << 8;
  out.push_back(chars[(group >> 18) & six_bits]);
  out.push_back(chars[(group >> 12) & six_bits]);
  if (rest == 2) out.push_back(chars[(group >> 6) & six_bits]);
  if (alphabet == Alphabet::standard) out.append(chars_per_group - rest - 1, pad);
  return out;
}

Result<std::string> decode(std::string_view text, Alphabet alphabet) {
  auto data = strip_padding(text, alphabet);
  if (!data) return std::move(data).error();
  const ReverseTable& reverse = reverse_of(alphabet);
  std::string out;
  out.reserve(data->size() / chars_per_group * bytes_per_group + bytes_per_group);
  std::uint32_t acc = 0;
  int acc_bits = 0;
  for (std::size_t i = 0; i < data->size(); ++i) {
    const std::uint8_t v = reverse[static_cast<unsigned char>((*data)[i])];
    if (v == not_in_alphabet) {
      return bad_input(alphabet, i, "character is not in the " + std::string(name_of(alphabet)) + " alphabet");
    }
    acc = (acc << bits_per_char) | v;
    acc_bits += bits_per_char;
    if (acc_bits >= 8) {
      acc_bits -= 8;
      out.push_back(static_cast<char>((acc >> acc_bits) & 0xFF));
    }
  }
  // RFC 4648 §3.5: the pad bits of the last character must be zero, or two encodings would decode
  // to the same bytes.
  if (acc_bits > 0 && (acc & ((1U << acc_bits) - 1)) != 0) {
    return bad_input(alphabet, data->size() - 1, "the unused low bits of the last character are not zero");
  }
  return out;
}

}  // namespace agentkit::base64
