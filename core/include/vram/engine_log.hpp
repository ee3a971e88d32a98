#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vram {

/**
 * One figure an engine printed while it started: the model's weights, the
 * KV cache's budget, a device's compute buffer. Memory is in bytes (the
 * engines' "GB" and "GiB" are 2^30 bytes, "MiB" 2^20), counts are counts.
 */
struct LoggedQuantity {
  /**
   * weights, non_torch, activations, torch_peak, cuda_graph, kv_budget,
   * kv_tokens, kv_blocks, max_concurrency, total_memory (vLLM, SGLang);
   * model_buffer, kv_buffer, compute_buffer, model_size (llama.cpp, Ollama).
   */
  std::string id;
  double value = 0;
  std::string unit;    ///< "bytes", "tokens", "blocks", "requests"
  std::string device;  ///< llama.cpp's buffer type ("CUDA0", "CPU_Mapped"); "" for the engine's own
  std::size_t line = 0;  ///< 1-based line of the log that gave it (the last one, if repeated)
};

/** What a start-up log says: which engine, which model, which settings, which figures. */
struct EngineLog {
  std::string engine;   ///< "vllm", "sglang", "llamacpp" or "ollama"
  std::string version;  ///< as printed ("0.13.0", "b5622"), "" when the log does not say
  std::string model;    ///< the model as the log names it (a Hub id, a path, a GGUF's name)
  /** Another engine whose lines the text also holds (a thread comparing two); "" when none. */
  std::string other_engine;
  /**
   * Settings as the calculator names them: context, tensor_parallel_size,
   * pipeline_parallel_size, gpu_memory_utilization, mem_fraction_static,
   * enforce_eager, dtype, quantization, kv_cache_dtype, file_type, n_ubatch,
   * n_seq_max, flash_attn, gpu_layers, layers, type_k.
   */
  nlohmann::json settings = nlohmann::json::object();
  std::vector<LoggedQuantity> quantities;
};

/**
 * Reads an engine's start-up log (vLLM V0 and V1, SGLang, llama.cpp's
 * tools and llama-server, Ollama's server log). Untrusted text: at most
 * kMaxLogBytes, lines read up to kMaxLogLine bytes; a log none of the
 * engines' lines can be found in is an error (code invalid_log, field
 * "log"), as is text with NUL bytes. Never slower than linear in the text.
 */
EngineLog read_engine_log(std::string_view text);

/** The log as {"engine", "version", "model", "settings", "quantities": [...]}. */
nlohmann::json engine_log_json(const EngineLog& log);

/** Under the request's own limit (limits::kMaxRequestBytes), with room for JSON's escapes. */
inline constexpr std::size_t kMaxLogBytes = 3'000'000;
inline constexpr std::size_t kMaxLogLine = 64u << 10;

}  // namespace vram

namespace vram {

struct Catalog;

/**
 * The "log" call: reads request.log (read_engine_log), finds the preset it
 * ran (request.model, else the log's model name matched against the
 * presets' repositories and ids), rebuilds the estimate request the log's
 * settings make, and answers each logged figure beside the calculator's:
 * {"log", "preset", "request" (null when no preset matched), "rows":
 * [{"id", "device", "logged", "predicted", "unit", "difference_pct",
 * "line"}], "pool" (the logged KV pool as tokens and users at the
 * context), "case" (the pair in tests/validation's case format), "notes"}.
 * A figure the estimate does not predict (a host buffer, the card's total)
 * has predicted null.
 */
nlohmann::json log_answer(const Catalog& catalog, const nlohmann::json& request);

}  // namespace vram
