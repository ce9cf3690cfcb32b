// json::parse: an iterative RFC 8259 parser. It never recurses (depth is bounded by
// ParseOptions::max_depth and held in an explicit stack), keeps number literals as text, checks
// UTF-8 and duplicate keys as it reads, and allocates each container once, exactly sized, when
// it closes: children wait on reusable stacks until then.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "agentkit/base/utf8.hpp"
#include "agentkit/json/value.hpp"
#include "dom_access.hpp"
#include "parse_scratch.hpp"
#include "text_scan.hpp"

namespace agentkit::json {
namespace {

// A \uXXXX escape is six bytes; a surrogate pair is two of them.
constexpr std::size_t kUnicodeEscapeLength = 6;
using detail::kHighSurrogateFirst, detail::kLowSurrogateFirst, detail::kSurrogateEnd;

struct Frame {
  bool is_object;
  std::size_t first;        // index of this container's first pending value in Scratch::values
  std::size_t first_key;    // for an object, index of its first pending key in Scratch::keys
  std::size_t offset;       // byte offset of the opening bracket, for messages
  // One bit per (length, first byte, last byte) class of the keys read so far: a new key whose
  // bit is clear cannot repeat one, so most keys of a small object skip the linear comparison.
  std::uint64_t key_classes[4];
};

constexpr unsigned kKeyClasses = 256;  // = the bits of Frame::key_classes

unsigned key_class(std::string_view key) noexcept {
  unsigned h = static_cast<unsigned>(key.size()) * 31u;
  if (!key.empty()) h += static_cast<unsigned char>(key.front()) * 7u + static_cast<unsigned char>(key.back()) * 3u;
  return h % kKeyClasses;
}

// Hex digit values; kNotHex marks every other byte, and survives OR-ing four lookups together.
constexpr std::uint8_t kNotHex = 0x80;
struct HexTable {
  std::uint8_t values[256];
  constexpr HexTable() : values{} {
    for (int c = 0; c < 256; ++c) {
      values[c] = c >= '0' && c <= '9'   ? static_cast<std::uint8_t>(c - '0')
                  : c >= 'a' && c <= 'f' ? static_cast<std::uint8_t>(c - 'a' + 10)
                  : c >= 'A' && c <= 'F' ? static_cast<std::uint8_t>(c - 'A' + 10)
                                         : kNotHex;
    }
  }
};
constexpr HexTable kHexValues{};

// An object key read but not yet stored in its object. The key is copied once, into the Member
// built when the object closes; until then it is a view of the input or, when it had escapes,
// of Scratch::key_bytes (by offset, as that buffer moves when it grows).
struct PendingKey {
  const char* data;    // nullptr when the key lives in key_bytes
  std::size_t offset;  // into key_bytes, when data is nullptr
  std::size_t size;
};

// A member read by parse_flat: key and text as views of the input, or of Scratch::flat_bytes
// (by offset) when they were decoded from escapes.
struct FlatSlot {
  PendingKey key;
  Type type;
  PendingKey text;
};

// A path of ParseOptions::skip_members, read once per parse: how many members deep it names and
// its last segment, so that a member is refused on a comparison or two.
struct SkipPath {
  std::size_t depth;        // its segments; 0 for a pointer without the leading '/'
  std::string_view last;    // its last segment
  std::string_view parent;  // the pointer without its last segment
  bool escaped;             // `last` holds a '~': it names a key shorter than itself
};

// More members than this and parse_flat answers "not flat": duplicates are checked linearly
// here, and json::parse checks objects above kIndexThreshold members differently.
constexpr std::size_t kFlatMembers = 32;
static_assert(kFlatMembers <= detail::kIndexThreshold);

// The parser's stacks, kept between calls (in ScratchPool) so a parse does not regrow them (each
// regrowth is a large allocation and a copy). Emptied after every parse; released when a parse
// left them larger than kRetainedScratchBytes, so one huge document does not pin its memory.
struct Scratch {
  std::vector<Frame> frames;
  std::vector<Value> values;      // pending children of every open container, innermost last
  std::vector<PendingKey> keys;   // pending keys of every open object, innermost last
  std::string key_bytes;          // decoded text of the pending keys that had escapes
  std::string unescaped;          // strings with escapes are decoded here (size = capacity in use)
  std::vector<FlatSlot> flat;     // parse_flat's members
  std::string flat_bytes;         // parse_flat's decoded keys and strings
  std::vector<SkipPath> skips;    // ParseOptions::skip_members, read once per parse

  void reset() {
    constexpr std::size_t kRetainedScratchBytes = std::size_t(1) << 20;
    values.clear();
    keys.clear();
    key_bytes.clear();
    frames.clear();
    flat.clear();
    flat_bytes.clear();
    skips.clear();
    const std::size_t held = values.capacity() * sizeof(Value) +
                             keys.capacity() * sizeof(PendingKey) +
                             frames.capacity() * sizeof(Frame) + key_bytes.capacity() +
                             unescaped.capacity() + flat_bytes.capacity();
    if (held > kRetainedScratchBytes) *this = Scratch();
  }
};

// Scratches shared by every thread, not one per thread: a process that runs a thousand sessions
// on a thousand blocked threads parses on a few of them at a time, and a per-thread scratch
// (about 7 KB once warm) was 7 MB of such a process's memory. A parse takes a scratch out of a
// slot and puts it back into any empty one, so a warm scratch moves between threads and a
// parse allocates no more than before. When every slot is empty (more parses at once than
// slots) a parse makes a new scratch, and one returned to full slots is freed. The slots are
// never destroyed, so a parse during static destruction still finds them (a scratch left in a
// slot at exit is reachable from it, not leaked).
class ScratchPool {
 public:
  Scratch* take() {
    for (std::atomic<Scratch*>& slot : slots_) {
      if (slot.load(std::memory_order_relaxed) == nullptr) continue;
      if (Scratch* s = slot.exchange(nullptr, std::memory_order_acquire)) return s;
    }
    return new Scratch;
  }

