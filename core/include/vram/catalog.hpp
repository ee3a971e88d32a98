#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"
#include "vram/format.hpp"
#include "vram/gpu.hpp"
#include "vram/hf_config.hpp"
#include "vram/speed.hpp"

namespace vram {

/**
 * An EAGLE-3 draft head published for a preset ("eagle3" in data/models.json): one Llama
 * decoder layer whose qkv projection reads the token's embedding beside the fused hidden
 * state (2 x hidden_size in), an fc fusing three of the target's hidden states (3 x
 * target_hidden_size to hidden_size), its own output head over draft_vocab_size tokens and
 * the map from those to the target's (d2t, int64); the embedding is the target's
 * (vllm/model_executor/models/llama_eagle3.py, SGLang's models/llama_eagle3.py).
 */
struct EagleHeadPreset {
  std::string repo;    ///< the head's hub repository ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")
  std::string source;  ///< where its config was read
  std::int64_t hidden_size = 0;
  std::int64_t target_hidden_size = 0;  ///< the fc's input third (config's, else hidden_size)
  std::int64_t intermediate_size = 0;
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t vocab_size = 0;        ///< the target's vocabulary, as the head's config states it
  std::int64_t draft_vocab_size = 0;  ///< the head's own output head
  bool present() const { return hidden_size > 0; }
};

/** A model of data/models.json: a config plus what its source states. */
struct ModelPreset {
  std::string id;
  std::string name;
  std::string group;  ///< "guide", "planner", "popular", "embedding"
  /** "embed" or "rerank": a pooling model (an embedding or reranker model), whose checkpoint has
   * no output head whatever tie_word_embeddings says; "" for a model that generates text. */
  std::string task;
  std::string source;
  /** The Hugging Face repository the config was read from ("meta-llama/Llama-3.1-8B"); "" when
   * none. */
  std::string repo;
  std::string_view config;  ///< config.json text, read by import_hf_config on demand
  double params_total = 0;  ///< stated by the source; 0 = compute
  double params_active = 0;
  double official_params_total = 0;  ///< the vendor's figure, shown beside the computed one
  double official_params_active = 0;
  std::string params_source;
  std::vector<std::string> placeholders;
  std::vector<Message> notes;  ///< messages {id, params}; a plain string is note.text
  std::string family;          ///< the name people search by ("llama", "deepseek"); "" when none
  /** Other names people know the model by ("deepseek r1", "r1"), for the page's search. */
  std::vector<std::string> aliases;
  /**
   * What the model itself needs on each engine's command line ("launch" in data/models.json):
   * engine id -> {flags: [{flag, value | switch | omit, meaning}], source}, checked by
   * preset_launch_from_json. A pooling model's runner, a reranker's overrides.
   */
  nlohmann::json launch = nlohmann::json::object();
  EagleHeadPreset eagle3;  ///< the EAGLE-3 head published for it; absent: none
};

/**
 * Each preset config's import (import_hf_config), kept by its field and
 * config text: a preset's config is parsed once per catalog, not on every
 * request (the grid reads five, fit_models every preset, on each call).
 * Keyed by the text itself, so a changed config is never served stale.
 */
using PresetImports = std::map<std::string, ImportedModel, std::less<>>;

/**
 * A preset's "launch" (data/models.json) checked, or error.data_launch naming the field under
 * `at`: each key an engine of `engines` with a launch section; each flag "-x" or "--name" in
 * lower case, with exactly one of a "value" (a plain word of letters, digits
 * and ". _ / : + = -", a number, or JSON written between single quotes, so no "'" in it), a
 * "switch" (true: written alone) or "omit" (true: the engine's flag of that name is left out);
 * no flag twice; a "source" for each engine. A flag's "meaning" is for people reading the data
 * (the page's module is built without it), so not required here.
 */
nlohmann::json preset_launch_from_json(const nlohmann::json& launch, const std::string& at,
                                       const std::vector<EngineProfile>& engines);

/** Everything the calculator knows, parsed from the data folder. */
struct Catalog {
  FormatCatalog formats;
  std::vector<ModelPreset> models;
  GpuCatalog gpus;
  std::vector<EngineProfile> engines;
  /** data/engines.json "training_launch": the fine-tuning plan's Python calls (launch.hpp). */
  nlohmann::json training_launch = nlohmann::json::object();
  SpeedData speed;         ///< data/speed.json: expected speed per engine
  nlohmann::json presets;  ///< data/presets.json "presets" (named links)
  /** data/accuracy.json "categories": the measured error range per kind of answer. */
  nlohmann::json accuracy = nlohmann::json::object();
  /**
   * Which data this build carries: {"models": {"updated": "YYYY-MM-DD"}, ...}
   * for models, formats, gpus, engines and presets, from each data file's
   * "updated" field, so a host can show or pin the figures' basis.
   */
  nlohmann::json data_versions = nlohmann::json::object();

  /** The data embedded at build time. Throws vram::Error if it is broken. */
  static Catalog builtin();

  /**
   * The imports of resolve(): filled as presets are asked for, shared by the
   * catalog's copies. The core's one cache, owned by whoever owns the
   * catalog (the Calculator): a catalog is not for use from two threads at
   * once.
   */
  std::shared_ptr<PresetImports> imports = std::make_shared<PresetImports>();

  /** Throws vram::Error("unknown_model", field, ...). */
  const ModelPreset& model(std::string_view id, std::string_view field) const;

  /** resolve_preset(preset), its config imported once and kept in `imports`. */
  ImportedModel resolve(const ModelPreset& preset) const;
};

/**
 * The ModelSpec of a preset: its config through the importer, plus
 * overrides. Parses the config on every call; Catalog::resolve keeps it.
 */
ImportedModel resolve_preset(const ModelPreset& preset);

}  // namespace vram
