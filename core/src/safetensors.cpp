#include "vram/safetensors.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/sort.hpp"

namespace vram::safetensors {

using nlohmann::json;

namespace {

// huggingface/safetensors, safetensors/src/tensor.rs `Dtype::bitsize`.
const std::vector<DtypeInfo> kDtypes = {
    {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
    {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
    {"I64", 64},        {"U64", 64},
};

[[noreturn]] void invalid(const std::string& field, const std::string& message) {
  throw Error("invalid_safetensors", field, message);
}

/** The deepest nesting of objects and arrays, by one pass over the text. */
int nesting_depth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

std::uint64_t read_u64(const json& value, const std::string& field) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    invalid(field, field + " must be a whole number >= 0");
  return value.get<std::uint64_t>();
}

}  // namespace

const std::vector<DtypeInfo>& dtypes() { return kDtypes; }

const DtypeInfo* find_dtype(std::string_view name) {
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

Header read_header(std::string_view bytes, std::uint64_t file_size, const Limits& limits) {
  if (bytes.size() < 8) {
    if (file_size > 0 && file_size < 8)
      invalid("safetensors.header_length", "the file is shorter than 8 bytes");
    throw TruncatedError("safetensors.header_length", 8, "read at least 8 bytes");
  }
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) {
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[static_cast<std::size_t>(k)]))
         << (8 * k);
  }
  if (n < 2 || n > limits.max_header_bytes) {
    invalid("safetensors.header_length", "the header length " + std::to_string(n) +
                                             " is outside 2 to " +
                                             std::to_string(limits.max_header_bytes) + " bytes");
  }
  Header h;
  h.header_bytes = 8 + n;
  if (file_size > 0 && h.header_bytes > file_size) {
    invalid("safetensors.header_length", "the header runs past the end of the file");
  }
  if (bytes.size() < h.header_bytes) {
    throw TruncatedError(
        "safetensors.header", h.header_bytes,
        "the header is " + std::to_string(h.header_bytes) + " bytes; read them all");
  }
  // n <= max_header_bytes and within bytes: fits a 32-bit size_t too.
  const std::string_view text = bytes.substr(8, static_cast<std::size_t>(n));
  if (text.front() != '{') invalid("safetensors.header", "the header is not a JSON object");
  if (nesting_depth(text) > limits.max_depth) {
    invalid("safetensors.header",
            "the header nests deeper than " + std::to_string(limits.max_depth));
  }
  json doc;
  try {
    doc = json_read::parse_text(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for numbers such as 1e400.
    invalid("safetensors.header", std::string("the header is not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) invalid("safetensors.header", "the header is not a JSON object");
  if (doc.size() > limits.max_tensors + 1) {
    invalid("safetensors.header",
            "the header lists more than " + std::to_string(limits.max_tensors) + " tensors");
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) invalid("safetensors.__metadata__", "__metadata__ must be an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) {
          invalid("safetensors.__metadata__." + m.key(), "__metadata__ values must be strings");
        }
        h.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    const std::string field = "safetensors.tensors." + it.key();
    if (!it->is_object()) invalid(field, field + " must be an object");
    TensorInfo t;
    t.name = it.key();
    for (auto k = it->begin(); k != it->end(); ++k) {
      if (k.key() != "dtype" && k.key() != "shape" && k.key() != "data_offsets") {
        invalid(field + "." + k.key(), "unknown key '" + k.key() + "' in tensor '" + t.name + "'");
      }
    }
    const auto dtype = it->find("dtype");
    if (dtype == it->end() || !dtype->is_string())
      invalid(field + ".dtype", field + ".dtype must be a string");
    t.dtype = dtype->get<std::string>();
    const DtypeInfo* info = find_dtype(t.dtype);
    if (info == nullptr) invalid(field + ".dtype", "unknown dtype '" + t.dtype + "'");
    const auto shape = it->find("shape");
    if (shape == it->end() || !shape->is_array() || shape->size() > 8) {
      invalid(field + ".shape", field + ".shape must be a list of at most 8 sizes");
    }
    t.elements = 1;
    for (const json& dim : *shape) {
      const std::uint64_t d = read_u64(dim, field + ".shape");
      if (d != 0 && t.elements > std::numeric_limits<std::uint64_t>::max() / 64 / d) {
        invalid(field + ".shape", "tensor '" + t.name + "' is too large");
      }
      t.elements *= d;
      t.shape.push_back(d);
    }
    const auto offsets = it->find("data_offsets");
    if (offsets == it->end() || !offsets->is_array() || offsets->size() != 2) {
      invalid(field + ".data_offsets", field + ".data_offsets must be [begin, end]");
    }
    t.begin = read_u64((*offsets)[0], field + ".data_offsets");
    t.end = read_u64((*offsets)[1], field + ".data_offsets");
    if (t.end < t.begin)
      invalid(field + ".data_offsets", "tensor '" + t.name + "' ends before it begins");
    const std::uint64_t bits = t.elements * info->bits;
    if (bits % 8 != 0 || bits / 8 != t.end - t.begin) {
      invalid(field + ".data_offsets", "tensor '" + t.name + "': " + std::to_string(t.elements) +
                                           " x " + t.dtype + " is " + std::to_string(bits / 8) +
                                           " bytes, but data_offsets span " +
                                           std::to_string(t.end - t.begin));
    }
    h.tensors.push_back(std::move(t));
  }
  // The data buffer is the tensors back to back: no hole, no overlap.
  stable_sort_by(h.tensors, [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const TensorInfo& t : h.tensors) {
    if (t.begin != expected) {
      invalid("safetensors.tensors." + t.name + ".data_offsets",
              "tensor '" + t.name + "' begins at " + std::to_string(t.begin) + ", expected " +
                  std::to_string(expected) + " (tensors must not overlap or leave holes)");
    }
    expected = t.end;
  }
  h.data_bytes = expected;
  if (file_size > 0 && h.header_bytes + h.data_bytes != file_size) {
    invalid("safetensors.data_offsets", "the tensors end at byte " +
                                            std::to_string(h.header_bytes + h.data_bytes) +
                                            " but the file has " + std::to_string(file_size));
  }
  return h;
}

Index read_index(const json& index) {
  if (!index.is_object()) throw Error("invalid_index", "index", "the index must be a JSON object");
  Index out;
  if (const auto meta = index.find("metadata"); meta != index.end() && !meta->is_null()) {
    if (!meta->is_object())
      throw Error("invalid_index", "index.metadata", "index.metadata must be an object");
    if (const auto total = meta->find("total_size"); total != meta->end()) {
      if (!total->is_number() || total->get<double>() < 0 || total->get<double>() > 1e16) {
        throw Error("invalid_index", "index.metadata.total_size",
                    "index.metadata.total_size must be a byte count");
      }
      out.total_size = total->get<double>();
    }
  }
  const auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object() || map->empty()) {
    throw Error("invalid_index", "index.weight_map",
                "index.weight_map must map tensor names to files");
  }
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      throw Error("invalid_index", "index.weight_map." + it.key(),
                  "weight_map values must be file names");
    }
    const std::string file = it->get<std::string>();
    out.weight_map[it.key()] = file;
    if (std::find(out.files.begin(), out.files.end(), file) == out.files.end())
      out.files.push_back(file);
  }
  return out;
}

}  // namespace vram::safetensors
