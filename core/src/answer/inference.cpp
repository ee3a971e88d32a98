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

/** error.used_over_card: what other processes hold leaves nothing of the card. */
void check_shared_card(const Inference& in) {
  const double usable = in.gpus.usable_bytes(*in.gpu);
  if (in.setup.held_bytes < usable) return;
  throw Error::make(
      "invalid_value", "gpu_used_gb", "error.used_over_card",
      obj({{"used", in.setup.held_bytes}, {"gpu", in.gpu->name}, {"usable", usable}}));
}

/** error.companion_over_card: the companion alone needs more than the card has free. */
void check_companion(const Inference& in) {
  if (in.setup.companion == nullptr) return;
  const double usable = in.gpus.usable_bytes(*in.gpu);
  const double free = usable - in.setup.held_bytes;
  for (const Term& t : in.plan.terms) {
    if (t.id != "companion" || t.bytes <= free) continue;
    throw Error::make("invalid_value", "companion_model", "error.companion_over_card",
                      obj({{"companion", in.setup.companion->name},
                           {"need", t.bytes},
                           {"gpu", in.gpu->name},
                           {"free", free}}));
  }
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
  // The draft and the companion as loaded: a GGUF type asked of the model is their files' too
  // (llama.cpp takes .gguf files); otherwise each as its checkpoint stores it (vLLM's
  // --quantization is the model's, not theirs).
  const WeightFormat* gguf =
      setup.weights != nullptr && setup.weights->gguf ? setup.weights : nullptr;
  const auto loaded = [&](const ModelSpec& m) {
    const ParamTotals totals = param_totals(m);
    return gguf != nullptr ? weights_in_format(m, totals, *gguf, catalog_in.formats)
                           : weights_native(m, totals, catalog_in.formats);
  };
  if (req.draft_model) {
    draft.emplace(catalog_in.resolve(catalog_in.model(*req.draft_model, "draft_model")));
    draft_weights.emplace(loaded(draft->model));
    setup.draft = &draft->model;
    setup.draft_weights = &*draft_weights;
    setup.draft_kv = &catalog_in.formats.kv("fp16", "draft_model");
    setup.draft_tokens = req.draft_tokens;
  }
  if (req.companion_model) {
    companion.emplace(
        catalog_in.resolve(catalog_in.model(*req.companion_model, "companion_model")));
    companion_weights.emplace(loaded(companion->model));
    setup.companion = &companion->model;
    setup.companion_weights = &*companion_weights;
    setup.companion_kv = &catalog_in.formats.kv("fp16", "companion_model");
    setup.companion_context = req.companion_context;
  }
  if (gpu != nullptr) check_shared_card(*this);
  plan = plan_inference(setup, *engine.profile, engine.options, gpu, gpus, catalog.formats);
  if (gpu != nullptr) {
    check_companion(*this);
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
