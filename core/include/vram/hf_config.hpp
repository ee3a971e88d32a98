#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"
#include "vram/model.hpp"

namespace vram {

/**
 * Reads a Hugging Face config.json as people download it: the families
 * llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2,
 * gemma3 (text_config nested under the multimodal config), deepseek_v2,
 * deepseek_v3, kimi_k2, glm4_moe, gpt_oss, phi3, falcon, cohere, cohere2 and
 * jamba, bamba, gpt_neox; model_type "custom" for a shape typed by hand. Any other model_type
 * is estimated from the standard fields, with a warning.
 *
 * Also detects storage that differs from torch_dtype (FP8 checkpoints,
 * MXFP4 experts, AWQ/GPTQ/bitsandbytes) from quantization_config.
 *
 * A missing or mistyped required field throws vram::Error naming it as
 * "<prefix>.<field>", e.g. "config.num_hidden_layers".
 */
ImportedModel import_hf_config(const nlohmann::json& config, std::string_view prefix = "config");

/**
 * The Hugging Face model_type of a GGUF file whose general.architecture is
 * `arch`, from the importer table (core/src/import/registry.cpp): where
 * llama.cpp names several families alike, `expert_count` ({arch}.expert_count,
 * 0 when absent) tells Llama from Mixtral and `gating_func` (read only then:
 * {arch}.expert_gating_func, 1 when absent) DeepSeek V2 from V3. A name no
 * family claims is returned as it is.
 */
std::string gguf_model_type(const std::string& arch, std::int64_t expert_count,
                            const std::function<std::int64_t()>& gating_func);

/**
 * The config key in which `model_type`'s family counts its multi-token-
 * prediction layers (num_nextn_predict_layers, mtp_num_hidden_layers), or
 * nullptr where it has none.
 */
const char* mtp_config_key(std::string_view model_type);

/**
 * What a pasted config.json must hold for a request field the schema marks
 * with `needs` (the schema's "config_needs"), from the importer table:
 * "mtp" a count of MTP layers of 1 or more under one of `count_keys` (the
 * families' mtp keys), "vision" an `object_key` object, "dynamic_vision"
 * that object under one of `model_types` (towers that take any resolution).
 * Read at the top level or under text_config.
 */
nlohmann::json config_needs();

}  // namespace vram
