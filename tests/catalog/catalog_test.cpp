// The model catalog: the embedded file, strict loading, resolution and cloning (REQ-CAT-01..03),
// the compat vocabulary (REQ-PROV-12) and the two clamps (REQ-CAT-04, REQ-PROV-15).
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "agentkit/catalog/catalog.hpp"
#include "builtin_catalog.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using catalog::Catalog;

namespace {

// A small catalog whose every key the tests control.
std::string mini_catalog(const std::string& extra_row_fields = "", const std::string& compat = "{}") {
  return R"({"schema": 1, "version": "2026-11-30", "vendors": {
    "acme": {"api": "openai-completions", "base_url": "http://127.0.0.1:9/v1", "default_model": "acme-large",
      "models": {
        "acme-large": {"context_window": 1000, "max_output_tokens": 500, "reasoning": true,
                       "pricing": {"input": 1, "output": 2, "as_of": "2026-11-30"}, "compat": )" +
         compat + extra_row_fields + R"(},
        "acme-small-2": {"pricing": {"input": 0.5, "output": 1, "as_of": "2026-11-30"}},
        "shared-model": {"pricing": {"as_of": "2026-11-30"}}}},
    "other": {"api": "ollama-chat", "models": {"shared-model": {"pricing": {"as_of": "2026-11-30"}}}}}})";
}

Model model_with_levels(std::vector<ThinkingLevel> levels) {
  Model m;
  m.reasoning = !levels.empty();
  m.thinking_levels = std::move(levels);
  return m;
}

// Runs `body` in a forked child; answers the signal that ended it (0 when it exited) and its stderr.
std::pair<int, std::string> run_in_child(void (*body)()) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);  // Catch2's handler would report the abort as a test failure
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    body();
    _exit(0);
  }
  close(fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFSIGNALED(status) ? WTERMSIG(status) : 0, err};
}

}  // namespace

// ---- The embedded catalog ---------------------------------------------------------------------

TEST_CASE("the embedded catalog is the file in the repository, byte for byte") {
  std::string on_disk = agentkit::testing::read_file(std::string(AGENTKIT_SOURCE_DIR) + "/catalog/models.json");
  REQUIRE_FALSE(on_disk.empty());
  CHECK(catalog::detail::embedded_catalog_json() == on_disk);
}

TEST_CASE("the built-in catalog covers the required vendors, each with its sources") {
  const Catalog& c = Catalog::builtin();
  std::set<std::string> ids;
  for (const auto& id : c.vendor_ids()) ids.insert(id);
  for (const char* required : {"anthropic", "openai", "google", "openrouter", "deepseek", "groq", "together",
                               "moonshot", "xai", "ollama", "vllm", "lmstudio", "llamacpp"}) {
    INFO(required);
    CHECK(ids.count(required) == 1);
  }
  for (const auto& v : c.vendors()) {
    INFO(v.id);
    CHECK_FALSE(v.sources.empty());
    CHECK_FALSE(v.models.empty());
  }
}

TEST_CASE("every built-in row names one of the five wires, a base URL and a dated price") {
  const std::set<std::string> wires = {"anthropic-messages", "openai-completions", "openai-responses",
                                       "google-generative-ai", "ollama-chat"};
  const std::set<std::string> local = {"ollama", "vllm", "lmstudio", "llamacpp"};
  for (const auto& v : Catalog::builtin().vendors()) {
    for (const auto& m : v.models) {
      INFO(v.id + "/" + m.id);
      CHECK(wires.count(m.api) == 1);
      CHECK((m.base_url.rfind("https://", 0) == 0 || m.base_url.rfind("http://127.0.0.1", 0) == 0));
      CHECK(m.pricing.as_of.size() == 10);
      CHECK(m.vendor == v.id);
      CHECK(m.cloned_from.empty());
      if (local.count(v.id)) {
        CHECK(m.pricing.input == 0);  // local servers cost nothing
        CHECK(m.pricing.output == 0);
        CHECK(m.base_url.rfind("http://127.0.0.1", 0) == 0);
      } else {
        CHECK(m.pricing.input > 0);
        CHECK(m.pricing.output > 0);
        CHECK(m.context_window > 0);
      }
      // The compat profile the loader produced still satisfies the vocabulary.
      CHECK(catalog::validate_compat(m.api, m.compat, "row"));
    }
  }
}

