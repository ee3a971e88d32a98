#include "vram/finetune.hpp"

#include <algorithm>
#include <initializer_list>

#include "vram/error.hpp"
#include "vram/inference.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

bool targets(const std::vector<std::string>& list, const char* module) {
  return std::find(list.begin(), list.end(), module) != list.end();
}

/** Which LoRA modules a target list names: looked up once, not per layer and module. */
struct Targeted {
  bool q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, experts;
};

Targeted targeted(const std::vector<std::string>& t) {
  return {targets(t, "q_proj"),    targets(t, "k_proj"),    targets(t, "v_proj"),
          targets(t, "o_proj"),    targets(t, "gate_proj"), targets(t, "up_proj"),
          targets(t, "down_proj"), targets(t, "experts")};
}

/** Widths of the attention projections: in and out of q, k, v and o. */
struct AttentionWidths {
  double q_in, q_out, k_in, k_out, v_in, v_out, o_in, o_out;
};

AttentionWidths attention_widths(const ModelSpec& m, LayerAttention kind) {
  const double h = d(m.hidden_size);
  if (kind == LayerAttention::kMla) {
    // LoRA on MLA: q -> q_b_proj (or q_proj), k -> kv_a_proj_with_mqa,
    // v -> kv_b_proj, o -> o_proj.
    const MlaSpec& a = m.mla;
    const double heads = d(m.num_heads);
    return {a.q_lora_rank > 0 ? d(a.q_lora_rank) : h,
            heads * d(a.qk_nope_head_dim + a.qk_rope_head_dim),
            h,
            d(a.kv_lora_rank + a.qk_rope_head_dim),
            d(a.kv_lora_rank),
            heads * d(a.qk_nope_head_dim + a.v_head_dim),
            heads * d(a.v_head_dim),
            h};
  }
  return {h,
          d(m.num_heads * m.head_dim),
          h,
          d(m.num_kv_heads * m.head_dim),
          h,
          d(m.num_kv_heads * m.v_head_dim),
          d(m.num_heads * m.v_head_dim),
          h};
}

/**
 * Adafactor's second-moment elements over the whole model: rows + cols of
 * every matrix (the embeddings, and the lm_head unless tied), and every
 * element of the 1-D parameters (the norms).
 */
double factored_elements(const ModelSpec& m) {
  const double h = d(m.hidden_size);
  const ParamCount c = count_params(m);
  double total = (c.lm_head > 0 ? 2.0 : 1.0) * (d(m.vocab_size) + h) + c.norms;
  for (const LayerSpec& layer : m.layers) {
    if (layer.attention == LayerAttention::kState) {
      total += 2.0 * (h + d(m.ssm.d_inner));
    } else {
      const AttentionWidths w = attention_widths(m, layer.attention);
      total += w.q_in + w.q_out + w.k_in + w.k_out + w.v_in + w.v_out + w.o_in + w.o_out;
    }
    const double matrices = m.gated_mlp ? 3.0 : 2.0;
    if (layer.mlp == LayerMlp::kDense) {
      total += matrices * (h + d(m.intermediate_size));
    } else {
      total += matrices * d(m.moe.num_experts) * (h + d(m.moe.expert_intermediate));
    }
  }
  return total;
}

/**
 * Bytes one layer saves per token for backward (see activation_size), and
 * the gradient buffers its backward pass adds on top. `frozen` is true for
 * LoRA/QLoRA: a frozen linear layer saves no input unless an adapter sits on
 * it.
 */
struct LayerBytes {
  double saved = 0;
  double transient = 0;
};

