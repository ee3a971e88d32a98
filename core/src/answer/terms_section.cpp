// The sizes: each term with its formula, the totals, and the measured error
// of answers of this kind.

#include <algorithm>

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

namespace {

/** Whether `id` is among the terms the measurements of a kind checked. */
bool measured_term(const json& kind, const std::string& id) {
  if (!kind.contains("terms")) return true;  // a kind with no terms (speed) checks totals only
  for (const json& t : kind.at("terms")) {
    if (t.is_string() && t.get<std::string>() == id) return true;
  }
  return false;
}

}  // namespace

/**
 * The measured error of answers of this kind (data/accuracy.json, the
 * validation table): {category, low_pct, high_pct, cases, measurements,
 * note}, and `outside` where the answer holds terms no measurement of the
 * kind checked: the range widens at each end by their share of the total
 * (each may be off by as much as it holds). Null where the set has none.
 */
json measured_error(const Catalog& catalog, const char* category, const char* note,
                    const std::vector<Term>* terms, double total_bytes) {
  if (!catalog.accuracy.contains(category)) return nullptr;
  const json& c = catalog.accuracy.at(category);
  json out = c;
  out.erase("terms");
  out["category"] = category;
  json labels = json::array();
  json ids = json::array();
  double unmeasured = 0;
  if (terms != nullptr && total_bytes > 0) {
    for (const Term& term : *terms) {
      if (term.bytes <= 0 || measured_term(c, term.id)) continue;
      ids.push_back(term.id);
      labels.push_back(term.label);
      unmeasured += term.bytes;
    }
  }
  const json params = obj({{"low", c.at("low_pct")},
                           {"high", c.at("high_pct")},
                           {"cases", c.at("cases")},
                           {"measurements", c.at("measurements")}});
  if (ids.empty()) {
    out["note"] = Message{note, params};
    return out;
  }
  const double share = std::min(100.0, unmeasured / total_bytes * 100);
  // (predicted - measured) / measured is never below -100%.
  out["low_pct"] = std::max(-100.0, c.at("low_pct").get<double>() - share);
  out["high_pct"] = c.at("high_pct").get<double>() + share;
  out["outside"] = obj({{"terms", ids}, {"gb", bytes_to_gb(unmeasured)}, {"share_pct", share}});
  json wider = params;
  wider["low"] = out["low_pct"];
  wider["high"] = out["high_pct"];
  wider["terms"] = labels;
  wider["share"] = share;
  wider["measured"] = Message{note, params};
  out["note"] = Message{"note.measured_error_outside", wider};
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
      {"measured_error", measured_error(in.catalog, "inference", "note.measured_error_inference",
                                        &plan.terms, plan.total_bytes)},
  });
  if (plan.host_bytes > 0) out["host_gb"] = bytes_to_gb(plan.host_bytes);
  return out;
}

}  // namespace vram::answer
