#pragma once

// A small GGUF writer for the tests: the header (key-values and tensor
// infos, ggml/docs/gguf.md) and zero-filled tensor data, little-endian.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vram/gguf.hpp"

namespace testing {

struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::string type;
};

class GgufWriter {
 public:
  explicit GgufWriter(std::uint32_t version = 3) : version_(version) {}

  GgufWriter& u32(const std::string& key, std::uint32_t v) { return scalar(key, 4, v, 4); }
  GgufWriter& i32(const std::string& key, std::int32_t v) {
    return scalar(key, 5, static_cast<std::uint32_t>(v), 4);
  }
  GgufWriter& u64(const std::string& key, std::uint64_t v) { return scalar(key, 10, v, 8); }
  GgufWriter& f32(const std::string& key, float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return scalar(key, 6, bits, 4);
  }
  GgufWriter& boolean(const std::string& key, bool v) { return scalar(key, 7, v ? 1 : 0, 1); }
  GgufWriter& str(const std::string& key, const std::string& v) {
    head(key, 8);
    put_string(kv_, v);
    return *this;
  }
  GgufWriter& u32s(const std::string& key, const std::vector<std::uint32_t>& v) {
    head(key, 9);
    put(kv_, 4, 4);
    put(kv_, v.size(), 8);
    for (std::uint32_t x : v) put(kv_, x, 4);
    return *this;
  }
  GgufWriter& bools(const std::string& key, const std::vector<bool>& v) {
    head(key, 9);
    put(kv_, 7, 4);
    put(kv_, v.size(), 8);
    for (bool x : v) put(kv_, x ? 1 : 0, 1);
    return *this;
  }
  GgufWriter& strs(const std::string& key, const std::vector<std::string>& v) {
    head(key, 9);
    put(kv_, 8, 4);
    put(kv_, v.size(), 8);
    for (const std::string& x : v) put_string(kv_, x);
    return *this;
  }
  /** An array of arrays of int32, to exercise nesting. */
  GgufWriter& nested(const std::string& key, const std::vector<std::vector<std::int32_t>>& v) {
    head(key, 9);
    put(kv_, 9, 4);
    put(kv_, v.size(), 8);
    for (const auto& inner : v) {
      put(kv_, 5, 4);
      put(kv_, inner.size(), 8);
      for (std::int32_t x : inner) put(kv_, static_cast<std::uint32_t>(x), 4);
    }
    return *this;
  }
  GgufWriter& tensor(const std::string& name, std::vector<std::uint64_t> shape,
                     const std::string& type) {
    tensors_.push_back({name, std::move(shape), type});
    return *this;
  }

  /** The file: header, padding, and `data` zero bytes of tensor data (all of it by default). */
  std::string build(bool with_data = true, std::uint64_t alignment = 32) const {
    std::string out;
    put(out, 0x46554747u, 4);
    put(out, version_, 4);
    put(out, tensors_.size(), 8);
    put(out, n_kv_, 8);
    out += kv_;
    std::uint64_t offset = 0;
    for (const GgufTensor& t : tensors_) {
      put_string(out, t.name);
      put(out, t.shape.size(), 4);
      for (std::uint64_t d : t.shape) put(out, d, 8);
      const vram::gguf::TypeInfo* info = vram::gguf::find_type(t.type);
      put(out, info->id, 4);
      put(out, offset, 8);
      std::uint64_t bytes = t.shape[0] / info->block_size * info->type_size;
      for (std::size_t i = 1; i < t.shape.size(); ++i) bytes *= t.shape[i];
      offset += (bytes + alignment - 1) / alignment * alignment;
    }
    out.resize((out.size() + alignment - 1) / alignment * alignment, '\0');
    if (with_data) out.resize(out.size() + offset, '\0');
    return out;
  }

 private:
  static void put(std::string& out, std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
  }
  static void put_string(std::string& out, const std::string& s) {
    put(out, s.size(), 8);
    out += s;
  }
  void head(const std::string& key, std::uint32_t type) {
    put_string(kv_, key);
    put(kv_, type, 4);
    ++n_kv_;
  }
  GgufWriter& scalar(const std::string& key, std::uint32_t type, std::uint64_t v, int bytes) {
    head(key, type);
    put(kv_, v, bytes);
    return *this;
  }

  std::uint32_t version_;
  std::string kv_;
  std::uint64_t n_kv_ = 0;
  std::vector<GgufTensor> tensors_;
};

/** A small llama: 2 layers, Q4_K_M-like mix (Q4_K, Q6_K, F32 norms). */
inline GgufWriter llama_fixture(std::uint32_t version = 3, bool tokens = false) {
  GgufWriter w(version);
  w.str("general.architecture", "llama")
      .str("general.name", "tiny llama")
      .u32("llama.block_count", 2)
      .u32("llama.context_length", 4096)
      .u32("llama.embedding_length", 256)
      .u32("llama.feed_forward_length", 512)
      .u32("llama.attention.head_count", 4)
      .u32("llama.attention.head_count_kv", 2)
      .f32("llama.rope.freq_base", 500000.0f)
      .u32("general.file_type", 15);
  if (tokens) {
    std::vector<std::string> vocab;
    for (int i = 0; i < 5000; ++i) vocab.push_back("tok" + std::to_string(i));
    w.strs("tokenizer.ggml.tokens", vocab);
  } else {
    w.u32("llama.vocab_size", 5000);
  }
  w.tensor("token_embd.weight", {256, 5000}, "Q4_K");
  for (int i = 0; i < 2; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    w.tensor(b + "attn_norm.weight", {256}, "F32")
        .tensor(b + "attn_q.weight", {256, 256}, "Q4_K")
        .tensor(b + "attn_k.weight", {256, 128}, "Q4_K")
        .tensor(b + "attn_v.weight", {256, 128}, "Q6_K")
        .tensor(b + "attn_output.weight", {256, 256}, "Q4_K")
        .tensor(b + "ffn_norm.weight", {256}, "F32")
        .tensor(b + "ffn_gate.weight", {256, 512}, "Q4_K")
        .tensor(b + "ffn_up.weight", {256, 512}, "Q4_K")
        .tensor(b + "ffn_down.weight", {512, 256}, "Q6_K");
  }
  w.tensor("output_norm.weight", {256}, "F32").tensor("output.weight", {256, 5000}, "Q6_K");
  return w;
}

}  // namespace testing
