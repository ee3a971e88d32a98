// An inference request read once into its typed parts (sections.hpp), and
// how a section joins the answer.

#include "answer/sections.hpp"
#include "tables.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

/** The weights asked for, checked first: none for "native". */
const WeightFormat* asked_of(const Catalog& catalog, const EstimateRequest& req) {
  return req.weights != "native" ? &catalog.formats.weight(req.weights, "weights") : nullptr;
}

/** The model and formats of the load; kv is checked here, after the weights. */
InferenceSetup setup_of(const Catalog& catalog, const EstimateRequest& req, const ModelSpec& model,
                        const std::optional<CheckpointWeights>& checkpoint,
                        const WeightFormat* asked) {
  InferenceSetup setup;
  setup.model = &model;
  if (checkpoint) setup.checkpoint = &*checkpoint;
  setup.context = req.context;
  setup.batch = req.batch;
  // Never wider than the checkpoint (inference.hpp): FP8 asked of gpt-oss is sized as stored.
  setup.weights = no_wider_than_stored(model, asked, catalog.formats);
  setup.kv = &catalog.formats.kv(req.kv, "kv");
  setup.held_bytes = gb_to_bytes(req.gpu_used_gb);
  if (req.images > 0) {
    // Images only for a model with a vision tower, and only when its config says
    // what an image costs in tokens: never a guess.
    if (!model.vision.present()) {
      throw Error::make("not_applicable", "images", "error.no_vision",
                        obj({{"model", model.name}}));
    }
    if (model.vision.tokens_per_image <= 0) {
      throw Error::make("invalid_value", "images", "error.vision_tokens",
                        obj({{"model", model.name}}));
    }
    setup.images = req.images;
    setup.image_tokens = model.vision.tokens_per_image;
    // Each image's tokens join the context the KV cache is sized for.
    setup.context = req.context + req.images * setup.image_tokens;
  }
  return setup;
}

std::optional<CheckpointWeights> checkpoint_of(const EstimateRequest& req) {
  if (!req.checkpoint) return std::nullopt;
  return checkpoint_from_json(*req.checkpoint, "checkpoint");
}

}  // namespace

Inference::Inference(const Catalog& catalog_in, const EstimateRequest& req)
    : catalog(catalog_in),
      imported(request::model(catalog_in, req)),
      model(imported.model),
      checkpoint(checkpoint_of(req)),
      asked(asked_of(catalog_in, req)),
      setup(setup_of(catalog_in, req, model, checkpoint, asked)),
      weights_id(setup.weights != nullptr ? setup.weights->id : "native"),
      engine(request::engine(catalog_in, req)),
      speed(catalog_in.speed.profile(engine.profile->id)),
      gpus(request_catalog(catalog_in, req.catalog, own_gpus)),
      gpu(req.gpu ? &gpus.find(*req.gpu, "gpu") : nullptr),
      // gpu_count cards serve one model: the engine's layout over them (serving.hpp).
      layout(resolve_layout(model, *engine.profile, engine.options, req.engine_options,
                            req.gpu_count, req.gpu_count_given, gpus.node_size)),
      format_id(setup.weights != nullptr ? setup.weights->id : model.native_format),
      budget_gb(req.budget_gb),
      min_tokens_per_s(req.min_tokens_per_s) {
  setup.gpus = req.split_gpus.empty() ? layout.gpus : static_cast<int>(req.split_gpus.size());
  if (req.draft_model) {
    // The draft as loaded: a GGUF type asked of the model is the draft file's too (llama.cpp
    // takes two .gguf files); otherwise the draft as its checkpoint stores it (vLLM's
    // --quantization is the model's, not the draft's).
    draft.emplace(catalog_in.resolve(catalog_in.model(*req.draft_model, "draft_model")));
    const ModelSpec& dm = draft->model;
    const ParamTotals totals = param_totals(dm);
    const WeightFormat* gguf =
        setup.weights != nullptr && setup.weights->gguf ? setup.weights : nullptr;
    draft_weights.emplace(gguf != nullptr ? weights_in_format(dm, totals, *gguf, catalog_in.formats)
                                          : weights_native(dm, totals, catalog_in.formats));
    setup.draft = &dm;
    setup.draft_weights = &*draft_weights;
    setup.draft_kv = &catalog_in.formats.kv("fp16", "draft_model");
    setup.draft_tokens = req.draft_tokens;
  }
  plan = plan_inference(setup, *engine.profile, engine.options, gpu, gpus, catalog.formats);
  if (gpu != nullptr) {
    fit = serving_fit(plan, *engine.profile, *gpu, gpus, setup.context, setup.batch);
  }
  mixed = mixed_of(*this, req);
}

void merge(json& answer, json section) {
  for (auto it = section.begin(); it != section.end(); ++it) {
    if (it.key() == "assumptions" || it.key() == "warnings") {
      json& list = answer[it.key()];
      if (list.is_null()) list = json::array();
      for (json& note : *it) list.push_back(std::move(note));
    } else {
      answer[it.key()] = std::move(*it);
    }
  }
}

}  // namespace vram::answer
