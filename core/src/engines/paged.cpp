// What vLLM and SGLang share: a tensor-parallel shard of the model, the
// weights on one card of a layout, the card's budget and the first
// pipeline stage.

#include <algorithm>

#include "common.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/**
 * The weights on one card of a vLLM/SGLang plan: tensor parallelism splits
 * everything by TP; with attention data parallelism or expert parallelism
 * the routed experts are split over the MoE group (TP x DP), or placed whole
 * (the fullest card holds ceil(experts / EP) of them), while the rest is
 * split by TP only, a copy per DP rank. Pipeline stages divide the result.
 */
Term paged_weights_term(const InferencePlan& plan, const ModelSpec& m, int pp, bool explain) {
  const int tp = plan.tensor_parallel;
  const int group = tp * plan.data_parallel;
  if (!m.is_moe() || (plan.data_parallel == 1 && !plan.expert_parallel)) {
    return weights_term(plan.weights, plan.params, tp * pp, explain);
  }
  const double routed = routed_expert_bytes(plan.weights, plan.params);
  const double rest = plan.weights.bytes - routed;
  const std::int64_t num = plan.expert_parallel ? experts_per_gpu(m, group) : 1;
  const std::int64_t den = plan.expert_parallel ? m.moe.num_experts : group;
  const double bytes = (rest / tp + routed * d(num) / d(den)) / pp;
  Term term{"weights", {"term.weights"}, bytes, {}, {}};
  if (!explain) return term;
  term.formula = {"formula.weights_moe_split", obj({{"rest", rest},
                                                    {"tp", tp},
                                                    {"routed", routed},
                                                    {"num", num},
                                                    {"den", den},
                                                    {"pp", pp},
                                                    {"bytes", bytes}})};
  term.inputs = obj({{"params", plan.params.total},
                     {"storage", storage_json(plan.weights)},
                     {"gpus", group * pp},
                     {"routed_experts_gb", bytes_to_gb(routed)},
                     {"experts_per_gpu", plan.expert_parallel ? json(num) : json(nullptr)}});
  return term;
}

}  // namespace

ModelSpec shard(const ModelSpec& model, int tp) {
  ModelSpec local = model;
  const std::int64_t t = tp;
  local.num_kv_heads = std::max<std::int64_t>(1, (model.num_kv_heads + t - 1) / t);
  local.num_heads = std::max<std::int64_t>(1, model.num_heads / t);
  return local;
}

void budget_card(EngineBudget& budget, const Gpu* gpu, const GpuCatalog& gpus, double share) {
  if (gpu == nullptr) return;
  budget.present = true;
  budget.usable_bytes = gpus.usable_bytes(*gpu, &budget.usable_estimated);
  budget.reserved_bytes = budget.usable_bytes * share;
}

PagedStage paged_stage(const InferenceSetup& setup, int pp, bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  if (pp > m.num_layers()) {
    throw Error::make("invalid_value", "engine_options.pipeline_parallel_size",
                      "error.pipeline_over_layers", obj({{"pp", pp}, {"layers", m.num_layers()}}));
  }
  PagedStage stage{shard(m, plan.tensor_parallel), {}, 0};
  stage.local.layers.resize(static_cast<std::size_t>((m.num_layers() + pp - 1) / pp));
  const std::int64_t dp = plan.data_parallel;
  const std::int64_t users = (setup.batch + dp - 1) / dp;
  stage.cache = kv_cache(stage.local, *setup.kv, setup.context, users);
  const Term weights = paged_weights_term(plan, m, pp, explain);
  stage.weights_bytes = weights.bytes;
  plan.terms.push_back(weights);
  plan.terms.push_back(
      rank_kv_term(stage.local, *setup.kv, stage.cache, users, setup, dp, explain));
  return stage;
}

}  // namespace vram::engines
