#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vram/message.hpp"

namespace vram {

/** What one layer keeps between decoding steps. */
enum class LayerAttention {
  kGlobal,   ///< full causal attention: K and V for every token of the context
  kSliding,  ///< local attention: K and V for at most `sliding_window` tokens
  kMla,      ///< multi-head latent attention: one compressed latent per token
  kState,    ///< no KV cache (Mamba, linear attention): a fixed state per sequence
};

/** The feed-forward block of one layer. */
enum class LayerMlp { kDense, kMoe };

struct LayerSpec {
  LayerAttention attention = LayerAttention::kGlobal;
  LayerMlp mlp = LayerMlp::kDense;
};

/** Mixture-of-experts feed-forward blocks. */
struct MoeSpec {
  std::int64_t num_experts = 0;          ///< routed experts per MoE layer
  std::int64_t experts_per_token = 0;    ///< routed experts each token uses
  std::int64_t shared_experts = 0;       ///< always-on experts per MoE layer
  std::int64_t expert_intermediate = 0;  ///< FFN width of one routed expert
  std::int64_t shared_intermediate = 0;  ///< FFN width of one shared expert
  bool expert_bias = false;              ///< experts carry biases (gpt-oss)
  bool router_bias = false;              ///< router carries a bias (gpt-oss)
  bool router_score_bias = false;        ///< per-expert correction bias (DeepSeek V3)
  bool shared_expert_gate = false;       ///< sigmoid gate on the shared expert (Qwen2-MoE)
};

/** Multi-head latent attention (DeepSeek V2/V3, Kimi K2). */
struct MlaSpec {
  std::int64_t q_lora_rank = 0;  ///< 0: queries projected directly
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

/** Mamba (selective state space) mixer layers: Mamba-1 (Jamba) or Mamba-2 (Bamba). */
struct SsmSpec {
  int version = 1;
  std::int64_t d_inner = 0;  ///< expand x hidden
  std::int64_t d_state = 0;
  std::int64_t d_conv = 0;
  std::int64_t dt_rank = 0;   ///< Mamba-1
  std::int64_t n_heads = 0;   ///< Mamba-2: heads of head_dim each (n_heads x head_dim = d_inner)
  std::int64_t n_groups = 1;  ///< Mamba-2: groups sharing B and C
  bool conv_bias = true;
  bool proj_bias = false;
  bool inner_norms = false;  ///< Jamba's dt/B/C layer norms
  /**
   * Gated DeltaNet (Qwen3-Next, Qwen3.5; transformers' Qwen3NextGatedDeltaNet)
   * in Mamba-2's terms: n_groups key heads and n_heads value heads, d_state
   * the key head's width, d_inner the value heads' width in all. The conv
   * window runs over q, k and v (conv_dim) and the recurrent state is
   * n_heads x d_state x (d_inner / n_heads), as Mamba-2's; the projections
   * differ (ssm_params).
   */
  bool gated_delta = false;
  /** The recurrent state kept in FP32 (config mamba_ssm_dtype "float32"); else 16 bits. */
  bool fp32_state = false;

  /** Channels the causal convolution runs over (Mamba-2 adds B and C). */
  std::int64_t conv_dim() const {
    return version == 2 ? d_inner + 2 * n_groups * d_state : d_inner;
  }
  /** Elements of the conv window one layer keeps per sequence. */
  std::int64_t conv_elements() const { return conv_dim() * d_conv; }
  /** Elements of the recurrent (SSM) state one layer keeps per sequence. */
  std::int64_t recurrent_elements() const { return d_inner * d_state; }
  /** Elements one layer keeps per sequence: conv window and SSM state. */
  std::int64_t state_elements() const { return conv_elements() + recurrent_elements(); }
};

/** Parameters outside the language model proper (vision tower, MTP). */
struct ExtraParams {
  std::string id;  ///< "vision", "mtp"
  Message label;   ///< for people: an extra.* message of the catalogs
  double count = 0;
  bool resident = true;  ///< loaded for inference by default
};

/**
 * A vision tower (vision_config): its shape, for the memory an image pass
 * takes, and the tokens one image becomes in the language model's context.
 * `layers` 0: no tower. `tokens_per_image` 0 for a fixed-size tower: the
 * config does not say (a request with images is then refused,
 * error.vision_tokens); for a tower of any resolution (`dynamic`) the
 * request's image_size gives them (resized_image).
 */
struct VisionSpec {
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t image_size = 0;  ///< pixels a side the tower takes
  std::int64_t patch_size = 0;
  std::int64_t tokens_per_image = 0;
  /**
   * The tower takes any resolution (Qwen3-VL, Qwen3.5): the processor resizes
   * each image to whole multiples of patch_size x spatial_merge a side, its
   * pixels kept within [min_pixels, max_pixels] (transformers'
   * qwen2_vl/image_processing_qwen2_vl.py smart_resize), and it becomes one
   * token per merged patch (resized_image). `image_size` and
   * `tokens_per_image` are then 0: the request says the image's size.
   */
  bool dynamic = false;
  std::int64_t spatial_merge = 1;  ///< patches a side merged into one token
  std::int64_t min_pixels = 0;     ///< the processor's size.shortest_edge (pixels, not a side)
  std::int64_t max_pixels = 0;     ///< the processor's size.longest_edge (pixels, not a side)

