// Speculative decoding's draft model on the cards: its weights and its own
// KV cache, beside the model's (vLLM: the drafter's attention layers join
// the KV cache groups and share their block count, vllm/v1/worker/
// gpu_model_runner.py get_kv_cache_spec; llama.cpp's llama-server: a draft
// context per slot of the slot's n_ctx, tools/server/server.cpp
// load_model, params_dft.n_ctx = n_ctx / n_parallel).

#include <algorithm>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {

double push_draft(InferencePlan& plan, const InferenceSetup& setup, int shards, int tp,
                  const KvFormat& kv, std::int64_t context, std::int64_t users, bool explain) {
  if (setup.draft == nullptr || setup.draft_weights == nullptr) return 0;
  const ModelSpec& draft = *setup.draft;
  const double bytes = setup.draft_weights->bytes / std::max(1, shards);
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
  const ModelSpec local = shard(draft, tp);
  const KvCacheSize cache = kv_cache(local, kv, context, users);
  Term cache_term = kv_term(local, kv, cache, users, setup, explain);
  cache_term.id = "draft_kv";
  cache_term.label = {"term.draft_kv"};
  plan.terms.push_back(std::move(cache_term));
  return cache.bytes_per_token;
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
