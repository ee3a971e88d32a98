#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vram {

/** How weights are stored (data/formats.json "weights"). */
struct WeightFormat {
  std::string id;
  std::string name;
  double bits_per_weight = 0;                  ///< including block scales and zero points
  std::vector<std::string> requires_features;  ///< e.g. "fp8"
  bool gguf = false;                           ///< a llama.cpp GGUF file type
  /** What a checkpoint in this format stores in it: "all" parameters (GGUF
   * types, the guide's conventions) or the "linear" layers only (AWQ, GPTQ,
   * bitsandbytes, FP8...), the rest staying in the checkpoint's own dtype. */
  std::string covers = "all";
  std::string covers_source;
  std::string source;

  double bytes_per_param() const { return bits_per_weight / 8.0; }
  bool needs(std::string_view feature) const;
};

/** How the KV cache stores one element (data/formats.json "kv"). */
struct KvFormat {
  std::string id;
  std::string name;
  double bits_per_element = 0;
  std::string source;

  double bytes_per_element() const { return bits_per_element / 8.0; }
};

/** The formats catalog, looked up by id. */
class FormatCatalog {
 public:
  FormatCatalog() = default;
  FormatCatalog(std::vector<WeightFormat> weights, std::vector<KvFormat> kv);

  /** Throws vram::Error("unknown_format", field, ...) for an unknown id. */
  const WeightFormat& weight(std::string_view id, std::string_view field) const;
  const KvFormat& kv(std::string_view id, std::string_view field) const;
  const WeightFormat* find_weight(std::string_view id) const;

  const std::vector<WeightFormat>& weights() const { return weights_; }
  const std::vector<KvFormat>& kv_formats() const { return kv_; }

 private:
  std::vector<WeightFormat> weights_;
  std::vector<KvFormat> kv_;
};

void from_json(const nlohmann::json& j, WeightFormat& format);
void from_json(const nlohmann::json& j, KvFormat& format);
void to_json(nlohmann::json& j, const WeightFormat& format);
void to_json(nlohmann::json& j, const KvFormat& format);
FormatCatalog format_catalog_from_json(const nlohmann::json& j);

}  // namespace vram