LayerBytes layer_bytes_per_token(const FinetuneSetup& s, const LayerSpec& layer, bool frozen,
                                 const Targeted& t) {
  const ModelSpec& m = *s.model;
  const double h = d(m.hidden_size);
  // PEFT runs its adapters in fp32 by default (LoraModel's
  // autocast_adapter_dtype=True casts bf16/fp16 adapter weights to fp32) and
  // casts each adapted module's input to the adapter's dtype
  // (peft/tuners/lora/layer.py, Linear.forward: x = self._cast_input_dtype(x,
  // lora_A.weight.dtype)): lora_A then saves its own fp32 copy of the input,
  // one per adapted module, while the frozen base layer saves none (autograd
  // saves a matmul's input only for its weight's gradient). A bf16 adapter
  // saves the bf16 input itself, shared by the modules that read it.
  const bool fp32_adapters = frozen && s.precision == Precision::kMixed;
  // Bytes saved for the input of `modules` reading one tensor `width` wide.
  auto inputs = [&](double width, std::initializer_list<bool> modules) {
    if (!frozen) return 2.0 * width;
    double adapted = 0;
    for (const bool module : modules) adapted += module ? 1.0 : 0.0;
    if (adapted == 0) return 0.0;
    return fp32_adapters ? 4.0 * width * adapted : 2.0 * width;
  };
  // transformers' RMSNorm (LlamaRMSNorm and its copies) upcasts its input
  // to fp32, and pow(2) saves that copy (4 bytes); with a trained weight,
  // weight * normed also saves the bf16 normalised tensor (2 more).
  double saved = d(m.norms_per_layer) * h * (frozen ? 4.0 : 6.0);
  double transient = 2.0 * h * 2.0;  // gradient of the hidden state in and out
  if (layer.attention == LayerAttention::kState) {
    // Mamba: in_proj output (x and gate), conv output, dt/B/C, scan output.
    const double inner = d(m.ssm.d_inner);
    saved += 2.0 * ((frozen ? 0.0 : h) + 5.0 * inner + d(m.ssm.dt_rank + 2 * m.ssm.d_state));
    transient += 2.0 * 2.0 * inner;
  } else {
    const AttentionWidths w = attention_widths(m, layer.attention);
    saved += inputs(h, {t.q_proj, t.k_proj, t.v_proj});
    // Q, K and V, saved by the attention kernel.
    saved += 2.0 * (w.q_out + d(m.num_kv_heads * m.head_dim) + d(m.num_kv_heads * m.v_head_dim));
    // The flash and efficient SDPA kernels save their output for backward
    // (with the logsumexp), whatever o_proj does; o_proj's input is the
    // contiguous copy transpose(1, 2).reshape makes of it.
    if (s.flash_attention) saved += 2.0 * w.o_in;
    saved += inputs(w.o_in, {t.o_proj});
    if (!s.flash_attention) {
      // Eager attention: softmax in fp32 (kept for its backward) and its bf16
      // copy (kept for the product with V), 6 bytes per score; Gemma 2's
      // soft-capping keeps tanh's bf16 output too, 2 more
      // (Gemma2Attention's eager_attention_forward); the backward adds fp32
      // gradients of the probabilities and of the scores, 8 more.
      const double attended = layer.attention == LayerAttention::kSliding
                                  ? d(std::min(s.seq, m.sliding_window))
                                  : d(s.seq);
      saved += (m.attn_softcapping ? 8.0 : 6.0) * d(m.num_heads) * attended;
      transient += 8.0 * d(m.num_heads) * attended;
    }
  }
  auto mlp = [&](double width, double copies) {
    double bytes = inputs(h, {t.gate_proj, t.up_proj});
    // Gated (SwiGLU, GeGLU): the activation saves the gate's output, the
    // product saves the activation's output and up's, 3 x width; else the
    // activation saves fc1's output.
    bytes += 2.0 * (m.gated_mlp ? 3.0 : 1.0) * width;
    bytes += inputs(width, {t.down_proj});
    saved += copies * bytes;
    transient = std::max(transient, 2.0 * h * 2.0 + copies * 2.0 * 2.0 * width);
  };
  if (layer.mlp == LayerMlp::kDense) {
    mlp(d(m.intermediate_size), 1.0);
  } else {
    const MoeSpec& moe = m.moe;
    saved += 2.0 * h + 4.0 * d(moe.num_experts);  // router input, fp32 router logits
    mlp(d(moe.expert_intermediate), d(moe.experts_per_token));
    if (moe.shared_experts > 0) mlp(d(moe.shared_intermediate), d(moe.shared_experts));
  }
  return {saved, transient};
}

}  // namespace

