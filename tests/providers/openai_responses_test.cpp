// openai-responses beyond the shared conformance rules: flat tools, the composite call identity,
// reasoning replay, service tiers and how the response ends.
#include <thread>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/providers/openai.hpp"
#include "conformance/conversation.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"
#include "openai_responses/responses_wire.hpp"
#include "wire_common/message_assembler.hpp"

using namespace agentkit;
using namespace agentkit::conformance;

namespace {

std::string reply(std::string output, std::string extra = {}) {
  return R"({"id":"resp_1","object":"response","status":"completed","model":"gpt-6.2-sol","output":)" + output +
         R"(,"usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":0},"output_tokens":1000})" + extra + "}";
}

const std::string kOkOutput =
    R"([{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"OK."}]}])";

std::shared_ptr<providers::WireClient> responses_client(const providers::WireOptions& o) {
  return providers::make_openai_responses_client(o);
}

Model sol() { return *catalog::Catalog::builtin().find("openai", "gpt-6.2-sol"); }

// The reply decoded from `stream`, served as one streamed piece.
AssistantMessage streamed_reply(const std::string& stream) {
  Conversation c(responses_client, sol(), {Conversation::streamed(stream)});
  c.user("hi");
  c.send();
  return c.last_reply;
}

struct ResponsesConversation : Conversation {
  explicit ResponsesConversation(std::string body = reply(kOkOutput))
      : Conversation(responses_client, sol(), {whole(std::move(body))}) {}
};

}  // namespace

TEST_CASE("Responses tools are flat and state strict") {
  ResponsesConversation c;
  c.tools = {tool_spec("get_weather", "Weather", json::parse(R"({"type":"object"})").value())};
  c.user("hi");
  json::Value body = c.send();
  CHECK(json::dump(body.find("tools")->as_array()[0]) ==
        R"({"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object"},"strict":false})");
}

TEST_CASE("a Responses call is call_id|item_id and its output names the call id only") {
  const std::string out =
      R"([{"type":"function_call","id":"fc_9","call_id":"call_9","name":"get_weather","arguments":"{\"city\": \"Paris\"}","status":"completed"}])";
  Conversation c(responses_client, sol(), {Conversation::whole(reply(out)), Conversation::whole(reply(kOkOutput))});
  c.user("weather?");
  c.send();
  REQUIRE(tool_uses(c.last_reply).size() == 1);
  CHECK(tool_uses(c.last_reply)[0]->id == "call_9|fc_9");
  CHECK(c.last_reply.stop_reason == StopReason::tool_use);
  c.result("call_9|fc_9", "get_weather", "sunny");
  json::Value body = c.send();
  const auto& input = body.find("input")->as_array();
  REQUIRE(input.size() == 3);
  CHECK(json::dump(input[1]) ==
        R"({"type":"function_call","id":"fc_9","call_id":"call_9","name":"get_weather","arguments":"{\"city\": \"Paris\"}"})");
  CHECK(json::dump(input[2]) == R"({"type":"function_call_output","call_id":"call_9","output":"sunny"})");
}

TEST_CASE("reasoning items are replayed with their id and encrypted content") {
  const std::string out =
      R"([{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Considering."}],"encrypted_content":"gAAAA=="},)"
      R"({"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Yes."}]}])";
  Conversation c(responses_client, sol(), {Conversation::whole(reply(out)), Conversation::whole(reply(kOkOutput))});
  c.thinking = ThinkingLevel::medium;
  c.user("is it?");
  json::Value first = c.send();
  CHECK(json::dump(*first.find("reasoning")) == R"({"effort":"medium"})");
  CHECK(json::dump(*first.find("include")) == R"(["reasoning.encrypted_content"])");
  CHECK(first.find("store")->as_bool() == false);
  c.user("sure?");
  json::Value second = c.send();
  const auto& input = second.find("input")->as_array();
  CHECK(json::dump(input[1]) ==
        R"({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Considering."}],"encrypted_content":"gAAAA=="})");
  CHECK(json::dump(input[2]) == R"({"role":"assistant","content":"Yes."})");
}

TEST_CASE("the served service tier scales the cost") {
  // REQ-PROV-05 rule 6: flex 0.5x.
  ResponsesConversation standard(reply(kOkOutput));
  standard.user("hi");
  standard.send();
  ResponsesConversation flex(reply(kOkOutput, R"(,"service_tier":"flex")"));
  flex.user("hi");
  flex.send();
  REQUIRE(standard.last_reply.usage.cost.total > 0);
  CHECK(flex.last_reply.usage.cost.total == Approx(standard.last_reply.usage.cost.total * 0.5));
}

