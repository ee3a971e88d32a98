// An inference request read once into its typed parts (sections.hpp), and
// how a section joins the answer.

#include "answer/sections.hpp"
#include "tables.hpp"
#include "vram/error.hpp"
#include "vram/schema.hpp"
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
  const VisionSpec& vision = model.vision;
  // An image's size is the request's only for a tower that takes any resolution (the
  // schema's "needs": dynamic_vision); another model keeps the default.
  const bool dynamic = vision.present() && vision.dynamic;
  if (!dynamic &&
      req.image_size !=
          find_field(estimate_fields(), "image_size")->default_value.get<std::int64_t>()) {
    throw Error::make("not_applicable", "image_size", "error.image_size_fixed",
                      obj({{"model", model.name}}));
  }
  if (req.images > 0) {
    // Images only for a model with a vision tower, and only when its config says
    // what an image costs in tokens: never a guess.
    if (!vision.present()) {
      throw Error::make("not_applicable", "images", "error.no_vision",
                        obj({{"model", model.name}}));
    }
    if (dynamic) {
      // The request's square image through the processor's smart_resize (model.hpp).
      setup.image_size = req.image_size;
      setup.image_grid = resized_image(vision, req.image_size, req.image_size, vision.max_pixels);
      setup.image_tokens = setup.image_grid.tokens;
      setup.image_patches = setup.image_grid.patches;
    } else if (vision.tokens_per_image <= 0) {
      throw Error::make("invalid_value", "images", "error.vision_tokens",
                        obj({{"model", model.name}}));
    } else {
      setup.image_tokens = vision.tokens_per_image;
      setup.image_patches = vision.patches();
    }
    setup.images = req.images;
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

/**
 * The model's multi-token-prediction modules as a model of their own: each
 * repeats its last decoder layer (DeepSeek-V3 report, section 2.2; vLLM's
 * deepseek_mtp.py DeepSeekMultiTokenPredictorLayer.mtp_block), or is the
 * layer the importer names (Qwen3-Next's and Qwen3.5's full-attention
 * layers, ModelSpec::mtp_layer_specs), with the model's embedding and head.
 */
ModelSpec mtp_model(const ModelSpec& m) {
  ModelSpec one = m;
  one.name = m.name + " MTP";
  if (m.mtp_layer_specs.empty()) {
    one.layers.assign(static_cast<std::size_t>(m.mtp_layers), m.layers.back());
  } else {
    one.layers = m.mtp_layer_specs;
  }
  one.mtp_layer_specs.clear();
  one.extras.clear();
  one.vision = VisionSpec{};
  one.tied_embeddings = false;
  one.declared_params_total = 0;
  one.declared_params_active = 0;
  return one;
}

/** Weights of `m` in the model's storage: the format asked, else the checkpoint's own. */
double stored_bytes(const ModelSpec& m, const WeightFormat* asked, const FormatCatalog& formats) {
  const ParamTotals totals = param_totals(m);
  return asked != nullptr ? weights_in_format(m, totals, *asked, formats).bytes
                          : weights_native(m, totals, formats).bytes;
}

/** The model's own MTP layers as the draft (speculative "mtp"), checked and sized. */
void mtp_draft(Inference& in, const EstimateRequest& req) {
  // The model's own MTP layers draft: refused beside a draft model, and for a model without.
  if (req.draft_model) {
    throw Error::make("invalid_value", "speculative", "error.mtp_draft",
                      obj({{"draft", in.draft->model.name}}));
  }
  if (in.model.mtp_layers <= 0) {
    throw Error::make("not_applicable", "speculative", "error.no_mtp",
                      obj({{"model", in.model.name}}));
  }
  // Each module's decoder layer in the model's storage (twice the layers less once), and
  // eh_proj (2h x h) with its three RMSNorms in BF16 (nn.Linear without a quantization config).
  const ModelSpec& mtp_spec = in.mtp.emplace(mtp_model(in.model));
  ModelSpec twice = mtp_spec;
  twice.layers.insert(twice.layers.end(), mtp_spec.layers.begin(), mtp_spec.layers.end());
  const double once = stored_bytes(mtp_spec, in.setup.weights, in.catalog.formats);
  const double h = static_cast<double>(in.model.hidden_size);
  WeightsSize layers;
  layers.bytes = stored_bytes(twice, in.setup.weights, in.catalog.formats) - once +
                 static_cast<double>(in.model.mtp_layers) * (2.0 * h * h + 3.0 * h) * 2.0;
  layers.native = in.setup.weights == nullptr;
  in.draft_weights.emplace(std::move(layers));
  in.setup.draft = &mtp_spec;
  in.setup.draft_weights = &*in.draft_weights;
  in.setup.draft_kv = in.setup.kv;
  in.setup.draft_tokens = req.draft_tokens;
  // No output head of their own: vLLM replaces the drafter's lm_head, and each module's
  // shared_head.head (DeepSeek V3, GLM-4.5), with the model's once they are loaded
  // (vllm/v1/spec_decode/llm_base_proposer.py, _maybe_share_lm_head: "Detected MTP model.
  // Sharing target model lm_head weights"), and its memory profile counts what stays
  // allocated; SGLang's draft worker reads the model's head.
  in.setup.mtp = true;
}

/**
 * The EAGLE-3 head published for the model (speculative "eagle3", data/models.json "eagle3")
 * as the draft, checked and sized: refused beside a draft model, and for a model without one.
 */
void eagle_draft(Inference& in, const EstimateRequest& req) {
  if (req.draft_model) {
    throw Error::make("invalid_value", "speculative", "error.eagle_draft",
                      obj({{"draft", in.draft->model.name}}));
  }
  const EagleHeadPreset* head = nullptr;
  for (const ModelPreset& preset : in.catalog.models) {
    if (preset.id == in.model.id && preset.repo == in.model.repo && preset.eagle3.present()) {
      head = &preset.eagle3;
    }
  }
  if (head == nullptr) {
    throw Error::make("not_applicable", "speculative", "error.no_eagle_head",
                      obj({{"model", in.model.name}}));
  }
  // Its one decoder layer as a model of its own: the KV cache a token is that layer's.
  ModelSpec layer;
  layer.id = head->repo;
  layer.name = head->repo;
  layer.repo = head->repo;
  layer.model_type = "llama";
  layer.hidden_size = head->hidden_size;
  layer.intermediate_size = head->intermediate_size;
  layer.num_heads = head->num_heads;
  layer.num_kv_heads = head->num_kv_heads;
  layer.head_dim = head->head_dim;
  layer.v_head_dim = head->head_dim;
  layer.vocab_size = head->vocab_size;
  layer.layers.assign(1, LayerSpec{});
  in.setup.draft = &in.eagle.emplace(std::move(layer));
  // Parameters (llama_eagle3.py): qkv_proj from 2h to (heads + 2 kv heads) x head_dim, o_proj,
  // gate, up and down; fc from 3 target-hidden to h; input_layernorm, hidden_norm,
  // post_attention_layernorm and the final norm (4h); lm_head draft_vocab x h; d2t, int64.
  const double h = static_cast<double>(head->hidden_size);
  const double hd = static_cast<double>(head->head_dim);
  const double q = static_cast<double>(head->num_heads) * hd;
  const double kv = 2.0 * static_cast<double>(head->num_kv_heads) * hd;
  const double mlp = 3.0 * h * static_cast<double>(head->intermediate_size);
  const double vocab = static_cast<double>(head->draft_vocab_size);
  constexpr double kBytes = 2.0;  // the model's 16-bit dtype
  EagleHeadBytes bytes;
  bytes.layer = (2.0 * h * (q + kv) + q * h + mlp) * kBytes;
  bytes.head = vocab * h * kBytes;
  bytes.fc = 3.0 * static_cast<double>(head->target_hidden_size) * h * kBytes;
  bytes.rest = 4.0 * h * kBytes + vocab * 8.0;
  bytes.draft_vocab = head->draft_vocab_size;
  bytes.repo = head->repo;
  in.setup.eagle = &in.eagle_bytes.emplace(std::move(bytes));
  WeightsSize split;
  split.bytes = in.eagle_bytes->layer + in.eagle_bytes->head;
  split.native = false;
  in.setup.draft_weights = &in.draft_weights.emplace(split);
  in.setup.draft_kv = in.setup.kv;
  in.setup.draft_tokens = req.draft_tokens;
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
  if (req.speculative == "mtp") mtp_draft(*this, req);
  if (req.speculative == "eagle3") eagle_draft(*this, req);
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
