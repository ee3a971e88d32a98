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

/**
 * Memory the CPU and the GPU share (Apple silicon under macOS): the machine's
 * memory is counted once, and the GPU may wire only part of it, macOS's
 * default limit, which a sysctl raises (data/gpus.json unified_memory).
 * Sizes in GiB: Apple's "128 GB" Mac has 128 GiB (hw.memsize 2^37).
 */
struct UnifiedMemoryRule {
  bool present = false;
  std::string stack = "metal";  ///< the cards it applies to (Gpu::stack)
  double small_up_to_gib = 36;  ///< machines up to this size get small_fraction
  double small_fraction = 2.0 / 3.0;
  double large_fraction = 0.75;
  std::string sysctl = "iogpu.wired_limit_mb";  ///< the limit, in MiB
  /** The most a raised limit is suggested at: the larger of raise_fraction of the memory and
   * the memory less raise_reserve_gib. */
  double raise_fraction = 0.8;
  double raise_reserve_gib = 5;
  std::string source;
  std::string raise_source;
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
  UnifiedMemoryRule unified_memory;

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

  /** The card shares the machine's memory with the CPU (unified_memory's stack). */
  bool is_unified(const Gpu& gpu) const {
    return unified_memory.present && gpu.stack == unified_memory.stack;
  }
  /** The machine's whole memory, a unified card's vram_gb read as GiB. */
  double unified_bytes(const Gpu& gpu) const;
  /** macOS's default GPU limit on a machine of `memory_gib`: its share of the memory. */
  double wired_default_bytes(double memory_gib) const;
  /** The most the limit is suggested raised to on a machine of `memory_gib` (never below the
   * default): what is left stays with macOS and the CPU. */
  double wired_ceiling_bytes(double memory_gib) const;
  /**
   * The card's memory as a convention counts it: the marketed size, except
   * on unified memory, where the GPU may use only the limit (usable_bytes).
   */
  double card_bytes(const Gpu& gpu) const;
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
