// A strict reader over one JSON object of the catalog: every member must be read (an unread one is
// an unknown key, REQ-CAT-01's "unknown keys fail loudly"), and every error names its JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::catalog::detail {

Error shape_error(std::string_view path, std::string_view what);

class StrictObject {
 public:
  // Fails unless `value` is an object.
  static Result<StrictObject> open(const json::Value& value, std::string path);

  const std::string& path() const noexcept { return path_; }
  std::string member_path(std::string_view key) const;

  // The member, marking it read; nullptr when absent.
  const json::Value* take(std::string_view key);
  Result<std::string> required_string(std::string_view key);
  Result<std::optional<std::string>> optional_string(std::string_view key);
  Result<std::optional<bool>> optional_bool(std::string_view key);
  // A whole number in [0, 2^53).
  Result<std::optional<std::int64_t>> optional_count(std::string_view key);
  // A finite number >= 0.
  Result<std::optional<double>> optional_price(std::string_view key);
  Result<std::vector<std::string>> optional_string_list(std::string_view key);
  // An object of string values, in order.
  Result<std::vector<std::pair<std::string, std::string>>> optional_string_map(std::string_view key);

  // Fails naming the first member nobody read.
  Result<void> finish() const;

 private:
  StrictObject(const json::Object& object, std::string path);
  const json::Object* object_;
  std::string path_;
  std::vector<bool> read_;
};

}  // namespace agentkit::catalog::detail
