// The comparator: a recursive walk over two agentkit_json documents.
#include "compare.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::difftest {

namespace {

struct KindName {
  DivergenceKind kind;
  std::string_view name;
};

// The ledger spells kinds exactly like this; a new kind needs a new row.
constexpr std::array<KindName, 7> kKindNames{{
    {DivergenceKind::value, "value"},
    {DivergenceKind::type, "type"},
    {DivergenceKind::only_reference, "only-reference"},
    {DivergenceKind::only_ours, "only-ours"},
    {DivergenceKind::order, "order"},
    {DivergenceKind::missing, "missing"},
    {DivergenceKind::reference_failed, "reference-failed"},
}};

bool is_plain_name(std::string_view key) noexcept {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '$' || c == ':' || c == '/';
  });
}

class Walker {
 public:
  explicit Walker(const CompareOptions& options) : options_(options) {}

  void walk(const json::Value& ref, const json::Value& ours, const std::string& path) {
    if (ref.type() != ours.type()) {
      add(path, DivergenceKind::type, ref, ours);
      return;
    }
    switch (ref.type()) {
      case json::Type::null:
        return;
      case json::Type::boolean:
        if (ref.as_bool() != ours.as_bool()) add(path, DivergenceKind::value, ref, ours);
        return;
      case json::Type::number:
        // The literal text is the value: "1.0" and "1" differ, and no double is involved.
        if (ref.number_text() != ours.number_text()) add(path, DivergenceKind::value, ref, ours);
        return;
      case json::Type::string:
        if (ref.as_string() != ours.as_string()) add(path, DivergenceKind::value, ref, ours);
        return;
      case json::Type::raw:
        if (ref.get_raw()->bytes() != ours.get_raw()->bytes()) add(path, DivergenceKind::value, ref, ours);
        return;
      case json::Type::array:
        walk_array(ref.as_array(), ours.as_array(), path);
        return;
      case json::Type::object:
        walk_object(ref.as_object(), ours.as_object(), path);
        return;
    }
  }

  Comparison take() && { return std::move(result_); }

 private:
  void walk_array(const json::Array& ref, const json::Array& ours, const std::string& path) {
    // Element i against element i: arrays are never sorted, so a reordering shows as values.
    const std::size_t common = std::min(ref.size(), ours.size());
    for (std::size_t i = 0; i < common; ++i) walk(ref[i], ours[i], element_path(path, i));
    for (std::size_t i = common; i < ref.size(); ++i) {
      add_one_sided(element_path(path, i), DivergenceKind::only_reference, render_short(ref[i]), {});
    }
    for (std::size_t i = common; i < ours.size(); ++i) {
      add_one_sided(element_path(path, i), DivergenceKind::only_ours, {}, render_short(ours[i]));
    }
  }

  void walk_object(const json::Object& ref, const json::Object& ours, const std::string& path) {
    for (const json::Member& m : ref) {
      const std::string child = member_path(path, m.key);
      if (const json::Value* other = ours.find(m.key)) {
        walk(m.value, *other, child);
      } else {
        // A null member is a member: {"a":null} against {} is a divergence here.
        add_one_sided(child, DivergenceKind::only_reference, render_short(m.value), {});
      }
    }
    for (const json::Member& m : ours) {
      if (!ref.contains(m.key)) {
        add_one_sided(member_path(path, m.key), DivergenceKind::only_ours, {}, render_short(m.value));
      }
    }
    check_order(ref, ours, path);
  }

  // Member order goes to the side channel unless the scenario says it matters here.
  void check_order(const json::Object& ref, const json::Object& ours, const std::string& path) {
    std::vector<std::string> ref_keys;
    std::vector<std::string> our_keys;
    for (const json::Member& m : ref) {
      if (ours.contains(m.key)) ref_keys.push_back(m.key);
    }
    for (const json::Member& m : ours) {
      if (ref.contains(m.key)) our_keys.push_back(m.key);
    }
    if (ref_keys == our_keys) return;
    OrderNote note{path, std::move(ref_keys), std::move(our_keys)};
    if (order_sensitive(path)) {
      result_.divergences.push_back(Divergence{path, DivergenceKind::order, join(note.reference_keys),
                                               join(note.our_keys)});
    }
    result_.order_notes.push_back(std::move(note));
  }

  bool order_sensitive(const std::string& path) const {
    return std::any_of(options_.order_sensitive_paths.begin(), options_.order_sensitive_paths.end(),
                       [&](const std::string& glob) { return glob_match(glob, path); });
  }

  static std::string join(const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& k : keys) {
      if (!out.empty()) out += ',';
      out += k;
    }
    return out;
  }

  void add(const std::string& path, DivergenceKind kind, const json::Value& ref, const json::Value& ours) {
    result_.divergences.push_back(Divergence{path, kind, render_short(ref), render_short(ours)});
  }
  void add_one_sided(const std::string& path, DivergenceKind kind, std::string ref, std::string ours) {
    result_.divergences.push_back(Divergence{path, kind, std::move(ref), std::move(ours)});
  }

  const CompareOptions& options_;
  Comparison result_;
};

}  // namespace

std::string_view to_string(DivergenceKind kind) noexcept {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::optional<DivergenceKind> parse_divergence_kind(std::string_view text) noexcept {
  for (const KindName& k : kKindNames) {
    if (k.name == text) return k.kind;
  }
  return std::nullopt;
}

Comparison compare_documents(const json::Value& reference, const json::Value& ours,
                             const CompareOptions& options, std::string_view root) {
  Walker walker(options);
  walker.walk(reference, ours, std::string(root));
  return std::move(walker).take();
}

std::string member_path(std::string_view path, std::string_view key) {
  std::string out(path);
  if (is_plain_name(key)) {
    out += '.';
    out += key;
  } else {
    out += '[';
    json::append_quoted(out, key);
    out += ']';
  }
  return out;
}

std::string element_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  // Iterative wildcard match with one backtrack point: linear in practice, no recursion.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string render_short(const json::Value& value, std::size_t max_chars) {
  std::string text = json::dump(value);
  if (text.size() > max_chars) {
    // Cut on a UTF-8 character boundary so the report stays valid text.
    std::size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
    text.resize(cut);
    text += "...";
  }
  return text;
}

std::string format_order_note(const OrderNote& note) {
  std::string line = note.path;
  line += '\t';
  for (std::size_t i = 0; i < note.reference_keys.size(); ++i) line += (i ? "," : "") + note.reference_keys[i];
  line += '\t';
  for (std::size_t i = 0; i < note.our_keys.size(); ++i) line += (i ? "," : "") + note.our_keys[i];
  return line;
}

}  // namespace agentkit::difftest
