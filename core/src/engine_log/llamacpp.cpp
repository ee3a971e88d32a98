// llama.cpp's load lines, as its tools, llama-server and Ollama's runner
// print them (2024 to 2026 builds): the file's type and size, the layers
// offloaded, and each device's model, KV and compute buffers. Read from
// src/llama-model.cpp (load_tensors' "model buffer size"), src/llama-context.cpp
// ("compute buffer size", n_ctx, n_ubatch, flash_attn), src/llama-kv-cache.cpp
// ("KV buffer size", "K (f16)"), src/llama-memory-recurrent.cpp ("RS buffer
// size") and, for older builds, llama.cpp's
// llm_load_tensors and llama_new_context_with_model.

#include "engine_log/lines.hpp"

namespace vram::logread {
namespace {

/** The buffer type before " model buffer size", " KV buffer size", ... ("CUDA0", "CPU_Mapped"). */
std::string device_before(std::string_view t, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && t[end - 1] == ' ') --end;
  std::size_t start = end;
  while (start > 0 && t[start - 1] != ' ' && t[start - 1] != ':' && t[start - 1] != '\t') --start;
  return std::string(t.substr(start, std::min<std::size_t>(end - start, 64)));
}

void buffer(const Line& line, EngineLog& log) {
  const std::string_view t = line.text;
  const std::size_t at = t.find(" buffer size");
  if (at == std::string_view::npos) return;
  const std::optional<double> bytes = size_after(t, "buffer size");
  if (!bytes) return;
  // "CUDA0 KV buffer size", "CUDA0 compute buffer size", "CUDA0 model buffer
  // size" or, before 2024's rename, "CUDA0 buffer size" under llm_load_tensors.
  std::string_view before = t.substr(0, at);
  std::string id;
  if (before.size() >= 3 &&
      (before.substr(before.size() - 3) == " KV" || before.substr(before.size() - 3) == " RS")) {
    // A hybrid model's recurrent states ("llama_memory_recurrent: CUDA0 RS buffer size",
    // src/llama-memory-recurrent.cpp) sit beside its KV cells; the estimate's KV buffer
    // counts both, so the log's two lines add up to it.
    id = "kv_buffer";
    before.remove_suffix(3);
  } else if (before.size() >= 8 && before.substr(before.size() - 8) == " compute") {
    id = "compute_buffer";
    before.remove_suffix(8);
  } else if (before.size() >= 6 && before.substr(before.size() - 6) == " model") {
    id = "model_buffer";
    before.remove_suffix(6);
  } else if (before.size() >= 7 && before.substr(before.size() - 7) == " output") {
    return;  // the logits' host buffer: not the model's
  } else if (t.find("load_tensors") != std::string_view::npos) {
    id = "model_buffer";
  } else {
    return;
  }
  const std::string device = device_before(before, before.size());
  if (device.empty()) return;
  // Within one load a device's buffers of a kind add up: a model with
  // sliding-window layers logs two KV caches (llama_kv_cache_iswa), each
  // with its own "CUDA0 KV buffer size" line.
  for (LoggedQuantity& q : log.quantities) {
    if (q.id == id && q.device == device) {
      q.value += *bytes;
      q.line = line.number;
      return;
    }
  }
  put(log, id, *bytes, "bytes", line, device);
}

}  // namespace

void read_llamacpp(const std::vector<Line>& lines, EngineLog& log) {
  for (const Line& line : lines) {
    const std::string_view t = line.text;
    buffer(line, log);
    if (const auto b = number_after(t, "build:")) {
      log.version = "b" + std::to_string(static_cast<long long>(*b));
    } else if (const auto b2 = number_after(t, "build ="); b2 && log.version.empty()) {
      log.version = "b" + std::to_string(static_cast<long long>(*b2));
    }
    // Ollama's "Listening on 127.0.0.1:11434 (version 0.5.4)"; not the GGUF's "(version GGUF V3".
    if (const std::string v = word_after(t, "(version"); !v.empty() && v != "GGUF") log.version = v;
    // The file: "... loaded meta data with 31 key-value pairs and 579 tensors from PATH (version
    // GGUF V3".
    if (const std::size_t at = t.find(" tensors from "); at != std::string_view::npos) {
      // A new load (Ollama reloads a model, a pasted log of two runs): the latest one is read.
      log.quantities.clear();
      std::string_view path = t.substr(at + 14);
      if (const std::size_t end = path.find(" (version"); end != std::string_view::npos)
        path = path.substr(0, end);
      const std::size_t slash = path.find_last_of("/\\");
      if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
      if (path.substr(0, 7) != "sha256-") log.model = std::string(trim(path).substr(0, 200));
    }
    if (find_key(t, "general.name") != std::string_view::npos) {
      const std::size_t at = t.find("= ");
      if (at != std::string_view::npos && log.model.empty())
        log.model = std::string(trim(t.substr(at + 2)).substr(0, 200));
    }
    for (std::string_view key : {"model ftype", "file type"}) {
      const std::size_t at = find_key(t, key);
      if (at == std::string_view::npos) continue;
      const std::size_t eq = t.find('=', at);
      if (eq != std::string_view::npos)
        log.settings["file_type"] = std::string(trim(t.substr(eq + 1)).substr(0, 64));
    }
    for (std::string_view key : {"model size", "file size"}) {
      if (const auto v = size_after(t, key)) put(log, "model_size", *v, "bytes", line);
    }
    if (const std::size_t at = find_key(t, "offloaded"); at != std::string_view::npos) {
      std::size_t end = 0;
      const std::string_view rest = t.substr(at);
      if (const auto n = number_after(rest, "offloaded", &end)) {
        if (end < rest.size() && rest[end] == '/') {
          set_number(log, "gpu_layers", n);
          set_number(log, "layers", number_after(rest.substr(end), "/"));
        }
      }
    }
    const bool context_line = t.find("llama_context") != std::string_view::npos ||
                              t.find("llama_new_context_with_model") != std::string_view::npos;
    if (context_line) {
      for (auto [key, name] :
           {std::pair{"n_ctx ", "context"}, std::pair{"n_ctx_seq", "context_per_sequence"},
            std::pair{"n_ctx_per_seq", "context_per_sequence"}, std::pair{"n_ubatch", "n_ubatch"},
            std::pair{"n_seq_max", "n_seq_max"}}) {
        set_number(log, name, number_after(t, key));
      }
      if (const std::string fa = word_after(t, "flash_attn"); !fa.empty())
        log.settings["flash_attn"] = fa;
    }
    // "llama_kv_cache: size = 6144.00 MiB ( 65536 cells, 48 layers, 4/1 seqs), K (f16): ..."
    if (const std::string k = word_after(t, "K (");
        !k.empty() && t.find("llama_kv_cache") != std::string_view::npos)
      log.settings["type_k"] = k;
    if (const std::string k = word_after(t, "type_k"); !k.empty()) log.settings["type_k"] = k;
  }
}

}  // namespace vram::logread
