// The command that runs a plan (launch.hpp): every flag it emits is one
// that data/engines.json lists for that engine, and each number it carries
// equals the plan's own (tensor and pipeline sizes, context, users, memory
// fraction, layers), over the presets x engines x card counts.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

// The flags data/engines.json lists per engine, read from the file itself.
std::map<std::string, std::set<std::string>> listed_flags() {
  std::map<std::string, std::set<std::string>> out;
  const json file = testing::read_json("data/engines.json");
  for (const json& e : file.at("engines")) {
    if (!e.contains("launch")) continue;
    for (const json& f : e.at("launch").at("flags")) {
      out[e.at("id").get<std::string>()].insert(f.at("flag").get<std::string>());
    }
    for (const json& other : e.at("launch").value("also", json::array())) {
      for (const json& f : other.at("flags")) {
        out[other.at("id").get<std::string>()].insert(f.at("flag").get<std::string>());
      }
    }
  }
  return out;
}

std::map<std::string, json> args_of(const json& launch) {
  std::map<std::string, json> out;
  for (const json& a : launch.at("args")) {
    CHECK_MESSAGE(out.count(a.at("flag").get<std::string>()) == 0, "flag given twice");
    out[a.at("flag").get<std::string>()] = a.at("value");
  }
  return out;
}

// A flag's value, or `fallback` (the engine's default) when the plan left it out.
json value_or(const std::map<std::string, json>& args, const std::string& flag, json fallback) {
  const auto it = args.find(flag);
  return it == args.end() ? fallback : it->second;
}

}  // namespace

TEST_CASE("the issue's case: vllm serve with TP 4, 32k context, 20 sequences, FP8") {
  const json r = testing::estimate({{"model", "llama-3.1-70b"},
                                    {"weights", "fp8"},
                                    {"context", 32768},
                                    {"batch", 20},
                                    {"engine", "vllm"},
                                    {"gpu", "h200-sxm"},
                                    {"gpu_count", 4}});
  const json& l = r.at("launch");
  CHECK(l.at("engine") == "vllm");
  const std::string cmd = l.at("command").get<std::string>();
  CHECK(cmd.rfind("vllm serve ", 0) == 0);
  CHECK(cmd.find(" --tensor-parallel-size 4") != std::string::npos);
  CHECK(cmd.find(" --max-model-len 32768") != std::string::npos);
  // The max_num_seqs the profile ran with: vllm serve's 1024 on an H200, 20 users within it.
  CHECK(cmd.find(" --max-num-seqs 1024") != std::string::npos);
  CHECK(cmd.find(" --quantization fp8") != std::string::npos);
  // Defaults are not emitted: one pipeline stage, the default memory fraction.
  CHECK(cmd.find("--pipeline-parallel-size") == std::string::npos);
  CHECK(cmd.find("--gpu-memory-utilization") == std::string::npos);
}

TEST_CASE("FP8 chosen for a checkpoint stored in FP8 asks no quantization on load") {
  for (const char* engine : {"vllm", "sglang"}) {
    INFO(engine);
    const json stored = testing::estimate(
        {{"model", "deepseek-v3"}, {"weights", "fp8"}, {"engine", engine}, {"gpu", "h200-sxm"}});
    CHECK(stored.at("launch").at("command").get<std::string>().find("--quantization") ==
          std::string::npos);
    const json cast = testing::estimate(
        {{"model", "llama-3.1-8b"}, {"weights", "fp8"}, {"engine", engine}, {"gpu", "h200-sxm"}});
    CHECK(cast.at("launch").at("command").get<std::string>().find("--quantization fp8") !=
          std::string::npos);
  }
}

