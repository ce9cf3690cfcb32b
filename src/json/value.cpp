// json::Value, json::Object and json::Raw: construction, lookup, typed conversion, equality.
#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <string>
#include <system_error>

#include "agentkit/base/charconv.hpp"
#include "agentkit/json/value.hpp"
#include "dom_access.hpp"
#include "text_scan.hpp"

namespace agentkit::json {

std::string_view type_name(Type t) noexcept {
  switch (t) {
    case Type::null: return "null";
    case Type::boolean: return "boolean";
    case Type::number: return "number";
    case Type::string: return "string";
    case Type::array: return "array";
    case Type::object: return "object";
    case Type::raw: return "raw";
  }
  return "unknown";
}

// ---- Raw -----------------------------------------------------------------------------------

const std::string& Raw::str() const noexcept {
  static const std::string kEmpty;
  return bytes_ ? *bytes_ : kEmpty;
}

bool Raw::valid() const { return json::parse(bytes()).has_value(); }

Result<Value> Raw::parse() const { return json::parse(bytes()); }

// ---- The object index ----------------------------------------------------------------------

namespace detail {
namespace {

// Odd 64-bit constants with well-spread bits (the golden ratio and a Murmur3 finaliser constant).
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kMix = 0xFF51AFD7ED558CCDULL;

std::uint64_t make_seed() noexcept {
  std::uint64_t seed = kGolden;
  try {
    std::random_device device;
    seed ^= (std::uint64_t{device()} << 32) | device();
  } catch (...) {
    // No entropy source: fall back to the clock and the address space layout below.
  }
  seed ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  seed ^= reinterpret_cast<std::uintptr_t>(&seed);
  return seed | 1;
}

const std::uint64_t kSeed = make_seed();

// High and low halves of a 64×64-bit product folded together: every input bit reaches every
// output bit, which a plain multiply (low bits depend only on low bits) does not give.
inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ using u128 = unsigned __int128;
  const u128 product = static_cast<u128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
#else
  const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
  const std::uint64_t low = (cross << 32) | (lo_lo & 0xFFFFFFFFu);
  const std::uint64_t high = hi_hi + (hi_lo >> 32) + (cross >> 32);
  return low ^ high;
#endif
}

}  // namespace

std::uint64_t hash_key(std::string_view key) noexcept {
  const char* p = key.data();
  std::size_t n = key.size();
  std::uint64_t h = kSeed ^ (n * kGolden);
  while (n >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = fold_multiply(h ^ word, kMix ^ kSeed);
    p += 8;
    n -= 8;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return fold_multiply(h ^ tail, kGolden ^ kSeed);
}

}  // namespace detail

namespace {

constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);
// The table is kept at most half full, so probe sequences stay short.
constexpr std::size_t kIndexLoadDivisor = 2;
constexpr std::size_t kMinIndexCapacity = 64;

std::size_t index_capacity_for(std::size_t members) {
  return std::max(kMinIndexCapacity, std::bit_ceil(members * kIndexLoadDivisor));
}

// index[0] holds the capacity; slots follow.
std::uint32_t* allocate_index(std::size_t capacity) {
  auto* index = new std::uint32_t[capacity + 1]();
  index[0] = static_cast<std::uint32_t>(capacity);
  return index;
}

// Inserts `position` into the open-addressed table unless an equal key is already there;
// answers the position holding the equal key, or kNotFound after inserting.
std::size_t insert_slot(std::uint32_t* index, const std::vector<Member>& members, std::size_t position) {
  const std::string_view key = members[position].key;
  const std::size_t mask = index[0] - 1;
  std::uint32_t* slots = index + 1;
  for (std::size_t slot = detail::hash_key(key) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t entry = slots[slot];
    if (entry == 0) {
      slots[slot] = static_cast<std::uint32_t>(position + 1);
      return kNotFound;
    }
    if (members[entry - 1].key == key) return entry - 1;
  }
}

}  // namespace

