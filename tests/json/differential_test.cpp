// Differential tests against Python's json module (an independent implementation; python3 must
// be on PATH). Both sides reduce a value to one canonical text and the texts are compared:
//   null n | true t | false f | number N<sign><digits>e<exponent> (exact decimal, no trailing
//   zeros; zero is N0) | string S<hex of UTF-8> | array [a,b] | object {<hex key>:value,...} in
//   member order.
// Numbers are compared as exact decimals (Python reads them with int and decimal.Decimal), never
// through a double on either side.
#include <random>
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using json::Value;

namespace {

// Documents per seed and direction; enough to cover every generator branch many times while the
// whole file stays around a second.
constexpr int kDocumentsPerSeed = 400;
constexpr int kMaxDepth = 6;

// ---- canonical form, C++ side ----------------------------------------------------------------

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

// Exact decimal value of a JSON number literal, independent of the library's own readers.
std::string canonical_number(std::string_view text) {
  std::size_t i = 0;
  const bool negative = text[i] == '-';
  if (negative) ++i;
  std::string digits;
  long long exponent = 0;
  bool fraction = false;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      fraction = true;
      continue;
    }
    digits.push_back(text[i]);
    if (fraction) --exponent;
  }
  if (i < text.size()) exponent += std::stoll(std::string(text.substr(i + 1)));  // stoll takes the sign
  digits.erase(0, digits.find_first_not_of('0'));
  if (digits.empty()) return "N0";
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  return std::string("N") + (negative ? "-" : "") + digits + "e" + std::to_string(exponent);
}

void canonical(const Value& v, std::string& out) {
  switch (v.type()) {
    case json::Type::null: out += 'n'; return;
    case json::Type::boolean: out += v.as_bool() ? 't' : 'f'; return;
    case json::Type::number: out += canonical_number(v.number_text()); return;
    case json::Type::string: out += "S" + hex(v.as_string()); return;
    case json::Type::raw: canonical(v.get_raw()->parse().value(), out); return;
    case json::Type::array: {
      out += '[';
      bool first = true;
      for (const Value& e : v.as_array()) {
        if (!first) out += ',';
        first = false;
        canonical(e, out);
      }
      out += ']';
      return;
    }
    case json::Type::object: {
      out += '{';
      bool first = true;
      for (const json::Member& m : v.as_object()) {
        if (!first) out += ',';
        first = false;
        out += hex(m.key) + ":";
        canonical(m.value, out);
      }
      out += '}';
      return;
    }
  }
}

std::string canonical(const Value& v) {
  std::string out;
  canonical(v, out);
  return out;
}

// ---- canonical form, Python side -----------------------------------------------------------

constexpr const char* kPythonCanonical = R"PY(
from decimal import Decimal
def num(x):
    if isinstance(x, int):
        sign, digits, exp = ('-' if x < 0 else ''), str(abs(x)), 0
    else:
        t = x.as_tuple()
        sign, digits, exp = ('-' if t.sign else ''), ''.join(map(str, t.digits)), t.exponent
    digits = digits.lstrip('0')
    if not digits:
        return 'N0'
    stripped = digits.rstrip('0')
    return 'N' + sign + stripped + 'e' + str(exp + len(digits) - len(stripped))
def canon(v):
    if v is None: return 'n'
    if v is True: return 't'
    if v is False: return 'f'
    if isinstance(v, float): return num(Decimal(repr(v)))
    if isinstance(v, (int, Decimal)): return num(v)
    if isinstance(v, str): return 'S' + v.encode('utf-8').hex()
    if isinstance(v, list): return '[' + ','.join(canon(x) for x in v) + ']'
    if isinstance(v, tuple): return '{' + ','.join(k.encode('utf-8').hex() + ':' + canon(x) for k, x in v[1]) + '}'
    if isinstance(v, dict): return '{' + ','.join(k.encode('utf-8').hex() + ':' + canon(x) for k, x in v.items()) + '}'
    raise TypeError(type(v))
)PY";

