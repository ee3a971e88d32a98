// llama.cpp: a model buffer (token embeddings on the host), a KV buffer of
// n_ctx cells, a compute buffer and the CUDA context; over several cards a
// run of layers on each, and what does not fit placed in host memory.

#include <algorithm>

#include "common.hpp"
#include "vram/checkpoint.hpp"
#include "vram/units.hpp"

namespace vram {

ModelSpec llamacpp_cache_model(const ModelSpec& model, const nlohmann::json& options) {
  // Sliding layers keep their window plus one ubatch, or everything with --swa-full.
  ModelSpec local = model;
  if (options.at("kv_full_swa").get<bool>()) {
    for (LayerSpec& layer : local.layers) {
      if (layer.attention == LayerAttention::kSliding) layer.attention = LayerAttention::kGlobal;
    }
  } else if (model.sliding_window > 0) {
    local.sliding_window =
        model.sliding_window + static_cast<std::int64_t>(options.at("n_ubatch").get<double>());
  }
  return local;
}

namespace engines {
namespace {

StateStorage llamacpp_states(std::int64_t slots) {
  // llama_model::create_memory gives llama_memory_recurrent GGML_TYPE_F32 for both the conv
  // (r) and the recurrent (s) states, hybrid models included, with one row per sequence:
  // rs_size = max(1, n_seq_max), the server's --parallel slots (src/llama-model.cpp,
  // src/llama-memory-recurrent.cpp).
  // n_embd_r (src/llama-hparams.cpp) is (d_conv - 1) x the conv channels.
  return {kFp32StateBytesPerElement, kFp32StateBytesPerElement, std::max<std::int64_t>(1, slots),
          /*conv_history_only=*/true};
}

void plan_llamacpp(const EngineInput& in, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  const json& o = in.options;
  const bool explain = in.explain;
  const ModelSpec& m = *setup.model;
  // llama.cpp keeps token_embd in host memory and runs only the lookup there;
  // a tied model also needs it as the output matrix, so a copy goes on the GPU.
  const double per_param = plan.weights.bytes / plan.params.total;
  double embedding = plan.params.computed.embedding * per_param;
  // From a checkpoint's files, token_embd's own bytes.
  if (setup.weights == nullptr && setup.checkpoint != nullptr) {
    const auto it = setup.checkpoint->by_component.find("embeddings");
    embedding = it == setup.checkpoint->by_component.end() ? 0.0 : it->second.bytes;
  }
  const double host = m.tied_embeddings ? 0.0 : embedding;
  plan.host_bytes = embedding;
  // The model's GGUF leaves a vision tower out: it is the --mmproj file's (vision.cpp).
  const double vision = vision_weight_bytes(plan, setup);
  plan.vision_bytes = vision;
  // A GGUF's multi-token-prediction blocks (its last nextn_predict_layers, the "mtp"
  // component) stay in the file: the architectures' load_arch_tensors create them with
  // TENSOR_SKIP (src/models/glm4-moe.cpp and deepseek2.cpp for i >= n_layer; qwen35.cpp,
  // qwen35moe.cpp and qwen3next.cpp `mtp_flags = !ml.load_mtp ? TENSOR_SKIP : 0`, load_mtp
  // set by --spec-type draft-mtp in common/common.cpp), and llama_model_loader::create_tensor
  // answers a TENSOR_SKIP tensor with nullptr and `size_data -= nbytes` ("model has unused
  // tensor ... -- ignoring"): no buffer holds it. The plan drafts with none (see below).
  double mtp = 0;
  if (setup.weights == nullptr && setup.checkpoint != nullptr) {
    const auto it = setup.checkpoint->by_component.find("mtp");
    mtp = it == setup.checkpoint->by_component.end() ? 0.0 : it->second.bytes;
  }
  plan.mtp_bytes = mtp;
  Term weights = weights_term(plan.weights, plan.params, 1, explain);
  weights.label = {"term.model_buffer"};
  weights.bytes = plan.weights.bytes - host - vision - mtp;
  if (explain && mtp > 0) {
    plan.assumptions.push_back(
        {"assumption.llamacpp_mtp_skipped", obj({{"layers", m.mtp_layers}, {"mtp", mtp}})});
  }
  if (explain) {
    if (mtp > 0) {
      // Only a checkpoint has an "mtp" component, and vision_weight_bytes is 0 for one.
      weights.formula = {"formula.model_buffer_mtp", obj({{"parts", weight_parts(plan.weights)},
                                                          {"host", host},
                                                          {"mtp", mtp},
                                                          {"bytes", weights.bytes}})};
      weights.inputs["mtp_gb"] = bytes_to_gb(mtp);
    } else if (vision > 0) {
      weights.formula = {"formula.model_buffer_vision", obj({{"parts", weight_parts(plan.weights)},
                                                             {"host", host},
                                                             {"vision", vision},
                                                             {"bytes", weights.bytes}})};
      weights.inputs["vision_gb"] = bytes_to_gb(vision);
    } else if (host > 0) {
      weights.formula = {
          "formula.model_buffer",
          obj({{"parts", weight_parts(plan.weights)}, {"host", host}, {"bytes", weights.bytes}})};
    }
    weights.inputs["host_gb"] = bytes_to_gb(host);
  }
  // --split-mode layer (the default) over N cards: each holds a run of
  // layers and their cache; the fullest holds ceil(layers / N).
  const std::int64_t cards = std::max(1, setup.gpus);
  const std::int64_t layers = std::max<std::int64_t>(1, m.num_layers());
  const std::int64_t here = (layers + cards - 1) / cards;
  auto on_card = [&](Term& term) { layer_share(term, cards, here, layers, explain); };
  on_card(weights);
  plan.terms.push_back(std::move(weights));

  // n_ctx cells are shared by all parallel sequences.
  const std::int64_t cells = setup.context * setup.batch;
  const double ubatch = o.at("n_ubatch").get<double>();
  const ModelSpec local = llamacpp_cache_model(m, o);
  const KvCacheSize cache = kv_cache(local, *setup.kv, cells, 1, plan.state);
  Term kv = kv_term(local, *setup.kv, cache, 1, setup, explain);
  kv.label = {"term.kv_buffer"};
  if (explain) kv.inputs["cells"] = cells;
  on_card(kv);
  plan.terms.push_back(std::move(kv));

  const bool flash = o.at("flash_attn").get<bool>();
  if (!flash && setup.kv->bits_per_element < 16 && explain) {
    // llama.cpp refuses to start with a quantized V cache and flash attention off.
    plan.warnings.push_back({"warning.llamacpp_quantized_v", obj({{"kv", setup.kv->name}})});
  }
  const double hidden = ubatch * d(m.hidden_size) * 4.0 * 4.5;
  const double scores = flash ? 0.0 : d(cells) * ubatch * d(m.num_heads) * 4.0;
  const double logits = ubatch * d(m.vocab_size) * 4.0;
  const double compute = std::max(scores + hidden, logits);
  Term buffer{"compute_buffer", {"term.compute_buffer"}, compute, {}, {}};
  if (explain) {
    buffer.formula = {flash ? "formula.compute_buffer_flash" : "formula.compute_buffer",
                      obj({{"cells", cells},
                           {"ubatch", ubatch},
                           {"heads", m.num_heads},
                           {"hidden", m.hidden_size},
                           {"vocab", m.vocab_size},
                           {"bytes", compute}})};
    buffer.inputs = obj({{"n_ubatch", ubatch},
                         {"flash_attn", flash},
                         {"scores_bytes", scores},
                         {"logits_bytes", logits}});
  }
  plan.terms.push_back(std::move(buffer));
  // --mmproj: the vision tower and its clip context, on the first card (vision.cpp).
  push_mmproj(plan, setup, flash, explain);
  if (setup.mtp) {
    // llama.cpp drafts with a GGUF's own MTP layers only under --spec-type draft-mtp
    // (common/arg.cpp), which loads them (mparams.load_mtp, common/common.cpp) and makes a
    // second llama_context on the model with ctx_type LLAMA_CONTEXT_TYPE_MTP (llama-server's
    // load_model, tools/server/server-context.cpp), its cache and compute buffer its own:
    // not sized here, so the plan and its command draft with nothing.
    if (explain) plan.warnings.push_back({"warning.mtp_llamacpp", json::object()});
  } else if (setup.draft != nullptr && !mtp_not_run(plan, setup, "llama.cpp", explain)) {
    // -md with -ngld: the draft on the GPU, one context per slot of the slot's n_ctx, its
    // cache in F16 (--cache-type-k-draft), each with a compute buffer of its own.
    const std::size_t first = plan.terms.size();
    push_draft(plan, setup, 1, 1, *setup.draft_kv, setup.context, setup.batch, explain);
    for (std::size_t i = first; i < plan.terms.size(); ++i) on_card(plan.terms[i]);
    warn_draft_vocab(plan, setup, explain);
    const ModelSpec& dm = *setup.draft;
    const double one = std::max((flash ? 0.0 : d(setup.context) * ubatch * d(dm.num_heads) * 4.0) +
                                    ubatch * d(dm.hidden_size) * 4.0 * 4.5,
                                ubatch * d(dm.vocab_size) * 4.0);
    Term draft_buffer{"draft_compute", {"term.draft_compute"}, one * d(setup.batch), {}, {}};
    if (explain) {
      draft_buffer.formula = {"formula.draft_compute", obj({{"slots", setup.batch},
                                                            {"cells", setup.context},
                                                            {"one", one},
                                                            {"bytes", draft_buffer.bytes}})};
      draft_buffer.inputs = obj({{"n_ubatch", ubatch}, {"flash_attn", flash}});
    }
    plan.terms.push_back(std::move(draft_buffer));
  }
  plan.terms.push_back(
      gib_term("cuda_context", o.at("cuda_context_gib").get<double>(), "outside_ggml", explain));
  // Its buffers are allocated from the card's free memory: what others hold is not, nor a
  // second llama-server's model on the card, whole on the fullest (companion.cpp).
  push_companion(in, plan);
  push_held(plan, setup, 1, explain);
}

/**
 * llama.cpp loads GGUF files, and converts a Hugging Face checkpoint in
 * FP32, BF16, FP16 or MXFP4 to one without quantizing.
 */
bool loads_gguf(const WeightFormat& format) {
  return format.gguf || format.id == "fp32" || format.id == "bf16" || format.id == "fp16" ||
         format.id == "mxfp4";
}

Message llamacpp_format_warning(const WeightFormat& format, const EngineProfile&) {
  return {"warning.llamacpp_format", obj({{"format", format.name}})};
}

}  // namespace

extern const EngineRules kLlamacpp{
    /*kind=*/"llamacpp",
    /*convention=*/false,
    /*paged=*/false,
    /*split=*/"layer",  // --split-mode layer, the default
    /*splits_layers=*/true,
    /*experts_divide_evenly=*/false,
    /*offloads=*/true,
    /*stage_per_card=*/true,
    /*fp8_compute=*/false,
    /*loads=*/loads_gguf,
    /*format_warning=*/llamacpp_format_warning,
    /*plan=*/plan_llamacpp,
    /*state_storage=*/llamacpp_states,
};

}  // namespace engines
}  // namespace vram