std::size_t detail::DomAccess::index_and_check(Object& object) {
  object.index_ = allocate_index(index_capacity_for(object.members_.size()));
  for (std::size_t i = 0; i < object.members_.size(); ++i) {
    if (insert_slot(object.index_, object.members_, i) != kNotFound) return i;
  }
  return kNoDuplicate;
}

// ---- Object --------------------------------------------------------------------------------

Object::Object(std::initializer_list<Member> members) {
  reserve(members.size());
  for (const Member& m : members) set(m.key, m.value);
}
Object::Object(const Object& other) : members_(other.members_) {
  if (other.index_ != nullptr) {
    const std::size_t capacity = other.index_[0];
    index_ = allocate_index(capacity);
    std::memcpy(index_ + 1, other.index_ + 1, capacity * sizeof(std::uint32_t));
  }
}
Object& Object::operator=(const Object& other) {
  if (this != &other) *this = Object(other);
  return *this;
}
Object::iterator Object::begin() noexcept { return members_.begin(); }
Object::iterator Object::end() noexcept { return members_.end(); }
Object::const_iterator Object::begin() const noexcept { return members_.begin(); }
Object::const_iterator Object::end() const noexcept { return members_.end(); }
void Object::reserve(std::size_t n) { members_.reserve(n); }

std::size_t Object::index_lookup(std::string_view key) const noexcept {
  if (index_ == nullptr) {
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].key == key) return i;
    }
    return kNotFound;
  }
  const std::size_t mask = index_[0] - 1;
  const std::uint32_t* slots = index_ + 1;
  for (std::size_t slot = detail::hash_key(key) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t entry = slots[slot];
    if (entry == 0) return kNotFound;
    if (members_[entry - 1].key == key) return entry - 1;
  }
}

void Object::rebuild_index() {
  free_index();
  if (members_.size() <= detail::kIndexThreshold) return;
  index_ = allocate_index(index_capacity_for(members_.size()));
  for (std::size_t i = 0; i < members_.size(); ++i) insert_slot(index_, members_, i);
}

// Called after members_[position] was appended.
void Object::index_insert(std::size_t position) {
  if (members_.size() <= detail::kIndexThreshold) return;
  if (index_ == nullptr || members_.size() * kIndexLoadDivisor > index_[0]) {
    rebuild_index();
    return;
  }
  insert_slot(index_, members_, position);
}

const Value* Object::find(std::string_view key) const noexcept {
  const std::size_t i = index_lookup(key);
  return i == kNotFound ? nullptr : &members_[i].value;
}

Value* Object::find(std::string_view key) noexcept {
  const std::size_t i = index_lookup(key);
  return i == kNotFound ? nullptr : &members_[i].value;
}

Value& Object::operator[](std::string_view key) {
  if (Value* existing = find(key)) return *existing;
  return append_unique(std::string(key), Value());
}

Value& Object::set(std::string key, Value value) {
  if (Value* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  return append_unique(std::move(key), std::move(value));
}

bool Object::erase(std::string_view key) {
  const std::size_t i = index_lookup(key);
  if (i == kNotFound) return false;
  members_.erase(members_.begin() + static_cast<std::ptrdiff_t>(i));
  rebuild_index();  // positions after i moved down by one
  return true;
}

Value& Object::append_unique(std::string key, Value value) {
  members_.push_back(Member{std::move(key), std::move(value)});
  index_insert(members_.size() - 1);
  return members_.back().value;
}

bool operator==(const Object& a, const Object& b) { return a.members_ == b.members_; }

// ---- Value: lifetime --------------------------------------------------------------------

Value::Value(const Value& other) : type_(other.type_), number_size_(other.number_size_) {
  switch (other.type_) {
    case Type::null: break;
    case Type::boolean: storage_.boolean = other.storage_.boolean; break;
    case Type::number:
      if (number_size_ == kLongNumber) {
        ::new (&storage_.number_long) std::string(other.storage_.number_long);
      } else {
        std::memcpy(storage_.number_inline, other.storage_.number_inline, number_size_);
      }
      break;
    case Type::string: ::new (&storage_.string) std::string(other.storage_.string); break;
    case Type::array: ::new (&storage_.array) Array(other.storage_.array); break;
    case Type::object: ::new (&storage_.object) Object(other.storage_.object); break;
    case Type::raw: ::new (&storage_.raw) Raw(other.storage_.raw); break;
  }
}

Value& Value::operator=(const Value& other) {
  if (this != &other) *this = Value(other);
  return *this;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this == &other) return *this;
  if (!owns_memory()) {
    move_from(other);
    return *this;
  }
  Value keep(std::move(other));  // `other` may be part of what destroy() frees
  destroy();
  take(keep);
  return *this;
}

