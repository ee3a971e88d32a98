#include "vram/gguf.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram::gguf {

using nlohmann::json;

namespace {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    std::uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      min = 0x10000;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    std::uint32_t cp = c & (0x3Fu >> extra);
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

/**
 * Where a read is, as a chain of parts ("gguf.metadata." key "[12]" ".type")
 * spelled out only when an error names it: a million array items cost no
 * string each.
 */
struct Where {
  const Where* parent = nullptr;
  std::string_view text;
  std::uint64_t index = 0;
  bool indexed = false;

  std::string str() const {
    std::string out = parent != nullptr ? parent->str() : std::string();
    if (indexed) {
      out += "[" + std::to_string(index) + "]";
    } else {
      out.append(text.data(), text.size());
    }
    return out;
  }
  Where sub(std::string_view suffix) const { return Where{this, suffix, 0, false}; }
  Where at(std::uint64_t i) const { return Where{this, {}, i, true}; }
};

[[noreturn]] void too_large(const std::string& field, const char* id, std::uint64_t size,
                            std::uint64_t limit) {
  throw Error::make("too_large", field, id,
                    obj({{"field", field}, {"size", size}, {"limit", limit}}));
}

/** A header that breaks GGUF's rules: `id`'s template with `params` and {field}. */
[[noreturn]] void invalid(const std::string& field, const char* id, json params = json::object()) {
  params["field"] = field;
  throw Error::make("invalid_gguf", field, id, std::move(params));
}

/** A cursor over the buffer: every read is checked against what remains. */
class Reader {
 public:
  Reader(std::string_view bytes, std::uint64_t file_size, const Limits& limits)
      : bytes_(bytes), file_size_(file_size), limits_(limits) {}

  std::uint64_t pos() const { return pos_; }

  /** Makes sure n more bytes are there, or says why not. */
  void need(std::uint64_t n, const Where& where) {
    const std::uint64_t end = pos_ + n;
    if (n > limits_.max_header_bytes || end > limits_.max_header_bytes) {
      too_large("gguf.header", "error.checkpoint_header", n > limits_.max_header_bytes ? n : end,
                limits_.max_header_bytes);
    }
    if (end <= bytes_.size()) return;
    const std::string field = where.str();
    if (file_size_ > 0 && end > file_size_) {
      invalid(field, "error.gguf_past_end", obj({{"size", file_size_}}));
    }
    throw TruncatedError(field, bytes_.size(), end);
  }

  template <typename T>
  T scalar(const Where& where) {
    need(sizeof(T), where);
    // Little-endian, byte by byte: the same on every host.
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < sizeof(T); ++k) {
      v |= static_cast<std::uint64_t>(
               static_cast<unsigned char>(bytes_[static_cast<std::size_t>(pos_ + k)]))
           << (8 * k);
    }
    pos_ += sizeof(T);
    T out;
    if constexpr (sizeof(T) == 8) {
      std::memcpy(&out, &v, 8);
    } else if constexpr (sizeof(T) == 4) {
      const auto v32 = static_cast<std::uint32_t>(v);
      std::memcpy(&out, &v32, 4);
    } else if constexpr (sizeof(T) == 2) {
      const auto v16 = static_cast<std::uint16_t>(v);
      std::memcpy(&out, &v16, 2);
    } else {
      const auto v8 = static_cast<std::uint8_t>(v);
      std::memcpy(&out, &v8, 1);
    }
    return out;
  }

  /** A string's length, checked against `max_bytes` (a name's limit when `name_limit`). */
  std::uint64_t length(const Where& where, std::uint64_t max_bytes, bool name_limit) {
    const auto length = scalar<std::uint64_t>(where.sub(".length"));
    if (length > max_bytes) {
      const std::string field = where.str();
      if (name_limit) too_large(field, "error.checkpoint_name", length, max_bytes);
      invalid(field, "error.gguf_string_long", obj({{"length", length}, {"limit", max_bytes}}));
    }
    need(length, where);
    return length;
  }

  std::string string(const Where& where, std::uint64_t max_bytes, bool name_limit = false) {
    const std::uint64_t n = length(where, max_bytes, name_limit);
    std::string out(bytes_.substr(static_cast<std::size_t>(pos_), static_cast<std::size_t>(n)));
    pos_ += n;
    return out;
  }

