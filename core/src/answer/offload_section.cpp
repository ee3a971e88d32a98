// llama.cpp's partial offload in the answer: which placement (the user's or
// the plan's), what sits where, its speed and the flags that carry it.

#include <algorithm>

#include "answer/sections.hpp"
#include "vram/error.hpp"
#include "vram/speed.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

/** A placement knob's value: nullopt for "auto" (the plan picks). */
std::optional<int> placement_knob(const json& options, const char* key) {
  const auto it = options.find(key);
  if (it == options.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<std::int64_t>());
}

/** The flag llama-server takes for a plan value (data/engines.json's launch flags). */
std::string launch_flag(const EngineProfile& engine, const char* carries) {
  if (engine.launch.is_object()) {
    for (const json& f : engine.launch.at("flags")) {
      if (f.at("carries") == carries) return f.at("flag").get<std::string>();
    }
  }
  throw Error::make("internal", "engines.launch", "error.no_flag", obj({{"carries", carries}}));
}

/** The plan's own pick beside a user's placement that does not fit: what the user may take. */
json suggestion(const OffloadPlan* s) {
  if (s == nullptr || s->kind == OffloadPlan::Kind::kNone) return nullptr;
  return obj({{"ngl", s->ngl},
              {"n_cpu_moe", s->n_cpu_moe},
              {"per_gpu_gb", bytes_to_gb(s->per_gpu_bytes)},
              {"host_gb", bytes_to_gb(s->host_bytes)}});
}

/** A user's placement that does not fit: the headline, with the plan's own pick. */
Message short_headline(const OffloadPlan& o, const std::string& gpu, const EngineProfile& engine) {
  const OffloadPlan* s = o.suggested.get();
  return Message{
      "offload.short",
      obj({{"placement", placement_flags(o, engine)},
           {"need", o.per_gpu_bytes},
           {"capacity", o.capacity_bytes},
           {"gpu", gpu},
           {"suggestion",
            s == nullptr || s->kind == OffloadPlan::Kind::kNone
                ? Message{"offload.suggest_none"}
                : Message{"offload.suggest", obj({{"placement", placement_flags(*s, engine)}})}}})};
}

/** A partial offload (offload.hpp) with its speed: what sits where, and the headline. Speed only
 * for a placement that fits. */
json offload_json(const Inference& in, const OffloadPlan& o, const DecodeSpeed& d,
                  double host_bandwidth_gbps) {
  const EngineProfile& engine = *in.engine.profile;
  const double floor = in.min_tokens_per_s;
  const bool experts = o.kind == OffloadPlan::Kind::kExperts;
  json out = obj({{"kind", experts                                ? "experts"
                           : o.kind == OffloadPlan::Kind::kLayers ? "layers"
                                                                  : "none"},
                  {"placement", o.user ? "user" : "auto"},
                  {"fits", o.fits},
                  {"layers", o.layers},
                  {"gpu_layers", o.gpu_layers},
                  {"ngl", o.ngl},
                  {"n_cpu_moe", o.n_cpu_moe},
                  {"per_gpu_gb", bytes_to_gb(o.per_gpu_bytes)},
                  {"capacity_per_gpu_gb", bytes_to_gb(o.capacity_bytes)},
                  {"gpu_weights_gb", bytes_to_gb(o.gpu_weights_bytes)},
                  {"host_weights_gb", bytes_to_gb(o.host_weights_bytes)},
                  {"host_kv_gb", bytes_to_gb(o.host_kv_bytes)},
                  {"host_compute_gb", bytes_to_gb(o.host_compute_bytes)},
                  {"host_gb", bytes_to_gb(o.host_bytes)},
                  {"host_read_gb", bytes_to_gb(o.host_read_bytes)},
                  {"host_handoffs", o.host_handoffs},
                  {"host_bandwidth_gbps", host_bandwidth_gbps},
                  {"host_efficiency", in.speed.host_efficiency},
                  {"suggested", suggestion(o.suggested.get())},
                  {"flags", placement_flags(o, engine)}});
  if (!o.fits) {
    out["decode"] = nullptr;
    out["headline"] = short_headline(o, in.gpu->name, engine);
    return out;
  }
  if (in.gpus.is_unified(*in.gpu)) {
    // One memory: what the CPU keeps beside the GPU's share comes out of the same pool, which
    // holds both only up to what macOS can spare (GpuCatalog::wired_ceiling_bytes).
    const double pool = in.gpus.wired_ceiling_bytes(in.gpu->vram_gb);
    const double both = o.per_gpu_bytes * in.layout.gpus + o.host_bytes;
    out["unified_pool_gb"] = bytes_to_gb(pool);
    if (both > pool) {
      out["fits"] = false;
      out["decode"] = nullptr;
      out["headline"] = Message{"offload.unified_short", obj({{"gpu", in.gpu->name},
                                                              {"card", o.per_gpu_bytes},
                                                              {"host", o.host_bytes},
                                                              {"pool", pool},
                                                              {"memory_gib", in.gpu->vram_gb}})};
      return out;
    }
  }
  out["decode"] = obj({{"ceiling_tokens_per_s", d.ceiling_tokens_per_s},
                       {"expected_tokens_per_s", d.expected_tokens_per_s},
                       {"expected_batch_tokens_per_s", d.expected_batch_tokens_per_s},
                       {"step_ms", obj({{"gpu", d.memory_s * 1e3},
                                        {"host", d.host_s * 1e3},
                                        {"handoffs", d.handoff_s * 1e3},
                                        {"fixed", d.fixed_s * 1e3},
                                        {"hops", d.hops_s * 1e3},
                                        {"total", d.step_s * 1e3}})},
                       {"min_tokens_per_s", floor},
                       {"meets_floor", d.expected_tokens_per_s >= floor}});
  out["headline"] = Message{experts                                ? "offload.experts"
                            : o.kind == OffloadPlan::Kind::kLayers ? "offload.layers"
                                                                   : "offload.all",
                            obj({{"gpu_layers", o.gpu_layers},
                                 {"layers", o.layers},
                                 {"n_cpu_moe", o.n_cpu_moe},
                                 {"cards", in.layout.gpus},
                                 {"host", o.host_bytes},
                                 {"tokens", d.expected_tokens_per_s}})};
  return out;
}

}  // namespace