  void give_back(Scratch* scratch) {
    for (std::atomic<Scratch*>& slot : slots_) {
      Scratch* empty = nullptr;
      if (slot.load(std::memory_order_relaxed) == nullptr &&
          slot.compare_exchange_strong(empty, scratch, std::memory_order_release,
                                       std::memory_order_relaxed))
        return;
    }
    delete scratch;
  }

  void drop_all() noexcept {
    for (std::atomic<Scratch*>& slot : slots_)
      delete slot.exchange(nullptr, std::memory_order_acquire);
  }

 private:
  static constexpr std::size_t kSlots = 16;  // parses at once before one allocates its scratch
  std::atomic<Scratch*> slots_[kSlots] = {};
};

// Constant-initialised and trivially destructible: there is no order of construction or
// destruction to get wrong.
constinit ScratchPool scratch_pool;
static_assert(std::is_trivially_destructible_v<ScratchPool>);

// A scratch out of the pool for one parse, emptied and returned when the parse ends.
class PooledScratch {
 public:
  PooledScratch() : scratch_(scratch_pool.take()) {}
  ~PooledScratch() {
    scratch_->reset();
    scratch_pool.give_back(scratch_);
  }
  PooledScratch(const PooledScratch&) = delete;
  PooledScratch& operator=(const PooledScratch&) = delete;
  Scratch& operator*() const { return *scratch_; }

 private:
  Scratch* scratch_;
};

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options, Scratch& scratch)
      : begin_(text.data()),
        p_(text.data()),
        end_(text.data() + text.size()),
        options_(options),
        frames_(scratch.frames),
        values_(scratch.values),
        keys_(scratch.keys),
        key_bytes_(scratch.key_bytes),
        unescaped_(scratch.unescaped),
        skips_(scratch.skips) {
    for (const std::string_view pointer : options.skip_members) {
      const std::size_t slash = pointer.rfind('/');
      const bool rooted = !pointer.empty() && pointer.front() == '/';
      const std::string_view last = rooted ? pointer.substr(slash + 1) : std::string_view();
      skips_.push_back(SkipPath{
          rooted ? static_cast<std::size_t>(std::count(pointer.begin(), pointer.end(), '/')) : 0,
          last, rooted ? pointer.substr(0, slash) : std::string_view(),
          last.find('~') != std::string_view::npos});
    }
  }

  Result<Value> run();
  // parse_flat's reading into `slots`: an error, true for a flat object read whole, or false as
  // soon as the document is seen not to be one.
  Result<bool> run_flat(std::vector<FlatSlot>& slots, std::string& bytes);

 private:
  // Each step answers false after recording the error in error_.
  bool parse_scalar(Value& slot);
  // The common string, short, ASCII and free of escapes, without a call; else scan_string_long.
  // Short is up to 15 bytes where a block is sixteen (most keys of the vendors' events: "item_id",
  // "output_index", "sequence_number"), else up to 7.
  AGENTKIT_JSON_HOT_INLINE bool scan_string(std::string_view& out) {
    const char* start = p_ + 1;
    if constexpr (detail::kBlockScan != 0) {
      if (static_cast<std::size_t>(end_ - start) >= detail::kBlockScan) {
        // Every byte before the first stop is plain ASCII; 32 when the block has no stop.
        const auto n = static_cast<unsigned>(std::countr_zero(detail::string_stop_block(start)));
        if (n < detail::kBlockScan && start[n] == '"') {
          out = std::string_view(start, n);
          p_ = start + n + 1;
          return true;
        }
        return scan_string_long(out);
      }
    }
    if (end_ - start >= 8) {
      const std::uint64_t x = detail::load_le(start);
      const std::uint64_t stops = detail::swar::string_stops(x);
      const unsigned n = static_cast<unsigned>(std::countr_zero(stops)) / 8;  // 8: no stop
      const bool ascii = (x & detail::swar::low_bytes(n & 7) & detail::swar::kHighs) == 0;
      if (n < 8 && start[n] == '"' && ascii) {
        out = std::string_view(start, n);
        p_ = start + n + 1;
        return true;
      }
    }
    return scan_string_long(out);
  }
  bool scan_string_long(std::string_view& out);
  bool string_stop(std::string_view& out, const char* start, const char* q);
  bool scan_string_escapes(std::string_view& out, const char* run_start);
  char* decode_escape(char* out);
  char* decode_unicode_escape(char* out, const char* escape_start);
  char* grow_unescaped(char* w, std::size_t extra);
  bool utf8_error(const char* start, const char* limit);
  bool parse_hex4(char32_t& out);
  bool parse_number(Value& slot);
  bool parse_literal(std::string_view word);
  bool flat_value(FlatSlot& slot, std::string& bytes, bool& nested);
  PendingKey keep(std::string_view text, std::string& bytes) const;

  bool open_container();
  bool begin_member();
  bool skip_if_named(std::string_view key);
  bool skipped_member(std::string_view key) const;
  bool skip_value();
  bool skip_key();
  bool begin_element();
  bool close_container();
  bool build_object(Value& slot, const Frame& frame);
  std::string_view key_text(const PendingKey& key) const noexcept {
    if (key.data != nullptr) return std::string_view(key.data, key.size);
    return std::string_view(key_bytes_.data() + key.offset, key.size);
  }
  // Where the value being read goes: the pending child of the innermost open container, or the
  // root. Always null when a value is about to be read into it.
  Value& current_slot() noexcept { return frames_.empty() ? root_ : values_.back(); }

