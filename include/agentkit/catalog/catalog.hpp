// agentkit/catalog/catalog.hpp — the model catalog: vendors, their models, and resolving a
// "vendor/model-id" spec into a Model descriptor.
//
//   const agentkit::catalog::Catalog& cat = agentkit::catalog::Catalog::builtin();
//   auto model = cat.resolve("anthropic/claude-sonnet-5-5");
//   if (!model) return model.error();        // "unknown vendor 'x' in model spec ...; known vendors: ..."
//   model->api;                              // "anthropic-messages"
//   auto guess = cat.resolve("anthropic/claude-sonnet-9");   // unknown id under a known vendor:
//   guess->cloned_from;                      // "claude-sonnet-5-5" (its closest sibling's row)
//
//   // Callers may extend or override the built-in rows with their own catalog text:
//   auto mine = agentkit::catalog::Catalog::parse(my_json);
//   auto merged = cat.merged_with(*mine);    // a vendor or model in `mine` replaces the built-in one
//
// The built-in catalog is a JSON file (catalog/models.json) compiled into the library at build
// time: nothing is read from disk at run time. Every model row names its wire API,
// base URL, context window, output limit, prices (USD per million tokens, with the date they were
// read), thinking levels, input modalities and compatibility profile. Loading is strict: an
// unknown key anywhere, an unknown compat key for a row's API or a malformed value is
// an error naming its JSON path — never a silently ignored field and never an empty catalog.
//
// Resolution: the text before the FIRST slash is a vendor only when it is a known
// vendor (OpenRouter ids contain slashes); otherwise the whole spec is a bare model id, accepted
// only when exactly one vendor lists it. An unknown id under a known vendor clones its closest
// sibling's row (longest common id prefix; the vendor's default row when none shares one), sets
// Model::cloned_from, and works: nothing rejects an id only because the catalog lacks it.
//
// Thread safety: a Catalog is immutable once built; concurrent const use is safe. builtin() is
// initialised once, thread-safely, on first use.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::catalog {

// One environment variable that may carry a vendor's credential, and how it is sent: as the
// value of `header`, after `prefix` ("Authorization" + "Bearer ", or "x-api-key" + "").
struct CredentialVariable {
  std::string name;
  std::string header;
  std::string prefix;
  // Extra headers sent when this variable supplied the credential (Anthropic's OAuth beta).
  std::vector<std::pair<std::string, std::string>> headers;
  friend bool operator==(const CredentialVariable&, const CredentialVariable&) = default;
};

// How a vendor is authenticated: variables in the order they are consulted.
struct VendorAuth {
  std::vector<CredentialVariable> variables;
  // Variables that override the base URL, in order ("ANTHROPIC_BASE_URL").
  std::vector<std::string> base_url_variables;
  // False for local servers (Ollama, vLLM, ...): a request without a credential is normal there.
  bool required = true;
  // A bearer credential starting with this prefix is an OAuth token ("sk-ant-oat"), and so is any
  // token from the credential store's OAuth entries: both add `oauth_headers`.
  std::string oauth_token_prefix;
  std::vector<std::pair<std::string, std::string>> oauth_headers;
  friend bool operator==(const VendorAuth&, const VendorAuth&) = default;
};

struct Vendor {
  std::string id;             // "anthropic"
  std::string name;           // "Anthropic"
  std::string default_model;  // the row unknown ids fall back to when no sibling is closer
  VendorAuth auth;
  // Headers naming AgentKit or the application: lowest precedence, switched off by
  // AGENTKIT_TELEMETRY=0 or the provider options; never carry session, path or prompt content.
  std::vector<std::pair<std::string, std::string>> attribution_headers;
  // Where the rows came from: "<url> (read YYYY-MM-DD)" lines, for docs/providers.md.
  std::vector<std::string> sources;
  std::vector<Model> models;  // in file order
  friend bool operator==(const Vendor&, const Vendor&) = default;
};

// The five wire APIs this library ships profiles for.
inline constexpr std::string_view kAnthropicMessages = "anthropic-messages";
inline constexpr std::string_view kOpenAiCompletions = "openai-completions";
inline constexpr std::string_view kOpenAiResponses = "openai-responses";
inline constexpr std::string_view kGoogleGenerativeAi = "google-generative-ai";
inline constexpr std::string_view kOllamaChat = "ollama-chat";

class Catalog {
 public:
  Catalog() = default;

  // Parses catalog text (the schema of catalog/models.json). Errors are Errc::parse_error or
  // Errc::invalid_argument naming the JSON path ("vendors.openai.models.gpt-x.compat.foo").
  static Result<Catalog> parse(std::string_view json_text);
  // The catalog compiled into the library. A corrupt built-in catalog aborts the process with a
  // message on first use: an agent must never run against a silently empty catalog.
  static const Catalog& builtin();

  // A copy of this catalog in which every vendor of `overlay` replaces or extends the one here:
  // overlay rows replace rows with the same id, new rows are appended, and the overlay vendor's
  // own fields (auth, default model, attribution) win when it defines models of a known vendor.
  Catalog merged_with(const Catalog& overlay) const;

