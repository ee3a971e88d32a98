// The terms most engines push: weights, the KV cache, fixed amounts, and a
// card's share of the layers; what the safetensors engines load.

#include <string>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

Message weights_formula(const WeightsSize& weights, int shards) {
  return {
      shards > 1 ? "formula.weights_split" : "formula.weights",
      obj({{"parts", weight_parts(weights)}, {"gpus", shards}, {"bytes", weights.bytes / shards}})};
}

Message attention_word(LayerAttention kind) {
  return {std::string("attention.") + to_string(kind), json::object()};
}

/** Each group of layers' cache per sequence, then x batch. */
Message kv_formula(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                   std::int64_t batch) {
  json groups = json::array();
  for (const KvGroup& group : cache.groups) {
    switch (group.attention) {
      case LayerAttention::kGlobal:
      case LayerAttention::kSliding:
        groups.push_back(
            Message{"formula.kv_group", obj({{"layers", group.layers},
                                             {"attention", attention_word(group.attention)},
                                             {"kv_heads", model.num_kv_heads},
                                             {"k_dim", model.head_dim},
                                             {"v_dim", model.v_head_dim},
                                             {"bytes", kv.bytes_per_element()},
                                             {"tokens", group.tokens_held}})});
        break;
      case LayerAttention::kMla:
        groups.push_back(Message{"formula.kv_group_mla", obj({{"layers", group.layers},
                                                              {"latent", model.mla.kv_lora_rank},
                                                              {"rope", model.mla.qk_rope_head_dim},
                                                              {"bytes", kv.bytes_per_element()},
                                                              {"tokens", group.tokens_held}})});
        break;
      case LayerAttention::kState:
        // An engine whose token cells serve every sequence (llama.cpp) still holds a state per
        // sequence: the group counts its own copies.
        groups.push_back(
            group.copies == batch
                ? Message{"formula.kv_group_state",
                          obj({{"layers", group.layers}, {"state_bytes", group.state_bytes}})}
                : Message{"formula.kv_group_state_seqs", obj({{"layers", group.layers},
                                                              {"state_bytes", group.state_bytes},
                                                              {"sequences", group.copies}})});
        break;
    }
  }
  return {"formula.kv", obj({{"groups", groups}, {"batch", batch}, {"bytes", cache.bytes}})};
}

}  // namespace

json weight_parts(const WeightsSize& weights) {
  json parts = json::array();
  for (const WeightPart& part : weights.parts) {
    parts.push_back(Message{"formula.weights_part", obj({{"params", part.params},
                                                         {"bits", part.format->bits_per_weight},
                                                         {"format", part.format->name}})});
  }
  return parts;
}

Term weights_term(const WeightsSize& weights, const ParamTotals& params, int shards, bool explain) {
  if (!explain) return {"weights", {"term.weights"}, weights.bytes / shards, {}, {}};
  return {"weights",
          {"term.weights"},
          weights.bytes / shards,
          weights_formula(weights, shards),
          obj({{"params", params.total}, {"storage", storage_json(weights)}, {"gpus", shards}})};
}

Term kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
             std::int64_t batch, const InferenceSetup& setup, bool explain) {
  if (!explain) return {"kv_cache", {"term.kv_cache"}, cache.bytes, {}, {}};
  return {"kv_cache",
          {"term.kv_cache"},
          cache.bytes,
          kv_formula(model, kv, cache, batch),
          obj({{"context", setup.context},
               {"batch", setup.batch},
               {"kv_format", kv.id},
               {"bytes_per_element", kv.bytes_per_element()},
               {"kv_bytes_per_token", cache.bytes_per_token}})};
}

Term rank_kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                  std::int64_t users, const InferenceSetup& setup, std::int64_t dp, bool explain) {
  Term term = kv_term(model, kv, cache, users, setup, explain);
  if (explain && dp > 1) {
    term.inputs["data_parallel"] = dp;
    term.inputs["users_per_rank"] = users;
  }
  return term;
}

Term gib_term(const char* id, double gib, const char* why, bool explain) {
  const Message label{std::string("term.") + id};
  if (!explain) return {id, label, gib * kBytesPerGiB, {}, {}};
  return {id, label, gib * kBytesPerGiB,
          Message{"formula.gib", obj({{"gib", gib},
                                      {"bytes", gib * kBytesPerGiB},
                                      {"why", Message{std::string("why.") + why}}})},
          obj({{"gib", gib}})};
}

void push_held(InferencePlan& plan, const InferenceSetup& setup, int cards, bool explain) {
  if (!(setup.held_bytes > 0)) return;
  const double bytes = setup.held_bytes * cards;
  Term term{"held", {"term.held"}, bytes, {}, {}};
  if (explain) {
    term.formula = {"formula.held",
                    obj({{"per_gpu", setup.held_bytes}, {"cards", cards}, {"bytes", bytes}})};
    term.inputs = obj({{"gpu_used_gb", bytes_to_gb(setup.held_bytes)}});
  }
  plan.terms.push_back(std::move(term));
}

void layer_share(Term& term, std::int64_t cards, std::int64_t here, std::int64_t layers,
                 bool explain) {
  if (cards == 1) return;
  term.bytes = term.bytes * d(here) / d(layers);
  if (!explain) return;
  if (!term.formula.id.empty()) {
    term.formula = {"formula.layer_share", obj({{"inner", term.formula},
                                                {"layers_here", here},
                                                {"layers", layers},
                                                {"bytes", term.bytes}})};
  }
  term.inputs["layers_on_card"] = here;
}

bool loads_safetensors(const WeightFormat& format) { return !format.gguf; }

Message gguf_format_warning(const WeightFormat& format, const EngineProfile& engine) {
  return {"warning.gguf_format", obj({{"format", format.name}, {"engine", engine.label()}})};
}

}  // namespace vram::engines
