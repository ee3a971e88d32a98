// A vision-language model's images on the cards: each image is
// VisionSpec::tokens_per_image tokens of the context (the KV cache sizes
// them with the text), and the engine holds the vision tower's work beside
// the language model.
//
// vLLM V1: the encoder cache holds the tower's output embeddings, its budget
// max(max_num_batched_tokens, the most tokens one item takes) embeddings
// (vllm/v1/core/encoder_cache_manager.py, compute_mm_encoder_budget), and
// the profiling run forwards max(1, min(budget // tokens per item,
// max_num_seqs x images per prompt)) dummy images through the tower before
// the text pass, keeping their outputs (vllm/v1/worker/gpu_model_runner.py,
// profile_run): both come off the KV cache.
//
// A tower that takes any resolution (Qwen3-VL's, VisionSpec::dynamic): vLLM
// sizes both for the most tokens one image may take, from the processor's
// max_pixels (vllm/model_executor/models/qwen2_vl.py
// Qwen2VLProcessingInfo.get_image_size_with_most_features and
// get_max_image_tokens; Qwen3VLProcessingInfo._get_vision_info takes
// --mm-processor-kwargs' min_pixels and max_pixels over the processor's
// size), 16,384 tokens at Qwen3.5's 16,777,216 pixels. The command carries
// the request's resized image as max_pixels (launch.cpp), so what vLLM
// reserves is that image's tokens, and a larger image is scaled down to them.
//
// llama.cpp: the model's GGUF leaves the tower out; --mmproj loads it from
// its own file (F16 as converted), and the clip context reserves a compute
// buffer for one image of the tower's size (tools/mtmd/clip.cpp, warmup),
// with flash attention where the backend runs it. A tower of any resolution
// is refused there (error.mmproj_dynamic): clip.cpp resizes Qwen3-VL's images
// within its own bounds (8 to 4,096 tokens, set_limit_image_tokens) and warms
// up on 46 x 46 tokens (set_warmup_n_tokens), not the processor's rule.

#include <algorithm>
#include <cmath>

#include "common.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

// The tower runs in the model's 16-bit type under vLLM; the mmproj file is F16.
constexpr double kSixteenBit = 2.0;
// ggml's activations are F32.
constexpr double kF32 = 4.0;

/** Pixels a side of the image the tower takes: its fixed size, or the request's resized. */
std::int64_t image_side(const InferenceSetup& setup) {
  return setup.image_grid.tokens > 0 ? setup.image_grid.height : setup.model->vision.image_size;
}

}  // namespace

double push_vllm_vision(InferencePlan& plan, const InferenceSetup& setup, const json& options,
                        double activations, bool explain) {
  if (setup.images <= 0 || setup.image_tokens <= 0) return 0;
  const ModelSpec& m = *setup.model;
  const VisionSpec& v = m.vision;
  const double batched = options.at("max_num_batched_tokens").get<double>();
  const double seqs = options.at("max_num_seqs").get<double>();
  const double per_item = d(setup.image_tokens);
  // The cache's embeddings are the language model's hidden width, whole on every card.
  const double embeds = std::max(batched, per_item);
  const double cache = embeds * d(m.hidden_size) * kSixteenBit;
  Term cache_term{"encoder_cache", {"term.encoder_cache"}, cache, {}, {}};
  if (explain) {
    cache_term.formula = {"formula.encoder_cache", obj({{"embeds", embeds},
                                                        {"hidden", m.hidden_size},
                                                        {"width", kSixteenBit},
                                                        {"bytes", cache}})};
    cache_term.inputs = obj({{"max_num_batched_tokens", batched},
                             {"tokens_per_image", setup.image_tokens},
                             {"images", setup.images}});
  }
  plan.terms.push_back(std::move(cache_term));
  // The profile's dummy images through the tower: per patch, the residual and
  // the MLP's input, its two intermediate tensors (split by TP as vLLM's
  // SigLIP shards its MLP, and Qwen3-VL's: qwen3_vl.py Qwen3_VisionMLP,
  // Column- and RowParallelLinear); freed before the text pass, so only what
  // exceeds that pass's peak is more.
  const double items =
      std::max(1.0, std::min(std::floor(embeds / per_item), seqs * d(setup.images)));
  const double per_patch =
      (2.0 * d(v.hidden_size) + 2.0 * d(v.intermediate_size) / d(plan.tensor_parallel)) *
      kSixteenBit;
  const double tower = items * d(setup.image_patches) * per_patch;
  const double peak = std::max(0.0, tower - activations);
  Term peak_term{"vision_peak", {"term.vision_peak"}, peak, {}, {}};
  if (explain) {
    peak_term.formula = {"formula.vision_peak", obj({{"items", items},
                                                     {"patches", setup.image_patches},
                                                     {"per_patch", per_patch},
                                                     {"text", activations},
                                                     {"bytes", peak}})};
    peak_term.inputs = obj({{"dummy_images", items},
                            {"image_size", image_side(setup)},
                            {"patch_size", v.patch_size},
                            {"tower_gb", bytes_to_gb(tower)}});
  }
  plan.terms.push_back(std::move(peak_term));
  return cache + peak;
}

double vision_weight_bytes(const InferencePlan& plan, const InferenceSetup& setup) {
  const double count = vision_params(*setup.model);
  // A checkpoint's own tensors are what its files hold.
  if (!(count > 0) || (setup.weights == nullptr && setup.checkpoint != nullptr)) return 0;
  // Quantizers leave the tower in the part they keep ("rest"); a uniform format takes it whole.
  for (const WeightPart& part : plan.weights.parts) {
    if (std::string(part.component) == "rest" && part.params > 0) {
      return count * part.bytes / part.params;
    }
  }
  return plan.params.total > 0 ? count * plan.weights.bytes / plan.params.total : 0.0;
}

void push_mmproj(InferencePlan& plan, const InferenceSetup& setup, bool flash, bool explain) {
  if (setup.images <= 0 || setup.image_tokens <= 0) return;
  const ModelSpec& m = *setup.model;
  const VisionSpec& v = m.vision;
  if (v.dynamic) {
    throw Error::make("not_applicable", "images", "error.mmproj_dynamic", obj({{"model", m.name}}));
  }
  const double count = vision_params(m);
  const double weights = count * kSixteenBit;
  Term file{"mmproj", {"term.mmproj"}, weights, {}, {}};
  if (explain) {
    file.formula = {"formula.mmproj",
                    obj({{"params", count}, {"width", kSixteenBit}, {"bytes", weights}})};
    file.inputs = obj({{"params", count}});
  }
  plan.terms.push_back(std::move(file));
  // One image's graph in F32: without flash attention every head's scores,
  // patches x patches; the residual, MLP input and its two intermediates.
  const double patches = d(v.patches());
  const double scores = flash ? 0.0 : d(v.heads) * patches * patches * kF32;
  const double hidden = patches * (2.0 * d(v.hidden_size) + 2.0 * d(v.intermediate_size)) * kF32;
  const double compute = scores + hidden;
  Term buffer{"mmproj_compute", {"term.mmproj_compute"}, compute, {}, {}};
  if (explain) {
    buffer.formula = {"formula.mmproj_compute", obj({{"patches", v.patches()},
                                                     {"heads", v.heads},
                                                     {"scores", scores},
                                                     {"hidden", hidden},
                                                     {"bytes", compute}})};
    buffer.inputs = obj(
        {{"flash_attn", flash}, {"image_size", image_side(setup)}, {"patch_size", v.patch_size}});
  }
  plan.terms.push_back(std::move(buffer));
}

}  // namespace vram::engines
