#include "common.hpp"

#include <algorithm>
#include <cctype>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"

namespace vram::import {

namespace jr = json_read;

std::string Context::field(std::string_view key) const { return jr::field_path(prefix, key); }

std::optional<std::int64_t> Context::opt_int(std::string_view key, std::int64_t min,
                                             std::int64_t max) const {
  return jr::opt_int_in(cfg, key, prefix, min, max);
}

std::int64_t Context::get_int(std::string_view key, std::int64_t min, std::int64_t max) const {
  return jr::get_int_in(cfg, key, prefix, min, max);
}

std::optional<std::int64_t> Context::opt_int_any(std::initializer_list<const char*> keys,
                                                 std::int64_t min, std::int64_t max) const {
  for (const char* key : keys) {
    if (auto value = opt_int(key, min, max)) return value;
  }
  return std::nullopt;
}

std::int64_t Context::get_int_any(std::initializer_list<const char*> keys, std::int64_t min,
                                  std::int64_t max) const {
  if (auto value = opt_int_any(keys, min, max)) return *value;
  throw Error::missing(field(*keys.begin()));
}

std::optional<bool> Context::opt_bool(std::string_view key) const {
  return jr::opt_bool(cfg, key, prefix);
}

std::int64_t Context::require_intermediate() const {
  if (!intermediate) throw Error::missing(field("intermediate_size"));
  if (*intermediate < 1) {
    throw Error::out_of_range(field("intermediate_size"), *intermediate, 1,
                              limits::kMaxIntermediate);
  }
  return *intermediate;
}

void Context::warn(Message message) const { out.warnings.push_back(std::move(message)); }

bool apply_layer_types(Context& c) {
  const json* types = jr::find(c.cfg, "layer_types");
  if (types == nullptr) return false;
  const std::string field = c.field("layer_types");
  if (!types->is_array()) throw Error::wrong_type(field, "strings", jr::type_name(*types));
  if (static_cast<std::int64_t>(types->size()) != c.m.num_layers()) {
    throw Error::make(
        "invalid_value", field, "error.layer_count",
        obj({{"field", field}, {"entries", types->size()}, {"layers", c.m.num_layers()}}));
  }
  for (std::size_t i = 0; i < types->size(); ++i) {
    const json& type = (*types)[i];
    if (!type.is_string()) throw Error::wrong_type(field, "strings", jr::type_name(type));
    const std::string& name = type.get_ref<const std::string&>();
    LayerAttention& kind = c.m.layers[i].attention;
    if (name == "full_attention" || name == "attention" || name == "global") {
      kind = LayerAttention::kGlobal;
    } else if (name == "sliding_attention" || name == "local" || name == "chunked_attention") {
      kind = LayerAttention::kSliding;
    } else if (name == "mamba" || name == "linear_attention" || name == "ssm") {
      kind = LayerAttention::kState;
    } else {
      const std::string quoted = Error::quote(name);
      throw Error::make("invalid_value", field, "error.layer_type",
                        obj({{"field", field}, {"value", quoted}}));
    }
  }
  return true;
}

void set_all_sliding(ModelSpec& m, std::int64_t from_layer) {
  for (std::int64_t i = std::max<std::int64_t>(from_layer, 0); i < m.num_layers(); ++i) {
    m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
  }
}

void slide_except_every(Context& c, std::int64_t pattern) {
  for (std::int64_t i = 0; i < c.layers; ++i) {
    if (pattern == 0 || (i + 1) % pattern != 0) {
      c.m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
    }
  }
}

namespace {

std::string dtype_format(const std::string& dtype) {
  if (dtype == "bfloat16") return "bf16";
  if (dtype == "float16" || dtype == "half") return "fp16";
  if (dtype == "float32" || dtype == "float") return "fp32";
  if (dtype.rfind("float8", 0) == 0) return "fp8";
  return "";
}

bool contains_nocase(std::string_view text, std::string_view word) {
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

/** A string member, or "" when absent or not a string (these keys only hint). */
std::string hint(const json& object, const char* key) {
  const json* value = jr::find(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

/**
 * The stored format of a compressed-tensors or modelopt checkpoint, from the
 * keys that say it: modelopt's quant_algo ("FP8", "NVFP4", "W4A16_AWQ"),
 * compressed-tensors' format ("float-quantized", "nvfp4-pack-quantized")
 * and its config_groups' weights {num_bits, type}. Empty when none says.
 */
std::string compressed_format(const json& q) {
  std::string algo = hint(q, "quant_algo");
  if (const json* nested = jr::find(q, "quantization"); nested && nested->is_object()) {
    if (algo.empty()) algo = hint(*nested, "quant_algo");
  }
  const std::string format = hint(q, "format");
  std::int64_t bits = 0;
  std::string type;
  if (const json* groups = jr::find(q, "config_groups"); groups && groups->is_object()) {
    for (const auto& group : groups->items()) {
      const json* weights = jr::find(group.value(), "weights");
      if (weights == nullptr || !weights->is_object()) continue;
      const json* num_bits = jr::find(*weights, "num_bits");
      if (num_bits != nullptr && num_bits->is_number_integer()) {
        bits = num_bits->get<std::int64_t>();
      }
      type = hint(*weights, "type");
      break;
    }
  }
  if (contains_nocase(algo, "nvfp4") || contains_nocase(format, "nvfp4") ||
      (type == "float" && bits == 4)) {
    return "nvfp4";
  }
  if (contains_nocase(algo, "fp8") || contains_nocase(format, "float") || type == "float") {
    return "fp8";
  }
  if (bits == 4 || contains_nocase(algo, "w4a16") || contains_nocase(algo, "int4")) {
    return "gptq-int4";
  }
  if (bits == 8 || contains_nocase(algo, "int8") || contains_nocase(algo, "w8a8")) return "int8";
  return "";
}

}  // namespace

void detect_storage(Context& c, const std::string& dtype) {
  ModelSpec& m = c.m;
  m.native_format = dtype_format(dtype);
  if (m.native_format.empty()) {
    if (!dtype.empty()) {
      c.warn({"import.torch_dtype_unknown",
              obj({{"dtype", Error::quote(dtype)}, {"format", "bf16"}})});
    }
    m.native_format = "bf16";
  }
  const json* q = jr::find(c.root, "quantization_config");
  if (q == nullptr) return;
  const std::string qprefix = jr::field_path(c.root_prefix, "quantization_config");
  jr::expect_object(*q, qprefix);
  const std::string method = Error::quote(jr::opt_string(*q, "quant_method", qprefix).value_or(""));
  const std::int64_t bits = jr::opt_int_in(*q, "bits", qprefix, 1, 64).value_or(4);
  // What torch_dtype says beside it: a message of its own (note.stored_dtype).
  const json declared =
      dtype.empty()
          ? obj({{"id", "note.stored_no_dtype"}, {"params", json::object()}})
          : obj({{"id", "note.stored_dtype"}, {"params", obj({{"dtype", Error::quote(dtype)}})}});
  auto note = [&](const char* id, json params) {
    params["declared"] = declared;
    m.native_format_note = Message{id, std::move(params)};
  };
  if (method == "fp8" || method == "fbgemm_fp8") {
    m.native_format = "fp8";
    note("note.stored_fp8", obj({{"method", method}}));
  } else if (method == "mxfp4") {
    m.native_expert_format = "mxfp4";
    note("note.stored_mxfp4", obj({{"format", m.native_format}}));
  } else if (method == "awq" || method == "gptq") {
    m.native_format = bits == 4 ? method + "-int4" : "int8";
    note("note.stored_grouped",
         obj({{"method", method == "awq" ? "AWQ" : "GPTQ"}, {"bits", bits}}));
  } else if (method == "bitsandbytes") {
    const bool four = jr::opt_bool(*q, "load_in_4bit", qprefix).value_or(false);
    m.native_format = four ? "nf4" : "int8";
    note("note.stored_bitsandbytes", obj({{"format", four ? "NF4" : "INT8"}}));
  } else if (method == "compressed-tensors" || method == "modelopt") {
    const std::string format = compressed_format(*q);
    if (!format.empty()) m.native_format = format;
    note("note.stored_compressed", obj({{"method", method}, {"format", m.native_format}}));
  } else if (!method.empty()) {
    c.warn({"import.quant_method_unknown", obj({{"method", method}, {"format", m.native_format}})});
  }
}

}  // namespace vram::import