const char* to_string(FinetuneMethod method) {
  return kFinetuneMethodNames[static_cast<int>(method)];
}
const char* to_string(Optimizer optimizer) { return kOptimizerNames[static_cast<int>(optimizer)]; }
const char* to_string(FinetuneProfile profile) {
  return kFinetuneProfileNames[static_cast<int>(profile)];
}
const char* to_string(Precision precision) { return kPrecisionNames[static_cast<int>(precision)]; }
const char* to_string(Loss loss) { return kLossNames[static_cast<int>(loss)]; }

double lora_params(const ModelSpec& m, std::int64_t rank, const std::vector<std::string>& t) {
  for (const std::string& target : t) {
    if (std::find(std::begin(kLoraModules), std::end(kLoraModules), target) ==
        std::end(kLoraModules)) {
      throw Error(
          "invalid_value", "lora_targets",
          "unknown LoRA target module '" + Error::quote(target) +
              "' (known: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, experts)");
    }
  }
  const double r = d(rank);
  const double h = d(m.hidden_size);
  const Targeted on = targeted(t);
  double count = 0;
  for (const LayerSpec& layer : m.layers) {
    if (layer.attention != LayerAttention::kState) {
      const AttentionWidths w = attention_widths(m, layer.attention);
      if (on.q_proj) count += r * (w.q_in + w.q_out);
      if (on.k_proj) count += r * (w.k_in + w.k_out);
      if (on.v_proj) count += r * (w.v_in + w.v_out);
      if (on.o_proj) count += r * (w.o_in + w.o_out);
    }
    auto ffn = [&](double width, double copies) {
      double c = 0;
      if (m.gated_mlp && on.gate_proj) c += r * (h + width);
      if (on.up_proj) c += r * (h + width);
      if (on.down_proj) c += r * (width + h);
      return copies * c;
    };
    if (layer.mlp == LayerMlp::kDense) {
      count += ffn(d(m.intermediate_size), 1.0);
    } else {
      // Dense targets reach the shared experts; "experts" every routed one.
      count += ffn(d(m.moe.shared_intermediate), d(m.moe.shared_experts));
      if (on.experts) {
        const double matrices = m.gated_mlp ? 3.0 : 2.0;
        count += d(m.moe.num_experts) * matrices * r * (h + d(m.moe.expert_intermediate));
      }
    }
  }
  return count;
}

double optimizer_bytes_per_param(const FinetuneSetup& s, double trainable) {
  // bitsandbytes' 8-bit optimizers quantize each state in blocks of 256
  // elements, each with an fp32 absmax (bitsandbytes/optim/optimizer.py,
  // Optimizer2State.init_state).
  constexpr double kBnbBlock = 256;
  switch (s.optimizer) {
    case Optimizer::kAdamW:
    case Optimizer::kAdamWFused:
      return 8.0;  // two fp32 moments
    case Optimizer::kAdamW8bit:
      return 2.0 * (1.0 + 4.0 / kBnbBlock);  // two uint8 states and their absmax
    case Optimizer::kSgd:
      return s.momentum > 0 ? 4.0 : 0.0;  // one fp32 momentum buffer, if any
    case Optimizer::kAdafactor: {
      if (trainable <= 0) return 0.0;
      if (s.method == FinetuneMethod::kFull) {
        return 4.0 * factored_elements(*s.model) / count_params(*s.model).total();
      }
      // LoRA: A (r x in) keeps r + in, B (out x r) out + r; lora_params is
      // r x (in + out) per matrix, so rows + cols come to about 1/r of the
      // adapter (the 2r per matrix left out is under 1% at r <= 64).
      return 4.0 / d(s.lora_rank);
    }
  }
  return 8.0;
}

double optimizer_step_bytes_per_param(const FinetuneSetup& s, double trainable) {
  if (s.optimizer != Optimizer::kAdamW) return 0.0;
  return optimizer_bytes_per_param(s, trainable) / 2.0;  // one moment
}

double loss_bytes_per_logit(const FinetuneSetup& s) {
  // Gemma 2 caps its logits with tanh before the loss (Gemma2ForCausalLM:
  // logits / cap, tanh, * cap), and tanh keeps its bf16 output until its
  // backward, after the loss's: 2 more bytes per logit at the loss's peak.
  const bool capped = s.model->final_softcapping && s.loss == Loss::kStandard;
  return logit_bytes(s.loss) + (capped ? 2.0 : 0.0);
}