void Value::destroy() noexcept {
  switch (type_) {
    case Type::number: storage_.number_long.~basic_string(); break;
    case Type::string: storage_.string.~basic_string(); break;
    case Type::array: storage_.array.~vector(); break;
    case Type::object: storage_.object.~Object(); break;
    case Type::raw: storage_.raw.~Raw(); break;
    default: break;
  }
  type_ = Type::null;
  number_size_ = 0;
}

void Value::take(Value& other) noexcept {
  switch (other.type_) {
    case Type::null: break;
    case Type::boolean: storage_.boolean = other.storage_.boolean; break;
    case Type::number:
      if (other.number_size_ == kLongNumber) {
        ::new (&storage_.number_long) std::string(std::move(other.storage_.number_long));
        other.storage_.number_long.~basic_string();
      } else {
        std::memcpy(storage_.number_inline, other.storage_.number_inline, other.number_size_);
      }
      break;
    case Type::string:
      ::new (&storage_.string) std::string(std::move(other.storage_.string));
      other.storage_.string.~basic_string();
      break;
    case Type::array:
      ::new (&storage_.array) Array(std::move(other.storage_.array));
      other.storage_.array.~vector();
      break;
    case Type::object:
      ::new (&storage_.object) Object(std::move(other.storage_.object));
      other.storage_.object.~Object();
      break;
    case Type::raw:
      ::new (&storage_.raw) Raw(std::move(other.storage_.raw));
      other.storage_.raw.~Raw();
      break;
  }
  type_ = other.type_;
  number_size_ = other.number_size_;
  other.type_ = Type::null;
  other.number_size_ = 0;
}

void Value::set_number_text(std::string_view text) {
  if (text.size() <= kInlineNumber) {
    std::memcpy(storage_.number_inline, text.data(), text.size());
    number_size_ = static_cast<std::uint8_t>(text.size());
  } else {
    ::new (&storage_.number_long) std::string(text);
    number_size_ = kLongNumber;
  }
  type_ = Type::number;
}

// ---- Value construction --------------------------------------------------------------------

namespace {

// Enough for any 64-bit integer and for the shortest round-trip form of any double.
constexpr std::size_t kNumberBufferSize = 32;

}  // namespace

