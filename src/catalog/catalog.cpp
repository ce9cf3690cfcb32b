// Loading (strict), merging and resolving the model catalog (REQ-CAT-01..03).
#include "agentkit/catalog/catalog.hpp"

#include <algorithm>
#include <array>

#include "strict_reader.hpp"

namespace agentkit::catalog {

using detail::shape_error;
using detail::StrictObject;

namespace {

// The schema version this reader understands; a newer file must fail, not half-load.
constexpr std::int64_t kSchemaVersion = 1;

// A "YYYY-MM-DD" stamp: prices without the date they were read are not auditable (REQ-CAT-06).
bool is_iso_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

Result<ModelPricing::Tier> read_tier(const json::Value& v, const std::string& path) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  ModelPricing::Tier tier;
  auto above = obj->optional_count("above_input_tokens");
  if (!above) return above.error();
  if (!*above) return shape_error(obj->member_path("above_input_tokens"), "is required");
  tier.above_input_tokens = **above;
  for (auto [key, field] : {std::pair{"input", &tier.input}, std::pair{"output", &tier.output},
                            std::pair{"cache_read", &tier.cache_read}, std::pair{"cache_write", &tier.cache_write}}) {
    auto p = obj->optional_price(key);
    if (!p) return p.error();
    *field = p->value_or(0);
  }
  if (auto done = obj->finish(); !done) return done.error();
  return tier;
}

Result<ModelPricing> read_pricing(const json::Value& v, const std::string& path) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  ModelPricing pricing;
  for (auto [key, field] : {std::pair{"input", &pricing.input}, std::pair{"output", &pricing.output},
                            std::pair{"cache_read", &pricing.cache_read},
                            std::pair{"cache_write", &pricing.cache_write}}) {
    auto p = obj->optional_price(key);
    if (!p) return p.error();
    *field = p->value_or(0);
  }
  auto as_of = obj->required_string("as_of");
  if (!as_of) return as_of.error();
  if (!is_iso_date(*as_of)) return shape_error(obj->member_path("as_of"), "expected a date YYYY-MM-DD");
  pricing.as_of = std::move(*as_of);
  if (const json::Value* tiers = obj->take("tiers")) {
    const json::Array* items = tiers->get_array();
    if (items == nullptr) return shape_error(obj->member_path("tiers"), "expected an array");
    std::int64_t previous = -1;
    for (std::size_t i = 0; i < items->size(); ++i) {
      auto tier = read_tier((*items)[i], obj->member_path("tiers") + "[" + std::to_string(i) + "]");
      if (!tier) return tier.error();
      // Ascending thresholds make "the highest tier strictly exceeded" a single scan.
      if (tier->above_input_tokens <= previous) {
        return shape_error(obj->member_path("tiers"), "thresholds must be strictly ascending");
      }
      previous = tier->above_input_tokens;
      pricing.tiers.push_back(*tier);
    }
  }
  if (auto done = obj->finish(); !done) return done.error();
  return pricing;
}