TEST_CASE("an incomplete response is a length stop and a failed one an error") {
  ResponsesConversation cut(R"({"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]})");
  cut.user("hi");
  cut.send();
  CHECK(cut.last_reply.stop_reason == StopReason::length);
  CHECK(cut.last_reply.raw_stop_reason == "max_output_tokens");
  ResponsesConversation failed(R"({"id":"r","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]})");
  failed.user("hi");
  failed.send();
  CHECK(failed.last_reply.stop_reason == StopReason::error);
  CHECK(failed.last_reply.error_message.find("boom") != std::string::npos);
}

TEST_CASE("long retention asks OpenAI to keep the prompt cache for a day") {
  providers::WireOptions o = test_wire_options();
  o.caching.retention = providers::CacheRetention::long_term;
  Conversation c(responses_client, sol(), {Conversation::whole(reply(kOkOutput))}, o);
  c.user("hi");
  CHECK(c.send().find("prompt_cache_retention")->as_string() == "24h");
  Conversation plain(responses_client, sol(), {Conversation::whole(reply(kOkOutput))});
  plain.user("hi");
  CHECK_FALSE(plain.send().find("prompt_cache_retention"));
}

TEST_CASE("a text delta after its item is done ends the reply as a protocol error and the ended block is not changed") {
  // Found by fuzz_openai: the delta was appended to a block whose block_end had already gone out,
  // so the message disagreed with what observers saw.
  const auto& sse = sse_event;
  const std::string stream =
      sse("response.created", R"("response":{"id":"resp_1","model":"gpt-6.2-sol","status":"in_progress","output":[]})") +
      sse("response.output_item.added", R"("output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]})") +
      sse("response.output_text.delta", R"("output_index":0,"item_id":"msg_1","content_index":0,"delta":"Hi")") +
      sse("response.output_item.done", R"("output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]})") +
      sse("response.output_text.delta", R"("output_index":0,"item_id":"msg_1","content_index":0,"delta":" again")") +
      sse("response.completed", R"("response":{"id":"resp_1","model":"gpt-6.2-sol","status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":2}})");
  check_violation_kept_text(streamed_reply(stream), "which had already ended", "Hi");
}

TEST_CASE(
    "an in-stream error keeps the vendor's message whether it is flat or nested under error") {
  const std::string created = sse_event(
      "response.created", R"("response":{"id":"resp_1","status":"in_progress","output":[]})");
  AssistantMessage nested = streamed_reply(
      created +
      sse_event(
          "error",
          R"("error":{"type":"insufficient_quota","code":"insufficient_quota",)"
          R"("message":"You exceeded your quota."})"));
  CHECK(nested.stop_reason == StopReason::error);
  CHECK(nested.error_message == "insufficient_quota: You exceeded your quota.");
  AssistantMessage flat = streamed_reply(
      created + sse_event("error", R"("code":"server_error","message":"Try again.")"));
  CHECK(flat.error_message == "server_error: Try again.");
  AssistantMessage failed = streamed_reply(
      created +
      sse_event(
          "response.failed",
          R"("response":{"id":"resp_1","status":"failed",)"
          R"("error":{"code":"server_error","message":"Broke."},"output":[]})"));
  CHECK(failed.error_message == "server_error: Broke.");
}

TEST_CASE("an in-stream error without a message quotes its fields instead of a generic phrase") {
  AssistantMessage m =
      streamed_reply(sse_event("error", R"("error":{"code":"rate_limit_exceeded","param":null})"));
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("rate_limit_exceeded") != std::string::npos);
}

