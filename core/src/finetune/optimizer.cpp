// Optimizer state per trainable parameter, one function per optimizer, as
// each library allocates it (vram/finetune.hpp: optimizer_bytes_per_param).
#include <algorithm>

#include "sizing.hpp"
#include "vram/params.hpp"

namespace vram {

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

/**
 * torch.optim.SGD: state["momentum_buffer"] only when momentum != 0, a clone
 * of the gradient (torch/optim/sgd.py, _init_group and _multi_tensor_sgd);
 * with momentum 0 (the Trainer's optim="sgd": torch.optim.SGD(params, lr))
 * the step is one _foreach_add_ of the gradients, no state at all.
 */
double sgd_state_bytes(double momentum) { return momentum > 0 ? 4.0 : 0.0; }

/**
 * transformers.optimization.Adafactor with the Trainer's arguments
 * (optim="adafactor": beta1=None, scale_parameter=False,
 * relative_step=False). In src/transformers/optimization.py
 * (huggingface/transformers at 005edacb), class Adafactor (line 688):
 * _get_options (816-818) gives `factored = len(param_shape) >= 2` and
 * `use_first_moment = param_group["beta1"] is not None`; step() casts the
 * gradient first (851-852: `grad = grad.float()` for FP16 and BF16) and makes
 * the state `.to(grad)` (868-871), so always FP32: no exp_avg,
 * exp_avg_sq_row (shape[:-1]) and exp_avg_sq_col (shape[-1]) for a matrix,
 * a full exp_avg_sq for a 1-D parameter.
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

/** The elements of the model's largest single parameter (a full fine-tune's). */
double largest_parameter(const ModelSpec& m) {
  const double h = d(m.hidden_size);
  double largest = d(m.vocab_size) * h;  // the embedding, and the lm_head unless tied
  for (const LayerSpec& layer : m.layers) {
    if (layer.attention == LayerAttention::kState) {
      largest = std::max(largest, h * d(m.ssm.d_inner));
    } else {
      const finetune::AttentionWidths w = finetune::attention_widths(m, layer.attention);
      largest = std::max(
          {largest, w.q_in * w.q_out, w.k_in * w.k_out, w.v_in * w.v_out, w.o_in * w.o_out});
    }
    const double width = layer.mlp == LayerMlp::kDense
                             ? d(m.intermediate_size)
                             : std::max(d(m.moe.expert_intermediate), d(m.moe.shared_intermediate));
    largest = std::max(largest, h * width);
  }
  return largest;
}

/** The elements of the largest LoRA matrix: rank x the widest targeted in or out. */
double largest_adapter(const FinetuneSetup& s) {
  const ModelSpec& m = *s.model;
  const finetune::Targeted on = finetune::targeted(s.lora_targets);
  double widest = 0;
  for (const LayerSpec& layer : m.layers) {
    if (layer.attention != LayerAttention::kState) {
      const finetune::AttentionWidths w = finetune::attention_widths(m, layer.attention);
      if (on.q_proj) widest = std::max({widest, w.q_in, w.q_out});
      if (on.k_proj) widest = std::max({widest, w.k_in, w.k_out});
      if (on.v_proj) widest = std::max({widest, w.v_in, w.v_out});
      if (on.o_proj) widest = std::max({widest, w.o_in, w.o_out});
    }
    const bool mlp = on.gate_proj || on.up_proj || on.down_proj;
    if (layer.mlp == LayerMlp::kDense) {
      if (mlp) widest = std::max({widest, d(m.hidden_size), d(m.intermediate_size)});
    } else {
      if (mlp && m.moe.shared_experts > 0) {
        widest = std::max({widest, d(m.hidden_size), d(m.moe.shared_intermediate)});
      }
      if (on.experts) widest = std::max({widest, d(m.hidden_size), d(m.moe.expert_intermediate)});
    }
  }
  return d(s.lora_rank) * widest;
}

double adafactor_step_bytes(const FinetuneSetup& s) {
  // Adafactor.step() (optimization.py at 005edacb, lines 834-925) goes
  // through the parameters one at a time (847), so its buffers are the
  // largest parameter's (n elements), all FP32. Under pure BF16 the
  // parameters and gradients are BF16 and the step holds copies of both
  // (852: `grad = grad.float()`, 885: `p_data_fp32 = p_data_fp32.float()`);
  // under mixed precision they are FP32 already and those lines make no
  // copy. On top, two update-sized tensors at once: 892, `update =
  // (grad**2) + group["eps"][0]` (grad**2, then the sum); 901, `update =
  // self._approx_sq_grad(...)` (a new torch.mul, 831) beside the old
  // update; 920, `p_data_fp32.add_(-update)` (-update beside update). The
  // previous parameter's update, freed when `update` is rebound, is left
  // out: the largest matrices, the embedding and the lm_head, come first
  // and last.
  const double n =
      s.method == FinetuneMethod::kFull ? largest_parameter(*s.model) : largest_adapter(s);
  return 4.0 * n * finetune::adafactor_step_buffers(s);
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

int adafactor_step_buffers(const FinetuneSetup& s) {
  return s.precision == Precision::kBf16 ? 4 : 2;  // the casts' two copies, and the update's two
}

double state_bytes_per_param(const FinetuneSetup& s, double trainable) {
  double moments = optimizer_bytes_per_param(s, trainable);
  // Pure BF16: torch's AdamW and SGD make their state like the parameter
  // (zeros_like, clone), 16 bits: half of the FP32 figures. 8-bit stays
  // 8-bit, and Adafactor's is FP32 whatever the parameter (made .to(grad)
  // after grad.float()).
  const bool like_param =
      s.optimizer != Optimizer::kAdamW8bit && s.optimizer != Optimizer::kAdafactor;
  if (s.precision == Precision::kBf16 && like_param) moments /= 2.0;
  return moments;
}

double step_bytes(const FinetuneSetup& s, double trainable, double optimizer_shards) {
  if (s.offload_optimizer) return 0.0;  // the step runs on the host
  // FSDP and ZeRO-3 shard each parameter, so the largest one's buffers too.
  if (s.optimizer == Optimizer::kAdafactor) return adafactor_step_bytes(s) / optimizer_shards;
  double step = optimizer_step_bytes_per_param(s, trainable) * trainable / optimizer_shards;
  if (s.precision == Precision::kBf16) step /= 2.0;
  return step;
}

}  // namespace finetune

}  // namespace vram
