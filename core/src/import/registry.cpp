// The importer table: one entry per Hugging Face model_type. Adding a family
// is adding its file and a line here, with llama.cpp's name for its GGUF
// files (general.architecture) where llama.cpp runs it.
//
// tie_word_embeddings defaults follow each family's PretrainedConfig
// subclass in huggingface/transformers (GemmaConfig and FalconConfig
// default to True, LlamaConfig to False).

#include <algorithm>
#include <functional>
#include <string>

#include "common.hpp"
#include "vram/hf_config.hpp"

namespace vram::import {
namespace {

constexpr Family kFamilies[] = {
    {"llama", import_llama, false, "llama", GgufVariant::kDense},
    {"mistral", import_llama, false, "mistral"},
    {"mixtral", import_llama, false, "llama", GgufVariant::kMoe},
    {"qwen2", import_llama, false, "qwen2"},
    {"qwen2_moe", import_llama, false, "qwen2moe"},
    {"qwen3", import_llama, false, "qwen3"},
    {"qwen3_moe", import_llama, false, "qwen3moe"},
    {"custom", import_llama, false},
    {"gemma", import_gemma, true, "gemma"},
    {"gemma2", import_gemma2, true, "gemma2"},
    {"gemma3", import_gemma3, true},
    {"gemma3_text", import_gemma3, true, "gemma3"},
    {"deepseek_v2", import_deepseek, false, "deepseek2", GgufVariant::kSoftmax,
     "num_nextn_predict_layers"},
    {"deepseek_v3", import_deepseek, false, "deepseek2", GgufVariant::kSigmoid,
     "num_nextn_predict_layers"},
    {"kimi_k2", import_deepseek, false, nullptr, GgufVariant::kAny, "num_nextn_predict_layers"},
    {"glm4_moe", import_glm4_moe, false, "glm4moe", GgufVariant::kAny, "num_nextn_predict_layers"},
    {"gpt_oss", import_gpt_oss, false, "gpt-oss"},
    {"phi3", import_phi3, false, "phi3"},
    {"falcon", import_falcon, true, "falcon"},
    {"RefinedWeb", import_falcon, true},
    {"RefinedWebModel", import_falcon, true},
    {"cohere", import_cohere, true, "command-r"},
    {"cohere2", import_cohere, true, "cohere2"},
    {"jamba", import_jamba, false},
    {"bamba", import_bamba, false},
    {"gpt_neox", import_gpt_neox, false, "gptneox"},
    {"qwen3_next", import_qwen3_next, false, "qwen3next", GgufVariant::kAny,
     "mtp_num_hidden_layers"},
    {"qwen3_5", import_qwen3_next, false, nullptr, GgufVariant::kAny, "mtp_num_hidden_layers",
     true},
    {"qwen3_5_text", import_qwen3_next, false, "qwen35", GgufVariant::kAny,
     "mtp_num_hidden_layers"},
    {"qwen3_5_moe", import_qwen3_next, false, nullptr, GgufVariant::kAny, "mtp_num_hidden_layers",
     true},
    {"qwen3_5_moe_text", import_qwen3_next, false, "qwen35moe", GgufVariant::kAny,
     "mtp_num_hidden_layers"},
};

}  // namespace

const Family* find_family(std::string_view model_type) {
  for (const Family& family : kFamilies) {
    if (model_type == family.model_type) return &family;
  }
  return nullptr;
}

}  // namespace vram::import

namespace vram {

std::string gguf_model_type(const std::string& arch, std::int64_t expert_count,
                            const std::function<std::int64_t()>& gating_func) {
  using import::GgufVariant;
  for (const import::Family& family : import::kFamilies) {
    if (family.gguf_arch == nullptr || arch != family.gguf_arch) continue;
    switch (family.gguf_variant) {
      case GgufVariant::kAny:
        return family.model_type;
      case GgufVariant::kDense:
      case GgufVariant::kMoe:
        if ((expert_count > 0) == (family.gguf_variant == GgufVariant::kMoe)) {
          return family.model_type;
        }
        break;
      case GgufVariant::kSoftmax:
      case GgufVariant::kSigmoid:
        if ((gating_func() == 2) == (family.gguf_variant == GgufVariant::kSigmoid)) {
          return family.model_type;
        }
        break;
    }
  }
  return arch;  // a name llama.cpp shares with transformers, or one no family reads
}

const char* mtp_config_key(std::string_view model_type) {
  const import::Family* family = import::find_family(model_type);
  return family == nullptr ? nullptr : family->mtp_key;
}

nlohmann::json config_needs() {
  nlohmann::json mtp_keys = nlohmann::json::array();
  nlohmann::json any_size = nlohmann::json::array();
  for (const import::Family& family : import::kFamilies) {
    if (family.mtp_key != nullptr &&
        std::find(mtp_keys.begin(), mtp_keys.end(), family.mtp_key) == mtp_keys.end()) {
      mtp_keys.push_back(family.mtp_key);
    }
    if (family.vision_any_size) any_size.push_back(family.model_type);
  }
  return {
      {"mtp", {{"count_keys", std::move(mtp_keys)}}},
      {"vision", {{"object_key", "vision_config"}}},
      {"dynamic_vision", {{"object_key", "vision_config"}, {"model_types", std::move(any_size)}}}};
}

}  // namespace vram
