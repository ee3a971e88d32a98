// vLLM's MXFP4 MoE backends: the bytes they keep beyond the checkpoint's
// MXFP4 expert weights (gpt-oss). vLLM loads the experts into parameters
// padded for its kernel, then reorders them (and their scales and biases)
// into the kernel's layout; what stays resident is not the checkpoint's
// bytes. Read in vLLM's source:
//   vllm/model_executor/layers/quantization/mxfp4.py (get_mxfp4_backend,
//     Mxfp4MoEMethod.create_weights, process_weights_after_loading),
//   vllm/model_executor/layers/quantization/utils/mxfp4_utils.py (_swizzle_mxfp4),
//   vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py
//     (prepare_moe_fp4_layer_for_marlin),
// and triton_kernels (v3.5.0, the version vLLM's docs install):
//   tensor_details/layout_details/hopper_value.py, hopper_scale.py.

#include <algorithm>

#include "common.hpp"
#include "vram/error.hpp"
#include "vram/field.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }

/** MXFP4: two 4-bit values a byte, one 8-bit scale per 32 values. */
constexpr std::int64_t kBlock = 32;

/**
 * Bytes of one expert's gate/up (w13: 2I x H) and down (w2: H x I)
 * projections, scales and biases as vLLM lays them out, at the padded
 * widths `h` and `i`: values 1/2 byte, scales 1 byte per 32 values, biases
 * `bias_bytes` each.
 */
double plain_expert_bytes(std::int64_t h, std::int64_t i, bool bias, double bias_bytes) {
  const double values = d(2 * i * h / 2 + h * i / 2);
  const double scales = d(2 * i * ceil_div(h, kBlock) + h * ceil_div(i, kBlock));
  const double biases = bias ? d(2 * i + h) * bias_bytes : 0.0;
  return values + scales + biases;
}

/**
 * triton_kernels' Hopper layouts (v3.5.0). Values: HopperMXValueLayout
 * swizzles each (N x K/2)-byte matrix in mma tiles, padding N to 16 and K/2
 * to 32 (mma v3: k_tile x warp_tile x threads x scott_trick x contig, 1x2x4x2x1
 * and 4x2x4x1x1). Scales: HopperMXScaleLayout pads N to 2 x num_warps x 2 x 8
 * rows (num_warps 8 outside batched MoE, mxfp4.py) and K/32 to 2.
 */
constexpr std::int64_t kHopperValueRows = 16;
constexpr std::int64_t kHopperValueBytes = 32;
constexpr std::int64_t kHopperScaleRows = 2 * 8 * 2 * 8;
constexpr std::int64_t kHopperScaleCols = 2;

double hopper_values(std::int64_t n, std::int64_t k) {
  return d(round_up(n, kHopperValueRows) * round_up(ceil_div(k, 2), kHopperValueBytes));
}
double hopper_scales(std::int64_t n, std::int64_t k) {
  return d(round_up(n, kHopperScaleRows) * round_up(ceil_div(k, kBlock), kHopperScaleCols));
}

}  // namespace

const char* backend_name(Mxfp4Backend backend) {
  switch (backend) {
    case Mxfp4Backend::kMarlin:
      return "marlin";
    case Mxfp4Backend::kTriton:
      return "triton";
    case Mxfp4Backend::kFlashinfer:
      return "flashinfer";
    case Mxfp4Backend::kNone:
      break;
  }
  return "none";
}

namespace {

/** An SM100 card (B200, B300): Blackwell with HBM; SM120 Blackwell (RTX 5090, RTX PRO 6000) has
 * GDDR7. */
bool sm100(const Gpu& gpu) {
  return gpu.architecture.rfind("Blackwell", 0) == 0 && gpu.memory_type.rfind("HBM", 0) == 0;
}

/** triton_kernels' range: "(9, 0) <= current_platform.get_device_capability() < (11, 0)". */
bool sm90_to_sm100(const Gpu& gpu) { return gpu.architecture == "Hopper" || sm100(gpu); }

const char* product_name(Mxfp4Backend backend) {
  switch (backend) {
    case Mxfp4Backend::kMarlin:
      return "Marlin";
    case Mxfp4Backend::kTriton:
      return "Triton";
    case Mxfp4Backend::kFlashinfer:
      return "FlashInfer";
    case Mxfp4Backend::kNone:
      break;
  }
  return "";
}

}  // namespace

