#include "vram/hf_config.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/params.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

enum class Family {
  kLlama,  // llama, mistral, mixtral, qwen2, qwen3 and their MoE kin
  kGemma,
  kGemma2,
  kGemma3,
  kDeepseek,
  kGlm4Moe,
  kGptOss,
  kPhi3,
  kFalcon,
  kCohere,
  kJamba,
  kGptNeox,
  kBamba,
  kCustom,
  kUnknown,
};

struct FamilyInfo {
  const char* model_type;
  Family family;
  bool tie_default;  // the family's tie_word_embeddings when the key is absent
};

// tie_word_embeddings defaults follow each family's PretrainedConfig subclass
// in huggingface/transformers (e.g. GemmaConfig and FalconConfig default to
// True, LlamaConfig to False).
constexpr FamilyInfo kFamilies[] = {
    {"llama", Family::kLlama, false},
    {"mistral", Family::kLlama, false},
    {"mixtral", Family::kLlama, false},
    {"qwen2", Family::kLlama, false},
    {"qwen2_moe", Family::kLlama, false},
    {"qwen3", Family::kLlama, false},
    {"qwen3_moe", Family::kLlama, false},
    {"gemma", Family::kGemma, true},
    {"gemma2", Family::kGemma2, true},
    {"gemma3", Family::kGemma3, true},
    {"gemma3_text", Family::kGemma3, true},
    {"deepseek_v2", Family::kDeepseek, false},
    {"deepseek_v3", Family::kDeepseek, false},
    {"kimi_k2", Family::kDeepseek, false},
    {"glm4_moe", Family::kGlm4Moe, false},
    {"gpt_oss", Family::kGptOss, false},
    {"phi3", Family::kPhi3, false},
    {"falcon", Family::kFalcon, true},
    {"RefinedWeb", Family::kFalcon, true},
    {"RefinedWebModel", Family::kFalcon, true},
    {"cohere", Family::kCohere, true},
    {"cohere2", Family::kCohere, true},
    {"jamba", Family::kJamba, false},
    {"gpt_neox", Family::kGptNeox, false},
    {"bamba", Family::kBamba, false},
    {"custom", Family::kCustom, false},
};

const FamilyInfo* find_family(std::string_view model_type) {
  for (const FamilyInfo& info : kFamilies) {
    if (model_type == info.model_type) return &info;
  }
  return nullptr;
}

/** Reads a config's integer under any of its historical names. */
std::optional<std::int64_t> opt_int_any(const json& cfg, std::initializer_list<const char*> keys,
                                        const std::string& prefix) {
  for (const char* key : keys) {
    if (auto value = jr::opt_int(cfg, key, prefix)) return value;
  }
  return std::nullopt;
}

std::int64_t get_int_any(const json& cfg, std::initializer_list<const char*> keys,
                         const std::string& prefix) {
  if (auto value = opt_int_any(cfg, keys, prefix)) return *value;
  const std::string field = jr::field_path(prefix, *keys.begin());
  throw Error("missing_field", field, field + " is required");
}

std::int64_t positive(std::int64_t value, const std::string& field) {
  jr::require_positive(static_cast<double>(value), field);
  return value;
}

/**
 * Falcon's 40B/180B layout (grouped KV heads, ln_attn and ln_mlp). The
 * original custom-code configs say so by model_type "RefinedWeb" (40B)
 * rather than "RefinedWebModel" (7B); converted ones by a flag.
 */
bool falcon_new_architecture(const json& cfg, const std::string& prefix,
                             const std::string& model_type) {
  return jr::opt_bool(cfg, "new_decoder_architecture", prefix).value_or(model_type == "RefinedWeb");
}

std::string dtype_format(const std::string& dtype) {
  if (dtype == "bfloat16") return "bf16";
  if (dtype == "float16" || dtype == "half") return "fp16";
  if (dtype == "float32" || dtype == "float") return "fp32";
  if (dtype.rfind("float8", 0) == 0) return "fp8";
  return "";
}

