#pragma once

// What every family importer shares: the config being read, the model being
// built, and bounded reads that name the field. hf_config.cpp reads the
// fields every decoder has, then hands over to the family's importer
// (registry.cpp) and finishes with the checks that hold for all.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"
#include "vram/model.hpp"

namespace vram::import {

using nlohmann::json;

struct Context {
  const json& root;         ///< the whole config.json
  const json& cfg;          ///< the language model's part (text_config or root)
  std::string root_prefix;  ///< "config"
  std::string prefix;       ///< "config" or "config.text_config"
  std::string outer_type;   ///< root model_type
  std::string model_type;   ///< the language model's model_type
  ImportedModel& out;
  ModelSpec& m;
  std::int64_t layers = 0;                   ///< num_hidden_layers, in [1, kMaxLayers]
  std::optional<std::int64_t> intermediate;  ///< intermediate_size if given, in range
  bool attention_bias = false;

  /** "prefix.key". */
  std::string field(std::string_view key) const;
  /** An integer of `cfg` in [min, max], or nullopt when absent. */
  std::optional<std::int64_t> opt_int(std::string_view key, std::int64_t min,
                                      std::int64_t max) const;
  /** The same, required. */
  std::int64_t get_int(std::string_view key, std::int64_t min, std::int64_t max) const;
  /** The first of `keys` present, in [min, max]; errors name the key found. */
  std::optional<std::int64_t> opt_int_any(std::initializer_list<const char*> keys, std::int64_t min,
                                          std::int64_t max) const;
  /** The same, required: a missing value is named by the first key. */
  std::int64_t get_int_any(std::initializer_list<const char*> keys, std::int64_t min,
                           std::int64_t max) const;
  std::optional<bool> opt_bool(std::string_view key) const;
  /** intermediate_size, required by this family. */
  std::int64_t require_intermediate() const;
  void warn(Message message) const;
};

/** An importer fills in what its family does differently. */
using Importer = void (*)(Context&);

/** Which of the families sharing a GGUF architecture name a file is. */
enum class GgufVariant {
  kAny,      ///< the only family of that name
  kDense,    ///< {arch}.expert_count absent or 0
  kMoe,      ///< {arch}.expert_count above 0
  kSoftmax,  ///< {arch}.expert_gating_func absent or not 2
  kSigmoid,  ///< {arch}.expert_gating_func 2 (DeepSeek V3's routing)
};

/** One entry of the registry: a model_type and how to read it. */
struct Family {
  const char* model_type;
  Importer import;
  bool tie_default;  ///< tie_word_embeddings when the key is absent
  /** llama.cpp's general.architecture for this family, or nullptr: none. */
  const char* gguf_arch = nullptr;
  GgufVariant gguf_variant = GgufVariant::kAny;
  /** The config key that counts the family's multi-token-prediction layers, or nullptr. */
  const char* mtp_key = nullptr;
  /** The family's vision tower takes any resolution (Qwen3-VL's): a request gives the size. */
  bool vision_any_size = false;
};

/** The family of `model_type`, or nullptr. registry.cpp holds the table. */
const Family* find_family(std::string_view model_type);

// --- shared steps (common.cpp) ----------------------------------------------
/** Layer kinds from an explicit `layer_types` list; false when absent. */
bool apply_layer_types(Context& c);
/** Every layer from `from_layer` on slides. */
void set_all_sliding(ModelSpec& m, std::int64_t from_layer = 0);
/** Layers slide except every `pattern`-th (Gemma 3, Cohere 2); 0: all slide. */
void slide_except_every(Context& c, std::int64_t pattern);
/** Reads quantization_config and records how the checkpoint is stored. */
void detect_storage(Context& c, const std::string& dtype);
/** DeepSeek-style routed experts (deepseek.cpp): shared by DeepSeek and GLM-4.5. */
void deepseek_moe(Context& c);

// --- the families (one file each) -------------------------------------------
void import_llama(Context& c);  // llama, mistral, mixtral, qwen2/3 (+MoE), custom, unknown
void import_gemma(Context& c);
void import_gemma2(Context& c);
void import_gemma3(Context& c);
void import_deepseek(Context& c);
void import_glm4_moe(Context& c);
void import_gpt_oss(Context& c);
void import_phi3(Context& c);
void import_falcon(Context& c);
void import_cohere(Context& c);
void import_jamba(Context& c);
void import_bamba(Context& c);
void import_gpt_neox(Context& c);
void import_qwen3_next(Context& c);  // qwen3_next, qwen3_5, qwen3_5_moe

/** Falcon 40B/180B layout; hf_config.cpp needs it for the KV heads. */
bool falcon_new_architecture(const Context& c);

}  // namespace vram::import
