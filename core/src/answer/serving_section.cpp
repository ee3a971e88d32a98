// How the cards asked about serve the plan: the layout over them, what each
// holds, how many it would take, and llama.cpp's offload when it has one.

#include <cmath>

#include "answer/sections.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

/**
 * An MoE model's layout under vLLM/SGLang, or null: its name, the cards one
 * MoE layer spans, the experts on the fullest card (whole under expert
 * parallelism, else every expert split over the group).
 */
json moe_layout_json(const ModelSpec& model, const ServingLayout& layout) {
  if (layout.moe_layout.empty()) return nullptr;
  const int group = layout.moe_group();
  return obj({{"id", layout.moe_layout},
              {"label",
               Message{"moe_layout." + layout.moe_layout,
                       obj({{"tp", layout.tensor_parallel},
                            {"dp", layout.data_parallel},
                            {"ep", layout.expert_parallel_size()},
                            {"group", group},
                            {"experts", model.moe.num_experts},
                            {"per_gpu", experts_per_gpu(model, layout.expert_parallel_size())}})}},
              {"attention_tensor_parallel", layout.tensor_parallel},
              {"data_parallel", layout.data_parallel},
              {"expert_parallel_size", layout.expert_parallel_size()},
              {"moe_group", group},
              {"experts", model.moe.num_experts},
              {"experts_per_gpu", layout.expert_parallel
                                      ? json(experts_per_gpu(model, layout.expert_parallel_size()))
                                      : json(nullptr)}});
}

json serving_json(const Inference& in, const ServingFit& sf, int needed) {
  const ServingLayout& layout = in.layout;
  const double cards = static_cast<double>(layout.gpus);
  return obj({{"gpus", layout.gpus},
              {"tensor_parallel", layout.tensor_parallel},
              {"pipeline_parallel", layout.pipeline_parallel},
              {"nodes", layout.nodes},
              {"split", layout.split},
              {"layout", Message{"split." + layout.split, obj({{"tp", layout.tensor_parallel},
                                                               {"pp", layout.pipeline_parallel},
                                                               {"dp", layout.data_parallel},
                                                               {"gpus", layout.gpus}})}},
              {"kv_heads_replicated", layout.kv_heads_replicated},
              {"data_parallel", layout.data_parallel},
              {"expert_parallel_size", layout.expert_parallel_size()},
              {"moe_layout", moe_layout_json(in.model, layout)},
              {"per_gpu_gb", bytes_to_gb(sf.per_gpu_need_bytes)},
              {"total_gb", bytes_to_gb(sf.per_gpu_need_bytes * cards)},
              {"capacity_per_gpu_gb", bytes_to_gb(sf.per_gpu_capacity_bytes)},
              {"capacity_gb", bytes_to_gb(sf.per_gpu_capacity_bytes * cards)},
              {"kv_budget_gb", bytes_to_gb(sf.kv_budget_bytes)},
              {"kv_budget_total_gb", bytes_to_gb(sf.kv_budget_bytes * cards)},
              {"kv_tokens", sf.kv_tokens},
              {"max_concurrency", sf.max_concurrency},
              {"users", in.setup.batch},
              {"max_users", static_cast<std::int64_t>(std::floor(sf.max_concurrency))},
              {"fits", sf.fits},
              {"cards_needed", needed > 0 ? json(needed) : json(nullptr)},
              {"cards_searched", serving_counts(in.gpus.node_size).back()}});
}

}  // namespace

json serving_section(const Inference& in, const std::optional<OffloadPlan>& offload) {
  if (in.gpu == nullptr) return json::object();
  const Gpu& gpu = *in.gpu;
  bool estimated = false;
  const double usable = in.gpus.usable_bytes(gpu, &estimated);
  json g = gpu;
  g["usable_gib"] = usable / kBytesPerGiB;
  g["usable_estimated"] = estimated;
  const int needed = cards_needed(in.setup, *in.engine.profile, in.engine.options, gpu, in.gpus,
                                  in.catalog.formats);
  json out = obj({{"gpu", std::move(g)},
                  {"gpu_count", static_cast<std::int64_t>(in.layout.gpus)},
                  {"serving", serving_json(in, *in.fit, needed)}});
  if (offload) {
    json o = offload_section(in, *offload);
    out["serving"]["offload"] = std::move(o["offload"]);
    out["assumptions"] = std::move(o["assumptions"]);
  }
  if (in.gpus.is_unified(gpu)) {
    // The need in the limit's terms: vLLM and SGLang take their share of it, the rest all.
    const ServingFit& sf = *in.fit;
    const double need = sf.per_gpu_capacity_bytes > 0
                            ? sf.per_gpu_need_bytes * usable / sf.per_gpu_capacity_bytes
                            : sf.per_gpu_need_bytes;
    merge(out, unified_section(in.gpus, gpu, need, in.budget_gb.has_value()));
    out["gpu"]["unified"] = true;
  }
  // A raised limit holds it on the one machine: that, not more machines, is the answer.
  const bool raise = out.contains("unified_memory") && !out["unified_memory"]["command"].is_null();
  if (!in.fit->fits && !raise) {
    const int most = serving_counts(in.gpus.node_size).back();
    merge(out,
          obj({{"warnings",
                json::array({needed > 0
                                 ? Message{"warning.cards_needed", obj({{"gpu", gpu.name},
                                                                        {"count", needed},
                                                                        {"now", in.layout.gpus}})}
                                 : Message{"warning.no_count_holds",
                                           obj({{"gpu", gpu.name}, {"max", most}})}})}}));
  }
  return out;
}

}  // namespace vram::answer
