#include "vram/gpu.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

bool Gpu::supports(std::string_view feature) const {
  if (feature == "fp8") return fp8;
  if (feature == "nvfp4") return nvfp4;
  return false;
}

const Gpu* GpuCatalog::find_or_null(std::string_view id) const {
  for (const Gpu& gpu : gpus) {
    if (gpu.id == id) return &gpu;
  }
  return nullptr;
}

const Gpu& GpuCatalog::find(std::string_view id, std::string_view field) const {
  if (const Gpu* gpu = find_or_null(id)) return *gpu;
  json known = json::array();
  for (const Gpu& gpu : gpus) known.push_back(gpu.id);
  throw Error::make("unknown_gpu", std::string(field), "error.gpu_unknown",
                    obj({{"id", Error::quote(id)}, {"known", known}}));
}

double GpuCatalog::discount_percent(int cards) const {
  double percent = 0;
  for (const Discount& discount : discounts) {
    if (cards >= discount.cards) percent = discount.percent;
  }
  return percent;
}

double GpuCatalog::unified_bytes(const Gpu& gpu) const { return gpu.vram_gb * kBytesPerGiB; }

double GpuCatalog::wired_default_bytes(double memory_gib) const {
  const UnifiedMemoryRule& r = unified_memory;
  const double share = memory_gib <= r.small_up_to_gib ? r.small_fraction : r.large_fraction;
  return share * memory_gib * kBytesPerGiB;
}

double GpuCatalog::wired_ceiling_bytes(double memory_gib) const {
  const UnifiedMemoryRule& r = unified_memory;
  const double most = std::max(r.raise_fraction * memory_gib, memory_gib - r.raise_reserve_gib);
  return std::max(most * kBytesPerGiB, wired_default_bytes(memory_gib));
}

double GpuCatalog::card_bytes(const Gpu& gpu) const {
  return is_unified(gpu) ? usable_bytes(gpu) : gpu.vram_bytes();
}

double GpuCatalog::usable_bytes(const Gpu& gpu, bool* estimated) const {
  // A unified card's own figure is macOS's rule, not an estimate from a marketed size.
  if (estimated != nullptr) *estimated = gpu.usable_gib <= 0 && !is_unified(gpu);
  if (gpu.usable_gib > 0) return gpu.usable_gib * kBytesPerGiB;
  if (is_unified(gpu)) return wired_default_bytes(gpu.vram_gb);
  double gib = gpu.vram_gb * usable_factor;
  if (gpu.memory_type.find("GDDR") != std::string::npos &&
      gpu.memory_type.find("ECC") != std::string::npos) {
    gib *= ecc_gddr_factor;
  }
  return gib * kBytesPerGiB;
}

