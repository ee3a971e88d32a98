#include "vram/inference.hpp"

#include <algorithm>

namespace vram {

ParamTotals param_totals(const ModelSpec& model) {
  ParamTotals totals;
  totals.computed = count_params(model);
  totals.total = totals.computed.total();
  totals.active = totals.computed.active();
  if (model.declared_params_total > 0) {
    totals.total = model.declared_params_total;
    totals.total_declared = true;
    // A dense model declared by its total alone is active in full.
    if (!model.is_moe() && model.declared_params_active <= 0) totals.active = totals.total;
  }
  if (model.declared_params_active > 0) {
    totals.active = model.declared_params_active;
    totals.active_declared = true;
  }
  return totals;
}

bool WeightsSize::mxfp4_experts() const {
  return std::any_of(parts.begin(), parts.end(), [](const WeightPart& p) {
    return p.component == "experts" && p.format != nullptr && p.format->id == "mxfp4";
  });
}

WeightsSize weights_uniform(const ParamTotals& params, const WeightFormat& format) {
  WeightsSize size;
  size.bytes = params.total * format.bytes_per_param();
  size.parts.push_back({"all", params.total, &format, size.bytes});
  return size;
}

namespace {

/** Parameters in the linear layers: what AWQ, GPTQ, bitsandbytes and the like quantize. */
double linear_params(const ParamCount& c) {
  return c.attention + c.mlp_dense + c.experts_routed + c.experts_shared + c.ssm;
}

void add_part(WeightsSize& size, const char* component, double count, const WeightFormat& format) {
  if (count <= 0) return;
  const double bytes = count * format.bytes_per_param();
  size.parts.push_back({component, count, &format, bytes});
  size.bytes += bytes;
}

}  // namespace

WeightsSize weights_in_format(const ModelSpec& model, const ParamTotals& params,
                              const WeightFormat& format, const FormatCatalog& formats) {
  if (format.covers == "all" || params.total_declared) return weights_uniform(params, format);
  const WeightFormat& native = formats.weight(model.native_format, "model.native_format");
  const bool plain_float = native.id == "bf16" || native.id == "fp16" || native.id == "fp32";
  const WeightFormat& keep = plain_float ? native : formats.weight("bf16", "model.native_format");
  const ParamCount& c = params.computed;
  const double linear = linear_params(c);
  WeightsSize size;
  add_part(size, "linear", linear, format);
  add_part(size, "rest", c.total() - linear, keep);
  return size;
}

WeightsSize weights_native(const ModelSpec& model, const ParamTotals& params,
                           const FormatCatalog& formats) {
  const WeightFormat& base = formats.weight(model.native_format, "model.native_format");
  WeightsSize size;
  size.native = true;
  const ParamCount& c = params.computed;
  const bool plain_float = base.id == "bf16" || base.id == "fp16" || base.id == "fp32";
  if (params.total_declared || (plain_float && model.native_expert_format.empty())) {
    size = weights_uniform(params, base);
    size.native = true;
    return size;
  }
  // The store format of the parts quantizers leave alone (embeddings,
  // norms, router, vision tower): 16-bit.
  const WeightFormat& keep = formats.weight("bf16", "model.native_format");
  auto add = [&size](const char* component, double count, const WeightFormat& format) {
    add_part(size, component, count, format);
  };
  if (!model.native_expert_format.empty()) {
    const WeightFormat& experts =
        formats.weight(model.native_expert_format, "model.native_expert_format");
    add("experts", c.experts_routed + c.experts_shared, experts);
    add("non_expert", c.total() - c.experts_routed - c.experts_shared, base);
    return size;
  }
  const double linear = linear_params(c);
  add("linear", linear, base);
  add("rest", c.total() - linear, keep);
  return size;
}

std::optional<double> quantized_stored_bits(const ModelSpec& model, const FormatCatalog& formats) {
  const std::string& f = model.native_format;
  const bool plain_float = f == "bf16" || f == "fp16" || f == "fp32";
  if (plain_float && model.native_expert_format.empty()) return std::nullopt;
  const ParamTotals params = param_totals(model);
  if (!(params.total > 0)) return std::nullopt;
  return weights_native(model, params, formats).bytes * 8.0 / params.total;
}

const WeightFormat* no_wider_than_stored(const ModelSpec& model, const WeightFormat* asked,
                                         const FormatCatalog& formats) {
  if (asked == nullptr) return nullptr;
  const std::optional<double> stored = quantized_stored_bits(model, formats);
  return stored && *stored < asked->bits_per_weight ? nullptr : asked;
}

double overhead_bytes(const Overhead& overhead, double weights_bytes, double kv_bytes) {
  switch (overhead.kind) {
    case Overhead::Kind::kFlat:
      return overhead.flat_bytes;
    case Overhead::Kind::kPercent:
      return (weights_bytes + kv_bytes) * overhead.percent / 100.0;
  }
  return 0;
}

}  // namespace vram