/**
 * Layer attention kinds from an explicit `layer_types` list (recent
 * transformers releases write it for Gemma 2/3, gpt-oss, Qwen and others).
 */
bool apply_layer_types(const json& cfg, const std::string& prefix, ModelSpec& m) {
  const json* types = jr::find(cfg, "layer_types");
  if (types == nullptr) return false;
  const std::string field = jr::field_path(prefix, "layer_types");
  if (!types->is_array()) {
    throw Error("wrong_type", field, field + " must be a list of strings");
  }
  if (static_cast<std::int64_t>(types->size()) != m.num_layers()) {
    throw Error("invalid_value", field,
                field + " has " + std::to_string(types->size()) + " entries for " +
                    std::to_string(m.num_layers()) + " layers");
  }
  for (std::size_t i = 0; i < types->size(); ++i) {
    const json& type = (*types)[i];
    if (!type.is_string()) {
      throw Error("wrong_type", field, field + " must be a list of strings");
    }
    const std::string name = type.get<std::string>();
    LayerAttention& kind = m.layers[i].attention;
    if (name == "full_attention" || name == "attention" || name == "global") {
      kind = LayerAttention::kGlobal;
    } else if (name == "sliding_attention" || name == "local" || name == "chunked_attention") {
      kind = LayerAttention::kSliding;
    } else if (name == "mamba" || name == "linear_attention" || name == "ssm") {
      kind = LayerAttention::kState;
    } else {
      throw Error("invalid_value", field, field + " has an unknown layer type '" + name + "'");
    }
  }
  return true;
}

void set_all_sliding(ModelSpec& m, std::int64_t from_layer = 0) {
  for (std::int64_t i = from_layer; i < m.num_layers(); ++i) {
    m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
  }
}

/** SigLIP vision tower plus Gemma 3's projector, counted from vision_config. */
double siglip_params(const json& vision, const std::string& prefix, std::int64_t text_hidden) {
  const double d = static_cast<double>(
      positive(jr::get_int(vision, "hidden_size", prefix), jr::field_path(prefix, "hidden_size")));
  const double ff = static_cast<double>(jr::get_int(vision, "intermediate_size", prefix));
  const double layers = static_cast<double>(jr::get_int(vision, "num_hidden_layers", prefix));
  const double patch = static_cast<double>(jr::opt_int(vision, "patch_size", prefix).value_or(14));
  const double image = static_cast<double>(jr::opt_int(vision, "image_size", prefix).value_or(896));
  const double channels =
      static_cast<double>(jr::opt_int(vision, "num_channels", prefix).value_or(3));
  const double positions = (image / patch) * (image / patch);
  double count = channels * patch * patch * d + d;  // patch embedding conv
  count += positions * d;                           // position embedding
  // Per layer: two LayerNorms, q/k/v/out with biases, fc1/fc2 with biases.
  count += layers * (4.0 * d + 4.0 * d * d + 4.0 * d + 2.0 * d * ff + ff + d);
  count += 2.0 * d;                                   // post_layernorm
  count += d * static_cast<double>(text_hidden) + d;  // mm projection, soft-emb norm
  return count;
}

