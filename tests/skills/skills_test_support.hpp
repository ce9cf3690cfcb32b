// Helpers shared by the skills tests: a canonical JSON form of a front-matter value (to compare
// with PyYAML's) and diagnostic lookups.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "agentkit/skills/front_matter.hpp"

namespace agentkit::skills::testing {

inline void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) of the same value.
inline std::string canonical_json(const YamlValue& v) {
  std::string out;
  if (v.kind == YamlValue::Kind::scalar) {
    append_json_string(out, v.text);
  } else if (v.kind == YamlValue::Kind::sequence) {
    out += '[';
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      if (i) out += ',';
      out += canonical_json(v.items[i]);
    }
    out += ']';
  } else {
    std::vector<const YamlEntry*> sorted;
    for (const auto& e : v.entries) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->key < b->key; });
    out += '{';
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i) out += ',';
      append_json_string(out, sorted[i]->key);
      out += ':';
      out += canonical_json(sorted[i]->value);
    }
    out += '}';
  }
  return out;
}

inline std::size_t count_code(const std::vector<Diagnostic>& notes, DiagnosticCode code) {
  return static_cast<std::size_t>(std::count_if(
      notes.begin(), notes.end(), [&](const Diagnostic& d) { return d.code == code; }));
}

inline std::string all_text(const std::vector<Diagnostic>& notes) {
  std::string out;
  for (const auto& d : notes) out += d.to_string() + "\n";
  return out;
}

}  // namespace agentkit::skills::testing
