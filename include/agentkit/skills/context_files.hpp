// agentkit/skills/context_files.hpp — project instructions already written for other coding
// agents: AGENTS.md (and AGENTS.override.md, CLAUDE.md) up the folder tree.
//
//   agentkit::skills::ContextFileOptions options;
//   options.working_dir = "/work/repo/services/api";
//   options.trust_project = true;  // default false, as for skills
//   agentkit::skills::ContextFiles found = agentkit::skills::load_context_files(options);
//   for (const auto& f : found.files) std::clog << f.path << " " << f.bytes << "\n";
//
// Order, first to last in the prompt: the user-global file, then one file per folder from the
// project root down to the working folder (the most specific last). In each folder the first of
// `names` then `fallbacks` that is a non-empty regular file is taken; a candidate that is a folder
// is passed over, one that is a FIFO, device or unreadable is reported and passed over. The
// project root is the nearest ancestor holding `.git`, so a linked git worktree inside its main
// repository loads only the worktree's files. All files together are capped at max_total_bytes:
// the file that crosses it is truncated and later ones are left out, each reported.
//
// Thread safety: touches only its arguments, the file system and the environment (for HOME).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "agentkit/skills/context_file.hpp"
#include "agentkit/skills/front_matter.hpp"

namespace agentkit::skills {

// Where and how to look for context files. Safe to copy.
struct ContextFileOptions {
  // The folder the agent works in. Empty: the process's current folder.
  std::filesystem::path working_dir;
  // The top of the walk. Empty: the nearest ancestor of working_dir holding `.git` (a folder,
  // or a linked worktree's `.git` file); with none, only working_dir itself.
  std::filesystem::path project_root;
  // Read the project's files at all. Default false: their whole body is repository-authored
  // prompt text.
  bool trust_project = false;
  // Read the user-global file (home / user_file).
  bool user_tier = true;
  // The home folder; empty resolves it as skill discovery does (resolve_home()), and a home that
  // cannot be resolved to an absolute path skips the user-global file.
  std::filesystem::path home;
  // The user-global file, relative to home.
  std::filesystem::path user_file = ".agents/AGENTS.md";
  // Per-folder candidates, first match wins: an override replaces the others.
  std::vector<std::string> names = {"AGENTS.override.md", "AGENTS.md"};
  // Tried after `names` in each folder, e.g. files written for other agents.
  std::vector<std::string> fallbacks = {"CLAUDE.md"};
  // All bodies together; Codex uses the same 32 KiB default.
  std::size_t max_total_bytes = 32 * 1024;
};

struct ContextFiles {
  std::vector<ContextFile> files;  // in prompt order
  std::vector<Diagnostic> diagnostics;
};

ContextFiles load_context_files(const ContextFileOptions& options);

}  // namespace agentkit::skills
