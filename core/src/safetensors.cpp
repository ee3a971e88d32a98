#include "vram/safetensors.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"
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

// {"weight_map": {...}, "metadata": {...}}: two levels, a third for a stray list.
constexpr std::size_t kIndexDepth = 3;

/** A header that breaks the format's rules: `id`'s template with `params` and {field}. */
[[noreturn]] void invalid(const std::string& field, const char* id, json params = json::object()) {
  params["field"] = field;
  throw Error::make("invalid_safetensors", field, id, std::move(params));
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
    invalid(field, "error.whole_range", obj({{"min", 0}, {"max", 18446744073709551615.0}}));
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

namespace {

[[noreturn]] void limit_error(const std::string& field, const std::string& id, std::uint64_t size,
                              std::uint64_t limit) {
  throw Error::make("too_large", field, id,
                    obj({{"field", field}, {"size", size}, {"limit", limit}}));
}

/** The text of the JSON value that starts at `p`, found without parsing it (strings skipped). */
std::size_t value_extent(std::string_view text, std::size_t at) {
  std::size_t i = at;
  int depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1 - at;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return i - at;
      if (--depth == 0) return i + 1 - at;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
      return i - at;
    }
  }
  return i - at;
}

/** A tensor's entry {dtype, shape, data_offsets}, checked. */
TensorInfo read_tensor(const json& entry, std::string name, const std::string& field) {
  if (!entry.is_object()) invalid(field, "error.object");
  TensorInfo t;
  t.name = std::move(name);
  const std::string quoted = Error::quote(t.name);
  for (auto k = entry.begin(); k != entry.end(); ++k) {
    if (k.key() != "dtype" && k.key() != "shape" && k.key() != "data_offsets") {
      invalid(field + "." + Error::quote(k.key()), "error.st_key",
              obj({{"key", Error::quote(k.key())}, {"name", quoted}}));
    }
  }
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string())
    invalid(field + ".dtype", "error.st_dtype_string");
  t.dtype = dtype->get<std::string>();
  const DtypeInfo* info = find_dtype(t.dtype);
  if (info == nullptr) {
    invalid(field + ".dtype", "error.st_dtype", obj({{"dtype", Error::quote(t.dtype)}}));
  }
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array() || shape->size() > 8) {
    invalid(field + ".shape", "error.st_shape", obj({{"max", 8}}));
  }
  t.elements = 1;
  for (const json& dim : *shape) {
    const std::uint64_t d = read_u64(dim, field + ".shape");
    if (d != 0 && t.elements > std::numeric_limits<std::uint64_t>::max() / 64 / d) {
      invalid(field + ".shape", "error.gguf_tensor_size", obj({{"name", quoted}}));
    }
    t.elements *= d;
    t.shape.push_back(d);
  }
  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
    invalid(field + ".data_offsets", "error.st_offsets");
  }
  t.begin = read_u64((*offsets)[0], field + ".data_offsets");
  t.end = read_u64((*offsets)[1], field + ".data_offsets");
  if (t.end < t.begin)
    invalid(field + ".data_offsets", "error.st_backwards", obj({{"name", quoted}}));
  const std::uint64_t bits = t.elements * info->bits;
  if (bits % 8 != 0 || bits / 8 != t.end - t.begin) {
    invalid(field + ".data_offsets", "error.st_span",
            obj({{"name", quoted},
                 {"elements", t.elements},
                 {"dtype", t.dtype},
                 {"bytes", bits / 8},
                 {"span", t.end - t.begin}}));
  }
  return t;
}

}  // namespace