  // One comparison for the common case, a byte above the space character. Forced inline: with
  // the skipping reader's calls besides the parser's, GCC 12 made it a call everywhere.
  AGENTKIT_JSON_HOT_INLINE void skip_whitespace() noexcept {
    while (p_ != end_ && static_cast<unsigned char>(*p_) <= ' ' &&
           (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool syntax_error(const char* at, std::string reason);
  bool limit_error(const char* at, std::string_view limit, std::size_t max, std::string what);
  std::string describe_here(const char* at) const;

  const char* begin_;
  const char* p_;
  const char* end_;
  const ParseOptions& options_;
  // begin_member read the member's value itself (ParseOptions::skip_members): it stays null.
  bool skipped_ = false;
  Value root_;
  std::vector<Frame>& frames_;
  std::vector<Value>& values_;
  std::vector<PendingKey>& keys_;
  std::string& key_bytes_;
  std::string& unescaped_;
  std::vector<SkipPath>& skips_;
  std::optional<Error> error_;
};

std::string Parser::describe_here(const char* at) const {
  if (at >= end_) return "the end of the input";
  const unsigned char c = static_cast<unsigned char>(*at);
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xF];
}

bool Parser::syntax_error(const char* at, std::string reason) {
  const std::size_t offset = static_cast<std::size_t>(at - begin_);
  error_ = make_error(Errc::parse_error, "invalid JSON at byte " + std::to_string(offset) + " (" +
                                             describe_here(at) + "): " + reason)
               .with_detail("offset", std::to_string(offset))
               .with_detail("reason", std::move(reason));
  return false;
}

bool Parser::limit_error(const char* at, std::string_view limit, std::size_t max, std::string what) {
  const std::size_t offset = static_cast<std::size_t>(at - begin_);
  error_ = make_error(Errc::limit_exceeded,
                      what + " at byte " + std::to_string(offset) + " exceeds the limit " +
                          std::string(limit) + " = " + std::to_string(max) +
                          "; raise ParseOptions::" + std::string(limit) + " if the input is trusted")
               .with_detail("limit", std::string(limit))
               .with_detail("max", std::to_string(max))
               .with_detail("offset", std::to_string(offset));
  return false;
}

// `word` is "true", "false" or "null": compared as fixed-size words, not byte by byte.
bool Parser::parse_literal(std::string_view word) {
  const std::size_t n = word.size();
  bool match = static_cast<std::size_t>(end_ - p_) >= n;
  if (match) {
    std::uint32_t have, want;
    std::memcpy(&have, p_ + n - 4, 4);  // the last four bytes ("alse" for false)
    std::memcpy(&want, word.data() + n - 4, 4);
    match = have == want && (n == 4 || *p_ == word.front());
  }
  if (!match) return syntax_error(p_, "expected a value");
  p_ += n;
  return true;
}

bool Parser::parse_number(Value& slot) {
  const detail::NumberScan scan = detail::scan_number(p_, end_);
  if (scan.reason != nullptr) return syntax_error(scan.where, scan.reason);
  const std::string_view literal(p_, static_cast<std::size_t>(scan.end - p_));
  detail::DomAccess::set_number_within(slot, literal, end_);
  p_ = scan.end;
  return true;
}

bool Parser::parse_hex4(char32_t& out) {
  // p_ points just past "\u".
  if (end_ - p_ < 4) return syntax_error(p_, "expected four hex digits after \\u");
  auto digit = [&](int i) { return kHexValues.values[static_cast<unsigned char>(p_[i])]; };
  const std::uint8_t d0 = digit(0), d1 = digit(1), d2 = digit(2), d3 = digit(3);
  if (((d0 | d1 | d2 | d3) & kNotHex) != 0) {
    int bad = 0;
    while (digit(bad) != kNotHex) ++bad;
    return syntax_error(p_ + bad, "expected four hex digits after \\u");
  }
  out = (char32_t{d0} << 12) | (char32_t{d1} << 8) | (char32_t{d2} << 4) | char32_t{d3};
  p_ += 4;
  return true;
}

// p_ points at the backslash; writes the decoded character at `out` and answers the end of
// what it wrote, or nullptr after recording an error. At most 4 bytes are written (a surrogate
// pair), never more than the escape's own length.
char* Parser::decode_escape(char* out) {
  const char* escape_start = p_;
  if (end_ - p_ < 2) return syntax_error(p_ + 1, "unterminated escape sequence"), nullptr;
  const char kind = p_[1];
  p_ += 2;
  char simple;
  switch (kind) {
    case '"': simple = '"'; break;
    case '\\': simple = '\\'; break;
    case '/': simple = '/'; break;
    case 'b': simple = '\b'; break;
    case 'f': simple = '\f'; break;
    case 'n': simple = '\n'; break;
    case 'r': simple = '\r'; break;
    case 't': simple = '\t'; break;
    case 'u': return decode_unicode_escape(out, escape_start);
    default: return syntax_error(escape_start, "unknown escape sequence"), nullptr;
  }
  *out = simple;
  return out + 1;
}

// After "\u" (escape_start at the backslash): one code point, or a surrogate pair.
char* Parser::decode_unicode_escape(char* out, const char* escape_start) {
  char32_t cp = 0;
  if (!parse_hex4(cp)) return nullptr;
  if (cp >= kLowSurrogateFirst && cp < kSurrogateEnd) {
    return syntax_error(escape_start, "a low surrogate escape without a high surrogate before it"), nullptr;
  }
  if (cp >= kHighSurrogateFirst && cp < kLowSurrogateFirst) {
    // A high surrogate must be followed at once by an escaped low surrogate: lone surrogates
    // cannot be written as UTF-8, and passing them on would hand peers invalid text.
    if (end_ - p_ < static_cast<std::ptrdiff_t>(kUnicodeEscapeLength) || p_[0] != '\\' || p_[1] != 'u') {
      return syntax_error(escape_start, "a high surrogate escape without a low surrogate after it"), nullptr;
    }
    p_ += 2;
    char32_t low = 0;
    if (!parse_hex4(low)) return nullptr;
    if (low < kLowSurrogateFirst || low >= kSurrogateEnd) {
      return syntax_error(escape_start, "a high surrogate escape without a low surrogate after it"), nullptr;
    }
    cp = 0x10000 + ((cp - kHighSurrogateFirst) << 10) + (low - kLowSurrogateFirst);
  }
  return utf8::encode_unchecked(cp, out);  // lone surrogates were refused above
}

// p_ points at the opening quote. Plain ASCII is skipped sixteen bytes at a time where the target
// allows (detail::kBlockScan); the rest is read eight bytes at a time, each word searched for a
// stop (quote, backslash, control byte) and validated as UTF-8 in the same pass. The common
// string has no escape: `out` then views the input; otherwise it views the decoded copy in
// unescaped_.
bool Parser::scan_string_long(std::string_view& out) {
  const char* start = ++p_;
  const char* q = start;
  detail::Utf8WordValidator utf8;
  for (;;) {
    if constexpr (detail::kBlockScan != 0) {
      while (utf8.idle() && static_cast<std::size_t>(end_ - q) >= detail::kBlockScan) {
        const unsigned stops = detail::string_stop_block(q);
        if (stops == 0) {
          q += detail::kBlockScan;
          continue;
        }
        q += std::countr_zero(stops);
        if (static_cast<unsigned char>(*q) < 0x80) return string_stop(out, start, q);
        break;  // a non-ASCII byte: the word step below validates its sequence
      }
    }
    const std::size_t avail = static_cast<std::size_t>(end_ - q);
    const std::uint64_t x = avail >= 8 ? detail::load_le(q) : detail::load_le_padded(q, avail);
    const std::uint64_t stops = detail::swar::string_stops(x);
    if (stops == 0) {
      if (!utf8.feed(x)) return utf8_error(start, q + 8);
      if (avail <= 8) return syntax_error(end_, "unterminated string");
      q += 8;
      continue;
    }
    const unsigned n = static_cast<unsigned>(std::countr_zero(stops)) / 8;
    if (!utf8.feed_last(x & detail::swar::low_bytes(n))) return utf8_error(start, q + n);
    return string_stop(out, start, q + n);
  }
}

// q is at the first stop byte of a string that began at `start`, everything before it plain and
// valid: the closing quote, the first backslash, or a control byte (an error).
bool Parser::string_stop(std::string_view& out, const char* start, const char* q) {
  if (*q == '"') {
    out = std::string_view(start, static_cast<std::size_t>(q - start));
    p_ = q + 1;
    return true;
  }
  if (*q == '\\') {
    p_ = q;
    return scan_string_escapes(out, start);
  }
  return syntax_error(q, "a control character must be escaped inside a string");
}

// Records the error for ill-formed UTF-8 somewhere in [start, limit), at its exact byte.
bool Parser::utf8_error(const char* start, const char* limit) {
  const char* stop = limit < end_ ? limit : end_;
  const char* bad = detail::first_invalid_utf8(start, stop);
  // A sequence cut short by the stop byte (or by the end of a word's look-ahead) is reported
  // where it begins.
  return syntax_error(bad == stop ? stop - 1 : bad, "invalid UTF-8");
}

// Free space kept ahead of the write pointer in unescaped_: a block, then a word after a block's
// partial advance, plus the longest decoded escape.
constexpr std::size_t kUnescapeSlack = 16 + 8 + 4;

// Makes room for `extra` more bytes after w (plus the slack); answers w in the new buffer.
char* Parser::grow_unescaped(char* w, std::size_t extra) {
  const std::size_t used = w == nullptr ? 0 : static_cast<std::size_t>(w - unescaped_.data());
  const std::size_t need = used + extra + kUnescapeSlack;
  if (unescaped_.size() < need) unescaped_.resize(std::max(need, 2 * unescaped_.size()));
  return unescaped_.data() + used;
}

// The slow path, from the first backslash (the text before it is valid and complete UTF-8).
// Decoded text is written through a pointer into unescaped_: each word of plain text is stored
// whole before it is searched, so a run between escapes costs one store per eight bytes.
bool Parser::scan_string_escapes(std::string_view& out, const char* run_start) {
  const std::size_t prefix = static_cast<std::size_t>(p_ - run_start);
  char* w = grow_unescaped(nullptr, prefix);
  std::memcpy(w, run_start, prefix);
  w += prefix;
  char* limit = unescaped_.data() + unescaped_.size() - kUnescapeSlack;
  detail::Utf8WordValidator utf8;
  const char* q = p_;  // at the backslash
  for (;;) {
    if (q == end_) return syntax_error(end_, "unterminated string");
    if (w > limit) {
      w = grow_unescaped(w, 0);
      limit = unescaped_.data() + unescaped_.size() - kUnescapeSlack;
    }
    if (*q == '\\') {
      p_ = q;
      w = decode_escape(w);
      if (w == nullptr) return false;
      q = p_;
      continue;
    }
    if constexpr (detail::kBlockScan != 0) {
      if (utf8.idle() && static_cast<std::size_t>(end_ - q) >= detail::kBlockScan) {
        std::memcpy(w, q, detail::kBlockScan);  // stored whole, as the words below are
        const unsigned stops = detail::string_stop_block(q);
        if (stops == 0) {
          q += detail::kBlockScan;
          w += detail::kBlockScan;
          continue;
        }
        const unsigned n = static_cast<unsigned>(std::countr_zero(stops));
        q += n;
        w += n;
        if (*q == '"') {
          p_ = q + 1;
          out =
              std::string_view(unescaped_.data(), static_cast<std::size_t>(w - unescaped_.data()));
          return true;
        }
        if (*q == '\\') continue;
        if (static_cast<unsigned char>(*q) < 0x80) {
          return syntax_error(q, "a control character must be escaped inside a string");
        }
        // A non-ASCII byte: the word step below validates its sequence (the slack covers a word
        // after this partial advance).
      }
    }
    const std::size_t avail = static_cast<std::size_t>(end_ - q);
    const std::uint64_t x = avail >= 8 ? detail::load_le(q) : detail::load_le_padded(q, avail);
    std::memcpy(w, q, avail >= 8 ? 8 : avail);
    const std::uint64_t stops = detail::swar::string_stops(x);
    if (stops == 0) {
      if (!utf8.feed(x)) return utf8_error(run_start, q + 8);
      if (avail <= 8) return syntax_error(end_, "unterminated string");
      q += 8;
      w += 8;
      continue;
    }
    const unsigned n = static_cast<unsigned>(std::countr_zero(stops)) / 8;
    if (!utf8.feed_last(x & detail::swar::low_bytes(n))) return utf8_error(run_start, q + n);
    q += n;
    w += n;
    if (*q == '"') {
      p_ = q + 1;
      out = std::string_view(unescaped_.data(), static_cast<std::size_t>(w - unescaped_.data()));
      return true;
    }
    if (*q != '\\') return syntax_error(q, "a control character must be escaped inside a string");
  }
}

// p_ is at a value that is not a container; `slot` is null.
bool Parser::parse_scalar(Value& slot) {
  switch (*p_) {
    case '"': {
      std::string_view text;
      if (!scan_string(text)) return false;
      detail::DomAccess::set_string(slot, text.data(), text.size());
      return true;
    }
    case 't':
      detail::DomAccess::set_bool(slot, true);
      return parse_literal("true");
    case 'f':
      detail::DomAccess::set_bool(slot, false);
      return parse_literal("false");
    case 'n':
      return parse_literal("null");
    default:
      if (*p_ == '-' || detail::is_digit(*p_)) return parse_number(slot);
      return syntax_error(p_, "expected a value");
  }
}

// p_ points at '{' or '['. An empty container goes straight into the current slot; otherwise a
// frame is pushed and the slot for its first child is made.
bool Parser::open_container() {
  // Depth is checked before the frame is pushed: the frame stack never outgrows max_depth.
  if (frames_.size() >= options_.max_depth) {
    return limit_error(p_, "max_depth", options_.max_depth, "nesting deeper than the limit");
  }
  const bool is_object = *p_ == '{';
  const char* bracket = p_++;
  skip_whitespace();
  if (p_ != end_ && *p_ == (is_object ? '}' : ']')) {
    ++p_;
    if (is_object) {
      detail::DomAccess::set_object(current_slot(), Object());
    } else {
      detail::DomAccess::set_array(current_slot(), Array());
    }
    return true;
  }
  frames_.push_back(Frame{is_object, values_.size(), keys_.size(),
                          static_cast<std::size_t>(bracket - begin_), {}});
  return is_object ? begin_member() : begin_element();
}

// p_ points at a member's opening quote (whitespace skipped). Reads `"key" :` and leaves p_ at
// the value, with the member pending on the stack.
bool Parser::begin_member() {
  Frame& frame = frames_.back();
  if (p_ == end_ || *p_ != '"') return syntax_error(p_, "expected a string key");
  const std::size_t count = values_.size() - frame.first;
  // Checked before the member stack grows for it.
  if (count >= options_.max_container) {
    return limit_error(p_, "max_container", options_.max_container, "an object with more members than the limit");
  }
  const char* key_start = p_;
  std::string_view key;
  if (!scan_string(key)) return false;
  // Small objects are checked here, with the key's position at hand; larger ones are checked
  // through the hash index when they close (linear checking would be quadratic).
  if (options_.reject_duplicate_keys && count < detail::kIndexThreshold) {
    const unsigned cls = key_class(key);
    std::uint64_t& word = frame.key_classes[cls / 64];
    const std::uint64_t bit = std::uint64_t{1} << (cls % 64);
    if ((word & bit) != 0) {
      for (std::size_t i = frame.first_key; i < keys_.size(); ++i) {
        if (key_text(keys_[i]) == key) {
          return syntax_error(key_start, "duplicate key \"" + std::string(key) + "\" in the object opened at byte " +
                                             std::to_string(frame.offset));
        }
      }
    }
    word |= bit;
  }
  if (key.data() == unescaped_.data()) {  // decoded from escapes: unescaped_ is reused
    keys_.push_back(PendingKey{nullptr, key_bytes_.size(), key.size()});
    key_bytes_.append(key);
  } else {
    keys_.push_back(PendingKey{key.data(), 0, key.size()});
  }
  values_.emplace_back();
  skip_whitespace();
  if (p_ == end_ || *p_ != ':') return syntax_error(p_, "expected ':' after an object key");
  ++p_;
  skip_whitespace();
  if (!options_.skip_members.empty()) [[unlikely]]
    return skip_if_named(key);
  return true;
}

// Out of line: begin_member runs for every member of every parse and stays as small as it was.
[[gnu::noinline]] bool Parser::skip_if_named(std::string_view key) {
  if (!skipped_member(key)) return true;
  if (!skip_value()) return false;
  skipped_ = true;
  return true;
}

// Whether a JSON Pointer segment (RFC 6901: "~0" is '~', "~1" is '/') names `key`. An escape
// makes a segment longer than the key it names, so most segments are refused on their size.
bool segment_names(std::string_view segment, std::string_view key) noexcept {
  if (segment.size() < key.size()) return false;
  if (segment.size() == key.size()) {
    return segment == key && segment.find('~') == std::string_view::npos;
  }
  std::size_t k = 0;
  for (std::size_t i = 0; i < segment.size(); ++i) {
    char c = segment[i];
    if (c == '~' && i + 1 < segment.size() && (segment[i + 1] == '0' || segment[i + 1] == '1')) {
      c = segment[++i] == '0' ? '~' : '/';
    }
    if (k == key.size() || key[k++] != c) return false;
  }
  return k == key.size();
}

// Whether the member named `key` of the innermost open object is at one of the skipped paths:
// as deep, with the same last segment, and then (rarely reached) every open container an object
// and the keys leading to it the pointer's other segments.
bool Parser::skipped_member(std::string_view key) const {
  const std::size_t depth = frames_.size();
  for (const SkipPath& path : skips_) {
    if (path.depth != depth || (!path.escaped && path.last.size() != key.size()) ||
        !segment_names(path.last, key))
      continue;
    std::string_view rest = path.parent;
    bool match = frames_.back().is_object;
    for (std::size_t level = depth - 1; match && level-- > 0;) {
      const std::size_t slash = rest.rfind('/');
      // The key under which an open container sits is its parent's latest pending key.
      match =
          frames_[level].is_object &&
          segment_names(rest.substr(slash + 1), key_text(keys_[frames_[level + 1].first_key - 1]));
      rest = rest.substr(0, slash);
    }
    if (match) return true;
  }
  return false;
}

// p_ is at a skipped member's value (whitespace skipped). Reads it with json::parse's grammar,
// messages and depth limit, and builds nothing: strings are scanned (escapes and UTF-8 checked)
// but not kept. A container inside pushes a frame, so the depth is counted as parse counts it.
bool Parser::skip_value() {
  const std::size_t base = frames_.size();
  for (;;) {
    if (p_ == end_) return syntax_error(p_, "expected a value");
    const char c = *p_;
    if (c == '{' || c == '[') {
      if (frames_.size() >= options_.max_depth) {
        return limit_error(p_, "max_depth", options_.max_depth, "nesting deeper than the limit");
      }
      const char* bracket = p_++;
      skip_whitespace();
      if (p_ != end_ && *p_ == (c == '{' ? '}' : ']')) {
        ++p_;
      } else {
        frames_.push_back(Frame{c == '{',
                                values_.size(),
                                keys_.size(),
                                static_cast<std::size_t>(bracket - begin_),
                                {}});
        if (c == '{' && !skip_key()) return false;
        continue;
      }
    } else if (c == '"') {
      std::string_view text;
      if (!scan_string(text)) return false;
    } else if (c == 't' || c == 'f' || c == 'n') {
      if (!parse_literal(c == 't' ? "true" : c == 'f' ? "false" : "null")) return false;
    } else if (c == '-' || detail::is_digit(c)) {
      const detail::NumberScan scan = detail::scan_number(p_, end_);
      if (scan.reason != nullptr) return syntax_error(scan.where, scan.reason);
      p_ = scan.end;
    } else {
      return syntax_error(p_, "expected a value");
    }
    // After a value, as in run(): the next one, or the close of the innermost container.
    for (;;) {
      if (frames_.size() == base) return true;
      const bool is_object = frames_.back().is_object;
      skip_whitespace();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        skip_whitespace();
        if (is_object && !skip_key()) return false;
        break;
      }
      if (p_ != end_ && *p_ == (is_object ? '}' : ']')) {
        ++p_;
        frames_.pop_back();
        continue;
      }
      return syntax_error(p_, is_object ? "expected ',' or '}' after an object member"
                                        : "expected ',' or ']' after an array element");
    }
  }
}

// p_ is at a member of an object inside a skipped value: reads `"key" :` and leaves p_ at the
// value.
bool Parser::skip_key() {
  if (p_ == end_ || *p_ != '"') return syntax_error(p_, "expected a string key");
  std::string_view key;
  if (!scan_string(key)) return false;
  skip_whitespace();
  if (p_ == end_ || *p_ != ':') return syntax_error(p_, "expected ':' after an object key");
  ++p_;
  skip_whitespace();
  return true;
}

bool Parser::begin_element() {
  const Frame& frame = frames_.back();
  // Checked before the element stack grows for it.
  if (values_.size() - frame.first >= options_.max_container) {
    return limit_error(p_, "max_container", options_.max_container, "an array with more elements than the limit");
  }
  values_.emplace_back();
  return true;
}

// Builds the innermost container from its pending children, each container allocated once at
// its exact size, and stores it in its parent's slot (p_ is past the closing bracket).
bool Parser::close_container() {
  const Frame frame = frames_.back();
  frames_.pop_back();
  // The parent's pending child sits just below this container's children.
  Value& slot = frames_.empty() ? root_ : values_[frame.first - 1];
  const auto first = values_.begin() + static_cast<std::ptrdiff_t>(frame.first);
  if (!frame.is_object) {
    Array array;
    array.reserve(static_cast<std::size_t>(values_.end() - first));
    for (auto it = first; it != values_.end(); ++it) {
      detail::DomAccess::move_into(array.emplace_back(), *it);
    }
    detail::DomAccess::set_array(slot, std::move(array));
  } else if (!build_object(slot, frame)) {
    return false;
  }
  values_.erase(first, values_.end());
  return true;
}

// Moves the object's pending keys and values into Members of an exactly sized vector, copying
// each key once, and checks the duplicates of a large object through its new index.
bool Parser::build_object(Value& slot, const Frame& frame) {
  const std::size_t count = values_.size() - frame.first;
  Value* values = values_.data() + frame.first;
  const PendingKey* keys = keys_.data() + frame.first_key;
  std::vector<Member>& members = detail::DomAccess::start_object(slot);
  if (!options_.reject_duplicate_keys) {
    // Duplicates allowed: the last one wins (at the first one's position), as most readers do.
    Object& object = *slot.get_object();
    object.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      object.set(std::string(key_text(keys[i])), std::move(values[i]));
    }
  } else {
    members.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      Member& member = members.emplace_back();
      const std::string_view key = key_text(keys[i]);
      member.key.assign(key.data(), key.size());
      detail::DomAccess::move_into(member.value, values[i]);
    }
  }
  keys_.resize(frame.first_key);
  if (frame.first_key == 0) key_bytes_.clear();  // no open object holds a key there any more
  if (!options_.reject_duplicate_keys) return true;
  const std::size_t duplicate = detail::DomAccess::finish_object(*slot.get_object());
  if (duplicate != detail::DomAccess::kNoDuplicate) {
    return syntax_error(begin_ + frame.offset, "duplicate key \"" + members[duplicate].key + "\" in the object opened here");
  }
  return true;
}

