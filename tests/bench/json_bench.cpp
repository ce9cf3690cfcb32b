// Parse and dump throughput of agentkit::json beside nlohmann/json and RapidJSON (DOM, default
// flags) on four generated inputs, in one run. Prints MB/s (median of kRuns) and the ratios.
// The bar (issue 2): our parse >= 3x nlohmann and >= 0.6x RapidJSON on every input, with our
// strict checks on (duplicate keys and UTF-8 are always checked; RapidJSON's default checks
// neither). Build: cmake --preset bench && cmake --build --preset bench --target bench_json
#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"

#if AGENTKIT_BENCH_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif
#if AGENTKIT_BENCH_HAVE_RAPIDJSON
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#endif

namespace {

using namespace agentkit;

// Median of this many timed runs per measurement; each input is about kTargetBytes long.
constexpr int kRuns = 15;
constexpr std::size_t kTargetBytes = 2 << 20;
constexpr double kMegabyte = 1024.0 * 1024.0;

// The bar from issue 2.
constexpr double kMinRatioVsNlohmann = 3.0;
constexpr double kMinRatioVsRapidjson = 0.6;

// ---- deterministic input generators ----------------------------------------------------------

class Random {
 public:
  explicit Random(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }  // mt19937_64 output is portable
  bool chance(int percent) { return below(100) < static_cast<std::uint64_t>(percent); }
  template <class T, std::size_t N>
  const T& pick(const T (&items)[N]) { return items[below(N)]; }