// "thinking": level -> wire value, null = explicitly unsupported (REQ-PROV-15). Levels minimal..high
// default to supported on a reasoning row; off, xhigh and max are opt-in.
Result<void> read_thinking(const json::Value* v, const std::string& path, Model& model) {
  constexpr std::array kDefaultOn = {ThinkingLevel::minimal, ThinkingLevel::low, ThinkingLevel::medium,
                                     ThinkingLevel::high};
  json::Object wire_values;
  std::array<std::optional<bool>, 7> stated{};  // per level: explicitly supported / unsupported
  if (v != nullptr) {
    if (!model.reasoning) return shape_error(path, "a row with \"reasoning\": false cannot list thinking levels");
    const json::Object* levels = v->get_object();
    if (levels == nullptr) return shape_error(path, "expected an object of level -> wire value");
    for (const auto& m : *levels) {
      auto level = parse_thinking_level(m.key);
      if (!level) return shape_error(path + "." + m.key, "unknown thinking level (off, minimal, low, medium, high, xhigh, max)");
      bool supported = !m.value.is_null();
      stated[static_cast<std::size_t>(*level)] = supported;
      if (supported) wire_values.set(m.key, m.value);
    }
  }
  if (!model.reasoning) return {};
  json::Object ordered;
  for (std::size_t i = 0; i < stated.size(); ++i) {
    auto level = static_cast<ThinkingLevel>(i);
    bool default_on = std::find(kDefaultOn.begin(), kDefaultOn.end(), level) != kDefaultOn.end();
    if (!stated[i].value_or(default_on)) continue;
    model.thinking_levels.push_back(level);
    const json::Value* value = wire_values.find(to_string(level));
    ordered.set(std::string(to_string(level)), value ? *value : json::Value(std::string(to_string(level))));
  }
  model.compat.as_object().set("thinking_level_map", json::Value(std::move(ordered)));
  return {};
}

Result<bool> read_image_input(StrictObject& obj) {
  auto modalities = obj.optional_string_list("input");
  if (!modalities) return modalities.error();
  bool image = false;
  for (const auto& m : *modalities) {
    if (m == "image") {
      image = true;
    } else if (m != "text") {
      return shape_error(obj.member_path("input"), "unknown modality '" + m + "' (text, image)");
    }
  }
  return image;
}

struct VendorDefaults {
  std::string id;
  std::string api;
  std::string base_url;
  const std::vector<std::pair<std::string, std::string>>* headers;
};

Result<Model> read_model(const json::Value& v, const std::string& path, std::string id, const VendorDefaults& vendor) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  Model m;
  m.id = std::move(id);
  m.vendor = vendor.id;
  auto name = obj->optional_string("name");
  auto api = obj->optional_string("api");
  auto base_url = obj->optional_string("base_url");
  auto window = obj->optional_count("context_window");
  auto output = obj->optional_count("max_output_tokens");
  auto reasoning = obj->optional_bool("reasoning");
  for (const Error* e : {name ? nullptr : &name.error(), api ? nullptr : &api.error(),
                         base_url ? nullptr : &base_url.error(), window ? nullptr : &window.error(),
                         output ? nullptr : &output.error(), reasoning ? nullptr : &reasoning.error()}) {
    if (e != nullptr) return *e;
  }
  m.name = name->value_or(m.id);
  m.api = api->value_or(vendor.api);
  m.base_url = base_url->value_or(vendor.base_url);
  if (m.api.empty()) return shape_error(path, "no api: set it on the row or on its vendor");
  m.context_window = window->value_or(0);
  m.max_output_tokens = output->value_or(0);
  m.reasoning = reasoning->value_or(false);
  auto image = read_image_input(*obj);
  if (!image) return image.error();
  m.image_input = *image;

  const json::Value* pricing = obj->take("pricing");
  if (pricing == nullptr) return shape_error(obj->member_path("pricing"), "is required (all zero for a local server)");
  auto priced = read_pricing(*pricing, obj->member_path("pricing"));
  if (!priced) return priced.error();
  m.pricing = std::move(*priced);

  m.compat = json::Object{};
  if (const json::Value* compat = obj->take("compat")) {
    if (auto ok = validate_compat(m.api, *compat, obj->member_path("compat")); !ok) return ok.error();
    if (compat->find("thinking_level_map") != nullptr) {
      return shape_error(obj->member_path("compat.thinking_level_map"), "set the row's \"thinking\" member instead");
    }
    m.compat = *compat;
  }
  if (auto ok = read_thinking(obj->take("thinking"), obj->member_path("thinking"), m); !ok) return ok.error();

  m.headers = *vendor.headers;
  auto headers = obj->optional_string_map("headers");
  if (!headers) return headers.error();
  m.headers.insert(m.headers.end(), headers->begin(), headers->end());
  auto notes = obj->optional_string("notes");
  if (!notes) return notes.error();
  if (auto done = obj->finish(); !done) return done.error();
  return m;
}