double logit_bytes(Loss loss) {
  switch (loss) {
    case Loss::kChunked:
      return 2.0 + kLogitBytes / 8.0;  // bf16 logits kept, fp32 per chunk
    case Loss::kFused:
      return 0.0;
    case Loss::kStandard:
      break;
  }
  return kLogitBytes;
}

ActivationSize activation_size(const FinetuneSetup& s) {
  const ModelSpec& m = *s.model;
  const bool frozen = s.method != FinetuneMethod::kFull;
  const double tokens = d(s.seq) * d(s.micro_batch);
  ActivationSize a;
  double all_saved = 0;
  double widest_transient = 0;
  const Targeted t = targeted(s.lora_targets);
  for (const LayerSpec& layer : m.layers) {
    const LayerBytes bytes = layer_bytes_per_token(s, layer, frozen, t);
    a.per_layer_bytes = std::max(a.per_layer_bytes, (bytes.saved + bytes.transient) * tokens);
    all_saved += bytes.saved * tokens;
    widest_transient = std::max(widest_transient, bytes.transient * tokens);
  }
  // Each checkpointed layer keeps its input: the residual stream, 2 bytes
  // wide; 4 under QLoRA when PEFT's prepare_model_for_kbit_training has cast
  // the embeddings and norms to fp32 (the embedding's output is fp32, and
  // fp32 + bf16 keeps the residual stream fp32 through every layer).
  a.residual_bytes = s.method == FinetuneMethod::kQlora && s.upcast_unquantized ? 4.0 : 2.0;
  a.checkpoint_bytes =
      s.checkpointing ? d(m.num_layers()) * tokens * d(m.hidden_size) * a.residual_bytes : 0.0;
  a.logits_bytes = tokens * d(m.vocab_size) * loss_bytes_per_logit(s);
  a.saved_bytes = all_saved;
  a.transient_bytes = widest_transient;
  a.stored_bytes = s.checkpointing ? a.checkpoint_bytes : all_saved;
  a.backward_layer_bytes = s.checkpointing ? a.per_layer_bytes : widest_transient;
  // The loss runs its backward before any layer's (and frees its buffers
  // first), so the two never coexist: the larger of them sits on top of what
  // the forward pass stored.
  a.total_bytes = a.stored_bytes + std::max(a.logits_bytes, a.backward_layer_bytes);
  return a;
}

