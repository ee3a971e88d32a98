#pragma once

// The command that runs a serving plan: each engine's launch flags
// (data/engines.json "launch": program, flags, what plan value each
// carries, the version and source they were read from) filled with the
// plan's numbers.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"
#include "vram/finetune.hpp"

namespace vram {

/** The plan values a launch flag may carry ("carries" in data/engines.json). */
struct LaunchPlan {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;         ///< attention data-parallel ranks (vLLM, SGLang)
  bool expert_parallel = false;  ///< routed experts whole over tensor x data parallel cards
  std::int64_t context = 0;
  std::int64_t batch = 1;
  std::int64_t layers = 0;  ///< the model's layers (llama.cpp -ngl is layers + 1: all on the GPU)
  /** llama.cpp -ngl of a partial offload (vram/offload.hpp); -1: every layer and the output. */
  std::int64_t gpu_layers = -1;
  std::int64_t n_cpu_moe = 0;  ///< llama.cpp --n-cpu-moe: layers whose experts stay on the host
  std::string tensor_split;    ///< llama.cpp --tensor-split over unequal cards ("30,19"), or empty
  std::string devices;         ///< llama.cpp --device when the split reorders the cards, or empty
  std::string weights;         ///< weight format id ("native" when the checkpoint's own)
  std::string kv;              ///< KV format id
  nlohmann::json options = nlohmann::json::object();  ///< the engine's knobs as the plan used them
  /** The knobs as the request gave them, "auto" where it left the engine to pick ("asked:"). */
  nlohmann::json asked = nlohmann::json::object();
  std::string model;   ///< the preset's hub repository; used where the launch section has hub_repo
  bool draft = false;  ///< speculative decoding with a draft model
  std::string draft_repo;         ///< the draft's hub repository, or empty
  std::int64_t draft_tokens = 0;  ///< tokens drafted a step
  bool mtp = false;               ///< speculative decoding with the model's own MTP layers
  bool eagle = false;             ///< speculative decoding with an EAGLE-3 head (draft_repo)
  double share = 0;               ///< a companion server's fraction of the card; 0: none written
  std::int64_t images = 0;        ///< images in each request (a vision model's)
  /** A tower of any resolution: the processor's pixel bounds the command writes
   * (vLLM --mm-processor-kwargs min_pixels, max_pixels); 0: none written. */
  std::int64_t image_min_pixels = 0;
  std::int64_t image_max_pixels = 0;
  /**
   * What the model itself needs of this engine (its preset's "launch" in data/models.json:
   * {flag, value | switch | omit}): written first; an engine flag of the same name gives way.
   */
  nlohmann::json model_flags = nlohmann::json::array();
};

/**
 * {engine, version, source, model, args: [{flag, value}], command} for
 * `engine`, or null when it has no launch section (the conventions). A
 * flag whose value equals its listed default, or whose plan value has no
 * entry in its "values" map (the engine's default format), is left out; a
 * "switch" flag is written alone when its plan value is true.
 * Under a partial offload, an "also" program that cannot express it
 * ("offload_note") carries that note, with its own option, in `notes`.
 */
nlohmann::json launch_json(const EngineProfile& engine, const LaunchPlan& plan);

/**
 * The companion's server (a second model on the same card): the engine's
 * launch section overlaid with its "companion" entry (its own flags, each
 * a plan value or a fixed "value", and placeholder), filled from `plan`
 * (the companion's context, layers and share); null where the engine has
 * none.
 */
nlohmann::json companion_launch_json(const EngineProfile& engine, const LaunchPlan& plan);

/**
 * {engine, version, source, model, args: [{call, flag, value}], command,
 * launcher?} from data/engines.json "training_launch": the Python calls
 * (transformers, PEFT, TRL) that set up the plan, one per line, with only
 * the arguments the plan sets; `launcher` is the shell command that starts
 * it on several GPUs; the model is the preset's hub repository, else a
 * placeholder; `notes` ({id, params}) say what the calls cannot
 * express (SGD's momentum, a chunked loss).
 */
nlohmann::json training_launch_json(const nlohmann::json& section, const FinetuneSetup& setup);

}  // namespace vram
