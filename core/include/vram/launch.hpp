#pragma once

// The command that runs a serving plan: each engine's launch flags
// (data/engines.json "launch": program, flags, what plan value each
// carries, the version and source they were read from) filled with the
// plan's numbers.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"

namespace vram {

/** The plan values a launch flag may carry ("carries" in data/engines.json). */
struct LaunchPlan {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  std::int64_t context = 0;
  std::int64_t batch = 1;
  std::int64_t layers = 0;  ///< the model's layers (llama.cpp -ngl is layers + 1: all on the GPU)
  std::string weights;      ///< weight format id ("native" when the checkpoint's own)
  std::string kv;           ///< KV format id
  nlohmann::json options = nlohmann::json::object();  ///< the engine's knobs as the plan used them
  std::string model;  ///< the preset's hub repository; used where the launch section has hub_repo
};

/**
 * {engine, version, source, model, args: [{flag, value}], command} for
 * `engine`, or null when it has no launch section (the conventions). A
 * flag whose value equals its listed default, or whose plan value has no
 * entry in its "values" map (the engine's default format), is left out.
 */
nlohmann::json launch_json(const EngineProfile& engine, const LaunchPlan& plan);

}  // namespace vram
