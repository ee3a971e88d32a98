// The model's widths as the fine-tuning formulas read them: which modules a
// LoRA targets, and the in and out widths of each attention projection.
#include <algorithm>

#include "sizing.hpp"

namespace vram::finetune {

namespace {

bool targets(const std::vector<std::string>& list, const char* module) {
  return std::find(list.begin(), list.end(), module) != list.end();
}

}  // namespace

Targeted targeted(const std::vector<std::string>& t) {
  return {targets(t, "q_proj"),    targets(t, "k_proj"),    targets(t, "v_proj"),
          targets(t, "o_proj"),    targets(t, "gate_proj"), targets(t, "up_proj"),
          targets(t, "down_proj"), targets(t, "experts")};
}

AttentionWidths attention_widths(const ModelSpec& m, LayerAttention kind) {
  const double h = d(m.hidden_size);
  if (kind == LayerAttention::kMla) {
    // LoRA on MLA: q -> q_b_proj (or q_proj), k -> kv_a_proj_with_mqa,
    // v -> kv_b_proj, o -> o_proj.
    const MlaSpec& a = m.mla;
    const double heads = d(m.num_heads);
    return {a.q_lora_rank > 0 ? d(a.q_lora_rank) : h,
            heads * d(a.qk_nope_head_dim + a.qk_rope_head_dim),
            h,
            d(a.kv_lora_rank + a.qk_rope_head_dim),
            d(a.kv_lora_rank),
            heads * d(a.qk_nope_head_dim + a.v_head_dim),
            heads * d(a.v_head_dim),
            h};
  }
  return {h,
          d(m.num_heads * m.head_dim),
          h,
          d(m.num_kv_heads * m.head_dim),
          h,
          d(m.num_kv_heads * m.v_head_dim),
          d(m.num_heads * m.v_head_dim),
          h};
}

}  // namespace vram::finetune
