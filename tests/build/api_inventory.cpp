// Lists every public declaration under include/agentkit/ as normalised text (comments and blank
// lines dropped, whitespace collapsed) and compares it with the reviewed golden file, so any change
// to the public surface is a visible, reviewed diff.
//
//   api_inventory --check  <include dir> <golden file>   exit 1 and print a diff when they differ
//   api_inventory --update <include dir> <golden file>   rewrite the golden file
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Removes a trailing // comment that is not inside a string literal.
std::string strip_line_comment(const std::string& line) {
  bool in_string = false;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && in_string) {
      ++i;
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (!in_string && c == '/' && line[i + 1] == '/') return line.substr(0, i);
  }
  return line;
}

std::string collapse_whitespace(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> inventory(const fs::path& include_dir) {
  std::vector<fs::path> headers;
  for (const auto& entry : fs::recursive_directory_iterator(include_dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hpp") headers.push_back(entry.path());
  }
  std::sort(headers.begin(), headers.end());
  std::vector<std::string> out;
  for (const auto& h : headers) {
    out.push_back("=== " + fs::relative(h, include_dir).generic_string());
    std::ifstream in(h);
    std::string line;
    bool in_block_comment = false;
    while (std::getline(in, line)) {
      if (in_block_comment) {
        if (line.find("*/") != std::string::npos) in_block_comment = false;
        continue;
      }
      std::string text = collapse_whitespace(strip_line_comment(line));
      if (text.starts_with("/*")) {
        in_block_comment = text.find("*/") == std::string::npos;
        continue;
      }
      if (!text.empty()) out.push_back(text);
    }
  }
  return out;
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[1]) != "--check" && std::string(argv[1]) != "--update")) {
    std::cerr << "usage: api_inventory --check|--update <include dir> <golden file>\n";
    return 2;
  }
  auto current = inventory(argv[2]);
  if (std::string(argv[1]) == "--update") {
    std::ofstream out(argv[3]);
    for (const auto& l : current) out << l << '\n';
    std::cout << "api_inventory: wrote " << current.size() << " lines to " << argv[3] << '\n';
    return 0;
  }
  auto golden = read_lines(argv[3]);
  if (golden == current) {
    std::cout << "api_inventory: " << current.size() << " declaration lines match the golden file\n";
    return 0;
  }
  // A small diff: lines only in one side, in order.
  std::cout << "api_inventory: the public surface changed. Review the diff, then run\n"
               "  cmake --build <build> --target api_inventory_update\n"
               "and commit tests/build/api.golden with the change.\n";
  std::size_t shown = 0;
  std::vector<std::string> g_sorted = golden, c_sorted = current;
  std::sort(g_sorted.begin(), g_sorted.end());
  std::sort(c_sorted.begin(), c_sorted.end());
  std::vector<std::string> removed, added;
  std::set_difference(g_sorted.begin(), g_sorted.end(), c_sorted.begin(), c_sorted.end(), std::back_inserter(removed));
  std::set_difference(c_sorted.begin(), c_sorted.end(), g_sorted.begin(), g_sorted.end(), std::back_inserter(added));
  for (const auto& l : removed) {
    if (shown++ < 60) std::cout << "- " << l << '\n';
  }
  for (const auto& l : added) {
    if (shown++ < 120) std::cout << "+ " << l << '\n';
  }
  if (removed.empty() && added.empty()) std::cout << "(same lines, different order or file boundaries)\n";
  return 1;
}