/**
 * get_mxfp4_backend (mxfp4.py), by the card: SM100 Blackwell (B200, B300:
 * HBM) with FlashInfer, the SM100_FI_MXFP4_BF16 default; Hopper (SM90) with
 * triton_kernels (vLLM's image installs them): Triton; Ampere, Ada and SM120
 * Blackwell (GDDR7: RTX 5090, RTX PRO 6000), outside triton_kernels' SM90 to
 * SM100 range: Marlin. Off CUDA (ROCm's Triton path, Metal): not modelled.
 */
Mxfp4Backend vllm_mxfp4_backend(const Gpu* gpu) {
  if (gpu == nullptr || gpu->stack != "cuda") return Mxfp4Backend::kNone;
  if (gpu->architecture == "Hopper") return Mxfp4Backend::kTriton;
  if (sm100(*gpu)) return Mxfp4Backend::kFlashinfer;
  return Mxfp4Backend::kMarlin;
}

Mxfp4Backend mxfp4_backend_named(const std::string& name) {
  if (name == "marlin") return Mxfp4Backend::kMarlin;
  if (name == "triton") return Mxfp4Backend::kTriton;
  if (name == "flashinfer") return Mxfp4Backend::kFlashinfer;
  return Mxfp4Backend::kNone;  // "auto": the card's (vllm_mxfp4_backend)
}

void check_mxfp4_backend(Mxfp4Backend backend, const Gpu* gpu) {
  if (backend == Mxfp4Backend::kNone || gpu == nullptr) return;  // no card: nothing to refuse
  // Triton: "triton_kernels are only confirmed to work on SM90 and SM100" (mxfp4.py); the
  // FlashInfer layout modelled is SM100_FI_MXFP4_BF16's ("is_device_capability_family(100)").
  const char* why = gpu->stack != "cuda"                                       ? "needs_cuda"
                    : backend == Mxfp4Backend::kTriton && !sm90_to_sm100(*gpu) ? "needs_sm90_sm100"
                    : backend == Mxfp4Backend::kFlashinfer && !sm100(*gpu)     ? "needs_sm100"
                                                                               : nullptr;
  if (why == nullptr) return;
  const std::string field = "engine_options.mxfp4_backend";
  throw Error::make("invalid_value", field, "error.mxfp4_backend_card",
                    obj({{"backend", product_name(backend)},
                         {"gpu", gpu->name},
                         {"why", Message{std::string("mxfp4_backend.") + why}}}));
}

Mxfp4ExpertBytes mxfp4_expert_bytes(Mxfp4Backend backend, std::int64_t hidden,
                                    std::int64_t intermediate, bool bias) {
  Mxfp4ExpertBytes out;
  out.hidden = hidden;
  out.intermediate = intermediate;
  // The checkpoint's tensors: unpadded, BF16 biases.
  out.checkpoint = plain_expert_bytes(hidden, intermediate, bias, 2.0);
  out.kept = out.checkpoint;
  switch (backend) {
    case Mxfp4Backend::kMarlin: {
      // create_weights: "n % 256 == 0 and k % 128 == 0": I to 128, H to 256;
      // prepare_moe_fp4_layer_for_marlin repacks the values (same bytes),
      // turns the scales to float8_e8m0 (1 byte) and keeps BF16 biases.
      out.hidden = round_up(hidden, 256);
      out.intermediate = round_up(intermediate, 128);
      out.kept = plain_expert_bytes(out.hidden, out.intermediate, bias, 2.0);
      break;
    }
    case Mxfp4Backend::kTriton: {
      // create_weights pads I to 64; process_weights_after_loading swizzles
      // the values (the unswizzled ones are deleted), keeps the loaded
      // scales as the layer's parameters beside their swizzled copy, and
      // turns the biases to FP32.
      const std::int64_t h = hidden;
      const std::int64_t i = round_up(intermediate, 64);
      out.intermediate = i;
      const double values = hopper_values(2 * i, h) + hopper_values(h, i);
      const double loaded_scales = d(2 * i * ceil_div(h, kBlock) + h * ceil_div(i, kBlock));
      const double swizzled_scales = hopper_scales(2 * i, h) + hopper_scales(h, i);
      const double biases = bias ? d(2 * i + h) * 4.0 : 0.0;
      out.kept = values + loaded_scales + swizzled_scales + biases;
      break;
    }
    case Mxfp4Backend::kFlashinfer: {
      // SM100_FI_MXFP4_BF16: I and H to 256; values and scales shuffled in
      // place of the loaded ones (same bytes), FP32 biases, and three FP32
      // SwiGLU constants (alpha, beta, clamp limit) per expert.
      out.hidden = round_up(hidden, 256);
      out.intermediate = round_up(intermediate, 256);
      out.kept = plain_expert_bytes(out.hidden, out.intermediate, bias, 4.0) + 3.0 * 4.0;
      break;
    }
    case Mxfp4Backend::kNone:
      break;
  }
  return out;
}

