// The engine log reader (vram/engine_log.hpp): real start-up logs quoted by
// the validation cases read back to the figures the cases hold, the answer's
// predictions are the estimate's own, and hostile text gets named errors.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "helpers.hpp"
#include "vram/engine_log.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

/** A case's quantity as the log reader names it: {id, GPU buffers summed?, host device}. */
struct Reading {
  const char* id;
  const char*
      device;  ///< "" for the engine's own figure, "GPU" for the cards' sum, or a host buffer
};

const std::map<std::string, Reading>& readings() {
  static const std::map<std::string, Reading> m = {
      {"weights_gib", {"weights", ""}},
      {"kv_tokens", {"kv_tokens", ""}},
      {"num_gpu_blocks", {"kv_blocks", ""}},
      {"activation_peak_gib", {"activations", ""}},
      {"model_buffer_mib", {"model_buffer", "GPU"}},
      {"gpu_model_buffer_mib", {"model_buffer", "GPU"}},
      {"host_model_buffer_mib", {"model_buffer", "CPU_Mapped"}},
      {"kv_buffer_mib", {"kv_buffer", "GPU"}},
      {"compute_buffer_mib", {"compute_buffer", "GPU"}},
  };
  return m;
}

const json* row(const json& answer, const std::string& id, const std::string& device) {
  for (const json& r : answer.at("rows")) {
    if (r.at("id") == id && r.at("device") == device) return &r;
  }
  return nullptr;
}

double in_case_unit(const json& r, const std::string& unit) {
  const double v = r.at("logged").get<double>();  // GiB for memory
  return unit == "MiB" ? v * 1024 : v;
}

}  // namespace

TEST_CASE("engine logs quoted by the validation cases read back to the cases' figures") {
  int logs = 0;
  int figures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(VRAM_SOURCE_DIR) +
                                                               "/tests/validation/cases")) {
    const json c = testing::read_json("tests/validation/cases/" + entry.path().filename().string());
    const std::string quote = c.at("source").value("quote", "");
    json request = {{"log", quote}};
    if (c.at("request").contains("model")) request["model"] = c.at("request").at("model");
    const json answer = json::parse(vram::call(testing::calculator(), "log", request.dump()));
    if (answer.contains("error")) {
      // Benchmark tables and prose: not a start-up log, and named so.
      CHECK(answer.at("error").at("code") == "invalid_log");
      continue;
    }
    ++logs;
    // A thread that compares two engines: read as the one with more lines, and said so.
    const std::string engine = c.at("engine").at("name").get<std::string>();
    const std::string read = answer.at("log").at("engine").get<std::string>();
    if (engine.find(read == "llamacpp" ? "llama" : read) == std::string::npos) {
      CAPTURE(c.at("id"));
      CHECK(answer.at("log").at("other_engine") != "");
      CHECK(answer.at("notes").at(0).at("id") == "log.mixed");
      continue;
    }
    for (const json& m : c.at("measurements")) {
      std::string quantity = m.at("quantity").get<std::string>();
      if (quantity == "kv_cache_gib" && m.at("predict") == "budget.kv_budget_gib")
        quantity = "weights_kv";
      const auto it = readings().find(quantity);
      const bool budget = quantity == "weights_kv";
      if (it == readings().end() && !budget) continue;
      const json* r =
          budget ? row(answer, "kv_budget", "") : row(answer, it->second.id, it->second.device);
      CAPTURE(c.at("id"));
      CAPTURE(quantity);
      REQUIRE(r != nullptr);
      const double logged = in_case_unit(*r, m.at("unit").get<std::string>());
      CHECK(logged == doctest::Approx(m.at("value").get<double>()).epsilon(0.005));
      ++figures;
    }
  }
  // 25 quotes are start-up logs (the others are benchmark tables), with 52 figures.
  CHECK(logs >= 25);
  CHECK(figures >= 52);
}