Header read_header(std::string_view bytes, std::uint64_t file_size, const Limits& limits) {
  if (bytes.empty()) {
    // No byte at all is no prefix of a header: an empty file, not a short read.
    throw Error::make("invalid_safetensors", "safetensors.header_length", "error.checkpoint_empty",
                      obj({{"field", "safetensors.header_length"}}));
  }
  if (bytes.size() < 8) {
    if (file_size > 0 && file_size < 8)
      invalid("safetensors.header_length", "error.st_short", obj({{"size", 8}}));
    throw TruncatedError("safetensors.header_length", bytes.size(), 8);
  }
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) {
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[static_cast<std::size_t>(k)]))
         << (8 * k);
  }
  if (n > limits.max_header_bytes) {
    limit_error("safetensors.header", "error.checkpoint_header", n, limits.max_header_bytes);
  }
  if (n < 2) {
    invalid("safetensors.header_length", "error.st_header_small", obj({{"size", n}, {"min", 2}}));
  }
  Header h;
  h.header_bytes = 8 + n;
  if (file_size > 0 && h.header_bytes > file_size) {
    invalid("safetensors.header_length", "error.st_past_end");
  }
  if (bytes.size() < h.header_bytes) {
    throw TruncatedError("safetensors.header", bytes.size(), h.header_bytes);
  }
  // n <= max_header_bytes and within bytes: fits a 32-bit size_t too.
  const std::string_view text = bytes.substr(8, static_cast<std::size_t>(n));
  if (text.front() != '{') invalid("safetensors.header", "error.st_not_object");
  if (nesting_depth(text) > limits.max_depth) {
    throw Error::make("invalid_safetensors", "safetensors.header", "error.too_deep",
                      obj({{"field", "safetensors.header"}, {"limit", limits.max_depth}}));
  }
  // Member by member: the header is never held whole as a JSON document, and
  // each bound is checked before the work it bounds.
  std::uint64_t metadata_bytes = 0;
  bool seen_metadata = false;
  try {
    json_read::ObjectStream in(text, static_cast<std::size_t>(limits.max_depth),
                               "safetensors.header");
    in.enter();
    std::string key;
    // Each name's extent is measured before it is copied; decoded, it is no longer.
    in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "safetensors.tensors");
    while (in.next(key)) {
      if (key == "__metadata__") {
        if (seen_metadata) {
          throw Error::make("invalid_safetensors", "safetensors.__metadata__",
                            "error.checkpoint_duplicate",
                            obj({{"field", "safetensors.__metadata__"}, {"name", "__metadata__"}}));
        }
        seen_metadata = true;
        const std::size_t at = in.offset();
        if (at >= text.size() || text[at] != '{') {
          invalid("safetensors.__metadata__", "error.object");
        }
        in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "safetensors.__metadata__");
        in.enter();
        while (in.next(key)) {
          const std::string field = "safetensors.__metadata__";
          const std::size_t extent = value_extent(text, in.offset());
          const std::uint64_t cost = 16 + key.size() + extent;
          if (cost > limits.max_metadata_bytes - metadata_bytes) {
            limit_error(field, "error.checkpoint_metadata", metadata_bytes + cost,
                        limits.max_metadata_bytes);
          }
          metadata_bytes += cost;
          const json value = in.value();
          if (!value.is_string()) {
            invalid(field + "." + Error::quote(key), "error.st_metadata_string");
          }
          if (!h.metadata.emplace(key, value.get<std::string>()).second) {
            throw Error::make("invalid_safetensors", field, "error.checkpoint_duplicate",
                              obj({{"field", field}, {"name", Error::quote(key)}}));
          }
        }
        in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "safetensors.tensors");
        continue;
      }
      if (h.tensors.size() >= limits.max_tensors) {
        limit_error("safetensors.tensors", "error.checkpoint_tensors", h.tensors.size() + 1,
                    limits.max_tensors);
      }
      const std::string field = "safetensors.tensors." + Error::quote(key);
      const std::size_t extent = value_extent(text, in.offset());
      if (extent > limits.max_entry_bytes) {
        limit_error(field, "error.checkpoint_entry", extent, limits.max_entry_bytes);
      }
      h.tensors.push_back(read_tensor(in.value(), key, field));
    }
  } catch (const json::parse_error& e) {
    invalid("safetensors.header", "error.index_json", obj({{"byte", e.byte}}));
  } catch (const json::exception&) {
    // out_of_range, for numbers such as 1e400.
    invalid("safetensors.header", "error.json_number");
  }
  // Each name once, as the reference loader requires: sorted, then neighbours compared.
  {
    std::vector<const TensorInfo*> by_name;
    by_name.reserve(h.tensors.size());
    for (const TensorInfo& t : h.tensors) by_name.push_back(&t);
    std::sort(by_name.begin(), by_name.end(),
              [](const TensorInfo* a, const TensorInfo* b) { return a->name < b->name; });
    for (std::size_t i = 1; i < by_name.size(); ++i) {
      if (by_name[i]->name == by_name[i - 1]->name) {
        const std::string field = "safetensors.tensors." + Error::quote(by_name[i]->name);
        throw Error::make("invalid_safetensors", field, "error.checkpoint_duplicate",
                          obj({{"field", field}, {"name", Error::quote(by_name[i]->name)}}));
      }
    }
  }
  // The data buffer is the tensors back to back: no hole, no overlap.
  stable_sort_by(h.tensors, [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const TensorInfo& t : h.tensors) {
    if (t.begin != expected) {
      const std::string quoted = Error::quote(t.name);
      invalid("safetensors.tensors." + quoted + ".data_offsets", "error.st_hole",
              obj({{"name", quoted}, {"offset", t.begin}, {"expected", expected}}));
    }
    expected = t.end;
  }
  h.data_bytes = expected;
  if (file_size > 0 && h.header_bytes + h.data_bytes != file_size) {
    invalid("safetensors.data_offsets", "error.st_file_size",
            obj({{"end", h.header_bytes + h.data_bytes}, {"size", file_size}}));
  }
  return h;
}

