// Speculative decoding's draft model on the cards: its weights and its own
// KV cache, beside the model's (vLLM: the drafter's attention layers join
// the KV cache groups and share their block count, vllm/v1/worker/
// gpu_model_runner.py get_kv_cache_spec; llama.cpp's llama-server: a draft
// context per slot of the slot's n_ctx, tools/server/server.cpp
// load_model, params_dft.n_ctx = n_ctx / n_parallel). Or the model's own
// multi-token-prediction layers (speculative "mtp"): vLLM's DeepSeekMTP and
// Glm4MoeMTP (vllm/model_executor/models/deepseek_mtp.py, glm4_moe_mtp.py)
// build each module's decoder layer, eh_proj, norms and a SharedHead whose
// ParallelLMHead they load, while vllm/v1/spec_decode/eagle.py load_model
// gives them the model's embed_tokens; their attention layers take KV blocks
// beside the model's as a draft's do. Qwen3-Next's and Qwen3.5's MTP layers
// (qwen3_next_mtp.py, qwen3_5_mtp.py) are full-attention layers, one cache
// layer each, and read the model's embedding and head (eagle/utils.py
// load_eagle_model swaps their top-level lm_head for the model's), so no
// head of their own is counted. Or an EAGLE-3 head (speculative
// "eagle3"): vLLM's Eagle3LlamaForCausalLM (vllm/model_executor/models/
// llama_eagle3.py) and SGLang's LlamaForCausalLMEagle3 (python/sglang/srt/
// models/llama_eagle3.py) build one decoder layer, an fc, norms and an
// output head over draft_vocab_size, and take the model's embedding
// (eagle.py load_model; SGLang's eagle_worker set_embed); its one attention
// layer takes KV blocks beside the model's, in the model's KV format.

#include <algorithm>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/**
 * The drafter's weights on one of `shards` cards: a draft model's or the MTP modules' share;
 * an EAGLE-3 head's split part, and what every card holds whole.
 */
double draft_weights_bytes(const InferenceSetup& setup, int shards) {
  const double whole = setup.eagle != nullptr ? setup.eagle->fc + setup.eagle->rest : 0.0;
  return setup.draft_weights->bytes / std::max(1, shards) + whole;
}

/**
 * The drafter's KV cache as term `id` ("draft_kv", "mtp_kv"): `model`'s
 * layers split by `tp`, in `kv`, at `context` tokens for `users`; its bytes
 * per token.
 */
double push_cache(InferencePlan& plan, const ModelSpec& model, const char* id, int tp,
                  const KvFormat& kv, std::int64_t context, std::int64_t users,
                  const InferenceSetup& setup, bool explain) {
  const ModelSpec local = shard(model, tp);
  const KvCacheSize cache = kv_cache(local, kv, context, users);
  Term cache_term = kv_term(local, kv, cache, users, setup, explain);
  cache_term.id = id;
  cache_term.label = {std::string("term.") + id};
  plan.terms.push_back(std::move(cache_term));
  return cache.bytes_per_token;
}

double push_mtp(InferencePlan& plan, const InferenceSetup& setup, int shards, int tp,
                const KvFormat& kv, std::int64_t context, std::int64_t users, bool explain) {
  const ModelSpec& layers = *setup.draft;
  const int gpus = std::max(1, shards);
  const double bytes = draft_weights_bytes(setup, shards);
  Term weights{"mtp_weights", {"term.mtp_weights"}, bytes, {}, {}};
  if (explain) {
    weights.formula = {"formula.mtp_weights",
                       obj({{"modules", layers.num_layers()},
                            {"layers", setup.draft_weights->bytes},
                            {"gpus", gpus},
                            {"over", Message{"formula.over_gpus", obj({{"gpus", gpus}})}},
                            {"bytes", bytes}})};
    weights.inputs = obj({{"speculative", "mtp"},
                          {"mtp_layers", layers.num_layers()},
                          {"draft_tokens", setup.draft_tokens},
                          {"gpus", gpus}});
  }
  plan.terms.push_back(std::move(weights));
  // One cache layer per module, in the model's KV format, whatever the tokens drafted.
  return push_cache(plan, layers, "mtp_kv", tp, kv, context, users, setup, explain);
}

/** An EAGLE-3 head's terms: "eagle_weights" and "eagle_kv" (one layer's cache a token). */
double push_eagle(InferencePlan& plan, const InferenceSetup& setup, int shards, int tp,
                  const KvFormat& kv, std::int64_t context, std::int64_t users, bool explain) {
  const EagleHeadBytes& e = *setup.eagle;
  const int gpus = std::max(1, shards);
  const double bytes = draft_weights_bytes(setup, shards);
  Term weights{"eagle_weights", {"term.eagle_weights"}, bytes, {}, {}};
  if (explain) {
    weights.formula = {"formula.eagle_weights",
                       obj({{"layer", e.layer},
                            {"head", e.head},
                            {"vocab", e.draft_vocab},
                            {"over", Message{"formula.over_gpus", obj({{"gpus", gpus}})}},
                            {"fc", e.fc},
                            {"rest", e.rest},
                            {"bytes", bytes}})};
    weights.inputs = obj({{"speculative", "eagle3"},
                          {"eagle_head", e.repo},
                          {"draft_vocab_size", e.draft_vocab},
                          {"draft_tokens", setup.draft_tokens},
                          {"gpus", gpus}});
  }
  plan.terms.push_back(std::move(weights));
  return push_cache(plan, *setup.draft, "eagle_kv", tp, kv, context, users, setup, explain);
}

}  // namespace

