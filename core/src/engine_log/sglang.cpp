// SGLang's start-up lines: the server's arguments, the weights' load, the
// KV pool and the CUDA graphs. Read from python/sglang/srt/model_executor/
// model_runner.py (load_model's "Load weight end", init_memory_pool's "KV
// Cache is allocated", init_device_graphs' "Capture cuda graph end") and
// server_args.py. SGLang's "GB" is 2^30 bytes (it divides by 1 << 30).

#include "engine_log/lines.hpp"

namespace vram::logread {

void read_sglang(const std::vector<Line>& lines, EngineLog& log) {
  for (const Line& line : lines) {
    const std::string_view t = line.text;
    if (find_key(t, "ServerArgs(") != std::string_view::npos) {
      if (const std::string m = word_after(t, "model_path="); !m.empty()) log.model = m;
      for (auto [key, name] :
           {std::pair{"tp_size=", "tensor_parallel_size"},
            std::pair{"pp_size=", "pipeline_parallel_size"},
            std::pair{"dp_size=", "data_parallel_size"}, std::pair{"context_length=", "context"},
            std::pair{"mem_fraction_static=", "mem_fraction_static"}}) {
        set_number(log, name, number_after(t, key));
      }
      for (auto [key, name] :
           {std::pair{"dtype=", "dtype"}, std::pair{"kv_cache_dtype=", "kv_cache_dtype"},
            std::pair{"quantization=", "quantization"}}) {
        const std::string w = word_after(t, key);
        if (!w.empty() && w != "None") log.settings[name] = w;
      }
    }
    if (const std::string v = word_after(t, "sglang version"); !v.empty()) log.version = v;
    if (find_key(t, "Load weight end") != std::string_view::npos) {
      if (const auto v = size_after(t, "mem usage")) put(log, "weights", *v, "bytes", line);
    }
    if (find_key(t, "KV Cache is allocated") != std::string_view::npos) {
      if (const auto v = number_after(t, "#tokens")) put(log, "kv_tokens", *v, "tokens", line);
      const auto k = size_after(t, "K size");
      const auto v = size_after(t, "V size");
      if (k && v) put(log, "kv_budget", *k + *v, "bytes", line);
      if (const auto kv = size_after(t, "KV size")) put(log, "kv_budget", *kv, "bytes", line);
    }
    // A hybrid model's state pool (mem_cache/memory_pool.py MambaPool: "Mamba Cache is
    // allocated. max_mamba_cache_size: N, conv_state size: X GB, ssm_state size: Y GB").
    if (find_key(t, "Mamba Cache is allocated") != std::string_view::npos) {
      if (const auto v = number_after(t, "max_mamba_cache_size"))
        put(log, "state_slots", *v, "states", line);
      const auto conv = size_after(t, "conv_state size");
      const auto ssm = size_after(t, "ssm_state size");
      if (conv && ssm) put(log, "state_pool", *conv + *ssm, "bytes", line);
    }
    if (find_key(t, "Capture cuda graph end") != std::string_view::npos) {
      if (const auto v = size_after(t, "mem usage")) put(log, "cuda_graph", *v, "bytes", line);
    }
    if (const auto v = number_after(t, "max_total_num_tokens="))
      put(log, "kv_tokens", *v, "tokens", line);
    set_number(log, "context", number_after(t, "context_len="));
  }
}

}  // namespace vram::logread