TEST_CASE("reasoning summary parts are joined by a blank line, whole and streamed") {
  ResponsesConversation whole_reply(reply(
      R"([{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**One**"},)"
      R"({"type":"summary_text","text":"**Two**"}]},)"
      R"({"type":"message","id":"msg_1","role":"assistant",)"
      R"("content":[{"type":"output_text","text":"OK."}]}])"));
  whole_reply.user("hi");
  whole_reply.send();
  REQUIRE(std::holds_alternative<ThinkingBlock>(whole_reply.last_reply.content.at(0)));
  CHECK(std::get<ThinkingBlock>(whole_reply.last_reply.content.at(0)).thinking ==
        "**One**\n\n**Two**");

  auto part = [](int i, const std::string& text) {
    const std::string at =
        R"("item_id":"rs_1","output_index":0,"summary_index":)" + std::to_string(i);
    return sse_event("response.reasoning_summary_part.added",
                     at + R"(,"part":{"type":"summary_text","text":""})") +
           sse_event("response.reasoning_summary_text.delta", at + R"(,"delta":")" + text + "\"");
  };
  AssistantMessage streamed = streamed_reply(
      sse_event("response.output_item.added",
                R"("output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]})") +
      part(0, "**One**") + part(1, "**Two**") +
      sse_event("response.output_item.done",
                R"("output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]})") +
      sse_event(
          "response.completed",
          R"("response":{"id":"resp_1","status":"completed","output":[],)"
          R"("usage":{"input_tokens":1,"output_tokens":1}})"));
  REQUIRE(std::holds_alternative<ThinkingBlock>(streamed.content.at(0)));
  CHECK(std::get<ThinkingBlock>(streamed.content.at(0)).thinking == "**One**\n\n**Two**");
}

TEST_CASE("a delta's output index reads alike on the flat path, from one digit to the limit") {
  // Delta events are read without a tree; their output_index of up to four digits is read
  // directly, anything longer as the tree path reads it. Each call's argument deltas must land on
  // the call its output_item.added opened, and an index past the limit is ignored as before.
  const auto& sse = sse_event;
  std::string stream =
      sse("response.created",
          R"("response":{"id":"resp_1","model":"gpt-6.2-sol","status":"in_progress","output":[]})");
  const std::vector<std::string> indexes = {"0", "7", "42", "1234", "9999"};
  for (const auto& i : indexes) {
    stream += sse("response.output_item.added",
                  R"("output_index":)" + i + R"(,"item":{"type":"function_call","id":"fc_)" + i +
                      R"(","call_id":"call_)" + i + R"(","name":"read","arguments":""})");
    stream += sse("response.function_call_arguments.delta",
                  R"("output_index":)" + i + R"(,"item_id":"fc_)" + i + R"(","delta":"{\"n\":")");
    stream +=
        sse("response.function_call_arguments.delta",
            R"("output_index":)" + i + R"(,"item_id":"fc_)" + i + R"(","delta":")" + i + R"(}")");
  }
  stream += sse("response.function_call_arguments.delta",
                R"("output_index":10000,"item_id":"fc_x","delta":"lost")");
  stream += sse("response.completed",
                R"("response":{"id":"resp_1","model":"gpt-6.2-sol","status":"completed",)"
                R"("output":[],"usage":{"input_tokens":5,"output_tokens":2}})");
  const AssistantMessage m = streamed_reply(stream);
  std::vector<std::string> args;
  for (const auto& block : m.content) {
    if (const auto* call = std::get_if<ToolUseBlock>(&block))
      args.emplace_back(call->input.bytes());
  }
  INFO(m.error_message);  // empty: every event was well formed
  REQUIRE(args.size() == indexes.size());
  for (std::size_t k = 0; k < indexes.size(); ++k) {
    INFO("output_index " << indexes[k]);
    CHECK(args[k] == R"({"n":)" + indexes[k] + "}");
  }
}

namespace {

// Fifty 67-byte pieces of a write_note call's arguments, 3,361 bytes in all.
const std::string kPiece = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eius ";
std::string lorem_arguments() {
  std::string args = R"({"text":")";
  for (int i = 0; i < 50; ++i) args += kPiece;
  return args + R"("})";
}

// The start of a Responses stream with one function call at output index 0 whose `args` come in
// deltas of `piece` bytes, with or without the output_item.done that repeats them.
std::string call_events(const std::string& args, std::size_t piece, bool done_item) {
  auto quoted = [](const std::string& s) {
    std::string q;
    for (char c : s) q += c == '"' ? std::string("\\\"") : std::string(1, c);
    return q;
  };
  std::string s = sse_event("response.created",
                            R"("response":{"id":"resp_1","status":"in_progress","output":[]})");
  s += sse_event("response.output_item.added",
                 R"("output_index":0,"item":{"type":"function_call","id":"fc_1",)"
                 R"("call_id":"call_1","name":"write_note","arguments":""})");
  for (std::size_t at = 0; at < args.size(); at += piece) {
    s += sse_event(
        "response.function_call_arguments.delta",
        R"("output_index":0,"item_id":"fc_1","delta":")" + quoted(args.substr(at, piece)) + "\"");
  }
  if (done_item) {
    s += sse_event("response.output_item.done",
                   R"("output_index":0,"item":{"type":"function_call","id":"fc_1",)"
                   R"("call_id":"call_1","name":"write_note","arguments":")" +
                       quoted(args) + "\"}");
  }
  return s;
}

