// GPT-NeoX / Pythia: fused qkv and dense with biases, a 4h GELU MLP with
// biases, LayerNorms with biases (Black et al. 2022).

#include "common.hpp"

namespace vram::import {

void import_gpt_neox(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.intermediate.value_or(4 * m.hidden_size);
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.norm_bias = true;
}

}  // namespace vram::import
