#include "vram/inference.hpp"

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

WeightsSize weights_uniform(const ParamTotals& params, const WeightFormat& format) {
  WeightsSize size;
  size.bytes = params.total * format.bytes_per_param();
  size.parts.push_back({"all parameters", params.total, &format, size.bytes});
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
    if (count <= 0) return;
    const double bytes = count * format.bytes_per_param();
    size.parts.push_back({component, count, &format, bytes});
    size.bytes += bytes;
  };
  if (!model.native_expert_format.empty()) {
    const WeightFormat& experts =
        formats.weight(model.native_expert_format, "model.native_expert_format");
    add("experts", c.experts_routed + c.experts_shared, experts);
    add("attention, embeddings, norms, router", c.total() - c.experts_routed - c.experts_shared,
        base);
    return size;
  }
  const double linear = c.attention + c.mlp_dense + c.experts_routed + c.experts_shared + c.ssm;
  add("linear layers", linear, base);
  add("embeddings, norms, router, extras", c.total() - linear, keep);
  return size;
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
