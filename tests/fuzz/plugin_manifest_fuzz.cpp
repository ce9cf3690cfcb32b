// Fuzzes the plugin manifest parser: any bytes parse or fail with an Error that names the file,
// and a parsed manifest holds a valid name and, for a command hook, a non-empty command and at
// least one event.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agentkit/plugins.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto manifest = agentkit::parse_plugin_manifest(in, "fuzz/plugin.json");
  if (!manifest) {
    if (manifest.error().message.find("fuzz/plugin.json") == std::string_view::npos)
      __builtin_trap();
    return 0;
  }
  if (manifest->name.empty() || manifest->name.size() > 64) __builtin_trap();
  if (manifest->command_hook && manifest->command_hook->command.empty()) __builtin_trap();
  if (manifest->command_hook && manifest->command_hook->events.empty()) __builtin_trap();
  if (size > agentkit::kMaxManifestBytes) __builtin_trap();  // an oversized file never parses
  return 0;
}