TEST_CASE("a corrupt built-in catalog aborts with a message instead of loading empty") {
  auto [signal, err] = run_in_child([] { (void)catalog::detail::load_or_abort("{\"schema\": 1, \"vendors\": "); });
  CHECK(signal == SIGABRT);
  CHECK(err.find("built-in model catalog is corrupt") != std::string::npos);
  auto [signal2, err2] =
      run_in_child([] { (void)catalog::detail::load_or_abort(R"({"schema": 1, "vendors": {}})"); });
  CHECK(signal2 == SIGABRT);
  CHECK(err2.find("lists no vendor") != std::string::npos);
}

// ---- Strict loading ---------------------------------------------------------------------------

TEST_CASE("an unknown compat key is a load error naming its path and the known keys") {
  auto c = Catalog::parse(mini_catalog("", R"({"max_tokens_field": "max_tokens"})"));
  REQUIRE_FALSE(c);
  CHECK(c.error().message.find("vendors.acme.models.acme-large.compat.max_tokens_field") != std::string::npos);
  CHECK(c.error().message.find("use_max_tokens") != std::string::npos);
}

TEST_CASE("a compat value of the wrong type or outside its choices is a load error") {
  CHECK_FALSE(Catalog::parse(mini_catalog("", R"({"use_max_tokens": "yes"})")));
  CHECK_FALSE(Catalog::parse(mini_catalog("", R"({"thinking_format": "klingon"})")));
  CHECK(Catalog::parse(
      mini_catalog("", R"({"use_max_tokens": true, "thinking_format": "deepseek"})")));
}

TEST_CASE("a catalog override flips exactly the one compat flag it names") {
  auto c = Catalog::parse(mini_catalog("", R"({"use_max_tokens": true})"));
  REQUIRE(c);
  const Model* m = c->find("acme", "acme-large");
  REQUIRE(m);
  CHECK(m->compat.find("use_max_tokens")->as_bool());
  CHECK(m->compat.find("supports_store") == nullptr);  // untouched flags keep the wire's default
}

TEST_CASE("an unknown key anywhere in the catalog fails loudly") {
  CHECK_FALSE(Catalog::parse(mini_catalog(R"(, "context_windw": 5)")));
  auto top = Catalog::parse(R"({"schema": 1, "vendors": {}, "extra": true})");
  REQUIRE_FALSE(top);
  CHECK(top.error().message.find("extra") != std::string::npos);
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "x", "model": {}}}})"));
}

TEST_CASE("malformed rows are refused: missing price date, bad tiers, unknown default, newer schema") {
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "model)"
                             R"(s": {"m": {"pricing": {"input": 1}}}}}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "model)"
                             R"(s": {"m": {"pricing": {"as_of": "30/11/2026"}}}}}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "model)"
                             R"(s": {"m": {"pricing": {"as_of": "2026-11-30", "input": -1}}})"
                             R"(}}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "models": {"m": {"pricing": {"as_of": "2026-11-30",
      "tiers": [{"above_input_tokens": 200, "input": 2}, {"above_input_tokens": 100, "input": 3}]}}}}}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "defau)"
                             R"(lt_model": "nope", "models": {"m": {"pricing": {"as_of": "20)"
                             R"(26-11-30"}}}}}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 2, "vendors": {}})"));
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"a/b": {"api": "ollama-chat", "mod)"
                             R"(els": {"m": {"pricing": {"as_of": "2026-11-30"}}}}}})"));
  // A duplicate key is a rejection, not a "last one wins".
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "schema": 1, "vendors": {}})"));
}

// ---- Resolution -------------------------------------------------------------------------------

TEST_CASE("a vendor/model spec resolves to the complete row") {
  auto m = Catalog::builtin().resolve("anthropic/claude-sonnet-5-5");
  REQUIRE(m);
  CHECK(m->vendor == "anthropic");
  CHECK(m->id == "claude-sonnet-5-5");
  CHECK(m->api == "anthropic-messages");
  CHECK(m->base_url == "https://api.anthropic.com");
  CHECK(m->context_window == 1000000);
  CHECK(m->pricing.input == 2);
  CHECK(m->image_input);
  CHECK(m->cloned_from.empty());
}

TEST_CASE("only the first slash splits the vendor, so gateway ids keep their own slashes") {
  const Catalog& c = Catalog::builtin();
  auto claude = c.resolve("openrouter/anthropic/claude-sonnet-5.5");
  REQUIRE(claude);
  CHECK(claude->vendor == "openrouter");
  CHECK(claude->id == "anthropic/claude-sonnet-5.5");
  CHECK(claude->api == "anthropic-messages");  // one vendor routes models to different wires
  auto gpt = c.resolve("openrouter/openai/gpt-6.2-sol");
  REQUIRE(gpt);
  CHECK(gpt->api == "openai-completions");
}

