// LoRA's adapter parameters: rank x (in + out) per targeted matrix, per layer.
#include <algorithm>
#include <iterator>

#include "sizing.hpp"
#include "vram/error.hpp"

namespace vram {

namespace {

void check_targets(const std::vector<std::string>& t) {
  for (const std::string& target : t) {
    if (std::find(std::begin(kLoraModules), std::end(kLoraModules), target) ==
        std::end(kLoraModules)) {
      throw Error::make("invalid_value", "lora_targets", "error.lora_target_unknown",
                        obj({{"id", Error::quote(target)},
                             {"known", std::vector<std::string>(std::begin(kLoraModules),
                                                                std::end(kLoraModules))}}));
    }
  }
}

/** The adapters on one layer's attention projections, added to `count`. */
void add_attention_adapters(const ModelSpec& m, const LayerSpec& layer,
                            const finetune::Targeted& on, double r, double& count) {
  if (layer.attention == LayerAttention::kState) return;
  const finetune::AttentionWidths w = finetune::attention_widths(m, layer.attention);
  if (on.q_proj) count += r * (w.q_in + w.q_out);
  if (on.k_proj) count += r * (w.k_in + w.k_out);
  if (on.v_proj) count += r * (w.v_in + w.v_out);
  if (on.o_proj) count += r * (w.o_in + w.o_out);
}

/** The adapters on `copies` MLPs `width` wide: gate (when gated), up, down. */
double mlp_adapters(const ModelSpec& m, const finetune::Targeted& on, double r, double width,
                    double copies) {
  const double h = d(m.hidden_size);
  double c = 0;
  if (m.gated_mlp && on.gate_proj) c += r * (h + width);
  if (on.up_proj) c += r * (h + width);
  if (on.down_proj) c += r * (width + h);
  return copies * c;
}

}  // namespace

double lora_params(const ModelSpec& m, std::int64_t rank, const std::vector<std::string>& t) {
  check_targets(t);
  const double r = d(rank);
  const double h = d(m.hidden_size);
  const finetune::Targeted on = finetune::targeted(t);
  double count = 0;
  for (const LayerSpec& layer : m.layers) {
    add_attention_adapters(m, layer, on, r, count);
    if (layer.mlp == LayerMlp::kDense) {
      count += mlp_adapters(m, on, r, d(m.intermediate_size), 1.0);
    } else {
      // Dense targets reach the shared experts; "experts" every routed one.
      count += mlp_adapters(m, on, r, d(m.moe.shared_intermediate), d(m.moe.shared_experts));
      if (on.experts) {
        const double matrices = m.gated_mlp ? 3.0 : 2.0;
        count += d(m.moe.num_experts) * matrices * r * (h + d(m.moe.expert_intermediate));
      }
    }
  }
  return count;
}

}  // namespace vram
