#include "records.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/utf8.hpp"

namespace agentkit::difftest {

namespace {

Error record_error(const std::string& what) {
  return fail(Errc::parse_error, "difftest record: " + what);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string text_member(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

Result<CapturedRequest> parse_request(const json::Value& v) {
  const json::Object* o = v.get_object();
  if (o == nullptr) return record_error("\"request\" must be an object");
  CapturedRequest r;
  r.method = text_member(*o, "method");
  r.target = text_member(*o, "target");
  if (const json::Value* h = o->find("headers")) {
    if (!h->is_array()) return record_error("\"request.headers\" must be an array of [name, value]");
    for (const json::Value& pair : h->as_array()) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
        return record_error("each header must be a [name, value] pair of strings");
      }
      r.headers.emplace_back(pair[0].as_string(), pair[1].as_string());
    }
  }
  if (const json::Value* b = o->find("body_base64"); b != nullptr && b->is_string()) {
    Result<std::string> bytes = base64::decode(b->as_string());
    if (!bytes) return record_error("\"body_base64\" is not base64");
    r.body = std::move(*bytes);
  } else {
    r.body = text_member(*o, "body");
  }
  return r;
}

json::Value body_value(const std::string& body) {
  if (Result<json::Value> parsed = json::parse(body)) return std::move(*parsed);
  return json::Value(body);  // not JSON: compared as text
}

PairComparison one_sided(DivergenceKind kind, std::string reference, std::string ours) {
  PairComparison out;
  out.comparison.divergences.push_back(Divergence{"$", kind, std::move(reference), std::move(ours)});
  return out;
}

}  // namespace

Result<Record> parse_record(std::string_view text) {
  Result<json::Value> doc = json::parse(text);
  if (!doc) return record_error("not valid JSON: " + doc.error().to_string());
  const json::Object* o = doc->get_object();
  if (o == nullptr) return record_error("the top level must be an object");
  Record r;
  r.scenario = text_member(*o, "scenario");
  r.wire = text_member(*o, "wire");
  r.side = text_member(*o, "side");
  r.error = text_member(*o, "error");
  if (const json::Value* req = o->find("request")) {
    Result<CapturedRequest> parsed = parse_request(*req);
    if (!parsed) return std::move(parsed).error();
    r.request = std::move(*parsed);
  }
  if (const json::Value* view = o->find("view")) r.view = *view;
  if (r.error.empty() && !r.request && !r.view) {
    return record_error("a record needs \"request\", \"view\" or \"error\"");
  }
  return r;
}

Result<Record> load_record(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Errc::not_found, "difftest record " + file.string() + " does not exist");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<Record> r = parse_record(text);
  if (!r) return fail(r.error().code, r.error().message + " (" + file.string() + ")");
  return r;
}

std::string serialise_record(const Record& record) {
  json::Object o{{"scenario", record.scenario}, {"wire", record.wire}, {"side", record.side}};
  if (!record.error.empty()) o.append_unique("error", record.error);
  if (record.request) {
    json::Array headers;
    for (const auto& [name, value] : record.request->headers) headers.push_back(json::Array{name, value});
    json::Object req{{"method", record.request->method}, {"target", record.request->target},
                     {"headers", std::move(headers)}};
    if (utf8::is_valid(record.request->body)) {
      req.append_unique("body", record.request->body);
    } else {
      req.append_unique("body_base64", base64::encode(record.request->body));
    }
    o.append_unique("request", std::move(req));
  }
  if (record.view) o.append_unique("view", *record.view);
  return json::dump(o, {.indent = 1}) + "\n";
}

bool header_value_is_incidental(std::string_view lowercase_name) noexcept {
  return lowercase_name == "host" || lowercase_name == "content-length";
}

json::Value request_document(const CapturedRequest& request) {
  std::map<std::string, std::string> headers;  // sorted by lowercase name
  for (const auto& [name, value] : request.headers) {
    const std::string key = lowercase(name);
    std::string shown = header_value_is_incidental(key) ? std::string("(present)") : value;
    auto [it, inserted] = headers.emplace(key, shown);
    if (!inserted && !header_value_is_incidental(key)) it->second += ", " + value;
  }
  json::Object header_doc;
  for (auto& [name, value] : headers) header_doc.append_unique(name, std::move(value));
  json::Object doc{{"method", request.method}, {"target", request.target}, {"headers", std::move(header_doc)}};
  if (!request.body.empty()) doc.append_unique("body", body_value(request.body));
  return doc;
}

PairComparison compare_records(const std::optional<Record>& reference, const std::optional<Record>& ours,
                               const CompareOptions& options) {
  if (!reference || !reference->error.empty()) {
    return one_sided(DivergenceKind::reference_failed,
                     reference ? reference->error : "the reference producer wrote no record", {});
  }
  if (!ours || !ours->error.empty()) {
    return one_sided(DivergenceKind::missing, {}, ours ? ours->error : "our driver wrote no record");
  }
  PairComparison out;
  out.compared = true;
  if (reference->request && ours->request) {
    out.comparison = compare_documents(request_document(*reference->request), request_document(*ours->request), options);
  } else if (reference->view && ours->view) {
    out.comparison = compare_documents(*reference->view, *ours->view, options);
  } else {
    out.comparison.divergences.push_back(
        Divergence{"$", DivergenceKind::type, reference->request ? "request" : "view", ours->request ? "request" : "view"});
  }
  return out;
}

}  // namespace agentkit::difftest