bool draft_weights_term(const std::string& id) {
  return id == "draft_weights" || id == "mtp_weights" || id == "eagle_weights";
}

bool draft_kv_term(const std::string& id) {
  return id == "draft_kv" || id == "mtp_kv" || id == "eagle_kv";
}

double draft_card_bytes(const InferenceSetup& setup, int shards, int tp, const KvFormat& kv,
                        std::int64_t context, std::int64_t users) {
  if (setup.draft == nullptr || setup.draft_weights == nullptr) return 0;
  return draft_weights_bytes(setup, shards) +
         kv_cache(shard(*setup.draft, tp), kv, context, users).bytes;
}

double push_draft(InferencePlan& plan, const InferenceSetup& setup, int shards, int tp,
                  const KvFormat& kv, std::int64_t context, std::int64_t users, bool explain) {
  if (setup.draft == nullptr || setup.draft_weights == nullptr) return 0;
  const ModelSpec& draft = *setup.draft;
  if (setup.mtp) return push_mtp(plan, setup, shards, tp, kv, context, users, explain);
  if (setup.eagle != nullptr)
    return push_eagle(plan, setup, shards, tp, kv, context, users, explain);
  const double bytes = draft_weights_bytes(setup, shards);
  Term weights{"draft_weights", {"term.draft_weights"}, bytes, {}, {}};
  if (explain) {
    weights.formula = {"formula.draft_weights", obj({{"model", draft.name},
                                                     {"all", setup.draft_weights->bytes},
                                                     {"gpus", std::max(1, shards)},
                                                     {"bytes", bytes}})};
    weights.inputs = obj({{"draft_model", draft.id},
                          {"storage", storage_json(*setup.draft_weights)},
                          {"gpus", std::max(1, shards)}});
  }
  plan.terms.push_back(std::move(weights));
  return push_cache(plan, draft, "draft_kv", tp, kv, context, users, setup, explain);
}

void sglang_draft_pool(InferencePlan& plan, const InferenceSetup& setup, double per_token,
                       std::int64_t pool_tokens, double room, bool explain) {
  if (setup.draft == nullptr || pool_tokens <= 0) return;
  // python/sglang/srt/model_executor/model_runner.py init_memory_pool: the target's pool
  // becomes draft_runner_cache_size = max_total_num_tokens + max_num_reqs x (num_steps x
  // eagle_topk + num_draft_tokens) + 100, and the draft worker's pool takes that many tokens
  // of its own layers. The command sets max_num_reqs (--max-running-requests, the users a
  // rank serves) and topk 1, so num_draft_tokens is num_steps + 1.
  const std::int64_t dp = std::max<std::int64_t>(1, plan.data_parallel);
  const std::int64_t reqs = (setup.batch + dp - 1) / dp;
  const std::int64_t headroom = reqs * (2 * setup.draft_tokens + 1) + 100;
  double need = 0;
  for (Term& t : plan.terms) {
    if (draft_kv_term(t.id)) {
      t.bytes = d(pool_tokens + headroom) * per_token;
      if (explain) {
        t.formula = {"formula.sglang_draft_pool", obj({{"pool", pool_tokens},
                                                       {"headroom", headroom},
                                                       {"per_token", per_token},
                                                       {"bytes", t.bytes}})};
      }
    }
    if (draft_kv_term(t.id) || draft_weights_term(t.id)) {
      need += t.bytes;
    }
  }
  if (need <= room || !explain) return;
  plan.warnings.push_back(
      {"warning.sglang_draft_room",
       obj({{"draft", setup.draft->name}, {"need", need}, {"room", std::max(0.0, room)}})});
}

bool mtp_not_run(InferencePlan& plan, const InferenceSetup& setup, const char* engine,
                 bool explain) {
  if (!setup.mtp && setup.eagle == nullptr) return false;
  if (explain) {
    plan.warnings.push_back(
        {setup.mtp ? "warning.mtp_engine" : "warning.eagle_engine", obj({{"engine", engine}})});
  }
  return true;
}

void warn_draft_vocab(InferencePlan& plan, const InferenceSetup& setup, bool explain) {
  if (setup.draft == nullptr || !explain) return;
  // vLLM and llama.cpp check that the draft reads and writes the model's tokens.
  if (setup.draft->vocab_size != setup.model->vocab_size) {
    plan.warnings.push_back({"warning.draft_vocab", obj({{"draft", setup.draft->name},
                                                         {"draft_vocab", setup.draft->vocab_size},
                                                         {"vocab", setup.model->vocab_size}})});
  }
}

}  // namespace vram::engines
