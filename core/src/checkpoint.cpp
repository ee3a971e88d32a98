#include "vram/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <optional>
#include <set>
#include <string_view>

#include "json_read.hpp"
#include "vram/boundary.hpp"
#include "vram/error.hpp"
#include "vram/hf_config.hpp"
#include "vram/limits.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

const std::vector<std::string> kComponents = {
    "embeddings", "attention", "mlp", "experts", "norms", "lm_head", "ssm", "other", "mtp"};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// --- GGUF metadata, read with the key named on error -------------------------

/** A metadata value that cannot be used: `id`'s template with {key} and `params`. */
[[noreturn]] void bad_key(const std::string& key, const char* id, json params = json::object()) {
  params["key"] = Error::quote(key);
  throw Error::make("invalid_gguf", "gguf.metadata." + key, id, std::move(params));
}

/**
 * A whole number, or the largest of a per-layer array (head_count_kv of
 * hybrid models holds 0 for recurrent layers).
 */
std::optional<std::int64_t> meta_int(const gguf::Header& h, const std::string& key) {
  const gguf::KeyValue* kv = h.find(key);
  if (kv == nullptr) return std::nullopt;
  auto as_int = [&](const json& v) -> std::int64_t {
    if (!v.is_number()) bad_key(key, "error.gguf_meta_number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || d > 1e15 || d != std::floor(d))
      bad_key(key, "error.gguf_meta_whole", obj({{"max", 1e15}}));
    return static_cast<std::int64_t>(d);
  };
  if (kv->type == gguf::kArray) {
    if (!kv->value_kept || !gguf::is_number_type(kv->array_type) || kv->array_length == 0)
      bad_key(key, "error.gguf_meta_numbers");
    std::int64_t most = 0;
    for (const json& v : kv->value) most = std::max(most, as_int(v));
    return most;
  }
  if (!gguf::is_number_type(kv->type)) bad_key(key, "error.gguf_meta_number");
  return as_int(kv->value);
}

std::optional<std::string> meta_string(const gguf::Header& h, const std::string& key) {
  const gguf::KeyValue* kv = h.find(key);
  if (kv == nullptr) return std::nullopt;
  if (kv->type != gguf::kString) bad_key(key, "error.gguf_meta_string");
  return kv->value.get<std::string>();
}

/** llama.cpp architecture names -> Hugging Face model_type (the importer table). */
std::string model_type_for(const std::string& arch, const gguf::Header& h) {
  const std::int64_t experts = meta_int(h, arch + ".expert_count").value_or(0);
  return gguf_model_type(arch, experts, [&] {
    // DeepSeek V3 routes by sigmoid (expert_gating_func 2), V2 by softmax.
    return meta_int(h, arch + ".expert_gating_func").value_or(1);
  });
}

const gguf::TensorInfo* find_tensor(const gguf::Header& h, std::string_view name) {
  for (const gguf::TensorInfo& t : h.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

/**
 * The first of a GGUF's multi-token-prediction blocks, or none. llama.cpp's converter
 * appends them to block_count as its last nextn_predict_layers blocks (blk.N.*, the
 * nextn.* tensors among them) for the architectures the importer reads them for
 * (mtp_config_key: deepseek2, glm4moe, qwen3next, qwen35, qwen35moe). A header that does
 * not say plainly has none here: gguf_config names its bad key.
 */
std::optional<std::int64_t> first_mtp_block(const gguf::Header& h) {
  try {
    const std::string arch = meta_string(h, "general.architecture").value_or("");
    if (arch.empty() || mtp_config_key(model_type_for(arch, h)) == nullptr) return std::nullopt;
    const std::int64_t blocks = meta_int(h, arch + ".block_count").value_or(0);
    const std::int64_t nextn = meta_int(h, arch + ".nextn_predict_layers").value_or(0);
    if (nextn <= 0 || nextn >= blocks) return std::nullopt;
    return blocks - nextn;
  } catch (const Error&) {
    return std::nullopt;
  }
}

/** The block of a llama.cpp tensor name ("blk.12.attn_q.weight": 12), or none. */
std::optional<std::int64_t> block_of(std::string_view name) {
  if (!starts_with(name, "blk.")) return std::nullopt;
  std::size_t i = 4;
  std::int64_t block = 0;
  // Ten digits at most, so the number cannot overflow: a longer one is no block of ours.
  for (; i < name.size() && i < 14 && name[i] >= '0' && name[i] <= '9'; ++i)
    block = block * 10 + (name[i] - '0');
  if (i == 4 || i >= name.size() || name[i] != '.') return std::nullopt;
  return block;
}

json totals_json(const TensorTotals& t) {
  return obj({{"bytes", t.bytes}, {"elements", t.elements}});
}

json file_summary(const std::string& format, std::int64_t count,
                  const std::map<std::string, TensorTotals>& by_type,
                  const std::map<std::string, TensorTotals>& by_component) {
  TensorTotals all;
  json types = json::object();
  for (const auto& [type, t] : by_type) {
    types[type] = totals_json(t);
    all.bytes += t.bytes;
    all.elements += t.elements;
  }
  json components = json::object();
  for (const auto& [component, t] : by_component) components[component] = totals_json(t);
  return obj({{"format", format},
              {"tensor_count", count},
              {"bytes", all.bytes},
              {"elements", all.elements},
              {"by_type", types},
              {"by_component", components}});
}

/** The tensor list of an answer: at most kMaxListedTensors, the rest counted. */
void put_list(json& out, json list, std::size_t count) {
  out["tensors"] = std::move(list);
  if (count > limits::kMaxListedTensors)
    out["tensors_omitted"] = static_cast<std::uint64_t>(count - limits::kMaxListedTensors);
}

json inspect_gguf(std::string_view bytes, std::uint64_t file_size, bool list) {
  const gguf::Header h = gguf::read_header(bytes, file_size);
  json metadata = json::object();
  const char* kTypeNames[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
                              "bool",  "string", "array",  "uint64", "int64",  "float64"};
  for (const gguf::KeyValue& kv : h.metadata) {
    if (kv.value_kept) {
      metadata[kv.key] = kv.value;
    } else {
      metadata[kv.key] = obj(
          {{"type", "array"}, {"element", kTypeNames[kv.array_type]}, {"length", kv.array_length}});
    }
  }
  json tensors = json::array();
  std::map<std::string, TensorTotals> by_type;
  std::map<std::string, TensorTotals> by_component;
  // The multi-token-prediction blocks are a component of their own, whatever their tensors:
  // llama.cpp leaves them out of the model buffer unless it drafts with them (llamacpp.cpp).
  // A split part after the first has no metadata to say which they are (gguf-split writes
  // only split.* there): there they are the blocks that hold nextn.* tensors, the last part
  // holding the last blocks.
  const std::optional<std::int64_t> mtp_from = first_mtp_block(h);
  std::set<std::int64_t> nextn_blocks;
  if (h.find("general.architecture") == nullptr) {
    for (const gguf::TensorInfo& t : h.tensors) {
      const std::optional<std::int64_t> block = block_of(t.name);
      if (block && contains(t.name, ".nextn.")) nextn_blocks.insert(*block);
    }
  }
  auto in_mtp = [&](const std::string& name) {
    if (!mtp_from && nextn_blocks.empty()) return false;
    const std::optional<std::int64_t> block = block_of(name);
    return block && ((mtp_from && *block >= *mtp_from) || nextn_blocks.count(*block) > 0);
  };
  for (const gguf::TensorInfo& t : h.tensors) {
    const char* type = gguf::find_type(t.type)->name;
    if (list && tensors.size() < limits::kMaxListedTensors) {
      tensors.push_back(obj({{"name", t.name},
                             {"type", type},
                             {"shape", t.shape},
                             {"offset", t.offset},
                             {"bytes", t.bytes}}));
    }
    const auto b = static_cast<double>(t.bytes);
    const auto e = static_cast<double>(t.elements);
    by_type[type].bytes += b;
    by_type[type].elements += e;
    TensorTotals& c = by_component[in_mtp(t.name) ? "mtp" : tensor_component(t.name)];
    c.bytes += b;
    c.elements += e;
  }
  json file =
      file_summary("gguf", static_cast<std::int64_t>(h.tensors.size()), by_type, by_component);
  const auto split_count = meta_int(h, "split.count");
  if (split_count && *split_count > 1) {
    if (static_cast<std::uint64_t>(*split_count) > limits::kMaxShards) {
      throw Error::make("too_large", "gguf.metadata.split.count", "error.checkpoint_shards",
                        obj({{"field", "gguf.metadata.split.count"},
                             {"size", *split_count},
                             {"limit", limits::kMaxShards}}));
    }
    const auto no = meta_int(h, "split.no");
    if (!no || *no >= *split_count) bad_key("split.no", "error.gguf_meta_split");
    file["split"] = obj({{"no", *no}, {"count", *split_count}});
    if (const auto total = meta_int(h, "split.tensors.count")) file["split"]["tensors"] = *total;
  }
  json out = obj({{"format", "gguf"},
                  {"version", h.version},
                  {"alignment", h.alignment},
                  {"header_bytes", h.data_offset},
                  {"data_bytes", h.data_bytes},
                  {"metadata", std::move(metadata)},
                  {"file", file}});
  if (list) put_list(out, std::move(tensors), h.tensors.size());
  // Split parts after the first carry only split.* keys: no shape of their own.
  if (h.find("general.architecture") != nullptr) {
    // The tensors stand on their own; a shape the importer cannot read is
    // reported beside them, not instead of them.
    try {
      out["config"] = gguf_config(h);
    } catch (const Error& e) {
      out["config_error"] = e.to_json();  // with its message id, for the reader's language
    }
  }
  return out;
}

json inspect_safetensors(std::string_view bytes, std::uint64_t file_size, bool list) {
  const safetensors::Header h = safetensors::read_header(bytes, file_size);
  json tensors = json::array();
  std::map<std::string, TensorTotals> by_type;
  std::map<std::string, TensorTotals> by_component;
  for (const safetensors::TensorInfo& t : h.tensors) {
    if (list && tensors.size() < limits::kMaxListedTensors) {
      tensors.push_back(obj({{"name", t.name},
                             {"dtype", t.dtype},
                             {"shape", t.shape},
                             {"data_offsets", {t.begin, t.end}}}));
    }
    const auto b = static_cast<double>(t.bytes());
    const auto e = static_cast<double>(t.elements);
    by_type[t.dtype].bytes += b;
    by_type[t.dtype].elements += e;
    TensorTotals& c = by_component[tensor_component(t.name)];
    c.bytes += b;
    c.elements += e;
  }
  json out = obj({{"format", "safetensors"},
                  {"header_bytes", h.header_bytes},
                  {"data_bytes", h.data_bytes},
                  {"metadata", h.metadata},
                  {"file", file_summary("safetensors", static_cast<std::int64_t>(h.tensors.size()),
                                        by_type, by_component)}});
  if (list) put_list(out, std::move(tensors), h.tensors.size());
  return out;
}

}  // namespace

const std::vector<std::string>& checkpoint_components() { return kComponents; }

std::string tensor_component(std::string_view name) {
  // Norms first: "post_attention_layernorm" is a norm, not attention.
  if (contains(name, "norm") || contains(name, ".ln_") || starts_with(name, "ln_")) return "norms";
  if (contains(name, "token_embd") || contains(name, "embed_tokens") || contains(name, "wte") ||
      contains(name, "word_embeddings") || contains(name, "tok_embeddings") ||
      contains(name, "embed_in")) {
    return "embeddings";
  }
  if (starts_with(name, "output.") || starts_with(name, "lm_head") || contains(name, "embed_out"))
    return "lm_head";
  if (contains(name, "vision") || contains(name, "visual") || contains(name, "mm_") ||
      contains(name, "multi_modal") || contains(name, "mtp"))
    return "other";
  if (contains(name, "_exps") || contains(name, "_shexp") || contains(name, "ffn_gate_inp") ||
      contains(name, "experts") || contains(name, "shared_expert") || contains(name, "router") ||
      contains(name, "block_sparse_moe") || contains(name, "mlp.gate.") ||
      contains(name, "exp_probs_b"))
    return "experts";
  if (contains(name, "attn") || contains(name, "attention") || contains(name, "q_proj") ||
      contains(name, "k_proj") || contains(name, "v_proj") || contains(name, "o_proj") ||
      contains(name, "query_key_value"))
    return "attention";
  if (contains(name, "ssm") || contains(name, "mamba") || contains(name, "mixer")) return "ssm";
  if (contains(name, "ffn") || contains(name, "mlp") || contains(name, "feed_forward") ||
      contains(name, "dense_h_to_4h") || contains(name, "dense_4h_to_h"))
    return "mlp";
  return "other";
}

json gguf_config(const gguf::Header& h) {
  const std::string arch = meta_string(h, "general.architecture").value_or("");
  if (arch.empty()) bad_key("general.architecture", "error.gguf_meta_arch");
  auto key = [&arch](const char* k) { return arch + "." + k; };
  auto required = [&](const char* k) {
    const auto v = meta_int(h, key(k));
    if (!v) {
      throw Error::make("missing_field", "gguf.metadata." + key(k), "error.gguf_meta_required",
                        obj({{"key", Error::quote(key(k))}, {"arch", Error::quote(arch)}}));
    }
    return *v;
  };
  json cfg = obj({{"model_type", model_type_for(arch, h)}});
  cfg["hidden_size"] = required("embedding_length");
  // Multi-token-prediction layers sit after the model's own in block_count, and llama.cpp
  // caches KV for the first block_count - nextn_predict_layers only (n_layer_kv_from_start in
  // src/llama-model.cpp; GLM-4.5, Qwen3.5): the model's layers are the rest.
  const std::int64_t blocks = required("block_count");
  const std::int64_t nextn = meta_int(h, key("nextn_predict_layers")).value_or(0);
  if (nextn >= blocks) {
    bad_key(key("nextn_predict_layers"), "error.gguf_meta_nextn",
            obj({{"value", nextn}, {"layers", blocks}}));
  }
  cfg["num_hidden_layers"] = blocks - nextn;
  if (nextn > 0) {
    if (const char* mtp = mtp_config_key(cfg["model_type"].get<std::string>())) cfg[mtp] = nextn;
  }
  const std::int64_t heads = required("attention.head_count");
  cfg["num_attention_heads"] = heads;
  if (const auto kv = meta_int(h, key("attention.head_count_kv")); kv && *kv > 0)
    cfg["num_key_value_heads"] = *kv;
  if (const auto ff = meta_int(h, key("feed_forward_length")); ff && *ff > 0)
    cfg["intermediate_size"] = *ff;
  if (const auto ctx = meta_int(h, key("context_length"))) cfg["max_position_embeddings"] = *ctx;

  // The vocabulary: stated, or the tokenizer's, or the embedding's rows.
  std::optional<std::int64_t> vocab = meta_int(h, key("vocab_size"));
  if (!vocab) {
    if (const gguf::KeyValue* tokens = h.find("tokenizer.ggml.tokens");
        tokens != nullptr && tokens->type == gguf::kArray) {
      vocab = static_cast<std::int64_t>(tokens->array_length);
    }
  }
  const gguf::TensorInfo* embd = find_tensor(h, "token_embd.weight");
  if (!vocab && embd != nullptr && embd->shape.size() == 2)
    vocab = static_cast<std::int64_t>(embd->shape[1]);
  if (!vocab) {
    throw Error::make("missing_field", "gguf.metadata." + key("vocab_size"), "error.gguf_vocab",
                      obj({{"key", Error::quote(key("vocab_size"))}}));
  }
  cfg["vocab_size"] = *vocab;
  // llama.cpp writes output.weight only when the head is not tied.
  cfg["tie_word_embeddings"] = find_tensor(h, "output.weight") == nullptr;

  if (const auto window = meta_int(h, key("attention.sliding_window")); window && *window > 0) {
    cfg["sliding_window"] = *window;
    if (arch == "qwen2" || arch == "qwen3" || arch == "qwen2moe" || arch == "qwen3moe")
      cfg["use_sliding_window"] = true;
  }
  if (const gguf::KeyValue* pattern = h.find(key("attention.sliding_window_pattern"))) {
    if (pattern->type == gguf::kArray && pattern->value_kept &&
        pattern->array_type == gguf::kBool) {
      // One bool per layer: true where the layer slides.
      json types = json::array();
      for (const json& slides : pattern->value)
        types.push_back(slides.get<bool>() ? "sliding_attention" : "full_attention");
      cfg["layer_types"] = types;
    } else {
      cfg["sliding_window_pattern"] = *meta_int(h, key("attention.sliding_window_pattern"));
    }
  }

  const std::int64_t experts = meta_int(h, key("expert_count")).value_or(0);
  if (experts > 0) {
    const std::int64_t used = required("expert_used_count");
    const auto expert_ff = meta_int(h, key("expert_feed_forward_length"));
    if (arch == "gpt-oss") {
      cfg["num_local_experts"] = experts;
      cfg["num_experts_per_tok"] = used;
      if (expert_ff) cfg["intermediate_size"] = *expert_ff;
    } else if (arch == "llama") {
      cfg["num_local_experts"] = experts;  // Mixtral: experts as wide as the dense FFN
      cfg["num_experts_per_tok"] = used;
    } else if (arch == "deepseek2" || arch == "glm4moe") {
      cfg["n_routed_experts"] = experts;
      cfg["num_experts_per_tok"] = used;
      if (expert_ff) cfg["moe_intermediate_size"] = *expert_ff;
      cfg["n_shared_experts"] = meta_int(h, key("expert_shared_count")).value_or(0);
      cfg["first_k_dense_replace"] = meta_int(h, key("leading_dense_block_count")).value_or(0);
    } else {
      cfg["num_experts"] = experts;
      cfg["num_experts_per_tok"] = used;
      if (expert_ff) cfg["moe_intermediate_size"] = *expert_ff;
      if (const auto shared = meta_int(h, key("expert_shared_feed_forward_length")))
        cfg["shared_expert_intermediate_size"] = *shared;
    }
  }

  if (arch == "deepseek2") {
    // MLA: llama.cpp stores the decompressed head sizes in key_length_mla /
    // value_length_mla when key_length holds the absorbed latent size.
    const std::int64_t rope = required("rope.dimension_count");
    const auto k_mla = meta_int(h, key("attention.key_length_mla"));
    const std::int64_t k_len = k_mla ? *k_mla : required("attention.key_length");
    const auto v_mla = meta_int(h, key("attention.value_length_mla"));
    const std::int64_t v_len = v_mla ? *v_mla : required("attention.value_length");
    if (k_len <= rope) bad_key(key("attention.key_length"), "error.gguf_meta_key_length");
    cfg["kv_lora_rank"] = required("attention.kv_lora_rank");
    if (const auto q = meta_int(h, key("attention.q_lora_rank")); q && *q > 0)
      cfg["q_lora_rank"] = *q;
    cfg["qk_rope_head_dim"] = rope;
    cfg["qk_nope_head_dim"] = k_len - rope;
    cfg["v_head_dim"] = v_len;
  } else if (const auto head_dim = meta_int(h, key("attention.key_length"))) {
    cfg["head_dim"] = *head_dim;
  }

  if (arch == "falcon") {
    // Falcon 40B/180B (new decoder architecture) have grouped KV heads; 7B one.
    const std::int64_t kv = meta_int(h, key("attention.head_count_kv")).value_or(heads);
    cfg["new_decoder_architecture"] = kv > 1;
    cfg["multi_query"] = kv == 1;
    cfg["num_kv_heads"] = kv;
    cfg.erase("num_key_value_heads");
  }
  if (arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe") {
    // Gated DeltaNet layers as llama.cpp's converter writes them (conversion/qwen.py,
    // Qwen3NextModel.set_gguf_parameters): ssm.group_count the key heads, ssm.state_size a key
    // head's width, ssm.time_step_rank the value heads, ssm.inner_size all value heads' width.
    const std::int64_t value_heads = required("ssm.time_step_rank");
    const std::int64_t inner = required("ssm.inner_size");
    if (value_heads <= 0 || inner % value_heads != 0) {
      bad_key(key("ssm.inner_size"), "error.gguf_meta_divides",
              obj({{"value", inner},
                   {"by_key", Error::quote(key("ssm.time_step_rank"))},
                   {"by", value_heads}}));
    }
    cfg["linear_num_value_heads"] = value_heads;
    cfg["linear_value_head_dim"] = inner / value_heads;
    cfg["linear_num_key_heads"] = required("ssm.group_count");
    cfg["linear_key_head_dim"] = required("ssm.state_size");
    cfg["linear_conv_kernel_dim"] = required("ssm.conv_kernel");
    if (const auto every = meta_int(h, key("full_attention_interval")))
      cfg["full_attention_interval"] = *every;
  } else if (const auto inner = meta_int(h, key("ssm.inner_size")); inner && *inner > 0) {
    const std::int64_t hidden = cfg["hidden_size"].get<std::int64_t>();
    if (hidden > 0) cfg["mamba_expand"] = *inner / hidden;
    if (const auto s = meta_int(h, key("ssm.state_size"))) cfg["mamba_d_state"] = *s;
    if (const auto c = meta_int(h, key("ssm.conv_kernel"))) cfg["mamba_d_conv"] = *c;
    if (const auto r = meta_int(h, key("ssm.time_step_rank"))) cfg["mamba_dt_rank"] = *r;
    if (const auto g = meta_int(h, key("ssm.group_count"))) cfg["mamba_n_groups"] = *g;
  }
  return cfg;
}

json inspect_file(std::string_view kind, std::string_view bytes, std::uint64_t file_size,
                  bool list_tensors) {
  if (kind == "gguf") return inspect_gguf(bytes, file_size, list_tensors);
  if (kind == "safetensors") return inspect_safetensors(bytes, file_size, list_tensors);
  throw Error::make("invalid_value", "kind", "error.choice",
                    obj({{"field", "kind"},
                         {"choices", json::array({"gguf", "safetensors"})},
                         {"value", Error::quote(kind)}}));
}

std::string inspect(std::string_view kind, std::string_view bytes, double file_size,
                    bool list_tensors) noexcept {
  return guarded("bytes", [&] {
    if (!std::isfinite(file_size) || file_size < 0 || file_size > 1e16 ||
        file_size != std::floor(file_size)) {
      throw Error::make("invalid_value", "file_size", "error.whole_range",
                        obj({{"field", "file_size"}, {"min", 0}, {"max", 1e16}}));
    }
    if (file_size > 0 && static_cast<double>(bytes.size()) > file_size) {
      throw Error::make("invalid_value", "file_size", "error.file_size_short",
                        obj({{"field", "file_size"}}));
    }
    // Strings in a hostile header need not be UTF-8: replaced, never a throw.
    return inspect_file(kind, bytes, static_cast<std::uint64_t>(file_size), list_tensors)
        .dump(-1, ' ', false, json::error_handler_t::replace);
  });
}

}  // namespace vram