// Reads frames "<length>\n<bytes>\n" from stdin, parses each with json.loads (numbers exact,
// member order and repeats visible through object_pairs_hook), prints one canonical line each.
constexpr const char* kPythonReader = R"PY(
import sys, json
data = sys.stdin.buffer.read()
pos, out = 0, []
while pos < len(data):
    nl = data.index(b'\n', pos)
    n = int(data[pos:nl])
    doc = data[nl + 1:nl + 1 + n]
    pos = nl + 1 + n + 1
    try:
        v = json.loads(doc.decode('utf-8'), parse_float=Decimal, object_pairs_hook=lambda p: ('obj', p))
        out.append(canon(v))
    except Exception as e:
        out.append('ERROR ' + repr(e))
sys.stdout.write('\n'.join(out) + '\n')
)PY";

// Generates `count` random documents from `seed` and prints, for each, two frames: the text
// json.dumps produced (ASCII-only or not, compact or indented) and the canonical form of the
// Python value it encodes.
constexpr const char* kPythonWriter = R"PY(
import sys, json, random
seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
def rchar():
    pool = rng.randrange(8)
    if pool == 0: return chr(rng.randrange(0x20))
    if pool == 1: return rng.choice('"\\/\x7f\u2028\u2029\ufeff\uffff')
    if pool == 2: return chr(rng.randrange(0x80, 0x800))
    if pool == 3:
        c = rng.randrange(0x800, 0x10000)
        return chr(c) if not 0xD800 <= c < 0xE000 else 'x'
    if pool == 4: return chr(rng.randrange(0x10000, 0x110000))
    return chr(rng.randrange(0x20, 0x7f))
def rstr():
    return ''.join(rchar() for _ in range(rng.choice([0, 1, 3, 8, 20, 70])))
def rnum():
    kind = rng.randrange(6)
    if kind == 0: return rng.randrange(-2**70, 2**70)
    if kind == 1: return rng.randrange(-1000, 1000)
    if kind == 2: return rng.uniform(-1e6, 1e6)
    if kind == 3: return rng.choice([1e16, 1.5e-7, 5e-324, 1.7976931348623157e308, -0.0, 0.1, 1e22, 2.0**53])
    while True:
        f = __import__('struct').unpack('<d', rng.getrandbits(64).to_bytes(8, 'little'))[0]
        if f == f and abs(f) != float('inf'): return f
def rval(depth):
    kind = rng.randrange(9 if depth < 6 else 6)
    if kind == 0: return None
    if kind == 1: return rng.random() < 0.5
    if kind in (2, 3): return rnum()
    if kind in (4, 5): return rstr()
    if kind in (6, 7):
        return [rval(depth + 1) for _ in range(rng.randrange(6))]
    d = {}
    for _ in range(rng.randrange(6)):
        d[rstr()] = rval(depth + 1)
    return d
out = sys.stdout.buffer
for i in range(count):
    v = rval(0)
    text = json.dumps(v, ensure_ascii=(i % 2 == 0), indent=[None, None, 0, 2, '\t'][i % 5]).encode('utf-8')
    c = canon(v).encode('ascii')
    out.write(b'%d\n%s\n%d\n%s\n' % (len(text), text, len(c), c))
)PY";

std::string python() {
  const auto path = testing::find_program("python3");
  REQUIRE(path.has_value());  // a peer the test needs must be present: fail, do not skip
  return *path;
}

std::vector<std::string> split_frames(const std::string& data) {
  std::vector<std::string> frames;
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t nl = data.find('\n', pos);
    REQUIRE(nl != std::string::npos);
    const std::size_t n = std::stoul(data.substr(pos, nl - pos));
    frames.push_back(data.substr(nl + 1, n));
    pos = nl + 1 + n + 1;
  }
  return frames;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    lines.push_back(text.substr(pos, nl - pos));
  }
  return lines;
}

// ---- random documents, C++ side ------------------------------------------------------------

class DocumentGenerator {
 public:
  explicit DocumentGenerator(std::uint64_t seed) : rng_(seed) {}

