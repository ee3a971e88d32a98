// The importer table: one entry per Hugging Face model_type. Adding a family
// is adding its file and a line here.
//
// tie_word_embeddings defaults follow each family's PretrainedConfig
// subclass in huggingface/transformers (GemmaConfig and FalconConfig
// default to True, LlamaConfig to False).

#include "common.hpp"

namespace vram::import {
namespace {

constexpr Family kFamilies[] = {
    {"llama", import_llama, false},
    {"mistral", import_llama, false},
    {"mixtral", import_llama, false},
    {"qwen2", import_llama, false},
    {"qwen2_moe", import_llama, false},
    {"qwen3", import_llama, false},
    {"qwen3_moe", import_llama, false},
    {"custom", import_llama, false},
    {"gemma", import_gemma, true},
    {"gemma2", import_gemma2, true},
    {"gemma3", import_gemma3, true},
    {"gemma3_text", import_gemma3, true},
    {"deepseek_v2", import_deepseek, false},
    {"deepseek_v3", import_deepseek, false},
    {"kimi_k2", import_deepseek, false},
    {"glm4_moe", import_glm4_moe, false},
    {"gpt_oss", import_gpt_oss, false},
    {"phi3", import_phi3, false},
    {"falcon", import_falcon, true},
    {"RefinedWeb", import_falcon, true},
    {"RefinedWebModel", import_falcon, true},
    {"cohere", import_cohere, true},
    {"cohere2", import_cohere, true},
    {"jamba", import_jamba, false},
    {"bamba", import_bamba, false},
    {"gpt_neox", import_gpt_neox, false},
};

}  // namespace

const Family* find_family(std::string_view model_type) {
  for (const Family& family : kFamilies) {
    if (model_type == family.model_type) return &family;
  }
  return nullptr;
}

}  // namespace vram::import