namespace {

/**
 * The caching allocator's reserve: what the device holds beyond the
 * allocator's peak, in blocks it cached and could not reuse (PyTorch's
 * CUDACachingAllocator keeps freed blocks in their segments and splits them
 * for later requests; a request no free block fits gets a new segment). Two
 * sources, each a share of the tensors behind it:
 * - with checkpointing, the blocks freed before the layers are recomputed
 *   (one fp32 copy of the logits, from the loss) and the recomputed
 *   layer's, which the next requests, sized differently, only partly
 *   refill: kReserveFreedShare of both;
 * - a full fine-tune's gradients, one per weight matrix, created during
 *   backward among the fragments the freed activations leave:
 *   kReserveGradientShare of them (a LoRA's adapter gradients are small and
 *   fit the free blocks).
 * Fitted on the 18 H200 device runs (tests/validation/cases/h200-*-device,
 * beside their -allocated pairs), checked on the 11 public device cases
 * (the gpt-oss-20b cookbook, LLaMA-Factory): docs/accuracy.md.
 */
constexpr double kReserveFreedShare = 0.6;
constexpr double kReserveGradientShare = 0.9;

double freed_bytes(const FinetuneSetup& s, const ActivationSize& a) {
  if (!s.checkpointing) return 0.0;
  const double fp32_logits =
      a.logits_bytes > 0 ? a.logits_bytes / loss_bytes_per_logit(s) * 4.0 : 0.0;
  return std::min(fp32_logits, a.logits_bytes) + a.per_layer_bytes;
}

double reserve_gradients(const FinetuneSetup& s, double grads) {
  return s.method == FinetuneMethod::kFull ? grads : 0.0;
}

double allocator_reserve_bytes(const FinetuneSetup& s, const ActivationSize& a, double grads) {
  return kReserveFreedShare * freed_bytes(s, a) +
         kReserveGradientShare * reserve_gradients(s, grads);
}

Message reserve_formula(const FinetuneSetup& s, const ActivationSize& a, double grads,
                        double bytes) {
  return {"formula.ft_reserve", obj({{"freed_share", kReserveFreedShare},
                                     {"freed", freed_bytes(s, a)},
                                     {"grads_share", kReserveGradientShare},
                                     {"grads", reserve_gradients(s, grads)},
                                     {"bytes", bytes}})};
}

void validate_setup(const FinetuneSetup& s) {
  if (s.seq < 1) throw Error("invalid_value", "seq", "seq must be at least 1");
  if (s.micro_batch < 1)
    throw Error("invalid_value", "micro_batch", "micro_batch must be at least 1");
  if (s.method != FinetuneMethod::kFull && s.lora_rank < 1) {
    throw Error("invalid_value", "lora_rank", "lora_rank must be at least 1");
  }
  if (s.method != FinetuneMethod::kFull && s.lora_targets.empty()) {
    throw Error("invalid_value", "lora_targets", "lora_targets must name at least one module");
  }
  if (s.zero < 0 || s.zero > 3) throw Error("invalid_value", "zero", "zero must be 0, 1, 2 or 3");
  if (s.gpus < 1) throw Error("invalid_value", "gpu_count", "gpu_count must be at least 1");
}

/** A term whose formula is `inner` = bytes, or `inner` / GPUs (ZeRO-n) = bytes when sharded. */
Term make_term(const char* id, Message label, double bytes, bool explain, Message inner,
               double shards = 1, int zero = 0, json inputs = json::object()) {
  if (!explain) return {id, std::move(label), bytes, {}, {}};
  Message formula =
      shards > 1 ? Message{"formula.sharded", obj({{"inner", std::move(inner)},
                                                   {"gpus", shards},
                                                   {"zero", zero},
                                                   {"bytes", bytes}})}
                 : Message{"formula.total", obj({{"inner", std::move(inner)}, {"bytes", bytes}})};
  return {id, std::move(label), bytes, std::move(formula), std::move(inputs)};
}

Message on_off(bool on) { return {on ? "word.on" : "word.off"}; }

}  // namespace