TEST_CASE("a preset's command names its hub repository where the engine downloads from the hub") {
  const auto& catalog = testing::calculator().catalog();
  int named = 0;
  for (const auto& entry : catalog.models) {
    CAPTURE(entry.id);
    for (const char* engine : {"vllm", "sglang", "llamacpp"}) {
      CAPTURE(engine);
      const json l = testing::estimate({{"model", entry.id}, {"engine", engine}}).at("launch");
      const std::string cmd = l.at("command").get<std::string>();
      if (std::string(engine) == "llamacpp" || entry.repo.empty()) {
        // A GGUF file, or no repository on record: the placeholder.
        CHECK(l.at("model") != entry.repo);
        CHECK(cmd.find(" MODEL") != std::string::npos);
      } else {
        CHECK(l.at("model") == entry.repo);
        CHECK(cmd.find(" " + entry.repo + " ") != std::string::npos);
        ++named;
      }
    }
  }
  CHECK(named >= 2 * 30);  // most presets were read from a hub repository
  const json r = testing::estimate({{"model", "llama-3.1-70b"}, {"engine", "sglang"}});
  CHECK(r.at("launch").at("command").get<std::string>().rfind(
            "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct", 0) ==
        0);
}

TEST_CASE("a hub repository in data/models.json is owner/name, nothing a shell would read") {
  for (const auto& entry : testing::calculator().catalog().models) {
    if (entry.repo.empty()) continue;
    CAPTURE(entry.repo);
    CHECK(entry.repo.find_first_not_of(
              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") ==
          std::string::npos);
    CHECK(std::count(entry.repo.begin(), entry.repo.end(), '/') == 1);
  }
}

TEST_CASE("the conventions have no launch command") {
  for (const char* engine : {"guide", "percent"}) {
    const json r = testing::estimate({{"model", "llama-3.1-8b"}, {"engine", engine}});
    CHECK_FALSE(r.contains("launch"));
  }
}

TEST_CASE("a changed knob and a quantized KV cache are emitted") {
  const json v = testing::estimate({{"model", "llama-3.1-8b"},
                                    {"engine", "vllm"},
                                    {"kv", "fp8"},
                                    {"engine_options", {{"gpu_memory_utilization", 0.95}}}});
  const auto va = args_of(v.at("launch"));
  CHECK(va.at("--gpu-memory-utilization") == 0.95);
  CHECK(va.at("--kv-cache-dtype") == "fp8");
  const json l = testing::estimate({{"model", "llama-3.1-8b"},
                                    {"engine", "llamacpp"},
                                    {"kv", "q8_0"},
                                    {"context", 8192},
                                    {"batch", 4},
                                    {"engine_options", {{"flash_attn", true}}}});
  const auto la = args_of(l.at("launch"));
  CHECK(la.at("-c") == 8192 * 4);
  CHECK(la.at("-np") == 4);
  CHECK(la.at("--cache-type-k") == "q8_0");
  CHECK(la.at("--cache-type-v") == "q8_0");
  CHECK(la.at("-fa") == "on");
  const auto oa = args_of(l.at("launch").at("also").at(0));
  CHECK(oa.at("OLLAMA_KV_CACHE_TYPE") == "q8_0");
  CHECK(oa.at("OLLAMA_NUM_PARALLEL") == 4);
  CHECK(l.at("launch").at("also").at(0).at("command") ==
        "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=4 OLLAMA_KV_CACHE_TYPE=q8_0 "
        "OLLAMA_FLASH_ATTENTION=1 ollama serve");
  CHECK(l.at("warnings").dump().find("warning.llamacpp_quantized_v") == std::string::npos);
}

TEST_CASE("llama.cpp with a quantized V cache and flash attention off is warned about") {
  const json r = testing::estimate({{"model", "llama-3.1-8b"},
                                    {"engine", "llamacpp"},
                                    {"kv", "q4_0"},
                                    {"engine_options", {{"flash_attn", false}}}});
  CHECK(r.at("warnings").dump().find("warning.llamacpp_quantized_v") != std::string::npos);
  const json f16 = testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "llamacpp"}});
  CHECK(f16.at("warnings").dump().find("warning.llamacpp_quantized_v") == std::string::npos);
}

