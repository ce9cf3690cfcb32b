// agentkit/json/value.hpp — an ordered JSON value that keeps numbers exactly as written.
//
//   using namespace agentkit;
//   json::Value doc = json::parse(R"({"b":1.0,"a":[true,null,"x"]})").value();
//   const json::Value* b = doc.find("b");          // nullptr when absent; a null Value when null
//   assert(b && b->number_text() == "1.0");        // never laundered into 1
//   assert(json::dump(doc) == R"({"b":1.0,"a":[true,null,"x"]})");  // member order kept
//
//   json::Value msg = json::Object{{"role", "user"}, {"n", 3}};
//   msg["content"] = json::Array{"hi"};
//   std::int64_t n = msg.find("n")->to_int64().value();
//
// Objects keep insertion order and stay fast to search when large (an index is built past a
// small size). Numbers keep their literal text, so a round trip never turns `1.0` into `1` or
// `10000000000000000001` into a float; the typed readers (`to_int64`, `to_uint64`, `to_double`)
// convert on demand with std::from_chars and report overflow instead of wrapping.
// `null` and absent are different: `find` answers nullptr only for an absent member.
//
// Thread safety: a plain value. Concurrent const access is safe; mutation needs exclusive access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::json {

enum class Type : std::uint8_t { null, boolean, number, string, array, object, raw };

// Short lowercase name of a type ("object"), for error messages.
std::string_view type_name(Type t) noexcept;

class Value;
struct Member;
namespace detail {
struct DomAccess;  // the parser's way to build values in place (src/json)
}  // namespace detail

using Array = std::vector<Value>;

// Bytes that must travel unchanged, such as tool-call arguments exactly as a model produced
// them. A Raw may hold text that is not (yet) valid JSON, e.g. a half-streamed argument string;
// `valid()` says whether it parses. Placed inside a Value (Type::raw) it is dumped verbatim, which
// is how an encoder replays arguments byte for byte inside a larger request.
// The bytes are immutable and shared: copying a Raw (a message into a snapshot, an event, a
// cache) copies a pointer, never the bytes, and two copies compare equal without reading them.
class Raw {
 public:
  Raw() = default;
  explicit Raw(std::string bytes)
      : bytes_(bytes.empty() ? nullptr : std::make_shared<const std::string>(std::move(bytes))) {}
  // Shares bytes another owner keeps (a cache's encoded tool schema): neither copied nor
  // allocated. Null or empty bytes make an empty Raw.
  explicit Raw(std::shared_ptr<const std::string> bytes) noexcept
      : bytes_(bytes && !bytes->empty() ? std::move(bytes) : nullptr) {}

  std::string_view bytes() const noexcept {
    return bytes_ ? std::string_view(*bytes_) : std::string_view();
  }
  const std::string& str() const noexcept;
  bool empty() const noexcept { return bytes_ == nullptr; }
  // True when the bytes are exactly one JSON document (surrounding whitespace allowed).
  bool valid() const;
  // Parses the bytes (with json::parse's default options).
  Result<Value> parse() const;

  friend bool operator==(const Raw& a, const Raw& b) noexcept {
    return a.bytes_ == b.bytes_ || a.bytes() == b.bytes();
  }

 private:
  std::shared_ptr<const std::string> bytes_;  // null when empty
};

// An object: members in insertion order, unique keys, fast lookup at any size.
class Object {
 public:
  using iterator = std::vector<Member>::iterator;
  using const_iterator = std::vector<Member>::const_iterator;

  Object();
  Object(std::initializer_list<Member> members);  // a later duplicate key replaces the earlier
  Object(const Object&);
  Object(Object&&) noexcept;
  Object& operator=(const Object&);
  Object& operator=(Object&&) noexcept;
  ~Object();

  std::size_t size() const noexcept;
  bool empty() const noexcept;
  iterator begin() noexcept;
  iterator end() noexcept;
  const_iterator begin() const noexcept;
  const_iterator end() const noexcept;
  void reserve(std::size_t n);

