#include "driver.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <string_view>
#include <utility>

#include "agentkit/catalog/catalog.hpp"
#include "our_wires.hpp"

namespace agentkit::difftest {

Result<DriverArgs> parse_driver_args(int argc, char** argv) {
  DriverArgs args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return fail(Errc::invalid_argument, std::string(flag) + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--source") args.source = value;
    else if (flag == "--out") args.out = value;
    else if (flag == "--only-wire") args.only_wire = value;
    else return fail(Errc::invalid_argument, "unknown option " + std::string(flag) + " (--source, --out, --only-wire)");
  }
  if (args.source.empty() || args.out.empty()) return fail(Errc::invalid_argument, "--source and --out are required");
  return args;
}

void prepare_credentials(const ScenarioSet& set) {
  std::set<std::string> vendors;
  for (const WireInfo& w : set.wires) vendors.insert(w.model.substr(0, w.model.find('/')));
  for (const std::string& id : vendors) {
    const catalog::Vendor* vendor = catalog::Catalog::builtin().vendor(id);
    if (vendor == nullptr) continue;
    // Called before any thread exists (the recorders start later), so setenv is safe here.
    for (const std::string& variable : vendor->auth.base_url_variables) ::unsetenv(variable.c_str());
    bool first = true;
    for (const catalog::CredentialVariable& v : vendor->auth.variables) {
      if (first) ::setenv(v.name.c_str(), kDifftestKey, 1);
      else ::unsetenv(v.name.c_str());
      first = false;
    }
  }
}

Result<std::shared_ptr<ProviderClient>> our_client(const ProviderRegistry& registry, const std::string& api) {
  Result<std::shared_ptr<ProviderClient>> client = registry.find(api);
  if (client) return client;
  return fail(Errc::not_found, "our wire '" + api + "' is not available (" + describe_wire_source() + ")");
}

void write_record(const DriverArgs& args, const Record& record) {
  const std::filesystem::path file = args.out / record.scenario / (record.wire + ".json");
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << serialise_record(record);
}

Record error_record(const Scenario& s, const std::string& wire, std::string error) {
  Record r;
  r.scenario = s.id;
  r.wire = wire;
  r.side = "ours";
  r.error = std::move(error);
  return r;
}

}  // namespace agentkit::difftest