 private:
  std::mt19937_64 rng_;
};

const char* const kWords[] = {"agent", "model", "tool", "result", "stream", "token", "the", "a", "of", "and",
                              "caf\xC3\xA9", "na\xC3\xAFve", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",
                              "\xF0\x9F\x98\x80", "\xF0\x9F\x9A\x80", "#cpp", "@user", "RT", "http:\\/\\/t.co\\/xYz12"};

std::string sentence(Random& r, int words) {
  std::string s;
  for (int i = 0; i < words; ++i) {
    if (i) s += r.chance(5) ? "\\n" : " ";
    s += r.pick(kWords);
  }
  return s;
}

std::string id(Random& r) { return std::to_string(100000000000000000ULL + r.below(900000000000000000ULL)); }

// Twitter-style API response: statuses with ids, text with Unicode and escapes, nested users,
// entities with URLs, nulls and booleans.
std::string api_response_document() {
  Random r(1);
  std::string s = "{\"statuses\":[";
  for (int n = 0; s.size() < kTargetBytes; ++n) {
    if (n) s += ',';
    const std::string status_id = id(r);
    s += "{\"metadata\":{\"result_type\":\"recent\",\"iso_language_code\":\"en\"},\"created_at\":\"Sun Aug 31 00:29:15 +0000 2014\"";
    s += ",\"id\":" + status_id + ",\"id_str\":\"" + status_id + "\",\"text\":\"" + sentence(r, 8 + static_cast<int>(r.below(16))) + "\"";
    s += ",\"source\":\"<a href=\\\"https:\\/\\/mobile.twitter.com\\\" rel=\\\"nofollow\\\">Mobile Web<\\/a>\"";
    s += ",\"truncated\":false,\"in_reply_to_status_id\":null,\"in_reply_to_user_id\":null,\"in_reply_to_screen_name\":null";
    const std::string user_id = std::to_string(r.below(4000000000ULL));
    s += ",\"user\":{\"id\":" + user_id + ",\"id_str\":\"" + user_id + "\",\"name\":\"" + sentence(r, 2) + "\",\"screen_name\":\"user" + user_id + "\"";
    s += ",\"location\":\"" + sentence(r, 1);
    s += "\",\"description\":\"" + sentence(r, 12) + "\",\"url\":null";
    s += ",\"entities\":{\"description\":{\"urls\":[]}},\"protected\":false,\"followers_count\":" + std::to_string(r.below(100000));
    s += ",\"friends_count\":" + std::to_string(r.below(5000));
    s += ",\"listed_count\":" + std::to_string(r.below(100));
    s += ",\"created_at\":\"Mon Mar 14 14:32:55 +0000 2011\",\"favourites_count\":" + std::to_string(r.below(9999));
    s += ",\"utc_offset\":null,\"time_zone\":null,\"geo_enabled\":" + std::string(r.chance(50) ? "true" : "false");
    s += ",\"verified\":false,\"statuses_count\":" + std::to_string(r.below(99999)) + ",\"lang\":\"ja\",\"contributors_enabled\":false";
    s += ",\"is_translator\":false,\"is_translation_enabled\":false,\"profile_background_color\":\"C0DEED\"";
    s += ",\"profile_background_image_url\":\"http:\\/\\/abs.twimg.com\\/images\\/themes\\/theme1\\/bg.png\"";
    s += ",\"profile_background_tile\":false,\"profile_image_url\":\"http:\\/\\/pbs.twimg.com\\/profile_images\\/" + user_id + "\\/normal.jpeg\"";
    s += ",\"profile_link_color\":\"0084B4\",\"profile_sidebar_border_color\":\"C0DEED\",\"profile_use_background_image\":true";
    s += ",\"default_profile\":true,\"default_profile_image\":false,\"following\":false,\"follow_request_sent\":false,\"notifications\":false}";
    s += ",\"geo\":null,\"coordinates\":null,\"place\":null,\"contributors\":null,\"retweet_count\":" + std::to_string(r.below(1000));
    s += ",\"favorite_count\":" + std::to_string(r.below(1000)) + ",\"entities\":{\"hashtags\":[{\"text\":\"cpp\",\"indices\":[10,14]}]";
    s += ",\"symbols\":[],\"urls\":[{\"url\":\"http:\\/\\/t.co\\/abc\",\"expanded_url\":\"https:\\/\\/example.com\\/" + id(r) + "\",\"indices\":[20,42]}]";
    s += ",\"user_mentions\":[{\"screen_name\":\"peer\",\"name\":\"" + sentence(r, 2) + "\",\"id\":" + user_id + ",\"id_str\":\"" + user_id + "\",\"indices\":[0,5]}]}";
    s += ",\"favorited\":false,\"retweeted\":false,\"lang\":\"en\"}";
  }
  s += "],\"search_metadata\":{\"completed_in\":0.087,\"max_id\":505874924095815700,\"query\":\"%23cpp\",\"count\":100}}";
  return s;
}

std::string long_decimal(Random& r, int integer_digits, int fraction_digits) {
  std::string s = r.chance(50) ? "-" : "";
  s += std::to_string(1 + r.below(9));
  for (int i = 1; i < integer_digits; ++i) s += static_cast<char>('0' + r.below(10));
  s += '.';
  for (int i = 0; i < fraction_digits; ++i) s += static_cast<char>('0' + r.below(10));
  return s;
}

// canada.json-style: polygons of coordinate pairs written with 15-17 significant digits,
// followed by an array of integers.
std::string number_heavy_document() {
  Random r(2);
  std::string s = "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"name\":\"Canada\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[";
  const std::size_t floats_end = kTargetBytes * 3 / 4;
  for (int ring = 0; s.size() < floats_end; ++ring) {
    if (ring) s += ',';
    s += '[';
    for (int i = 0; i < 200; ++i) {
      if (i) s += ',';
      s += '[' + long_decimal(r, 2, 15) + ',' + long_decimal(r, 2, 15) + ']';
    }
    s += ']';
  }
  s += "]}}],\"integers\":[";
  for (int i = 0; s.size() < kTargetBytes; ++i) {
    if (i) s += ',';
    s += std::to_string(static_cast<std::int64_t>(r.below(2000000000)) - 1000000000);
  }
  return s + "]}";
}

// Prose-like strings, short and long (chat transcripts, articles): words in several scripts,
// sentences separated by \n, occasional quotes, backslashes, tabs and \u escapes (a few
// encoders escape every non-ASCII character), and raw UTF-8 of 2, 3 and 4 bytes.
std::string string_heavy_document() {
  Random r(3);
  const char* const kWordsProse[] = {"the", "model", "answered", "with", "a", "long", "explanation", "of", "tokens",
                                     "and", "context", "windows", "caf\xC3\xA9", "r\xC3\xA9sum\xC3\xA9", "na\xC3\xAFve",
                                     "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82", "\xD0\xBC\xD0\xB8\xD1\x80",
                                     "\xE4\xB8\xAD\xE6\x96\x87", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "\xF0\x9F\x98\x80",
                                     "\xF0\x9F\x9A\x80", "agent", "tool", "result"};
  const char* const kEscaped[] = {"\\\"quoted\\\"", "C:\\\\path\\\\file", "a\\tb", "\\u00e9t\\u00e9",
                                  "\\u4e2d\\u6587", "\\ud83d\\ude00", "\\/api\\/v1", "x\\u0001y"};
  auto prose = [&](int words) {
    std::string t;
    for (int i = 0; i < words; ++i) {
      if (i) t += r.chance(4) ? "\\n" : " ";
      t += r.chance(6) ? r.pick(kEscaped) : r.pick(kWordsProse);
    }
    return t;
  };
  std::string s = "[";
  for (int n = 0; s.size() < kTargetBytes; ++n) {
    if (n) s += ',';
    // One draw per statement: the order in which operands of + are evaluated is unspecified,
    // and the input must be the same whichever compiler builds the benchmark.
    s += "{\"role\":\"" + std::string(r.chance(50) ? "user" : "assistant");
    s += "\",\"title\":\"" + prose(4);
    s += "\",\"content\":\"" + prose(20 + static_cast<int>(r.below(200)));
    s += "\",\"tags\":[\"" + prose(1);
    s += "\",\"" + prose(2) + "\"]}";
  }
  return s + "]";
}

// Stress variant (not one of the four inputs of the bar): every other piece of text is an
// escape or a run of non-ASCII, so the string scanner rarely sees eight plain bytes in a row.
std::string escape_dense_document() {
  Random r(5);
  const char* const kPieces[] = {"plain ascii text ", "\\\"quoted\\\" ", "back\\\\slash ", "tab\\tnew\\nline\\r ",
                                 "\\u00e9\\u00e8\\u4e2d\\u6587 ", "\\ud83d\\ude00 ", "\\/slash ", "\\u0001\\u001f ",
                                 "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 \xD0\xBC\xD0\xB8\xD1\x80 ",
                                 "\xE4\xB8\xAD\xE6\x96\x87\xE6\x96\x87\xE6\x9C\xAC ", "\xF0\x9F\x98\x80\xF0\x9F\x8E\x89 ",
                                 "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e "};
  std::string s = "[";
  for (int n = 0; s.size() < kTargetBytes; ++n) {
    if (n) s += ',';
    s += "{\"key\":\"";
    for (int i = 1 + static_cast<int>(r.below(3)); i > 0; --i) s += r.pick(kPieces);
    s += "\",\"body\":\"";
    for (int i = static_cast<int>(r.below(40)); i > 0; --i) s += r.pick(kPieces);
    s += "\",\"tags\":[\"" + std::string(r.pick(kPieces));
    s += "\",\"" + std::string(r.pick(kPieces)) + "\"]}";
  }
  return s + "]";
}

// A tree 60 to 400 levels deep, repeated (an AST, nested comments, a nested schema): each level
// is a node object with a few fields and its child, and every fourth level wraps the child in a
// one-element array.
std::string deeply_nested_document() {
  Random r(4);
  std::string s = "[";
  for (int n = 0; s.size() < kTargetBytes; ++n) {
    if (n) s += ',';
    const int depth = 60 + static_cast<int>(r.below(340));
    for (int d = 0; d < depth; ++d) {
      s += "{\"id\":" + std::to_string(d) + ",\"kind\":\"" + (d % 3 ? "block" : "expression") + "\",\"line\":" +
           std::to_string(r.below(5000)) + ",\"child\":";
      if (d % 4 == 3) s += '[';
    }
    s += "{\"leaf\":" + std::to_string(n) + ",\"name\":\"x\"}";
    for (int d = depth - 1; d >= 0; --d) {
      if (d % 4 == 3) s += ']';
      s += '}';
    }
  }
  return s + "]";
}

// Stress variant (not one of the four inputs of the bar): bare nesting, alternating objects and
// arrays with a single child each, so every six bytes of input are one container, and so one
// heap allocation for a DOM made of std::vector (RapidJSON's pool allocator does not pay it).
std::string bare_nesting_document() {
  Random r(6);
  std::string s = "[";
  for (int n = 0; s.size() < kTargetBytes; ++n) {
    if (n) s += ',';
    const int depth = 60 + static_cast<int>(r.below(340));
    for (int d = 0; d < depth; ++d) s += d % 2 ? "[" : "{\"level\":";
    s += "{\"leaf\":" + std::to_string(n) + ",\"name\":\"x\"}";
    for (int d = depth - 1; d >= 0; --d) s += d % 2 ? "]" : "}";
  }
  return s + "]";
}

// ---- timing ----------------------------------------------------------------------------------

// CPU time of this thread: the benchmark shares its machine, and time spent descheduled says
// nothing about the code (POSIX clock_gettime(CLOCK_THREAD_CPUTIME_ID)).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// glibc's malloc defers part of the work of free (merging its "fastbin" chunks) to the next
// request of 1 KiB or more, which lands inside whatever runs next: here, the next timed parse,
// which would then pay for freeing the previous document. One request of this size after the
// previous document is destroyed settles that work outside the timing. It is below the 64 KiB
// at which free() would also return memory to the system (which would make the next run fault
// its pages back in). Applied identically to every library; harmless with other allocators.
constexpr std::size_t kSettleAllocatorBytes = 32 * 1024;

void settle_deferred_frees() {
  void* volatile block = std::malloc(kSettleAllocatorBytes);
  std::free(block);
}

// Times `run` only; `after` (destroying what run built) happens outside the timed region, as in
// nativejson-benchmark, so each library is charged for building its DOM, not for freeing it.
double median_seconds(const std::function<void()>& run, const std::function<void()>& after = [] {}) {
  std::vector<double> times;
  for (int i = 0; i < kRuns; ++i) {
    const double start = thread_cpu_seconds();
    run();
    times.push_back(thread_cpu_seconds() - start);
    after();
    settle_deferred_frees();
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Figures {
  double parse_mbs = 0;
  double dump_mbs = 0;
};

Figures measure_agentkit(const std::string& text) {
  Figures f;
  json::Value keep;
  json::Value parsed;
  f.parse_mbs = text.size() / kMegabyte / median_seconds(
                    [&] {
                      auto r = json::parse(text);
                      if (!r) {
                        std::fprintf(stderr, "agentkit failed: %s\n", r.error().to_string().c_str());
                        std::exit(1);
                      }
                      parsed = std::move(r).value();
                    },
                    [&] { keep = std::move(parsed); });
  std::size_t out_size = 0;
  f.dump_mbs = text.size() / kMegabyte / median_seconds([&] { out_size += json::dump(keep).size(); });
  return f;
}

#if AGENTKIT_BENCH_HAVE_NLOHMANN
Figures measure_nlohmann(const std::string& text) {
  Figures f;
  nlohmann::json keep;
  nlohmann::json parsed;
  f.parse_mbs = text.size() / kMegabyte / median_seconds([&] { parsed = nlohmann::json::parse(text); },
                                                         [&] { keep = std::move(parsed); });
  std::size_t out_size = 0;
  f.dump_mbs = text.size() / kMegabyte / median_seconds([&] { out_size += keep.dump().size(); });
  return f;
}
#endif

#if AGENTKIT_BENCH_HAVE_RAPIDJSON
Figures measure_rapidjson(const std::string& text) {
  Figures f;
  rapidjson::Document keep;
  rapidjson::Document parsed;
  f.parse_mbs = text.size() / kMegabyte / median_seconds(
                    [&] {
                      parsed.Parse(text.data(), text.size());
                      if (parsed.HasParseError()) {
                        std::fprintf(stderr, "rapidjson failed at %zu\n", parsed.GetErrorOffset());
                        std::exit(1);
                      }
                    },
                    [&] {
                      keep.Swap(parsed);
                      parsed = rapidjson::Document();
                    });
  std::size_t out_size = 0;
  f.dump_mbs = text.size() / kMegabyte / median_seconds([&] {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    keep.Accept(writer);
    out_size += buffer.GetSize();
  });
  return f;
}
#endif

}  // namespace

// Usage: bench_json [input-name] [--ours-only]. With a name, only that input runs; --ours-only
// skips the peers and the bar (for instruction counts under callgrind, where the peers would only
// add noise to the profile).
int main(int argc, char** argv) {
  std::string only;
  [[maybe_unused]] bool ours_only = false;  // unused when no peer is installed
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ours-only") {
      ours_only = true;
    } else {
      only = arg;
    }
  }
  struct Input {
    const char* name;
    std::string text;
    bool under_bar;  // one of the four inputs of the bar, or a stress variant printed alongside
  };
  const Input inputs[] = {{"api_response", api_response_document(), true},
                          {"number_heavy", number_heavy_document(), true},
                          {"string_heavy", string_heavy_document(), true},
                          {"deeply_nested", deeply_nested_document(), true},
                          {"stress:escapes", escape_dense_document(), false},
                          {"stress:bare", bare_nesting_document(), false}};
  bool bar_met = true;
  bool stress_met = true;
  bool peers_measured = false;  // both peers, on some input
  std::printf("%-14s %7s | %9s %9s %9s | %9s %9s %9s | %8s %8s | %8s %8s\n", "input", "MB", "parse ak", "nlohmann",
              "rapidjson", "dump ak", "nlohmann", "rapidjson", "p ak/nl", "p ak/rj", "d ak/nl", "d ak/rj");
  for (const Input& in : inputs) {
    if (!only.empty() && only != in.name) continue;
    const Figures ours = measure_agentkit(in.text);
    Figures nl, rj;
#if AGENTKIT_BENCH_HAVE_NLOHMANN
    if (!ours_only) nl = measure_nlohmann(in.text);
#endif
#if AGENTKIT_BENCH_HAVE_RAPIDJSON
    if (!ours_only) rj = measure_rapidjson(in.text);
#endif
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::printf("%-14s %7.2f | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %8.2f %8.2f | %8.2f %8.2f\n", in.name,
                in.text.size() / kMegabyte, ours.parse_mbs, nl.parse_mbs, rj.parse_mbs, ours.dump_mbs, nl.dump_mbs,
                rj.dump_mbs, ratio(ours.parse_mbs, nl.parse_mbs), ratio(ours.parse_mbs, rj.parse_mbs),
                ratio(ours.dump_mbs, nl.dump_mbs), ratio(ours.dump_mbs, rj.dump_mbs));
    peers_measured = peers_measured || (nl.parse_mbs > 0 && rj.parse_mbs > 0);
    const bool met = !(nl.parse_mbs > 0 && ours.parse_mbs < kMinRatioVsNlohmann * nl.parse_mbs) &&
                     !(rj.parse_mbs > 0 && ours.parse_mbs < kMinRatioVsRapidjson * rj.parse_mbs);
    (in.under_bar ? bar_met : stress_met) &= met;
  }
  if (!peers_measured) {
    // No peer, no ratio: the bar is neither met nor missed.
    std::printf("parse bar (>= %.1fx nlohmann, >= %.1fx RapidJSON): not measured, %s\n",
                kMinRatioVsNlohmann, kMinRatioVsRapidjson,
                ours_only ? "--ours-only"
                          : "the peers were not found at configure time "
                            "(nlohmann-json3-dev, rapidjson-dev)");
    return 0;
  }
  std::printf("parse bar (>= %.1fx nlohmann, >= %.1fx RapidJSON) on the four inputs: %s; on the stress rows: %s\n",
              kMinRatioVsNlohmann, kMinRatioVsRapidjson, bar_met ? "met" : "NOT met", stress_met ? "met" : "not met");
  return bar_met ? 0 : 1;
}