Result<CredentialVariable> read_variable(const json::Value& v, const std::string& path) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  CredentialVariable var;
  auto name = obj->required_string("name");
  auto header = obj->required_string("header");
  auto prefix = obj->optional_string("prefix");
  auto headers = obj->optional_string_map("headers");
  if (!name) return name.error();
  if (!header) return header.error();
  if (!prefix) return prefix.error();
  if (!headers) return headers.error();
  var.name = std::move(*name);
  var.header = std::move(*header);
  var.prefix = prefix->value_or("");
  var.headers = std::move(*headers);
  if (auto done = obj->finish(); !done) return done.error();
  return var;
}

Result<VendorAuth> read_auth(const json::Value& v, const std::string& path) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  VendorAuth auth;
  if (const json::Value* vars = obj->take("variables")) {
    const json::Array* items = vars->get_array();
    if (items == nullptr) return shape_error(obj->member_path("variables"), "expected an array");
    for (std::size_t i = 0; i < items->size(); ++i) {
      auto var = read_variable((*items)[i], obj->member_path("variables") + "[" + std::to_string(i) + "]");
      if (!var) return var.error();
      auth.variables.push_back(std::move(*var));
    }
  }
  auto base_vars = obj->optional_string_list("base_url_variables");
  auto required = obj->optional_bool("required");
  if (!base_vars) return base_vars.error();
  if (!required) return required.error();
  auth.base_url_variables = std::move(*base_vars);
  auth.required = required->value_or(true);
  if (const json::Value* oauth = obj->take("oauth")) {
    auto o = StrictObject::open(*oauth, obj->member_path("oauth"));
    if (!o) return o.error();
    auto prefix = o->optional_string("token_prefix");
    auto headers = o->optional_string_map("headers");
    if (!prefix) return prefix.error();
    if (!headers) return headers.error();
    auth.oauth_token_prefix = prefix->value_or("");
    auth.oauth_headers = std::move(*headers);
    if (auto done = o->finish(); !done) return done.error();
  }
  if (auto done = obj->finish(); !done) return done.error();
  return auth;
}

Result<Vendor> read_vendor(const json::Value& v, const std::string& path, std::string id) {
  auto obj = StrictObject::open(v, path);
  if (!obj) return obj.error();
  Vendor vendor;
  vendor.id = std::move(id);
  auto name = obj->optional_string("name");
  auto api = obj->optional_string("api");
  auto base_url = obj->optional_string("base_url");
  auto default_model = obj->optional_string("default_model");
  auto headers = obj->optional_string_map("headers");
  auto attribution = obj->optional_string_map("attribution_headers");
  auto sources = obj->optional_string_list("sources");
  auto notes = obj->optional_string("notes");
  for (const Error* e : {name ? nullptr : &name.error(), api ? nullptr : &api.error(),
                         base_url ? nullptr : &base_url.error(), default_model ? nullptr : &default_model.error(),
                         headers ? nullptr : &headers.error(), attribution ? nullptr : &attribution.error(),
                         sources ? nullptr : &sources.error(), notes ? nullptr : &notes.error()}) {
    if (e != nullptr) return *e;
  }
  vendor.name = name->value_or(vendor.id);
  vendor.default_model = default_model->value_or("");
  vendor.attribution_headers = std::move(*attribution);
  vendor.sources = std::move(*sources);
  if (const json::Value* auth = obj->take("auth")) {
    auto a = read_auth(*auth, obj->member_path("auth"));
    if (!a) return a.error();
    vendor.auth = std::move(*a);
  }
  const json::Value* models = obj->take("models");
  const json::Object* rows = models ? models->get_object() : nullptr;
  if (rows == nullptr) return shape_error(obj->member_path("models"), "is required: an object of model id -> row");
  VendorDefaults defaults{vendor.id, api->value_or(""), base_url->value_or(""), &*headers};
  for (const auto& row : *rows) {
    if (row.key.empty()) return shape_error(obj->member_path("models"), "a model id is empty");
    auto model = read_model(row.value, obj->member_path("models") + "." + row.key, row.key, defaults);
    if (!model) return model.error();
    vendor.models.push_back(std::move(*model));
  }
  if (vendor.models.empty()) return shape_error(obj->member_path("models"), "lists no model");
  if (vendor.default_model.empty()) vendor.default_model = vendor.models.front().id;
  bool found = std::any_of(vendor.models.begin(), vendor.models.end(),
                           [&](const Model& m) { return m.id == vendor.default_model; });
  if (!found) return shape_error(obj->member_path("default_model"), "names '" + vendor.default_model + "', which is not a row of this vendor");
  if (auto done = obj->finish(); !done) return done.error();
  return vendor;
}