TEST_CASE("the log's answer predicts with the estimate of the settings it read") {
  const std::string text =
      "INFO 01-16 14:19:51 [utils.py:253] non-default args: {'max_model_len': 2048, "
      "'gpu_memory_utilization': 0.95, 'disable_log_stats': True, 'model': "
      "'google/gemma-3-1b-it'}\n"
      "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:13 [core.py:93] Initializing a V1 LLM engine "
      "(v0.13.0) with config: model='google/gemma-3-1b-it', speculative_config=None, "
      "dtype=torch.bfloat16, max_seq_len=2048, tensor_parallel_size=1, pipeline_parallel_size=1, "
      "quantization=None, enforce_eager=False, kv_cache_dtype=auto\n"
      "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:20 [gpu_model_runner.py:3000] Model loading "
      "took 1.9147 GiB memory and 5.1 seconds\n"
      "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:30 [gpu_worker.py:350] Available KV cache "
      "memory: 25.39 GiB\n"
      "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:30 [kv_cache_utils.py:1200] GPU KV cache size: "
      "950,864 tokens\n"
      "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:30 [kv_cache_utils.py:1205] Maximum "
      "concurrency for 2,048 tokens per request: 461.21x\n";
  const json answer = testing::calculator().log({{"log", text}, {"gpu", "l4"}});
  CHECK(answer.at("preset") == "gemma-3-1b");
  const json& log = answer.at("log");
  CHECK(log.at("engine") == "vllm");
  CHECK(log.at("version") == "0.13.0");
  CHECK(log.at("settings").at("context") == 2048);
  CHECK(log.at("settings").at("gpu_memory_utilization") == 0.95);
  CHECK(log.at("settings").at("dtype") == "bfloat16");
  const json& request = answer.at("request");
  CHECK(request.at("weights") == "bf16");
  CHECK(request.at("context") == 2048);
  CHECK(request.at("engine_options").at("gpu_memory_utilization") == 0.95);
  const json estimate = testing::estimate(request);
  const json* weights = row(answer, "weights", "");
  REQUIRE(weights != nullptr);
  CHECK(weights->at("logged").get<double>() == doctest::Approx(1.9147));
  double term = 0;
  for (const json& t : estimate.at("terms"))
    if (t.at("id") == "weights") term = t.at("gb").get<double>() * 1e9 / 1073741824.0;
  CHECK(weights->at("predicted").get<double>() == term);
  const json* tokens = row(answer, "kv_tokens", "");
  REQUIRE(tokens != nullptr);
  CHECK(tokens->at("logged") == 950864);
  // vLLM 0.13 logged a grouped pool's tokens as blocks // groups x block size (later releases
  // the concurrency times the context, the budget's kv_tokens): predicted the same way.
  const json* pool = nullptr;
  for (const json& a : estimate.at("assumptions"))
    if (a.at("id") == "assumption.vllm_sliding_pool") pool = &a.at("params");
  REQUIRE(pool != nullptr);
  CHECK(tokens->at("predicted") ==
        pool->at("blocks").get<std::int64_t>() / pool->at("groups").get<std::int64_t>() * 16);
  CHECK(tokens->at("predicted") != estimate.at("budget").at("kv_tokens"));
  const json* concurrency = row(answer, "max_concurrency", "");
  REQUIRE(concurrency != nullptr);
  CHECK(concurrency->at("logged") == 461.21);
  // The pool as the engine sized it, in requests of the log's context: vLLM's own concurrency
  // (its sliding layers keep a block more than their window a request), not 950,864 / 2,048.
  CHECK(answer.at("pool").at("tokens") == 950864);
  CHECK(answer.at("pool").at("users") == 461);
  // The pair, ready for tests/validation: each measurement quotes its line.
  const json& c = answer.at("case");
  CHECK(c.at("request") == request);
  CHECK(c.at("measurements").at(0).at("quote").get<std::string>().find("Model loading took") !=
        std::string::npos);
}

