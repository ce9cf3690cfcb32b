#include <string>

#include "catch.hpp"
#include "ledger.hpp"

using namespace agentkit;
using namespace agentkit::difftest;

namespace {

const char* kOneEntry = R"({"entries":[
  {"wire":"anthropic-messages","scenario":"*","path":"$.headers.x-stainless-*","kind":"only-reference",
   "reason":"SDK telemetry"}]})";

}  // namespace

TEST_CASE("a ledger entry covers its wire, scenario glob, path glob and exact kind") {
  auto ledger = parse_ledger(kOneEntry);
  REQUIRE(ledger);
  REQUIRE(ledger->size() == 1);
  const LedgerEntry& e = ledger->front();
  Divergence d{"$.headers.x-stainless-os", DivergenceKind::only_reference, "\"Linux\"", ""};
  CHECK(e.covers("request/one_tool", "anthropic-messages", d));
  CHECK_FALSE(e.covers("request/one_tool", "openai-completions", d));
  d.kind = DivergenceKind::value;  // an entry never covers another kind at its path
  CHECK_FALSE(e.covers("request/one_tool", "anthropic-messages", d));
  d.kind = DivergenceKind::only_reference;
  d.path = "$.headers.user-agent";
  CHECK_FALSE(e.covers("request/one_tool", "anthropic-messages", d));
}

TEST_CASE("a ledger entry without a reason is refused") {
  auto ledger = parse_ledger(R"({"entries":[{"wire":"*","scenario":"*","path":"$","kind":"missing","reason":""}]})");
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().message.find("entry 1") != std::string::npos);
  CHECK(ledger.error().message.find("reason") != std::string::npos);
}

TEST_CASE("an unknown member or kind in the ledger is an error, not ignored") {
  CHECK_FALSE(parse_ledger(R"({"entries":[{"wire":"*","scenario":"*","path":"$","kind":"missing","reason":"r","wires":"x"}]})"));
  CHECK_FALSE(parse_ledger(R"({"entries":[{"wire":"*","scenario":"*","path":"$","kind":"absent","reason":"r"}]})"));
  CHECK_FALSE(parse_ledger(R"({"entries":[],"extra":1})"));
  CHECK_FALSE(parse_ledger(R"([])"));
  CHECK_FALSE(parse_ledger("not json"));
}

TEST_CASE("an empty ledger is valid") {
  auto ledger = parse_ledger(R"({"about":"nothing accepted","entries":[]})");
  REQUIRE(ledger);
  CHECK(ledger->empty());
}
