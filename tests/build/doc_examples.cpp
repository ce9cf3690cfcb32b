// Compiles every ```cpp block of a Markdown file, so the examples in docs/ cannot rot.
//
//   doc_examples <markdown> <include dir> <work dir> <c++ compiler>
// Each block is written to its own file and compiled with -fsyntax-only against the public headers;
// a block must therefore be complete (its own #includes). Exit 1 when any block fails.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: doc_examples <markdown> <include dir> <work dir> <c++ compiler>"
                 " <generated include dir>\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "doc_examples: cannot read " << argv[1] << '\n';
    return 2;
  }
  fs::create_directories(argv[3]);
  std::vector<std::pair<int, std::string>> blocks;  // starting line, code
  std::string line, code;
  int number = 0, start = 0;
  bool inside = false;
  while (std::getline(in, line)) {
    ++number;
    if (!inside && line.rfind("```cpp", 0) == 0) {
      inside = true;
      start = number + 1;
      code.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      blocks.emplace_back(start, code);
    } else if (inside) {
      code += line + '\n';
    }
  }
  if (blocks.empty()) {
    std::cerr << "doc_examples: no ```cpp block in " << argv[1] << '\n';
    return 1;
  }
  int failures = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    fs::path file = fs::path(argv[3]) / ("example_" + std::to_string(i + 1) + ".cpp");
    std::ofstream(file) << blocks[i].second;
    std::string cmd = std::string("\"") + argv[4] +
                      "\" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I\"" + argv[2] +
                      "\" -I\"" + argv[5] + "\" \"" + file.string() + "\"";
    if (std::system(cmd.c_str()) != 0) {
      std::cerr << "doc_examples: the block at " << argv[1] << ":" << blocks[i].first << " does not compile\n";
      ++failures;
    }
  }
  std::cout << "doc_examples: " << blocks.size() - static_cast<std::size_t>(failures) << " of " << blocks.size()
            << " blocks compile\n";
  return failures == 0 ? 0 : 1;
}
