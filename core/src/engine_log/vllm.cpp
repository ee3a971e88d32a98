// vLLM's start-up lines, V0 and V1, from 0.6 to 0.13: the engine's config
// line, the MXFP4 MoE backend it ran, the profile run's memory figures and
// the KV cache's size. Read from
// vllm/v1/worker/gpu_worker.py (determine_available_memory), gpu_model_runner.py
// (load_model, capture_model), v1/core/kv_cache_utils.py (the "GPU KV cache
// size" and "Maximum concurrency" lines) and V0's worker.py and executor_base.py.

#include "engine_log/lines.hpp"

namespace vram::logread {
namespace {

void setting_int(EngineLog& log, std::string_view line, std::string_view key, const char* name) {
  set_number(log, name, number_after(line, key));
}

void settings(std::string_view t, EngineLog& log) {
  // The config line: "Initializing a V1 LLM engine (v0.13.0) with config: model='...', ...".
  if (find_key(t, "with config:") != std::string_view::npos) {
    const std::string version = word_after(t, "engine (v");
    if (!version.empty()) log.version = version;
    const std::string model = word_after(t, "model=");
    if (!model.empty()) log.model = model;
    setting_int(log, t, "max_seq_len=", "context");
    setting_int(log, t, "tensor_parallel_size=", "tensor_parallel_size");
    setting_int(log, t, "pipeline_parallel_size=", "pipeline_parallel_size");
    const std::string dtype = word_after(t, "dtype=");
    if (!dtype.empty()) log.settings["dtype"] = dtype;
    const std::string quantization = word_after(t, "quantization=");
    if (!quantization.empty() && quantization != "None")
      log.settings["quantization"] = quantization;
    const std::string kv = word_after(t, "kv_cache_dtype=");
    if (!kv.empty()) log.settings["kv_cache_dtype"] = kv;
    const std::string eager = word_after(t, "enforce_eager=");
    if (!eager.empty()) log.settings["enforce_eager"] = eager == "True";
  }
  // "non-default args: {'max_model_len': 2048, 'gpu_memory_utilization': 0.95, 'model': '...'}".
  if (find_key(t, "non-default args") != std::string_view::npos) {
    setting_int(log, t, "'max_model_len'", "context");
    setting_int(log, t, "'tensor_parallel_size'", "tensor_parallel_size");
    setting_int(log, t, "'pipeline_parallel_size'", "pipeline_parallel_size");
    const std::string model = word_after(t, "'model'");
    if (!model.empty() && log.model.empty()) log.model = model;
  }
  // The command line, where a user pasted it: "vllm serve MODEL --max-model-len=1024".
  if (const std::size_t at = find_key(t, "vllm serve "); at != std::string_view::npos) {
    const std::string model = word_after(t, "vllm serve");
    if (!model.empty() && model.front() != '-' && log.model.empty()) log.model = model;
  }
  setting_int(log, t, "--max-model-len", "context");
  setting_int(log, t, "--tensor-parallel-size", "tensor_parallel_size");
  setting_int(log, t, "--pipeline-parallel-size", "pipeline_parallel_size");
  setting_int(log, t, "--gpu-memory-utilization", "gpu_memory_utilization");
  if (find_key(t, "--enforce-eager") != std::string_view::npos)
    log.settings["enforce_eager"] = true;
  if (const std::string v = word_after(t, "vLLM API server version"); !v.empty()) log.version = v;
  set_number(log, "gpu_memory_utilization", number_after(t, "gpu_memory_utilization"));
}

/**
 * The MXFP4 MoE backend a line says vLLM runs (the knob mxfp4_backend), or
 * nullptr. marlin_utils_fp4.py warns "Weight-only FP4 compression will be
 * used leveraging the Marlin kernel" when it prepares Marlin's layer
 * (vLLM issue #23278's H100 log); mxfp4.py's get_mxfp4_backend logs "Using
 * Marlin backend", "Using Triton backend" and "Using FlashInfer MXFP4 BF16
 * backend for SM100"; later releases' fused_moe/oracle/mxfp4.py
 * "Using MARLIN Mxfp4 MoE backend out of potential backends: [...]"
 * (TRITON, TRITON_MONOLITHIC, FLASHINFER_TRTLLM_MXFP4_BF16...). The MXFP8
 * and CUTLASS paths, not modelled, name none.
 */
const char* mxfp4_backend(std::string_view t) {
  const auto has = [t](std::string_view key) { return t.find(key) != std::string_view::npos; };
  if (has("marlin_utils_fp4.py") && has("leveraging the Marlin kernel")) return "marlin";
  if (has("mxfp4.py")) {
    if (has("Using Marlin backend")) return "marlin";
    if (has("Using Triton backend")) return "triton";
    if (has("Using FlashInfer MXFP4 BF16 backend for SM100")) return "flashinfer";
  }
  if (has("Mxfp4 MoE backend out of")) {
    if (has("Using MARLIN ") || has("Using BATCHED_MARLIN ")) return "marlin";
    if (has("Using TRITON ") || has("Using TRITON_MONOLITHIC ")) return "triton";
    if (has("Using FLASHINFER_TRTLLM_MXFP4_BF16 ") ||
        has("Using FLASHINFER_TRTLLM_MXFP4_BF16_MONOLITHIC ")) {
      return "flashinfer";
    }
  }
  return nullptr;
}

}  // namespace

void read_vllm(const std::vector<Line>& lines, EngineLog& log) {
  for (const Line& line : lines) {
    const std::string_view t = line.text;
    settings(t, log);
    if (const char* backend = mxfp4_backend(t)) log.settings["mxfp4_backend"] = backend;
    // Weights: V1 "Model loading took 14.99 GiB", V0 "Loading model weights
    // took 18.4902 GB" (GiB), the profile's "model weights take 14.96GiB".
    for (std::string_view key :
         {"Model loading took", "Loading model weights took", "model weights take"}) {
      if (const auto v = size_after(t, key)) put(log, "weights", *v, "bytes", line);
    }
    if (const auto v = size_after(t, "non_torch_memory")) put(log, "non_torch", *v, "bytes", line);
    if (const auto v = size_after(t, "PyTorch activation peak memory"))
      put(log, "activations", *v, "bytes", line);
    if (const auto v = size_after(t, "peak_torch_memory"))
      put(log, "torch_peak", *v, "bytes", line);
    if (const auto v = size_after(t, "total_gpu_memory"))
      put(log, "total_memory", *v, "bytes", line);
    for (std::string_view key :
         {"Available KV cache memory", "kv_cache_size", "available_kv_cache_memory",
          "the rest of the memory reserved for KV Cache"}) {
      if (const auto v = size_after(t, key)) put(log, "kv_budget", *v, "bytes", line);
    }
    if (const auto v = number_after(t, "GPU KV cache size"))
      put(log, "kv_tokens", *v, "tokens", line);
    // The refusal when the context does not fit: "The model's max seq len (131072) is larger
    // than the maximum number of tokens that can be stored in KV cache (37696)".
    if (const auto v = number_after(t, "can be stored in KV cache"))
      put(log, "kv_tokens", *v, "tokens", line);
    set_number(log, "context", number_after(t, "max seq len"));
    for (std::string_view key : {"GPU blocks", "CUDA blocks", "cuda blocks", "num_gpu_blocks is"}) {
      if (const auto v = number_after(t, key)) put(log, "kv_blocks", *v, "blocks", line);
    }
    if (const std::size_t at = find_key(t, "Maximum concurrency for");
        at != std::string_view::npos) {
      if (const auto v = number_after(t.substr(at), "per request")) {
        put(log, "max_concurrency", *v, "requests", line);
      }
    }
    if (find_key(t, "Graph capturing finished") != std::string_view::npos) {
      if (const auto v = size_after(t, "took")) put(log, "cuda_graph", *v, "bytes", line);
    }
  }
  // V0 logs the profile's peak with the weights in it: the activations are the rest.
  const LoggedQuantity* peak = nullptr;
  const LoggedQuantity* weights = nullptr;
  bool activations = false;
  for (const LoggedQuantity& q : log.quantities) {
    if (q.id == "torch_peak") peak = &q;
    if (q.id == "weights") weights = &q;
    if (q.id == "activations") activations = true;
  }
  if (peak != nullptr && weights != nullptr && !activations) {
    const Line at{std::string_view(), peak->line};
    const double rest = peak->value - weights->value;
    put(log, "activations", rest, "bytes", at);
  }
}

}  // namespace vram::logread
