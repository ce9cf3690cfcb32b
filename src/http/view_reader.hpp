// A body reader that keeps what it reads in a buffer of its own and lends views of it, so that
// Response::read_view copies nothing (the default client's connection, Response::with_body).
#pragma once

#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::http::detail {

class ViewReader : public BodyReader {
 public:
  // The next body bytes, valid until the next call on this reader: at least one byte, or empty
  // once the body is complete. Errors end the body for good, as read_some's do.
  virtual Result<std::string_view> read_view() = 0;
};

}  // namespace agentkit::http::detail
