// The default set of coding tools (ARCHITECTURE §5: built-in tools are ordinary ToolDefinitions).
#include "agentkit/tools/coding_tools.hpp"

namespace agentkit::tools {

std::vector<ToolDefinition> coding_tools(const Workspace& ws, CodingToolsOptions options) {
  // One queue for both mutating tools, or edits and writes of one file would not serialise.
  if (!options.mutation_queue) options.mutation_queue = std::make_shared<FileMutationQueue>();
  std::vector<ToolDefinition> set;
  set.push_back(read_file_tool(ws, options));
  set.push_back(write_file_tool(ws, options));
  set.push_back(edit_file_tool(ws, options));
  set.push_back(list_files_tool(ws, options));
  set.push_back(find_files_tool(ws, options));
  set.push_back(search_files_tool(ws, options));
  set.push_back(execute_tool(ws, options));
  set.push_back(run_command_tool(ws, options));
  set.push_back(powershell_tool(ws, options));
  return set;
}

}  // namespace agentkit::tools