template <class Integer>
static void set_integer_text(Value& v, Integer n) {
  char buffer[kNumberBufferSize];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  assert(ec == std::errc());
  detail::DomAccess::set_number(v, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

Value::Value(int n) { set_integer_text(*this, n); }
Value::Value(long n) { set_integer_text(*this, n); }
Value::Value(long long n) { set_integer_text(*this, n); }
Value::Value(unsigned n) { set_integer_text(*this, n); }
Value::Value(unsigned long n) { set_integer_text(*this, n); }
Value::Value(unsigned long long n) { set_integer_text(*this, n); }

Value::Value(double d) {
  if (!std::isfinite(d)) return;  // JSON has no NaN or infinity: null
  char buffer[kNumberBufferSize];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  assert(ec == std::errc());
  set_number_text(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

Result<Value> Value::number(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const detail::NumberScan scan = detail::scan_number(begin, end);
  if (scan.reason != nullptr || scan.end != end) {
    const char* where = scan.reason != nullptr ? scan.where : scan.end;
    return fail(Errc::invalid_argument,
                "'" + std::string(text) + "' is not a JSON number: " +
                    (scan.reason != nullptr ? scan.reason : "unexpected characters after the number"))
        .with_detail("offset", std::to_string(where - begin));
  }
  Value v;
  v.set_number_text(text);
  return v;
}

Value Value::number_unchecked(std::string text) {
  Value v;
  v.set_number_text(text);
  return v;
}

// ---- Readers -------------------------------------------------------------------------------

std::optional<bool> Value::get_bool() const noexcept {
  if (is_bool()) return storage_.boolean;
  return std::nullopt;
}

std::optional<std::string_view> Value::get_string() const noexcept {
  if (is_string()) return std::string_view(storage_.string);
  return std::nullopt;
}

bool Value::as_bool() const noexcept {
  assert(is_bool());
  return storage_.boolean;
}
const std::string& Value::as_string() const noexcept {
  assert(is_string());
  return storage_.string;
}
std::string& Value::as_string() noexcept {
  assert(is_string());
  return storage_.string;
}
const Array& Value::as_array() const noexcept {
  assert(is_array());
  return storage_.array;
}
Array& Value::as_array() noexcept {
  assert(is_array());
  return storage_.array;
}
const Object& Value::as_object() const noexcept {
  assert(is_object());
  return storage_.object;
}
Object& Value::as_object() noexcept {
  assert(is_object());
  return storage_.object;
}
std::string_view Value::number_text() const noexcept {
  assert(is_number());
  if (number_size_ == kLongNumber) return storage_.number_long;
  return std::string_view(storage_.number_inline, number_size_);
}

const Value* Value::find(std::string_view key) const noexcept {
  const Object* o = get_object();
  return o ? o->find(key) : nullptr;
}
Value* Value::find(std::string_view key) noexcept {
  Object* o = get_object();
  return o ? o->find(key) : nullptr;
}
Value& Value::operator[](std::string_view key) {
  assert(is_null() || is_object());
  if (is_null()) *this = Object();
  return as_object()[key];
}
const Value& Value::operator[](std::size_t i) const noexcept {
  assert(is_array() && i < as_array().size());
  return as_array()[i];
}
Value& Value::operator[](std::size_t i) noexcept {
  assert(is_array() && i < as_array().size());
  return as_array()[i];
}
std::size_t Value::size() const noexcept {
  if (const Array* a = get_array()) return a->size();
  if (const Object* o = get_object()) return o->size();
  return 0;
}

bool operator==(const Value& a, const Value& b) noexcept {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::null: return true;
    case Type::boolean: return a.storage_.boolean == b.storage_.boolean;
    case Type::number: return a.number_text() == b.number_text();
    case Type::string: return a.storage_.string == b.storage_.string;
    case Type::array: return a.storage_.array == b.storage_.array;
    case Type::object: return a.storage_.object == b.storage_.object;
    case Type::raw: return a.storage_.raw == b.storage_.raw;
  }
  return false;
}

// ---- Numeric conversions -------------------------------------------------------------------

namespace {

// A number literal taken apart: value = (negative ? -1 : 1) × digits × 10^exponent, with
// `digits` free of leading and trailing zeros (empty for zero).
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;
};

// Exponents are clamped here: anything this far out is over- or underflow for every type we
// convert to, and clamping keeps the arithmetic below free of overflow.
constexpr std::int64_t kExponentClamp = 1'000'000'000;

Decimal decompose(std::string_view text) {
  Decimal d;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::int64_t fraction_digits = 0;
  bool in_fraction = false;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      in_fraction = true;
      continue;
    }
    if (in_fraction) ++fraction_digits;
    if (d.digits.empty() && text[i] == '0') continue;  // leading zero
    d.digits.push_back(text[i]);
  }
  std::int64_t exponent = 0;
  if (i < text.size()) {
    ++i;  // 'e' or 'E'
    bool exponent_negative = false;
    if (text[i] == '+' || text[i] == '-') exponent_negative = text[i++] == '-';
    for (; i < text.size(); ++i) {
      exponent = std::min(exponent * 10 + (text[i] - '0'), kExponentClamp);
    }
    if (exponent_negative) exponent = -exponent;
  }
  d.exponent = exponent - fraction_digits;
  // Leading zeros of the fraction were skipped above without adjusting the exponent, which
  // is right: 0.05 = 5 × 10^-2 with fraction_digits = 2.
  while (!d.digits.empty() && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exponent;
  }
  return d;
}

Error not_a_number(Type t, std::string_view wanted) {
  return make_error(Errc::invalid_argument,
                    "cannot read a " + std::string(type_name(t)) + " as " + std::string(wanted) +
                        "; the value is not a number")
      .with_detail("type", std::string(type_name(t)));
}

Error does_not_fit(std::string_view text, std::string_view wanted) {
  return make_error(Errc::limit_exceeded, "the number " + std::string(text) + " does not fit in " +
                                              std::string(wanted))
      .with_detail("number", std::string(text));
}

// Reads an integer type exactly: plain integer literals go straight to from_chars; literals
// with a fraction or exponent are accepted when they denote a whole number in range.
template <class Integer>
Result<Integer> to_integer(std::string_view text, std::string_view wanted) {
  Integer out{};
  const char* begin = text.data();
  const char* end = begin + text.size();
  const bool plain = text.find_first_of(".eE") == std::string_view::npos;
  if (plain) {
    const auto [ptr, ec] = std::from_chars(begin, end, out);
    if (ec == std::errc() && ptr == end) return out;
    return does_not_fit(text, wanted);  // the grammar was checked on the way in: only range fails
  }
  const Decimal d = decompose(text);
  if (d.digits.empty()) return Integer{0};
  if (d.exponent < 0) {
    return make_error(Errc::invalid_argument,
                      "the number " + std::string(text) + " is not a whole number, so it cannot be read as " +
                          std::string(wanted))
        .with_detail("number", std::string(text));
  }
  // Beyond this many digits no 64-bit integer fits; checked before building the text.
  constexpr std::int64_t kMaxDigits = std::numeric_limits<std::uint64_t>::digits10 + 1;
  if (static_cast<std::int64_t>(d.digits.size()) + d.exponent > kMaxDigits) {
    return does_not_fit(text, wanted);
  }
  std::string whole = (d.negative ? "-" : "") + d.digits + std::string(static_cast<std::size_t>(d.exponent), '0');
  const auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), out);
  if (ec == std::errc() && ptr == whole.data() + whole.size()) return out;
  return does_not_fit(text, wanted);
}

}  // namespace

