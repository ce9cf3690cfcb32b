// agentkit/base/charconv.hpp — std::from_chars for double, on every standard library.
//
//   double d = 0;
//   auto [ptr, ec] = agentkit::from_chars(text.data(), text.data() + text.size(), d);
//   if (ec == std::errc() && ptr == text.data() + text.size()) use(d);
//
// The contract of std::from_chars for double: the C locale's grammar whatever the process locale
// (no leading whitespace, no '+', "inf", "infinity" and "nan" accepted in any case), the value
// correctly rounded from every digit, `ptr` past the longest match, errc::invalid_argument with
// `ptr == first` when nothing matches, and errc::result_out_of_range, leaving `value` unchanged,
// when the number overflows to infinity or underflows to zero. Where the standard library has
// the floating-point std::from_chars this calls it; libc++ 14 has not, and there the library
// parses with the C library's correctly rounded strtod under the C locale. chars_format::hex is
// not accepted there (errc::invalid_argument); no caller in the library reads hex floats.
//
// Thread safety: a pure function on caller-owned data.
#pragma once

#include <charconv>

namespace agentkit {

std::from_chars_result from_chars(const char* first, const char* last, double& value,
                                  std::chars_format format = std::chars_format::general);

}  // namespace agentkit