TEST_CASE("a first segment that is no vendor makes the whole spec a model id") {
  auto c = Catalog::parse(mini_catalog());
  REQUIRE(c);
  auto r = c->resolve("meta-llama/llama-3");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::not_found);
  CHECK(r.error().message.find("unknown vendor 'meta-llama'") != std::string::npos);
  CHECK(r.error().message.find("known vendors: acme, other") != std::string::npos);
  auto bare = Catalog::builtin().resolve("meta-llama/Llama-3.3-70B-Instruct-Turbo");
  REQUIRE(bare);  // listed by exactly one vendor: resolved as a bare id
  CHECK(bare->vendor == "together");
}

TEST_CASE("a bare id listed by two vendors is an error, never a guess") {
  auto c = Catalog::parse(mini_catalog());
  REQUIRE(c);
  auto r = c->resolve("shared-model");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("acme/shared-model") != std::string::npos);
  CHECK(r.error().message.find("other/shared-model") != std::string::npos);
  CHECK(c->resolve("acme-small-2"));  // unique bare id
}

TEST_CASE("an unknown id under a known vendor clones its closest sibling and works") {
  const Catalog& c = Catalog::builtin();
  auto m = c.resolve("anthropic/claude-opus-6");
  REQUIRE(m);
  CHECK(m->id == "claude-opus-6");
  CHECK(m->cloned_from == "claude-opus-5-5");  // longest shared prefix "claude-opus-", first in file order
  const Model* sibling = c.find("anthropic", m->cloned_from);
  REQUIRE(sibling);
  CHECK(m->api == sibling->api);
  CHECK(m->pricing == sibling->pricing);
  CHECK(m->compat == sibling->compat);
  CHECK(m->thinking_levels == sibling->thinking_levels);
}

TEST_CASE("an unknown id sharing no prefix with any row clones the vendor's default row") {
  auto c = Catalog::parse(mini_catalog());
  REQUIRE(c);
  auto m = c->resolve("acme/zeta");
  REQUIRE(m);
  CHECK(m->cloned_from == "acme-large");
  auto closer = c->resolve("acme/acme-small-3");
  REQUIRE(closer);
  CHECK(closer->cloned_from == "acme-small-2");
}

TEST_CASE("an unknown vendor is a clear error listing the known ones") {
  auto r = Catalog::builtin().resolve("antrhopic/claude-sonnet-5-5");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::not_found);
  CHECK(r.error().message.find("unknown vendor 'antrhopic' in model spec 'antrhopic/claude-sonnet-5-5'; known vendors: anthropic, deepseek, google") !=
        std::string::npos);
}

TEST_CASE("an overlay catalog replaces rows and adds vendors without touching the rest") {
  auto overlay = Catalog::parse(R"({"schema": 1, "vendors": {
      "anthropic": {"api": "anthropic-messages", "base_url": "https://gw.test", "default_model": "claude-sonnet-5-5",
        "models": {"claude-sonnet-5-5": {"pricing": {"input": 9, "output": 9, "as_of": "2026-12-01"}}}},
      "mygw": {"api": "openai-completions", "base_url": "https://mygw.test/v1", "models": {"m": {"pricing": {"as_of": "2026-12-01"}}}}}})");
  REQUIRE(overlay);
  Catalog merged = Catalog::builtin().merged_with(*overlay);
  CHECK(merged.find("anthropic", "claude-sonnet-5-5")->pricing.input == 9);
  CHECK(merged.find("anthropic", "claude-haiku-4-5") != nullptr);  // untouched rows stay
  CHECK(merged.resolve("mygw/m")->base_url == "https://mygw.test/v1");
  CHECK(Catalog::builtin().find("anthropic", "claude-sonnet-5-5")->pricing.input == 2);
}

// ---- Thinking levels ----------------------------------------------------------------------------

TEST_CASE("an unsupported thinking level clamps upward first") {
  // The PRD's example: {xhigh: null, max: "max"} and a request for xhigh sends max.
  Model m = model_with_levels({ThinkingLevel::low, ThinkingLevel::medium, ThinkingLevel::high, ThinkingLevel::max});
  CHECK(catalog::clamp_thinking_level(m, ThinkingLevel::xhigh) == ThinkingLevel::max);
  CHECK(catalog::clamp_thinking_level(m, ThinkingLevel::minimal) == ThinkingLevel::low);
}

