#include "vram/offload.hpp"

#include <algorithm>

#include "vram/checkpoint.hpp"
#include "vram/decode.hpp"
#include "vram/kv_cache.hpp"
#include "widen.hpp"

namespace vram {

using nlohmann::json;

namespace {

/** Bytes per parameter of the first of `components` the weights have a part for, else the average.
 */
double rate(const WeightsSize& weights, double average,
            std::initializer_list<const char*> components) {
  for (const char* component : components) {
    for (const WeightPart& part : weights.parts) {
      if (part.component == component && part.params > 0) return part.bytes / part.params;
    }
  }
  return average;
}

double term_bytes(const InferencePlan& plan, const char* id) {
  for (const Term& term : plan.terms) {
    if (term.id == id) return term.bytes;
  }
  return 0;
}

}  // namespace

OffloadParts offload_parts(const InferenceSetup& setup, const InferencePlan& plan,
                           const json& options) {
  const ModelSpec& m = *setup.model;
  const ParamCount& c = plan.params.computed;
  const std::size_t n = m.layers.size();
  OffloadParts p;
  // The model's GGUF: without a vision tower, which is the mmproj file's.
  // Without the MTP blocks llama.cpp does not load (plan.mtp_bytes, engines/llamacpp.cpp).
  const double total = plan.weights.bytes - plan.vision_bytes - plan.mtp_bytes;
  const double average = plan.params.total > 0 ? total / plan.params.total : 0;
  // token_embd, as plan_llamacpp (engines/llamacpp.cpp) sized it.
  p.embedding_bytes = plan.host_bytes;

  // The output layer and the routed experts, in their stored bytes.
  const CheckpointWeights* checkpoint = setup.weights == nullptr ? setup.checkpoint : nullptr;
  auto component = [&](const char* name) {
    const auto it = checkpoint->by_component.find(name);
    return it == checkpoint->by_component.end() ? 0.0 : it->second.bytes;
  };
  double head = 0;
  double experts = 0;
  if (checkpoint != nullptr) {
    head = component("lm_head");
    const double all = c.experts_routed + c.experts_shared;
    experts = component("experts") * (all > 0 ? c.experts_routed / all : 1.0);
  } else if (!plan.params.total_declared) {
    head = c.lm_head * rate(plan.weights, average, {"rest", "non_expert"});
    experts = c.experts_routed * rate(plan.weights, average, {"experts", "linear"});
  }
  p.head_bytes = m.tied_embeddings ? p.embedding_bytes : head;
  p.tied_head = m.tied_embeddings;
  p.ngl_counts_output = options.value("ngl_counts_output", true);
  const double repeating =
      std::max(0.0, total - p.embedding_bytes - (m.tied_embeddings ? 0.0 : p.head_bytes));
  experts = std::min(experts, repeating);

  // Each layer's share: its routed experts, and the rest of the repeating
  // weights in proportion to the layer's own parameters.
  std::int64_t attention_layers = 0, state_layers = 0, dense_layers = 0, moe_layers = 0;
  for (const LayerSpec& layer : m.layers) {
    (layer.attention == LayerAttention::kState ? state_layers : attention_layers) += 1;
    (layer.mlp == LayerMlp::kMoe ? moe_layers : dense_layers) += 1;
  }
  auto per = [](double params, std::int64_t count) { return count > 0 ? params / d(count) : 0.0; };
  std::vector<double> own(n, 0.0);
  double own_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const LayerSpec& layer = m.layers[i];
    own[i] = per(c.norms, static_cast<std::int64_t>(n)) +
             (layer.attention == LayerAttention::kState ? per(c.ssm, state_layers)
                                                        : per(c.attention, attention_layers)) +
             (layer.mlp == LayerMlp::kMoe ? per(c.experts_shared + c.router, moe_layers)
                                          : per(c.mlp_dense, dense_layers));
    own_sum += own[i];
  }
  const double rest = repeating - experts;
  p.layer_bytes.assign(n, 0.0);
  p.experts_bytes.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const bool moe = m.layers[i].mlp == LayerMlp::kMoe && moe_layers > 0;
    p.experts_bytes[i] = moe ? experts / d(moe_layers) : 0.0;
    const double share = own_sum > 0 ? own[i] / own_sum : 1.0 / d(static_cast<std::int64_t>(n));
    p.layer_bytes[i] = rest * share + p.experts_bytes[i];
  }

  // Each layer's cache: n_ctx cells of what that layer keeps.
  const ModelSpec local = llamacpp_cache_model(m, options);
  const std::int64_t cells = setup.context * setup.batch;
  p.kv_bytes.assign(n, 0.0);
  ModelSpec one = local;  // copied once; only its one layer changes
  for (std::size_t i = 0; i < n; ++i) {
    one.layers.assign(1, local.layers[i]);
    p.kv_bytes[i] = kv_cache(one, *setup.kv, cells, 1, plan.state).bytes;
  }
  p.compute_bytes = term_bytes(plan, "compute_buffer");
  // A draft model stays on the GPU whatever -ngl leaves there (-ngld), and so does a second
  // server's companion model: fixed, as the context.
  p.context_bytes = term_bytes(plan, "cuda_context") + term_bytes(plan, "draft_weights") +
                    term_bytes(plan, "draft_kv") + term_bytes(plan, "draft_compute") +
                    term_bytes(plan, "companion") +
                    // The --mmproj tower and its buffer stay on the GPU too.
                    term_bytes(plan, "mmproj") + term_bytes(plan, "mmproj_compute");
  if (m.moe.num_experts > 0) {
    const DecodeCeiling ceiling = decode_ceiling(m, plan, 1.0, setup.batch);
    p.experts_read_share = std::min(1.0, ceiling.experts_touched / d(m.moe.num_experts));
  }
  return p;
}

