// Typed answers (issue 17): lowering a 200-property answer schema for each dialect, and validating
// a typical answer against the whole schema (drop optional nulls, then find_violations), the two
// costs a typed-answer run adds per request and per answer. Prints the median in microseconds
// against the bars: under 100 us to lower, under 20 us to validate a typical answer.
// Build: cmake --preset bench && cmake --build --preset bench --target bench_answer
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agentkit/core/answer.hpp"
#include "agentkit/core/schema.hpp"

namespace {

using namespace agentkit;

constexpr int kRuns = 31;
constexpr int kInner = 200;
constexpr double kLowerBarUs = 100;
constexpr double kValidateBarUs = 20;

// 200 properties of mixed kinds, a third optional, with the bounds and formats lowering drops.
Schema wide_schema() {
  std::vector<schema::Property> props;
  for (int i = 0; i < 200; ++i) {
    const std::string name = "field_" + std::to_string(i);
    Schema s;
    switch (i % 5) {
      case 0: s = schema::string().max_length(200); break;
      case 1: s = schema::integer().minimum(0).maximum(1000); break;
      case 2: s = schema::enumeration({"low", "medium", "high"}); break;
      case 3: s = schema::array(schema::string()).max_items(8); break;
      default: s = schema::boolean(); break;
    }
    props.push_back(i % 3 == 0 ? schema::optional(name, s) : schema::required(name, s));
  }
  return schema::object(std::move(props));
}

// A typical answer: every required member, the optional ones null (as a strict mode sends them).
json::Value typical_answer() {
  json::Object o;
  for (int i = 0; i < 200; ++i) {
    const std::string name = "field_" + std::to_string(i);
    if (i % 3 == 0) {
      o.append_unique(name, nullptr);
      continue;
    }
    switch (i % 5) {
      case 0: o.append_unique(name, "a short finding about the code"); break;
      case 1: o.append_unique(name, json::Value::number(std::to_string(i)).value()); break;
      case 2: o.append_unique(name, "medium"); break;
      case 3: o.append_unique(name, json::Array{"src/a.cpp", "src/b.cpp"}); break;
      default: o.append_unique(name, true); break;
    }
  }
  return o;
}

// Process CPU time (std::clock), not wall time: on a shared machine the wall clock measures the
// other processes as much as this one.
template <class F>
double median_us(F&& f) {
  std::vector<double> runs;
  for (int r = 0; r < kRuns; ++r) {
    const std::clock_t t0 = std::clock();
    for (int i = 0; i < kInner; ++i) f();
    const std::clock_t t1 = std::clock();
    runs.push_back(1e6 * static_cast<double>(t1 - t0) / CLOCKS_PER_SEC / kInner);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

// As median_us, for a step that consumes its input and hands back its result: `make` builds the
// kInner inputs of a run before its clock starts and the results are freed after it stops, so
// the figure is the step's own cost, not a copy of the instance nor its destruction (the gate
// keeps the answer it judged: it becomes RunResult::answer).
template <class Make, class F>
double median_us_consuming(Make&& make, F&& f) {
  std::vector<double> runs;
  for (int r = 0; r < kRuns; ++r) {
    std::vector<json::Value> inputs;
    std::vector<json::Value> results;
    inputs.reserve(kInner);
    results.reserve(kInner);
    for (int i = 0; i < kInner; ++i) inputs.push_back(make());
    const std::clock_t t0 = std::clock();
    for (json::Value& in : inputs) results.push_back(f(std::move(in)));
    const std::clock_t t1 = std::clock();
    runs.push_back(1e6 * static_cast<double>(t1 - t0) / CLOCKS_PER_SEC / kInner);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

// The peer: Ajv (tests/bench/peers, pinned) compiling the same schema once and validating the
// same answer (optional nulls already dropped: Ajv knows nothing of that step). Answers the
// median microseconds, or a negative number when node or the package is missing.
double ajv_us(const Schema& schema, const json::Value& cleaned) {
#ifdef AGENTKIT_SOURCE_DIR
  namespace fs = std::filesystem;
  const fs::path peers = fs::path(AGENTKIT_SOURCE_DIR) / "tests/bench/peers";
  if (!fs::exists(peers / "node_modules/ajv/package.json")) {
    std::printf("  ajv: skipped (run tools/install-test-deps: npm ci in tests/bench/peers)\n");
    return -1;
  }
  const fs::path dir = fs::temp_directory_path() / "agentkit_bench_answer";
  fs::create_directories(dir);
  std::ofstream(dir / "schema.json") << json::dump(schema.json());
  std::ofstream(dir / "answer.json") << json::dump(cleaned);
  const std::string cmd = "node " + (peers / "validate_answer.mjs").string() + " " +
                          (dir / "schema.json").string() + " " + (dir / "answer.json").string() +
                          " " + std::to_string(kRuns) + " " + std::to_string(kInner * 10);
  FILE* pipe = popen(cmd.c_str(), "r");
  double us = -1;
  char verdict[16] = {};
  if (pipe != nullptr) {
    if (std::fscanf(pipe, "%lf %15s", &us, verdict) != 2) us = -1;
    pclose(pipe);
  }
  fs::remove_all(dir);
  if (us < 0 || std::string(verdict) != "valid") {
    std::printf("  ajv: skipped (node did not report a figure for a valid answer)\n");
    return -1;
  }
  return us;
#else
  (void)schema;
  (void)cleaned;
  std::printf("  ajv: skipped (built without AGENTKIT_SOURCE_DIR)\n");
  return -1;
#endif
}

}  // namespace

int main() {
  const Schema schema = wide_schema();
  const json::Value answer = typical_answer();
  bool ok = true;
  std::printf("typed answers, 200-property schema (CPU time, median of %d x %d)\n", kRuns, kInner);
  for (SchemaDialect d :
       {SchemaDialect::openai_strict, SchemaDialect::anthropic, SchemaDialect::gemini}) {
    std::size_t sink = 0;
    const double us = median_us([&] { sink += lower_schema(schema.json(), d)->removed.size(); });
    std::printf("  lower %-14s %8.1f us  (bar %.0f us, %.2fx of it)  [%zu]\n",
                std::string(to_string(d)).c_str(), us, kLowerBarUs, us / kLowerBarUs, sink % 7);
    ok = ok && us < kLowerBarUs;
  }
  // What AnswerGate::judge does with the parsed answer it owns: drop the optional nulls in place,
  // then validate against the schema compiled once per run. The instance is moved in, never
  // copied.
  const CompiledSchema compiled(schema);
  std::size_t violations = 0;
  const double validate_us =
      median_us_consuming([&] { return answer; },
                          [&](json::Value in) {
                            json::Value cleaned = drop_optional_nulls(compiled, std::move(in));
                            violations += find_violations(compiled, cleaned).size();
                            return cleaned;
                          });
  std::printf("  validate typical answer %8.1f us  (bar %.0f us, %.2fx of it)  [violations %zu]\n",
              validate_us, kValidateBarUs, validate_us / kValidateBarUs, violations);
  ok = ok && validate_us < kValidateBarUs && violations == 0;
  const json::Value cleaned = drop_optional_nulls(schema, answer);
  const double check_us =
      median_us([&] { violations += find_violations(compiled, cleaned).size(); });
  std::printf("  find_violations, compiled   %8.1f us\n", check_us);
  const double plain_us = median_us([&] { violations += find_violations(schema, cleaned).size(); });
  std::printf("  find_violations, Schema     %8.1f us  (reads the keywords per node)\n", plain_us);
  std::size_t sink = 0;
  const double compile_us =
      median_us([&] { sink += CompiledSchema(schema).schema().json().size(); });
  std::printf("  compile the schema (per run) %7.1f us  [%zu]\n", compile_us, sink % 7);
  if (const double peer = ajv_us(schema, cleaned); peer > 0) {
    std::printf(
        "  ajv 8.20.0 (compiled)       %8.1f us  (compiled find_violations / ajv = %.2fx)\n", peer,
        check_us / peer);
  }
  std::printf("%s\n", ok ? "within the bars" : "OVER A BAR");
  return ok ? 0 : 1;
}
