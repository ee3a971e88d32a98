// Activations of one micro-batch (vram/finetune.hpp: activation_size): what
// each layer saves for backward, mechanism by mechanism, what checkpointing
// keeps instead, and the loss's buffers.
#include <algorithm>
#include <initializer_list>

#include "sizing.hpp"

namespace vram {

namespace {

/**
 * Bytes one layer saves per token for backward, and the gradient buffers
 * its backward pass adds on top.
 */
struct LayerBytes {
  double saved = 0;
  double transient = 0;
};

/**
 * How an adapted module's input is saved: the tensor lora_A reads, which
 * autograd saves for the adapter's weight gradient.
 * - kFp32PerModule: LoRA with fp32 adapters (PEFT's default,
 *   autocast_adapter_dtype=True). PEFT's Linear casts each adapted module's
 *   input to the adapter's dtype (peft/tuners/lora/layer.py, Linear.forward:
 *   x = self._cast_input_dtype(x, lora_A.weight.dtype)): one fp32 copy per
 *   adapted module, 4 bytes.
 * - kShared: bf16 adapters: the modules read the bf16 tensor as it is and
 *   save it once, 2 bytes.
 * - kBf16PerModule: QLoRA over the fp32 residual stream of PEFT's
 *   prepare_model_for_kbit_training (upcast_unquantized: the norms' outputs
 *   are fp32). PEFT's 4-bit layer casts only when autocast is off
 *   (peft/tuners/lora/bnb.py, Linear4bit.forward: requires_conversion = not
 *   torch.is_autocast_enabled()), and a QLoRA plan runs under the Trainer's
 *   BF16 autocast (its launch sets bf16=True; accelerate's
 *   Accelerator.prepare_model wraps forward in torch.autocast): autocast
 *   casts the fp32 input to bf16 at each lora_A, one 2-byte copy per module.
 * QLoRA without the upcast (LLaMA-Factory prepares its models itself) is
 * counted as LoRA is, although by the same source its adapters would share
 * the bf16 input under autocast: counted so, LLaMA-Factory's QLoRA sweep
 * falls 7% under at 4k tokens (its fixed part is 0.3-0.5 GB short for a
 * reason its page does not let us pin down; docs/accuracy.md), past that
 * case's tolerance, while its 32k run comes within 4%.
 * A frozen base layer saves no input (autograd saves a matmul's input only
 * for its weight's gradient; bitsandbytes' MatMul4Bit keeps no input).
 */
enum class AdapterInput { kFp32PerModule, kShared, kBf16PerModule };

AdapterInput adapter_input(const FinetuneSetup& s) {
  if (s.method == FinetuneMethod::kQlora && s.upcast_unquantized) {
    return AdapterInput::kBf16PerModule;
  }
  return s.precision == Precision::kMixed ? AdapterInput::kFp32PerModule : AdapterInput::kShared;
}

/**
 * Bytes saved for the input of the modules reading one tensor. `frozen` is
 * true for LoRA/QLoRA; a full fine-tune's layers save their bf16 input once.
 */
struct Inputs {
  bool frozen;
  AdapterInput adapter;
  double residual = 2.0;      ///< bytes per element of the residual stream and its gradient
  double intermediate = 2.0;  ///< bytes per element of the MLP's intermediates