  // The member's value, or nullptr when the key is absent.
  const Value* find(std::string_view key) const noexcept;
  Value* find(std::string_view key) noexcept;
  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  // The member's value, appending a null member at the end when absent.
  Value& operator[](std::string_view key);
  // Replaces the value in place when the key exists (its position is kept), else appends.
  Value& set(std::string key, Value value);
  // Removes the member if present, keeping the order of the rest. Answers whether it existed.
  bool erase(std::string_view key);
  // Removes every member `pred(const Member&)` answers true for, keeping the order of the rest,
  // in one pass: erase() reindexes a large object once per key. Answers how many went.
  template <class Pred>
  std::size_t erase_if(Pred pred);
  // Appends a member without looking for an existing one. Precondition: the key is not present
  // (the parser checks duplicates itself). Breaking it makes lookups answer either member.
  Value& append_unique(std::string key, Value value);

  friend bool operator==(const Object& a, const Object& b);

 private:
  friend struct detail::DomAccess;
  void rebuild_index();
  void index_insert(std::size_t position);
  std::size_t index_lookup(std::string_view key) const noexcept;
  void free_index() noexcept;

  std::vector<Member> members_;
  // Open-addressed table of member positions + 1 (0 = empty) in index_[1..capacity], with the
  // capacity (a power of two) in index_[0]. Built once the object is large enough that a linear
  // scan loses; null below that size. One pointer keeps an Object, and so a Value, small.
  std::uint32_t* index_ = nullptr;
};

class Value {
 public:
  // Construction. A Value is null by default.
  Value() noexcept {}
  Value(std::nullptr_t) noexcept {}             // NOLINT: implicit by design
  Value(bool b) noexcept : type_(Type::boolean) { storage_.boolean = b; }  // NOLINT
  Value(int n);                                 // NOLINT
  Value(long n);                                // NOLINT
  Value(long long n);                           // NOLINT
  Value(unsigned n);                            // NOLINT
  Value(unsigned long n);                       // NOLINT
  Value(unsigned long long n);                  // NOLINT
  // The shortest text that reads back as the same double. NaN and infinities become null,
  // as JSON cannot carry them.
  Value(double d);                              // NOLINT
  Value(const char* s) : Value(std::string(s)) {}  // NOLINT
  Value(std::string_view s) : Value(std::string(s)) {}  // NOLINT
  Value(std::string s) noexcept : type_(Type::string) {  // NOLINT
    ::new (&storage_.string) std::string(std::move(s));
  }
  Value(Array a) noexcept : type_(Type::array) { ::new (&storage_.array) Array(std::move(a)); }  // NOLINT
  Value(Object o) noexcept : type_(Type::object) { ::new (&storage_.object) Object(std::move(o)); }  // NOLINT
  Value(Raw r) noexcept : type_(Type::raw) { ::new (&storage_.raw) Raw(std::move(r)); }  // NOLINT

  Value(const Value& other);
  // A moved-from Value is null.
  Value(Value&& other) noexcept { move_from(other); }
  Value& operator=(const Value& other);
  // Safe when `other` lives inside this value (v = std::move(v["child"])).
  Value& operator=(Value&& other) noexcept;
  ~Value() {
    if (owns_memory()) destroy();
  }

  // A number from its literal text, kept exactly. Fails unless `text` is an RFC 8259 number.
  static Result<Value> number(std::string_view text);
  // Same, for text already known to be a valid number literal (the parser's path).
  static Value number_unchecked(std::string text);

  Type type() const noexcept { return type_; }
  bool is_null() const noexcept { return type_ == Type::null; }
  bool is_bool() const noexcept { return type_ == Type::boolean; }
  bool is_number() const noexcept { return type_ == Type::number; }
  bool is_string() const noexcept { return type_ == Type::string; }
  bool is_array() const noexcept { return type_ == Type::array; }
  bool is_object() const noexcept { return type_ == Type::object; }
  bool is_raw() const noexcept { return type_ == Type::raw; }

  // Soft readers: nullptr / nullopt when the type differs.
  std::optional<bool> get_bool() const noexcept;
  std::optional<std::string_view> get_string() const noexcept;
  const Array* get_array() const noexcept { return is_array() ? &storage_.array : nullptr; }
  Array* get_array() noexcept { return is_array() ? &storage_.array : nullptr; }
  const Object* get_object() const noexcept { return is_object() ? &storage_.object : nullptr; }
  Object* get_object() noexcept { return is_object() ? &storage_.object : nullptr; }
  const Raw* get_raw() const noexcept { return is_raw() ? &storage_.raw : nullptr; }

