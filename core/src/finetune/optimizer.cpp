// Optimizer state per trainable parameter, one function per optimizer, as
// each library allocates it (vram/finetune.hpp: optimizer_bytes_per_param).
#include "sizing.hpp"
#include "vram/params.hpp"

namespace vram {

using finetune::d;

namespace {

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
      const finetune::AttentionWidths w = finetune::attention_widths(m, layer.attention);
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

/** torch.optim.AdamW (foreach or fused): exp_avg and exp_avg_sq, two fp32 moments. */
double adamw_state_bytes() { return 8.0; }

/**
 * bitsandbytes' 8-bit AdamW: two uint8 states, each quantized in blocks of
 * 256 elements with an fp32 absmax per block (bitsandbytes/optim/optimizer.py,
 * Optimizer2State.init_state).
 */
double adamw_8bit_state_bytes() {
  constexpr double kBnbBlock = 256;
  return 2.0 * (1.0 + 4.0 / kBnbBlock);
}

/** torch.optim.SGD: one fp32 momentum_buffer, only when momentum > 0. */
double sgd_state_bytes(double momentum) { return momentum > 0 ? 4.0 : 0.0; }

/**
 * transformers.optimization.Adafactor (beta1=None): no first moment; a
 * factored fp32 second moment per matrix (exp_avg_sq_row/_col), a full one
 * per 1-D parameter.
 */
double adafactor_state_bytes(const FinetuneSetup& s, double trainable) {
  if (trainable <= 0) return 0.0;
  if (s.method == FinetuneMethod::kFull) {
    return 4.0 * factored_elements(*s.model) / count_params(*s.model).total();
  }
  // LoRA: A (r x in) keeps r + in, B (out x r) out + r; lora_params is
  // r x (in + out) per matrix, so rows + cols come to about 1/r of the
  // adapter (the 2r per matrix left out is under 1% at r <= 64).
  return 4.0 / d(s.lora_rank);
}

}  // namespace

double optimizer_bytes_per_param(const FinetuneSetup& s, double trainable) {
  switch (s.optimizer) {
    case Optimizer::kAdamW:
    case Optimizer::kAdamWFused:
      return adamw_state_bytes();
    case Optimizer::kAdamW8bit:
      return adamw_8bit_state_bytes();
    case Optimizer::kSgd:
      return sgd_state_bytes(s.momentum);
    case Optimizer::kAdafactor:
      return adafactor_state_bytes(s, trainable);
  }
  return 8.0;
}

double optimizer_step_bytes_per_param(const FinetuneSetup& s, double trainable) {
  if (s.optimizer != Optimizer::kAdamW) return 0.0;
  return optimizer_bytes_per_param(s, trainable) / 2.0;  // one moment
}

namespace finetune {

double state_bytes_per_param(const FinetuneSetup& s, double trainable) {
  double moments = optimizer_bytes_per_param(s, trainable);
  // Pure BF16 keeps moments in 16 bits: half of the FP32 figures (8-bit stays 8-bit).
  if (s.precision == Precision::kBf16 && s.optimizer != Optimizer::kAdamW8bit) moments /= 2.0;
  return moments;
}

double step_bytes(const FinetuneSetup& s, double trainable, double optimizer_shards) {
  if (s.offload_optimizer) return 0.0;  // the step runs on the host
  double step = optimizer_step_bytes_per_param(s, trainable) * trainable / optimizer_shards;
  if (s.precision == Precision::kBf16) step /= 2.0;
  return step;
}

}  // namespace finetune

}  // namespace vram