namespace {

/** A catalog string, at most kMaxTextChars long; `required` throws when absent. */
std::optional<std::string> text(const json& j, const char* key, const std::string& at,
                                bool required = false) {
  std::optional<std::string> value =
      required ? jr::get_string(j, key, at) : jr::opt_string(j, key, at);
  if (value) jr::short_string(*value, limits::kMaxTextChars, jr::field_path(at, key));
  return value;
}

Gpu gpu_from_json(const json& j, const std::string& prefix, std::size_t index,
                  double hours_per_month) {
  const std::string at = prefix + "[" + std::to_string(index) + "]";
  jr::expect_object(j, at);
  Gpu gpu;
  gpu.id = *text(j, "id", at, true);
  // From here on, errors say which card they are about.
  try {
    gpu.name = text(j, "name", at).value_or(gpu.id);
    gpu.vendor = text(j, "vendor", at).value_or("");
    gpu.vram_gb = jr::get_number(j, "vram_gb", at);
    jr::require_positive(gpu.vram_gb, at + ".vram_gb");
    jr::require_range(gpu.vram_gb, limits::kMinVramGb, limits::kMaxVramGb, at + ".vram_gb");
    gpu.bandwidth_gbps = jr::get_number(j, "bandwidth_gbps", at);
    jr::require_positive(gpu.bandwidth_gbps, at + ".bandwidth_gbps");
    jr::require_range(gpu.bandwidth_gbps, limits::kMinBandwidthGbps, limits::kMaxBandwidthGbps,
                      at + ".bandwidth_gbps");
    const auto monthly = jr::opt_number(j, "monthly_usd", at);
    const auto hourly = jr::opt_number(j, "hourly_usd", at);
    if (monthly && hourly) {
      throw Error::make("invalid_value", at + ".hourly_usd", "error.not_both",
                        obj({{"first", "monthly_usd"}, {"second", "hourly_usd"}}));
    }
    if (monthly) {
      jr::require_positive(*monthly, at + ".monthly_usd", true);
      jr::require_range(*monthly, 0.0, limits::kMaxMonthlyUsd, at + ".monthly_usd");
      gpu.priced = true;
      gpu.monthly_usd = *monthly;
    } else if (hourly) {
      // Market prices by the hour: a month is hours_per_month of them.
      jr::require_positive(*hourly, at + ".hourly_usd", true);
      jr::require_range(*hourly, 0.0, limits::kMaxHourlyUsd, at + ".hourly_usd");
      gpu.priced = true;
      gpu.monthly_usd = *hourly * hours_per_month;
    }
    if (auto usable = jr::opt_number(j, "usable_gib", at)) {
      jr::require_positive(*usable, at + ".usable_gib");
      // Usable memory is part of the card's: at most its vram_gb in GiB.
      jr::require_range(*usable, limits::kMinVramGb, gpu.vram_gb, at + ".usable_gib");
      gpu.usable_gib = *usable;
    }
    gpu.usable_source = text(j, "usable_source", at).value_or("");
    gpu.memory_type = text(j, "memory_type", at).value_or("");
    gpu.architecture = text(j, "architecture", at).value_or("");
    gpu.fp8 = jr::opt_bool(j, "fp8", at).value_or(false);
    gpu.nvfp4 = jr::opt_bool(j, "nvfp4", at).value_or(false);
    gpu.stack = text(j, "stack", at).value_or("cuda");
    if (const json* link = jr::find(j, "interconnect")) {
      const std::string lat = at + ".interconnect";
      jr::expect_object(*link, lat);
      gpu.interconnect.kind = text(*link, "kind", lat).value_or("pcie");
      gpu.interconnect.gbps = jr::opt_number(*link, "gbps", lat).value_or(0);
      jr::require_positive(gpu.interconnect.gbps, lat + ".gbps", true);
      jr::require_range(gpu.interconnect.gbps, 0.0, limits::kMaxBandwidthGbps, lat + ".gbps");
      gpu.interconnect.topology = text(*link, "topology", lat).value_or("pcie-gen4");
      static const char* const kTopologies[] = {"switched",  "bridged-pairs", "pcie-gen3",
                                                "pcie-gen4", "pcie-gen5",     "single"};
      if (std::find(std::begin(kTopologies), std::end(kTopologies), gpu.interconnect.topology) ==
          std::end(kTopologies)) {
        throw Error::make("invalid_value", lat + ".topology", "error.choice",
                          obj({{"field", lat + ".topology"},
                               {"choices", std::vector<std::string>(std::begin(kTopologies),
                                                                    std::end(kTopologies))},
                               {"value", Error::quote(gpu.interconnect.topology)}}));
      }
      gpu.interconnect.source = text(*link, "source", lat).value_or("");
    } else {
      gpu.interconnect = {"pcie", 32, "pcie-gen4", "not stated; assumed PCIe Gen4"};
    }
    if (const json* tflops = jr::find(j, "tflops")) {
      const std::string tat = at + ".tflops";
      jr::expect_object(*tflops, tat);
      gpu.tflops_bf16 = jr::opt_number(*tflops, "bf16", tat).value_or(0);
      jr::require_range(gpu.tflops_bf16, 0.0, limits::kMaxTflops, tat + ".bf16");
      gpu.tflops_fp8 = jr::opt_number(*tflops, "fp8", tat).value_or(0);
      jr::require_range(gpu.tflops_fp8, 0.0, limits::kMaxTflops, tat + ".fp8");
      gpu.tflops_source = text(*tflops, "source", tat).value_or("");
    }
    const auto stock = jr::opt_int(j, "stock", at).value_or(0);
    jr::require_positive(static_cast<double>(stock), at + ".stock", true);
    gpu.stock = static_cast<int>(jr::require_range(stock, 0, limits::kMaxCards, at + ".stock"));
    const auto min_order = jr::opt_int(j, "min_order", at).value_or(1);
    jr::require_positive(static_cast<double>(min_order), at + ".min_order");
    gpu.min_order =
        static_cast<int>(jr::require_range(min_order, 1, limits::kMaxCards, at + ".min_order"));
    if (gpu.stock > 0 && gpu.min_order > gpu.stock) {
      throw Error::make("invalid_value", at + ".min_order", "error.min_order",
                        obj({{"field", at + ".min_order"}, {"stock", gpu.stock}}));
    }
    gpu.regions = jr::opt_strings(j, "regions", at);
    if (gpu.regions.size() > limits::kMaxDiscounts) {
      throw Error::too_long(at + ".regions", gpu.regions.size(), limits::kMaxDiscounts);
    }
    for (const std::string& region : gpu.regions) {
      jr::short_string(region, limits::kMaxTextChars, at + ".regions");
    }
    gpu.notes = text(j, "notes", at).value_or("");
    gpu.source = text(j, "source", at).value_or("");
  } catch (const Error& e) {
    // Say which card, in every language: the field's own message inside error.in_gpu.
    throw Error::make(e.code(), e.field(), "error.in_gpu",
                      obj({{"gpu", Error::quote(gpu.id)}, {"problem", e.message()}}));
  }
  return gpu;
}

}  // namespace

