#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vram/format.hpp"
#include "vram/kv_cache.hpp"
#include "vram/model.hpp"
#include "vram/params.hpp"

namespace vram {

/** How runtime overhead (CUDA context, framework, fragmentation) is counted. */
struct Overhead {
  enum class Kind {
    kFlat,     ///< a fixed amount per process: the guide's 2 GB
    kPercent,  ///< a share of weights + KV cache: the planner's 10%
  };
  Kind kind = Kind::kFlat;
  double flat_bytes = 2e9;
  double percent = 10;
};

/** Parameters stored in one format. */
struct WeightPart {
  std::string component;  ///< its message is part.<component>: "all", "linear", "rest", "experts",
                          ///< "non_expert"
  double params = 0;
  const WeightFormat* format = nullptr;
  double bytes = 0;
};

/** Resident weights: every parameter loaded, in the format it is stored in. */
struct WeightsSize {
  double bytes = 0;
  bool native = false;  ///< sized in the checkpoint's own storage
  std::vector<WeightPart> parts;

  /** The routed experts are stored as MXFP4 (gpt-oss): vLLM lays them out by its MoE backend. */
  bool mxfp4_experts() const;
};

/** Parameter totals the estimate uses, with where they came from. */
struct ParamTotals {
  ParamCount computed;
  double total = 0;   ///< resident parameters
  double active = 0;  ///< used per token
  bool total_declared = false;
  bool active_declared = false;
};

ParamTotals param_totals(const ModelSpec& model);

/**
 * Weights in a single format: params x bits_per_weight / 8 (SPEC section 1).
 * Size MoE models by total, not active, parameters: every expert is resident.
 */
WeightsSize weights_uniform(const ParamTotals& params, const WeightFormat& format);

/**
 * Weights in a format chosen by name. A format that covers the linear
 * layers only (WeightFormat::covers, data/formats.json) stores the
 * attention, MLP, expert and state-space projections in it; the embeddings,
 * output head, norms, router and extras stay in the checkpoint's own dtype
 * (its 16- or 32-bit float, else BF16). A model declared by its totals alone
 * has no such split and is sized uniformly.
 */
WeightsSize weights_in_format(const ModelSpec& model, const ParamTotals& params,
                              const WeightFormat& format, const FormatCatalog& formats);

/**
 * Weights as the checkpoint stores them: a quantized checkpoint keeps its
 * embeddings, norms and router in `torch_dtype`; an experts-only format
 * (gpt-oss MXFP4) applies to routed and shared experts alone.
 */
WeightsSize weights_native(const ModelSpec& model, const ParamTotals& params,
                           const FormatCatalog& formats);

/**
 * Bits per resident parameter of a checkpoint stored quantized (a native
 * format other than a 16- or 32-bit float, or an experts' format: gpt-oss's
 * MXFP4 experts, 4.46 bits a parameter); nullopt for one stored in a plain
 * float.
 */
std::optional<double> quantized_stored_bits(const ModelSpec& model, const FormatCatalog& formats);

/**
 * Never wider than the checkpoint, the one rule every answer keeps: nullptr
 * (size the weights as stored) when `asked` has more bits per weight than a
 * quantized checkpoint stores (FP8 for gpt-oss: re-quantizing MXFP4 to FP8
 * adds memory and no quality); else `asked`.
 */
const WeightFormat* no_wider_than_stored(const ModelSpec& model, const WeightFormat* asked,
                                         const FormatCatalog& formats);

double overhead_bytes(const Overhead& overhead, double weights_bytes, double kv_bytes);

}  // namespace vram