  bool present() const { return layers > 0; }
  /** Patches one image is cut into: (image_size / patch_size)^2. */
  std::int64_t patches() const {
    const std::int64_t side = patch_size > 0 ? image_size / patch_size : 0;
    return side * side;
  }
};

/**
 * One model, described finely enough to count its parameters and size its
 * KV cache layer by layer. Built from a Hugging Face config.json
 * (hf_config.hpp) or from a preset in data/models.json.
 */
struct ModelSpec {
  std::string id;
  std::string name;
  std::string model_type;  ///< Hugging Face model_type, or "custom"
  std::string source;      ///< where the description comes from
  std::string repo;        ///< Hugging Face repository id of a preset; "" when unknown

  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;  ///< dense FFN width
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;    ///< query/key head dim
  std::int64_t v_head_dim = 0;  ///< value head dim (usually head_dim)
  std::int64_t vocab_size = 0;
  std::int64_t sliding_window = 0;  ///< tokens a sliding layer keeps
  std::int64_t max_context = 0;     ///< max_position_embeddings; 0 if unknown

  bool tied_embeddings = false;
  /** An embedding or reranker model (a preset's "task"): no output head, tied or not. */
  bool pooling = false;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool gated_mlp = true;         ///< gate, up and down (SwiGLU/GeGLU); else up, down
  bool qk_norm = false;          ///< per-head-dim norm on q and k (Qwen3, Gemma 3)
  bool attention_sinks = false;  ///< one learned logit per head (gpt-oss)
  /** q_proj also writes a sigmoid gate on the attention's output, one per query
   * element (Qwen3-Next, Qwen3.5: attn_output_gate), so it is twice as wide. */
  bool attn_output_gate = false;
  /** Gemma 2: tanh soft-capping of the attention scores and of the final
   * logits (config attn_logit_softcapping, final_logit_softcapping). */
  bool attn_softcapping = false;
  bool final_softcapping = false;
  int norms_per_layer = 2;
  bool norm_bias = false;  ///< LayerNorm with a bias vector (Falcon)

  std::vector<LayerSpec> layers;
  MoeSpec moe;
  MlaSpec mla;
  SsmSpec ssm;
  std::vector<ExtraParams> extras;
  VisionSpec vision;  ///< the vision tower, when vision_config describes one
  /** Multi-token-prediction modules the checkpoint holds (num_nextn_predict_layers,
   * Qwen3-Next's and Qwen3.5's mtp_num_hidden_layers); 0: none. */
  std::int64_t mtp_layers = 0;
  /** The MTP modules' decoder layers, one a module, where they are not copies of the last
   * layer: Qwen3-Next's and Qwen3.5's are full-attention layers whatever the model's last is
   * (vLLM's qwen3_next_mtp.py and qwen3_5_mtp.py build them with layer_type
   * "full_attention"). Empty: each module repeats the last layer (DeepSeek V3, GLM-4.5). */
  std::vector<LayerSpec> mtp_layer_specs;

  /** Parameter counts stated by the source; 0 means "compute them". */
  double declared_params_total = 0;
  double declared_params_active = 0;
  /** The vendor's own figures, for comparison only; 0 if unknown. */
  double official_params_total = 0;
  double official_params_active = 0;
  std::string params_source;

  /** How the published checkpoint stores its weights (format ids). */
  std::string native_format = "bf16";
  std::string native_expert_format;  ///< when experts differ (gpt-oss MXFP4)
  /** How the checkpoint's quantization_config says it stores them (note.stored_*); id empty if
   * none. */
  Message native_format_note{"", nlohmann::json::object()};

  std::vector<std::string> placeholders;  ///< fields holding placeholder values
  std::vector<Message> notes;             ///< a preset's caveats (data/models.json: messages)
  std::vector<Message> import_notes;      ///< the importer's caveats (ids under import.)

  std::int64_t num_layers() const { return static_cast<std::int64_t>(layers.size()); }
  bool is_moe() const { return moe.num_experts > 0; }
  /** Whether any layer attends as `kind`. */
  bool has_layers(LayerAttention kind) const;
  /**
   * Layers of two kinds or more (attention beside state
   * or sliding layers): what vLLM's hybrid KV pool groups.
   */
  bool mixed_layers() const;
};

/** A model read from a config.json, with what its reading could not take as written. */
struct ImportedModel {
  ModelSpec model;
  std::vector<Message> warnings;  ///< ids under import. (unknown model_type, dtype, ...)
};

/** Throws vram::Error naming the first field that makes `model` unusable. */
void validate(const ModelSpec& model);

/**
 * Routed experts on the fullest card when `ep` cards share them whole:
 * vLLM's determine_expert_map gives each rank experts / ep and the first
 * experts % ep ranks one more, so ceil(experts / ep).
 */
std::int64_t experts_per_gpu(const ModelSpec& model, int ep);

const char* to_string(LayerAttention attention);

/** Parameters of the vision tower and projector (the extras "vision"); 0 without one. */
double vision_params(const ModelSpec& model);

/** One image as a tower of any resolution takes it (VisionSpec::dynamic). */
struct ImageGrid {
  std::int64_t height = 0;   ///< pixels after smart_resize
  std::int64_t width = 0;    ///< pixels after smart_resize
  std::int64_t patches = 0;  ///< (height / patch_size) x (width / patch_size), through the tower
  std::int64_t tokens = 0;   ///< patches / spatial_merge^2, in the language model's context
};

/**
 * An image of `height` x `width` pixels through transformers' smart_resize
 * (qwen2_vl/image_processing_qwen2_vl.py) with factor patch_size x
 * spatial_merge: each side rounded to the factor (Python's round, half to
 * even); above `max_pixels` both scaled by sqrt(h x w / max_pixels) and
 * floored to the factor, below v.min_pixels scaled up and ceiled. For a
 * ratio of sides within smart_resize's 200 (the request's images are
 * square); all zero for a tower without a patch size.
 */
ImageGrid resized_image(const VisionSpec& v, std::int64_t height, std::int64_t width,
                        std::int64_t max_pixels);

}  // namespace vram
