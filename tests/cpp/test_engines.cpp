// Engine profiles: each hand-computed from the documented formula, and the
// options' errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/inverse.hpp"
#include "vram/units.hpp"

using nlohmann::json;

namespace {}  // namespace

TEST_CASE("vLLM: KV budget = usable x utilization - weights - non-torch - activations - graphs") {
  const json r =
      testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
  // Llama 3.1 8B: 8,030,261,248 BF16 parameters; hidden 4096, FFN 14336,
  // 32 heads, 8 KV heads of 128, vocabulary 128,256.
  const double weights = 8030261248.0 * 2;
  const double per_token = (3.0 * 14336 + 2.0 * 4096 + (32 + 2 * 8) * 128.0) * 2;
  // vllm serve on an 80 GB H100: 8,192 batched tokens and 1,024 sequences
  // (vllm/engine/arg_utils.py). The sampler's warm-up (1,024 x 128,256 x 10
  // bytes) outweighs the forward pass.
  const double activations = std::max(8192 * per_token, 1024 * 128256.0 * 10);
  CHECK(activations > 8192 * per_token);
  const double budget = 79.18 * vram::kBytesPerGiB * 0.9 - weights - 0.3 * vram::kBytesPerGiB -
                        activations - 0.5 * vram::kBytesPerGiB;
  CHECK(r.at("kv_budget_gb").get<double>() == doctest::Approx(budget / 1e9).epsilon(1e-12));
  const double kv_per_token = 32 * 2 * 8 * 128 * 2.0;
  const auto blocks = static_cast<std::int64_t>(budget / (16 * kv_per_token));
  CHECK(r.at("kv_blocks").get<std::int64_t>() == blocks);
  CHECK(r.at("max_concurrency").get<double>() ==
        doctest::Approx(static_cast<double>(blocks) * 16 / 8192.0));
  CHECK(testing::required_gb(r, "activations") == doctest::Approx(activations / 1e9));
}

TEST_CASE("vLLM's profile sorts the vocabulary where top-k runs in PyTorch: profile_top_k") {
  // Llama 3.1 8B at 2,048 batched tokens and V0's 256 sequences: the peak is
  // the larger of the forward pass and the sampler warm-up through
  // FlashInfer's kernel (16-bit logits, fp32 logits and probabilities, 10
  // bytes an element); the PyTorch top-k sort, 38 bytes an element, plus the
  // forward's output it still holds, is above both and sets the peak.
  json request = {{"model", "llama-3.1-8b"},
                  {"engine", "vllm"},
                  {"gpu", "h100-sxm"},
                  {"engine_options", {{"max_num_batched_tokens", 2048}, {"max_num_seqs", 256}}}};
  const double per_token = (3.0 * 14336 + 2.0 * 4096 + (32 + 2 * 8) * 128.0) * 2;
  const json v1 = testing::estimate(request);
  CHECK(testing::required_gb(v1, "activations") ==
        doctest::Approx(std::max(2048 * per_token, 256 * 128256.0 * 10) / 1e9));
  request["engine_options"]["profile_top_k"] = true;
  const json v0 = testing::estimate(request);
  const double sort = 256 * 128256.0 * 38 + 2048 * 4096.0 * 2;
  CHECK(sort > 2048 * per_token);
  CHECK(testing::required_gb(v0, "activations") == doctest::Approx(sort / 1e9));
  // The KV budget gives up exactly the difference.
  CHECK(v1.at("kv_budget_gb").get<double>() - v0.at("kv_budget_gb").get<double>() ==
        doctest::Approx(testing::required_gb(v0, "activations") -
                        testing::required_gb(v1, "activations")));
  // More sequences, a larger sort.
  request["engine_options"]["max_num_seqs"] = 512;
  CHECK(testing::required_gb(testing::estimate(request), "activations") >
        testing::required_gb(v0, "activations"));
}

