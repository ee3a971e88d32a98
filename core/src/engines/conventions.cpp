// The overhead conventions of sizing guides: the whole model's weights and
// KV cache plus a flat amount (flat) or a share of both (percent), added up
// over the cards and held against their marketed memory.

#include "common.hpp"
#include "vram/inference.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/** The weights, the KV cache and `overhead` on top, as a sizing guide adds them. */
void plan_convention(const EngineInput& in, const Overhead& overhead, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  const bool explain = in.explain;
  plan.terms.push_back(weights_term(plan.weights, plan.params, 1, explain));
  plan.terms.push_back(kv_term(*setup.model, *setup.kv, plan.kv, setup.batch, setup, explain));
  // A draft model beside it: its weights and cache, as the model's (draft.cpp).
  push_draft(plan, setup, 1, 1, *setup.kv, setup.context, setup.batch, explain);
  warn_draft_vocab(plan, setup, explain);
  const double bytes = overhead_bytes(overhead, plan.weights.bytes, plan.kv.bytes);
  Term term{"overhead", {"term.overhead"}, bytes, {}, {}};
  if (explain) {
    term.formula = overhead.kind == Overhead::Kind::kFlat
                       ? Message{"formula.overhead_flat",
                                 obj({{"bytes", bytes}, {"engine", in.engine.label()}})}
                       : Message{"formula.overhead_pct", obj({{"pct", overhead.percent},
                                                              {"weights", plan.weights.bytes},
                                                              {"kv", plan.kv.bytes},
                                                              {"bytes", bytes}})};
    term.inputs = obj({{"kind", in.engine.kind()}, {"overhead_gb", bytes_to_gb(bytes)}});
  }
  plan.terms.push_back(std::move(term));
  // A second model's server on one of the cards (companion.cpp).
  push_companion(in, plan);
  // Whole-model terms against every card's memory added up: each card's share of it.
  push_held(plan, setup, std::max(1, setup.gpus), explain);
}

void plan_flat(const EngineInput& in, InferencePlan& plan) {
  Overhead overhead;
  overhead.kind = Overhead::Kind::kFlat;
  overhead.flat_bytes = gb_to_bytes(in.options.at("overhead_gb").get<double>());
  plan_convention(in, overhead, plan);
}

void plan_percent(const EngineInput& in, InferencePlan& plan) {
  Overhead overhead;
  overhead.kind = Overhead::Kind::kPercent;
  overhead.percent = in.options.at("overhead_pct").get<double>();
  plan_convention(in, overhead, plan);
}

}  // namespace

// The conventions advise what the serving engines load: safetensors formats.
extern const EngineRules kFlat{
    /*kind=*/"flat",
    /*convention=*/true,
    /*paged=*/false,
    /*split=*/"sum",
    /*splits_layers=*/false,
    /*experts_divide_evenly=*/false,
    /*offloads=*/false,
    /*stage_per_card=*/false,
    /*fp8_compute=*/true,
    /*loads=*/loads_safetensors,
    /*format_warning=*/gguf_format_warning,
    /*plan=*/plan_flat,
    /*state_storage=*/nullptr,
};

extern const EngineRules kPercent{
    /*kind=*/"percent",
    /*convention=*/true,
    /*paged=*/false,
    /*split=*/"sum",
    /*splits_layers=*/false,
    /*experts_divide_evenly=*/false,
    /*offloads=*/false,
    /*stage_per_card=*/false,
    /*fp8_compute=*/true,
    /*loads=*/loads_safetensors,
    /*format_warning=*/gguf_format_warning,
    /*plan=*/plan_percent,
    /*state_storage=*/nullptr,
};

}  // namespace vram::engines
