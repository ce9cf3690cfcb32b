#include "scenario.hpp"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::difftest {

namespace {

Error scenario_error(const std::string& where, const std::string& what) {
  return fail(Errc::parse_error, "scenario " + where + ": " + what);
}

// Unknown members are errors (NFR-TEST-06.6): a misspelt option silently ignored would make a
// scenario test something other than what it says.
Result<void> only_known_members(const json::Object& o, std::initializer_list<std::string_view> known,
                                const std::string& where) {
  for (const json::Member& m : o) {
    if (std::find(known.begin(), known.end(), m.key) == known.end()) {
      return scenario_error(where, "unknown member \"" + m.key + "\"");
    }
  }
  return {};
}

Result<std::vector<std::string>> string_list(const json::Object& o, std::string_view key, const std::string& where) {
  std::vector<std::string> out;
  const json::Value* v = o.find(key);
  if (v == nullptr) return out;
  if (!v->is_array()) return scenario_error(where, "\"" + std::string(key) + "\" must be an array of strings");
  for (const json::Value& item : v->as_array()) {
    if (!item.is_string()) return scenario_error(where, "\"" + std::string(key) + "\" must hold strings");
    out.push_back(item.as_string());
  }
  return out;
}

std::string string_member(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

Result<std::vector<WireInfo>> load_wires(const std::filesystem::path& file) {
  Result<std::string> text = read_text_file(file);
  if (!text) return std::move(text).error();
  Result<json::Value> doc = json::parse(*text);
  if (!doc || !doc->find("wires") || !doc->find("wires")->is_object()) {
    return scenario_error(file.string(), "expected {\"wires\":{\"<api>\":{\"model\",\"sdk\"}}}");
  }
  std::vector<WireInfo> out;
  for (const json::Member& m : doc->find("wires")->as_object()) {
    const json::Object* w = m.value.get_object();
    if (w == nullptr) return scenario_error(file.string(), "wire " + m.key + " must be an object");
    if (auto ok = only_known_members(*w, {"model", "sdk", "about", "stream_content_type"}, file.string() + " " + m.key); !ok) {
      return std::move(ok).error();
    }
    WireInfo info{m.key, string_member(*w, "model"), string_member(*w, "sdk")};
    if (w->contains("stream_content_type")) info.stream_content_type = string_member(*w, "stream_content_type");
    if (info.model.find('/') == std::string::npos || info.sdk.empty()) {
      return scenario_error(file.string(), "wire " + m.key + " needs \"model\" as vendor/model-id and \"sdk\"");
    }
    out.push_back(std::move(info));
  }
  return out;
}

Result<void> read_canned(const json::Object& o, Scenario& s, const std::string& where) {
  const json::Value* canned = o.find("canned");
  if (canned == nullptr || !canned->is_object()) return scenario_error(where, "\"canned\" must map wires to replies");
  for (const json::Member& m : canned->as_object()) {
    const json::Object* c = m.value.get_object();
    if (c == nullptr) return scenario_error(where, "canned." + m.key + " must be an object");
    if (auto ok = only_known_members(*c, {"file", "content_type", "status"}, where + " canned." + m.key); !ok) {
      return std::move(ok).error();
    }
    CannedReply reply{string_member(*c, "file"), string_member(*c, "content_type"), 200};
    if (const json::Value* st = c->find("status")) reply.status = static_cast<int>(st->to_int64().value_or(0));
    if (reply.file.empty() || reply.content_type.empty()) {
      return scenario_error(where, "canned." + m.key + " needs \"file\" and \"content_type\"");
    }
    s.canned.emplace(m.key, std::move(reply));
    s.wires.push_back(m.key);
  }
  return {};
}

bool valid_split(std::string_view split) {
  if (split == "whole" || split == "inside_utf8") return true;
  constexpr std::string_view kEvery = "every:";
  if (split.substr(0, kEvery.size()) != kEvery || split.size() == kEvery.size()) return false;
  return std::all_of(split.begin() + kEvery.size(), split.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Result<Scenario> load_one(const std::filesystem::path& file, Direction direction, const std::vector<WireInfo>& wires) {
  Scenario s;
  s.direction = direction;
  s.id = std::string(direction == Direction::request ? "request/" : "response/") + file.stem().string();
  Result<std::string> text = read_text_file(file);
  if (!text) return std::move(text).error();
  Result<json::Value> doc = json::parse(*text);
  if (!doc || !doc->is_object()) return scenario_error(s.id, "not a JSON object");
  const json::Object& o = doc->as_object();
  auto known = direction == Direction::request
                   ? only_known_members(o, {"about", "stream", "request", "model_overrides", "reference", "wires",
                                            "order_sensitive_paths"}, s.id)
                   : only_known_members(o, {"about", "stream", "split", "request_from", "canned",
                                            "order_sensitive_paths"}, s.id);
  if (!known) return std::move(known).error();
  s.about = string_member(o, "about");
  if (s.about.empty()) return scenario_error(s.id, "\"about\" must say what the scenario checks");
  if (const json::Value* st = o.find("stream")) s.stream = st->get_bool().value_or(false);
  auto order = string_list(o, "order_sensitive_paths", s.id);
  if (!order) return std::move(order).error();
  s.order_sensitive_paths = std::move(*order);
  if (direction == Direction::request) {
    if (!o.contains("request")) return scenario_error(s.id, "missing \"request\"");
    auto listed = string_list(o, "wires", s.id);
    if (!listed) return std::move(listed).error();
    if (listed->empty()) {
      for (const WireInfo& w : wires) s.wires.push_back(w.api);
    } else {
      s.wires = std::move(*listed);
    }
  } else {
    s.split = o.contains("split") ? string_member(o, "split") : "whole";
    if (!valid_split(s.split)) return scenario_error(s.id, "\"split\" must be whole, inside_utf8 or every:<n>");
    s.request_from = string_member(o, "request_from");
    if (s.request_from.empty()) return scenario_error(s.id, "\"request_from\" must name a request scenario");
    if (auto ok = read_canned(o, s, s.id); !ok) return std::move(ok).error();
  }
  for (const std::string& w : s.wires) {
    if (std::none_of(wires.begin(), wires.end(), [&](const WireInfo& i) { return i.api == w; })) {
      return scenario_error(s.id, "wire \"" + w + "\" is not in wires.json");
    }
  }
  s.document = std::move(*doc);
  return s;
}

std::vector<std::filesystem::path> json_files(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const WireInfo* ScenarioSet::find_wire(const std::string& api) const {
  auto it = std::find_if(wires.begin(), wires.end(), [&](const WireInfo& w) { return w.api == api; });
  return it == wires.end() ? nullptr : &*it;
}

const Scenario* ScenarioSet::find(const std::string& id) const {
  auto it = std::find_if(scenarios.begin(), scenarios.end(), [&](const Scenario& s) { return s.id == id; });
  return it == scenarios.end() ? nullptr : &*it;
}

Result<std::string> read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Errc::not_found, "cannot read " + file.string());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Result<ScenarioSet> load_scenarios(const std::filesystem::path& folder) {
  ScenarioSet set;
  Result<std::vector<WireInfo>> wires = load_wires(folder / "wires.json");
  if (!wires) return std::move(wires).error();
  set.wires = std::move(*wires);
  for (auto [sub, direction] : {std::pair{"request", Direction::request}, std::pair{"response", Direction::response}}) {
    for (const auto& file : json_files(folder / sub)) {
      Result<Scenario> s = load_one(file, direction, set.wires);
      if (!s) return std::move(s).error();
      set.scenarios.push_back(std::move(*s));
    }
  }
  for (const Scenario& s : set.scenarios) {
    if (s.direction == Direction::response && set.find("request/" + s.request_from) == nullptr) {
      return scenario_error(s.id, "\"request_from\" names no request scenario: " + s.request_from);
    }
  }
  if (set.scenarios.empty()) return scenario_error(folder.string(), "no scenario files");
  return set;
}

}  // namespace agentkit::difftest
