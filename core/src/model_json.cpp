#include "model_json.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "vram/message.hpp"

namespace vram {

using nlohmann::json;

json model_summary(const ModelSpec& m, const ParamTotals& params) {
  json layout = json::object();
  for (LayerAttention kind : {LayerAttention::kGlobal, LayerAttention::kSliding,
                              LayerAttention::kMla, LayerAttention::kState}) {
    const auto n = std::count_if(m.layers.begin(), m.layers.end(),
                                 [kind](const LayerSpec& l) { return l.attention == kind; });
    if (n > 0) layout[to_string(kind)] = n;
  }
  const auto moe_layers = std::count_if(m.layers.begin(), m.layers.end(),
                                        [](const LayerSpec& l) { return l.mlp == LayerMlp::kMoe; });
  const ParamCount& c = params.computed;
  // A preset's notes come as their text (data/models.json); the importer's
  // and the core's own as ids.
  json notes = json::array();
  for (const Message& note : m.notes) notes.push_back(note);
  for (const Message& note : m.import_notes) notes.push_back(note);
  if (m.official_params_active > 0 && !params.active_declared) {
    // Vendors differ on "active": DeepSeek and OpenAI leave out the input
    // embedding (a lookup, not a matrix product). Say so when that is the gap.
    const double without = c.active() - (m.tied_embeddings ? 0.0 : c.embedding);
    const double official = m.official_params_active;
    const double gap_with = std::fabs(c.active() - official) / official;
    const double gap_without = std::fabs(without - official) / official;
    if (gap_with > 0.03 && gap_without < gap_with) {
      notes.push_back(
          Message{"note.active_embedding",
                  obj({{"official", official}, {"without", without}, {"with", c.active()}})});
    }
  }
  json out = obj({
      {"id", m.id},
      {"name", m.name},
      {"model_type", m.model_type},
      {"source", m.source},
      {"repo", m.repo},
      {"layers", m.num_layers()},
      {"hidden_size", m.hidden_size},
      {"intermediate_size", m.intermediate_size},
      {"num_attention_heads", m.num_heads},
      {"num_key_value_heads", m.num_kv_heads},
      {"head_dim", m.head_dim},
      {"v_head_dim", m.v_head_dim},
      {"vocab_size", m.vocab_size},
      {"tied_embeddings", m.tied_embeddings},
      {"sliding_window", m.sliding_window},
      {"attn_softcapping", m.attn_softcapping},
      {"final_softcapping", m.final_softcapping},
      {"max_context", m.max_context},
      {"attention_layout", layout},
      {"native_format", m.native_format},
      {"params_total", params.total},
      {"params_active", params.active},
      {"params_declared", params.total_declared},
      {"params_computed", obj({{"total", c.total()},
                               {"active", c.active()},
                               {"embedding", c.embedding},
                               {"lm_head", c.lm_head},
                               {"attention", c.attention},
                               {"mlp_dense", c.mlp_dense},
                               {"experts_routed", c.experts_routed},
                               {"experts_shared", c.experts_shared},
                               {"router", c.router},
                               {"norms", c.norms},
                               {"ssm", c.ssm},
                               {"extras", c.extras},
                               {"not_loaded", c.extras_excluded}})},
      {"official_params_total",
       m.official_params_total > 0 ? json(m.official_params_total) : json(nullptr)},
      {"official_params_active",
       m.official_params_active > 0 ? json(m.official_params_active) : json(nullptr)},
      {"params_source", m.params_source},
      {"placeholders", m.placeholders},
      {"notes", notes},
  });
  if (!m.native_expert_format.empty()) out["native_expert_format"] = m.native_expert_format;
  if (m.is_moe()) {
    out["moe"] = obj({{"experts", m.moe.num_experts},
                      {"experts_per_token", m.moe.experts_per_token},
                      {"shared_experts", m.moe.shared_experts},
                      {"expert_intermediate_size", m.moe.expert_intermediate},
                      {"moe_layers", moe_layers}});
  }
  if (m.mla.kv_lora_rank > 0) {
    out["mla"] = obj({{"kv_lora_rank", m.mla.kv_lora_rank},
                      {"q_lora_rank", m.mla.q_lora_rank},
                      {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                      {"qk_nope_head_dim", m.mla.qk_nope_head_dim}});
  }
  for (const ExtraParams& extra : m.extras) {
    out["extras"].push_back(obj({{"id", extra.id},
                                 {"label", extra.label},
                                 {"params", extra.count},
                                 {"resident", extra.resident}}));
  }
  return out;
}

}  // namespace vram
