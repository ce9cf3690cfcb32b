// Fuzzes the native search's regex engine: any pattern compiles or fails cleanly, matching
// terminates, and the fast paths agree with the automaton — the lines for_each_matching_line
// reports (through the literal prefilter, case-folded or exact) must be exactly the lines that
// matches_line (the lazy DFA alone) accepts, in both case modes, and a matcher made for another
// thread must answer the same.
// Input: pattern, then '\n', then the text to search.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "tools/regex.hpp"

namespace {

using agentkit::tools::detail::Regex;

std::vector<std::size_t> by_prefilter(const Regex& r, std::string_view text) {
  std::vector<std::size_t> starts;
  r.for_each_matching_line(text, [&](std::size_t start, std::size_t) {
    starts.push_back(start);
    return true;
  });
  return starts;
}

std::vector<std::size_t> by_automaton(const Regex& r, std::string_view text) {
  std::vector<std::size_t> starts;
  std::size_t from = 0;
  while (from < text.size()) {  // a final '\n' ends the last line; it does not start an empty one
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    if (r.matches_line(text.substr(from, end - from))) starts.push_back(from);
    from = end + 1;
  }
  return starts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t nl = in.find('\n');
  std::string_view pattern = in.substr(0, nl);
  std::string_view text = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
  for (bool icase : {false, true}) {
    agentkit::tools::detail::RegexOptions o;
    o.case_insensitive = icase;
    o.max_nfa_states = 20'000;  // keep each input quick; the bound itself is tested elsewhere
    auto r = Regex::compile(pattern, o);
    if (!r) continue;
    auto fast = by_prefilter(*r, text);
    if (fast != by_automaton(*r, text)) std::abort();
    if (by_prefilter(r->for_another_thread(), text) != fast) std::abort();
  }
  return 0;
}