const std::string kCompleted =
    sse_event("response.completed", R"("response":{"id":"resp_1","status":"completed","output":[],)"
                                    R"("usage":{"input_tokens":5,"output_tokens":2}})");

}  // namespace

TEST_CASE("streamed arguments and text are kept without the slack their deltas grew") {
  // The transcript keeps each reply for the session's life: the agent drains its stream given
  // up, so the reply's strings are the ones the deltas grew, by doubling, to up to twice their
  // bytes. Fifty 67-byte deltas leave 4,288 bytes of buffer for 3,361 arguments (without the
  // done item, whose copy is exact: the other wires have none).
  const std::string args = lorem_arguments();
  auto stream_of = [&](bool done_item) {
    std::string s = call_events(args, kPiece.size(), done_item);
    s += sse_event("response.output_item.added",
                   R"("output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant",)"
                   R"("content":[]})");
    for (int i = 0; i < 40; ++i) {
      s += sse_event(
          "response.output_text.delta",
          R"("output_index":1,"content_index":0,"delta":"word )" + std::to_string(i) + " \"");
    }
    return s + kCompleted;
  };
  for (bool done_item : {false, true}) {
    INFO("with output_item.done: " << done_item);
    Conversation c(responses_client, sol(), {Conversation::streamed(stream_of(done_item))});
    c.user("hi");
    StreamOptions as_the_agent_reads;
    as_the_agent_reads.deferred = true;
    const AssistantMessage m =
        drain(c.client->stream(c.request(), as_the_agent_reads, {}), {}).value();
    INFO(m.error_message);
    REQUIRE(m.content.size() == 2);
    const auto& call = std::get<ToolUseBlock>(m.content[0]);
    CHECK(call.input.bytes() == args);
    CHECK(call.input.str().capacity() <= args.size() + args.size() / 8);
    const auto& text = std::get<TextBlock>(m.content[1]).text;
    CHECK(text.size() > 250);
    CHECK(text.capacity() <= text.size() + text.size() / 8);
  }
}

namespace {

// Allocations the agent's way of reading `stream` makes, counted on a thread of their own (the
// counter counts its own thread's, and the agent reads on the session's), of at least
// `at_least` bytes (all of them for 0); the reply's arguments go to `args`.
std::size_t allocations_reading(const std::string& stream, std::size_t at_least,
                                std::string& args) {
  Conversation c(responses_client, sol(), {Conversation::streamed(stream)});
  c.user("hi");
  std::size_t count = 0;
  std::thread reader([&] {
    StreamOptions as_the_agent_reads;
    as_the_agent_reads.deferred = true;
    agentkit::testing::AllocCounter counter(at_least);
    Result<AssistantMessage> m = drain(c.client->stream(c.request(), as_the_agent_reads, {}), {});
    count = at_least == 0 ? counter.stats().count : counter.stats().large;
    if (m) args = std::string(std::get<ToolUseBlock>(m->content.at(0)).input.bytes());
  });
  reader.join();
  return count;
}

// What ten more copies of `event` add to the allocations of reading a call's stream the agent's
// way (a first reading grows the parser's scratch and is not counted).
std::size_t ten_more_cost(const std::string& event) {
  const std::string args = lorem_arguments();
  auto stream = [&](int copies) {
    std::string s = call_events(args, kPiece.size(), true);
    for (int i = 0; i < copies; ++i) s += event;
    return s + kCompleted;
  };
  std::string read;
  allocations_reading(stream(1), 0, read);
  const std::size_t one = allocations_reading(stream(1), 0, read);
  const std::size_t eleven = allocations_reading(stream(11), 0, read);
  CHECK(read == args);
  REQUIRE(eleven >= one);
  return eleven - one;
}

}  // namespace

