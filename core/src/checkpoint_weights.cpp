// A checkpoint as a request gives it (checkpoint_from_json): the sums the
// page or the CLI made of each file's header, checked and added up into the
// weights an estimate sizes. checkpoint.cpp reads the headers themselves.
#include "vram/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/sort.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

// An inspected checkpoint's files (checkpoint_from_json): at most this many, each of at
// most kMaxTensors tensors.
constexpr std::size_t kMaxFiles = 4096;
constexpr double kMaxTensors = 1e7;

/** A key `object` does not take: code unknown_field, with the keys it does. */
Error unknown_key(const std::string& object, const std::string& key, const json& known) {
  const std::string field = object + "." + key;
  return Error::make("unknown_field", field, "error.unknown_key",
                     obj({{"field", Error::quote(field)}, {"known", known}}));
}

double checked_amount(const json& object, const char* key, const std::string& prefix) {
  const double v = jr::get_number(object, key, prefix);
  if (!std::isfinite(v) || v < 0 || v > 1e16 || v != std::floor(v)) {
    const std::string field = jr::field_path(prefix, key);
    throw Error::make("invalid_value", field, "error.whole_range",
                      obj({{"field", field}, {"min", 0}, {"max", 1e16}}));
  }
  return v;
}

TensorTotals read_totals(const json& value, const std::string& field) {
  jr::expect_object(value, field);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it.key() != "bytes" && it.key() != "elements") {
      throw unknown_key(field, it.key(), json::array({"bytes", "elements"}));
    }
  }
  return {checked_amount(value, "bytes", field), checked_amount(value, "elements", field)};
}

}  // namespace