  // Asserting readers. Precondition: the type matches (checked by assert in debug builds).
  bool as_bool() const noexcept;
  const std::string& as_string() const noexcept;
  std::string& as_string() noexcept;
  const Array& as_array() const noexcept;
  Array& as_array() noexcept;
  const Object& as_object() const noexcept;
  Object& as_object() noexcept;
  // The number's literal text. Precondition: is_number().
  std::string_view number_text() const noexcept;

  // Numeric conversions. They fail (Errc::invalid_argument) when the value is not a number,
  // and (Errc::limit_exceeded) when it does not fit: never wrap, never truncate silently.
  // to_int64/to_uint64 accept an integral literal written with a fraction or exponent ("3.0",
  // "1e3") when its value is a whole number that fits.
  Result<std::int64_t> to_int64() const;
  Result<std::uint64_t> to_uint64() const;
  Result<double> to_double() const;

  // Object conveniences. find answers nullptr when this is not an object or the key is absent.
  const Value* find(std::string_view key) const noexcept;
  Value* find(std::string_view key) noexcept;
  // Turns a null into an empty object first. Precondition: is_null() || is_object().
  Value& operator[](std::string_view key);
  // Array convenience. Precondition: is_array() && i < size.
  const Value& operator[](std::size_t i) const noexcept;
  Value& operator[](std::size_t i) noexcept;
  // Elements of an array or members of an object; 0 for scalars.
  std::size_t size() const noexcept;

  // Structural equality. Numbers are equal when their literal text is identical ("1.0" != "1");
  // objects compare member by member in order.
  friend bool operator==(const Value& a, const Value& b) noexcept;

 private:
  friend struct detail::DomAccess;

  // Number literals up to this long live inside the Value (ids, 17-digit doubles); longer ones
  // in a std::string. Equal to the largest other member, so it costs no space.
  static constexpr std::size_t kInlineNumber = sizeof(std::string);
  static constexpr std::uint8_t kLongNumber = 0xFF;  // number_size_ when the text is a std::string

  union Storage {
    Storage() noexcept {}
    ~Storage() {}
    bool boolean;
    char number_inline[kInlineNumber];
    std::string number_long;
    std::string string;
    Array array;
    Object object;
    Raw raw;
  };

  // Scalars other than long numbers own nothing: destroying or overwriting them is free.
  bool owns_memory() const noexcept {
    return type_ > Type::number || (type_ == Type::number && number_size_ == kLongNumber);
  }
  void destroy() noexcept;                 // precondition: owns_memory()
  void take(Value& other) noexcept;        // precondition: *this owns nothing; leaves other null
  // take(), with the common cases (scalars, strings, arrays) inline: the parser moves every
  // value once, from its stack into the container built for it.
  void move_from(Value& other) noexcept {
    if (!other.owns_memory()) {
      take_scalar(other);
    } else if (other.type_ == Type::string) {
      ::new (&storage_.string) std::string(std::move(other.storage_.string));
      other.storage_.string.~basic_string();
      type_ = Type::string;
      other.type_ = Type::null;
    } else if (other.type_ == Type::array) {
      ::new (&storage_.array) Array(std::move(other.storage_.array));
      other.storage_.array.~vector();
      type_ = Type::array;
      other.type_ = Type::null;
    } else {
      take(other);
    }
  }
  // take() for a source that owns nothing: a fixed-size copy (the bytes of an inline number
  // past its length are copied too, which is harmless and cheaper than a variable-length copy).
  void take_scalar(Value& other) noexcept {
    std::memcpy(storage_.number_inline, other.storage_.number_inline, kInlineNumber);
    type_ = other.type_;
    number_size_ = other.number_size_;
    other.type_ = Type::null;
  }
  void set_number_text(std::string_view text);

  Storage storage_;
  Type type_ = Type::null;
  std::uint8_t number_size_ = 0;  // inline literal length, or kLongNumber
};

struct Member {
  std::string key;
  Value value;
  friend bool operator==(const Member&, const Member&) = default;
};

// Object's lifetime and size, defined here (once Member is complete) so they inline: the parser
// makes and moves an Object for every JSON object it reads.
inline Object::Object() = default;
inline Object::Object(Object&& other) noexcept
    : members_(std::move(other.members_)), index_(std::exchange(other.index_, nullptr)) {}