Result<Value> Parser::run() {
  skip_whitespace();
  for (;;) {
    // Read one value into the current slot: a scalar, an empty container, or the opening of a
    // container (then loop to read its first child into the slot made for it).
    if (skipped_) {
      skipped_ = false;  // begin_member read it (ParseOptions::skip_members): the slot stays null
    } else if (p_ == end_) {
      syntax_error(p_, frames_.empty() ? "the input is empty" : "expected a value");
      return std::move(*error_);
    } else if (*p_ == '{' || *p_ == '[') {
      const std::size_t depth = frames_.size();
      if (!open_container()) return std::move(*error_);
      if (frames_.size() > depth) continue;
    } else if (!parse_scalar(current_slot())) {
      return std::move(*error_);
    }

    // After a value: a comma opens the next child's slot; a closing bracket completes the
    // container, which is then a value for its parent.
    for (;;) {
      if (frames_.empty()) {
        skip_whitespace();
        if (p_ != end_) {
          syntax_error(p_, "unexpected data after the JSON value");
          return std::move(*error_);
        }
        return std::move(root_);
      }
      const bool is_object = frames_.back().is_object;
      skip_whitespace();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        skip_whitespace();
        if (!(is_object ? begin_member() : begin_element())) return std::move(*error_);
        break;
      }
      if (p_ != end_ && *p_ == (is_object ? '}' : ']')) {
        ++p_;
        if (!close_container()) return std::move(*error_);
        continue;
      }
      syntax_error(p_, is_object ? "expected ',' or '}' after an object member"
                                 : "expected ',' or ']' after an array element");
      return std::move(*error_);
    }
  }
}