Message placement_flags(const OffloadPlan& o, const EngineProfile& engine) {
  const std::string ngl = launch_flag(engine, "gpu_layers");
  return o.n_cpu_moe > 0
             ? Message{"offload.flags_experts", obj({{"ngl_flag", ngl},
                                                     {"ngl", o.ngl},
                                                     {"moe_flag", launch_flag(engine, "n_cpu_moe")},
                                                     {"n_cpu_moe", o.n_cpu_moe}})}
             : Message{"offload.flags_layers", obj({{"ngl_flag", ngl}, {"ngl", o.ngl}})};
}

Placement placement_of(const Inference& in) {
  if (!in.engine.profile->rules->offloads) return {};
  return {placement_knob(in.plan.options, "gpu_layers"),
          placement_knob(in.plan.options, "n_cpu_moe")};
}

// llama.cpp on cards that cannot hold it all: the most that fits on them,
// the rest in host memory (offload.hpp). The user's own placement (knobs
// gpu_layers, n_cpu_moe) is used as given.
std::optional<OffloadPlan> offload_of(const Inference& in, const Placement& placement) {
  if (in.gpu == nullptr || !in.engine.profile->rules->offloads) return std::nullopt;
  const bool fits_whole = in.fit->fits;
  const int cards = in.layout.gpus;
  // What other processes hold on the card is not llama.cpp's to place into.
  const double usable = std::max(0.0, in.gpus.usable_bytes(*in.gpu) - in.setup.held_bytes);
  if (placement.given()) {
    const OffloadPlan o = place_offload(offload_parts(in.setup, in.plan, in.plan.options),
                                        placement.ngl, placement.n_cpu_moe, usable, cards);
    // All on the GPU and held: the plan itself, nothing to add.
    if (o.kind != OffloadPlan::Kind::kNone || !o.fits || !fits_whole) return o;
  } else if (!fits_whole) {
    const OffloadPlan o =
        plan_offload(offload_parts(in.setup, in.plan, in.plan.options), usable, cards);
    if (o.kind != OffloadPlan::Kind::kNone) return o;
  }
  return std::nullopt;
}

json placement_section(const Inference& in, const Placement& placement) {
  // Without a card there is nothing to place against.
  if (in.gpu != nullptr || !placement.given()) return json::object();
  return obj({{"warnings", json::array({Message{"warning.placement_no_gpu"}})}});
}

json offload_section(const Inference& in, const OffloadPlan& offload) {
  // Its speed: the cards' layers in turn, then what the host reads.
  const double host_bw = in.plan.options.at("host_bandwidth_gbps").get<double>();
  const DecodeSpeed ds = expected_offload_decode(
      in.model, in.plan, *in.gpu, speed_layout(*in.engine.profile, 1, 1, in.layout.gpus),
      in.setup.batch, in.format_id, in.speed, in.catalog.speed, offload.host_read_bytes, host_bw,
      offload.host_handoffs);
  json assumptions = json::array();
  assumptions.push_back(
      Message{"assumption.offload", obj({{"compute", offload.host_compute_bytes},
                                         {"bandwidth", host_bw},
                                         {"efficiency", in.speed.host_efficiency * 100},
                                         {"source", quotation(in.speed.host_source)}})});
  if (offload.host_handoffs > 0 && in.speed.host_handoff_s > 0) {
    assumptions.push_back(Message{"assumption.offload_handoff",
                                  obj({{"count", offload.host_handoffs},
                                       {"us", in.speed.host_handoff_s * 1e6},
                                       {"source", quotation(in.speed.host_handoff_source)}})});
  }
  return obj({{"offload", offload_json(in, offload, ds, host_bw)},
              {"assumptions", std::move(assumptions)}});
}

}  // namespace vram::answer