inline Object& Object::operator=(Object&& other) noexcept {
  if (this != &other) {
    free_index();
    members_ = std::move(other.members_);
    index_ = std::exchange(other.index_, nullptr);
  }
  return *this;
}
inline Object::~Object() { free_index(); }
inline void Object::free_index() noexcept {
  delete[] index_;
  index_ = nullptr;
}
inline std::size_t Object::size() const noexcept { return members_.size(); }
template <class Pred>
std::size_t Object::erase_if(Pred pred) {
  const std::size_t removed =
      std::erase_if(members_, [&pred](const Member& m) { return static_cast<bool>(pred(m)); });
  if (removed > 0) rebuild_index();  // positions moved down
  return removed;
}
inline bool Object::empty() const noexcept { return members_.empty(); }

// ---- Parsing and printing ------------------------------------------------------------------

// Bounds and strictness for json::parse. The defaults suit trusted text (our own files);
// bytes from a peer go through agentkit::wire::decode, which applies the untrusted bounds.
struct ParseOptions {
  // Larger input is refused before anything is parsed.
  std::size_t max_bytes = std::size_t(1) << 30;
  // Deeper nesting is refused (the parser never recurses past it).
  std::size_t max_depth = 512;
  // Arrays with more elements or objects with more members are refused before they grow.
  std::size_t max_container = std::size_t(1) << 26;
  // A repeated key in one object is an error; RFC 8259 leaves it undefined, and "last one
  // wins" lets a smuggled member shadow a checked one.
  bool reject_duplicate_keys = true;
  // Members json::parse checks but does not build: each is read as null. Each entry is a JSON
  // Pointer (RFC 6901, "~0" and "~1" decoded) that names object members only, such as
  // "/response/output" for {"response":{"output":[...]}}. A skipped value is checked for syntax,
  // UTF-8 and depth as any other; duplicate keys and container sizes inside it are not checked,
  // since nothing of it is kept. The views must outlive the call. parse_flat ignores this.
  std::span<const std::string_view> skip_members = {};
};

// Parses exactly one RFC 8259 document (whitespace around it allowed). Invalid UTF-8, lone
// surrogate escapes, trailing commas, comments, leading zeros, NaN and trailing bytes are all
// errors. Errors: Errc::parse_error with details "offset" (byte) and "reason";
// Errc::limit_exceeded naming the limit ("limit", "max") when a bound is crossed.
Result<Value> parse(std::string_view text, const ParseOptions& options = {});

// One member of an object read by parse_flat. Both views are valid only during the visit:
// `key` and, for a string, `text` hold the decoded bytes; a number's `text` is its literal, a
// boolean's or null's the word, an empty container's "[]" or "{}".
struct FlatMember {
  std::string_view key;
  Type type = Type::null;
  std::string_view text;
};

// Reads `text` as one object whose members are all scalars or empty containers (the shape of
// most streamed events) without building a tree: nothing is allocated per member. Once the
// whole document is checked, `visit` sees each member in order, and the answer is true. The
// answer is false, with nothing visited, when the document is not such an object (a member
// holds a non-empty container, the top level is not an object, or it has more than 32
// members): parse it whole then. Errors are exactly json::parse's for the same bytes and
// options. With reject_duplicate_keys off, a repeated key is visited each time (json::parse
// keeps the last).
Result<bool> parse_flat(std::string_view text, const ParseOptions& options,
                        const std::function<void(const FlatMember&)>& visit);

struct DumpOptions {
  // Spaces per nesting level; negative means compact (no whitespace at all).
  int indent = -1;
  // Escape every non-ASCII character as \uXXXX (surrogate pairs above the BMP).
  bool ascii_only = false;
};

// Deterministic output: member order preserved, numbers as written, the minimal escapes
// (quote, backslash, control characters; "\u2028"/"\u2029" escaped so the text is also safe
// inside JavaScript). Raw values are emitted verbatim.
std::string dump(const Value& value, const DumpOptions& options = {});
void dump_to(std::string& out, const Value& value, const DumpOptions& options = {});
// Appends `s` as a quoted, escaped JSON string.
void append_quoted(std::string& out, std::string_view s, bool ascii_only = false);

}  // namespace agentkit::json