// ---- parse_flat -----------------------------------------------------------------------------
// The same reading as run() for one object of scalar members, in the same order and with the
// same messages, so that every error it reports is the one json::parse reports first.

// A view of the input stays one; text decoded into unescaped_ (reused by the next string) is
// copied to `bytes` and held by offset.
PendingKey Parser::keep(std::string_view text, std::string& bytes) const {
  if (text.data() != unescaped_.data() || text.empty())
    return PendingKey{text.data(), 0, text.size()};
  PendingKey kept{nullptr, bytes.size(), text.size()};
  bytes.append(text);
  return kept;
}

// p_ is at a member's value (whitespace skipped). Reads a scalar or an empty container into
// `slot`; sets `nested` instead for a container with something in it.
bool Parser::flat_value(FlatSlot& slot, std::string& bytes, bool& nested) {
  if (p_ == end_) return syntax_error(p_, "expected a value");
  const char* start = p_;
  switch (*p_) {
    case '"': {
      std::string_view text;
      if (!scan_string(text)) return false;
      slot.type = Type::string;
      slot.text = keep(text, bytes);
      return true;
    }
    case '{':
    case '[': {
      // json::parse checks the depth before it looks inside, empty or not.
      if (options_.max_depth <= 1) {
        return limit_error(p_, "max_depth", options_.max_depth, "nesting deeper than the limit");
      }
      const bool is_object = *p_ == '{';
      ++p_;
      skip_whitespace();
      if (p_ == end_ || *p_ != (is_object ? '}' : ']')) {
        nested = true;
        return true;
      }
      ++p_;
      slot.type = is_object ? Type::object : Type::array;
      slot.text = PendingKey{is_object ? "{}" : "[]", 0, 2};
      return true;
    }
    case 't':
      slot.type = Type::boolean;
      if (!parse_literal("true")) return false;
      break;
    case 'f':
      slot.type = Type::boolean;
      if (!parse_literal("false")) return false;
      break;
    case 'n':
      slot.type = Type::null;
      if (!parse_literal("null")) return false;
      break;
    default: {
      if (*p_ != '-' && !detail::is_digit(*p_)) return syntax_error(p_, "expected a value");
      const detail::NumberScan scan = detail::scan_number(p_, end_);
      if (scan.reason != nullptr) return syntax_error(scan.where, scan.reason);
      slot.type = Type::number;
      p_ = scan.end;
      break;
    }
  }
  slot.text = PendingKey{start, 0, static_cast<std::size_t>(p_ - start)};
  return true;
}