// A vendor id is the text before the first slash of a spec, so it can never contain one.
bool is_valid_vendor_id(std::string_view id) {
  return !id.empty() && id.find('/') == std::string_view::npos;
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

// The one place that builds a Catalog from parsed pieces (parse and merge).
struct CatalogBuilder {
  static Catalog make(std::string version, std::vector<Vendor> vendors) {
    Catalog c;
    c.version_ = std::move(version);
    c.vendors_ = std::move(vendors);
    return c;
  }
  static std::vector<Vendor>& vendors(Catalog& c) { return c.vendors_; }
};

Result<Catalog> Catalog::parse(std::string_view json_text) {
  auto doc = json::parse(json_text);
  if (!doc) {
    Error e = doc.error();
    e.message = "catalog: not valid JSON: " + e.message;
    return e;
  }
  auto top = StrictObject::open(*doc, "");
  if (!top) return top.error();
  auto schema = top->optional_count("schema");
  if (!schema) return schema.error();
  if (!*schema || **schema != kSchemaVersion) {
    return shape_error("schema", "expected schema " + std::to_string(kSchemaVersion) + " (this reader's version)");
  }
  auto version = top->optional_string("version");
  if (!version) return version.error();
  const json::Value* vendors = top->take("vendors");
  const json::Object* rows = vendors ? vendors->get_object() : nullptr;
  if (rows == nullptr) return shape_error("vendors", "is required: an object of vendor id -> vendor");
  std::vector<Vendor> out;
  for (const auto& row : *rows) {
    if (!is_valid_vendor_id(row.key)) return shape_error("vendors", "vendor id '" + row.key + "' is empty or contains '/'");
    auto vendor = read_vendor(row.value, "vendors." + row.key, row.key);
    if (!vendor) return vendor.error();
    out.push_back(std::move(*vendor));
  }
  if (auto done = top->finish(); !done) return done.error();
  return CatalogBuilder::make(version->value_or(""), std::move(out));
}

Catalog Catalog::merged_with(const Catalog& overlay) const {
  Catalog merged = *this;
  auto& vendors = CatalogBuilder::vendors(merged);
  for (const Vendor& incoming : overlay.vendors_) {
    auto it = std::find_if(vendors.begin(), vendors.end(), [&](const Vendor& v) { return v.id == incoming.id; });
    if (it == vendors.end()) {
      vendors.push_back(incoming);
      continue;
    }
    std::vector<Model> rows = std::move(it->models);
    for (const Model& m : incoming.models) {
      auto same = std::find_if(rows.begin(), rows.end(), [&](const Model& r) { return r.id == m.id; });
      if (same != rows.end()) {
        *same = m;
      } else {
        rows.push_back(m);
      }
    }
    *it = incoming;
    it->models = std::move(rows);
  }
  if (!overlay.version_.empty()) merged.version_ = overlay.version_;
  return merged;
}

const Vendor* Catalog::vendor(std::string_view id) const noexcept {
  for (const auto& v : vendors_) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

const Model* Catalog::find(std::string_view vendor_id, std::string_view model_id) const noexcept {
  const Vendor* v = vendor(vendor_id);
  if (v == nullptr) return nullptr;
  for (const auto& m : v->models) {
    if (m.id == model_id) return &m;
  }
  return nullptr;
}

std::vector<std::string> Catalog::vendor_ids() const {
  std::vector<std::string> ids;
  for (const auto& v : vendors_) ids.push_back(v.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

namespace {

// REQ-CAT-03: the sibling sharing the longest id prefix; ties (and no shared prefix at all) go to
// the vendor's default row when it is among them, else to the first in file order (newest first).
const Model& closest_sibling(const Vendor& vendor, std::string_view id) {
  const Model* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& m : vendor.models) {
    std::size_t len = common_prefix(m.id, id);
    bool better = best == nullptr || len > best_len ||
                  (len == best_len && m.id == vendor.default_model && best->id != vendor.default_model);
    if (better) {
      best = &m;
      best_len = len;
    }
  }
  if (best_len == 0) {
    for (const auto& m : vendor.models) {
      if (m.id == vendor.default_model) return m;
    }
  }
  return *best;
}

Model clone_for(const Vendor& vendor, std::string_view id) {
  const Model& sibling = closest_sibling(vendor, id);
  Model m = sibling;
  m.id = std::string(id);
  m.name = std::string(id);
  m.cloned_from = sibling.id;
  return m;
}

std::string known_vendors_text(const Catalog& c) {
  std::string out;
  for (const auto& id : c.vendor_ids()) {
    if (!out.empty()) out += ", ";
    out += id;
  }
  return out;
}

}  // namespace

Result<Model> Catalog::resolve(std::string_view spec) const {
  if (spec.empty()) return fail(Errc::invalid_argument, "empty model spec; expected \"vendor/model-id\"");
  auto slash = spec.find('/');
  if (slash != std::string_view::npos) {
    std::string_view vendor_id = spec.substr(0, slash);
    std::string_view id = spec.substr(slash + 1);
    if (const Vendor* v = vendor(vendor_id)) {
      if (id.empty()) {
        return fail(Errc::invalid_argument, "model spec '" + std::string(spec) + "' names vendor '" +
                                                std::string(vendor_id) + "' but no model id")
            .with_detail("vendor", std::string(vendor_id));
      }
      if (const Model* m = find(vendor_id, id)) return *m;
      return clone_for(*v, id);
    }
  }
  // A bare id (or a slash whose first segment is no vendor, like "meta-llama/llama-3"): accepted
  // only when exactly one vendor lists it — never a guess between two (REQ-CAT-02).
  std::vector<const Model*> matches;
  for (const auto& v : vendors_) {
    for (const auto& m : v.models) {
      if (m.id == spec) matches.push_back(&m);
    }
  }
  if (matches.size() == 1) return *matches.front();
  if (matches.size() > 1) {
    std::string owners;
    for (const Model* m : matches) owners += (owners.empty() ? "" : ", ") + m->vendor + "/" + m->id;
    return fail(Errc::invalid_argument, "model id '" + std::string(spec) + "' is listed by several vendors (" +
                                            owners + "); write it as \"vendor/model-id\"")
        .with_detail("spec", std::string(spec));
  }
  std::string first = std::string(spec.substr(0, slash == std::string_view::npos ? spec.size() : slash));
  std::string text = slash == std::string_view::npos
                         ? "unknown model '" + std::string(spec) + "' (no vendor lists it); write it as \"vendor/" +
                               std::string(spec) + "\"; known vendors: " + known_vendors_text(*this)
                         : "unknown vendor '" + first + "' in model spec '" + std::string(spec) +
                               "'; known vendors: " + known_vendors_text(*this);
  return fail(Errc::not_found, std::move(text)).with_detail("vendor", first);
}

}  // namespace agentkit::catalog