CheckpointWeights checkpoint_from_json(const json& checkpoint, std::string_view field_view) {
  const std::string field(field_view);
  jr::expect_object(checkpoint, field);
  for (auto it = checkpoint.begin(); it != checkpoint.end(); ++it) {
    if (it.key() != "files" && it.key() != "config") {
      throw unknown_key(field, it.key(), json::array({"files", "config"}));
    }
  }
  const json* files = jr::find(checkpoint, "files");
  const std::string files_field = field + ".files";
  if (files == nullptr) throw Error::missing(files_field);
  if (!files->is_array() || files->empty() || files->size() > kMaxFiles) {
    throw Error::make("wrong_type", files_field, "error.checkpoint_files",
                      obj({{"field", files_field}, {"max", kMaxFiles}}));
  }
  CheckpointWeights out;
  std::map<std::string, TensorTotals> by_type;
  std::set<std::int64_t> split_parts;
  std::int64_t split_count = -1;
  for (std::size_t i = 0; i < files->size(); ++i) {
    const json& file = (*files)[i];
    const std::string prefix = files_field + "[" + std::to_string(i) + "]";
    jr::expect_object(file, prefix);
    for (auto it = file.begin(); it != file.end(); ++it) {
      static const char* const kAllowed[] = {"format",  "tensor_count", "bytes", "elements",
                                             "by_type", "by_component", "split"};
      if (std::find(std::begin(kAllowed), std::end(kAllowed), it.key()) == std::end(kAllowed)) {
        throw unknown_key(prefix, it.key(),
                          std::vector<std::string>(std::begin(kAllowed), std::end(kAllowed)));
      }
    }
    const std::string format = jr::get_string(file, "format", prefix);
    if (format != "gguf" && format != "safetensors") {
      throw Error::make("invalid_value", prefix + ".format", "error.choice",
                        obj({{"field", "format"},
                             {"choices", json::array({"gguf", "safetensors"})},
                             {"value", Error::quote(format)}}));
    }
    if (out.format.empty()) out.format = format;
    if (format != out.format) {
      throw Error::make("invalid_value", prefix + ".format", "error.checkpoint_mixed",
                        obj({{"format", out.format}}));
    }
    const double bytes = checked_amount(file, "bytes", prefix);
    const double elements = checked_amount(file, "elements", prefix);
    const double count = checked_amount(file, "tensor_count", prefix);
    if (count > kMaxTensors) {
      throw Error::out_of_range(prefix + ".tensor_count", count, 0, kMaxTensors);
    }
    const json* types = jr::find(file, "by_type");
    if (types == nullptr) throw Error::missing(prefix + ".by_type");
    jr::expect_object(*types, prefix + ".by_type");
    TensorTotals sum;
    for (auto it = types->begin(); it != types->end(); ++it) {
      const std::string tfield = prefix + ".by_type." + it.key();
      const bool known = format == "gguf" ? gguf::find_type(it.key()) != nullptr
                                          : safetensors::find_dtype(it.key()) != nullptr;
      if (!known)
        throw Error::make("invalid_value", tfield, "error.checkpoint_type",
                          obj({{"format", format}, {"type", Error::quote(it.key())}}));
      const TensorTotals t = read_totals(*it, tfield);
      by_type[it.key()].bytes += t.bytes;
      by_type[it.key()].elements += t.elements;
      sum.bytes += t.bytes;
      sum.elements += t.elements;
    }
    if (sum.bytes != bytes || sum.elements != elements) {
      throw Error::make("invalid_value", prefix + ".by_type", "error.checkpoint_sum",
                        obj({{"field", prefix + ".by_type"}}));
    }
    const json* components = jr::find(file, "by_component");
    if (components == nullptr) throw Error::missing(prefix + ".by_component");
    jr::expect_object(*components, prefix + ".by_component");
    TensorTotals csum;
    for (auto it = components->begin(); it != components->end(); ++it) {
      const std::string cfield = prefix + ".by_component." + it.key();
      const std::vector<std::string>& known = checkpoint_components();
      if (std::find(known.begin(), known.end(), it.key()) == known.end())
        throw Error::make("invalid_value", cfield, "error.checkpoint_component",
                          obj({{"name", Error::quote(it.key())}, {"known", known}}));
      const TensorTotals t = read_totals(*it, cfield);
      out.by_component[it.key()].bytes += t.bytes;
      out.by_component[it.key()].elements += t.elements;
      csum.bytes += t.bytes;
      csum.elements += t.elements;
    }
    if (csum.bytes != bytes || csum.elements != elements) {
      throw Error::make("invalid_value", prefix + ".by_component", "error.checkpoint_sum",
                        obj({{"field", prefix + ".by_component"}}));
    }
    if (const json* split = jr::find(file, "split")) {
      const std::string sfield = prefix + ".split";
      jr::expect_object(*split, sfield);
      const std::int64_t no = jr::get_int(*split, "no", sfield);
      const std::int64_t n = jr::get_int(*split, "count", sfield);
      if (n < 1 || n > static_cast<std::int64_t>(kMaxFiles) || no < 0 || no >= n) {
        throw Error::make("invalid_value", sfield, "error.checkpoint_split",
                          obj({{"field", sfield}, {"max", kMaxFiles}}));
      }
      if (split_count >= 0 && n != split_count) {
        throw Error::make("invalid_value", sfield + ".count", "error.checkpoint_split_count",
                          json::object());
      }
      split_count = n;
      if (!split_parts.insert(no).second) {
        throw Error::make("invalid_value", sfield + ".no", "error.checkpoint_split_twice",
                          obj({{"part", no + 1}}));
      }
    } else if (format == "gguf" && files->size() > 1) {
      throw Error::make("invalid_value", prefix, "error.checkpoint_split_gguf", json::object());
    }
    out.bytes += bytes;
    out.elements += elements;
    out.tensor_count += static_cast<std::int64_t>(count);
  }
  if (split_count >= 0 && static_cast<std::int64_t>(split_parts.size()) != split_count) {
    throw Error::make("invalid_value", files_field, "error.checkpoint_split_parts",
                      obj({{"count", split_count}, {"given", split_parts.size()}}));
  }
  out.files = static_cast<std::int64_t>(files->size());
  for (const auto& entry : by_type) out.by_type.push_back(entry);
  stable_sort_by(out.by_type,
                 [](const auto& a, const auto& b) { return a.second.bytes > b.second.bytes; });
  for (const auto& [type, t] : out.by_type) {
    WeightFormat f;
    f.id = type;
    f.name = type;
    f.bits_per_weight = t.elements > 0 ? t.bytes * 8.0 / t.elements : 0.0;
    f.gguf = out.format == "gguf";
    f.source = "checkpoint.files[].by_type";  // the request's own sums (no English words)
    out.type_formats.push_back(std::move(f));
  }
  if (out.bytes <= 0) {
    throw Error::make("invalid_value", files_field, "error.checkpoint_no_weights", json::object());
  }
  return out;
}

WeightsSize checkpoint_weights(const CheckpointWeights& checkpoint) {
  WeightsSize size;
  size.native = true;
  for (std::size_t i = 0; i < checkpoint.by_type.size(); ++i) {
    const TensorTotals& t = checkpoint.by_type[i].second;
    // The component is the stored type's own name ("Q4_K", "BF16"): Latin in every language.
    size.parts.push_back(
        {checkpoint.by_type[i].first, t.elements, &checkpoint.type_formats[i], t.bytes});
    size.bytes += t.bytes;
  }
  return size;
}

json checkpoint_summary(const CheckpointWeights& checkpoint) {
  json types = json::array();
  for (const auto& [type, t] : checkpoint.by_type) {
    types.push_back(obj({{"type", type},
                         {"gb", bytes_to_gb(t.bytes)},
                         {"elements", t.elements},
                         {"bits_per_element", t.elements > 0 ? t.bytes * 8.0 / t.elements : 0.0}}));
  }
  json components = json::object();
  for (const auto& [component, t] : checkpoint.by_component)
    components[component] = obj({{"gb", bytes_to_gb(t.bytes)}, {"elements", t.elements}});
  return obj({{"format", checkpoint.format},
              {"files", checkpoint.files},
              {"tensor_count", checkpoint.tensor_count},
              {"elements", checkpoint.elements},
              {"gb", bytes_to_gb(checkpoint.bytes)},
              {"by_type", types},
              {"by_component", components}});
}

}  // namespace vram
