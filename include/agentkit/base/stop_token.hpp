// agentkit/base/stop_token.hpp — cooperative cancellation: stop_token, stop_source, stop_callback.
//
//   agentkit::stop_source source;
//   agentkit::stop_token token = source.get_token();
//   agentkit::stop_callback wake(token, [&] { cv.notify_all(); });
//   source.request_stop();                      // runs `wake`, and token.stop_requested() is true
//
// Every blocking call in the library takes an agentkit::stop_token. Where the standard library has
// <stop_token> (libstdc++, and libc++ from release 18 on) these are the std types themselves, so a
// std::stop_token can be passed wherever the library asks for one. The names exist so that the same
// code builds on a standard library that lacks them.
//
// Thread safety: as for the std types — any thread may request a stop or read a token at any time.
#pragma once

#include <version>

#if defined(__cpp_lib_jthread)
#include <stop_token>

namespace agentkit {
using std::nostopstate;
using std::nostopstate_t;
using std::stop_callback;
using std::stop_source;
using std::stop_token;
}  // namespace agentkit
#else
#error "agentkit needs <stop_token> from the standard library"
#endif
