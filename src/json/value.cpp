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
#include <string>
#include <system_error>

#include "agentkit/json/value.hpp"
#include "object_access.hpp"
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

bool Raw::valid() const { return json::parse(bytes_).has_value(); }

Result<Value> Raw::parse() const { return json::parse(bytes_); }

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

// Inserts `position` into the open-addressed table unless an equal key is already there;
// answers the position holding the equal key, or kNotFound after inserting.
std::size_t insert_slot(std::vector<std::uint32_t>& table, const std::vector<Member>& members,
                        std::size_t position) {
  const std::string_view key = members[position].key;
  const std::size_t mask = table.size() - 1;
  for (std::size_t slot = detail::hash_key(key) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t entry = table[slot];
    if (entry == 0) {
      table[slot] = static_cast<std::uint32_t>(position + 1);
      return kNotFound;
    }
    if (members[entry - 1].key == key) return entry - 1;
  }
}

}  // namespace

std::size_t detail::ObjectAccess::adopt(Object& object, std::vector<Member>&& members) {
  object.members_ = std::move(members);
  object.index_.clear();
  if (object.members_.size() <= kIndexThreshold) return kNoDuplicate;
  object.index_.assign(index_capacity_for(object.members_.size()), 0);
  for (std::size_t i = 0; i < object.members_.size(); ++i) {
    if (insert_slot(object.index_, object.members_, i) != kNotFound) return i;
  }
  return kNoDuplicate;
}

// ---- Object --------------------------------------------------------------------------------

Object::Object() = default;
Object::Object(std::initializer_list<Member> members) {
  reserve(members.size());
  for (const Member& m : members) set(m.key, m.value);
}
Object::Object(const Object&) = default;
Object::Object(Object&&) noexcept = default;
Object& Object::operator=(const Object&) = default;
Object& Object::operator=(Object&&) noexcept = default;
Object::~Object() = default;

std::size_t Object::size() const noexcept { return members_.size(); }
bool Object::empty() const noexcept { return members_.empty(); }
Object::iterator Object::begin() noexcept { return members_.begin(); }
Object::iterator Object::end() noexcept { return members_.end(); }
Object::const_iterator Object::begin() const noexcept { return members_.begin(); }
Object::const_iterator Object::end() const noexcept { return members_.end(); }
void Object::reserve(std::size_t n) { members_.reserve(n); }

std::size_t Object::index_lookup(std::string_view key) const noexcept {
  if (index_.empty()) {
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].key == key) return i;
    }
    return kNotFound;
  }
  const std::size_t mask = index_.size() - 1;
  for (std::size_t slot = detail::hash_key(key) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t entry = index_[slot];
    if (entry == 0) return kNotFound;
    if (members_[entry - 1].key == key) return entry - 1;
  }
}

void Object::rebuild_index() {
  index_.clear();
  if (members_.size() <= detail::kIndexThreshold) return;
  index_.assign(index_capacity_for(members_.size()), 0);
  for (std::size_t i = 0; i < members_.size(); ++i) insert_slot(index_, members_, i);
}

// Called after members_[position] was appended.
void Object::index_insert(std::size_t position) {
  if (members_.size() <= detail::kIndexThreshold) return;
  if (index_.empty() || members_.size() * kIndexLoadDivisor > index_.size()) {
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

// ---- Value construction --------------------------------------------------------------------

namespace {

// Enough for any 64-bit integer and for the shortest round-trip form of any double.
constexpr std::size_t kNumberBufferSize = 32;

template <class Integer>
std::string integer_text(Integer n) {
  char buffer[kNumberBufferSize];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  assert(ec == std::errc());
  return std::string(buffer, end);
}

}  // namespace

Value::Value(int n) : v_(NumberText{integer_text(n)}) {}
Value::Value(long n) : v_(NumberText{integer_text(n)}) {}
Value::Value(long long n) : v_(NumberText{integer_text(n)}) {}
Value::Value(unsigned n) : v_(NumberText{integer_text(n)}) {}
Value::Value(unsigned long n) : v_(NumberText{integer_text(n)}) {}
Value::Value(unsigned long long n) : v_(NumberText{integer_text(n)}) {}

Value::Value(double d) {
  if (!std::isfinite(d)) return;  // JSON has no NaN or infinity: null
  char buffer[kNumberBufferSize];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  assert(ec == std::errc());
  v_ = NumberText{std::string(buffer, end)};
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
  return Value(NumberText{std::string(text)});
}

Value Value::number_unchecked(std::string text) { return Value(NumberText{std::move(text)}); }

// ---- Readers -------------------------------------------------------------------------------

std::optional<bool> Value::get_bool() const noexcept {
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  return std::nullopt;
}

std::optional<std::string_view> Value::get_string() const noexcept {
  if (const std::string* s = std::get_if<std::string>(&v_)) return std::string_view(*s);
  return std::nullopt;
}

bool Value::as_bool() const noexcept {
  assert(is_bool());
  return *std::get_if<bool>(&v_);
}
const std::string& Value::as_string() const noexcept {
  assert(is_string());
  return *std::get_if<std::string>(&v_);
}
std::string& Value::as_string() noexcept {
  assert(is_string());
  return *std::get_if<std::string>(&v_);
}
const Array& Value::as_array() const noexcept {
  assert(is_array());
  return *std::get_if<Array>(&v_);
}
Array& Value::as_array() noexcept {
  assert(is_array());
  return *std::get_if<Array>(&v_);
}
const Object& Value::as_object() const noexcept {
  assert(is_object());
  return *std::get_if<Object>(&v_);
}
Object& Value::as_object() noexcept {
  assert(is_object());
  return *std::get_if<Object>(&v_);
}
std::string_view Value::number_text() const noexcept {
  assert(is_number());
  return std::get_if<NumberText>(&v_)->text;
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
  if (is_null()) v_ = Object();
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

bool operator==(const Value& a, const Value& b) noexcept { return a.v_ == b.v_; }

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
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec == std::errc()) return out;
  // from_chars reports underflow and overflow alike. Underflow is ordinary rounding (to zero, as
  // every JSON reader does); overflow does not fit.
  const Decimal d = decompose(text);
  const bool underflow = static_cast<std::int64_t>(d.digits.size()) + d.exponent < 0;
  if (underflow) return d.negative ? -0.0 : 0.0;
  return does_not_fit(text, "a double");
}

}  // namespace agentkit::json
