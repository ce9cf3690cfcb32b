// Test support for the incremental readers: run a reader over a stream cut into chunks and
// record everything it produced, so different cuts of one stream can be compared.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace wire_test {

template <class Item>
struct Transcript {
  std::vector<Item> items;
  std::optional<agentkit::Error> error;   // the first error next() or finish() reported
  friend bool operator==(const Transcript&, const Transcript&) = default;
};

// Pulls every ready item; records the poisoning error, if any. Answers false once poisoned.
template <class Reader, class Item>
bool drain(Reader& reader, Transcript<Item>& out) {
  while (true) {
    auto item = reader.next();
    if (!item) {
      if (!out.error) out.error = item.error();
      return false;
    }
    if (!*item) return true;
    out.items.push_back(std::move(**item));
  }
}

// Feeds `chunks` one by one, draining after each, then finishes and drains again.
template <class Item, class Reader>
Transcript<Item> read_chunks(Reader reader, const std::vector<std::string_view>& chunks) {
  Transcript<Item> out;
  for (std::string_view chunk : chunks) {
    reader.feed(chunk);
    drain(reader, out);
  }
  auto end = reader.finish();
  drain(reader, out);
  if (!end && !out.error) out.error = end.error();
  return out;
}

template <class Item, class Reader>
Transcript<Item> read_whole(Reader reader, std::string_view stream) {
  return read_chunks<Item>(std::move(reader), {stream});
}

// Every cut of `stream` into two chunks, plus one byte at a time.
inline std::vector<std::vector<std::string_view>> all_splits(std::string_view stream) {
  std::vector<std::vector<std::string_view>> splits;
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    splits.push_back({stream.substr(0, i), stream.substr(i)});
  }
  std::vector<std::string_view> bytes;
  for (std::size_t i = 0; i < stream.size(); ++i) bytes.push_back(stream.substr(i, 1));
  splits.push_back(bytes);
  return splits;
}

}  // namespace wire_test