Result<bool> Parser::run_flat(std::vector<FlatSlot>& slots, std::string& bytes) {
  auto failed = [&] { return Result<bool>(std::move(*error_)); };
  skip_whitespace();
  if (p_ == end_) return (syntax_error(p_, "the input is empty"), failed());
  if (*p_ != '{') return false;
  if (options_.max_depth == 0) {
    return (limit_error(p_, "max_depth", options_.max_depth, "nesting deeper than the limit"),
            failed());
  }
  const std::size_t opened_at = static_cast<std::size_t>(p_ - begin_);
  std::uint64_t key_classes[kKeyClasses / 64] = {};
  ++p_;
  skip_whitespace();
  bool closed = p_ != end_ && *p_ == '}';
  if (closed) ++p_;
  while (!closed) {
    if (p_ == end_ || *p_ != '"') return (syntax_error(p_, "expected a string key"), failed());
    if (slots.size() >= options_.max_container) {
      return (limit_error(p_, "max_container", options_.max_container,
                          "an object with more members than the limit"),
              failed());
    }
    if (slots.size() >= kFlatMembers) return false;
    const char* key_start = p_;
    std::string_view key;
    if (!scan_string(key)) return failed();
    // As begin_member: a key whose class no earlier key had cannot repeat one, so most keys of
    // an event skip the comparisons.
    const unsigned cls = key_class(key);
    const std::uint64_t bit = std::uint64_t{1} << (cls % 64);
    const bool maybe_seen = (key_classes[cls / 64] & bit) != 0;
    key_classes[cls / 64] |= bit;
    if (options_.reject_duplicate_keys && maybe_seen) {
      for (const FlatSlot& other : slots) {
        const PendingKey& k = other.key;
        const std::string_view seen = k.data != nullptr
                                          ? std::string_view(k.data, k.size)
                                          : std::string_view(bytes.data() + k.offset, k.size);
        if (seen == key) {
          return (syntax_error(key_start, "duplicate key \"" + std::string(key) +
                                              "\" in the object opened at byte " +
                                              std::to_string(opened_at)),
                  failed());
        }
      }
    }
    FlatSlot& slot = slots.emplace_back(FlatSlot{keep(key, bytes), Type::null, {}});
    skip_whitespace();
    if (p_ == end_ || *p_ != ':')
      return (syntax_error(p_, "expected ':' after an object key"), failed());
    ++p_;
    skip_whitespace();
    bool nested = false;
    if (!flat_value(slot, bytes, nested)) return failed();
    if (nested) return false;
    skip_whitespace();
    if (p_ != end_ && *p_ == ',') {
      ++p_;
      skip_whitespace();
      continue;
    }
    if (p_ == end_ || *p_ != '}')
      return (syntax_error(p_, "expected ',' or '}' after an object member"), failed());
    ++p_;
    closed = true;
  }
  skip_whitespace();
  if (p_ != end_) return (syntax_error(p_, "unexpected data after the JSON value"), failed());
  return true;
}

}  // namespace