TEST_CASE("a thinking level above everything supported clamps down to the highest") {
  Model m = model_with_levels({ThinkingLevel::minimal, ThinkingLevel::low, ThinkingLevel::medium, ThinkingLevel::high});
  CHECK(catalog::clamp_thinking_level(m, ThinkingLevel::max) == ThinkingLevel::high);
}

TEST_CASE("a request for some thinking is never clamped to off, and off becomes the floor where it cannot be disabled") {
  Model toggle = model_with_levels({ThinkingLevel::off, ThinkingLevel::high});
  CHECK(catalog::clamp_thinking_level(toggle, ThinkingLevel::low) == ThinkingLevel::high);
  CHECK(catalog::clamp_thinking_level(toggle, ThinkingLevel::off) == ThinkingLevel::off);
  Model only_off = model_with_levels({ThinkingLevel::off});
  CHECK(catalog::clamp_thinking_level(only_off, ThinkingLevel::max) == std::nullopt);
  auto always_on = Catalog::builtin().resolve("anthropic/claude-opus-5-5");
  REQUIRE(always_on);
  CHECK(catalog::clamp_thinking_level(*always_on, ThinkingLevel::off) == ThinkingLevel::low);
}

TEST_CASE("a model without thinking control is never sent a level") {
  auto m = Catalog::builtin().resolve("groq/llama-3.3-70b-versatile");
  REQUIRE(m);
  CHECK(m->thinking_levels.empty());
  CHECK(catalog::clamp_thinking_level(*m, ThinkingLevel::high) == std::nullopt);
  CHECK(catalog::thinking_wire_value(*m, ThinkingLevel::high) == std::nullopt);
}

TEST_CASE("xhigh and max are opt-in while minimal to high default to supported; null means unsupported") {
  auto c = Catalog::parse(mini_catalog(R"(, "thinking": {"minimal": null, "max": "max"})"));
  REQUIRE(c);
  const Model* m = c->find("acme", "acme-large");
  REQUIRE(m);
  CHECK(m->thinking_levels ==
        std::vector<ThinkingLevel>{ThinkingLevel::low, ThinkingLevel::medium, ThinkingLevel::high, ThinkingLevel::max});
  CHECK(catalog::clamp_thinking_level(*m, ThinkingLevel::xhigh) == ThinkingLevel::max);
}

TEST_CASE("a row's thinking map gives each level its wire value, budgets included") {
  auto haiku = Catalog::builtin().resolve("anthropic/claude-haiku-4-5");
  REQUIRE(haiku);
  auto budget = catalog::thinking_wire_value(*haiku, ThinkingLevel::high);
  REQUIRE(budget);
  CHECK(budget->to_int64().value() == 32768);
  auto sonnet = Catalog::builtin().resolve("anthropic/claude-sonnet-5-5");
  CHECK(catalog::thinking_wire_value(*sonnet, ThinkingLevel::xhigh) == json::Value("xhigh"));
  CHECK(catalog::thinking_wire_value(*sonnet, ThinkingLevel::off) == json::Value("disabled"));
  CHECK(catalog::thinking_wire_value(*sonnet, ThinkingLevel::minimal) == std::nullopt);
}

TEST_CASE("a non-reasoning row that lists thinking levels is refused") {
  CHECK_FALSE(Catalog::parse(R"({"schema": 1, "vendors": {"v": {"api": "ollama-chat", "models": {"m": {
      "reasoning": false, "thinking": {"high": "high"}, "pricing": {"as_of": "2026-11-30"}}}}}})"));
}

// ---- max_tokens clamping ------------------------------------------------------------------------

TEST_CASE("max_tokens never exceeds the window minus the prompt minus the safety margin") {
  Model m;
  m.context_window = 200000;
  CHECK(catalog::clamp_max_tokens(m, 8192, 199000) == 1);
  CHECK(catalog::clamp_max_tokens(m, 8192, 100000) == 8192);
  CHECK(catalog::clamp_max_tokens(m, 100000, 150000) == 200000 - 150000 - 4096);
}