  /** n bytes already checked by length(), as a string. */
  std::string take(std::uint64_t n) {
    std::string out(bytes_.substr(static_cast<std::size_t>(pos_), static_cast<std::size_t>(n)));
    pos_ += n;
    return out;
  }

  void skip(std::uint64_t n, const Where& where) {
    need(n, where);
    pos_ += n;
  }

  /** n bools: each byte 0 or 1, checked in one pass. */
  void bools(std::uint64_t n, const Where& where) {
    need(n, where);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data()) + pos_;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (p[i] > 1) {
        invalid(where.at(i).str(), "error.gguf_bool");
      }
    }
    pos_ += n;
  }

 private:
  std::string_view bytes_;
  std::uint64_t file_size_;
  const Limits& limits_;
  std::uint64_t pos_ = 0;
};

// A metadata float that is NaN or infinite: no real file holds one, and a
// JSON answer cannot carry it (it would become null).
double finite(double value, const Where& where) {
  if (!std::isfinite(value)) {
    invalid(where.str(), "error.gguf_float");
  }
  return value;
}

json read_scalar(Reader& r, std::uint32_t type, const Where& where) {
  switch (type) {
    case kUint8:
      return r.scalar<std::uint8_t>(where);
    case kInt8:
      return r.scalar<std::int8_t>(where);
    case kUint16:
      return r.scalar<std::uint16_t>(where);
    case kInt16:
      return r.scalar<std::int16_t>(where);
    case kUint32:
      return r.scalar<std::uint32_t>(where);
    case kInt32:
      return r.scalar<std::int32_t>(where);
    case kFloat32:
      return finite(static_cast<double>(r.scalar<float>(where)), where);
    case kUint64:
      return r.scalar<std::uint64_t>(where);
    case kInt64:
      return r.scalar<std::int64_t>(where);
    case kFloat64:
      return finite(r.scalar<double>(where), where);
    case kBool: {
      const auto b = r.scalar<std::uint8_t>(where);
      if (b > 1) {
        invalid(where.str(), "error.gguf_bool");
      }
      return b == 1;
    }
    default:
      break;
  }
  invalid(where.str(), "error.gguf_value_type", obj({{"type", type}}));
}

/** What the answer keeps of the metadata, counted as it is kept: 16 bytes a value plus text. */
struct Budget {
  std::uint64_t used = 0;
  std::uint64_t limit = 0;
  void spend(std::uint64_t bytes) {
    if (bytes > limit - used) {
      too_large("gguf.metadata", "error.checkpoint_metadata", used + bytes, limit);
    }
    used += bytes;
  }
};

constexpr std::uint64_t kValueCost = 16;

/**
 * One value of `type`; arrays recurse at most limits.max_array_depth deep.
 * `keep` false reads and checks without storing (items of long arrays).
 */
json read_value(Reader& r, std::uint32_t type, const Where& where, const Limits& limits, int depth,
                bool keep, KeyValue* top, Budget& budget) {
  if (type == kString) {
    const std::uint64_t n = r.length(where, limits.max_string_bytes, false);
    if (!keep) {
      r.skip(n, where);
      return json();
    }
    budget.spend(kValueCost + n);  // before the copy
    return json(r.take(n));
  }
  if (type != kArray) {
    if (!keep) {
      read_scalar(r, type, where);  // checked (bools are 0 or 1), not stored
      return json();
    }
    budget.spend(kValueCost);
    return read_scalar(r, type, where);
  }
  if (depth >= limits.max_array_depth) {
    invalid(where.str(), "error.gguf_array_depth", obj({{"limit", limits.max_array_depth}}));
  }
  const auto element = r.scalar<std::uint32_t>(where.sub(".type"));
  if (element > kFloat64) {
    invalid(where.str() + ".type", "error.gguf_element_type", obj({{"type", element}}));
  }
  const auto length = r.scalar<std::uint64_t>(where.sub(".length"));
  if (length > limits.max_array_length) {
    invalid(where.str() + ".length", "error.gguf_array_length",
            obj({{"length", length}, {"limit", limits.max_array_length}}));
  }
  if (top != nullptr) {
    top->array_type = element;
    top->array_length = length;
  }
  const bool keep_items = keep && length <= limits.max_kept_array;
  if (top != nullptr) top->value_kept = keep_items;
  const std::uint64_t size = scalar_size(element);
  if (!keep_items && size > 0) {
    // Fixed-size items: check the span at once, no loop over an untrusted count.
    if (length > std::numeric_limits<std::uint64_t>::max() / size) {
      invalid(where.str() + ".length", "error.gguf_array_bytes");
    }
    if (element == kBool) {
      r.bools(length, where);
    } else {
      r.skip(length * size, where);
    }
    return json();
  }
  if (keep_items) budget.spend(kValueCost);  // the list; each item is counted as it is read
  json out = keep_items ? json::array() : json();
  if (keep_items) out.get_ref<json::array_t&>().reserve(static_cast<std::size_t>(length));
  for (std::uint64_t i = 0; i < length; ++i) {
    // Each item consumes at least one byte, so the loop ends with the buffer.
    json item = read_value(r, element, where.at(i), limits, depth + 1, keep_items, nullptr, budget);
    if (keep_items) out.push_back(std::move(item));
  }
  return out;
}

bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return true;
  *out = a * b;
  return false;
}

}  // namespace

const KeyValue* Header::find(std::string_view key) const {
  for (const KeyValue& kv : metadata) {
    if (kv.key == key) return &kv;
  }
  return nullptr;
}

Header read_header(std::string_view bytes, std::uint64_t file_size, const Limits& limits) {
  if (bytes.empty()) {
    // No byte at all is no prefix of a header: an empty file, not a short read.
    throw Error::make("invalid_gguf", "gguf.magic", "error.checkpoint_empty",
                      obj({{"field", "gguf.magic"}}));
  }
  Reader r(bytes, file_size, limits);
  Header h;
  const Where root{nullptr, "gguf."};
  const auto magic = r.scalar<std::uint32_t>(root.sub("magic"));
  if (magic != 0x46554747u) {  // "GGUF" read as a little-endian uint32
    invalid("gguf.magic", "error.gguf_magic");
  }
  h.version = r.scalar<std::uint32_t>(root.sub("version"));
  if (h.version != 2 && h.version != 3) {
    // A big-endian file reads its version byte-swapped (e.g. 0x03000000).
    invalid("gguf.version", "error.gguf_version", obj({{"version", h.version}}));
  }
  const auto n_tensors = r.scalar<std::uint64_t>(root.sub("tensor_count"));
  const auto n_kv = r.scalar<std::uint64_t>(root.sub("metadata_kv_count"));
  if (n_tensors > limits.max_tensors) {
    too_large("gguf.tensor_count", "error.checkpoint_tensors", n_tensors, limits.max_tensors);
  }
  if (n_kv > limits.max_key_values) {
    invalid("gguf.metadata_kv_count", "error.gguf_key_values",
            obj({{"count", n_kv}, {"limit", limits.max_key_values}}));
  }

  Budget budget{0, limits.max_metadata_bytes};
  std::set<std::string> keys;
  const Where metadata = root.sub("metadata");
  const Where by_key = root.sub("metadata.");
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const Where item = metadata.at(i);
    KeyValue kv;
    const Where key_at = item.sub(".key");
    const std::uint64_t key_bytes = r.length(key_at, limits.max_key_bytes, true);
    budget.spend(kValueCost + key_bytes);  // every key is kept, with its value or its length
    kv.key = r.take(key_bytes);
    if (kv.key.empty() || !valid_utf8(kv.key)) {
      invalid(key_at.str(), "error.gguf_key");
    }
    if (!keys.insert(kv.key).second) {
      const std::string field = key_at.str();
      throw Error::make("invalid_gguf", field, "error.checkpoint_duplicate",
                        obj({{"field", field}, {"name", Error::quote(kv.key)}}));
    }
    kv.type = r.scalar<std::uint32_t>(item.sub(".type"));
    if (kv.type > kFloat64) {
      invalid(item.str() + ".type", "error.gguf_metadata_type",
              obj({{"key", Error::quote(kv.key)}, {"type", kv.type}}));
    }
    const Where value_at{&by_key, kv.key};
    kv.value = read_value(r, kv.type, value_at, limits, 0, true, &kv, budget);
    h.metadata.push_back(std::move(kv));
  }

  if (const KeyValue* align = h.find("general.alignment")) {
    const bool ok =
        align->type == kUint32 && align->value.get<std::uint64_t>() > 0 &&
        (align->value.get<std::uint64_t>() & (align->value.get<std::uint64_t>() - 1)) == 0;
    if (!ok) {
      invalid("gguf.metadata.general.alignment", "error.gguf_alignment");
    }
    h.alignment = align->value.get<std::uint64_t>();
  }

  std::uint64_t expected_offset = 0;
  h.tensors.reserve(static_cast<std::size_t>(n_tensors));  // within max_tensors
  const Where infos = root.sub("tensor_infos");
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    const Where at = infos.at(i);
    const std::string field = at.str();  // one per tensor, at most max_tensors
    TensorInfo t;
    t.name = r.string(at.sub(".name"), limits.max_name_bytes);
    if (!valid_utf8(t.name)) invalid(field + ".name", "error.gguf_name");
    const std::string name = Error::quote(t.name);
    const auto n_dims = r.scalar<std::uint32_t>(at.sub(".n_dims"));
    if (n_dims == 0 || n_dims > 4) {
      invalid(field + ".n_dims", "error.gguf_dims", obj({{"name", name}, {"dims", n_dims}}));
    }
    t.elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const auto ne = r.scalar<std::uint64_t>(at.sub(".dims"));
      // ggml keeps sizes in int64_t.
      if (ne > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
          mul_overflows(t.elements, ne, &t.elements) ||
          t.elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        invalid(field + ".dims", "error.gguf_elements", obj({{"name", name}}));
      }
      t.shape.push_back(ne);
    }
    t.type = r.scalar<std::uint32_t>(at.sub(".type"));
    const TypeInfo* info = find_type(t.type);
    if (info == nullptr) {
      invalid(field + ".type", "error.gguf_tensor_type", obj({{"name", name}, {"type", t.type}}));
    }
    if (t.shape[0] % info->block_size != 0) {
      invalid(field + ".dims", "error.gguf_block",
              obj({{"name", name},
                   {"row", t.shape[0]},
                   {"type", info->name},
                   {"block", info->block_size}}));
    }
    std::uint64_t size = t.shape[0] / info->block_size;
    bool overflow = mul_overflows(size, info->type_size, &size);
    for (std::size_t d = 1; d < t.shape.size() && !overflow; ++d) {
      overflow = mul_overflows(size, t.shape[d], &size);
    }
    if (overflow || size > (1ull << 62)) {
      invalid(field + ".dims", "error.gguf_tensor_size", obj({{"name", name}}));
    }
    t.bytes = size;
    t.offset = r.scalar<std::uint64_t>(at.sub(".offset"));
    // llama.cpp's rule: tensors follow each other, each padded to the alignment.
    if (t.offset != expected_offset) {
      invalid(field + ".offset", "error.gguf_offset",
              obj({{"name", name}, {"offset", t.offset}, {"expected", expected_offset}}));
    }
    const std::uint64_t padded = (size + h.alignment - 1) / h.alignment * h.alignment;
    if (padded > (1ull << 62) - expected_offset) {
      invalid(field + ".dims", "error.gguf_data_size");
    }
    expected_offset += padded;
    h.tensors.push_back(std::move(t));
  }
  // Each name once: sorted, then neighbours compared (n log n, no second copy of the names).
  {
    std::vector<std::uint32_t> order(h.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return h.tensors[a].name != h.tensors[b].name ? h.tensors[a].name < h.tensors[b].name : a < b;
    });
    for (std::size_t k = 1; k < order.size(); ++k) {
      if (h.tensors[order[k]].name == h.tensors[order[k - 1]].name) {
        const std::string field = "gguf.tensor_infos[" + std::to_string(order[k]) + "].name";
        throw Error::make("invalid_gguf", field, "error.checkpoint_duplicate",
                          obj({{"field", field}, {"name", h.tensors[order[k]].name}}));
      }
    }
  }
  h.data_offset = (r.pos() + h.alignment - 1) / h.alignment * h.alignment;
  h.data_bytes = expected_offset;
  if (file_size > 0 && !h.tensors.empty()) {
    const TensorInfo& last = h.tensors.back();
    if (h.data_offset > file_size || last.offset + last.bytes > file_size - h.data_offset) {
      invalid("gguf.tensor_infos", "error.gguf_file_short",
              obj({{"need", h.data_offset + last.offset + last.bytes}, {"size", file_size}}));
    }
  }
  return h;
}

}  // namespace vram::gguf