double push_mxfp4_layout(InferencePlan& plan, const ModelSpec& model, std::int64_t layers,
                         const Gpu* gpu, const json& options, bool explain) {
  if (!model.is_moe() || !plan.weights.mxfp4_experts()) return 0.0;
  // The knob: "auto" takes the card's backend; a backend named is the one the server
  // ran (its log) or was made to run, refused where the card cannot run it.
  const std::string asked =
      options.contains("mxfp4_backend") ? options.at("mxfp4_backend").get<std::string>() : kAuto;
  const bool by_card = asked == kAuto;
  const Mxfp4Backend backend = by_card ? vllm_mxfp4_backend(gpu) : mxfp4_backend_named(asked);
  check_mxfp4_backend(backend, gpu);
  if (backend == Mxfp4Backend::kNone) return 0.0;
  // The experts on one card: whole ones under expert parallelism, each
  // expert's width split over the MoE group (TP x DP) otherwise (paged.cpp's
  // paged_weights_term).
  const int group = plan.tensor_parallel * plan.data_parallel;
  const std::int64_t experts =
      plan.expert_parallel ? experts_per_gpu(model, group) : model.moe.num_experts;
  const std::int64_t width =
      plan.expert_parallel ? model.moe.expert_intermediate : model.moe.expert_intermediate / group;
  std::int64_t moe_layers = 0;
  for (std::int64_t l = 0; l < std::min<std::int64_t>(layers, model.num_layers()); ++l) {
    moe_layers += model.layers[static_cast<std::size_t>(l)].mlp == LayerMlp::kMoe;
  }
  const Mxfp4ExpertBytes per =
      mxfp4_expert_bytes(backend, model.hidden_size, width, model.moe.expert_bias);
  const double bytes = std::max(0.0, d(moe_layers * experts) * (per.kept - per.checkpoint));
  Term term{"mxfp4_layout", {"term.mxfp4_layout"}, bytes, {}, {}};
  if (explain) {
    term.formula = {
        "formula.mxfp4_layout",
        obj({{"layers", moe_layers},
             {"experts", experts},
             {"kept", per.kept},
             {"checkpoint", per.checkpoint},
             {"backend", Message{by_card ? "mxfp4_backend.by_card" : "mxfp4_backend.asked",
                                 obj({{"backend", Message{std::string("mxfp4_backend.") +
                                                          backend_name(backend)}}})}},
             {"bytes", bytes}})};
    term.inputs = obj({{"backend", backend_name(backend)},
                       {"hidden", model.hidden_size},
                       {"expert_width", width},
                       {"hidden_padded", per.hidden},
                       {"expert_width_padded", per.intermediate},
                       {"moe_layers", moe_layers},
                       {"experts_on_card", experts}});
  }
  plan.terms.push_back(std::move(term));
  return bytes;
}

}  // namespace vram::engines