GpuCatalog gpu_catalog_from_json(const json& j, std::string_view prefix_view) {
  const std::string prefix(prefix_view);
  jr::expect_object(j, prefix);
  GpuCatalog catalog;
  const json* list = jr::find(j, "gpus");
  const std::string list_field = jr::field_path(prefix, "gpus");
  if (list == nullptr) throw Error::missing(list_field);
  if (!list->is_array() || list->empty()) {
    throw Error::make("invalid_value", list_field, "error.gpu_list", obj({{"field", list_field}}));
  }
  if (list->size() > limits::kMaxCatalogGpus) {
    throw Error::too_long(list_field, list->size(), limits::kMaxCatalogGpus);
  }
  catalog.hours_per_month = jr::opt_number(j, "hours_per_month", prefix).value_or(720);
  jr::require_positive(catalog.hours_per_month, jr::field_path(prefix, "hours_per_month"));
  jr::require_range(catalog.hours_per_month, limits::kMinHoursPerMonth, limits::kMaxHoursPerMonth,
                    jr::field_path(prefix, "hours_per_month"));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < list->size(); ++i) {
    Gpu gpu = gpu_from_json((*list)[i], list_field, i, catalog.hours_per_month);
    if (!ids.insert(gpu.id).second) {
      const std::string field = list_field + "[" + std::to_string(i) + "].id";
      throw Error::make("invalid_value", field, "error.checkpoint_duplicate",
                        obj({{"field", field}, {"name", gpu.id}}));
    }
    catalog.gpus.push_back(std::move(gpu));
  }
  catalog.currency = text(j, "currency", prefix).value_or("USD");
  catalog.price_period = text(j, "price_period", prefix).value_or("month");
  const auto node = jr::opt_int(j, "node_size", prefix).value_or(8);
  jr::require_positive(static_cast<double>(node), jr::field_path(prefix, "node_size"));
  // Checked before the narrowing: 2^32 would wrap to 0 and divide by it.
  catalog.node_size = static_cast<int>(
      jr::require_range(node, 1, limits::kMaxNodeSize, jr::field_path(prefix, "node_size")));
  if (const json* discounts = jr::find(j, "discounts")) {
    const std::string field = jr::field_path(prefix, "discounts");
    if (!discounts->is_array()) throw Error::wrong_type(field, "list", jr::type_name(*discounts));
    if (discounts->size() > limits::kMaxDiscounts) {
      throw Error::too_long(field, discounts->size(), limits::kMaxDiscounts);
    }
    for (std::size_t i = 0; i < discounts->size(); ++i) {
      const std::string at = field + "[" + std::to_string(i) + "]";
      const json& d = (*discounts)[i];
      jr::expect_object(d, at);
      Discount discount;
      const std::int64_t cards = jr::get_int(d, "cards", at);
      jr::require_positive(static_cast<double>(cards), at + ".cards");
      discount.cards =
          static_cast<int>(jr::require_range(cards, 1, limits::kMaxCards, at + ".cards"));
      discount.percent = jr::get_number(d, "percent", at);
      if (discount.percent < 0 || discount.percent >= 100) {
        throw Error::make("invalid_value", at + ".percent", "error.percent",
                          obj({{"field", at + ".percent"}}));
      }
      catalog.discounts.push_back(discount);
    }
  }
  catalog.discounts_source = text(j, "discounts_source", prefix).value_or("");
  if (const json* usable = jr::find(j, "usable_default")) {
    const std::string at = jr::field_path(prefix, "usable_default");
    jr::expect_object(*usable, at);
    // Fractions of the card's memory: in (0, 1].
    catalog.usable_factor =
        jr::require_range(jr::opt_number(*usable, "factor_gib_per_gb", at).value_or(0.985), 0.01,
                          1.0, at + ".factor_gib_per_gb");
    catalog.ecc_gddr_factor =
        jr::require_range(jr::opt_number(*usable, "ecc_gddr_factor", at).value_or(0.9375), 0.01,
                          1.0, at + ".ecc_gddr_factor");
    catalog.usable_default_source = text(*usable, "source", at).value_or("");
  }
  if (const json* unified = jr::find(j, "unified_memory")) {
    const std::string at = jr::field_path(prefix, "unified_memory");
    jr::expect_object(*unified, at);
    UnifiedMemoryRule& r = catalog.unified_memory;
    r.present = true;
    r.stack = text(*unified, "stack", at).value_or(r.stack);
    const auto number = [&](const char* key, double fallback, double low, double high) {
      return jr::require_range(jr::opt_number(*unified, key, at).value_or(fallback), low, high,
                               jr::field_path(at, key));
    };
    r.small_up_to_gib = number("small_up_to_gib", r.small_up_to_gib, 0.0, limits::kMaxVramGb);
    // Shares of the machine's memory: in (0, 1].
    r.small_fraction = number("small_fraction", r.small_fraction, 0.01, 1.0);
    r.large_fraction = number("large_fraction", r.large_fraction, 0.01, 1.0);
    r.raise_fraction = number("raise_fraction", r.raise_fraction, 0.01, 1.0);
    r.raise_reserve_gib = number("raise_reserve_gib", r.raise_reserve_gib, 0.0, limits::kMaxVramGb);
    r.sysctl = text(*unified, "sysctl", at).value_or(r.sysctl);
    r.source = text(*unified, "source", at).value_or("");
    r.raise_source = text(*unified, "raise_source", at).value_or("");
  }
  return catalog;
}

