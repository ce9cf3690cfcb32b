#include "ledger.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/json/value.hpp"

namespace agentkit::difftest {

namespace {

constexpr std::array<std::string_view, 5> kEntryKeys{"wire", "scenario", "path", "kind", "reason"};

Error ledger_error(const std::string& where, const std::string& what) {
  return fail(Errc::parse_error, "ledger " + where + ": " + what +
                                     "; each entry is {\"wire\",\"scenario\",\"path\",\"kind\",\"reason\"}");
}

Result<std::string> required_text(const json::Object& entry, std::string_view key, const std::string& where) {
  const json::Value* v = entry.find(key);
  if (v == nullptr) return ledger_error(where, "missing \"" + std::string(key) + "\"");
  if (!v->is_string() || v->as_string().empty()) {
    return ledger_error(where, "\"" + std::string(key) + "\" must be a non-empty string");
  }
  return v->as_string();
}

Result<LedgerEntry> parse_entry(const json::Value& value, std::size_t index) {
  const std::string where = "entry " + std::to_string(index);
  const json::Object* o = value.get_object();
  if (o == nullptr) return ledger_error(where, "not an object");
  for (const json::Member& m : *o) {
    bool known = false;
    for (std::string_view k : kEntryKeys) known = known || m.key == k;
    if (!known) return ledger_error(where, "unknown member \"" + m.key + "\"");
  }
  LedgerEntry e;
  e.index = index;
  Result<std::string> fields[] = {required_text(*o, "wire", where), required_text(*o, "scenario", where),
                                  required_text(*o, "path", where), required_text(*o, "kind", where),
                                  required_text(*o, "reason", where)};
  for (auto& f : fields) {
    if (!f) return std::move(f).error();
  }
  e.wire = std::move(*fields[0]);
  e.scenario = std::move(*fields[1]);
  e.path = std::move(*fields[2]);
  auto kind = parse_divergence_kind(*fields[3]);
  if (!kind) {
    return ledger_error(where, "unknown kind \"" + *fields[3] +
                                   "\" (value, type, only-reference, only-ours, order, missing, reference-failed)");
  }
  e.kind = *kind;
  e.reason = std::move(*fields[4]);
  return e;
}

}  // namespace

bool LedgerEntry::applies_to(std::string_view scenario_name, std::string_view wire_name) const noexcept {
  return glob_match(wire, wire_name) && glob_match(scenario, scenario_name);
}

bool LedgerEntry::covers(std::string_view scenario_name, std::string_view wire_name, const Divergence& d) const noexcept {
  return d.kind == kind && applies_to(scenario_name, wire_name) && glob_match(path, d.path);
}

std::string LedgerEntry::describe() const {
  return "entry " + std::to_string(index) + " (" + wire + " / " + scenario + " / " + path + " / " +
         std::string(to_string(kind)) + ")";
}

Result<std::vector<LedgerEntry>> parse_ledger(std::string_view text) {
  Result<json::Value> doc = json::parse(text);
  if (!doc) return ledger_error("file", "not valid JSON: " + doc.error().to_string());
  const json::Object* top = doc->get_object();
  if (top == nullptr) return ledger_error("file", "the top level must be an object");
  for (const json::Member& m : *top) {
    if (m.key != "entries" && m.key != "about") return ledger_error("file", "unknown member \"" + m.key + "\"");
  }
  const json::Value* entries = top->find("entries");
  if (entries == nullptr || !entries->is_array()) return ledger_error("file", "\"entries\" must be an array");
  std::vector<LedgerEntry> out;
  out.reserve(entries->size());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    Result<LedgerEntry> e = parse_entry(entries->as_array()[i], i + 1);
    if (!e) return std::move(e).error();
    out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace agentkit::difftest