  // "vendor/model-id" (or a bare id listed by exactly one vendor) → a complete Model.
  Result<Model> resolve(std::string_view spec) const;
  // The row itself, without cloning; nullptr when absent.
  const Model* find(std::string_view vendor, std::string_view model_id) const noexcept;
  const Vendor* vendor(std::string_view id) const noexcept;
  std::span<const Vendor> vendors() const noexcept { return vendors_; }
  // Vendor ids, sorted ("anthropic, deepseek, google, ...").
  std::vector<std::string> vendor_ids() const;
  // The catalog's own version stamp (the date of its last regeneration).
  const std::string& version() const noexcept { return version_; }

 private:
  friend struct CatalogBuilder;
  std::string version_;
  std::vector<Vendor> vendors_;
};

// ---- Thinking levels -------------------------------------------------------------

// The level to send for `requested`, or nullopt when nothing may be sent (the model has no
// thinking control, or only `off`). A supported level is returned as is. Otherwise the search goes
// UPWARD first (asking for more never yields less) and downward only when nothing above is
// supported; a request for some thinking never becomes `off`; `off` on a model that cannot disable
// thinking becomes its lowest level (the floor such families take instead of a zero budget).
std::optional<ThinkingLevel> clamp_thinking_level(const Model& model, ThinkingLevel requested) noexcept;

// The wire value of a supported level from the row's thinking map (a string such as "high", or a
// token budget as a number); nullopt for an unsupported level. Rows that give no explicit value
// map a level to its own name.
std::optional<json::Value> thinking_wire_value(const Model& model, ThinkingLevel level);

// ---- Output-token clamping ----------------------------------------------------------

struct ClampOptions {
  // Tokens kept free between the prompt estimate and the window's end (4096).
  std::int64_t safety_margin = 4096;
  // The output bound used when the caller sets none (32768).
  std::int64_t default_max_tokens = 32768;
};

// min(requested, the model's output limit, window - estimated prompt - margin), never below 1.
// An unknown window (0) or output limit (0) imposes no bound of its own. Computed in signed 64-bit
// arithmetic: an estimate larger than the window yields 1, never an unsigned wrap-around; negative
// inputs are treated as 0 (estimate, margin) or as the floor (requested).
std::int64_t clamp_max_tokens(const Model& model, std::optional<std::int64_t> requested,
                              std::int64_t estimated_prompt_tokens, const ClampOptions& options = {}) noexcept;

// A deliberately simple, deterministic prompt-size estimate: UTF-8 bytes / 4 (rounded up) for
// text, tool arguments and schemas, plus a fixed allowance per image. It errs high on code and
// low on CJK text; the safety margin absorbs the difference.
struct TokenEstimateOptions {
  std::int64_t bytes_per_token = 4;
  // Anthropic documents roughly (width x height) / 750 tokens per image; 1,600 covers a
  // 1,092 x 1,092 image, the size vendors downscale to.
  std::int64_t tokens_per_image = 1600;
};
std::int64_t estimate_prompt_tokens(std::string_view system, std::span<const Message> messages,
                                    std::span<const ToolSpec> tools,
                                    const TokenEstimateOptions& options = {});

// ---- Compatibility profiles ---------------------------------------------------------

// The compat keys a row of `api` may set; empty for an API this library has no profile for (such
// rows are accepted with any keys: their wire comes from a plugin).
std::span<const std::string_view> compat_keys(std::string_view api) noexcept;
// Checks a compat object against the vocabulary and value types of `api`. `path` prefixes the
// error text ("vendors.x.models.y.compat").
Result<void> validate_compat(std::string_view api, const json::Value& compat, std::string_view path);

// How a model gives a typed answer (Turn::answer): the compat keys `structured_output`
// (native | json_object | tool; json_object on openai-completions only) and
// `structured_output_with_tools` (true | false). Defaults when a row sets neither:
// openai-responses, openai-completions, ollama-chat: native with tools; google-generative-ai:
// native without tools; anthropic-messages: tool (rows of models with structured outputs say
// native); faux: native with tools; any other API: tool.
struct AnswerSupport {
  enum class Mode : std::uint8_t {
    native,       // the wire's own JSON-Schema mode (lowered per wire)
    json_object,  // JSON mode only: any JSON object; the schema goes into the instructions
    tool,         // no native mode: a final-answer tool whose input schema is the answer schema
  };
  Mode mode = Mode::native;
  // The native mode may constrain a request that also offers tools; false: such a turn uses the
  // final-answer tool instead.
  bool with_tools = true;
  // The wire can force a call of one named tool (tool_choice); false on ollama-chat. Where it
  // can, the final-answer tool is forced on a repair turn and on the last turn max_turns allows.
  bool can_force_tool = true;
};
AnswerSupport answer_support(const Model& model) noexcept;

}  // namespace agentkit::catalog