void to_json(json& j, const Gpu& gpu) {
  j = obj({{"id", gpu.id},
           {"name", gpu.name},
           {"vendor", gpu.vendor},
           {"vram_gb", gpu.vram_gb},
           {"bandwidth_gbps", gpu.bandwidth_gbps},
           {"monthly_usd", gpu.priced ? json(gpu.monthly_usd) : json(nullptr)},
           {"memory_type", gpu.memory_type},
           {"architecture", gpu.architecture},
           {"fp8", gpu.fp8},
           {"nvfp4", gpu.nvfp4},
           {"interconnect", obj({{"kind", gpu.interconnect.kind},
                                 {"gbps", gpu.interconnect.gbps},
                                 {"topology", gpu.interconnect.topology}})},
           {"stack", gpu.stack},
           {"stock", gpu.stock},
           {"min_order", gpu.min_order},
           {"regions", gpu.regions},
           {"notes", gpu.notes}});
  if (gpu.usable_gib > 0) j["usable_gib"] = gpu.usable_gib;
  // Dense TFLOP/s where the catalog states them (no FP8 entry: no FP8 tensor cores).
  if (gpu.tflops_bf16 > 0) j["tflops"]["bf16"] = gpu.tflops_bf16;
  if (gpu.tflops_fp8 > 0) j["tflops"]["fp8"] = gpu.tflops_fp8;
}

}  // namespace vram