FinetunePlan plan_finetune(const FinetuneSetup& s, const FormatCatalog& formats, bool explain) {
  validate_setup(s);
  const ModelSpec& m = *s.model;
  FinetunePlan plan;
  plan.params = param_totals(m);
  const double P = plan.params.total;
  const double n = s.gpus;
  const bool guide = s.profile == FinetuneProfile::kGuide;
  const bool full = s.method == FinetuneMethod::kFull;

  // --- what is stored, and what trains --------------------------------------
  double weight_bpp = 2.0;  // bf16
  Message weight_format{"format.named", obj({{"name", "BF16"}})};
  if (!full) {
    plan.adapter_params = lora_params(m, s.lora_rank, s.lora_targets);
    plan.trainable_params = plan.adapter_params;
    if (s.method == FinetuneMethod::kQlora) {
      if (guide) {
        weight_bpp = 0.5;
        weight_format = {"format.guide_4bit"};
      } else {
        const WeightFormat& nf4 = formats.weight("nf4", "finetune");
        weight_bpp = nf4.bytes_per_param();
        weight_format = {"format.with_constants",
                         obj({{"name", nf4.name}, {"bits", nf4.bits_per_weight}})};
      }
    } else if (s.base_format != nullptr && !guide) {
      weight_bpp = s.base_format->bytes_per_param();
      weight_format = {"format.named", obj({{"name", s.base_format->name}})};
    }
  } else {
    plan.trainable_params = P;
  }

  // QLoRA (physical): bitsandbytes quantizes only the linear layers; the
  // embeddings, lm_head, norms and router stay 16-bit, or 32-bit after
  // PEFT's prepare_model_for_kbit_training.
  double base_bytes = P * weight_bpp;
  Message base_formula{
      "formula.ft_params",
      obj({{"params", P}, {"bytes_per_param", weight_bpp}, {"format", weight_format}})};
  // LoRA over a base in a format that covers the linear layers only (int8,
  // fp8, ...): the same split, the rest 16-bit.
  const bool linear_only = s.method == FinetuneMethod::kQlora ||
                           (s.method == FinetuneMethod::kLora && s.base_format != nullptr &&
                            s.base_format->covers == "linear");
  if (linear_only && !guide && !plan.params.total_declared) {
    const ParamCount& c = plan.params.computed;
    const double kept = c.embedding + c.lm_head + c.norms + c.router + c.extras;
    const bool qlora = s.method == FinetuneMethod::kQlora;
    const double kept_bpp = qlora && s.upcast_unquantized ? 4.0 : 2.0;
    base_bytes = (P - kept) * weight_bpp + kept * kept_bpp;
    base_formula = {"formula.ft_qlora_base", obj({{"linear", P - kept},
                                                  {"bytes_per_param", weight_bpp},
                                                  {"format", weight_format},
                                                  {"kept", kept},
                                                  {"kept_bytes", kept_bpp}})};
  }

  const double T = plan.trainable_params;
  const bool pure = s.precision == Precision::kBf16;
  // Pure BF16 keeps moments in 16 bits: half of the FP32 figures (8-bit stays 8-bit).
  double moments = optimizer_bytes_per_param(s, T);
  if (pure && s.optimizer != Optimizer::kAdamW8bit) moments /= 2.0;
  // Full fine-tune: BF16 weights and gradients, FP32 master copy + moments.
  // LoRA: FP32 adapter weights and gradients, moments; no master copy.
  // Pure BF16: everything 2 bytes, no master copy.
  const double adapter_bpp = pure ? 2.0 : 4.0;
  const Message adapter_format{"format.named", obj({{"name", pure ? "BF16" : "FP32"}})};
  const double grad_bpp = full ? 2.0 : adapter_bpp;
  const double master_bpp = full && !pure ? 4.0 : 0.0;
  double weights_gpu = full ? 2.0 * P : base_bytes;
  double adapter_gpu = full ? 0.0 : adapter_bpp * T;
  double grads = grad_bpp * T;
  double optimizer = (master_bpp + moments) * T;
  const double optimizer_total = optimizer;
  // ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer state, 2 also
  // gradients, 3 also the weights, over the data-parallel GPUs.
  const double shards_1 = s.zero >= 1 ? n : 1;
  const double shards_2 = s.zero >= 2 ? n : 1;
  const double shards_3 = s.zero >= 3 ? n : 1;
  optimizer /= shards_1;
  grads /= shards_2;
  weights_gpu /= shards_3;
  adapter_gpu /= shards_3;
  if (s.offload_optimizer) {
    plan.host_bytes = optimizer_total;  // ZeRO-Offload: states and master copy in host RAM
    optimizer = 0;
  }
  plan.weights_bytes = weights_gpu;
  plan.adapter_bytes = adapter_gpu;
  plan.gradients_bytes = grads;
  plan.optimizer_bytes = optimizer;

  plan.terms.push_back(
      make_term("weights", {full ? "term.weights_bf16" : "term.frozen_base"}, weights_gpu, explain,
                base_formula, shards_3, s.zero,
                obj({{"params", P}, {"bytes_per_param", full ? 2.0 : weight_bpp}})));
  if (!full) {
    plan.terms.push_back(make_term(
        "adapter", {"term.adapter", obj({{"format", adapter_format}})}, adapter_gpu, explain,
        {"formula.ft_adapter", obj({{"params", T},
                                    {"rank", s.lora_rank},
                                    {"share", 100.0 * T / P},
                                    {"bytes_per_param", adapter_bpp}})},
        shards_3, s.zero,
        obj({{"adapter_params", T}, {"rank", s.lora_rank}, {"targets", s.lora_targets}})));
  }
  // The guide sums every term; the physical profile counts the gradients
  // where they appear, in the backward pass (below).
  if (guide) {
    plan.terms.push_back(
        make_term("gradients", {"term.gradients"}, grads, explain,
                  {"formula.ft_trainable", obj({{"params", T}, {"bytes_per_param", grad_bpp}})},
                  shards_2, s.zero, obj({{"bytes_per_param", grad_bpp}})));
  }
  plan.terms.push_back(make_term(
      "optimizer", {"term.optimizer"}, optimizer, explain,
      s.offload_optimizer
          ? Message{"formula.ft_offloaded", obj({{"host", optimizer_total}})}
          : Message{"formula.ft_optimizer", obj({{"params", T},
                                                 {"master", master_bpp},
                                                 {"state", moments},
                                                 {"optimizer", Message{std::string("optimizer.") +
                                                                       to_string(s.optimizer)}}})},
      s.offload_optimizer ? 1 : shards_1, s.zero,
      obj({{"optimizer", to_string(s.optimizer)},
           {"master_bytes", master_bpp},
           {"state_bytes", moments}})));

  if (guide && full) {
    // The guide: 16 bytes per parameter, then +15% for activations and
    // fragmentation, whatever the sequence.
    const double states = weights_gpu + grads + optimizer;
    constexpr double kGuideExtraPercent = 15.0;
    const double extra = kGuideExtraPercent / 100.0 * states;
    plan.activations.total_bytes = extra;
    plan.terms.push_back(make_term(
        "activations", {"term.activations_guide"}, extra, explain,
        {"formula.ft_guide_extra", obj({{"pct", kGuideExtraPercent}, {"states", states}})}));
    plan.overhead_bytes = 0;
    plan.allocator_peak_bytes = states + extra;
  } else {
    plan.activations = activation_size(s);
    const ActivationSize& a = plan.activations;
    const json activation_inputs = obj({{"seq", s.seq},
                                        {"micro_batch", s.micro_batch},
                                        {"checkpointing", s.checkpointing},
                                        {"flash_attention", s.flash_attention},
                                        {"per_layer_gb", bytes_to_gb(a.per_layer_bytes)}});
    const Message logits_formula{
        "formula.ft_logits", obj({{"seq", s.seq},
                                  {"batch", s.micro_batch},
                                  {"vocab", m.vocab_size},
                                  {"bytes_per_logit", loss_bytes_per_logit(s)},
                                  {"loss", Message{std::string("loss.") + to_string(s.loss)}}})};
    if (guide) {
      // The guide's LoRA and QLoRA rows: every term summed, 2 GB of runtime.
      const double summed = a.stored_bytes + a.backward_layer_bytes;
      plan.terms.push_back(make_term(
          "activations", {"term.activations"}, summed, explain,
          s.checkpointing ? Message{"formula.ft_checkpointed", obj({{"layers", m.num_layers()},
                                                                    {"inputs", a.checkpoint_bytes},
                                                                    {"layer", a.per_layer_bytes},
                                                                    {"seq", s.seq},
                                                                    {"batch", s.micro_batch}})}
                          : Message{"formula.ft_saved", obj({{"saved", a.saved_bytes},
                                                             {"transient", a.transient_bytes},
                                                             {"seq", s.seq},
                                                             {"batch", s.micro_batch}})},
          1, 0, activation_inputs));
      plan.terms.push_back(
          make_term("logits", {"term.logits"}, a.logits_bytes, explain, logits_formula));
      plan.overhead_bytes = s.overhead_set ? s.overhead_bytes : 2e9;
      plan.terms.push_back(
          make_term("overhead", {"term.overhead"}, plan.overhead_bytes, explain,
                    {s.overhead_set ? "formula.ft_overhead_set" : "formula.ft_overhead_guide",
                     obj({{"bytes", plan.overhead_bytes}})}));
      plan.allocator_peak_bytes =
          weights_gpu + adapter_gpu + grads + optimizer + summed + a.logits_bytes;
    } else {
      // The allocator's peak (physical): what the forward pass stored, then
      // the largest of the loss's buffers, the layer in backward, and the
      // gradients as they appear. zero_grad() sets gradients to None
      // (torch.optim.Optimizer.zero_grad, set_to_none=True since PyTorch
      // 2.0), so each is created during backward as the activations it
      // needs are freed; at the end of backward every gradient exists and
      // only the last layer's activations remain.
      // The optimizer's step runs once backward has freed every activation.
      double step = s.offload_optimizer ? 0.0 : optimizer_step_bytes_per_param(s, T) * T / shards_1;
      if (pure) step /= 2.0;
      plan.step_bytes = step;
      const double after_loss = std::max(
          {a.stored_bytes + a.backward_layer_bytes, grads + a.backward_layer_bytes, grads + step});
      const double backward = std::max(0.0, after_loss - a.stored_bytes - a.logits_bytes);
      plan.backward_bytes = backward;
      plan.terms.push_back(make_term(
          "activations", {"term.activations"}, a.stored_bytes, explain,
          s.checkpointing
              ? Message{"formula.ft_stored_checkpointed", obj({{"layers", m.num_layers()},
                                                               {"hidden", m.hidden_size},
                                                               {"element_bytes", a.residual_bytes},
                                                               {"seq", s.seq},
                                                               {"batch", s.micro_batch}})}
              : Message{"formula.ft_stored_saved",
                        obj({{"saved", a.saved_bytes}, {"seq", s.seq}, {"batch", s.micro_batch}})},
          1, 0, activation_inputs));
      plan.terms.push_back(
          make_term("logits", {"term.logits"}, a.logits_bytes, explain, logits_formula));
      plan.terms.push_back(make_term("backward", {"term.backward"}, backward, explain,
                                     {"formula.ft_backward", obj({{"layer", a.backward_layer_bytes},
                                                                  {"grads", grads},
                                                                  {"step", step},
                                                                  {"stored", a.stored_bytes},
                                                                  {"loss", a.logits_bytes}})},
                                     1, 0,
                                     obj({{"gradients_gb", bytes_to_gb(grads)},
                                          {"layer_gb", bytes_to_gb(a.backward_layer_bytes)},
                                          {"step_gb", bytes_to_gb(step)}})));
      plan.allocator_peak_bytes =
          weights_gpu + adapter_gpu + optimizer + a.stored_bytes + a.logits_bytes + backward;
      plan.overhead_bytes = s.overhead_set ? s.overhead_bytes : s.context_bytes;
      plan.terms.push_back(
          make_term("overhead", {"term.overhead"}, plan.overhead_bytes, explain,
                    {s.overhead_set ? "formula.ft_overhead_set" : "formula.ft_overhead",
                     obj({{"bytes", plan.overhead_bytes}})}));
      plan.reserve_bytes = allocator_reserve_bytes(s, a, grads);
      plan.terms.push_back(make_term("reserve", {"term.reserve"}, plan.reserve_bytes, explain,
                                     reserve_formula(s, a, grads, plan.reserve_bytes)));
    }
  }
  for (const Term& term : plan.terms) plan.total_bytes += term.bytes;

  if (explain) {
    auto& a = plan.assumptions;
    a.push_back({"assumption.finetune_setup",
                 obj({{"method", Message{std::string("mode.") + to_string(s.method)}},
                      {"profile", Message{std::string("profile.") + to_string(s.profile)}},
                      {"precision", Message{std::string("precision.") + to_string(s.precision)}},
                      {"optimizer", Message{std::string("optimizer.") + to_string(s.optimizer)}},
                      {"seq", s.seq},
                      {"micro_batch", s.micro_batch},
                      {"checkpointing", on_off(s.checkpointing)},
                      {"flash_attention", on_off(s.flash_attention)}})});
    if (!full) {
      // Bytes per adapter parameter: its weight, its gradient and its optimizer state.
      a.push_back({"assumption.lora", obj({{"rank", s.lora_rank},
                                           {"targets", s.lora_targets},
                                           {"params", T},
                                           {"share", 100.0 * T / P},
                                           {"format", adapter_format},
                                           {"bytes", adapter_bpp + grad_bpp + moments}})});
    }
    if (s.gpus > 1 || s.zero > 0) {
      a.push_back({"assumption.zero", obj({{"zero", s.zero}, {"gpus", s.gpus}})});
    }
    if (guide) {
      a.push_back({"assumption.finetune_guide"});
    } else {
      a.push_back({"assumption.finetune_total",
                   obj({{"peak", plan.allocator_peak_bytes}, {"reserve", plan.reserve_bytes}})});
    }
  }
  return plan;
}

}  // namespace vram