TEST_CASE("an estimate larger than the window clamps to 1, never to an unsigned wrap-around") {
  Model m;
  m.context_window = 1000;
  CHECK(catalog::clamp_max_tokens(m, 500, 5000) == 1);
  CHECK(catalog::clamp_max_tokens(m, 500, std::numeric_limits<std::int64_t>::max()) == 1);
  CHECK(catalog::clamp_max_tokens(m, std::numeric_limits<std::int64_t>::min(), 0) == 1);
  Model roomy;
  roomy.context_window = 10000;
  CHECK(catalog::clamp_max_tokens(roomy, 500, -7) == 500);  // a negative estimate counts as 0
}

TEST_CASE("max_tokens never exceeds the model's output limit, and defaults to 32768 when unset") {
  Model m;
  m.max_output_tokens = 64000;
  CHECK(catalog::clamp_max_tokens(m, 100000, 0) == 64000);
  CHECK(catalog::clamp_max_tokens(m, std::nullopt, 0) == 32768);
  Model unknown;  // no window, no output limit: only the floor applies
  CHECK(catalog::clamp_max_tokens(unknown, 123456789, 999999999) == 123456789);
  CHECK(catalog::clamp_max_tokens(unknown, 0, 0) == 1);
}

TEST_CASE("the prompt estimate counts text bytes by four and images by a fixed allowance") {
  std::vector<Message> msgs = {UserMessage{{TextBlock{std::string(40, 'a')}, ImageBlock{"image/png", "AAAA"}}}};
  AssistantMessage a;
  a.content.push_back(ToolUseBlock{"id", "read", json::Raw(R"({"p":1})"), ""});
  msgs.push_back(a);
  std::int64_t n = catalog::estimate_prompt_tokens(std::string(8, 's'), msgs, {});
  CHECK(n == 2 + 10 + 1600 + 3);  // system 8/4, text 40/4, image, ("read" + 7 bytes)/4 rounded up
}

// ---- Typed answers: the structured_output compat keys and their reader (issue 17) ------------

TEST_CASE("structured_output takes only its choices, json_object only on Chat Completions") {
  CHECK(Catalog::parse(mini_catalog(
      "", R"({"structured_output": "json_object", "structured_output_with_tools": false})")));
  CHECK_FALSE(Catalog::parse(mini_catalog("", R"({"structured_output": "grammar"})")));
  CHECK_FALSE(Catalog::parse(mini_catalog("", R"({"structured_output_with_tools": "no"})")));
  auto anthropic_row = [](const std::string& mode) {
    return R"({"schema": 1, "vendors": {"v": {"api": "anthropic-messages",)"
           R"( "models": {"m": {"pricing": {"as_of": "2026-11-30"}, "compa)"
           R"(t": {"structured_output": ")" +
           mode + R"("}}}}}})";
  };
  CHECK(Catalog::parse(anthropic_row("native")));
  CHECK_FALSE(Catalog::parse(anthropic_row("json_object")));
}

TEST_CASE("answer_support says each wire's default and a row's compat overrides it") {
  using namespace agentkit::catalog;
  auto support = [](std::string_view api, json::Value compat = json::Object{}) {
    Model m;
    m.api = api;
    m.compat = std::move(compat);
    return answer_support(m);
  };
  using Mode = AnswerSupport::Mode;
  CHECK(support(kOpenAiResponses).mode == Mode::native);
  CHECK(support(kOpenAiCompletions).mode == Mode::native);
  CHECK(support(kOllamaChat).mode == Mode::native);
  CHECK_FALSE(support(kOllamaChat).can_force_tool);
  CHECK(support(kAnthropicMessages).mode == Mode::tool);
  CHECK(support(kGoogleGenerativeAi).mode == Mode::native);
  CHECK_FALSE(support(kGoogleGenerativeAi).with_tools);
  CHECK(support("plugin-wire").mode == Mode::tool);
  CHECK(support(kAnthropicMessages, json::Object{{"structured_output", "native"}}).mode ==
        Mode::native);
  CHECK(support(kOpenAiCompletions, json::Object{{"structured_output", "json_object"}}).mode ==
        Mode::json_object);
  CHECK(support(kGoogleGenerativeAi, json::Object{{"structured_output_with_tools", true}})
            .with_tools);
  // The builtin rows state the fact for the models that have it.
  const Model* claude = Catalog::builtin().find("anthropic", "claude-sonnet-5-5");
  REQUIRE(claude);
  CHECK(answer_support(*claude).mode == Mode::native);
  const Model* gemini = Catalog::builtin().find("google", "gemini-4-argon");
  REQUIRE(gemini);
  CHECK(answer_support(*gemini).with_tools);
}
