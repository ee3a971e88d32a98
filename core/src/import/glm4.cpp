// GLM-4.5 (glm4_moe): standard grouped-query attention with biased q/k/v,
// optional qk-norm, and DeepSeek-style routed experts (deepseek.cpp).

#include "common.hpp"

namespace vram::import {

void import_glm4_moe(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  m.qkv_bias = c.attention_bias;  // GLM-4.5: q/k/v with bias, o without
  m.qk_norm = c.opt_bool("use_qk_norm").value_or(false);
  deepseek_moe(c);
}

}  // namespace vram::import
