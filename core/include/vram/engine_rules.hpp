#pragma once

// The engine registry's interface: every decision that depends on which
// memory model an engine profile follows (data/engines.json "kind"). A
// profile's numbers (its knobs, their defaults and sources, its launch form,
// its architecture lists) are data; what it does with them is its
// EngineRules, one per kind, each in its own file under core/src/engines/
// (registry.cpp lists them). The rest of the core asks the rules and never
// branches on the kind.

#include <string_view>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"

namespace vram {

struct EngineProfile;
struct InferenceSetup;
struct InferencePlan;
struct StateStorage;
struct Gpu;
struct GpuCatalog;
struct WeightFormat;

/** What an engine's planner reads: the load, the profile, its options, the card. */
struct EngineInput {
  const InferenceSetup& setup;
  const EngineProfile& engine;
  const nlohmann::json& options;  ///< engine_options, the layout written in
  const Gpu* gpu;                 ///< null: no card to budget against
  const GpuCatalog& gpus;
  bool explain;  ///< false: numbers only (the searches)
};

/**
 * Pushes the engine's terms onto `plan` (whose params, weights, KV cache
 * and parallel sizes are already filled in), and its budget, warnings and
 * assumptions.
 */
using PlanTerms = void (*)(const EngineInput& in, InferencePlan& plan);

/** Whether the engine loads weights stored in `format`. */
using LoadsFormat = bool (*)(const WeightFormat& format);

/** What an answer says when the engine does not load `format`. */
using FormatWarning = Message (*)(const WeightFormat& format, const EngineProfile& engine);

/** One memory model: how an engine of this kind plans, splits, fits, offloads and runs. */
struct EngineRules {
  const char* kind;  ///< data/engines.json "kind": "vllm", "flat", ...
  /**
   * An overhead convention (flat, percent) rather than an engine: whole-model
   * terms, named by a sentence, fitted against the cards' marketed memory
   * added up.
   */
  bool convention;
  /**
   * A paged KV cache with its own budget per card (vLLM, SGLang): several
   * cards are a tensor x pipeline x data-parallel layout from its knobs,
   * with expert parallelism for MoE models.
   */
  bool paged;
  /**
   * How several cards share the model when the engine is not paged:
   * "layer" (llama.cpp's --split-mode layer), "device_map" (transformers),
   * "sum" (the conventions add memory up). Empty for paged engines.
   */
  const char* split;
  /** Each card holds a run of layers (the split is "layer" or "device_map"). */
  bool splits_layers;
  /** Expert parallelism needs the routed experts divisible by its size (SGLang's FusedMoE). */
  bool experts_divide_evenly;
  /** Places what does not fit in host memory, layers or experts (llama.cpp's -ngl, --n-cpu-moe). */
  bool offloads;
  /** Over several cards the layers run one card after another (speed: one stage per card). */
  bool stage_per_card;
  /** Runs FP8 weights in FP8 arithmetic on cards that have it. */
  bool fp8_compute;
  LoadsFormat loads;
  FormatWarning format_warning;
  PlanTerms plan;
  /**
   * How the engine holds state layers' conv windows and SSM states for
   * `slots` sequences (kv_cache.hpp), or nullptr: as transformers' cache does.
   * plan_inference sizes the whole answer's cache with it.
   */
  StateStorage (*state_storage)(std::int64_t slots);
};

/** The rules of `kind`, or nullptr (core/src/engines/registry.cpp holds the table). */
const EngineRules* find_engine_rules(std::string_view kind);

}  // namespace vram
