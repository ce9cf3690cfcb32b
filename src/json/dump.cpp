// json::dump: deterministic printing. Member order and number literals are reproduced as held;
// strings get the minimal escapes plus U+2028/U+2029 (so the text is also valid JavaScript).
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "agentkit/json/value.hpp"
#include "text_scan.hpp"

namespace agentkit::json {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char32_t kLineSeparator = 0x2028, kParagraphSeparator = 0x2029;
constexpr char32_t kFirstAstral = 0x10000;
using detail::kHighSurrogateFirst, detail::kLowSurrogateFirst;
// Written for bytes that are not UTF-8 (a std::string built by the caller may hold anything):
// printing them raw would make the output invalid JSON.
constexpr std::string_view kReplacementEscape = "\\ufffd";

void append_u_escape(std::string& out, char32_t unit) {
  const char escape[] = {'\\', 'u', kHexDigits[(unit >> 12) & 0xF], kHexDigits[(unit >> 8) & 0xF],
                         kHexDigits[(unit >> 4) & 0xF], kHexDigits[unit & 0xF]};
  out.append(escape, sizeof escape);
}

void append_control_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '\b': out.append("\\b", 2); return;
    case '\f': out.append("\\f", 2); return;
    case '\n': out.append("\\n", 2); return;
    case '\r': out.append("\\r", 2); return;
    case '\t': out.append("\\t", 2); return;
    default: append_u_escape(out, c);
  }
}

// q points at a non-ASCII byte; answers the number of bytes consumed.
std::size_t append_non_ascii(std::string& out, const char* q, const char* end, bool ascii_only) {
  const std::size_t n = detail::utf8_sequence_length(q, end);
  if (n == 0) {
    out.append(kReplacementEscape);
    return 1;
  }
  const char32_t cp = detail::utf8_decode(q, n);
  if (ascii_only) {
    if (cp >= kFirstAstral) {
      const char32_t v = cp - kFirstAstral;
      append_u_escape(out, kHighSurrogateFirst + (v >> 10));
      append_u_escape(out, kLowSurrogateFirst + (v & 0x3FF));
    } else {
      append_u_escape(out, cp);
    }
  } else if (cp == kLineSeparator || cp == kParagraphSeparator) {
    append_u_escape(out, cp);
  } else {
    out.append(q, n);
  }
  return n;
}

class Printer {
 public:
  Printer(std::string& out, const DumpOptions& options) : out_(out), options_(options) {}

  void write(const Value& v, int depth) {
    switch (v.type()) {
      case Type::null: out_.append("null", 4); return;
      case Type::boolean: v.as_bool() ? out_.append("true", 4) : out_.append("false", 5); return;
      case Type::number: out_.append(v.number_text()); return;
      case Type::string: append_quoted(out_, v.as_string(), options_.ascii_only); return;
      case Type::raw: out_.append(v.get_raw()->bytes()); return;
      case Type::array: write_array(v.as_array(), depth); return;
      case Type::object: write_object(v.as_object(), depth); return;
    }
  }

 private:
  bool pretty() const noexcept { return options_.indent >= 0; }

  void newline(int depth) {
    if (!pretty()) return;
    out_.push_back('\n');
    out_.append(static_cast<std::size_t>(depth) * static_cast<std::size_t>(options_.indent), ' ');
  }

  void write_array(const Array& array, int depth) {
    if (array.empty()) {
      out_.append("[]", 2);
      return;
    }
    out_.push_back('[');
    bool first = true;
    for (const Value& element : array) {
      if (!first) out_.push_back(',');
      first = false;
      newline(depth + 1);
      write(element, depth + 1);
    }
    newline(depth);
    out_.push_back(']');
  }

  void write_object(const Object& object, int depth) {
    if (object.empty()) {
      out_.append("{}", 2);
      return;
    }
    out_.push_back('{');
    bool first = true;
    for (const Member& member : object) {
      if (!first) out_.push_back(',');
      first = false;
      newline(depth + 1);
      append_quoted(out_, member.key, options_.ascii_only);
      out_.push_back(':');
      if (pretty()) out_.push_back(' ');
      write(member.value, depth + 1);
    }
    newline(depth);
    out_.push_back('}');
  }

  std::string& out_;
  const DumpOptions& options_;
};

}  // namespace