TEST_CASE("property: emitted flags are listed for their engine, and carry the plan's numbers") {
  const auto listed = listed_flags();
  REQUIRE(listed.size() == 4);  // vLLM, SGLang, llama.cpp and Ollama over it
  const auto& catalog = testing::calculator().catalog();
  int checked = 0;
  for (const auto& entry : catalog.models) {
    for (const char* engine : {"vllm", "sglang", "llamacpp"}) {
      for (int gpus : {1, 2, 4, 8}) {
        CAPTURE(entry.id);
        CAPTURE(engine);
        CAPTURE(gpus);
        json r;
        try {
          r = testing::estimate({{"model", entry.id},
                                 {"engine", engine},
                                 {"context", 4096 * gpus},
                                 {"batch", 3 + gpus},
                                 {"gpu", "h100-sxm"},
                                 {"gpu_count", gpus}});
        } catch (const vram::Error& e) {
          CHECK(e.field() == "gpu_count");  // more cards than layers
          continue;
        }
        REQUIRE(r.contains("launch"));
        const json& l = r.at("launch");
        CHECK(l.at("engine") == engine);
        const auto args = args_of(l);
        // The model's own flags (its preset's "launch") besides the engine's.
        std::set<std::string> own;
        if (entry.launch.contains(engine)) {
          for (const json& f : entry.launch.at(engine).at("flags")) own.insert(f.at("flag"));
        }
        for (const auto& [flag, value] : args) {
          CAPTURE(flag);
          CHECK(listed.at(engine).count(flag) + own.count(flag) >= 1);
          // The command line carries each flag with its value.
          std::ostringstream piece;
          piece << " " << flag;  // a switch alone
          if (value != true) {
            piece << " " << (value.is_string() ? value.get<std::string>() : value.dump());
          }
          CHECK(l.at("command").get<std::string>().find(piece.str()) != std::string::npos);
        }
        const json& sv = r.at("serving");
        const json& opt = r.at("engine").at("options");
        const std::string e = engine;
        if (e == "vllm") {
          CHECK(value_or(args, "--tensor-parallel-size", 1) == sv.at("tensor_parallel"));
          CHECK(value_or(args, "--pipeline-parallel-size", 1) == sv.at("pipeline_parallel"));
          CHECK(args.at("--max-model-len") == r.at("context"));
          // The max_num_seqs the KV budget's profile used, not the users.
          CHECK(args.at("--max-num-seqs") == opt.at("max_num_seqs"));
          CHECK(value_or(args, "--gpu-memory-utilization", 0.9) ==
                opt.at("gpu_memory_utilization"));
        } else if (e == "sglang") {
          CHECK(value_or(args, "--tp", 1) == sv.at("tensor_parallel"));
          CHECK(value_or(args, "--pp-size", 1) == sv.at("pipeline_parallel"));
          CHECK(args.at("--context-length") == r.at("context"));
          CHECK(args.at("--max-running-requests") == r.at("batch"));
          CHECK(args.at("--mem-fraction-static") == opt.at("mem_fraction_static"));
        } else {
          CHECK(args.at("-c") ==
                r.at("context").get<std::int64_t>() * r.at("batch").get<std::int64_t>());
          CHECK(args.at("-np") == r.at("batch"));
          // Every layer and the output, or a partial offload's count (test_offload.cpp).
          const bool partial = sv.contains("offload");
          CHECK(args.at("-ngl") == (partial ? sv.at("offload").at("ngl").get<std::int64_t>()
                                            : r.at("model").at("layers").get<std::int64_t>() + 1));
          CHECK(value_or(args, "--n-cpu-moe", 0) ==
                (partial ? sv.at("offload").at("n_cpu_moe").get<std::int64_t>() : 0));
          CHECK(args.at("-fa") == (opt.at("flash_attn").get<bool>() ? "on" : "off"));
          // Ollama runs the same plan: server settings as variables before the program.
          REQUIRE(l.at("also").size() == 1);
          const json& ollama = l.at("also").at(0);
          CHECK(ollama.at("engine") == "ollama");
          const auto oa = args_of(ollama);
          const std::string command = ollama.at("command").get<std::string>();
          for (const auto& [flag, value] : oa) {
            CAPTURE(flag);
            CHECK(listed.at("ollama").count(flag) == 1);
            const std::string assignment =
                flag + "=" + (value.is_string() ? value.get<std::string>() : value.dump()) + " ";
            CHECK(command.find(assignment) < command.find("ollama serve"));
          }
          CHECK(oa.at("OLLAMA_CONTEXT_LENGTH") == r.at("context"));
          CHECK(value_or(oa, "OLLAMA_NUM_PARALLEL", 1) == r.at("batch"));
          CHECK(oa.at("OLLAMA_FLASH_ATTENTION") == (opt.at("flash_attn").get<bool>() ? "1" : "0"));
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("property: a fine-tuning plan's Python calls carry its values, with listed arguments") {
  // The arguments data/engines.json lists per call.
  std::map<std::string, std::set<std::string>> listed;
  const json section = testing::read_json("data/engines.json").at("training_launch");
  for (const json& call : section.at("calls")) {
    for (const json& f : call.at("flags")) {
      listed[call.at("call").get<std::string>()].insert(f.at("flag").get<std::string>());
    }
  }
  int checked = 0;
  for (const char* model : {"llama-3.1-8b", "qwen3-30b-a3b", "gemma-3-4b", "guide-70b"}) {
    for (const char* mode : {"full", "lora", "qlora"}) {
      for (const char* precision : {"mixed", "bf16"}) {
        for (int gpus : {1, 4}) {
          CAPTURE(model);
          CAPTURE(mode);
          CAPTURE(precision);
          CAPTURE(gpus);
          json request = {{"model", model},
                          {"mode", mode},
                          {"precision", precision},
                          {"seq", 4096},
                          {"micro_batch", 2 + gpus},
                          {"optimizer", "adamw-8bit"},
                          {"checkpointing", gpus == 1},
                          {"gpu_count", gpus},
                          {"zero", gpus > 1 ? 2 : 0}};
          // LoRA's rank, where the method has adapters (full fine-tuning refuses it).
          if (std::string(mode) != "full") request["lora_rank"] = 32;
          const json r = testing::estimate(request);
          const json& l = r.at("launch");
          std::map<std::string, json> args;
          for (const json& a : l.at("args")) {
            const std::string call = a.at("call").get<std::string>();
            const std::string flag = a.at("flag").get<std::string>();
            CAPTURE(flag);
            CHECK(listed[call].count(flag) == 1);
            args[call + "." + flag] = a.at("value");
          }
          const std::string cmd = l.at("command").get<std::string>();
          CHECK(args.at("SFTConfig.per_device_train_batch_size") == r.at("micro_batch"));
          CHECK(args.at("SFTConfig.max_length") == r.at("seq"));
          CHECK(args.at("SFTConfig.gradient_checkpointing") == (gpus == 1));
          CHECK(args.at("SFTConfig.optim") == "adamw_bnb_8bit");
          const bool full = std::string(mode) == "full";
          const bool fp32 = full && std::string(precision) == "mixed";
          CHECK(args.at("AutoModelForCausalLM.from_pretrained.dtype").at("expr") ==
                (fp32 ? "torch.float32" : "torch.bfloat16"));
          CHECK((args.count("LoraConfig.r") == 1) == !full);
          if (!full) {
            CHECK(args.at("LoraConfig.r") == 32);
            CHECK(args.at("LoraConfig.target_modules") ==
                  json({"q_proj", "k_proj", "v_proj", "o_proj"}));
          }
          CHECK((cmd.find("load_in_4bit=True") != std::string::npos) ==
                (std::string(mode) == "qlora"));
          CHECK((cmd.find("autocast_adapter_dtype=False") != std::string::npos) ==
                (!full && std::string(precision) == "bf16"));
          if (gpus > 1) {
            CHECK(args.at("SFTConfig.deepspeed") == json{{"zero_optimization", {{"stage", 2}}}});
            CHECK(l.at("launcher") == "accelerate launch --num_processes 4 train.py");
          } else {
            CHECK_FALSE(l.contains("launcher"));
            CHECK(args.count("SFTConfig.deepspeed") == 0);
          }
          // One Python call per line, each one `name = call(...)`.
          std::istringstream lines(cmd);
          for (std::string line; std::getline(lines, line);) {
            CHECK(line.find(" = ") != std::string::npos);
            CHECK(line.back() == ')');
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 48);
}

TEST_CASE("what the trainer's arguments cannot say is a note: SGD's momentum, a chunked loss") {
  const json plain = testing::estimate({{"model", "qwen3-8b"}, {"mode", "full"}});
  CHECK(plain.at("launch").at("notes").empty());
  CHECK(plain.at("launch").at("model") == "Qwen/Qwen3-8B");
  const json r = testing::estimate({{"model", "qwen3-8b"},
                                    {"mode", "full"},
                                    {"optimizer", "sgd"},
                                    {"momentum", 0.9},
                                    {"loss", "chunked"}});
  const json& notes = r.at("launch").at("notes");
  REQUIRE(notes.size() == 2);
  CHECK(notes.at(0).at("id") == "launch.note_sgd_momentum");
  CHECK(notes.at(0).at("params").at("code").at("params").at("text").get<std::string>().find(
            "momentum=0.9)") != std::string::npos);
  CHECK(notes.at(1).at("id") == "launch.note_chunked_loss");
  const json fused =
      testing::estimate({{"model", "qwen3-8b"}, {"mode", "lora"}, {"loss", "fused"}});
  CHECK(fused.at("launch").at("command").get<std::string>().find("use_liger_kernel=True") !=
        std::string::npos);
}

TEST_CASE("property: expert parallel and DP attention flags are listed and carry the layout") {
  const auto listed = listed_flags();
  const auto& catalog = testing::calculator().catalog();
  int checked = 0;
  for (const auto& entry : catalog.models) {
    if (!vram::resolve_preset(entry).model.is_moe()) continue;
    for (const char* engine : {"vllm", "sglang"}) {
      for (int gpus : {2, 4, 8}) {
        for (int dp : {1, 2, gpus}) {
          for (bool ep : {false, true}) {
            CAPTURE(entry.id);
            CAPTURE(engine);
            CAPTURE(gpus);
            CAPTURE(dp);
            CAPTURE(ep);
            json r;
            try {
              r = testing::estimate(
                  {{"model", entry.id},
                   {"engine", engine},
                   {"gpu", "h200-sxm"},
                   {"gpu_count", gpus},
                   {"engine_options", {{"expert_parallel", ep}, {"data_parallel_size", dp}}}});
            } catch (const vram::Error& e) {
              CHECK(std::string(e.field()).rfind("engine_options.expert_parallel", 0) == 0);
              continue;
            }
            const json& l = r.at("launch");
            const auto args = args_of(l);
            const std::string command = l.at("command").get<std::string>();
            for (const auto& [flag, value] : args) {
              CAPTURE(flag);
              CHECK(listed.at(engine).count(flag) == 1);
              // A switch stands alone; any other flag carries its value.
              const std::string piece =
                  " " + flag +
                  (value == true
                       ? ""
                       : " " + (value.is_string() ? value.get<std::string>() : value.dump()));
              CHECK(command.find(piece) != std::string::npos);
            }
            const json& sv = r.at("serving");
            const int tp = sv.at("tensor_parallel").get<int>();
            CHECK(sv.at("data_parallel") == dp);
            if (std::string(engine) == "vllm") {
              CHECK(value_or(args, "--tensor-parallel-size", 1) == tp);
              CHECK(value_or(args, "--data-parallel-size", 1) == dp);
              CHECK(args.count("--enable-expert-parallel") == (ep ? 1u : 0u));
            } else {
              // --tp counts every card of a stage; --dp ranks of attention within them.
              CHECK(value_or(args, "--tp", 1) == tp * dp);
              CHECK(value_or(args, "--dp", 1) == dp);
              CHECK(args.count("--enable-dp-attention") == (dp > 1 ? 1u : 0u));
              CHECK(value_or(args, "--ep-size", 1) == (ep ? tp * dp : 1));
              CHECK(value_or(args, "--ep-size", 1) == sv.at("expert_parallel_size"));
            }
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 150);
}

TEST_CASE("SGLang's --max-running-requests gives every attention rank the users the plan counts") {
  // SGLang gives each rank max_running_requests // dp (model_runner.py): 5 users over 4 ranks
  // are 2 a rank, as the draft pool's headroom counts them, so the command asks for 8.
  for (const int dp : {1, 2, 4}) {
    CAPTURE(dp);
    const json r = testing::estimate({{"model", "qwen3-30b-a3b"},
                                      {"engine", "sglang"},
                                      {"gpu", "h100-sxm"},
                                      {"gpu_count", 4},
                                      {"batch", 5},
                                      {"engine_options", {{"data_parallel_size", dp}}}});
    const auto args = args_of(r.at("launch"));
    CHECK(value_or(args, "--dp", 1) == dp);
    CHECK(args.at("--max-running-requests") == (5 + dp - 1) / dp * dp);
    CHECK(args.at("--max-running-requests").get<int>() / dp == (5 + dp - 1) / dp);
  }
}

namespace {

// The flags a preset lists for `engine` in data/models.json, read from the file itself.
json preset_flags(const std::string& model, const std::string& engine) {
  const json file = testing::read_json("data/models.json");
  for (const json& m : file.at("models")) {
    if (m.at("id") == model) return m.at("launch").at(engine).at("flags");
  }
  throw std::runtime_error("no preset " + model);
}

json launch_of(const char* model, const char* engine, const char* companion = nullptr) {
  json r = {{"model", model}, {"engine", engine}, {"gpu", "h100-sxm"}, {"context", 4096}};
  if (companion != nullptr) {
    r["model"] = "llama-3.1-8b";
    r["companion_model"] = companion;
  }
  const json a = testing::estimate(r).at("launch");
  return companion != nullptr ? a.at("companion") : a;
}

}  // namespace

TEST_CASE("the Qwen3 reranker's command serves it as a reranker, from its preset's launch flags") {
  const std::string overrides =
      R"( --hf-overrides '{"architectures":["Qwen3ForSequenceClassification"],)"
      R"("classifier_from_token":["no","yes"],"is_original_qwen3_reranker":true}')";
  // Alone and as the companion beside an LLM: the same flags, first after the model.
  for (const char* companion : {static_cast<const char*>(nullptr), "qwen3-reranker-0.6b"}) {
    CAPTURE(companion != nullptr);
    const json vllm = launch_of("qwen3-reranker-0.6b", "vllm", companion);
    const std::string cmd = vllm.at("command").get<std::string>();
    CHECK(cmd.rfind("vllm serve Qwen/Qwen3-Reranker-0.6B --runner pooling" + overrides + " ", 0) ==
          0);
    const auto args = args_of(vllm);  // no flag twice (the companion's own --runner gives way)
    // The value is the data's, written as JSON between single quotes.
    const std::string quoted = args.at("--hf-overrides").get<std::string>();
    CHECK(json::parse(quoted.substr(1, quoted.size() - 2)) ==
          preset_flags("qwen3-reranker-0.6b", "vllm").at(1).at("value"));
    // SGLang runs a decoder-only reranker without --is-embedding, with its chat template.
    const json sglang = launch_of("qwen3-reranker-0.6b", "sglang", companion);
    const auto sa = args_of(sglang);
    CHECK(sa.count("--is-embedding") == 0);
    CHECK(sa.at("--chat-template") == "examples/chat_template/qwen3_reranker.jinja");
    // llama-server's reranking endpoint.
    const auto la = args_of(launch_of("qwen3-reranker-0.6b", "llamacpp", companion));
    CHECK(la.at("--reranking") == true);
  }
  // An embedding model: the pooling runner and nothing of the reranker's.
  const std::string embed = launch_of("qwen3-embedding-0.6b", "vllm").at("command");
  CHECK(embed.rfind("vllm serve Qwen/Qwen3-Embedding-0.6B --runner pooling --max-model-len", 0) ==
        0);
  CHECK(args_of(launch_of("qwen3-embedding-0.6b", "sglang")).at("--is-embedding") == true);
  // A model that generates names no runner.
  const std::string llm = launch_of("llama-3.1-8b", "vllm").at("command");
  CHECK(llm.find("--runner") == std::string::npos);
  CHECK(llm.find("--hf-overrides") == std::string::npos);
}

TEST_CASE("a preset's launch flags are checked before any command carries them") {
  const auto& engines = testing::calculator().catalog().engines;
  const json ok = {
      {"vllm",
       {{"flags", json::array({{{"flag", "--runner"}, {"value", "pooling"}, {"meaning", "m"}}})},
        {"source", "s"}}}};
  CHECK(vram::preset_launch_from_json(ok, "models[0].launch", engines) == ok);
  auto refused = [&engines](const json& launch) {
    try {
      vram::preset_launch_from_json(launch, "models[0].launch", engines);
    } catch (const vram::Error& e) {
      CHECK(e.code() == "internal");
      CHECK(e.message().id == "error.data_launch");
      return e.field();
    }
    return std::string("accepted");
  };
  auto with = [&ok](const char* key, const json& value) {
    json l = ok;
    l["vllm"]["flags"][0][key] = value;
    return l;
  };
  // An engine without a command, or none at all.
  CHECK(refused({{"guide", ok.at("vllm")}}) == "models[0].launch.guide");
  CHECK(refused({{"tgi", ok.at("vllm")}}) == "models[0].launch.tgi");
  CHECK(refused(json::array()) == "models[0].launch");
  // A flag a shell would read otherwise, or no flag at all.
  for (const char* flag : {"runner", "--Runner", "--run ner", "--x;rm", "-", "---x", ""}) {
    CAPTURE(flag);
    CHECK(refused(with("flag", flag)) == "models[0].launch.vllm.flags[0]");
  }
  // A value: a plain word, a number, or JSON without a single quote.
  for (const json& value : {json("a b"), json("$(id)"), json("x'y"), json(""), json(true),
                            json(nullptr), json{{"k", "it's"}}}) {
    CAPTURE(value.dump());
    CHECK(refused(with("value", value)) == "models[0].launch.vllm.flags[0].value");
  }
  CHECK(refused(with("value", json{{"k", std::string(3000, 'a')}})) ==
        "models[0].launch.vllm.flags[0].value");
  // Exactly one of value, switch and omit; no key of another name; a source.
  CHECK(refused(with("switch", true)) == "models[0].launch.vllm.flags[0]");
  CHECK(refused(with("omit", false)) == "models[0].launch.vllm.flags[0].omit");
  CHECK(refused(with("carries", "batch")) == "models[0].launch.vllm.flags[0].carries");
  json twice = ok;
  twice["vllm"]["flags"].push_back(ok["vllm"]["flags"][0]);
  CHECK(refused(twice) == "models[0].launch.vllm.flags[1]");
  json unsourced = ok;
  unsourced["vllm"].erase("source");
  CHECK(refused(unsourced) == "models[0].launch.vllm");
  // The catalog's own pass the same check (Catalog::builtin runs it).
  for (const auto& preset : testing::calculator().catalog().models) {
    CHECK(vram::preset_launch_from_json(preset.launch, preset.id, engines) == preset.launch);
  }
}
