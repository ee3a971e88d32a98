#pragma once

// Small helpers shared by the doctest files.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "vram/api.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"

namespace testing {

using nlohmann::json;

inline json read_json(const std::string& relative) {
  std::ifstream in(std::string(VRAM_SOURCE_DIR) + "/" + relative);
  if (!in) throw std::runtime_error("cannot open " + relative);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

// Qwen/Qwen3-Next-80B-A3B-Instruct's shape (transformers' Qwen3NextConfig
// defaults are the same model): 48 layers, full attention on every fourth.
inline json qwen3_next_80b() {
  return {{"model_type", "qwen3_next"},   {"hidden_size", 2048},
          {"num_hidden_layers", 48},      {"num_attention_heads", 16},
          {"num_key_value_heads", 2},     {"head_dim", 256},
          {"intermediate_size", 5120},    {"vocab_size", 151936},
          {"num_experts", 512},           {"num_experts_per_tok", 10},
          {"moe_intermediate_size", 512}, {"shared_expert_intermediate_size", 512},
          {"decoder_sparse_step", 1},     {"mlp_only_layers", json::array()},
          {"full_attention_interval", 4}, {"linear_conv_kernel_dim", 4},
          {"linear_key_head_dim", 128},   {"linear_num_key_heads", 16},
          {"linear_num_value_heads", 32}, {"linear_value_head_dim", 128},
          {"tie_word_embeddings", false}, {"torch_dtype", "bfloat16"}};
}

/**
 * The shape of Qwen3.5-35B-A3B's config (model_type qwen3_5_moe, the language model under
 * text_config, the tower under vision_config): 40 layers, full attention on every
 * fourth, an FP32 state, the Qwen3-VL tower 1152 wide.
 */
inline json qwen35_moe_35b() {
  json text = {{"model_type", "qwen3_5_moe_text"},
               {"hidden_size", 2048},
               {"num_hidden_layers", 40},
               {"num_attention_heads", 16},
               {"num_key_value_heads", 2},
               {"head_dim", 256},
               {"attn_output_gate", true},
               {"vocab_size", 248320},
               {"num_experts", 256},
               {"num_experts_per_tok", 8},
               {"moe_intermediate_size", 512},
               {"shared_expert_intermediate_size", 512},
               {"full_attention_interval", 4},
               {"linear_conv_kernel_dim", 4},
               {"linear_key_head_dim", 128},
               {"linear_num_key_heads", 16},
               {"linear_num_value_heads", 32},
               {"linear_value_head_dim", 128},
               {"mamba_ssm_dtype", "float32"},
               {"tie_word_embeddings", false}};
  json types = json::array();
  for (int i = 0; i < 40; ++i) types.push_back(i % 4 == 3 ? "full_attention" : "linear_attention");
  text["layer_types"] = types;
  const json vision = {{"depth", 27},
                       {"hidden_size", 1152},
                       {"intermediate_size", 4304},
                       {"out_hidden_size", 2048},
                       {"num_heads", 16},
                       {"in_channels", 3},
                       {"patch_size", 16},
                       {"temporal_patch_size", 2},
                       {"spatial_merge_size", 2},
                       {"num_position_embeddings", 2304},
                       {"deepstack_visual_indexes", json::array()}};
  return {{"model_type", "qwen3_5_moe"},
          {"text_config", text},
          {"vision_config", vision},
          {"tie_word_embeddings", false}};
}

/** One calculator for the whole test run: parsing the catalog once. */
inline const vram::Calculator& calculator() {
  static const vram::Calculator instance;
  return instance;
}

inline json estimate(json request) { return calculator().estimate(request); }

/** A term's GB in an estimate answer, 0 when the answer has no such term. */
inline double term_gb(const json& answer, const std::string& id) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == id) return t.at("gb").get<double>();
  }
  return 0;
}

/** An estimate answer's term `id`, nullptr when it has none. */
inline const json* find_term(const json& answer, const std::string& id) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == id) return &t;
  }
  return nullptr;
}

/** An estimate answer's term `id`; a test that needs it fails when it is absent. */
inline const json& term(const json& answer, const std::string& id) {
  if (const json* t = find_term(answer, id)) return *t;
  throw std::runtime_error("no term " + id);
}

/** The GB of term `id`; the test fails when the answer has no such term. */
inline double required_gb(const json& answer, const std::string& id) {
  return term(answer, id).at("gb").get<double>();
}

/** The message id and field of the error `request` is refused with, or "" when it is not. */
inline std::pair<std::string, std::string> refusal(const json& request) {
  try {
    estimate(request);
  } catch (const vram::Error& e) {
    return {e.message().id, e.field()};
  }
  return {"", ""};
}

/** The error an estimate of `request` is refused with; an internal one when it is not refused. */
inline vram::Error estimate_error(const json& request) {
  try {
    estimate(request);
  } catch (const vram::Error& e) {
    return e;
  }
  return vram::Error::make("internal", "", "error.internal", json::object());
}

/** Whether `text` holds `part`. */
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/** Whether an estimate answer states the assumption `id`. */
inline bool assumes(const json& answer, const std::string& id) {
  for (const json& a : answer.at("assumptions")) {
    if (a.at("id") == id) return true;
  }
  return false;
}

/** The launch command of an estimate answer. */
inline std::string launch_command(const json& answer) {
  return answer.at("launch").at("command").get<std::string>();
}

/** Whether an estimate answer carries the warning `id`. */
inline bool warns(const json& answer, const std::string& id) {
  for (const json& w : answer.at("warnings")) {
    if (w.at("id") == id) return true;
  }
  return false;
}

}  // namespace testing