TEST_CASE("SGLang's and llama.cpp's start-up lines") {
  SUBCASE("SGLang") {
    // Lines as python/sglang/srt/model_executor/model_runner.py prints them.
    const std::string text =
        "[2025-07-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', "
        "dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, "
        "mem_fraction_static=0.871, tp_size=2, pp_size=1)\n"
        "[2025-07-01 10:00:10 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
        "avail mem=69.92 GB, mem usage=7.73 GB.\n"
        "[2025-07-01 10:00:11 TP0] KV Cache is allocated. #tokens: 830,016, K size: 28.50 GB, V "
        "size: 28.50 GB\n"
        "[2025-07-01 10:00:20 TP0] Capture cuda graph end. Time elapsed: 9.52 s. mem usage=0.80 "
        "GB. avail mem=5.1 GB.\n";
    const json a = testing::calculator().log({{"log", text}});
    CHECK(a.at("log").at("engine") == "sglang");
    CHECK(a.at("preset") == "qwen3-8b");
    CHECK(a.at("log").at("settings").at("tensor_parallel_size") == 2);
    CHECK(a.at("log").at("settings").at("mem_fraction_static") == 0.871);
    CHECK(row(a, "weights", "")->at("logged") == 7.73);
    CHECK(row(a, "kv_budget", "")->at("logged") == 57.0);
    CHECK(row(a, "kv_tokens", "")->at("logged") == 830016);
    CHECK(row(a, "cuda_graph", "")->at("logged") == 0.8);
    CHECK(a.at("request").at("engine_options").at("tensor_parallel_size") == 2);
  }
  SUBCASE("SGLang with a hybrid model: its state pool beside the KV pool") {
    // Qwen3-Next at TP 2, lines as SGLang prints them (mem_cache/memory_pool.py MambaPool).
    const std::string text =
        "[2025-12-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-Next-80B-A3B-"
        "Instruct', dtype='auto', kv_cache_dtype='auto', quantization=None, "
        "context_length=32768, mem_fraction_static=0.88, tp_size=2, pp_size=1)\n"
        "[2025-12-01 10:00:10 TP0] Mamba Cache is allocated. max_mamba_cache_size: 1200, "
        "conv_state size: 1.10GB, ssm_state size: 21.00GB\n"
        "[2025-12-01 10:00:11 TP0] KV Cache is allocated. #tokens: 2,100,000, K size: 12.02 GB, "
        "V size: 12.02 GB\n";
    const json a = testing::calculator().log({{"log", text}, {"gpu", "h200-sxm"}});
    CHECK(a.at("preset") == "qwen3-next-80b-a3b");
    CHECK(row(a, "state_slots", "")->at("logged") == 1200);
    CHECK(row(a, "state_pool", "")->at("logged").get<double>() == doctest::Approx(22.1));
    // The prediction: the estimate's own state share, and the attention pool less it.
    const json estimate = testing::estimate(a.at("request"));
    const json* share = nullptr;
    for (const json& s : estimate.at("assumptions"))
      if (s.at("id") == "assumption.sglang_state_pool") share = &s.at("params");
    REQUIRE(share != nullptr);
    CHECK(row(a, "state_slots", "")->at("predicted") == share->at("slots"));
    CHECK(row(a, "kv_budget", "")->at("predicted").get<double>() ==
          doctest::Approx((estimate.at("budget").at("kv_budget_gib").get<double>() * 1073741824.0 -
                           share->at("bytes").get<double>()) /
                          1073741824.0));
  }
  SUBCASE("llama-server over two cards, with its file named") {
    const std::string text =
        "build: 5622 (97340b4c) with cc (GCC) 13.2.0 for x86_64-linux-gnu\n"
        "llama_model_loader: loaded meta data with 31 key-value pairs and 292 tensors from "
        "/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))\n"
        "print_info: file type   = Q4_K - Medium\n"
        "print_info: file size   = 4.58 GiB (4.89 BPW)\n"
        "load_tensors: offloaded 33/33 layers to GPU\n"
        "load_tensors:        CUDA0 model buffer size =  2200.00 MiB\n"
        "load_tensors:        CUDA1 model buffer size =  2203.49 MiB\n"
        "load_tensors:   CPU_Mapped model buffer size =   281.81 MiB\n"
        "llama_context: n_ctx         = 8192\n"
        "llama_context: n_ubatch      = 512\n"
        "llama_context: flash_attn    = auto\n"
        "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB\n"
        "llama_kv_cache:      CUDA1 KV buffer size =   512.00 MiB\n"
        "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  "
        "512.00 MiB, V (f16):  512.00 MiB\n"
        "llama_context:      CUDA0 compute buffer size =   560.00 MiB\n"
        "llama_context:  CUDA_Host compute buffer size =    24.01 MiB\n";
    const json a = testing::calculator().log({{"log", text}});
    const json& log = a.at("log");
    CHECK(log.at("engine") == "llamacpp");
    CHECK(log.at("version") == "b5622");
    CHECK(log.at("model") == "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf");
    CHECK(a.at("preset") == "llama-3.1-8b");
    CHECK(a.at("request").at("weights") == "q4_k_m");
    CHECK(a.at("request").at("kv") == "fp16");
    CHECK(a.at("request").at("context") == 8192);
    CHECK(row(a, "model_buffer", "GPU")->at("logged").get<double>() ==
          doctest::Approx(4403.49 / 1024));
    CHECK(row(a, "model_buffer", "CPU_Mapped")->at("predicted").is_null());
    CHECK(row(a, "kv_buffer", "GPU")->at("logged") == 1.0);
    CHECK(row(a, "compute_buffer", "CUDA_Host") != nullptr);
    // 8,192 cells of Llama 3.1 8B at F16: 1 GiB exactly, as the estimate's KV term.
    CHECK(row(a, "kv_buffer", "GPU")->at("predicted") == 1.0);
  }
}