namespace {

/** What -ngl `ngl` puts on the GPU: repeating layers, and whether the output layer. */
struct Slots {
  int repeating = 0;
  bool head = false;
};

Slots slots_of(const OffloadParts& p, int ngl) {
  const int n = static_cast<int>(p.layer_bytes.size());
  if (p.ngl_counts_output) {
    // n_layer + 1 slots, the output layer first to the GPU (i_gpu_start = n_layer + 1 - N).
    const int slots = std::clamp(ngl, 0, n + 1);
    return {std::max(0, slots - 1), slots > 0};
  }
  // Older builds: N repeating layers (i_gpu_start = n_layer - N), the output only at n_layer + 1.
  return {std::clamp(ngl, 0, n), ngl > n};
}

}  // namespace

double placement_card_bytes(const OffloadParts& p, int ngl, int n_cpu_moe, int cards) {
  const int n = static_cast<int>(p.layer_bytes.size());
  const Slots slots = slots_of(p, ngl);
  const int on_gpu = slots.repeating;
  const int split = std::max(1, cards);
  const int per_card = (on_gpu + split - 1) / split;
  const int first = n - on_gpu;
  double fullest = 0;
  // The layer split gives each card a run of the GPU layers; the last one also holds the output.
  for (int card = 0; card < split; ++card) {
    double held = card == split - 1 && slots.head ? p.head_bytes : 0.0;
    const int lo = first + card * per_card;
    for (int i = lo; i < std::min(n, lo + per_card); ++i) {
      const auto at = static_cast<std::size_t>(i);
      held += p.layer_bytes[at] - (i < n_cpu_moe ? p.experts_bytes[at] : 0.0) + p.kv_bytes[at];
    }
    fullest = std::max(fullest, held);
  }
  return fullest + p.compute_bytes + p.context_bytes;
}

double offload_card_bytes(const OffloadParts& p, int gpu_layers, int n_cpu_moe, int cards) {
  const int n = static_cast<int>(p.layer_bytes.size());
  OffloadParts counted = p;  // the output layer on the GPU, as today's -ngl counts it
  counted.ngl_counts_output = true;
  return placement_card_bytes(counted, std::clamp(gpu_layers, 0, n) + 1, n_cpu_moe, cards);
}

