#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/format.hpp"
#include "vram/gguf.hpp"
#include "vram/inference.hpp"
#include "vram/safetensors.hpp"

namespace vram {

/** Bytes and stored elements of a group of tensors. */
struct TensorTotals {
  double bytes = 0;
  double elements = 0;
};

/**
 * A checkpoint's real weights, from its files' headers: exact bytes per
 * storage type (ggml type or safetensors dtype) and per component. What an
 * estimate request's "checkpoint" object becomes once checked.
 */
struct CheckpointWeights {
  std::string format;  ///< "gguf" or "safetensors"
  std::int64_t files = 0;
  std::int64_t tensor_count = 0;
  double bytes = 0;
  double elements = 0;
  std::vector<std::pair<std::string, TensorTotals>> by_type;  ///< largest first
  std::map<std::string, TensorTotals> by_component;
  /** One pseudo-format per type (bits = bytes x 8 / elements), for WeightPart. */
  std::vector<WeightFormat> type_formats;
};

/**
 * The components tensors are grouped into, by name; "mtp" holds a GGUF's
 * multi-token-prediction blocks (the last nextn_predict_layers of block_count).
 */
const std::vector<std::string>& checkpoint_components();

/**
 * Which component a tensor belongs to, from its name: llama.cpp's GGUF names
 * (token_embd, blk.N.attn_q, blk.N.ffn_up_exps, output) or Hugging Face's
 * (model.embed_tokens, layers.N.self_attn.q_proj, mlp.experts.N, lm_head).
 */
std::string tensor_component(std::string_view name);

/**
 * The config.json a GGUF header's metadata stands for, so the importer
 * sizes the model exactly as from a config: general.architecture and its
 * `{arch}.*` keys (llama.cpp gguf-py constants.py `Keys.LLM`,
 * `Keys.Attention`, `Keys.SSM`). Throws vram::Error naming
 * "gguf.metadata.<key>" when a key the shape needs is missing or mistyped.
 */
nlohmann::json gguf_config(const gguf::Header& header);

/**
 * One file's header, inspected: {format, metadata, file: {format,
 * tensor_count, bytes, elements, by_type, by_component[, split]}[, config]}
 * and, with `list_tensors`, `tensors` (the first limits::kMaxListedTensors,
 * `tensors_omitted` counting the rest). `kind` is "gguf" or "safetensors";
 * `file_size` 0 when unknown. Throws as the readers do
 * (vram::TruncatedError when more bytes are needed). docs/cli.md documents
 * the shape.
 */
nlohmann::json inspect_file(std::string_view kind, std::string_view bytes, std::uint64_t file_size,
                            bool list_tensors = false);

/**
 * inspect_file for the boundaries (CLI, wasm): never throws; errors come
 * back as {"error": {code, field, message[, needed_bytes]}}.
 */
std::string inspect(std::string_view kind, std::string_view bytes, double file_size = 0,
                    bool list_tensors = false) noexcept;

/**
 * Checks a request's "checkpoint" object as hostile input: {files: [the
 * `file` objects inspect returned, one per file], config?: {...}}. Every
 * number finite and in range, types known for the format, per-type and
 * per-component sums equal to each file's bytes, split parts complete.
 */
CheckpointWeights checkpoint_from_json(const nlohmann::json& checkpoint,
                                       std::string_view field = "checkpoint");

/**
 * The weights term from the checkpoint: one part per storage type, its exact
 * bytes (not parameters x bits). `checkpoint` must outlive the result: the
 * parts point at its type_formats.
 */
WeightsSize checkpoint_weights(const CheckpointWeights& checkpoint);

/** {format, files, tensor_count, gb, by_type: [{type, gb, bits_per_element}], by_component}. */
nlohmann::json checkpoint_summary(const CheckpointWeights& checkpoint);

}  // namespace vram