TEST_CASE("llama.cpp: two KV caches of one load add up; a second load replaces the first") {
  // Gemma 3 under llama_kv_cache_iswa: a full-attention cache and a sliding-window one.
  const std::string load =
      "llama_model_loader: loaded meta data with 40 key-value pairs and 340 tensors from "
      "gemma-3-12b-it-Q4_K_M.gguf (version GGUF V3 (latest))\n"
      "load_tensors:        CUDA0 model buffer size =  6956.38 MiB\n"
      "llama_kv_cache_iswa: creating non-SWA KV cache, size = 8192 cells\n"
      "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB\n"
      "llama_kv_cache_iswa: creating     SWA KV cache, size = 1536 cells\n"
      "llama_kv_cache:      CUDA0 KV buffer size =   480.00 MiB\n";
  const json once = testing::calculator().log({{"log", load}});
  CHECK(row(once, "kv_buffer", "GPU")->at("logged").get<double>() == doctest::Approx(992.0 / 1024));
  CHECK(once.at("preset") == "gemma-3-12b");
  const json twice = testing::calculator().log({{"log", load + load}});
  CHECK(row(twice, "kv_buffer", "GPU")->at("logged").get<double>() ==
        doctest::Approx(992.0 / 1024));
  CHECK(row(twice, "model_buffer", "GPU")->at("logged").get<double>() ==
        doctest::Approx(6956.38 / 1024));
}

TEST_CASE("llama.cpp: a hybrid model's recurrent-state buffer joins its KV buffer") {
  // The RS lines as llama.cpp printed them for Qwen3.5-9B (JamePeng/llama-cpp-python issue 78,
  // 2026-03-05); the KV line is this test's own.
  const std::string text =
      "llama_kv_cache:      CUDA0 KV buffer size =   256.00 MiB\n"
      "llama_memory_recurrent:      CUDA0 RS buffer size =    50.25 MiB\n"
      "llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs), "
      "R (f32):    2.25 MiB, S (f32):   48.00 MiB\n";
  const json a = testing::calculator().log({{"log", text}});
  CHECK(row(a, "kv_buffer", "GPU")->at("logged").get<double>() == doctest::Approx(306.25 / 1024));
}

TEST_CASE("hostile logs get named errors") {
  const auto error = [](const json& request) {
    const json a = json::parse(vram::call(testing::calculator(), "log", request.dump()));
    REQUIRE(a.contains("error"));
    return a.at("error");
  };
  CHECK(error({{"log", ""}}).at("message_id") == "error.log_unrecognised");
  CHECK(error({{"log", "hello\nworld"}}).at("message_id") == "error.log_unrecognised");
  CHECK(error({{"log", std::string("Model loading took 1\0 GiB", 25)}}).at("message_id") ==
        "error.log_binary");
  CHECK(error(json::object()).at("field") == "log");
  CHECK(error({{"log", 5}}).at("code") == "wrong_type");
  CHECK(error({{"log", std::string(vram::kMaxLogBytes + 1, 'x')}}).at("code") == "too_large");
  CHECK(error({{"log", "x"}, {"model", "nope"}}).at("field") == "model");
  // Numbers no log prints are not figures: 400 digits, an exponent, no unit.
  const std::string huge = "Model loading took " + std::string(400, '9') + " GiB\n";
  CHECK(error({{"log", huge}}).at("message_id") == "error.log_unrecognised");
  CHECK(error({{"log", "Model loading took 1e999 GiB\n"}}).at("message_id") ==
        "error.log_unrecognised");
  // A long line of separators and keys: read in one pass, no figure.
  std::string line;
  for (int i = 0; i < 20000; ++i) line += "# GPU blocks: ,";
  CHECK(error({{"log", line}}).at("message_id") == "error.log_unrecognised");
  // A negative figure is what vLLM logs when the model leaves no room: kept as logged.
  const json a = testing::calculator().log(
      {{"log", "vllm: Available KV cache memory: -2.14 GiB\n"}, {"model", "gpt-oss-120b"}});
  CHECK(row(a, "kv_budget", "")->at("logged") == -2.14);
}