/** Reads quantization_config and records how the checkpoint is stored. */
void detect_storage(const json& root, const std::string& prefix, const std::string& dtype,
                    ModelSpec& m, std::vector<std::string>& warnings) {
  m.native_format = dtype_format(dtype);
  if (m.native_format.empty()) {
    if (!dtype.empty()) {
      warnings.push_back("torch_dtype '" + dtype + "' is not recognised; weights assumed BF16");
    }
    m.native_format = "bf16";
  }
  const json* q = jr::find(root, "quantization_config");
  if (q == nullptr) return;
  const std::string qprefix = jr::field_path(prefix, "quantization_config");
  jr::expect_object(*q, qprefix);
  const std::string method = jr::opt_string(*q, "quant_method", qprefix).value_or("");
  const auto bits = jr::opt_int(*q, "bits", qprefix);
  const std::string declared =
      "torch_dtype says " + (dtype.empty() ? std::string("nothing") : dtype);
  if (method == "fp8" || method == "fbgemm_fp8") {
    m.native_format = "fp8";
    m.native_format_note = "checkpoint stores FP8 weights (quantization_config." +
                           std::string("quant_method '") + method + "'); " + declared;
  } else if (method == "mxfp4") {
    m.native_expert_format = "mxfp4";
    m.native_format_note =
        "checkpoint stores MoE experts in MXFP4 (quantization_config); "
        "attention, router, embeddings and lm_head stay " +
        m.native_format;
  } else if (method == "awq") {
    m.native_format = bits.value_or(4) == 4 ? "awq-int4" : "int8";
    m.native_format_note = "checkpoint stores AWQ " + std::to_string(bits.value_or(4)) +
                           "-bit weights (group scales); " + declared;
  } else if (method == "gptq") {
    m.native_format = bits.value_or(4) == 4 ? "gptq-int4" : "int8";
    m.native_format_note = "checkpoint stores GPTQ " + std::to_string(bits.value_or(4)) +
                           "-bit weights (group scales); " + declared;
  } else if (method == "bitsandbytes") {
    const bool four = jr::opt_bool(*q, "load_in_4bit", qprefix).value_or(false);
    m.native_format = four ? "nf4" : "int8";
    m.native_format_note = std::string("checkpoint stores bitsandbytes ") +
                           (four ? "NF4" : "INT8") + " weights; " + declared;
  } else if (method == "compressed-tensors" || method == "modelopt") {
    const std::string text = q->dump();
    if (text.find("NVFP4") != std::string::npos || text.find("nvfp4") != std::string::npos) {
      m.native_format = "nvfp4";
    } else if (text.find("\"float\"") != std::string::npos ||
               text.find("FP8") != std::string::npos) {
      m.native_format = "fp8";
    } else if (text.find("\"num_bits\":4") != std::string::npos) {
      m.native_format = "gptq-int4";
    } else if (text.find("\"num_bits\":8") != std::string::npos) {
      m.native_format = "int8";
    }
    m.native_format_note =
        "checkpoint quantized with " + method + " (stored as " + m.native_format + "); " + declared;
  } else if (!method.empty()) {
    warnings.push_back("quantization_config.quant_method '" + method +
                       "' is not recognised; weights sized as " + m.native_format);
  }
}

}  // namespace