namespace {

// The start of a UTF-8 sequence that begins before q in [p, q) and is not complete before q, or
// q. The bulk scan below may stop inside a character; output must not.
const char* back_to_character_start(const char* p, const char* q) noexcept {
  constexpr std::size_t kLongestSequence = 4;
  const std::size_t available = static_cast<std::size_t>(q - p);
  for (std::size_t back = 1; back < kLongestSequence && back <= available; ++back) {
    const char* lead = q - back;
    const unsigned char c = static_cast<unsigned char>(*lead);
    if (c < 0x80) break;             // ASCII: every sequence before it is complete
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: keep looking for its lead
    const std::size_t length = detail::kUtf8Leads.entries[c].length;
    return lead + static_cast<std::ptrdiff_t>(length) > q ? lead : q;
  }
  return q;
}

// The end of the longest prefix of [p, end) that can be copied as it is: well-formed UTF-8
// (ASCII only when ascii_only) without quotes, backslashes, controls or the lead byte E2 (which
// starts U+2028 and U+2029, always escaped). Sixteen bytes at a time over plain ASCII where the
// target has SSE2, else eight; the last few bytes and everything after the first awkward
// character are left to the per-character path.
const char* plain_run_end(const char* p, const char* end, bool ascii_only) noexcept {
  detail::Utf8WordValidator utf8;
  const char* q = p;
  while (end - q >= 8) {
    if constexpr (detail::kBlockScan != 0) {
      // Plain ASCII sixteen bytes at a time while no UTF-8 sequence is open; at a non-ASCII
      // byte the word step below takes over (it checks the sequence and the E2 lead).
      if (utf8.idle() && static_cast<std::size_t>(end - q) >= detail::kBlockScan) {
        const unsigned block = detail::string_stop_block(q);
        if (block == 0) {
          q += detail::kBlockScan;
          continue;
        }
        q += std::countr_zero(block);
        if (static_cast<unsigned char>(*q) < 0x80) return q;
        if (end - q < 8) break;
      }
    }
    const std::uint64_t x = detail::load_le(q);
    std::uint64_t stops = detail::swar::string_stops(x) | detail::swar::exact_equal(x, 0xE2);
    if (ascii_only) stops |= x & detail::swar::kHighs;
    if (stops == 0) {
      if (!utf8.feed(x)) return back_to_character_start(p, q);
      q += 8;
      continue;
    }
    const unsigned n = static_cast<unsigned>(std::countr_zero(stops)) / 8;
    if (!utf8.feed_last(x & detail::swar::low_bytes(n))) return back_to_character_start(p, q);
    return q + n;
  }
  return back_to_character_start(p, q);
}

// Strings up to this long are first checked whole for bytes that need a look: most strings
// written (keys, ids, names, timestamps) have none and are copied in one piece, without the
// word scan's UTF-8 bookkeeping and its byte-wise tail. Longer ones go straight to the scan.
constexpr std::size_t kShortString = 64;

// Bit 7 set in each byte of `x` that is not printable ASCII, or is a quote or a backslash.
std::uint64_t ascii_stops(std::uint64_t x) noexcept {
  return detail::swar::string_stops(x) | (x & detail::swar::kHighs);
}

// True when `s` is short and every byte is printable ASCII other than quote and backslash
// (DEL included: only C0 controls are escaped): the bytes are their own JSON text.
bool short_plain_ascii(std::string_view s) noexcept {
  const std::size_t n = s.size();
  const char* p = s.data();
  if (n > kShortString) return false;
  if (n >= 8) {
    std::uint64_t stops = ascii_stops(detail::load_le(p + n - 8));  // the last word, overlapping
    for (std::size_t i = 0; i + 8 <= n; i += 8) stops |= ascii_stops(detail::load_le(p + i));
    return stops == 0;
  }
  if (n >= 4) {
    // Two overlapping halves make one word.
    std::uint32_t low = 0, high = 0;
    std::memcpy(&low, p, 4);
    std::memcpy(&high, p + n - 4, 4);
    return ascii_stops(std::uint64_t{low} | (std::uint64_t{high} << 32)) == 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

// The general path of append_quoted, after the opening quote: copies plain runs, escapes the
// rest. Kept out of line so that the short path does not pay for its frame.
[[gnu::noinline]] void append_escaped(std::string& out, std::string_view s, bool ascii_only) {
  const char* p = s.data();
  const char* end = p + s.size();
  while (p != end) {
    const char* q = plain_run_end(p, end, ascii_only);
    out.append(p, static_cast<std::size_t>(q - p));
    if (q == end) break;
    // One character the bulk scan left: escape it, or copy it after checking it.
    const unsigned char c = static_cast<unsigned char>(*q);
    if (c == '"') {
      out.append("\\\"", 2);
      p = q + 1;
    } else if (c == '\\') {
      out.append("\\\\", 2);
      p = q + 1;
    } else if (c < 0x20) {
      append_control_escape(out, c);
      p = q + 1;
    } else if (c < 0x80) {
      // Plain ASCII the word scan could not take (a short string, or the last bytes): the run
      // up to the next byte that needs a look.
      const char* run_end = detail::find_special_string_byte(q, end);
      out.append(q, static_cast<std::size_t>(run_end - q));
      p = run_end;
    } else {
      p = q + append_non_ascii(out, q, end, ascii_only);
    }
  }
}

}  // namespace

void append_quoted(std::string& out, std::string_view s, bool ascii_only) {
  out.reserve(out.size() + s.size() + 2);
  out.push_back('"');
  if (short_plain_ascii(s)) {
    out.append(s.data(), s.size());
  } else {
    append_escaped(out, s, ascii_only);
  }
  out.push_back('"');
}

void dump_to(std::string& out, const Value& value, const DumpOptions& options) {
  Printer(out, options).write(value, 0);
}

std::string dump(const Value& value, const DumpOptions& options) {
  std::string out;
  dump_to(out, value, options);
  return out;
}

}  // namespace agentkit::json
