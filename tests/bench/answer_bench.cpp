// Typed answers (issue 17): lowering a 200-property answer schema for each dialect, and validating
// a typical answer against the whole schema (drop optional nulls, then find_violations), the two
// costs a typed-answer run adds per request and per answer. Prints the median in microseconds
// against the bars: under 100 us to lower, under 20 us to validate a typical answer.
// Build: cmake --preset bench && cmake --build --preset bench --target bench_answer
#include <algorithm>
#include <ctime>
#include <cstdio>
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
  std::size_t violations = 0;
  const double validate_us = median_us([&] {
    json::Value cleaned = drop_optional_nulls(schema, answer);
    violations += find_violations(schema, cleaned).size();
  });
  std::printf("  validate typical answer %8.1f us  (bar %.0f us, %.2fx of it)  [violations %zu]\n",
              validate_us, kValidateBarUs, validate_us / kValidateBarUs, violations);
  ok = ok && validate_us < kValidateBarUs && violations == 0;
  std::printf("%s\n", ok ? "within the bars" : "OVER A BAR");
  return ok ? 0 : 1;
}