namespace detail {
void drop_pooled_scratch() noexcept { scratch_pool.drop_all(); }
}  // namespace detail

namespace {

// Out of line: its temporaries would otherwise take room in parse's frame, which is on the
// deepest path of a session's stack (an event's JSON is parsed under the SSE reader).
[[gnu::cold, gnu::noinline]] Error too_large(std::size_t size, std::size_t max) {
  return make_error(Errc::limit_exceeded,
                    "JSON input of " + std::to_string(size) +
                        " bytes exceeds the limit max_bytes = " + std::to_string(max) +
                        "; raise ParseOptions::max_bytes if the input is trusted")
      .with_detail("limit", "max_bytes")
      .with_detail("max", std::to_string(max))
      .with_detail("size", std::to_string(size));
}

}  // namespace

Result<Value> parse(std::string_view text, const ParseOptions& options) {
  // Checked before anything is read or allocated.
  if (text.size() > options.max_bytes) return too_large(text.size(), options.max_bytes);
  PooledScratch scratch;
  return Parser(text, options, *scratch).run();
}

Result<bool> parse_flat(std::string_view text, const ParseOptions& options,
                        const std::function<void(const FlatMember&)>& visit) {
  if (text.size() > options.max_bytes) return parse(text, options).error();  // the same refusal
  // The scratch stays this parse's while the members are visited, so a visitor that parses
  // again takes another one.
  PooledScratch pooled;
  Scratch& scratch = *pooled;
  Result<bool> flat = Parser(text, options, scratch).run_flat(scratch.flat, scratch.flat_bytes);
  if (flat && *flat) {
    auto view = [&](const PendingKey& k) {
      return k.data != nullptr ? std::string_view(k.data, k.size)
                               : std::string_view(scratch.flat_bytes.data() + k.offset, k.size);
    };
    for (const FlatSlot& slot : scratch.flat)
      visit(FlatMember{view(slot.key), slot.type, view(slot.text)});
  }
  return flat;
}

}  // namespace agentkit::json