ImportedModel import_hf_config(const json& root, std::string_view prefix_view) {
  const std::string root_prefix(prefix_view);
  jr::expect_object(root, root_prefix);
  ImportedModel out;
  ModelSpec& m = out.model;
  std::vector<std::string>& warnings = out.warnings;

  const std::string outer_type = jr::opt_string(root, "model_type", root_prefix).value_or("");
  // Multimodal wrappers (Gemma 3, Llama 4, Mistral 3) keep the language
  // model under text_config.
  const json* cfg = &root;
  std::string prefix = root_prefix;
  if (const json* text = jr::find(root, "text_config")) {
    prefix = jr::field_path(root_prefix, "text_config");
    jr::expect_object(*text, prefix);
    cfg = text;
  }
  std::string model_type = jr::opt_string(*cfg, "model_type", prefix).value_or(outer_type);
  if (model_type.empty()) model_type = outer_type;
  const FamilyInfo* info = find_family(outer_type);
  if (info == nullptr) info = find_family(model_type);
  const Family family = info ? info->family : Family::kUnknown;
  m.model_type = model_type.empty() ? "unknown" : model_type;
  if (info != nullptr && info->family == Family::kGemma3) m.model_type = "gemma3";
  if (outer_type == "kimi_k2" || model_type == "kimi_k2") m.model_type = "kimi_k2";
  if (family == Family::kUnknown) {
    warnings.push_back("model_type '" + m.model_type +
                       "' is not one the importer knows; estimated as a dense decoder from "
                       "hidden_size, num_hidden_layers, num_attention_heads, "
                       "num_key_value_heads, intermediate_size and vocab_size. Check the "
                       "parameter count against the model card.");
  }

  // --- the fields every decoder has ----------------------------------------
  m.hidden_size = positive(get_int_any(*cfg, {"hidden_size", "n_embd", "d_model"}, prefix),
                           jr::field_path(prefix, "hidden_size"));
  const std::int64_t layers =
      positive(get_int_any(*cfg, {"num_hidden_layers", "n_layer", "num_layers"}, prefix),
               jr::field_path(prefix, "num_hidden_layers"));
  m.num_heads = positive(get_int_any(*cfg, {"num_attention_heads", "n_head", "num_heads"}, prefix),
                         jr::field_path(prefix, "num_attention_heads"));
  m.vocab_size =
      positive(jr::get_int(*cfg, "vocab_size", prefix), jr::field_path(prefix, "vocab_size"));
  std::optional<std::int64_t> kv =
      opt_int_any(*cfg, {"num_key_value_heads", "num_kv_heads", "n_head_kv"}, prefix);
  if (family == Family::kFalcon) {
    const bool new_arch = falcon_new_architecture(*cfg, prefix, model_type);
    const bool multi_query = jr::opt_bool(*cfg, "multi_query", prefix).value_or(true);
    if (!new_arch) kv = multi_query ? 1 : m.num_heads;
  }
  m.num_kv_heads =
      positive(kv.value_or(m.num_heads), jr::field_path(prefix, "num_key_value_heads"));
  if (m.num_kv_heads > m.num_heads) {
    const std::string field = jr::field_path(prefix, "num_key_value_heads");
    throw Error("invalid_value", field,
                field + " (" + std::to_string(m.num_kv_heads) + ") exceeds num_attention_heads (" +
                    std::to_string(m.num_heads) + ")");
  }
  if (auto head_dim = jr::opt_int(*cfg, "head_dim", prefix)) {
    m.head_dim = positive(*head_dim, jr::field_path(prefix, "head_dim"));
  } else {
    if (m.hidden_size % m.num_heads != 0) {
      const std::string field = jr::field_path(prefix, "head_dim");
      throw Error("missing_field", field,
                  field + " is required: hidden_size is not a multiple of num_attention_heads");
    }
    m.head_dim = m.hidden_size / m.num_heads;
  }
  m.v_head_dim = m.head_dim;
  m.tied_embeddings = jr::opt_bool(*cfg, "tie_word_embeddings", prefix)
                          .value_or(jr::opt_bool(root, "tie_word_embeddings", root_prefix)
                                        .value_or(info ? info->tie_default : false));
  m.layers.assign(static_cast<std::size_t>(layers), LayerSpec{});

  const auto intermediate =
      opt_int_any(*cfg, {"intermediate_size", "ffn_hidden_size", "n_inner"}, prefix);
  auto require_intermediate = [&]() {
    const std::string field = jr::field_path(prefix, "intermediate_size");
    if (!intermediate) throw Error("missing_field", field, field + " is required");
    return positive(*intermediate, field);
  };
  m.max_context =
      opt_int_any(*cfg, {"max_position_embeddings", "n_positions", "max_seq_len"}, prefix)
          .value_or(0);
  if (auto window = jr::opt_int(*cfg, "sliding_window", prefix)) {
    m.sliding_window = *window;
  }

  // --- family by family -----------------------------------------------------
  const bool attention_bias = jr::opt_bool(*cfg, "attention_bias", prefix).value_or(false);
  switch (family) {
    case Family::kLlama:
    case Family::kCustom:
    case Family::kUnknown: {
      m.intermediate_size = intermediate.value_or(0);
      m.qkv_bias = attention_bias;
      m.o_bias = attention_bias;
      m.mlp_bias = jr::opt_bool(*cfg, "mlp_bias", prefix).value_or(false);
      if (model_type == "qwen2" || model_type == "qwen2_moe") {
        m.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o without
        m.o_bias = false;
      }
      if (model_type == "qwen3" || model_type == "qwen3_moe") m.qk_norm = true;
      if (!apply_layer_types(*cfg, prefix, m) && m.sliding_window > 0) {
        if (model_type == "qwen2" || model_type == "qwen2_moe" || model_type == "qwen3" ||
            model_type == "qwen3_moe") {
          // Qwen applies the window only when use_sliding_window is set, and
          // then from max_window_layers on.
          if (jr::opt_bool(*cfg, "use_sliding_window", prefix).value_or(false)) {
            set_all_sliding(m, jr::opt_int(*cfg, "max_window_layers", prefix).value_or(0));
          }
        } else {
          set_all_sliding(m);  // Mistral v0.1, Mixtral: every layer windowed
        }
      }
      // Mixture of experts, under each family's own key names.
      const auto experts =
          opt_int_any(*cfg, {"num_local_experts", "num_experts", "n_routed_experts"}, prefix);
      if (experts && *experts > 0) {
        m.moe.num_experts = *experts;
        m.moe.experts_per_token =
            positive(get_int_any(*cfg, {"num_experts_per_tok", "experts_per_token"}, prefix),
                     jr::field_path(prefix, "num_experts_per_tok"));
        if (model_type == "mixtral") {
          m.moe.expert_intermediate = require_intermediate();
        } else {
          m.moe.expert_intermediate = positive(jr::get_int(*cfg, "moe_intermediate_size", prefix),
                                               jr::field_path(prefix, "moe_intermediate_size"));
        }
        if (auto shared = jr::opt_int(*cfg, "shared_expert_intermediate_size", prefix)) {
          if (*shared > 0) {
            m.moe.shared_experts = 1;
            m.moe.shared_intermediate = *shared;
            m.moe.shared_expert_gate = true;
          }
        }
        const std::int64_t step = jr::opt_int(*cfg, "decoder_sparse_step", prefix).value_or(1);
        std::vector<std::int64_t> dense_only;
        if (const json* only = jr::find(*cfg, "mlp_only_layers")) {
          const std::string field = jr::field_path(prefix, "mlp_only_layers");
          if (!only->is_array())
            throw Error("wrong_type", field, field + " must be a list of layer indices");
          for (const json& index : *only) dense_only.push_back(jr::as_int(index, field));
        }
        for (std::int64_t i = 0; i < layers; ++i) {
          const bool listed =
              std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end();
          if (!listed && step > 0 && (i + 1) % step == 0) {
            m.layers[static_cast<std::size_t>(i)].mlp = LayerMlp::kMoe;
          }
        }
      }
      const bool any_dense = std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) {
        return l.mlp == LayerMlp::kDense;
      });
      if (any_dense) m.intermediate_size = require_intermediate();
      break;
    }
    case Family::kGemma:
    case Family::kGemma2:
    case Family::kGemma3: {
      m.intermediate_size = require_intermediate();
      m.qkv_bias = m.o_bias = attention_bias;
      if (family != Family::kGemma) m.norms_per_layer = 4;  // pre/post attention and FFN
      if (family == Family::kGemma3) m.qk_norm = true;
      if (!apply_layer_types(*cfg, prefix, m)) {
        if (family == Family::kGemma2) {
          // Gemma2DecoderLayer: even layers slide, odd ones are global.
          for (std::int64_t i = 0; i < layers; i += 2) {
            m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
          }
        } else if (family == Family::kGemma3) {
          const std::int64_t pattern =
              jr::opt_int(*cfg, "sliding_window_pattern", prefix).value_or(6);
          for (std::int64_t i = 0; i < layers; ++i) {
            if (pattern <= 0 || (i + 1) % pattern != 0) {
              m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
            }
          }
        }
      }
      if (const json* vision = jr::find(root, "vision_config")) {
        const std::string vprefix = jr::field_path(root_prefix, "vision_config");
        jr::expect_object(*vision, vprefix);
        m.extras.push_back({"vision", "SigLIP vision tower and projector",
                            siglip_params(*vision, vprefix, m.hidden_size), true});
      }
      break;
    }
    case Family::kDeepseek:
    case Family::kGlm4Moe: {
      m.intermediate_size = require_intermediate();
      const std::int64_t experts = jr::opt_int(*cfg, "n_routed_experts", prefix).value_or(0);
      if (family == Family::kDeepseek) {
        m.mla.q_lora_rank = jr::opt_int(*cfg, "q_lora_rank", prefix).value_or(0);
        m.mla.kv_lora_rank = positive(jr::get_int(*cfg, "kv_lora_rank", prefix),
                                      jr::field_path(prefix, "kv_lora_rank"));
        m.mla.qk_nope_head_dim = positive(jr::get_int(*cfg, "qk_nope_head_dim", prefix),
                                          jr::field_path(prefix, "qk_nope_head_dim"));
        m.mla.qk_rope_head_dim = positive(jr::get_int(*cfg, "qk_rope_head_dim", prefix),
                                          jr::field_path(prefix, "qk_rope_head_dim"));
        m.mla.v_head_dim =
            positive(jr::get_int(*cfg, "v_head_dim", prefix), jr::field_path(prefix, "v_head_dim"));
        m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
        m.v_head_dim = m.mla.v_head_dim;
        m.qkv_bias = attention_bias;
        for (LayerSpec& layer : m.layers) layer.attention = LayerAttention::kMla;
      } else {
        m.qkv_bias = attention_bias;  // GLM-4.5: q/k/v with bias, o without
        m.qk_norm = jr::opt_bool(*cfg, "use_qk_norm", prefix).value_or(false);
      }
      if (experts > 0) {
        m.moe.num_experts = experts;
        m.moe.experts_per_token = positive(jr::get_int(*cfg, "num_experts_per_tok", prefix),
                                           jr::field_path(prefix, "num_experts_per_tok"));
        m.moe.expert_intermediate = positive(jr::get_int(*cfg, "moe_intermediate_size", prefix),
                                             jr::field_path(prefix, "moe_intermediate_size"));
        m.moe.shared_experts = jr::opt_int(*cfg, "n_shared_experts", prefix).value_or(0);
        m.moe.shared_intermediate = m.moe.expert_intermediate;
        // DeepSeek V3 and GLM-4.5 route with a per-expert score-correction bias.
        m.moe.router_score_bias = model_type != "deepseek_v2";
        const std::int64_t first_dense =
            jr::opt_int(*cfg, "first_k_dense_replace", prefix).value_or(0);
        const std::int64_t freq = jr::opt_int(*cfg, "moe_layer_freq", prefix).value_or(1);
        for (std::int64_t i = first_dense; i < layers; ++i) {
          if (freq > 0 && i % freq == 0) m.layers[static_cast<std::size_t>(i)].mlp = LayerMlp::kMoe;
        }
      }
      if (const auto mtp = jr::opt_int(*cfg, "num_nextn_predict_layers", prefix); mtp && *mtp > 0) {
        // Each MTP module repeats one MoE decoder layer plus an eh_proj
        // (2h x h), two norms, and copies of the embedding and output head
        // in the published checkpoint. Engines do not load it by default.
        ModelSpec one = m;
        one.layers.assign(1, LayerSpec{m.layers.back().attention, m.layers.back().mlp});
        one.tied_embeddings = false;
        const ParamCount layer = count_params(one);
        const double h = static_cast<double>(m.hidden_size);
        const double module = layer.total() + 2.0 * h * h + 3.0 * h;
        m.extras.push_back(
            {"mtp", "multi-token-prediction modules", static_cast<double>(*mtp) * module, false});
        m.notes.push_back("The published checkpoint also holds " + std::to_string(*mtp) +
                          " multi-token-prediction module(s); official totals such as "
                          "DeepSeek V3's 685B include them, the resident count here does not "
                          "(engines load them only for speculative decoding).");
      }
      break;
    }
    case Family::kGptOss: {
      const std::int64_t width = require_intermediate();
      m.qkv_bias = m.o_bias = true;
      m.attention_sinks = true;
      m.moe.num_experts = positive(get_int_any(*cfg, {"num_local_experts", "num_experts"}, prefix),
                                   jr::field_path(prefix, "num_local_experts"));
      m.moe.experts_per_token =
          positive(get_int_any(*cfg, {"num_experts_per_tok", "experts_per_token"}, prefix),
                   jr::field_path(prefix, "num_experts_per_tok"));
      m.moe.expert_intermediate = width;
      m.moe.expert_bias = true;
      m.moe.router_bias = true;
      for (LayerSpec& layer : m.layers) layer.mlp = LayerMlp::kMoe;
      if (!apply_layer_types(*cfg, prefix, m)) {
        for (std::int64_t i = 0; i < layers; i += 2) {
          m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
        }
      }
      break;
    }
    case Family::kPhi3: {
      m.intermediate_size = require_intermediate();
      if (!apply_layer_types(*cfg, prefix, m) && m.sliding_window > 0) set_all_sliding(m);
      break;
    }
    case Family::kFalcon: {
      m.intermediate_size = intermediate.value_or(4 * m.hidden_size);
      m.gated_mlp = false;  // dense_h_to_4h, GELU, dense_4h_to_h
      m.norm_bias = true;   // LayerNorm
      const bool bias = jr::opt_bool(*cfg, "bias", prefix).value_or(false);
      m.qkv_bias = m.o_bias = m.mlp_bias = bias;
      const bool new_arch = falcon_new_architecture(*cfg, prefix, model_type);
      const bool parallel = jr::opt_bool(*cfg, "parallel_attn", prefix).value_or(true);
      // New architecture: ln_attn and ln_mlp; old parallel: one input norm.
      m.norms_per_layer = new_arch ? 2 : (parallel ? 1 : 2);
      break;
    }
    case Family::kCohere: {
      m.intermediate_size = require_intermediate();
      m.qkv_bias = m.o_bias = attention_bias;
      m.norms_per_layer = 1;  // parallel attention and MLP share one LayerNorm
      m.qk_norm = jr::opt_bool(*cfg, "use_qk_norm", prefix).value_or(false);
      if (m.qk_norm) {
        warnings.push_back(
            "use_qk_norm: Cohere's per-head norms are counted as head_dim "
            "weights; the exact count may differ slightly");
      }
      if (!apply_layer_types(*cfg, prefix, m) && model_type == "cohere2" && m.sliding_window > 0) {
        const std::int64_t pattern =
            jr::opt_int(*cfg, "sliding_window_pattern", prefix).value_or(4);
        for (std::int64_t i = 0; i < layers; ++i) {
          if (pattern <= 0 || (i + 1) % pattern != 0) {
            m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
          }
        }
      }
      break;
    }
    case Family::kGptNeox: {
      // GPT-NeoX / Pythia: fused qkv and dense with biases, a 4h GELU MLP
      // with biases, LayerNorms with biases (Black et al. 2022).
      m.intermediate_size = intermediate.value_or(4 * m.hidden_size);
      m.gated_mlp = false;
      m.qkv_bias = m.o_bias = m.mlp_bias = true;
      m.norm_bias = true;
      break;
    }
    case Family::kBamba: {
      // Bamba (IBM): Mamba-2 mixers with attention at attn_layer_indices,
      // a dense SwiGLU MLP in every layer.
      m.intermediate_size = require_intermediate();
      const std::int64_t expand = jr::opt_int(*cfg, "mamba_expand", prefix).value_or(2);
      m.ssm.version = 2;
      m.ssm.d_inner = expand * m.hidden_size;
      m.ssm.n_heads = positive(jr::get_int(*cfg, "mamba_n_heads", prefix),
                               jr::field_path(prefix, "mamba_n_heads"));
      m.ssm.n_groups = jr::opt_int(*cfg, "mamba_n_groups", prefix).value_or(1);
      m.ssm.d_state = jr::opt_int(*cfg, "mamba_d_state", prefix).value_or(128);
      m.ssm.d_conv = jr::opt_int(*cfg, "mamba_d_conv", prefix).value_or(4);
      m.ssm.conv_bias = jr::opt_bool(*cfg, "mamba_conv_bias", prefix).value_or(true);
      m.ssm.proj_bias = jr::opt_bool(*cfg, "mamba_proj_bias", prefix).value_or(false);
      if (auto head = jr::opt_int(*cfg, "mamba_d_head", prefix);
          head && *head * m.ssm.n_heads != m.ssm.d_inner) {
        const std::string field = jr::field_path(prefix, "mamba_d_head");
        throw Error("invalid_value", field,
                    field + " x mamba_n_heads must equal mamba_expand x hidden_size");
      }
      for (LayerSpec& layer : m.layers) layer.attention = LayerAttention::kState;
      const json* indices = jr::find(*cfg, "attn_layer_indices");
      const std::string field = jr::field_path(prefix, "attn_layer_indices");
      if (indices == nullptr) throw Error("missing_field", field, field + " is required");
      if (!indices->is_array())
        throw Error("wrong_type", field, field + " must be a list of layer indices");
      for (const json& index : *indices) {
        const std::int64_t i = jr::as_int(index, field);
        if (i < 0 || i >= layers)
          throw Error("invalid_value", field, field + " has a layer index out of range");
        m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kGlobal;
      }
      break;
    }
    case Family::kJamba: {
      m.intermediate_size = require_intermediate();
      const std::int64_t attn_period = jr::opt_int(*cfg, "attn_layer_period", prefix).value_or(8);
      const std::int64_t attn_offset = jr::opt_int(*cfg, "attn_layer_offset", prefix).value_or(4);
      const std::int64_t expert_period =
          jr::opt_int(*cfg, "expert_layer_period", prefix).value_or(2);
      const std::int64_t expert_offset =
          jr::opt_int(*cfg, "expert_layer_offset", prefix).value_or(1);
      m.moe.num_experts = jr::opt_int(*cfg, "num_experts", prefix).value_or(16);
      m.moe.experts_per_token = jr::opt_int(*cfg, "num_experts_per_tok", prefix).value_or(2);
      m.moe.expert_intermediate = m.intermediate_size;
      const std::int64_t expand = jr::opt_int(*cfg, "mamba_expand", prefix).value_or(2);
      m.ssm.d_inner = expand * m.hidden_size;
      m.ssm.d_state = jr::opt_int(*cfg, "mamba_d_state", prefix).value_or(16);
      m.ssm.d_conv = jr::opt_int(*cfg, "mamba_d_conv", prefix).value_or(4);
      m.ssm.dt_rank =
          jr::opt_int(*cfg, "mamba_dt_rank", prefix).value_or((m.hidden_size + 15) / 16);
      m.ssm.conv_bias = jr::opt_bool(*cfg, "mamba_conv_bias", prefix).value_or(true);
      m.ssm.proj_bias = jr::opt_bool(*cfg, "mamba_proj_bias", prefix).value_or(false);
      m.ssm.inner_norms = true;
      for (std::int64_t i = 0; i < layers; ++i) {
        LayerSpec& layer = m.layers[static_cast<std::size_t>(i)];
        layer.attention = (attn_period > 0 && i % attn_period == attn_offset)
                              ? LayerAttention::kGlobal
                              : LayerAttention::kState;
        if (m.moe.num_experts > 1 && expert_period > 0 && i % expert_period == expert_offset) {
          layer.mlp = LayerMlp::kMoe;
        }
      }
      if (m.moe.num_experts <= 1) m.moe = MoeSpec{};
      break;
    }
  }

  const bool any_sliding = std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) {
    return l.attention == LayerAttention::kSliding;
  });
  if (any_sliding && m.sliding_window <= 0) {
    const std::string field = jr::field_path(prefix, "sliding_window");
    throw Error("missing_field", field,
                field + " is required: the config has sliding-window layers");
  }
  if (!any_sliding) m.sliding_window = 0;

  std::string dtype = jr::opt_string(*cfg, "torch_dtype", prefix)
                          .value_or(jr::opt_string(root, "torch_dtype", root_prefix).value_or(""));
  if (dtype.empty()) dtype = jr::opt_string(root, "dtype", root_prefix).value_or("");
  detect_storage(root, root_prefix, dtype, m, warnings);

  validate(m);
  return out;
}

}  // namespace vram