Index read_index(std::string_view text, const Limits& limits) {
  if (text.size() > limits.max_index_bytes) {
    throw Error::make(
        "too_large", "index", "error.checkpoint_index",
        obj({{"field", "index"}, {"size", text.size()}, {"limit", limits.max_index_bytes}}));
  }
  Index out;
  // Each file once, in first-seen order: a hash set, so n names take linear time.
  std::unordered_set<std::string> seen;
  bool seen_map = false;
  try {
    json_read::ObjectStream in(text, kIndexDepth, "index");
    in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "index");
    const std::size_t start = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (start == std::string_view::npos || text[start] != '{')
      throw Error::make("invalid_index", "index", "error.index_object", json::object());
    in.enter();
    std::string key;
    while (in.next(key)) {
      if (key == "weight_map") {
        const std::size_t at = in.offset();
        if (seen_map || at >= text.size() || text[at] != '{') {
          in.value();  // a syntax error first, as a whole read would find it
          throw Error::make("invalid_index", "index.weight_map", "error.index_map",
                            obj({{"field", "index.weight_map"}}));
        }
        seen_map = true;
        in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "index.weight_map");
        in.enter();
        std::string name;
        while (in.next(name)) {
          const std::string field = "index.weight_map." + Error::quote(name);
          if (value_extent(text, in.offset()) > limits.max_name_bytes + 2) {
            limit_error(field, "error.checkpoint_name", value_extent(text, in.offset()),
                        limits.max_name_bytes);
          }
          const json file = in.value();
          if (!file.is_string() || file.get_ref<const std::string&>().empty()) {
            throw Error::make("invalid_index", field, "error.index_file_name",
                              obj({{"field", field}}));
          }
          ++out.tensors;
          const std::string& path = file.get_ref<const std::string&>();
          if (seen.count(path) != 0) continue;
          if (seen.size() >= limits.max_shards) {
            limit_error("index.weight_map", "error.checkpoint_shards", seen.size() + 1,
                        limits.max_shards);
          }
          seen.insert(path);
          out.files.push_back(path);
        }
        in.limit_keys(static_cast<std::size_t>(limits.max_name_bytes), "index");
        continue;
      }
      const std::size_t extent = value_extent(text, in.offset());
      if (key != "metadata") {
        // Unknown members are read (checked) and let go.
        if (extent > limits.max_metadata_bytes) {
          limit_error("index." + Error::quote(key), "error.checkpoint_metadata", extent,
                      limits.max_metadata_bytes);
        }
        in.value();
        continue;
      }
      if (extent > limits.max_metadata_bytes) {
        limit_error("index.metadata", "error.checkpoint_metadata", extent,
                    limits.max_metadata_bytes);
      }
      json meta;
      try {
        meta = in.value();
      } catch (const json::out_of_range&) {
        // A number past a double (1e400), as total_size could be.
        throw Error::make("invalid_index", "index.metadata.total_size", "error.index_total",
                          obj({{"field", "index.metadata.total_size"}}));
      }
      if (meta.is_null()) continue;
      if (!meta.is_object())
        throw Error::make("invalid_index", "index.metadata", "error.object",
                          obj({{"field", "index.metadata"}}));
      if (const auto total = meta.find("total_size"); total != meta.end()) {
        if (!total->is_number() || !(total->get<double>() >= 0) || total->get<double>() > 1e16) {
          throw Error::make("invalid_index", "index.metadata.total_size", "error.index_total",
                            obj({{"field", "index.metadata.total_size"}}));
        }
        out.total_size = total->get<double>();
      }
    }
  } catch (const json::parse_error& e) {
    throw Error::make("invalid_index", "index", "error.index_json",
                      obj({{"field", "index"}, {"byte", e.byte}}));
  } catch (const json::exception&) {
    // out_of_range: a number past a double outside metadata.
    throw Error::make("invalid_index", "index", "error.json_number", obj({{"field", "index"}}));
  }
  if (!seen_map || out.files.empty()) {
    throw Error::make("invalid_index", "index.weight_map", "error.index_map",
                      obj({{"field", "index.weight_map"}}));
  }
  return out;
}

}  // namespace vram::safetensors
