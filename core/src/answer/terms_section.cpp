// The sizes: each term with its formula, the totals, and the measured error
// of answers of this kind.

#include "answer/sections.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

json kv_groups_json(const KvCacheSize& cache) {
  json groups = json::array();
  for (const KvGroup& group : cache.groups) {
    groups.push_back(obj({{"attention", to_string(group.attention)},
                          {"layers", group.layers},
                          {"bytes_per_token_per_layer", group.bytes_per_token},
                          {"tokens_held", group.tokens_held},
                          {"state_bytes_per_layer", group.state_bytes},
                          {"gb", bytes_to_gb(group.bytes)}}));
  }
  return groups;
}

}  // namespace

json terms_json(const std::vector<Term>& terms) {
  json out = json::array();
  for (const Term& term : terms) {
    out.push_back(obj({{"id", term.id},
                       {"label", term.label},
                       {"gb", bytes_to_gb(term.bytes)},
                       {"formula", term.formula.id.empty() ? json(nullptr) : json(term.formula)},
                       {"inputs", term.inputs}}));
  }
  return out;
}

/**
 * The measured error of answers of this kind (data/accuracy.json, the
 * validation table): {category, low_pct, high_pct, cases, measurements,
 * note}; null where the set has none.
 */
json measured_error(const Catalog& catalog, const char* category, const char* note) {
  if (!catalog.accuracy.contains(category)) return nullptr;
  const json& c = catalog.accuracy.at(category);
  json out = c;
  out["category"] = category;
  out["note"] = Message{note, obj({{"low", c.at("low_pct")},
                                   {"high", c.at("high_pct")},
                                   {"cases", c.at("cases")},
                                   {"measurements", c.at("measurements")}})};
  return out;
}

json terms_section(const Inference& in) {
  const InferencePlan& plan = in.plan;
  // The overhead of the conventions, or everything but weights and KV cache.
  double overhead = 0;
  for (const Term& term : plan.terms) {
    if (term.id != "weights" && term.id != "kv_cache") overhead += term.bytes;
  }
  json out = obj({
      {"weights_gb", bytes_to_gb(plan.weights.bytes)},
      {"kv_cache_gb", bytes_to_gb(plan.kv.bytes)},
      {"kv_bytes_per_token", plan.kv.bytes_per_token},
      {"kv_groups", kv_groups_json(plan.kv)},
      {"total_gb", bytes_to_gb(plan.total_bytes)},
      {"terms", terms_json(plan.terms)},
      {"overhead_gb", bytes_to_gb(overhead)},
      {"measured_error", measured_error(in.catalog, "inference", "note.measured_error_inference")},
  });
  if (plan.host_bytes > 0) out["host_gb"] = bytes_to_gb(plan.host_bytes);
  return out;
}

}  // namespace vram::answer
