// The adapter slots vLLM and SGLang allocate to serve LoRA adapters: for
// every adapted linear module of every layer, an A and a B matrix per slot
// at the largest rank, zeros until an adapter is loaded into the slot.
//
// vLLM (vllm/lora/layers/base_linear.py, create_lora_weights): lora_a
// (max_loras, 1, max_lora_rank, input) and lora_b (max_loras, 1, output,
// max_lora_rank) per slice of a packed module (q/k/v: 3 slices, gate/up: 2),
// in lora_dtype ("auto": the model's 16-bit type). Column-parallel modules
// keep A whole and split B's output by TP; row-parallel ones split A's
// input and keep B whole (row_parallel_linear.py). MoE layers
// (fused_moe.py, FusedMoEWithLoRA) hold the same per local expert: w13 A
// (slices x rank x hidden) and B (slices x expert width / TP x rank), w2 A
// (rank x expert width / TP) and B (hidden x rank). The slots are made when
// the model loads, so the KV cache gets that much less.
// SGLang (python/sglang/srt/lora/mem_pool.py, LoRAMemoryPool.init_buffers):
// A (max_loras_per_batch, slices x max_lora_rank, input) and B (slices,
// max_loras_per_batch, output, max_lora_rank) per layer, split by TP the
// same way, allocated before the KV pool is sized.

#include <algorithm>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/** A module split by TP as vLLM and SGLang split their base layers. */
enum class Split { kColumn, kRow, kNone };

/** Values of A and B for one slot at rank 1, on one card: `slices` outputs share one input. */
double module_values(double in, double out, int slices, Split split, double tp) {
  switch (split) {
    case Split::kColumn:
      return slices * in + out / tp;
    case Split::kRow:
      return in / tp + out;
    case Split::kNone:
      return slices * in + out;
  }
  return 0;
}

double attention_values(const ModelSpec& m, LayerAttention kind, double tp) {
  const double h = d(m.hidden_size);
  const double heads = d(m.num_heads);
  if (kind == LayerAttention::kMla) {
    const MlaSpec& a = m.mla;
    const double rope = d(a.qk_rope_head_dim);
    const double q_out = heads * d(a.qk_nope_head_dim + a.qk_rope_head_dim);
    double q = module_values(h, q_out, 1, Split::kColumn, tp);
    if (a.q_lora_rank > 0) {
      const double r = d(a.q_lora_rank);
      q = module_values(h, r, 1, Split::kNone, tp) + module_values(r, q_out, 1, Split::kColumn, tp);
    }
    const double kv_r = d(a.kv_lora_rank);
    return q + module_values(h, kv_r + rope, 1, Split::kNone, tp) +
           module_values(kv_r, heads * d(a.qk_nope_head_dim + a.v_head_dim), 1, Split::kColumn,
                         tp) +
           module_values(heads * d(a.v_head_dim), h, 1, Split::kRow, tp);
  }
  if (kind == LayerAttention::kState) return 0;  // no q/k/v/o: not adapted here
  const double hd = d(m.head_dim);
  const double vd = d(m.v_head_dim > 0 ? m.v_head_dim : m.head_dim);
  // K/V heads fewer than the cards are copied, not split (as shard() counts them).
  const double kv_local = d(std::max<std::int64_t>(
      1, (m.num_kv_heads + static_cast<std::int64_t>(tp) - 1) / static_cast<std::int64_t>(tp)));
  const double qkv = 3 * h + (heads / tp) * hd + kv_local * (hd + vd);
  return qkv + module_values(heads * vd, h, 1, Split::kRow, tp);
}

double mlp_values(double h, double width, bool gated, double tp) {
  if (width <= 0) return 0;
  const int up = gated ? 2 : 1;
  return module_values(h, up * width, up, Split::kColumn, tp) +
         module_values(width, h, 1, Split::kRow, tp);
}

}  // namespace

double lora_values_per_rank(const ModelSpec& m, std::int64_t layers, const InferencePlan& plan) {
  const double tp = plan.tensor_parallel;
  const int group = plan.tensor_parallel * plan.data_parallel;
  const double h = d(m.hidden_size);
  const int up = m.gated_mlp ? 2 : 1;
  double total = 0;
  const std::int64_t n = std::min(layers, m.num_layers());
  for (std::int64_t i = 0; i < n; ++i) {
    const LayerSpec& layer = m.layers[static_cast<std::size_t>(i)];
    total += attention_values(m, layer.attention, tp);
    if (layer.mlp == LayerMlp::kDense) {
      total += mlp_values(h, d(m.intermediate_size), m.gated_mlp, tp);
      continue;
    }
    // Experts split like their weights: by the MoE group, or whole under expert parallelism.
    const double experts =
        plan.expert_parallel ? d(experts_per_gpu(m, group)) : d(m.moe.num_experts);
    const double width = d(m.moe.expert_intermediate) / (plan.expert_parallel ? 1.0 : group);
    total += experts * (up * h + up * width + width + h);
    total += mlp_values(h, d(m.moe.shared_experts * m.moe.shared_intermediate), m.gated_mlp, tp);
  }
  return total;
}

void push_lora_slots(InferencePlan& plan, const ModelSpec& m, std::int64_t layers,
                     const json& options, bool explain) {
  if (!options.contains("max_loras")) return;
  const double slots = options.at("max_loras").get<double>();
  if (!(slots > 0)) return;
  const double rank = options.at("max_lora_rank").get<double>();
  const double values = lora_values_per_rank(m, layers, plan);
  const double bytes = slots * rank * values * 2.0;  // lora_dtype "auto": 16-bit
  Term term{"lora_slots", {"term.lora_slots"}, bytes, {}, {}};
  if (explain) {
    term.formula = {"formula.lora_slots", obj({{"slots", slots},
                                               {"rank", rank},
                                               {"values", values},
                                               {"layers", std::min(layers, m.num_layers())},
                                               {"bytes", bytes}})};
    term.inputs = obj({{"max_loras", slots},
                       {"max_lora_rank", rank},
                       {"values_per_rank", values},
                       {"bytes_per_value", 2}});
  }
  plan.terms.push_back(std::move(term));
}

}  // namespace vram::engines
