// Model states per GPU by method: the base's weights (full: BF16 and
// trained; LoRA: frozen, in its format; QLoRA: NF4), the adapter, the
// gradients and the optimizer's state, sharded by ZeRO.
#include "sizing.hpp"

namespace vram::finetune {

namespace {

/**
 * QLoRA's base (Dettmers et al. 2023): bitsandbytes' NF4 with its constants
 * (data/formats.json, "nf4"), or the guide's 0.5 bytes per parameter.
 */
BaseWeights qlora_base(const FinetuneSetup& s, const FormatCatalog& formats) {
  BaseWeights b;
  if (s.profile == FinetuneProfile::kGuide) {
    b.format = BaseFormat::kGuide4Bit;
    b.bytes_per_param = 0.5;
  } else {
    b.format = BaseFormat::kNf4;
    b.named = &formats.weight("nf4", "finetune");
    b.bytes_per_param = b.named->bytes_per_param();
  }
  return b;
}

/** LoRA's base: BF16, or the request's format (the guide counts BF16 whatever it is). */
BaseWeights lora_base(const FinetuneSetup& s) {
  BaseWeights b;
  if (s.base_format != nullptr && s.profile != FinetuneProfile::kGuide) {
    b.format = BaseFormat::kNamed;
    b.named = s.base_format;
    b.bytes_per_param = s.base_format->bytes_per_param();
  }
  return b;
}

/**
 * A base whose format covers the linear layers only: bitsandbytes quantizes
 * only QLoRA's linear layers (and int8, fp8, ... cover only those under
 * LoRA); the embeddings, lm_head, norms and router stay 16-bit, or 32-bit
 * after PEFT's prepare_model_for_kbit_training. Not under the guide, nor
 * for a model whose total is stated rather than counted.
 */
bool splits_linear(const FinetuneSetup& s, const ParamTotals& params) {
  const bool linear_only = s.method == FinetuneMethod::kQlora ||
                           (s.method == FinetuneMethod::kLora && s.base_format != nullptr &&
                            s.base_format->covers == "linear");
  return linear_only && s.profile != FinetuneProfile::kGuide && !params.total_declared;
}

BaseWeights base_weights(const FinetuneSetup& s, const FormatCatalog& formats,
                         const ParamTotals& params) {
  BaseWeights b;  // full: BF16
  if (s.method == FinetuneMethod::kQlora) b = qlora_base(s, formats);
  if (s.method == FinetuneMethod::kLora) b = lora_base(s);
  const double P = params.total;
  b.bytes = P * b.bytes_per_param;
  if (splits_linear(s, params)) {
    const ParamCount& c = params.computed;
    b.split = true;
    b.kept_params = c.embedding + c.lm_head + c.norms + c.router + c.extras;
    b.linear_params = P - b.kept_params;
    b.kept_bytes_per_param = s.method == FinetuneMethod::kQlora && s.upcast_unquantized ? 4.0 : 2.0;
    b.bytes = (P - b.kept_params) * b.bytes_per_param + b.kept_params * b.kept_bytes_per_param;
  }
  return b;
}

/** ZeRO (Rajbhandari et al. 2020): stage 1 shards the optimizer's state, 2 also the
 * gradients, 3 also the weights, over the data-parallel GPUs. */
Shards shards(const FinetuneSetup& s) {
  const double n = s.gpus;
  return {s.zero >= 1 ? n : 1, s.zero >= 2 ? n : 1, s.zero >= 3 ? n : 1};
}

bool full(const FinetuneSetup& s) { return s.method == FinetuneMethod::kFull; }
bool pure_bf16(const FinetuneSetup& s) { return s.precision == Precision::kBf16; }

// Bytes per trainable parameter. Mixed precision (Micikevicius et al. 2018;
// ZeRO, Rajbhandari et al. 2020, section 3: 2 + 2 + 12 bytes per parameter
// under Adam): a full fine-tune trains BF16 weights with BF16 gradients and
// keeps an FP32 master copy beside the moments. LoRA: PEFT's adapters are
// FP32 (LoraModel's autocast_adapter_dtype=True), their gradients too, and
// need no master copy. Pure BF16 (torchtune's and PEFT's pure-bf16
// recipes): everything 2 bytes, no master copy.

double adapter_bytes_per_param(const FinetuneSetup& s) { return pure_bf16(s) ? 2.0 : 4.0; }

double gradient_bytes_per_param(const FinetuneSetup& s) {
  return full(s) ? 2.0 : adapter_bytes_per_param(s);
}

double master_bytes_per_param(const FinetuneSetup& s) {
  return full(s) && !pure_bf16(s) ? 4.0 : 0.0;
}

// Bytes on each GPU, sharded as ZeRO's stage says.

/** The weights: a full fine-tune's BF16 copy, or the frozen base in its format. */
double weights_bytes(const FinetuneSetup& s, const States& st) {
  return (full(s) ? 2.0 * st.params.total : st.base.bytes) / st.shards.weights;
}

/** LoRA's adapter weights, sharded with the weights. */
double adapter_bytes(const FinetuneSetup& s, const States& st) {
  return (full(s) ? 0.0 : st.adapter_bytes_per_param * st.trainable_params) / st.shards.weights;
}

double gradients_bytes(const States& st) {
  return st.gradient_bytes_per_param * st.trainable_params / st.shards.gradients;
}

/** The optimizer's state with the master copy, before sharding. */
double optimizer_state_bytes(const States& st) {
  return (st.master_bytes_per_param + st.state_bytes_per_param) * st.trainable_params;
}

}  // namespace

States size_states(const FinetuneSetup& s, const FormatCatalog& formats) {
  States st;
  st.params = param_totals(*s.model);
  if (s.method == FinetuneMethod::kFull) {
    st.trainable_params = st.params.total;
  } else {
    st.adapter_params = lora_params(*s.model, s.lora_rank, s.lora_targets);
    st.trainable_params = st.adapter_params;
    st.adapter_share_pct = 100.0 * st.trainable_params / st.params.total;
  }
  st.base = base_weights(s, formats, st.params);
  st.state_bytes_per_param = state_bytes_per_param(s, st.trainable_params);
  st.adapter_bytes_per_param = adapter_bytes_per_param(s);
  st.gradient_bytes_per_param = gradient_bytes_per_param(s);
  st.master_bytes_per_param = master_bytes_per_param(s);
  st.lora_bytes_per_param =
      st.adapter_bytes_per_param + st.gradient_bytes_per_param + st.state_bytes_per_param;
  st.shards = shards(s);
  st.weights_bytes = weights_bytes(s, st);
  st.adapter_bytes = adapter_bytes(s, st);
  st.gradients_bytes = gradients_bytes(st);
  st.optimizer_unsharded_bytes = optimizer_state_bytes(st);
  st.optimizer_bytes = st.optimizer_unsharded_bytes / st.shards.optimizer;
  if (s.offload_optimizer) {
    st.host_bytes =
        st.optimizer_unsharded_bytes;  // ZeRO-Offload: states and master copy in host RAM
    st.optimizer_bytes = 0;
  }
  return st;
}

}  // namespace vram::finetune
