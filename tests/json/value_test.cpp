// json::Value, json::Object, json::Raw: construction, lookup, order, typed conversion, equality.
#include <cmath>
#include <limits>
#include <string>

#include "agentkit/json/value.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using json::Value;

namespace {
Value num(std::string_view text) { return Value::number(text).value(); }
}  // namespace

TEST_CASE("null and absent are different answers from find") {
  const Value doc = json::parse(R"({"present":null})").value();
  const Value* present = doc.find("present");
  REQUIRE(present != nullptr);
  CHECK(present->is_null());
  CHECK(doc.find("absent") == nullptr);
  CHECK(Value(3).find("x") == nullptr);  // not an object: absent, not a crash
}

TEST_CASE("an object keeps insertion order, and set replaces a value in its position") {
  json::Object o;
  o.set("zeta", 1);
  o.set("alpha", 2);
  o.set("mid", 3);
  o.set("alpha", 20);
  std::string keys;
  for (const auto& m : o) keys += m.key + ",";
  CHECK(keys == "zeta,alpha,mid,");
  CHECK(o.find("alpha")->number_text() == "20");
  CHECK(json::dump(Value(o)) == R"({"zeta":1,"alpha":20,"mid":3})");
}

TEST_CASE("the initializer list keeps the first position of a repeated key and the last value") {
  const json::Object o{{"a", 1}, {"b", 2}, {"a", 3}};
  CHECK(json::dump(Value(o)) == R"({"a":3,"b":2})");
}

TEST_CASE("erase keeps the order of the remaining members, small and large") {
  for (int size : {5, 100}) {
    json::Object o;
    for (int i = 0; i < size; ++i) o.set("k" + std::to_string(i), i);
    CHECK(o.erase("k2"));
    CHECK_FALSE(o.erase("k2"));
    CHECK(o.size() == static_cast<std::size_t>(size - 1));
    int expected = 0;
    for (const auto& m : o) {
      if (expected == 2) ++expected;
      CHECK(m.key == "k" + std::to_string(expected));
      ++expected;
    }
    // Every survivor is still found after the positions shifted.
    for (int i = 0; i < size; ++i) {
      const Value* v = o.find("k" + std::to_string(i));
      if (i == 2) {
        CHECK(v == nullptr);
      } else {
        REQUIRE(v != nullptr);
        CHECK(v->to_int64().value() == i);
      }
    }
  }
}

TEST_CASE("a large object finds every key and misses absent ones") {
  constexpr int kMembers = 5000;
  json::Object o;
  for (int i = 0; i < kMembers; ++i) o["key-" + std::to_string(i)] = i;
  REQUIRE(o.size() == kMembers);
  for (int i = 0; i < kMembers; ++i) {
    const Value* v = o.find("key-" + std::to_string(i));
    REQUIRE(v != nullptr);
    CHECK(v->to_int64().value() == i);
  }
  CHECK(o.find("key-5000") == nullptr);
  CHECK(o.find("") == nullptr);
  // The order is still insertion order.
  CHECK(o.begin()->key == "key-0");
  CHECK((o.end() - 1)->key == "key-4999");
  // Copies answer lookups on their own.
  const json::Object copy = o;
  CHECK(copy.find("key-1234")->to_int64().value() == 1234);
  CHECK(copy == o);
}

TEST_CASE("keys differing only in case are distinct members") {
  const Value doc = json::parse(R"({"id":1,"Id":2,"ID":3})").value();
  CHECK(doc.size() == 3);
  CHECK(doc.find("id")->number_text() == "1");
  CHECK(doc.find("Id")->number_text() == "2");
  CHECK(doc.find("iD") == nullptr);
}

TEST_CASE("operator[] on a null value makes an object and appends absent keys as null") {
  Value v;
  v["role"] = "user";
  v["content"] = json::Array{"hi", 2};
  CHECK(v.is_object());
  CHECK(json::dump(v["missing"]) == "null");
  CHECK(json::dump(v) == R"({"role":"user","content":["hi",2],"missing":null})");
  CHECK(v["content"][std::size_t{1}].number_text() == "2");
}