TEST_CASE("vLLM options are knobs: utilization, eager mode, tensor parallelism") {
  const json base = {{"model", "llama-3.1-70b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}};
  json tp2 = base;
  tp2["engine_options"] = {{"tensor_parallel_size", 2}};
  const json one = testing::estimate(base);
  const json two = testing::estimate(tp2);
  CHECK_FALSE(one.at("budget").at("fits").get<bool>());  // 141 GB of BF16 weights on one 80 GB card
  CHECK(two.at("budget").at("fits").get<bool>());
  CHECK(testing::required_gb(two, "weights") ==
        doctest::Approx(testing::required_gb(one, "weights") / 2));
  CHECK(testing::required_gb(two, "kv_cache") ==
        doctest::Approx(testing::required_gb(one, "kv_cache") / 2));  // 8 KV heads split in two
  json eager = base;
  eager["engine_options"] = {{"enforce_eager", true}, {"gpu_memory_utilization", 0.95}};
  const json e = testing::estimate(eager);
  CHECK(testing::required_gb(e, "cuda_graph") == 0);
  CHECK(e.at("budget").at("reserved_gb").get<double>() ==
        doctest::Approx(79.18 * vram::kBytesPerGiB * 0.95 / 1e9));
}

TEST_CASE("MLA caches are not split by tensor parallelism") {
  json r = {{"model", "deepseek-v2-lite"}, {"engine", "vllm"}, {"gpu", "l4"}, {"context", 4096}};
  const double one = testing::required_gb(testing::estimate(r), "kv_cache");
  r["engine_options"] = {{"tensor_parallel_size", 2}};
  CHECK(testing::required_gb(testing::estimate(r), "kv_cache") == one);
}

TEST_CASE("vLLM pages hybrid sliding-window models in equal layer groups") {
  // Gemma 3 1B: 4 global and 22 sliding layers -> groups of 4 (two padding layers): 1 + 6
  // groups, a block 4 pages of 16 tokens x 1 KV head x 256 x 2 x 2 bytes = 65,536 bytes. A
  // request of 8,192 tokens takes 512 blocks in the global group and, in each sliding group,
  // its 512-token window with the step's 2,048 tokens (the RTX 5090's default), cdiv(2,559,
  // 16) + 1 = 161: 1,478 blocks, so a token of context costs 65,536 x 1,478 / 8,192 bytes.
  const json r =
      testing::estimate({{"model", "gemma-3-1b"}, {"engine", "vllm"}, {"gpu", "rtx-5090"}});
  CHECK(r.at("budget").at("kv_bytes_per_token").get<double>() == 65536.0 * 1478 / 8192);
  const double budget = r.at("budget").at("kv_budget_gb").get<double>() * 1e9;
  const auto blocks = static_cast<std::int64_t>(std::floor(budget / 65536.0));
  CHECK(r.at("budget").at("kv_blocks") == blocks);
  CHECK(r.at("budget").at("max_concurrency").get<double>() ==
        doctest::Approx(static_cast<double>(blocks) / 1478));
}

TEST_CASE("SGLang: pool = usable x mem_fraction_static - weights - non-torch") {
  const json r =
      testing::estimate({{"model", "qwen3-32b"}, {"engine", "sglang"}, {"gpu", "h100-sxm"}});
  const double weights = 32762123264.0 * 2;
  const double pool = 79.18 * vram::kBytesPerGiB * 0.88 - weights - 1.0 * vram::kBytesPerGiB;
  CHECK(r.at("kv_budget_gb").get<double>() == doctest::Approx(pool / 1e9).epsilon(1e-12));
  const double per_token = 64 * 2 * 8 * 128 * 2.0;  // 64 layers, 8 KV heads of 128
  CHECK(r.at("budget").at("kv_tokens").get<std::int64_t>() ==
        static_cast<std::int64_t>(pool / per_token));
}

TEST_CASE("llama.cpp: model buffer without token_embd, KV over n_ctx cells, compute buffer") {
  // Llama 3.1 8B Q4_K_M, n_ctx 8192 (4 slots of 2048): Ollama logs a 1024.00 MiB KV buffer.
  const json r = testing::estimate({{"model", "llama-3.1-8b"},
                                    {"engine", "llamacpp"},
                                    {"weights", "q4_k_m"},
                                    {"context", 2048},
                                    {"batch", 4}});
  CHECK(testing::required_gb(r, "kv_cache") * 1e9 / 1048576.0 == doctest::Approx(1024.0));
  const double embedding = 128256.0 * 4096 * 4.85 / 8;
  CHECK(r.at("host_gb").get<double>() == doctest::Approx(embedding / 1e9));
  CHECK(testing::required_gb(r, "weights") ==
        doctest::Approx((8030261248.0 * 4.85 / 8 - embedding) / 1e9));
  const double compute = 8192.0 * 512 * 32 * 4 + 4.5 * 512 * 4096 * 4;
  CHECK(testing::required_gb(r, "compute_buffer") == doctest::Approx(compute / 1e9));
  json fa = {{"model", "llama-3.1-8b"},
             {"engine", "llamacpp"},
             {"engine_options", {{"flash_attn", true}}}};
  CHECK(testing::required_gb(testing::estimate(fa), "compute_buffer") ==
        doctest::Approx(512 * 128256.0 * 4 / 1e9));
}

TEST_CASE("llama.cpp keeps only the window (plus a ubatch) for sliding layers unless swa_full") {
  json r = {{"model", "gemma-2-9b"}, {"engine", "llamacpp"}, {"context", 32768}};
  const double windowed = testing::required_gb(testing::estimate(r), "kv_cache");
  r["engine_options"] = {{"kv_full_swa", true}};
  const double full = testing::required_gb(testing::estimate(r), "kv_cache");
  // 21 sliding layers hold 4096 + 512 tokens instead of 32768.
  CHECK(full - windowed == doctest::Approx(21 * 8192.0 * (32768 - 4608) / 1e9));
}

TEST_CASE("the conventions: flat and percent overhead") {
  json r = {{"model", "guide-70b"}, {"weights", "fp8"}, {"overhead_gb", 3.5}};
  CHECK(testing::estimate(r).at("overhead_gb").get<double>() == doctest::Approx(3.5));
  r = {{"model", "guide-70b"}, {"weights", "fp8"}, {"engine", "percent"}};
  const json p = testing::estimate(r);
  CHECK(p.at("overhead_gb").get<double>() ==
        doctest::Approx(0.1 *
                        (p.at("weights_gb").get<double>() + p.at("kv_cache_gb").get<double>())));
}

TEST_CASE("engine errors name the option") {
  auto field_of = [](const json& request) {
    try {
      testing::estimate(request);
    } catch (const vram::Error& e) {
      return e.field() + " " + e.code();
    }
    return std::string("no error");
  };
  CHECK(field_of({{"model", "guide-7b"}, {"engine", "tgi"}}) == "engine unknown_engine");
  CHECK(field_of({{"model", "guide-7b"},
                  {"engine", "vllm"},
                  {"engine_options", {{"gpu_memory_utilization", 1.5}}}}) ==
        "engine_options.gpu_memory_utilization invalid_value");
  CHECK(field_of(
            {{"model", "guide-7b"}, {"engine", "vllm"}, {"engine_options", {{"swap_space", 4}}}}) ==
        "engine_options.swap_space unknown_field");
  CHECK(field_of(
            {{"model", "guide-7b"}, {"engine", "vllm"}, {"engine_options", {{"block_size", 0}}}}) ==
        "engine_options.block_size invalid_value");
  CHECK(field_of({{"model", "guide-7b"},
                  {"engine", "vllm"},
                  {"engine_options", {{"enforce_eager", 1}}}}) ==
        "engine_options.enforce_eager wrong_type");
  CHECK(field_of({{"model", "guide-7b"}, {"engine", "vllm"}, {"overhead_gb", 1}}) ==
        "overhead_gb invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"gpu", "voodoo-5"}}) == "gpu unknown_gpu");
}

TEST_CASE("inverse answers: longest context, largest batch, best format") {
  // 70B FP8 on one H100 under the guide's convention (80 GB, flat 2 GB):
  // 80 - 70 - 2 = 8 GB of cache at 327,680 bytes per token.
  const json r =
      testing::estimate({{"model", "guide-70b"}, {"weights", "fp8"}, {"gpu", "h100-sxm"}});
  const json& inv = r.at("inverse");
  CHECK(inv.at("max_context").get<std::int64_t>() == static_cast<std::int64_t>(8e9 / 327680));
  CHECK(inv.at("max_batch").get<std::int64_t>() ==
        static_cast<std::int64_t>(8e9 / (327680.0 * 8192)));
  // GGUF is llama.cpp's: under the guide's convention the best that fits
  // is FP8 (the H100 has it), not GGUF Q8_0's 8.5 bits (issue 11).
  CHECK(inv.at("best_format") == "fp8");
  // vLLM loads no GGUF: FP8 on an H100; on an A100 (no FP8 hardware), INT8.
  const json h100 = testing::estimate(
      {{"model", "guide-70b"}, {"weights", "fp8"}, {"gpu", "h100-sxm"}, {"engine", "vllm"}});
  CHECK(h100.at("inverse").at("best_format") == "fp8");
  const json a100 = testing::estimate(
      {{"model", "guide-70b"}, {"weights", "fp8"}, {"gpu", "a100-sxm"}, {"engine", "vllm"}});
  CHECK(a100.at("inverse").at("best_format") == "int8");
  CHECK(a100.at("warnings").dump().find("warning.no_fp8") != std::string::npos);
}

TEST_CASE("The conventions' overhead may be zero under engine_options, as at the top level") {
  const json top = testing::estimate({{"model", "guide-7b"}, {"overhead_gb", 0}});
  const json knob =
      testing::estimate({{"model", "guide-7b"}, {"engine_options", {{"overhead_gb", 0}}}});
  CHECK(testing::required_gb(knob, "overhead") == 0.0);
  CHECK(knob.at("total_gb").get<double>() == top.at("total_gb").get<double>());
  const json pct = testing::estimate(
      {{"model", "guide-7b"}, {"engine", "percent"}, {"engine_options", {{"overhead_pct", 0}}}});
  CHECK(testing::required_gb(pct, "overhead") == 0.0);
  // Every other knob stays positive.
  CHECK_THROWS_AS(testing::estimate({{"model", "guide-7b"},
                                     {"engine", "vllm"},
                                     {"engine_options", {{"gpu_memory_utilization", 0}}}}),
                  vram::Error);
}

TEST_CASE("a format that covers the linear layers leaves the embeddings, head and norms 16-bit") {
  // Llama 3.1 8B: 8,030,261,248 parameters, of which the embeddings and the
  // untied lm_head are 2 x 128,256 x 4,096 and the norms 65 x 4,096.
  const double kept = 2.0 * 128256 * 4096 + 65.0 * 4096;
  const double linear = 8030261248.0 - kept;
  for (const char* id : {"awq-int4", "gptq-int4", "nf4", "int8", "fp8"}) {
    const json r = testing::estimate({{"model", "llama-3.1-8b"}, {"weights", id}});
    const auto& format = testing::calculator().catalog().formats.weight(id, "weights");
    INFO(id);
    CHECK(format.covers == "linear");
    CHECK(testing::required_gb(r, "weights") ==
          doctest::Approx((linear * format.bytes_per_param() + kept * 2.0) / 1e9).epsilon(1e-12));
  }
  // GGUF types average over the file's own tensor mix: every parameter.
  const json q4 = testing::estimate({{"model", "llama-3.1-8b"}, {"weights", "q4_k_m"}});
  CHECK(testing::required_gb(q4, "weights") ==
        doctest::Approx(8030261248.0 * 4.85 / 8 / 1e9).epsilon(1e-12));
}

TEST_CASE("every total carries the measured error of its kind, from data/accuracy.json") {
  const auto& accuracy = testing::calculator().catalog().accuracy;
  // Under vLLM every term of this answer has been measured (the guide's overhead has not).
  const json inference =
      testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
  const json lora = testing::estimate({{"model", "llama-3.1-8b"}, {"mode", "lora"}});
  for (const auto& [answer, category] :
       {std::pair<const json*, const char*>{&inference, "inference"}, {&lora, "finetune-device"}}) {
    INFO(category);
    const json& m = answer->at("measured_error");
    CHECK(m.at("category") == category);
    CHECK(m.at("low_pct") == accuracy.at(category).at("low_pct"));
    CHECK(m.at("high_pct") == accuracy.at(category).at("high_pct"));
    CHECK(m.at("low_pct").get<double>() <= m.at("high_pct").get<double>());
    CHECK(m.at("cases").get<int>() >= 10);
    CHECK(m.at("note").at("params").at("cases") == m.at("cases"));
  }
}

TEST_CASE("a term no measured case checked widens the band by its share of the total") {
  const json& inference = testing::calculator().catalog().accuracy.at("inference");
  const json& checked = inference.at("terms");
  auto is_checked = [&](const std::string& id) {
    return std::find(checked.begin(), checked.end(), json(id)) != checked.end();
  };
  CHECK(is_checked("weights"));
  CHECK(is_checked("kv_cache"));
  const json request = {{"model", "gemma-3-27b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}};
  // Without images every term of this answer has been measured: the band as the set gives it.
  const json plain = testing::estimate(request);
  for (const json& term : plain.at("terms")) {
    INFO(term.at("id"));
    CHECK(is_checked(term.at("id").get<std::string>()));
  }
  CHECK_FALSE(plain.at("measured_error").contains("outside"));
  CHECK(plain.at("measured_error").at("low_pct") == inference.at("low_pct"));
  // Two images: the encoder cache and the tower's profiling pass, never measured.
  json with_images = request;
  with_images["images"] = 2;
  const json r = testing::estimate(with_images);
  const json& m = r.at("measured_error");
  REQUIRE(m.contains("outside"));
  double outside = 0;
  for (const json& id : m.at("outside").at("terms")) {
    CHECK_FALSE(is_checked(id.get<std::string>()));
    outside += testing::required_gb(r, id.get<std::string>());
  }
  CHECK(outside > 0);
  const double share = m.at("outside").at("share_pct").get<double>();
  CHECK(share == doctest::Approx(outside / r.at("total_gb").get<double>() * 100).epsilon(1e-9));
  CHECK(m.at("low_pct").get<double>() ==
        doctest::Approx(inference.at("low_pct").get<double>() - share));
  CHECK(m.at("high_pct").get<double>() ==
        doctest::Approx(inference.at("high_pct").get<double>() + share));
  CHECK(m.at("note").at("id") == "note.measured_error_outside");
  CHECK(m.at("note").at("params").at("measured").at("id") == "note.measured_error_inference");
  CHECK(m.at("note").at("params").at("terms").size() == m.at("outside").at("terms").size());
}

TEST_CASE("llama.cpp warns when the weights have no GGUF type, and only then") {
  auto warned = [](const json& req) {
    const json r = testing::estimate(req);
    for (const json& w : r.at("warnings")) {
      if (w.at("id") == "warning.llamacpp_format")
        return w.at("params").at("format").get<std::string>();
    }
    return std::string();
  };
  const json fp8 = {{"model", "llama-3.1-8b"}, {"weights", "fp8"}, {"engine", "llamacpp"}};
  CHECK(warned(fp8) == "FP8");
  json awq = fp8;
  awq["weights"] = "awq-int4";
  CHECK(warned(awq) == "AWQ INT4 (group 128)");
  for (const char* ok : {"q4_k_m", "q8_0", "bf16", "fp16", "fp32", "mxfp4"}) {
    json r = fp8;
    r["weights"] = ok;
    INFO(ok);
    CHECK(warned(r).empty());
  }
  // The checkpoint's own format: DeepSeek V3 is stored in FP8, gpt-oss in MXFP4 experts.
  CHECK(warned({{"model", "deepseek-v3"}, {"engine", "llamacpp"}}) == "FP8");
  CHECK(warned({{"model", "gpt-oss-120b"}, {"engine", "llamacpp"}}).empty());
  // Other engines load FP8 and AWQ: no such warning.
  json vllm = fp8;
  vllm["engine"] = "vllm";
  CHECK(warned(vllm).empty());
}

TEST_CASE(
    "vLLM, SGLang and transformers warn on a GGUF type; the conventions and llama.cpp do not") {
  auto warned = [](const json& req) {
    const json r = testing::estimate(req);
    for (const json& w : r.at("warnings")) {
      if (w.at("id") == "warning.gguf_format") return w.at("params");
    }
    return json();
  };
  for (const char* engine : {"vllm", "sglang", "transformers"}) {
    INFO(engine);
    const json p = warned({{"model", "llama-3.1-8b"}, {"weights", "q4_k_m"}, {"engine", engine}});
    CHECK(p.at("format") == "GGUF Q4_K_M");
    CHECK(p.contains("engine"));
    CHECK(
        warned({{"model", "llama-3.1-8b"}, {"weights", "awq-int4"}, {"engine", engine}}).is_null());
  }
  for (const char* engine : {"guide", "percent", "llamacpp"}) {
    INFO(engine);
    CHECK(warned({{"model", "llama-3.1-8b"}, {"weights", "q4_k_m"}, {"engine", engine}}).is_null());
  }
}

TEST_CASE("each engine in the preset list names the weight formats it loads, by engine_runs") {
  const vram::Calculator& calc = testing::calculator();
  const json presets = calc.presets();
  const auto& formats = calc.catalog().formats.weights();
  REQUIRE(presets.at("engines").size() == calc.catalog().engines.size());
  for (std::size_t i = 0; i < calc.catalog().engines.size(); ++i) {
    const vram::EngineProfile& engine = calc.catalog().engines[i];
    const json& loads = presets.at("engines")[i].at("loads");
    INFO(engine.id);
    std::size_t runs = 0;
    for (const vram::WeightFormat& f : formats) {
      const bool listed = std::find(loads.begin(), loads.end(), f.id) != loads.end();
      CHECK(listed == vram::engine_runs(engine, f));
      runs += listed ? 1 : 0;
    }
    CHECK(runs == loads.size());
    CHECK(runs > 0);
  }
  // The two families: llama.cpp loads Q8_0 and not FP8; vLLM the other way round.
  auto loads_of = [&](const std::string& id) {
    for (const json& e : presets.at("engines")) {
      if (e.at("id") == id) return e.at("loads");
    }
    return json();
  };
  const json llamacpp = loads_of("llamacpp");
  const json vllm = loads_of("vllm");
  CHECK(std::find(llamacpp.begin(), llamacpp.end(), "q8_0") != llamacpp.end());
  CHECK(std::find(llamacpp.begin(), llamacpp.end(), "fp8") == llamacpp.end());
  CHECK(std::find(vllm.begin(), vllm.end(), "fp8") != vllm.end());
  CHECK(std::find(vllm.begin(), vllm.end(), "q8_0") == vllm.end());
}

TEST_CASE("the preset list gives a quantized checkpoint's own storage in bits per parameter") {
  const json presets = testing::calculator().presets();
  std::map<std::string, double> bits;
  for (const json& m : presets.at("models")) {
    if (m.contains("native_bits")) bits[m.at("id").get<std::string>()] = m.at("native_bits");
  }
  // Only the checkpoints stored quantized; a 16-bit one has none.
  CHECK(bits.count("gpt-oss-120b") == 1);
  CHECK(bits.count("gpt-oss-20b") == 1);
  CHECK(bits.count("deepseek-v3") == 1);
  CHECK(bits.count("llama-3.1-8b") == 0);
  CHECK(bits.count("guide-70b") == 0);
  for (const auto& [id, value] : bits) {
    INFO(id);
    // The estimate's own native weights, per resident parameter.
    const json r = testing::estimate({{"model", id}, {"weights", "native"}});
    CHECK(value == doctest::Approx(testing::required_gb(r, "weights") * 1e9 * 8 /
                                   r.at("params_total").get<double>()));
  }
  // gpt-oss stores its experts in MXFP4: narrower than FP8, which would double it.
  CHECK(bits.at("gpt-oss-120b") < 5.0);
  CHECK(bits.at("deepseek-v3") > 8.0);
}

TEST_CASE("engine registry: every profile's kind has its rules, and they agree with each other") {
  const vram::Calculator& calc = testing::calculator();
  for (const vram::EngineProfile& engine : calc.catalog().engines) {
    INFO(engine.id);
    REQUIRE(engine.rules != nullptr);
    CHECK(vram::find_engine_rules(engine.kind()) == engine.rules);
  }
  for (const char* kind : {"flat", "percent", "vllm", "sglang", "llamacpp", "transformers"}) {
    INFO(kind);
    const vram::EngineRules* rules = vram::find_engine_rules(kind);
    REQUIRE(rules != nullptr);
    CHECK(std::string(rules->kind) == kind);
    const bool complete =
        rules->plan != nullptr && rules->loads != nullptr && rules->format_warning != nullptr;
    CHECK(complete);
    // A paged engine lays cards out by its own knobs; the others name their split.
    CHECK(rules->paged == std::string(rules->split).empty());
    CHECK(rules->splits_layers ==
          (std::string(rules->split) == "layer" || std::string(rules->split) == "device_map"));
    CHECK_FALSE((rules->convention && rules->paged));
  }
  CHECK(vram::find_engine_rules("guide") == nullptr);  // an id, not a kind
  CHECK(vram::find_engine_rules("") == nullptr);
}

TEST_CASE("engine profiles: a kind no engine file defines is a named error") {
  const json engines =
      json::array({{{"id", "x"}, {"name", "X"}, {"kind", "tgi"}, {"source", "s"}}});
  try {
    vram::engine_profiles_from_json(engines);
    FAIL("accepted an unknown kind");
  } catch (const vram::Error& e) {
    CHECK(e.code() == "internal");
    CHECK(e.field() == "engines[0].kind");
    CHECK(e.message().id == "error.engine_kind");
  }
}

TEST_CASE("engine profiles: an enum knob takes words from its choices, and needs them") {
  auto profile = [](const json& limits, const json& fallback) {
    return json::array({{{"id", "x"},
                         {"name", "X"},
                         {"kind", "vllm"},
                         {"source", "s"},
                         {"defaults", {{"backend", fallback}}},
                         {"limits", {{"backend", limits}}}}});
  };
  const auto knobs = vram::engine_profiles_from_json(
                         profile({{"type", "enum"}, {"choices", {"auto", "marlin"}}}, "auto"))
                         .at(0)
                         .knobs;
  REQUIRE(knobs.size() == 1);
  CHECK(knobs[0].type == vram::FieldType::kEnum);
  CHECK(knobs[0].choices == std::vector<std::string>{"auto", "marlin"});
  // No choices; "auto" beside them (a number's word); a default outside them.
  const std::pair<json, const char*> broken[] = {
      {profile({{"type", "enum"}}, "auto"), "error.knob_choices"},
      {profile({{"type", "enum"}, {"choices", {"auto"}}, {"auto", true}}, "auto"),
       "error.knob_auto"},
      {profile({{"type", "enum"}, {"choices", {"auto", "marlin"}}}, "triton"), "error.choice"},
  };
  for (const auto& [engines, id] : broken) {
    CAPTURE(id);
    try {
      vram::engine_profiles_from_json(engines);
      FAIL("accepted a broken enum knob");
    } catch (const vram::Error& e) {
      CHECK(e.message().id == id);
    }
  }
}