Result<std::int64_t> Value::to_int64() const {
  if (!is_number()) return not_a_number(type(), "a 64-bit integer");
  return to_integer<std::int64_t>(number_text(), "a signed 64-bit integer");
}

Result<std::uint64_t> Value::to_uint64() const {
  if (!is_number()) return not_a_number(type(), "an unsigned 64-bit integer");
  const std::string_view text = number_text();
  // from_chars for unsigned types rejects a sign, but "-0" and "-0.0" are zero and fit.
  if (!text.empty() && text.front() == '-') {
    if (decompose(text).digits.empty()) return std::uint64_t{0};
    return does_not_fit(text, "an unsigned 64-bit integer");
  }
  return to_integer<std::uint64_t>(text, "an unsigned 64-bit integer");
}

Result<double> Value::to_double() const {
  if (!is_number()) return not_a_number(type(), "a double");
  const std::string_view text = number_text();
  double out = 0;
  const auto [ptr, ec] = agentkit::from_chars(text.data(), text.data() + text.size(), out);
  if (ec == std::errc()) return out;
  // from_chars reports underflow and overflow alike. Underflow is ordinary rounding (to zero, as
  // every JSON reader does); overflow does not fit.
  const Decimal d = decompose(text);
  const bool underflow = static_cast<std::int64_t>(d.digits.size()) + d.exponent < 0;
  if (underflow) return d.negative ? -0.0 : 0.0;
  return does_not_fit(text, "a double");
}

}  // namespace agentkit::json