  Value value(int depth) {
    switch (pick(depth < kMaxDepth ? 9 : 6)) {
      case 0: return Value();
      case 1: return Value(pick(2) == 0);
      case 2:
      case 3: return number();
      case 4:
      case 5: return Value(string());
      case 6:
      case 7: {
        json::Array a;
        for (int i = pick(6); i > 0; --i) a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json::Object o;
        for (int i = pick(6); i > 0; --i) o.set(string(), value(depth + 1));
        return o;
      }
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string digits(int n, bool nonzero_first) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + (i == 0 && nonzero_first ? 1 + pick(9) : pick(10))));
    return s;
  }

  Value number() {
    switch (pick(4)) {
      case 0: return Value(static_cast<long long>(rng_()));
      case 1: return Value(std::uniform_real_distribution<double>(-1e9, 1e9)(rng_));
      case 2: return Value(static_cast<unsigned long long>(rng_()));
      default: {
        // An arbitrary literal: big integers, long fractions, exponents with either letter case
        // and sign, leading fraction zeros.
        std::string text = pick(2) ? "-" : "";
        text += pick(4) == 0 ? "0" : digits(1 + pick(30), true);
        if (pick(2)) text += "." + digits(1 + pick(20), false);
        if (pick(2)) {
          text += pick(2) ? "e" : "E";
          if (const int sign = pick(3); sign) text += sign == 1 ? "+" : "-";
          text += digits(1 + pick(4), false);
        }
        return Value::number(text).value();
      }
    }
  }

  void append_code_point(std::string& s, char32_t cp) {
    if (cp < 0x80) {
      s.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  char32_t code_point() {
    auto in = [&](char32_t lo, char32_t hi) { return std::uniform_int_distribution<char32_t>(lo, hi)(rng_); };
    switch (pick(8)) {
      case 0: return in(0, 0x1F);                                       // controls, incl. NUL
      case 1: {
        static constexpr char32_t kAwkward[] = {'"', '\\', '/', 0x7F, 0x2028, 0x2029, 0xFEFF, 0xFFFF, 0x10FFFF};
        return kAwkward[pick(std::size(kAwkward))];
      }
      case 2: return in(0x80, 0x7FF);
      case 3: {
        const char32_t cp = in(0x800, 0xFFFF);
        return cp >= 0xD800 && cp < 0xE000 ? U'x' : cp;                // no surrogates in UTF-8
      }
      case 4: return in(0x10000, 0x10FFFF);                             // astral
      default: return in(0x20, 0x7E);
    }
  }

  std::string string() {
    static constexpr int kLengths[] = {0, 1, 3, 8, 20, 70};
    std::string s;
    for (int n = kLengths[pick(std::size(kLengths))]; n > 0; --n) append_code_point(s, code_point());
    return s;
  }

  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("documents we print are read by Python's json module as the values we meant") {
  const std::string py = python();
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    DocumentGenerator generator(seed);
    std::vector<std::string> expected;
    std::string input;
    for (int i = 0; i < kDocumentsPerSeed; ++i) {
      const Value v = generator.value(0);
      json::DumpOptions options;
      options.ascii_only = i % 2 == 1;
      options.indent = i % 3 == 2 ? 2 : -1;
      const std::string text = json::dump(v, options);
      input += std::to_string(text.size()) + "\n" + text + "\n";
      expected.push_back(canonical(v));
    }
    const auto run = testing::run_program({py, "-c", std::string(kPythonCanonical) + kPythonReader}, input);
    REQUIRE(run.exit_code == 0);
    const auto lines = split_lines(run.out);
    REQUIRE(lines.size() == expected.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("seed " << seed << ", document " << i);
      CHECK(lines[i] == expected[i]);
    }
  }
}

TEST_CASE("documents Python's json.dumps prints are read by us as the values Python meant") {
  const std::string py = python();
  for (const int seed : {11, 12, 13}) {
    const auto run = testing::run_program(
        {py, "-c", std::string(kPythonCanonical) + kPythonWriter, std::to_string(seed), std::to_string(kDocumentsPerSeed)});
    REQUIRE(run.exit_code == 0);
    const auto frames = split_frames(run.out);
    REQUIRE(frames.size() == 2 * static_cast<std::size_t>(kDocumentsPerSeed));
    for (std::size_t i = 0; i < frames.size(); i += 2) {
      INFO("seed " << seed << ", document " << i / 2 << ": " << frames[i].substr(0, 200));
      const auto parsed = json::parse(frames[i]);
      if (!parsed.has_value()) {
        FAIL_CHECK(parsed.error().to_string());
        continue;
      }
      CHECK(canonical(parsed.value()) == frames[i + 1]);
    }
  }
}
