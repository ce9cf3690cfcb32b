// The single tool registry (direct, MCP and intrinsic tools in one flat namespace), the reserved
// read_skill tool, and system-prompt assembly.
#include <algorithm>
#include <filesystem>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/utf8.hpp"
#include "agentkit/skills/skill_folder.hpp"
#include "internal.hpp"

namespace agentkit::detail {
namespace {

// What every wire accepts as a function name (Anthropic and OpenAI: ^[a-zA-Z0-9_-]{1,64}$).
constexpr std::size_t kMaxToolNameLength = 64;

bool is_valid_tool_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxToolNameLength) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string direct_owner(std::size_t index, const ToolDefinition& t) {
  std::string owner = "direct tool #" + std::to_string(index + 1);
  if (!t.origin.empty()) owner += " (origin: " + t.origin + ")";
  return owner;
}

// Adds a tool or records why it cannot be added. Duplicates name both owners.
void register_tool(ToolRegistry& reg, ToolDefinition def, std::string owner,
                   std::vector<std::string>& problems) {
  if (!is_valid_tool_name(def.name)) {
    problems.push_back(owner + " has an invalid name '" + def.name +
                       "': use 1-64 characters from [A-Za-z0-9_-]");
    return;
  }
  if (!def.handler) {
    problems.push_back(owner + " '" + def.name + "' has no handler");
    return;
  }
  if (auto it = reg.by_name.find(def.name); it != reg.by_name.end()) {
    problems.push_back("tool name '" + def.name + "' is defined twice: by " +
                       reg.tools[it->second].owner + " and by " + owner);
    return;
  }
  reg.by_name.emplace(def.name, reg.tools.size());
  ToolSpec spec{def.name, def.description, def.input_schema.json(), 0};
  spec.fingerprint = fingerprint_of(spec);
  reg.specs.push_back(std::move(spec));
  reg.tools.push_back({std::move(def), std::move(owner), {}});
}

// ---- read_skill ----------------------------------------------------------------------------------

constexpr std::string_view kSkillMainFile = "SKILL.md";

// Normalises a bundled path and refuses anything that could leave the skill: absolute paths,
// NUL, drive letters, and any '..' (the check runs on the '/'-joined, normalised form).
std::optional<std::string> safe_skill_path(std::string_view raw, std::string& why) {
  std::string p(raw);
  while (!p.empty() && (p.front() == ' ' || p.front() == '\t')) p.erase(p.begin());
  while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.pop_back();
  if (p.find('\0') != std::string::npos) {
    why = "path contains a NUL byte";
    return std::nullopt;
  }
  if (!p.empty() && (p.front() == '/' || p.front() == '\\' || (p.size() >= 2 && p[1] == ':'))) {
    why = "absolute paths are not allowed; give a path relative to the skill";
    return std::nullopt;
  }
  for (char& c : p) {
    if (c == '\\') c = '/';
  }
  std::string normal = std::filesystem::path(p).lexically_normal().generic_string();
  if (normal == "." || normal == ".." || normal.starts_with("../") || normal.find("/../") != std::string::npos) {
    why = "path escapes the skill folder";
    return std::nullopt;
  }
  return normal;
}

json::Value read_one_skill(const std::vector<Skill>& skills, std::string_view name, std::string_view raw_path) {
  json::Object item;
  item.append_unique("skill_name", std::string(name));
  const Skill* skill = nullptr;
  for (const auto& s : skills) {
    if (s.name == name) skill = &s;
  }
  if (skill == nullptr) {
    std::string known;
    for (const auto& s : skills) known += (known.empty() ? "" : ", ") + s.name;
    item.append_unique("path", std::string(raw_path.empty() ? kSkillMainFile : raw_path));
    item.append_unique("error", "unknown skill '" + std::string(name) + "'; attached skills: " + known);
    return item;
  }
  std::string why;
  auto path = safe_skill_path(raw_path, why);
  if (!path) {
    item.append_unique("path", std::string(raw_path));
    item.append_unique("error", why);
    return item;
  }
  bool main_file = path->empty() || *path == "." || *path == kSkillMainFile;
  item.append_unique("path", main_file ? std::string(kSkillMainFile) : *path);
  if (!skill->description.empty()) item.append_unique("description", skill->description);
  if (!skill->location.empty()) item.append_unique("location", skill->location);
  // A skill read from disk has its bundled files read now, from its folder, not held in memory.
  const std::filesystem::path folder = std::filesystem::path(skill->location).parent_path();
  std::string from_disk;
  const std::string* content = main_file ? &skill->body : nullptr;
  if (!main_file) {
    for (const auto& f : skill->files) {
      if (f.path == *path) content = &f.content;
    }
  }
  if (content == nullptr && !skill->location.empty()) {
    auto bytes = skills::read_bundled_file(folder, *path);
    if (!bytes) {
      item.append_unique("error", bytes.error().message);
      return item;
    }
    from_disk = std::move(*bytes);
    content = &from_disk;
  }
  if (content == nullptr) {
    item.append_unique("error", "skill '" + skill->name + "' has no file '" + *path + "'");
    return item;
  }
  bool text = utf8::is_valid(*content);
  item.append_unique("content", text ? *content : base64::encode(*content));
  item.append_unique("encoding", text ? "utf-8" : "base64");
  if (main_file) {
    json::Array files{std::string(kSkillMainFile)};
    std::vector<std::string> names;
    for (const auto& f : skill->files) names.push_back(f.path);
    if (!skill->location.empty()) {
      std::vector<skills::Diagnostic> ignored;  // what was left out is the embedder's to log
      for (auto& f : skills::list_bundled_files(folder, ignored))
        names.push_back(std::move(f.path));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (auto& n : names) files.emplace_back(std::move(n));
    item.append_unique("available_files", std::move(files));
  }
  item.append_unique("source", skill->location.empty() ? "attached" : "disk");
  return item;
}

}  // namespace

const RegisteredTool* ToolRegistry::find(std::string_view name) const {
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : &tools[it->second];
}

ToolDefinition make_read_skill_tool(std::shared_ptr<const std::vector<Skill>> skills) {
  ToolDefinition t;
  t.name = std::string(kReadSkillToolName);
  t.description =
      "Read one attached skill: its instructions (omit path, or path \"SKILL.md\") or one of its "
      "bundled files by relative path. One file per call; call again for another file.";
  t.input_schema = schema::object({schema::required(
      "skills", schema::array(schema::object({
                                  schema::required("name", schema::string().describe("Skill name")),
                                  schema::optional("path", schema::string().describe(
                                                               "Relative path of a bundled file")),
                              }))
                    .min_items(1)
                    .max_items(1)
                    .describe("Exactly one skill read"))});
  t.origin = "intrinsic";
  t.handler = [skills](const json::Value& args, const ToolContext&) {
    const json::Value& request = args.find("skills")->as_array().front();
    std::string_view path;
    if (const json::Value* p = request.find("path")) path = p->as_string();
    json::Array results;
    results.push_back(read_one_skill(*skills, request.find("name")->as_string(), path));
    json::Object doc;
    doc.append_unique("results", std::move(results));
    return ToolResult::text_result(json::dump(json::Value(std::move(doc)), {.indent = 2}));
  };
  return t;
}

Result<ToolRegistry> build_registry(
    const AgentDefinition& def,
    std::vector<std::pair<std::string, std::vector<ToolDefinition>>> mcp_tools,
    std::vector<std::pair<std::string, ToolDefinition>> plugin_tools,
    std::vector<std::string>& problems) {
  ToolRegistry reg;
  for (std::size_t i = 0; i < def.tools.direct.size(); ++i) {
    const ToolDefinition& t = def.tools.direct[i];
    std::string owner = direct_owner(i, t);
    if (t.name == kReadSkillToolName) {
      problems.push_back(owner + " uses the reserved name 'read_skill' (installed for skills)");
      continue;
    }
    register_tool(reg, t, std::move(owner), problems);
  }
  for (auto& [plugin, t] : plugin_tools) {
    if (t.origin.empty()) t.origin = "plugin:" + plugin;
    register_tool(reg, std::move(t), "plugin '" + plugin + "'", problems);
  }
  for (auto& [server, tools] : mcp_tools) {
    for (auto& t : tools) {
      std::string owner = "MCP server '" + server + "' (its tool '" + t.name + "')";
      if (t.origin.empty()) t.origin = "mcp:" + server;
      t.name = server + "__" + t.name;
      std::size_t before = reg.tools.size();
      register_tool(reg, std::move(t), std::move(owner), problems);
      if (reg.tools.size() > before) reg.tools.back().mcp_server = server;
    }
  }
  if (!def.skills.empty()) {
    auto skills = std::make_shared<const std::vector<Skill>>(def.skills);
    register_tool(reg, make_read_skill_tool(std::move(skills)),
                  "the intrinsic read_skill tool (installed because the definition has skills)",
                  problems);
  }
  return reg;
}

skills::AssembledPrompt system_prompt_for_turn(const AgentCore& agent,
                                               std::span<const ToolSpec> offered) {
  skills::PromptInputs in = prompt_inputs(agent.definition);
  for (const auto& spec : offered) {
    const RegisteredTool* tool = agent.registry.find(spec.name);
    if (tool == nullptr || tool->definition.prompt_guidelines.empty()) continue;
    in.tool_guidelines.push_back({spec.name, tool->definition.prompt_guidelines});
  }
  return skills::assemble_prompt(in);
}

}  // namespace agentkit::detail

namespace agentkit {

skills::PromptInputs prompt_inputs(const AgentDefinition& definition) {
  skills::PromptInputs in;
  in.instructions = definition.instructions;
  in.context_files = definition.context_files;
  for (const auto& s : definition.skills) in.skills.push_back({s.name, s.description, s.location});
  in.skill_reader = std::string(kReadSkillToolName);
  return in;
}

skills::AssembledPrompt system_prompt_record(const AgentDefinition& definition) {
  skills::PromptInputs in = prompt_inputs(definition);
  for (const auto& t : definition.tools.direct) {
    if (!t.prompt_guidelines.empty()) in.tool_guidelines.push_back({t.name, t.prompt_guidelines});
  }
  return skills::assemble_prompt(in);
}

}  // namespace agentkit
