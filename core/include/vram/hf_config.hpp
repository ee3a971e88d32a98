#pragma once

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

}  // namespace vram
