#include "vram/serving.hpp"

#include <algorithm>
#include <cmath>

#include "vram/error.hpp"
#include "vram/inverse.hpp"
#include "vram/sort.hpp"

namespace vram {

using nlohmann::json;

namespace {

bool has_mla(const ModelSpec& model) {
  return std::any_of(model.layers.begin(), model.layers.end(),
                     [](const LayerSpec& l) { return l.attention == LayerAttention::kMla; });
}

bool paged(const EngineProfile& engine) { return engine.rules->paged; }

bool has_knob(const EngineProfile& engine, const char* name) {
  return engine.defaults.contains(name);
}

int knob_int(const json& options, const char* name) {
  return options.contains(name) ? static_cast<int>(options.at(name).get<double>()) : 1;
}

std::string split_name(int tp, int pp, int dp = 1) {
  if (dp > 1) return pp > 1 ? "data_pipeline" : "data";
  if (tp > 1 && pp > 1) return "tensor_pipeline";
  if (tp > 1) return "tensor";
  if (pp > 1) return "pipeline";
  return "single";
}

}  // namespace

int data_parallel_of(const json& options) { return knob_int(options, "data_parallel_size"); }

bool expert_parallel_of(const json& options) {
  return options.contains("expert_parallel") && options.at("expert_parallel").get<bool>();
}

void check_moe_layout(const ModelSpec& model, const EngineProfile& engine, ServingLayout& layout) {
  layout.moe_layout.clear();
  const bool dp = layout.data_parallel > 1;
  if (!paged(engine) || (!model.is_moe() && !dp && !layout.expert_parallel)) return;
  if (!model.is_moe()) {
    throw Error::make("invalid_value",
                      dp ? "engine_options.data_parallel_size" : "engine_options.expert_parallel",
                      "error.moe_layout_dense", obj({{"engine", engine.name}}));
  }
  layout.moe_layout = layout.expert_parallel ? (dp ? "expert_dp_attention" : "expert")
                      : dp                   ? "dp_attention"
                                             : "tensor";
  if (!layout.expert_parallel) return;
  const int ep = layout.expert_parallel_size();
  const std::int64_t experts = model.moe.num_experts;
  if (ep > experts) {
    throw Error::make("invalid_value", "engine_options.expert_parallel",
                      "error.expert_parallel_too_wide", obj({{"ep", ep}, {"experts", experts}}));
  }
  if (engine.rules->experts_divide_evenly && experts % ep != 0) {
    throw Error::make("invalid_value", "engine_options.expert_parallel",
                      "error.expert_parallel_uneven",
                      obj({{"engine", engine.name}, {"ep", ep}, {"experts", experts}}));
  }
}

bool tensor_parallel_legal(const ModelSpec& model, int tp) {
  if (tp < 1) return false;
  const std::int64_t t = tp;
  if (model.num_heads > 0 && model.num_heads % t != 0) return false;
  if (has_mla(model) || model.num_kv_heads <= 0) return true;
  return model.num_kv_heads % t == 0 || t % model.num_kv_heads == 0;
}

ServingLayout choose_layout(const ModelSpec& model, const EngineProfile& engine, int gpus,
                            int node_size, int data_parallel, bool expert_parallel) {
  ServingLayout layout;
  layout.gpus = std::max(1, gpus);
  layout.nodes = (layout.gpus + node_size - 1) / std::max(1, node_size);
  if (layout.gpus == 1 && data_parallel <= 1) {
    layout.expert_parallel = expert_parallel && paged(engine);
    check_moe_layout(model, engine, layout);
    return layout;
  }
  if (!paged(engine)) {
    // llama.cpp's default --split-mode layer, transformers' device_map; the conventions add
    // memory up.
    layout.split = engine.rules->split;
    if (engine.splits_layers() && layout.gpus > model.num_layers()) {
      throw Error::make("invalid_value", "gpu_count", "error.more_gpus_than_layers",
                        obj({{"gpus", layout.gpus}, {"layers", model.num_layers()}}));
    }
    return layout;
  }
  // Each data-parallel rank gets an equal share of the cards, split as one model would be.
  const int dp = std::max(1, data_parallel);
  if (layout.gpus % dp != 0) {
    throw Error::make("invalid_value", "gpu_count", "error.gpu_count_data_parallel",
                      obj({{"gpus", layout.gpus}, {"dp", dp}}));
  }
  const int replica = layout.gpus / dp;
  int tp = 1;
  for (int t = std::min(replica, std::max(1, node_size)); t > 1; --t) {
    if (replica % t == 0 && tensor_parallel_legal(model, t)) {
      tp = t;
      break;
    }
  }
  layout.tensor_parallel = tp;
  layout.pipeline_parallel = replica / tp;
  layout.data_parallel = dp;
  layout.expert_parallel = expert_parallel;
  if (layout.pipeline_parallel > model.num_layers()) {
    throw Error::make("invalid_value", "gpu_count", "error.more_gpus_than_layers",
                      obj({{"gpus", layout.gpus}, {"layers", model.num_layers()}}));
  }
  layout.kv_heads_replicated = !has_mla(model) && model.num_kv_heads > 0 && tp > model.num_kv_heads;
  layout.split = split_name(tp, layout.pipeline_parallel, dp);
  check_moe_layout(model, engine, layout);
  return layout;
}

json options_for_layout(const EngineProfile& engine, const json& options,
                        const ServingLayout& layout) {
  json out = options;
  if (has_knob(engine, "tensor_parallel_size")) {
    out["tensor_parallel_size"] = layout.tensor_parallel;
  }
  if (has_knob(engine, "pipeline_parallel_size")) {
    out["pipeline_parallel_size"] = layout.pipeline_parallel;
  }
  if (has_knob(engine, "data_parallel_size")) out["data_parallel_size"] = layout.data_parallel;
  return out;
}

ServingLayout resolve_layout(const ModelSpec& model, const EngineProfile& engine, json& options,
                             const json& given_options, std::int64_t gpus, bool gpus_given,
                             int node_size) {
  const bool knobs_given = given_options.contains("tensor_parallel_size") ||
                           given_options.contains("pipeline_parallel_size");
  if (paged(engine) && knobs_given) {
    ServingLayout layout;
    layout.tensor_parallel = knob_int(options, "tensor_parallel_size");
    layout.pipeline_parallel = knob_int(options, "pipeline_parallel_size");
    layout.data_parallel = data_parallel_of(options);
    layout.expert_parallel = expert_parallel_of(options);
    layout.gpus = layout.tensor_parallel * layout.pipeline_parallel * layout.data_parallel;
    if (gpus_given && gpus != layout.gpus) {
      throw Error::make("invalid_value", "gpu_count", "error.gpu_count_layout",
                        obj({{"gpus", gpus},
                             {"tp", layout.tensor_parallel},
                             {"pp", layout.pipeline_parallel},
                             {"dp", layout.data_parallel},
                             {"product", layout.gpus}}));
    }
    if (!tensor_parallel_legal(model, layout.tensor_parallel)) {
      throw Error::make("invalid_value", "engine_options.tensor_parallel_size",
                        "error.tensor_parallel_illegal",
                        obj({{"tp", layout.tensor_parallel},
                             {"heads", model.num_heads},
                             {"kv_heads", model.num_kv_heads}}));
    }
    layout.nodes = (layout.gpus + node_size - 1) / std::max(1, node_size);
    layout.kv_heads_replicated =
        !has_mla(model) && model.num_kv_heads > 0 && layout.tensor_parallel > model.num_kv_heads;
    layout.split =
        split_name(layout.tensor_parallel, layout.pipeline_parallel, layout.data_parallel);
    check_moe_layout(model, engine, layout);
    return layout;
  }
  // Without gpu_count, data_parallel_size ranks of one card each.
  const int dp = paged(engine) ? data_parallel_of(options) : 1;
  const int n = static_cast<int>(gpus_given ? gpus : dp);
  const ServingLayout layout =
      choose_layout(model, engine, n, node_size, dp, paged(engine) && expert_parallel_of(options));
  options = options_for_layout(engine, options, layout);
  return layout;
}

ServingFit serving_fit(const InferencePlan& plan, const EngineProfile& engine, const Gpu& gpu,
                       const GpuCatalog& gpus, std::int64_t context, std::int64_t batch) {
  ServingFit f;
  const double cards = std::max(1, plan.gpus);
  double kv_card = 0;  // the KV cache term on the fullest card
  for (const Term& term : plan.terms) {
    if (term.id == "kv_cache") kv_card = term.bytes;
  }
  if (plan.budget.present) {
    // vLLM, SGLang: the engine's own budget on each card.
    const EngineBudget& b = plan.budget;
    f.per_gpu_need_bytes = plan.total_bytes;
    // Under vLLM a companion's server has its own share beside the model's; its term is in the
    // need, so its share is in the capacity.
    f.per_gpu_capacity_bytes = b.reserved_bytes + b.companion_reserved_bytes;
    f.kv_budget_bytes = b.kv_budget_bytes;
    f.kv_bytes_per_token = b.kv_bytes_per_token;
    f.kv_tokens = b.kv_tokens;
    f.max_concurrency = b.max_concurrency;
    f.fits = b.fits;
    return f;
  }
  if (engine.convention()) {
    // The whole total against the marketed memory of all the cards, shared evenly (on
    // unified memory, the part macOS lets the GPU take: GpuCatalog::card_bytes).
    f.per_gpu_need_bytes = plan.total_bytes / cards;
    f.per_gpu_capacity_bytes = gpus.card_bytes(gpu);
    kv_card = plan.kv.bytes / cards;
  } else {
    // llama.cpp: each card's buffers against what the runtime can allocate.
    f.per_gpu_need_bytes = plan.total_bytes;
    f.per_gpu_capacity_bytes = gpus.usable_bytes(gpu);
  }
  f.fits = f.per_gpu_need_bytes <= f.per_gpu_capacity_bytes;
  f.kv_budget_bytes = f.per_gpu_capacity_bytes - (f.per_gpu_need_bytes - kv_card);
  const double cells = static_cast<double>(context) * static_cast<double>(batch);
  f.kv_bytes_per_token = cells > 0 ? kv_card / cells : 0;
  if (f.kv_budget_bytes > 0 && f.kv_bytes_per_token > 0) {
    f.kv_tokens = static_cast<std::int64_t>(std::floor(f.kv_budget_bytes / f.kv_bytes_per_token));
    f.max_concurrency = static_cast<double>(f.kv_tokens) / static_cast<double>(context);
  }
  return f;
}

std::vector<int> serving_counts(int node_size) {
  std::vector<int> counts;
  const int node = std::max(1, node_size);
  for (int n = 1; n <= node; n *= 2) counts.push_back(n);
  if (counts.back() != node) counts.push_back(node);
  for (int nodes = 2; nodes <= 8; ++nodes) counts.push_back(nodes * node);
  return counts;
}

int cards_needed(const InferenceSetup& setup, const EngineProfile& engine, const json& options,
                 const Gpu& gpu, const GpuCatalog& gpus, const FormatCatalog& formats) {
  const int dp = paged(engine) ? data_parallel_of(options) : 1;
  const bool ep = paged(engine) && expert_parallel_of(options);
  for (int n : serving_counts(gpus.node_size)) {
    if (n % dp != 0) continue;  // every data-parallel rank gets the same cards
    ServingLayout layout;
    try {
      layout = choose_layout(*setup.model, engine, n, gpus.node_size, dp, ep);
    } catch (const Error&) {
      continue;  // more stages than layers, more ranks than experts, uneven experts
    }
    InferenceSetup s = setup;
    s.gpus = n;
    const json o = options_for_layout(engine, options, layout);
    const InferencePlan plan = plan_inference(s, engine, o, &gpu, gpus, formats, false);
    if (serving_fit(plan, engine, gpu, gpus, setup.context, setup.batch).fits) return n;
  }
  return 0;
}

namespace {

/** `n` of `card` at the catalog's price with its volume discount, and what each holds. */
ServingSet rented_set(const Gpu& card, int n, const GpuCatalog& gpus, double per_gpu_capacity,
                      double per_gpu_need) {
  ServingSet set;
  Option& o = set.option;
  o.gpu = &card;
  o.count = n;
  o.priced = true;
  o.list_monthly = card.monthly_usd * n;
  o.discount_percent = gpus.discount_percent(n);
  o.monthly = o.list_monthly * (1.0 - o.discount_percent / 100.0);
  o.capacity_bytes = per_gpu_capacity * n;
  o.spare_bytes = (per_gpu_capacity - per_gpu_need) * n;
  o.tight = is_tight(o.spare_bytes, n, FitRules{});
  return set;
}

/**
 * The fewest `card`s that hold `setup` and meet the floor; failing the
 * floor, the fewest that hold it. `first` is the smallest count this card
 * is rented in, `held` the smallest that holds the whole model (0: none).
 */
std::optional<ServingSet> fewest_cards(const ServingSearch& q, const Gpu& card, int& first,
                                       int& held) {
  const InferenceSetup& setup = q.setup;
  const GpuCatalog& gpus = q.gpus;
  std::optional<ServingSet> slow;
  const int dp = data_parallel_of(q.options);
  for (int n : serving_counts(gpus.node_size)) {
    if (n > gpus.node_size || (card.stock > 0 && n > card.stock)) break;
    if (n < card.min_order || n % dp != 0) continue;
    if (first == 0) first = n;
    ServingLayout l;
    try {
      l = choose_layout(*setup.model, q.engine, n, gpus.node_size, dp,
                        expert_parallel_of(q.options));
    } catch (const Error&) {
      continue;  // too few layers or experts for n cards, or experts that do not divide
    }
    InferenceSetup s = setup;
    s.gpus = n;
    const InferencePlan p = plan_inference(s, q.engine, options_for_layout(q.engine, q.options, l),
                                           &card, gpus, q.formats, false);
    const ServingFit sf = serving_fit(p, q.engine, card, gpus, s.context, s.batch);
    if (!sf.fits) continue;
    if (held == 0) held = n;
    ServingSet f = rented_set(card, n, gpus, sf.per_gpu_capacity_bytes, sf.per_gpu_need_bytes);
    f.option.layout = {l.tensor_parallel, l.pipeline_parallel, l.nodes, n};
    SpeedLayout sl = speed_layout(q.engine, p.budget.present ? p.tensor_parallel : 1,
                                  p.budget.present ? p.pipeline_parallel : 1, n);
    sl.data_parallel = p.data_parallel;
    sl.expert_parallel = p.expert_parallel;
    const bool fp8 = fp8_compute(q.engine, setup.weights, *setup.model, card);
    f.decode =
        expected_decode(*setup.model, p, card, sl, s.batch, q.format_id, fp8, q.speed, q.speeds);
    f.prefill = expected_prefill(*setup.model, p, card, sl, s.context, fp8, q.speed);
    if (f.decode.expected_tokens_per_s >= q.min_tokens_per_s) return f;
    if (!slow) slow = std::move(f);
  }
  return slow;
}

/**
 * llama.cpp on a card too small at its smallest count (`first`): that
 * count with the rest in host memory. Offered when it meets the floor (for
 * an MoE with its experts on the host it can be the cheapest usable set);
 * under it, only when no count holds it whole (`held` 0), so a user sees
 * why that cheaper card is not offered.
 */
std::optional<ServingSet> offloaded_set(const ServingSearch& q, const Gpu& card, int first,
                                        int held) {
  InferenceSetup s = q.setup;
  s.gpus = first;
  const InferencePlan p = plan_inference(s, q.engine, q.options, &card, q.gpus, q.formats, false);
  const OffloadPlan o =
      plan_offload(offload_parts(s, p, p.options),
                   std::max(0.0, q.gpus.usable_bytes(card) - s.held_bytes), first);
  if (o.kind == OffloadPlan::Kind::kNone || !o.fits) return std::nullopt;
  const DecodeSpeed ds =
      expected_offload_decode(*s.model, p, card, speed_layout(q.engine, 1, 1, first), s.batch,
                              q.format_id, q.speed, q.speeds, o.host_read_bytes,
                              p.options.at("host_bandwidth_gbps").get<double>(), o.host_handoffs);
  if (held != 0 && ds.expected_tokens_per_s < q.min_tokens_per_s) return std::nullopt;
  ServingSet set = rented_set(card, first, q.gpus, o.capacity_bytes, o.per_gpu_bytes);
  set.option.layout = {1, 1, 1, first};
  set.decode = ds;
  set.offload = o;
  return set;
}

}  // namespace

std::vector<ServingSet> cheapest_sets(const ServingSearch& q) {
  const ModelSpec& model = *q.setup.model;
  const WeightFormat* format =
      q.setup.weights != nullptr ? q.setup.weights : q.formats.find_weight(model.native_format);
  std::vector<ServingSet> found;
  for (const Gpu& card : q.gpus.gpus) {
    if (!card.priced || (format != nullptr && !card_runs(&card, *format))) continue;
    int first = 0;
    int held = 0;
    std::optional<ServingSet> set;
    try {
      set = fewest_cards(q, card, first, held);
    } catch (const Error& e) {
      // A kernel the request names that this card cannot run (vLLM's mxfp4_backend=triton on
      // an A100): not a card for this plan. Any other refusal is the request's, for every card.
      if (e.field() != "engine_options.mxfp4_backend") throw;
      continue;
    }
    if (set) found.push_back(std::move(*set));
    if (q.engine.rules->offloads && first > 0 && held != first) {
      std::optional<ServingSet> offloaded = offloaded_set(q, card, first, held);
      if (offloaded) found.push_back(std::move(*offloaded));
    }
  }
  stable_sort_by(found, [](const ServingSet& a, const ServingSet& b) {
    return a.option.monthly < b.option.monthly;
  });
  return found;
}

}  // namespace vram
