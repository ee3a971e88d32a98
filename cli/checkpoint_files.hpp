#pragma once

// Checkpoint files on the command line: --gguf, --safetensors, --index.
// Only the header bytes of each file are read, never the tensor data.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render.hpp"

namespace vramcli {

struct CheckpointArgs {
  std::vector<std::string> gguf;         ///< --gguf PATH, repeatable (split parts)
  std::vector<std::string> safetensors;  ///< --safetensors PATH... (one or several)
  std::string index;                     ///< --index PATH (model.safetensors.index.json)
  bool list_tensors = false;             ///< --tensors: each file's tensor list (capped)
  bool any() const { return !gguf.empty() || !safetensors.empty() || !index.empty(); }
};

/** Removes the checkpoint flags and their paths from `args`; throws UsageError. */
CheckpointArgs take_checkpoint_args(std::vector<std::string>& args);

/**
 * Reads each file's header (a growing prefix, as far as the core asks) and
 * returns the inspections, one per file, in order. Throws vram::Error from
 * the core, naming the file in the message.
 */
std::vector<nlohmann::json> inspect_files(const CheckpointArgs& files);

/** The request's "checkpoint" object: {files: [...], config?} (GGUF carries its config). */
nlohmann::json checkpoint_request(const std::vector<nlohmann::json>& inspections);

/** The type mix as text: "Q4_K  4.21 GB  4.50 bits" per type, and the components. */
std::string render_inspection(const std::vector<nlohmann::json>& inspections, const Words& say);

}  // namespace vramcli
