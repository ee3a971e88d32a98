#include "vram/format.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

bool WeightFormat::needs(std::string_view feature) const {
  return std::find(requires_features.begin(), requires_features.end(), feature) !=
         requires_features.end();
}

FormatCatalog::FormatCatalog(std::vector<WeightFormat> weights, std::vector<KvFormat> kv)
    : weights_(std::move(weights)), kv_(std::move(kv)) {}

const WeightFormat* FormatCatalog::find_weight(std::string_view id) const {
  for (const WeightFormat& format : weights_) {
    if (format.id == id) return &format;
  }
  return nullptr;
}

const WeightFormat& FormatCatalog::weight(std::string_view id, std::string_view field) const {
  if (const WeightFormat* format = find_weight(id)) return *format;
  json known = json::array();
  for (const WeightFormat& format : weights_) known.push_back(format.id);
  throw Error::make("unknown_format", std::string(field), "error.weights_unknown",
                    obj({{"id", Error::quote(id)}, {"known", known}}));
}

const KvFormat& FormatCatalog::kv(std::string_view id, std::string_view field) const {
  for (const KvFormat& format : kv_) {
    if (format.id == id) return format;
  }
  json known = json::array();
  for (const KvFormat& format : kv_) known.push_back(format.id);
  throw Error::make("unknown_format", std::string(field), "error.kv_unknown",
                    obj({{"id", Error::quote(id)}, {"known", known}}));
}

void from_json(const json& j, WeightFormat& format) {
  const std::string prefix = "formats.weights";
  format.id = jr::get_string(j, "id", prefix);
  format.name = jr::get_string(j, "name", prefix);
  format.bits_per_weight = jr::get_number(j, "bits_per_weight", prefix);
  jr::require_positive(format.bits_per_weight, prefix + ".bits_per_weight");
  format.requires_features = jr::opt_strings(j, "requires", prefix);
  format.gguf = jr::opt_bool(j, "gguf", prefix).value_or(false);
  format.covers = jr::opt_string(j, "covers", prefix).value_or("all");
  if (format.covers != "all" && format.covers != "linear") {
    throw Error::make("invalid_value", prefix + ".covers", "error.choice",
                      obj({{"field", prefix + ".covers"},
                           {"choices", json::array({"all", "linear"})},
                           {"value", Error::quote(format.covers)}}));
  }
  if (format.covers != "all") format.covers_source = jr::get_string(j, "covers_source", prefix);
  format.source = jr::get_string(j, "source", prefix);
}

void from_json(const json& j, KvFormat& format) {
  const std::string prefix = "formats.kv";
  format.id = jr::get_string(j, "id", prefix);
  format.name = jr::get_string(j, "name", prefix);
  format.bits_per_element = jr::get_number(j, "bits_per_element", prefix);
  jr::require_positive(format.bits_per_element, prefix + ".bits_per_element");
  format.source = jr::get_string(j, "source", prefix);
}

void to_json(json& j, const WeightFormat& format) {
  j = obj({{"id", format.id},
           {"name", format.name},
           {"bits_per_weight", format.bits_per_weight},
           {"requires", format.requires_features},
           {"gguf", format.gguf},
           {"covers", format.covers},
           {"source", format.source}});
  if (!format.covers_source.empty()) j["covers_source"] = format.covers_source;
}

void to_json(json& j, const KvFormat& format) {
  j = obj({{"id", format.id},
           {"name", format.name},
           {"bits_per_element", format.bits_per_element},
           {"source", format.source}});
}

FormatCatalog format_catalog_from_json(const json& j) {
  return FormatCatalog(jr::list_of<WeightFormat>(j.at("weights")),
                       jr::list_of<KvFormat>(j.at("kv")));
}

}  // namespace vram