  double operator()(double width, std::initializer_list<bool> modules) const {
    if (!frozen) return 2.0 * width;
    double adapted = 0;
    for (const bool module : modules) adapted += module ? 1.0 : 0.0;
    if (adapted == 0) return 0.0;
    switch (adapter) {
      case AdapterInput::kFp32PerModule:
        return 4.0 * width * adapted;
      case AdapterInput::kBf16PerModule:
        return 2.0 * width * adapted;
      case AdapterInput::kShared:
        break;
    }
    return 2.0 * width;
  }
};

/**
 * Each checkpointed layer keeps its input: the residual stream, 2 bytes
 * wide; 4 under QLoRA when PEFT's prepare_model_for_kbit_training has cast
 * the embeddings and norms to fp32 (the embedding's output is fp32, and
 * fp32 + bf16 keeps the residual stream fp32 through every layer).
 */
double residual_bytes_per_element(const FinetuneSetup& s) {
  return s.method == FinetuneMethod::kQlora && s.upcast_unquantized ? 4.0 : 2.0;
}

/**
 * Bytes per element of the MLP's intermediate tensors. Under QLoRA's upcast
 * the residual stream is fp32, and bitsandbytes' Linear4bit returns its
 * output in its input's dtype (bitsandbytes/nn/modules.py, Linear4bit.forward:
 * matmul_4bit(...).to(inp_dtype)): gate and up read the fp32 norm output, so
 * their outputs, SiLU's and the product are fp32, 4 bytes.
 */
double intermediate_bytes(const FinetuneSetup& s) {
  return s.method == FinetuneMethod::kQlora && s.upcast_unquantized ? 4.0 : 2.0;
}

/** The hidden state's gradient in and out of a layer, `residual` bytes each way. */
double hidden_gradient_bytes(const ModelSpec& m, double residual) {
  return 2.0 * d(m.hidden_size) * residual;
}

/**
 * transformers' RMSNorm (LlamaRMSNorm and its copies) upcasts its input to
 * fp32, and pow(2) saves that copy (4 bytes); with a trained weight,
 * weight * normed also saves the bf16 normalised tensor (2 more).
 */
double norm_saved_bytes(const ModelSpec& m, bool frozen) {
  return d(m.norms_per_layer) * d(m.hidden_size) * (frozen ? 4.0 : 6.0);
}

/** Mamba: in_proj output (x and gate), conv output, dt/B/C, scan output. */
void add_state_mixer(const ModelSpec& m, bool frozen, LayerBytes& b) {
  const double h = d(m.hidden_size);
  const double inner = d(m.ssm.d_inner);
  b.saved += 2.0 * ((frozen ? 0.0 : h) + 5.0 * inner + d(m.ssm.dt_rank + 2 * m.ssm.d_state));
  b.transient += 2.0 * 2.0 * inner;
}

/**
 * Eager attention: softmax in fp32 (kept for its backward) and its bf16
 * copy (kept for the product with V), 6 bytes per score; Gemma 2's
 * soft-capping keeps tanh's bf16 output too, 2 more
 * (Gemma2Attention's eager_attention_forward); the backward adds fp32
 * gradients of the probabilities and of the scores, 8 more.
 */
void add_eager_scores(const FinetuneSetup& s, const LayerSpec& layer, LayerBytes& b) {
  const ModelSpec& m = *s.model;
  const double attended =
      layer.attention == LayerAttention::kSliding ? d(std::min(s.seq, m.sliding_window)) : d(s.seq);
  b.saved += (m.attn_softcapping ? 8.0 : 6.0) * d(m.num_heads) * attended;
  b.transient += 8.0 * d(m.num_heads) * attended;
}

/** Attention: q/k/v's input, Q, K and V, the kernel's output, o_proj's input. */
void add_attention(const FinetuneSetup& s, const LayerSpec& layer, const Inputs& inputs,
                   const finetune::Targeted& t, LayerBytes& b) {
  const ModelSpec& m = *s.model;
  const finetune::AttentionWidths w = finetune::attention_widths(m, layer.attention);
  b.saved += inputs(d(m.hidden_size), {t.q_proj, t.k_proj, t.v_proj});
  // Q, K and V, saved by the attention kernel.
  b.saved += 2.0 * (w.q_out + d(m.num_kv_heads * m.head_dim) + d(m.num_kv_heads * m.v_head_dim));
  // The flash and efficient SDPA kernels save their output for backward
  // (with the logsumexp), whatever o_proj does; o_proj's input is the
  // contiguous copy transpose(1, 2).reshape makes of it.
  if (s.flash_attention) b.saved += 2.0 * w.o_in;
  b.saved += inputs(w.o_in, {t.o_proj});
  if (!s.flash_attention) add_eager_scores(s, layer, b);
}

/**
 * `copies` MLPs `width` wide: gate and up's input; gated (SwiGLU, GeGLU):
 * the activation saves the gate's output, the product saves the
 * activation's output and up's, 3 x width, else the activation saves fc1's
 * output; down's input.
 */
void add_mlp(const ModelSpec& m, const Inputs& inputs, const finetune::Targeted& t, double width,
             double copies, LayerBytes& b) {
  const double h = d(m.hidden_size);
  double bytes = inputs(h, {t.gate_proj, t.up_proj});
  bytes += inputs.intermediate * (m.gated_mlp ? 3.0 : 1.0) * width;
  bytes += inputs(width, {t.down_proj});
  b.saved += copies * bytes;
  b.transient =
      std::max(b.transient, 2.0 * h * inputs.residual + copies * 2.0 * inputs.intermediate * width);
}

/** MoE: the router's input and fp32 logits, k routed experts, the shared ones. */
void add_experts(const ModelSpec& m, const Inputs& inputs, const finetune::Targeted& t,
                 LayerBytes& b) {
  const MoeSpec& moe = m.moe;
  b.saved += 2.0 * d(m.hidden_size) + 4.0 * d(moe.num_experts);
  add_mlp(m, inputs, t, d(moe.expert_intermediate), d(moe.experts_per_token), b);
  if (moe.shared_experts > 0) {
    add_mlp(m, inputs, t, d(moe.shared_intermediate), d(moe.shared_experts), b);
  }
}

LayerBytes layer_bytes_per_token(const FinetuneSetup& s, const LayerSpec& layer, bool frozen,
                                 const finetune::Targeted& t) {
  const ModelSpec& m = *s.model;
  const Inputs inputs{frozen, adapter_input(s), residual_bytes_per_element(s),
                      intermediate_bytes(s)};
  LayerBytes b{norm_saved_bytes(m, frozen), hidden_gradient_bytes(m, inputs.residual)};
  if (layer.attention == LayerAttention::kState) {
    add_state_mixer(m, frozen, b);
  } else {
    add_attention(s, layer, inputs, t, b);
  }
  if (layer.mlp == LayerMlp::kDense) {
    add_mlp(m, inputs, t, d(m.intermediate_size), 1.0, b);
  } else {
    add_experts(m, inputs, t, b);
  }
  return b;
}

/** Under gradient checkpointing: every layer's input, `residual` bytes per element. */
double checkpoint_bytes(const FinetuneSetup& s, double tokens, double residual) {
  const ModelSpec& m = *s.model;
  return s.checkpointing ? d(m.num_layers()) * tokens * d(m.hidden_size) * residual : 0.0;
}

/** The loss's buffers at its backward: s x b x vocab x loss_bytes_per_logit. */
double loss_bytes(const FinetuneSetup& s, double tokens) {
  return tokens * d(s.model->vocab_size) * loss_bytes_per_logit(s);
}

/**
 * Under QLoRA's upcast the LM head is fp32 (prepare_model_for_kbit_training
 * casts every parameter that is not 4-bit to fp32; bitsandbytes leaves the
 * head unquantized), and the Trainer's BF16 autocast casts it to bf16 at
 * each call: autocast caches its casts only for weights that require grad
 * (aten/src/ATen/autocast_mode.cpp, cached_cast: arg.requires_grad() &&
 * arg.is_leaf()), and the frozen head's copy is what the matmul saves for
 * its input's gradient, held from the logits' forward through the loss's
 * backward: vocab x hidden x 2 bytes, whatever the sequence. A fused or
 * chunked loss casts it per chunk, a transient at the same moment.
 */
double head_copy_bytes(const FinetuneSetup& s) {
  const ModelSpec& m = *s.model;
  if (s.method != FinetuneMethod::kQlora || !s.upcast_unquantized) return 0.0;
  return d(m.vocab_size) * d(m.hidden_size) * 2.0;
}

}  // namespace

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
  const finetune::Targeted t = finetune::targeted(s.lora_targets);
  for (const LayerSpec& layer : m.layers) {
    const LayerBytes bytes = layer_bytes_per_token(s, layer, frozen, t);
    a.per_layer_bytes = std::max(a.per_layer_bytes, (bytes.saved + bytes.transient) * tokens);
    all_saved += bytes.saved * tokens;
    widest_transient = std::max(widest_transient, bytes.transient * tokens);
  }
  a.residual_bytes = residual_bytes_per_element(s);
  a.checkpoint_bytes = checkpoint_bytes(s, tokens, a.residual_bytes);
  a.logits_bytes = loss_bytes(s, tokens);
  a.head_copy_bytes = head_copy_bytes(s);
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

}  // namespace vram