TEST_CASE("a call's arguments joined from small deltas reallocate four times on the way to 3 KB") {
  // Doubling from the string's own 15 bytes took eight reallocations to reach 3 KB; the first
  // growth makes room for 512 bytes. Arguments that fit the string itself ("{}") allocate none.
  auto [sink, events] = make_event_stream();
  { EventStream unread = std::move(events); }  // nobody reads: the assembler builds no event
  providers::detail::MessageAssembler out(sink, AssistantMessage{});
  out.start();
  const int call = out.begin_tool("call_1", "write_note");
  const int tiny = out.begin_tool("call_2", "stamp");
  const std::string piece(67, 'x');
  std::size_t joining = 0;
  std::size_t joining_tiny = 0;
  {
    agentkit::testing::AllocCounter counter;
    for (int i = 0; i < 50; ++i) out.arguments(call, piece);
    joining = counter.stats().count;
  }
  {
    agentkit::testing::AllocCounter counter;
    out.arguments(tiny, "{");
    out.arguments(tiny, "}");
    joining_tiny = counter.stats().count;
  }
  CHECK(joining <= 4);  // 512, 1,024, 2,048, 4,096 (under ThreadSanitizer nothing is counted)
  CHECK(joining_tiny == 0);
  out.end(call);
  out.end(tiny);
  CHECK(std::get<ToolUseBlock>(out.block(call)).input.bytes().size() == 50 * piece.size());
  CHECK(std::get<ToolUseBlock>(out.block(tiny)).input.bytes() == "{}");
  out.finish(std::nullopt);
}

TEST_CASE("the done item's arguments are taken from the parsed event, not copied again") {
  // output_item.done repeats a call's arguments whole, and they are authoritative. What reading
  // it adds of the arguments' size is the parsed event's string and the parser's buffer its
  // escapes are decoded in; the string is then moved into the reply.
  const std::string args = lorem_arguments();
  std::string read;
  const std::size_t plain =
      allocations_reading(call_events(args, kPiece.size(), false) + kCompleted, args.size(), read);
  CHECK(read == args);
  const std::size_t with_done =
      allocations_reading(call_events(args, kPiece.size(), true) + kCompleted, args.size(), read);
  CHECK(read == args);
  CHECK(with_done <= plain + 2);  // under ThreadSanitizer nothing is counted
}

TEST_CASE("what a streamed reply echoes is checked but not built: the output again, the tools") {
  // response.created and response.completed repeat the request's instructions and tools, and
  // completed repeats the whole output (every call's arguments once more). The reader takes
  // nothing from them, and builds nothing of them: the echoes' trees were 19 allocations here.
  // What remains is the reading of longer lines (2 allocations, with small echoes too).
  const std::string args = lorem_arguments();
  const std::string tools =
      R"("tools":[{"type":"function","name":"write_note","description":"Writes a note down.",)"
      R"("parameters":{"type":"object","properties":{"text":{"type":"string"}}},"strict":true}])";
  const std::string instructions = R"("instructions":")" + std::string(2000, 'i') + "\"";
  auto stream = [&](bool echoes) {
    std::string s = call_events(args, kPiece.size(), true);
    if (echoes) {
      const std::string plain_created = R"("status":"in_progress","output":[]})";
      s.replace(s.find(plain_created), plain_created.size(),
                R"("status":"in_progress","output":[],)" + instructions + "," + tools + "}");
    }
    std::string done_item = R"({"type":"function_call","id":"fc_1","call_id":"call_1",)"
                            R"("name":"write_note","arguments":")";
    for (char c : args) done_item += c == '"' ? std::string("\\\"") : std::string(1, c);
    done_item += "\"}";
    return s + sse_event("response.completed",
                         R"("response":{"id":"resp_1","status":"completed","output":[)" +
                             (echoes ? done_item : std::string()) + "]," +
                             (echoes ? instructions + "," + tools + "," : std::string()) +
                             R"("usage":{"input_tokens":5,"output_tokens":2}})");
  };
  std::string read;
  allocations_reading(stream(true), 0, read);  // the parser's scratch grown for both
  const std::size_t with = allocations_reading(stream(true), 0, read);
  CHECK(read == args);
  const std::size_t without = allocations_reading(stream(false), 0, read);
  CHECK(read == args);
  CHECK(with <= without + 2);
}

TEST_CASE("an event's type is compared where it lies: ten more progress events cost their trees") {
  // response.in_progress is a tree event whose type (20 bytes) outgrows a string's own room under
  // libstdc++: it was copied out of the tree to be compared, one allocation an event. What an
  // event costs now is its tree: the root's members, the type string, the response's members.
  const std::size_t cost = ten_more_cost(sse_event(
      "response.in_progress", R"("response":{"id":"resp_1","status":"in_progress","output":[]})"));
  // Where the reads split the stream moves a line or two into the reader's own buffer (0 or 2
  // more here from run to run); with the copy it was 40 or 42. Upper bounds: under
  // ThreadSanitizer the counter reads 0.
  CHECK(cost <= 10 * 3 + 4);
}