namespace {

bool has_experts(const OffloadParts& p) {
  return std::any_of(p.experts_bytes.begin(), p.experts_bytes.end(),
                     [](double b) { return b > 0; });
}

/** The plan for -ngl `ngl` (as typed: above n_layer + 1 means all) and --n-cpu-moe `n_cpu_moe`. */
OffloadPlan describe(const OffloadParts& p, int ngl, int n_cpu_moe, double capacity, int cards) {
  OffloadPlan o;
  o.layers = static_cast<int>(p.layer_bytes.size());
  const Slots slots = slots_of(p, ngl);
  o.gpu_layers = slots.repeating;
  o.ngl = ngl;
  o.n_cpu_moe = n_cpu_moe;
  o.capacity_bytes = capacity;
  o.per_gpu_bytes = placement_card_bytes(p, ngl, n_cpu_moe, cards);
  o.fits = o.per_gpu_bytes <= capacity;
  o.gpu_weights_bytes = slots.head ? p.head_bytes : 0.0;
  o.host_weights_bytes = p.embedding_bytes;
  double host_experts = 0;
  const int first = o.layers - o.gpu_layers;
  for (int i = 0; i < o.layers; ++i) {
    const auto at = static_cast<std::size_t>(i);
    const double experts = i < n_cpu_moe ? p.experts_bytes[at] : 0.0;
    if (i < first) {
      // The whole layer and its cache in host memory; a step reads the
      // experts it routes to, the rest of the layer and the whole cache.
      o.host_weights_bytes += p.layer_bytes[at];
      o.host_kv_bytes += p.kv_bytes[at];
      o.host_read_bytes += p.layer_bytes[at] - p.experts_bytes[at] * (1 - p.experts_read_share);
    } else {
      o.gpu_weights_bytes += p.layer_bytes[at] - experts;
      o.host_weights_bytes += experts;
      o.host_read_bytes += experts * p.experts_read_share;
      host_experts += experts;
      if (experts > 0) ++o.host_handoffs;
    }
  }
  if (!slots.head) {
    // The output layer in host memory too (a tied model's is token_embd).
    o.host_weights_bytes += p.tied_head ? 0.0 : p.head_bytes;
    o.host_read_bytes += p.head_bytes;
    if (first < o.layers) ++o.host_handoffs;
  }
  o.host_read_bytes += o.host_kv_bytes;
  o.kind = first > 0 || !slots.head ? OffloadPlan::Kind::kLayers
           : host_experts > 0       ? OffloadPlan::Kind::kExperts
                                    : OffloadPlan::Kind::kNone;
  // The host computes its layers or experts in a buffer of its own, taken as large as the GPU's.
  o.host_compute_bytes = o.kind != OffloadPlan::Kind::kNone ? p.compute_bytes : 0.0;
  o.host_bytes = o.host_weights_bytes + o.host_kv_bytes + o.host_compute_bytes;
  return o;
}

}  // namespace

OffloadPlan plan_offload(const OffloadParts& p, double capacity_bytes, int cards) {
  const int n = static_cast<int>(p.layer_bytes.size());
  OffloadPlan none;
  none.layers = n;
  none.ngl = n + 1;
  none.capacity_bytes = capacity_bytes;
  none.fits = false;
  if (offload_card_bytes(p, n, 0, cards) <= capacity_bytes) {  // it all fits
    none.fits = true;
    return none;
  }
  if (has_experts(p)) {
    // The fewest layers' experts on the host: every layer's attention stays on the GPU.
    // A dense layer among the first k has none to move (DeepSeek's first layers).
    for (int k = 1; k <= n; ++k) {
      if (p.experts_bytes[static_cast<std::size_t>(k - 1)] <= 0) continue;
      if (offload_card_bytes(p, n, k, cards) <= capacity_bytes) {
        return describe(p, n + 1, k, capacity_bytes, cards);
      }
    }
  }
  // The most whole layers on the GPU, at least one (or the output layer) on the host.
  for (int ngl = n; ngl >= 1; --ngl) {
    if (placement_card_bytes(p, ngl, 0, cards) <= capacity_bytes) {
      return describe(p, ngl, 0, capacity_bytes, cards);
    }
  }
  return none;
}

OffloadPlan place_offload(const OffloadParts& p, std::optional<int> ngl,
                          std::optional<int> n_cpu_moe, double capacity_bytes, int cards) {
  const int n = static_cast<int>(p.layer_bytes.size());
  auto fits = [&](int slots, int k) {
    return placement_card_bytes(p, slots, k, cards) <= capacity_bytes;
  };
  int slots = ngl ? *ngl : n + 1;
  int k = n_cpu_moe ? *n_cpu_moe : 0;
  if (!ngl && n_cpu_moe) {
    // -ngl left to the plan: the most slots that fit beside the user's --n-cpu-moe, else all.
    for (int s = n + 1; s >= 0; --s) {
      if (fits(s, k)) {
        slots = s;
        break;
      }
    }
  } else if (ngl && !n_cpu_moe && has_experts(p)) {
    // --n-cpu-moe left to the plan: the fewest layers' experts that fit beside the user's -ngl.
    for (int j = 0; j <= n; ++j) {
      if (fits(*ngl, j)) {
        k = j;
        break;
      }
    }
  }
  OffloadPlan o = describe(p, slots, k, capacity_bytes, cards);
  o.user = true;
  if (!o.fits)
    o.suggested = std::make_shared<const OffloadPlan>(plan_offload(p, capacity_bytes, cards));
  return o;
}

}  // namespace vram
