#include "vram/hf_config.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "import/common.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

// The driver: reads what every decoder has (bounded by vram/limits.hpp
// before any layer list is made), hands over to the family's importer
// (import/registry.cpp), then checks what holds for all families.

namespace vram {

using nlohmann::json;
namespace jr = json_read;

ImportedModel import_hf_config(const json& root, std::string_view prefix_view) {
  const std::string root_prefix(prefix_view);
  jr::expect_object(root, root_prefix);
  ImportedModel out;
  ModelSpec& m = out.model;

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
  const import::Family* family = import::find_family(outer_type);
  if (family == nullptr) family = import::find_family(model_type);
  m.model_type = model_type.empty() ? "unknown" : Error::quote(model_type);
  if (family != nullptr && family->import == import::import_gemma3) m.model_type = "gemma3";
  if (outer_type == "kimi_k2" || model_type == "kimi_k2") m.model_type = "kimi_k2";

  import::Context ctx{root, *cfg, root_prefix, prefix,       outer_type, model_type,
                      out,  m,    0,           std::nullopt, false};
  if (family == nullptr)
    ctx.warn({"import.unknown_model_type", obj({{"model_type", m.model_type}})});

  // --- the fields every decoder has, each in its range ---------------------
  // Each under any of its names (the first is Hugging Face's), one list for
  // the check below and for the read. Several absent are named together: a
  // config.json with three gaps is mended in one round, not three.
  const std::initializer_list<const char*> kHidden = {"hidden_size", "n_embd", "d_model"};
  const std::initializer_list<const char*> kLayers = {"num_hidden_layers", "n_layer", "num_layers"};
  const std::initializer_list<const char*> kHeads = {"num_attention_heads", "n_head", "num_heads"};
  const std::initializer_list<const char*> kVocab = {"vocab_size"};
  {
    json absent = json::array();
    for (const auto* keys : {&kHidden, &kLayers, &kHeads, &kVocab}) {
      if (std::none_of(keys->begin(), keys->end(),
                       [&](const char* key) { return jr::find(*cfg, key) != nullptr; })) {
        absent.push_back(ctx.field(*keys->begin()));
      }
    }
    if (absent.size() > 1) {
      throw Error::make("missing_field", absent.front().get<std::string>(), "error.missing_fields",
                        obj({{"fields", absent}}));
    }
  }
  m.hidden_size = ctx.get_int_any(kHidden, 1, limits::kMaxHidden);
  ctx.layers = ctx.get_int_any(kLayers, 1, limits::kMaxLayers);
  m.num_heads = ctx.get_int_any(kHeads, 1, limits::kMaxHeads);
  m.vocab_size = ctx.get_int_any(kVocab, 1, limits::kMaxVocab);
  m.num_kv_heads =
      ctx.opt_int_any({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, 1, m.num_heads)
          .value_or(m.num_heads);
  if (auto head_dim = ctx.opt_int("head_dim", 1, limits::kMaxHeadDim)) {
    m.head_dim = *head_dim;
  } else {
    if (m.hidden_size % m.num_heads != 0) {
      const std::string field = ctx.field("head_dim");
      throw Error::make("missing_field", field, "error.head_dim_required", obj({{"field", field}}));
    }
    m.head_dim = m.hidden_size / m.num_heads;
  }
  m.v_head_dim = m.head_dim;
  m.tied_embeddings = ctx.opt_bool("tie_word_embeddings")
                          .value_or(jr::opt_bool(root, "tie_word_embeddings", root_prefix)
                                        .value_or(family ? family->tie_default : false));
  // Safe: layers is in [1, kMaxLayers], checked above.
  m.layers.assign(static_cast<std::size_t>(ctx.layers), LayerSpec{});

  ctx.intermediate = ctx.opt_int_any({"intermediate_size", "ffn_hidden_size", "n_inner"}, 0,
                                     limits::kMaxIntermediate);
  m.max_context = ctx.opt_int_any({"max_position_embeddings", "n_positions", "max_seq_len"}, 0,
                                  limits::kMaxModelContext)
                      .value_or(0);
  m.sliding_window = ctx.opt_int("sliding_window", 0, limits::kMaxModelContext).value_or(0);
  ctx.attention_bias = ctx.opt_bool("attention_bias").value_or(false);
  // Soft-capping: any positive cap adds a tanh whose output autograd saves.
  auto softcap = [&](const char* key) {
    const auto cap = jr::opt_number(*cfg, key, prefix);
    if (!cap) return false;
    return jr::require_range(*cap, 0, 1e9, jr::field_path(prefix, key)) > 0;
  };
  m.attn_softcapping = softcap("attn_logit_softcapping");
  m.final_softcapping = softcap("final_logit_softcapping");

  // --- the family's own reading ----------------------------------------------
  (family ? family->import : import::import_llama)(ctx);

  const bool any_sliding = std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) {
    return l.attention == LayerAttention::kSliding;
  });
  if (any_sliding && m.sliding_window <= 0) {
    const std::string field = ctx.field("sliding_window");
    throw Error::make("missing_field", field, "error.sliding_window_required",
                      obj({{"field", field}}));
  }
  if (!any_sliding) m.sliding_window = 0;

  std::string dtype = jr::opt_string(*cfg, "torch_dtype", prefix)
                          .value_or(jr::opt_string(root, "torch_dtype", root_prefix).value_or(""));
  if (dtype.empty()) dtype = jr::opt_string(root, "dtype", root_prefix).value_or("");
  import::detect_storage(ctx, dtype);

  validate(m);
  // Bounded shapes keep every product finite; the total is bounded too, so
  // that bytes, device counts and prices computed from it stay in range.
  const double total = count_params(m).total();
  if (!(total <= limits::kMaxParams)) {
    throw Error::out_of_range(root_prefix, total, 1, limits::kMaxParams);
  }
  return out;
}

}  // namespace vram