TEST_CASE("a content part opened or closed is checked but not built") {
  // response.content_part.added and .done repeat the text the deltas carry, with its annotations;
  // the reader takes nothing from their part. Each event still costs its root and its type (26
  // bytes, past a string's own room); the part built was five more allocations here.
  const std::string part =
      R"("part":{"type":"output_text","annotations":[{"type":"url_citation",)"
      R"("url":"https://example.com/a/page/long/enough/to/need/a/buffer"}],"text":")" +
      std::string(200, 't') + "\"}";
  const std::size_t cost =
      ten_more_cost(sse_event("response.content_part.done",
                              R"("item_id":"msg_1","output_index":1,"content_index":0,)" + part));
  // Upper bound, as above (0 under ThreadSanitizer); with the part built it was 70 or more.
  CHECK(cost <= 10 * 2 + 4);
}

TEST_CASE("a malformed content part is still an error") {
  const AssistantMessage m = streamed_reply(
      call_events(lorem_arguments(), kPiece.size(), true) +
      sse_event("response.content_part.done",
                R"("item_id":"msg_1","output_index":1,"part":{"type":"output_text","text":01})") +
      kCompleted);
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("response.content_part.done") != std::string::npos);
}

TEST_CASE("an event whose type member disagrees with its name is still read for what it is") {
  // What an event's reader skips is chosen by its event line's name; its type member decides
  // what it is. An error under another event's name still says what went wrong.
  const std::string created = sse_event(
      "response.created", R"("response":{"id":"resp_1","status":"in_progress","output":[]})");
  const AssistantMessage m =
      streamed_reply(created +
                     "event: response.completed\n"
                     R"(data: {"type":"error","code":"server_error","message":"Try again."})"
                     "\n\n");
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message == "server_error: Try again.");
}

TEST_CASE("a Responses request writes its new items as text: no tree of them is built") {
  // A call with 3 KB of arguments, its result and the answer after it. As trees, the items were
  // an object apiece with the arguments copied in, a key or value past 15 bytes allocated
  // ("function_call_output"), the list, then the dump (the call's item alone as a tree is 6
  // allocations here). As text, the segment's buffer alone.
  const std::string args = lorem_arguments();
  AssistantMessage call;
  call.content.push_back(ToolUseBlock{"call_1|fc_1", "write_note", json::Raw(args), {}});
  ToolResultMessage result;
  result.tool_use_id = "call_1|fc_1";
  result.tool_name = "write_note";
  result.content.push_back(TextBlock{"ok"});
  AssistantMessage answer;
  answer.content.push_back(TextBlock{"All "});
  answer.content.push_back(TextBlock{"done."});
  const std::vector<Message> view{UserMessage{{TextBlock{"go"}}}, call, result, answer};
  providers::detail::EncodedHistory::Segment items;
  testing::AllocStats stats;
  {
    agentkit::testing::AllocCounter counter;
    items = providers::detail::responses_items(view, {});
    stats = counter.stats();
  }
  // An upper bound: under ThreadSanitizer the counter reads 0. The answer's two blocks are joined
  // in a string of their own, short enough to live in it. The second: the list of the segment's
  // long strings (the arguments, which the kept history references instead of keeping).
  CHECK(stats.count <= 2);
  // The text is what dumping the items gives: canonical JSON, read back whole.
  REQUIRE(items.items.back() == ',');
  const std::string array = "[" + items.items.substr(0, items.items.size() - 1) + "]";
  const json::Value read = json::parse(array).value();
  CHECK(json::dump(read) == array);
  REQUIRE(read.as_array().size() == 4);
  CHECK(read.as_array()[0] == json::parse(R"({"role":"user","content":"go"})").value());
  const json::Value& fc = read.as_array()[1];
  CHECK(*fc.find("type") == "function_call");
  CHECK(*fc.find("id") == "fc_1");
  CHECK(*fc.find("call_id") == "call_1");
  CHECK(fc.find("arguments")->as_string() == args);
  CHECK(read.as_array()[2] ==
        json::parse(R"({"type":"function_call_output","call_id":"call_1","output":"ok"})").value());
  CHECK(read.as_array()[3] == json::parse(R"({"role":"assistant","content":"All done."})").value());
}
