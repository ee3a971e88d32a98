// What vLLM and SGLang share: a tensor-parallel shard of the model, the
// weights on one card of a layout, the card's budget and the fullest
// pipeline stage.

#include <algorithm>
#include <cstddef>
#include <utility>

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
  // State layers split their heads the same way, so each card keeps its share of the conv
  // window and the state: vLLM's MambaMixer2 and Qwen3NextGatedDeltaNet divide the heads
  // (and the groups, or the key heads, a group kept whole on each card where there are fewer
  // than cards: MambaMixer2's extra_groups_for_head_shards) and MambaMixer its inner width.
  if (model.ssm.d_inner > 0 && t > 1) {
    auto split = [t](std::int64_t n) {
      return n > 0 ? std::max<std::int64_t>(1, (n + t - 1) / t) : n;
    };
    local.ssm.d_inner = split(model.ssm.d_inner);
    local.ssm.n_heads = split(model.ssm.n_heads);
    local.ssm.n_groups = split(model.ssm.n_groups);
  }
  return local;
}

StateStorage paged_states(std::int64_t /*slots*/) {
  // vLLM's and SGLang's state caches keep the conv window's d_conv - 1 past columns:
  // conv_state_shape = (conv_kernel - 1, conv_dim / tp) in MambaStateShapeCalculator
  // (vllm/model_executor/layers/mamba/mamba_utils.py, and SGLang's copy in
  // python/sglang/srt/layers/attention/mamba/mamba_utils.py), one state a sequence.
  StateStorage state;
  state.conv_history_only = true;
  return state;
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
  const std::int64_t dp = plan.data_parallel;
  const std::int64_t users = (setup.batch + dp - 1) / dp;
  const int tp = plan.tensor_parallel;
  // vllm/distributed/utils.py get_pp_indices: layers / pp a stage, the remainder one more
  // on each stage before the last, so the first holds ceil(layers / pp) and the last
  // layers / pp. vllm/v1/worker/gpu_model_runner.py puts "the entire draft model on the
  // last PP rank" (the drafter, MTP layers included, is built only where
  // get_pp_group().is_last_rank); SGLang's draft worker likewise (PR #30775, pipeline
  // stages with EAGLE and MTP behind SGLANG_ENABLE_PP_SPEC=1).
  PagedStage stage{shard(m, tp), {}, 0, true};
  const auto first_layers = static_cast<std::size_t>((m.num_layers() + pp - 1) / pp);
  stage.local.layers.resize(first_layers);
  stage.cache = kv_cache(stage.local, *setup.kv, setup.context, users, plan.state);
  if (pp > 1 && setup.draft != nullptr) {
    const double draft = draft_card_bytes(setup, tp, tp, *setup.kv, setup.context, users);
    ModelSpec last = shard(m, tp);
    const auto last_layers = static_cast<std::size_t>(m.num_layers() / pp);
    last.layers.erase(
        last.layers.begin(),
        last.layers.begin() + static_cast<std::ptrdiff_t>(last.layers.size() - last_layers));
    const KvCacheSize last_cache = kv_cache(last, *setup.kv, setup.context, users, plan.state);
    // The weights are an even share on every stage; what differs is the cache and the drafter.
    if (last_cache.bytes + draft >= stage.cache.bytes) {
      stage.local = std::move(last);
      stage.cache = last_cache;
    } else {
      stage.drafter = false;
      if (explain) {
        plan.assumptions.push_back(
            {"assumption.draft_last_stage", obj({{"draft", setup.draft->name},
                                                 {"layers", last.num_layers()},
                                                 {"first_layers", first_layers},
                                                 {"bytes", draft}})});
      }
    }
  }
  const Term weights = paged_weights_term(plan, m, pp, explain);
  stage.weights_bytes = weights.bytes;
  plan.terms.push_back(weights);
  plan.terms.push_back(
      rank_kv_term(stage.local, *setup.kv, stage.cache, users, setup, dp, explain));
  return stage;
}

}  // namespace vram::engines
