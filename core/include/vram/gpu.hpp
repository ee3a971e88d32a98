#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vram {

/** How a card talks to its neighbours. */
struct Interconnect {
  std::string kind;  ///< "nvlink", "infinity-fabric", "nvlink-bridge", "pcie", "none"
  double gbps = 0;   ///< GB/s per GPU
  std::string
      topology;  ///< "switched" (all-to-all), "bridged-pairs", "pcie-gen4", "pcie-gen5", "single"
  std::string source;

  /** NVLink/NVSwitch or Infinity Fabric all-to-all: fit for an all-reduce every step. */
  bool switched() const { return topology == "switched"; }
};

/** One accelerator of the catalog (data/gpus.json or a host's own). */
struct Gpu {
  std::string id;
  std::string name;
  std::string vendor;
  double vram_gb = 0;     ///< marketed capacity, decimal GB (the guide's convention)
  double usable_gib = 0;  ///< what CUDA/ROCm report; 0 when not measured
  std::string usable_source;
  double bandwidth_gbps = 0;  ///< memory bandwidth, GB/s
  bool priced = false;
  double monthly_usd = 0;  ///< price per card per period, in the catalog's currency
  std::string memory_type;
  std::string architecture;
  bool fp8 = false;
  bool nvfp4 = false;  ///< FP4 tensor cores that run NVFP4 (Blackwell)
  Interconnect interconnect;
  /** Dense tensor throughput (no sparsity), TFLOP/s; 0 = not stated. */
  double tflops_bf16 = 0;
  double tflops_fp8 = 0;
  std::string tflops_source;
  std::string stack;  ///< "cuda", "rocm", "metal"
  int stock = 0;      ///< cards available; 0 = no stated limit
  int min_order = 1;
  std::vector<std::string> regions;
  std::string notes;
  std::string source;

  double vram_bytes() const { return vram_gb * 1e9; }
  bool supports(std::string_view feature) const;
};

struct Discount {
  int cards = 0;
  double percent = 0;
};

/** The fleet with its pricing rules. Replaceable: a host page or --catalog. */
struct GpuCatalog {
  std::vector<Gpu> gpus;
  std::string currency = "USD";
  std::string price_period = "month";
  double hours_per_month = 720;
  std::vector<Discount> discounts;  ///< by set size: 2, 4, 8 cards
  int node_size = 8;
  double usable_factor = 0.985;     ///< GiB reported per marketed GB, when not measured
  double ecc_gddr_factor = 0.9375;  ///< further share left by GDDR with ECC on
  std::string usable_default_source;
  std::string discounts_source;

  /** Throws vram::Error("unknown_gpu", field, ...). */
  const Gpu& find(std::string_view id, std::string_view field) const;
  const Gpu* find_or_null(std::string_view id) const;
  /** Discount in percent for a set of `cards` (0 for one card). */
  double discount_percent(int cards) const;
  /**
   * Bytes a runtime can allocate: the measured usable_gib, or an estimate
   * from the marketed size (`estimated` tells which).
   */
  double usable_bytes(const Gpu& gpu, bool* estimated = nullptr) const;
};

/**
 * Reads and validates a catalog. Errors name the entry and the field,
 * e.g. field "catalog.gpus[3].vram_gb", message "GPU 'l4': vram_gb must be
 * positive". `prefix` is "catalog" for a replacement, "gpus" for the
 * built-in data.
 */
GpuCatalog gpu_catalog_from_json(const nlohmann::json& j, std::string_view prefix);

void to_json(nlohmann::json& j, const Gpu& gpu);

}  // namespace vram
