// Qwen3-Next and Qwen3.5: Gated DeltaNet layers beside gated full attention
// (core/src/import/qwen3_next.cpp). Every figure below is counted by hand
// from the config's fields and transformers' modules
// (models/qwen3_next/modeling_qwen3_next.py, models/qwen3_vl).
#include <string>
#include <utility>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/hf_config.hpp"
#include "vram/kv_cache.hpp"
#include "vram/params.hpp"

using nlohmann::json;

namespace {

const vram::KvFormat kBf16{"bf16", "BF16", 16, "test"};

}  // namespace

TEST_CASE("Qwen3-Next 80B-A3B: parameters, KV cache and state counted layer by layer") {
  const vram::ImportedModel imported = vram::import_hf_config(testing::qwen3_next_80b());
  CHECK(imported.warnings.empty());
  const vram::ModelSpec& m = imported.model;
  CHECK(m.layers[0].attention == vram::LayerAttention::kState);
  CHECK(m.layers[2].attention == vram::LayerAttention::kState);
  CHECK(m.layers[3].attention == vram::LayerAttention::kGlobal);
  CHECK(m.layers[47].attention == vram::LayerAttention::kGlobal);
  const vram::ParamCount count = vram::count_params(m);
  // A gated attention layer: q_proj 2048 x (16 x 256 x 2, queries and gate) = 16,777,216;
  // k_proj and v_proj 2048 x 512 each = 2,097,152; o_proj 4096 x 2048 = 8,388,608; q_norm and
  // k_norm 512: 27,263,488; twelve of them 327,161,856.
  CHECK(count.attention == 327'161'856.0);
  // A Gated DeltaNet layer: key width 16 x 128 = 2,048, value width 32 x 128 = 4,096;
  // in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824; in_proj_ba 2048 x 64 = 131,072;
  // conv1d (2 x 2048 + 4096) x 4 = 32,768; dt_bias and A_log 64; norm 128; out_proj
  // 4096 x 2048 = 8,388,608: 33,718,464; thirty-six of them 1,213,864,704.
  CHECK(count.ssm == 1'213'864'704.0);
  // Embedding and head 151,936 x 2048 each; per layer 512 routed experts of 3 x 2048 x 512,
  // a shared expert as wide, the router 2048 x 512 and the shared expert's gate 2048; norms
  // 2 x 2048 a layer and the final one. In all 79,674,391,296: Qwen's "80B total parameters"
  // (transformers docs/source/en/model_doc/qwen3_next.md) within 0.5%.
  CHECK(count.total() == 79'674'391'296.0);
  CHECK(count.total() / 80e9 == doctest::Approx(1.0).epsilon(0.005));
  // Active: ten routed experts a layer instead of 512: 3,874,929,408.
  CHECK(count.active() == 3'874'929'408.0);

  // Only the twelve full-attention layers cache per token: 12 x 2 x 2 x 256 x 2 bytes.
  const vram::KvCacheSize kv = vram::kv_cache(m, kBf16, 4096, 1);
  CHECK(kv.bytes_per_token == 24'576.0);
  // Each DeltaNet layer keeps, per sequence, its conv window (8,192 x 4 x 2 bytes = 65,536)
  // and its state (32 heads x 128 x 128 x 2 bytes = 1,048,576): 1,114,112; 36 layers.
  CHECK(kv.bytes == 24'576.0 * 4096 + 36 * 1'114'112.0);
  // Two sequences, twice as much; the state does not grow with the context.
  CHECK(vram::kv_cache(m, kBf16, 8192, 2).bytes == 2 * (24'576.0 * 8192 + 36 * 1'114'112.0));
}

TEST_CASE("Qwen3.5 MoE: text_config, layer_types, an FP32 state and the Qwen3-VL tower") {
  const json config = testing::qwen35_moe_35b();
  const vram::ImportedModel imported = vram::import_hf_config(config);
  CHECK(imported.warnings.empty());
  const vram::ModelSpec& m = imported.model;
  CHECK(m.layers[3].attention == vram::LayerAttention::kGlobal);
  CHECK(m.layers[4].attention == vram::LayerAttention::kState);
  const vram::ParamCount count = vram::count_params(m);
  // The tower: patch_embed 3 x 2 x 16 x 16 x 1152 + 1152 = 1,770,624; pos_embed
  // 2304 x 1152 = 2,654,208; per block 4 x 1152 (norms) + 3 x 1152^2 + 3 x 1152 (qkv) +
  // 1152^2 + 1152 (proj) + 2 x 1152 x 4304 + 4304 + 1152 (MLP) = 15,236,368, 27 blocks
  // 411,381,936; the merger's norm 2,304, fc1 4608^2 + 4608, fc2 4608 x 2048 + 2048:
  // 30,764,480. In all 446,571,248.
  CHECK(vram::vision_params(m) == 446'571'248.0);
  // The language model: 10 gated attention layers of 27,263,488, 30 DeltaNet layers of
  // 33,718,464, 40 MoE blocks of 808,978,432, embedding and head 248,320 x 2048 each, norms:
  // 34,660,610,688; with the tower 35,107,181,936 ("35B").
  CHECK(count.total() == 35'107'181'936.0);
  // The recurrent state in FP32: 32 x 128 x 128 x 4 = 2,097,152 bytes a layer, the conv
  // window still 65,536 at 16 bits.
  const vram::KvCacheSize kv = vram::kv_cache(m, kBf16, 1, 1);
  CHECK(kv.bytes == 10 * 2048.0 + 30 * (2'097'152.0 + 65'536.0));
}

TEST_CASE("Qwen3-Next: value heads that do not divide among the key heads are refused by name") {
  json config = testing::qwen3_next_80b();
  config["linear_num_value_heads"] = 24;
  config["linear_num_key_heads"] = 16;
  try {
    vram::import_hf_config(config);
    FAIL("no error");
  } catch (const vram::Error& e) {
    CHECK(e.field() == "config.linear_num_value_heads");
    CHECK(e.message().id == "error.linear_heads");
  }
  // A tower with a deepstack index past its depth names the field.
  json vl = {{"model_type", "qwen3_5"},
             {"text_config", testing::qwen3_next_80b()},
             {"vision_config",
              {{"depth", 2},
               {"hidden_size", 64},
               {"intermediate_size", 128},
               {"deepstack_visual_indexes", {5}}}}};
  try {
    vram::import_hf_config(vl);
    FAIL("no error");
  } catch (const vram::Error& e) {
    CHECK(e.field() == "config.vision_config.deepstack_visual_indexes");
  }
}

TEST_CASE("Qwen3-Next under vLLM at TP 2: each card keeps half of every layer's state") {
  // Qwen3NextGatedDeltaNet splits its key and value heads over the tensor-parallel ranks, so
  // a card keeps 8 key heads and 16 value heads: the conv window's d_conv - 1 past columns
  // (vLLM's conv_state_shape), (2 x 1,024 + 2,048) x 3 x 2 bytes = 24,576, and the state
  // 16 x 128 x 128 x 2 bytes = 524,288: 548,864 a layer. The twelve attention layers keep
  // one KV head of the two.
  const json answer = testing::estimate({{"config", testing::qwen3_next_80b()},
                                         {"engine", "vllm"},
                                         {"gpu", "h200-sxm"},
                                         {"gpu_count", 2},
                                         {"context", 4096},
                                         {"batch", 1}});
  const json& kv = testing::term(answer, "kv_cache");
  double state = -1;
  for (const json& group : kv.at("formula").at("params").at("groups")) {
    if (group.at("params").contains("state_bytes")) {
      state = group.at("params").at("state_bytes").get<double>();
    }
  }
  CHECK(state == 548'864.0);
  // 12 layers x 1 KV head x (256 + 256) x 2 bytes x 4,096 tokens + 36 x 548,864.
  CHECK(kv.at("gb").get<double>() * 1e9 ==
        doctest::Approx(12.0 * 1024 * 4096 + 36 * 548'864.0).epsilon(1e-12));
}

TEST_CASE("Qwen3-Next under llama.cpp: F32 states, one per slot, beside the shared cells") {
  // llama_memory_recurrent holds the conv (r) and recurrent (s) states in F32, one row per
  // sequence (rs_size = n_seq_max, the server's slots), the conv window's d_conv - 1 columns
  // (n_embd_r): per DeltaNet layer 8,192 x 3 x 4 bytes = 98,304 and 32 x 128 x 128 x 4 bytes
  // = 2,097,152, i.e. 2,195,456 a slot. The attention layers' cells are context x slots.
  const json answer = testing::estimate({{"config", testing::qwen3_next_80b()},
                                         {"engine", "llamacpp"},
                                         {"weights", "q4_k_m"},
                                         {"gpu", "h200-sxm"},
                                         {"context", 4096},
                                         {"batch", 4}});
  const json& kv = testing::term(answer, "kv_cache");  // llama.cpp's KV buffer
  const json& groups = kv.at("formula").at("params").at("groups");
  bool seen = false;
  for (const json& group : groups) {
    if (group.at("id") != "formula.kv_group_state_seqs") continue;
    seen = true;
    CHECK(group.at("params").at("state_bytes") == 2'195'456.0);
    CHECK(group.at("params").at("sequences") == 4);
  }
  CHECK(seen);
  // 12 layers x 2 KV heads x 512 x 2 bytes (F16) x 16,384 cells + 36 x 2,195,456 x 4.
  CHECK(kv.at("gb").get<double>() * 1e9 ==
        doctest::Approx(24'576.0 * 16'384 + 36 * 2'195'456.0 * 4).epsilon(1e-12));
  CHECK(testing::assumes(answer, "assumption.ssm_state"));
  for (const json& a : answer.at("assumptions")) {
    if (a.at("id") != "assumption.ssm_state") continue;
    CHECK(a.at("params").at("conv_bits") == 32);
    CHECK(a.at("params").at("state_bits") == 32);
  }
}

TEST_CASE("Qwen3.5-9B's recurrent states under llama.cpp: 50.25 MiB, as its log says") {
  // llama.cpp logged for Qwen3.5-9B-Q4_K_M at one slot "RS buffer size = 50.25 MiB ... R (f32):
  // 2.25 MiB, S (f32): 48.00 MiB" over 24 recurrent layers of 32 (JamePeng/llama-cpp-python
  // issue 78, 2026-03-05). Its DeltaNet is Qwen3-Next's: 16 key heads and 32 value heads of
  // 128, a conv kernel of 4. R: 24 x 3 columns x 8,192 channels x 4 bytes = 2.25 MiB; S: 24 x
  // 32 x 128 x 128 x 4 bytes = 48 MiB. The attention shape below is the test's own.
  json cfg = testing::qwen3_next_80b();
  cfg["model_type"] = "qwen3_5_text";
  cfg["hidden_size"] = 4096;
  cfg["num_hidden_layers"] = 32;
  cfg["intermediate_size"] = 12288;
  cfg.erase("num_experts");
  cfg.erase("num_experts_per_tok");
  cfg.erase("moe_intermediate_size");
  cfg.erase("shared_expert_intermediate_size");
  cfg.erase("decoder_sparse_step");
  cfg.erase("mlp_only_layers");
  const json answer = testing::estimate({{"config", cfg},
                                         {"engine", "llamacpp"},
                                         {"weights", "q4_k_m"},
                                         {"gpu", "rtx-5090"},
                                         {"context", 8192},
                                         {"batch", 1}});
  const json& kv = testing::term(answer, "kv_cache");
  double state = -1;
  double layers = 0;
  for (const json& group : kv.at("formula").at("params").at("groups")) {
    if (!group.at("params").contains("state_bytes")) continue;
    state = group.at("params").at("state_bytes").get<double>();
    layers = group.at("params").at("layers").get<double>();
  }
  CHECK(layers == 24);
  CHECK(layers * state == 50.25 * 1024 * 1024);
}

TEST_CASE("Qwen3-Next's MTP layer: a full-attention MoE layer, fc and three norms, not counted") {
  // Qwen/Qwen3-Next-80B-A3B-Instruct's config says mtp_num_hidden_layers 1: the checkpoint's
  // mtp.* tensors (vLLM qwen3_next_mtp.py): fc 2 x 2048 x 2048 = 8,388,608; pre_fc_norm_
  // embedding, pre_fc_norm_hidden and norm 3 x 2048 = 6,144; mtp.layers.0, a gated attention
  // layer of 27,263,488 and layer 0's MoE block (512 experts of 3 x 2048 x 512 =
  // 1,610,612,736, the shared expert 3,145,728, the router 1,048,576 and the shared expert's
  // gate 2,048: 1,614,809,088) with its two norms 4,096: 1,642,076,672. In all 1,650,471,424.
  json config = testing::qwen3_next_80b();
  config["mtp_num_hidden_layers"] = 1;
  const vram::ImportedModel imported = vram::import_hf_config(config);
  const vram::ModelSpec& m = imported.model;
  CHECK(m.mtp_layers == 1);
  REQUIRE(m.mtp_layer_specs.size() == 1);
  CHECK(m.mtp_layer_specs[0].attention == vram::LayerAttention::kGlobal);
  CHECK(m.mtp_layer_specs[0].mlp == vram::LayerMlp::kMoe);
  REQUIRE(m.extras.size() == 1);
  CHECK(m.extras[0].id == "mtp");
  CHECK_FALSE(m.extras[0].resident);
  CHECK(m.extras[0].count == 1'650'471'424.0);
  REQUIRE(m.import_notes.size() == 1);
  CHECK(m.import_notes[0].id == "import.mtp");
  // Outside the resident count, as DeepSeek V3's module is: 79,674,391,296 still, Qwen's
  // "80B" within 0.5%; with the layer the checkpoint holds 81,324,862,720.
  const vram::ParamCount count = vram::count_params(m);
  CHECK(count.total() == 79'674'391'296.0);
  CHECK(count.extras_excluded == 1'650'471'424.0);
  // num_nextn_predict_layers, the key vLLM's predictor reads, says the same.
  config.erase("mtp_num_hidden_layers");
  config["num_nextn_predict_layers"] = 1;
  CHECK(vram::import_hf_config(config).model.mtp_layers == 1);
}

TEST_CASE("Qwen3.5 dense: the MTP layer is full attention after a linear last layer, dense") {
  // layer_types ending on linear attention: the MTP layer is still full attention (vLLM
  // qwen3_5_mtp.py, layer_type "full_attention"), with the model's dense MLP.
  json text = testing::qwen3_next_80b();
  for (const char* key : {"num_experts", "num_experts_per_tok", "moe_intermediate_size",
                          "shared_expert_intermediate_size", "decoder_sparse_step",
                          "mlp_only_layers", "full_attention_interval"}) {
    text.erase(key);
  }
  text["model_type"] = "qwen3_5_text";
  text["num_hidden_layers"] = 4;
  text["layer_types"] = {"full_attention", "linear_attention", "linear_attention",
                         "linear_attention"};
  text["mtp_num_hidden_layers"] = 1;
  const json config = {{"model_type", "qwen3_5"}, {"text_config", text}};
  const vram::ModelSpec m = vram::import_hf_config(config).model;
  CHECK(m.layers.back().attention == vram::LayerAttention::kState);
  REQUIRE(m.mtp_layer_specs.size() == 1);
  CHECK(m.mtp_layer_specs[0].attention == vram::LayerAttention::kGlobal);
  CHECK(m.mtp_layer_specs[0].mlp == vram::LayerMlp::kDense);
  // The gated attention layer 27,263,488; the dense MLP 3 x 2048 x 5120 = 31,457,280; two
  // norms 4,096; fc and the three norms 8,394,752: 67,119,616.
  REQUIRE(m.extras.size() == 1);
  CHECK(m.extras[0].count == 67'119'616.0);
}

namespace {

json next_request(bool mtp) {
  json r = {{"model", "qwen3-next-80b-a3b"},
            {"engine", "vllm"},
            {"gpu", "h200-sxm"},
            {"gpu_count", 2},
            {"context", 8192},
            {"batch", 1},
            {"draft_tokens", 2}};
  if (mtp) r["speculative"] = "mtp";
  return r;
}

}  // namespace

TEST_CASE("vLLM: Qwen3-Next's MTP layer drafts with the model's head, one attention cache layer") {
  const json alone = testing::estimate(next_request(false));
  const json both = testing::estimate(next_request(true));
  // In BF16: the layer 1,642,076,672 x 2 = 3,284,153,344 bytes and fc with its norms
  // 8,394,752 x 2 = 16,789,504: 3,300,942,848, half on each of the two cards. No head of its
  // own: load_eagle_model hands the draft the model's lm_head.
  const json& weights = testing::term(both, "mtp_weights");
  CHECK(weights.at("formula").at("id") == "formula.mtp_weights");
  CHECK(weights.at("formula").at("params").at("layers") == 3'300'942'848.0);
  CHECK_FALSE(weights.at("formula").at("params").contains("head"));
  CHECK(weights.at("gb").get<double>() * 1e9 == doctest::Approx(1'650'471'424.0));
  // The layer's cache: one KV head of the two on each card, (256 + 256) x 2 bytes = 1,024 a
  // token, a thirteenth full-attention layer beside the model's twelve in vLLM's hybrid pool
  // (test_vllm_hybrid.cpp): blocks of 544 tokens, 13 pages of 557,056 bytes each; a request of
  // 8,192 tokens takes 16 blocks and a page in each of three state groups, one more for each
  // of the 2 drafted tokens with the MTP layer (alone 19 blocks, 12 pages each).
  CHECK(both.at("budget").at("kv_bytes_per_token") == 557'056.0 * 13 * (16 + 9) / 8192);
  CHECK(alone.at("budget").at("kv_bytes_per_token") == 557'056.0 * 12 * (16 + 3) / 8192);
  CHECK(testing::term_gb(both, "mtp_kv") * 1e9 == doctest::Approx(1024.0 * 8192));
  CHECK(testing::term_gb(alone, "mtp_weights") == 0);
  CHECK(testing::launch_command(both).find(
            " --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":2}'") !=
        std::string::npos);
  // SGLang: NEXTN, which SGLang runs as EAGLE, with the model's head too.
  json r = next_request(true);
  r["engine"] = "sglang";
  const json sglang = testing::estimate(r);
  CHECK(testing::term(sglang, "mtp_weights").at("formula").at("params").at("layers") ==
        3'300'942'848.0);
  CHECK(testing::launch_command(sglang).find(
            "--speculative-algorithm EAGLE --speculative-num-steps 2") != std::string::npos);
}

TEST_CASE("MTP is refused for a Qwen3-Next config without MTP layers") {
  json r = next_request(true);
  r.erase("model");
  r["config"] = testing::qwen3_next_80b();
  CHECK(testing::refusal(r) == std::pair<std::string, std::string>{"error.no_mtp", "speculative"});
  r["config"]["mtp_num_hidden_layers"] = 0;
  CHECK(testing::refusal(r).first == "error.no_mtp");
  r["config"]["mtp_num_hidden_layers"] = 1;
  CHECK(testing::term_gb(testing::estimate(r), "mtp_weights") > 0);
}

TEST_CASE("Qwen3-Next 80B under llama.cpp at 300,032 cells: the KV buffer its log printed") {
  // "llama_kv_cache: ROCm0 KV buffer size = 7032.00 MiB ... (300032 cells, 12 layers, 1/1
  // seqs), K (f16): 3516.00 MiB, V (f16): 3516.00 MiB" for Qwen3-Next-80B-A3B-Instruct-Q4_K_M
  // (ROCm/TheRock issue 2595): the twelve attention layers' cells. The 36 DeltaNet layers' F32
  // states (2,195,456 bytes each a slot) are the recurrent buffer llama.cpp logs apart.
  const json answer = testing::estimate({{"model", "qwen3-next-80b-a3b"},
                                         {"engine", "llamacpp"},
                                         {"weights", "q4_k_m"},
                                         {"context", 300'032},
                                         {"batch", 1}});
  const json& groups = testing::term(answer, "kv_cache").at("formula").at("params").at("groups");
  double attention = -1;
  double states = -1;
  for (const json& group : groups) {
    const json& p = group.at("params");
    if (group.at("id") == "formula.kv_group") {
      attention = p.at("layers").get<double>() * p.at("kv_heads").get<double>() *
                  (p.at("k_dim").get<double>() + p.at("v_dim").get<double>()) *
                  p.at("bytes").get<double>() * p.at("tokens").get<double>();
    } else {
      states = p.at("layers").get<double>() * p.at("state_bytes").get<double>();
    }
  }
  CHECK(attention == 7032.0 * 1024 * 1024);
  CHECK(states == 36 * 2'195'456.0);
}
