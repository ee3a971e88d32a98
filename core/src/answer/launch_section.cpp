// The command that runs the plan under its engine (launch.hpp writes it).

#include "answer/sections.hpp"
#include "vram/launch.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

// What the model itself needs of this engine: its preset's "launch" (data/models.json), or none.
json model_flags(const Catalog& catalog, const ModelSpec& model, const std::string& engine) {
  for (const ModelPreset& preset : catalog.models) {
    if (preset.id != model.id || preset.repo != model.repo) continue;
    if (preset.launch.contains(engine)) return preset.launch.at(engine).at("flags");
  }
  return json::array();
}

/** A vision model's images, and for a tower of any resolution the processor's pixel bounds. */
void carry_images(LaunchPlan& lp, const InferenceSetup& setup) {
  lp.images = setup.images;
  if (setup.image_grid.tokens <= 0) return;
  // vLLM reserves for the request's image, not the processor's largest (engines/vision.cpp);
  // transformers' processor takes the two together.
  lp.image_min_pixels = setup.model->vision.min_pixels;
  lp.image_max_pixels = setup.image_grid.height * setup.image_grid.width;
}

}  // namespace

json launch_section(const Inference& in, const Placement& placement,
                    const std::optional<OffloadPlan>& offload) {
  // None for the conventions.
  if (in.engine.profile->launch.is_null()) return json::object();
  const ServingLayout& layout = in.layout;
  const InferenceSetup& setup = in.setup;
  LaunchPlan lp;
  lp.tensor_parallel = layout.tensor_parallel;
  lp.pipeline_parallel = layout.pipeline_parallel;
  lp.data_parallel = layout.data_parallel;
  lp.expert_parallel = layout.expert_parallel;
  lp.context = setup.context;
  lp.batch = setup.batch;
  lp.layers = in.model.num_layers();
  // A format the checkpoint already stores needs no quantization on load.
  lp.weights = setup.weights != nullptr && setup.weights->id == in.model.native_format
                   ? std::string("native")
                   : in.weights_id;
  lp.kv = setup.kv->id;
  lp.options = in.plan.options;
  lp.asked = in.engine.options;
  lp.model = in.model.repo;
  carry_images(lp, setup);
  lp.model_flags = model_flags(in.catalog, in.model, in.engine.profile->id);
  if (in.draft) {
    lp.draft = true;
    lp.draft_repo = in.draft->model.repo.empty() ? "DRAFT" : in.draft->model.repo;
    lp.draft_tokens = setup.draft_tokens;
  }
  // The model's own MTP layers or an EAGLE-3 head: only vLLM and SGLang run them (llama.cpp
  // and transformers say so, warning.mtp_engine / warning.eagle_engine, and get no flag).
  const bool runs_own = in.engine.profile->rules->paged;
  if (setup.mtp && runs_own) {
    lp.mtp = true;
    lp.draft_tokens = setup.draft_tokens;
  }
  if (setup.eagle != nullptr && runs_own) {
    lp.eagle = true;
    lp.draft_repo = setup.eagle->repo;
    lp.draft_tokens = setup.draft_tokens;
  }
  if (offload) {
    lp.gpu_layers = offload->ngl;
    lp.n_cpu_moe = offload->n_cpu_moe;
  } else if (placement.given()) {
    // The numbers the user typed are the numbers the command carries.
    if (placement.ngl) lp.gpu_layers = *placement.ngl;
    if (placement.n_cpu_moe) lp.n_cpu_moe = *placement.n_cpu_moe;
  }
  if (in.mixed) {
    // Unequal cards: each card's slots, in the order --device lists them (split.hpp).
    const MixedCards& m = *in.mixed;
    bool reordered = false;
    for (std::size_t i = 0; i < m.split.cards.size(); ++i) {
      const CardShare& s = m.split.cards[i];
      lp.tensor_split += (i == 0 ? "" : ",") + std::to_string(m.split.tensor_split[i]);
      lp.devices += (i == 0 ? "CUDA" : ",CUDA") + std::to_string(s.card);
      reordered = reordered || s.card != static_cast<int>(i);
    }
    if (!reordered) lp.devices.clear();
  }
  json launch = launch_json(*in.engine.profile, lp);
  // A second model's server on the card: where its engine divides the card by fractions
  // (vLLM, SGLang), only once the card gives its share.
  const bool shared = in.engine.profile->rules->paged;
  if (in.companion && (!shared || in.plan.companion_share > 0)) {
    LaunchPlan cp;
    const ModelSpec& c = in.companion->model;
    cp.context = setup.companion_context;
    cp.layers = c.num_layers();
    cp.weights = lp.weights == "native" ? lp.weights : in.weights_id;
    cp.kv = setup.companion_kv->id;
    cp.model = c.repo;
    cp.share = in.plan.companion_share;
    cp.model_flags = model_flags(in.catalog, c, in.engine.profile->id);
    json command = companion_launch_json(*in.engine.profile, cp);
    if (!command.is_null()) launch["companion"] = std::move(command);
  }
  return obj({{"launch", std::move(launch)}});
}

}  // namespace vram::answer
