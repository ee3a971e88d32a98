#include "vram/fit.hpp"

#include <algorithm>
#include <cmath>

#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/sort.hpp"

namespace vram {

using nlohmann::json;

namespace {

/** A count of cards, priced and measured, before any rule is checked. */
Option make_option(const Gpu& gpu, int count, const GpuCatalog& catalog, const FitRules& rules,
                   double need) {
  Option o;
  o.gpu = &gpu;
  o.count = count;
  o.nodes = (count + catalog.node_size - 1) / catalog.node_size;
  o.priced = gpu.priced;
  o.list_monthly = gpu.monthly_usd * count;
  o.discount_percent = catalog.discount_percent(count);
  o.monthly = o.list_monthly * (1.0 - o.discount_percent / 100.0);
  o.capacity_bytes = catalog.card_bytes(gpu) * count * rules.usable_fraction;
  o.spare_bytes = o.capacity_bytes - need;
  o.tight = is_tight(o.spare_bytes, count, rules);
  o.layout = layout_for(gpu, count, catalog.node_size, rules.needs_fast_link);
  return o;
}

/** The first rule `o` breaks, or nullptr when it is valid. */
const char* broken_rule(const Option& o, const FitRules& rules) {
  const Gpu& g = *o.gpu;
  if (!g.priced) return "unpriced";
  if (rules.needs_fp8 && !g.fp8) return "fp8";
  if (o.count < g.min_order) return "min_order";
  if (o.spare_bytes < 0) return "capacity";
  if (g.stock > 0 && o.count > g.stock) return "stock";
  if (o.count > 1 && rules.needs_fast_link && !g.interconnect.switched()) return "interconnect";
  return nullptr;
}

/** Why `rule` excluded `o`, for people (built only for the exclusions reported). */
Message reason_for(const Option& o, const std::string& rule) {
  const Gpu& g = *o.gpu;
  json params = obj({{"gpu", g.name}});
  if (rule == "fp8") params["architecture"] = g.architecture;
  if (rule == "min_order") params["count"] = g.min_order;
  if (rule == "capacity") {
    params["count"] = o.count;
    params["capacity"] = o.capacity_bytes;
    params["short"] = -o.spare_bytes;
  }
  if (rule == "stock") params["count"] = g.stock;
  if (rule == "interconnect") {
    // The link and its topology in words (link.*, topology.*: data/gpus.json's values).
    params["link"] = Message{"link." + g.interconnect.kind};
    params["topology"] = Message{"topology." + g.interconnect.topology};
  }
  return {"fit." + rule, std::move(params)};
}

bool cheaper(const Option& a, const Option& b) {
  if (a.monthly != b.monthly) return a.monthly < b.monthly;
  if (a.spare_bytes != b.spare_bytes) return a.spare_bytes > b.spare_bytes;
  return a.gpu->id < b.gpu->id;
}

}  // namespace

bool is_tight(double spare_bytes, int count, const FitRules& rules) {
  return count <= 1 ? spare_bytes < rules.tight_single_bytes
                    : spare_bytes / count < rules.tight_per_card_bytes;
}

int device_count(double cards, const std::string& field) {
  // The ceiling is taken in double and checked before the conversion: a
  // huge or NaN quotient converted to int is undefined (it gave INT_MIN).
  const double whole = std::ceil(cards);
  if (!(whole >= 0 && whole <= limits::kMaxDevices)) {
    throw Error::make("invalid_value", field, "error.too_many_devices",
                      obj({{"field", field}, {"limit", limits::kMaxDevices}}));
  }
  return static_cast<int>(whole);
}

Layout layout_for(const Gpu& gpu, int count, int node_size, bool tensor_parallel_needed) {
  Layout layout;
  layout.devices = count;
  layout.servers = (count + node_size - 1) / node_size;
  const int per_server = std::min(count, node_size);
  int group = 1;
  if (gpu.interconnect.switched()) {
    group = per_server;  // all-to-all inside a server
  } else if (gpu.interconnect.topology == "bridged-pairs" && per_server >= 2) {
    group = 2;  // an NVLink bridge joins pairs
  } else if (tensor_parallel_needed) {
    group = per_server;  // over PCIe: possible, slow
  }
  // Tensor-parallel groups are powers of two.
  int tp = 1;
  while (tp * 2 <= group) tp *= 2;
  layout.tensor_parallel = tp;
  layout.pipeline_stages = std::max(1, count / tp);
  return layout;
}

int min_devices(double weights_bytes, const Gpu& gpu, double usable_fraction) {
  const double per_device = gpu.vram_bytes() * usable_fraction;
  return device_count(weights_bytes / per_device, "model");
}

Layout deployable_layout(int devices, int node_size) {
  Layout layout;
  if (devices <= node_size) {
    int tp = 1;
    while (tp < devices) tp *= 2;
    layout.tensor_parallel = std::min(tp, node_size);
    layout.servers = 1;
  } else {
    layout.tensor_parallel = node_size;
    layout.servers = (devices + node_size - 1) / node_size;
  }
  layout.pipeline_stages = layout.servers;
  layout.devices = layout.tensor_parallel * layout.servers;
  return layout;
}

std::vector<Option> options_by_card(double need, const GpuCatalog& catalog, const FitRules& rules) {
  std::vector<Option> options;
  for (const Gpu& gpu : catalog.gpus) {
    std::vector<int> counts = {1};
    for (int count : rules.set_sizes) {
      if (count > 1 && count <= catalog.node_size) counts.push_back(count);
    }
    for (int count : counts) {
      const Option o = make_option(gpu, count, catalog, rules, need);
      if (broken_rule(o, rules) == nullptr) {
        options.push_back(o);
        break;
      }
    }
  }
  stable_sort_by(options, cheaper);
  return options;
}

FitAnswer fit(double need, const GpuCatalog& catalog, const FitRules& rules) {
  FitAnswer answer;
  std::vector<Option> valid;
  std::vector<Exclusion> broken;

  auto consider = [&](int count) {
    for (const Gpu& gpu : catalog.gpus) {
      Option o = make_option(gpu, count, catalog, rules, need);
      const char* rule = broken_rule(o, rules);
      if (rule == nullptr) {
        valid.push_back(o);
      } else if (std::string(rule) != "unpriced") {
        broken.push_back({o, rule, {}});
      }
    }
  };

  consider(1);  // a multi-card set only when no single card fits
  if (valid.empty()) {
    for (int count : rules.set_sizes) {
      if (count > 1 && count <= catalog.node_size) consider(count);
    }
  }
  if (!valid.empty()) {
    answer.found = true;
    answer.pick = *std::min_element(valid.begin(), valid.end(), cheaper);
    for (const Exclusion& e : broken) {
      if (e.option.monthly < answer.pick.monthly && e.option.gpu != answer.pick.gpu) {
        answer.excluded.push_back(e);
      }
    }
  } else {
    // Nothing in one node: every option and its rule, for the record.
    answer.excluded = broken;
    // Beyond one node: a cluster question. The card that needs the fewest
    // nodes (of those the method allows), priced by quote; stock and
    // minimum orders are arranged with the vendor.
    const Gpu* best = nullptr;
    int best_nodes = 0;
    for (const Gpu& gpu : catalog.gpus) {
      if (!gpu.priced || (rules.needs_fp8 && !gpu.fp8) ||
          (rules.needs_fast_link && !gpu.interconnect.switched())) {
        continue;
      }
      const double per_node = catalog.card_bytes(gpu) * catalog.node_size * rules.usable_fraction;
      const int nodes = device_count(need / per_node, "model");
      if (best == nullptr || nodes < best_nodes ||
          (nodes == best_nodes && gpu.monthly_usd < best->monthly_usd)) {
        best = &gpu;
        best_nodes = nodes;
      }
    }
    if (best != nullptr) {
      answer.found = true;
      Option o = make_option(*best, best_nodes * catalog.node_size, catalog, rules, need);
      o.by_quote = true;
      answer.pick = o;
    }
  }
  // One line per card type: the smallest count that held enough memory but
  // broke another rule, or else its largest count (still too small).
  std::vector<Exclusion> unique;
  for (const Exclusion& e : answer.excluded) {
    auto same = std::find_if(unique.begin(), unique.end(),
                             [&](const Exclusion& u) { return u.option.gpu == e.option.gpu; });
    if (same == unique.end()) {
      unique.push_back(e);
    } else if (same->rule == "capacity" &&
               (e.rule != "capacity" || e.option.count > same->option.count)) {
      *same = e;
    }
  }
  stable_sort_by(
      unique, [](const Exclusion& a, const Exclusion& b) { return cheaper(a.option, b.option); });
  for (Exclusion& e : unique) e.reason = reason_for(e.option, e.rule);
  answer.excluded = std::move(unique);
  return answer;
}

}  // namespace vram