TEST_CASE("integer constructors write exact decimal text at the type limits") {
  CHECK(Value(0).number_text() == "0");
  CHECK(Value(-42).number_text() == "-42");
  CHECK(Value(std::numeric_limits<long long>::min()).number_text() == "-9223372036854775808");
  CHECK(Value(std::numeric_limits<unsigned long long>::max()).number_text() == "18446744073709551615");
}

TEST_CASE("a double becomes its shortest round-trip text, and non-finite doubles become null") {
  CHECK(Value(0.1).number_text() == "0.1");
  CHECK(Value(1.0).number_text() == "1");
  CHECK(Value(-0.0).number_text() == "-0");
  CHECK(Value(1e300).to_double().value() == 1e300);
  CHECK(Value(std::numeric_limits<double>::quiet_NaN()).is_null());
  CHECK(Value(std::numeric_limits<double>::infinity()).is_null());
  CHECK(Value(-std::numeric_limits<double>::infinity()).is_null());
}

TEST_CASE("Value::number accepts only RFC 8259 literals") {
  for (const char* good : {"0", "-0", "1.5", "1E+2", "1e-7", "-12.50e010", "10000000000000000001"}) {
    INFO(good);
    CHECK(Value::number(good).has_value());
    CHECK(Value::number(good).value().number_text() == good);
  }
  for (const char* bad : {"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "NaN", "Infinity", "1 ", " 1", "0x10", "1.5.2"}) {
    INFO(bad);
    const auto r = Value::number(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::invalid_argument);
  }
}

TEST_CASE("to_int64 reads whole numbers written with a fraction or exponent") {
  CHECK(num("3.0").to_int64().value() == 3);
  CHECK(num("1e3").to_int64().value() == 1000);
  CHECK(num("1E+2").to_int64().value() == 100);
  CHECK(num("-2.50e1").to_int64().value() == -25);
  CHECK(num("12300e-2").to_int64().value() == 123);
  CHECK(num("0.000e5").to_int64().value() == 0);
  CHECK(num("0e999999999999999999").to_int64().value() == 0);
  CHECK(num("-0").to_int64().value() == 0);
  CHECK(num("9223372036854775807").to_int64().value() == std::numeric_limits<std::int64_t>::max());
  CHECK(num("-9223372036854775808").to_int64().value() == std::numeric_limits<std::int64_t>::min());
  CHECK(num("-9.223372036854775808e18").to_int64().value() == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("to_int64 reports overflow instead of wrapping, and a fraction instead of truncating") {
  for (const char* big : {"9223372036854775808", "-9223372036854775809", "1e19", "1e999999999999",
                          "10000000000000000001", "9.3e18"}) {
    INFO(big);
    const auto r = num(big).to_int64();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::limit_exceeded);
  }
  for (const char* fractional : {"3.5", "1e-1", "0.1", "12345e-3"}) {
    INFO(fractional);
    const auto r = num(fractional).to_int64();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::invalid_argument);
  }
  CHECK(Value("3").to_int64().error().code == Errc::invalid_argument);  // a string, not a number
  CHECK(Value().to_int64().error().code == Errc::invalid_argument);
}

TEST_CASE("to_uint64 covers the full unsigned range and refuses negatives") {
  CHECK(num("18446744073709551615").to_uint64().value() == std::numeric_limits<std::uint64_t>::max());
  CHECK(num("1e19").to_uint64().value() == 10'000'000'000'000'000'000ULL);
  CHECK(num("-0").to_uint64().value() == 0);
  CHECK(num("-0.0e3").to_uint64().value() == 0);
  CHECK(num("18446744073709551616").to_uint64().error().code == Errc::limit_exceeded);
  CHECK(num("-1").to_uint64().error().code == Errc::limit_exceeded);
  CHECK(num("2e19").to_uint64().error().code == Errc::limit_exceeded);
}

TEST_CASE("to_double rounds correctly, refuses overflow and rounds underflow to zero") {
  CHECK(num("0.1").to_double().value() == 0.1);
  CHECK(num("1.7976931348623157e308").to_double().value() == std::numeric_limits<double>::max());
  CHECK(num("4.9e-324").to_double().value() == std::numeric_limits<double>::denorm_min());
  CHECK(num("1e400").to_double().error().code == Errc::limit_exceeded);
  CHECK(num("-1e400").to_double().error().code == Errc::limit_exceeded);
  CHECK(num("1e-400").to_double().value() == 0.0);
  const double negative_zero = num("-1e-400").to_double().value();
  CHECK(negative_zero == 0.0);
  CHECK(std::signbit(negative_zero));
}

TEST_CASE("numbers are equal only when their literal text is identical") {
  CHECK(num("1.0") != num("1"));
  CHECK(num("1E+2") != num("100"));
  CHECK(num("1.0") == num("1.0"));
  CHECK(Value(1) == num("1"));
}

TEST_CASE("deep equality compares types, order and content") {
  const Value a = json::parse(R"({"x":[1,{"y":null}],"z":"s"})").value();
  CHECK(a == json::parse(R"({ "x" : [ 1 , { "y" : null } ] , "z" : "s" })").value());
  CHECK(a != json::parse(R"({"z":"s","x":[1,{"y":null}]})").value());  // order matters
  CHECK(a != json::parse(R"({"x":[1,{"y":false}],"z":"s"})").value());
  CHECK(a != json::parse(R"({"x":[1,{}],"z":"s"})").value());
  CHECK(Value() != Value(false));
  CHECK(Value("") != Value(json::Array{}));
  CHECK(Value(json::Array{}) != Value(json::Object{}));
}

TEST_CASE("a Raw value is printed verbatim and can be checked and parsed") {
  const json::Raw args(R"({"path": "a.txt",  "n": 1.50})");
  CHECK(args.valid());
  CHECK(args.parse().value().find("n")->number_text() == "1.50");
  Value call;
  call["name"] = "read";
  call["arguments"] = args;
  CHECK(json::dump(call) == R"({"name":"read","arguments":{"path": "a.txt",  "n": 1.50}})");
  const json::Raw partial(R"({"path": "a.t)");
  CHECK_FALSE(partial.valid());
  CHECK_FALSE(partial.parse().has_value());
  CHECK(Value(partial).is_raw());
  CHECK(Value(partial).get_raw()->bytes() == partial.bytes());
}

TEST_CASE("a Raw made of bytes another owner keeps shares them: no copy, no allocation") {
  // How an encoder puts a cache's rendered tool schema into a request without copying it.
  const auto cached = std::make_shared<const std::string>(std::string(4096, ' ') + "{}");
  std::size_t allocations = 0;
  json::Raw shared;
  {
    agentkit::testing::AllocCounter counter;
    shared = json::Raw(cached);
    allocations = counter.stats().count;
  }
  CHECK(allocations == 0);  // under ThreadSanitizer the counter reads 0 too
  CHECK(shared.bytes().data() == cached->data());
  CHECK(shared.valid());
  CHECK(json::Raw(std::shared_ptr<const std::string>()).empty());
  CHECK(json::Raw(std::make_shared<const std::string>()).empty());  // as Raw(std::string())
}

TEST_CASE("soft readers answer nothing for a different type") {
  const Value s("text");
  CHECK(s.get_string() == std::optional<std::string_view>("text"));
  CHECK_FALSE(s.get_bool().has_value());
  CHECK(s.get_array() == nullptr);
  CHECK(s.get_object() == nullptr);
  CHECK(s.get_raw() == nullptr);
  CHECK(Value(true).get_bool() == std::optional<bool>(true));
  CHECK(s.size() == 0);
  CHECK(json::type_name(json::Type::object) == "object");
}
