// The GGUF and safetensors header readers, the checkpoint they become, and
// a fuzz of the GGUF reader.

#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <limits>
#include <random>

#include "gguf_writer.hpp"
#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/gguf.hpp"
#include "vram/offload.hpp"
#include "vram/safetensors.hpp"

using nlohmann::json;
using testing::GgufWriter;

namespace {

json inspect_json(const std::string& kind, const std::string& bytes, double size = 0) {
  return json::parse(vram::inspect(kind, bytes, size));
}

std::string safetensors_file(const json& header, std::size_t data_bytes, bool with_data = true) {
  const std::string text = header.dump();
  std::string out;
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((text.size() >> (8 * k)) & 0xFF));
  out += text;
  if (with_data) out.resize(out.size() + data_bytes, '\0');
  return out;
}

}  // namespace

TEST_CASE("ggml type sizes follow ggml's type traits") {
  // Bytes per block, worked out from the block structs of ggml-common.h.
  CHECK(vram::gguf::find_type("Q4_K")->type_size == 144);
  CHECK(vram::gguf::find_type("Q6_K")->type_size == 210);
  CHECK(vram::gguf::find_type("Q8_0")->type_size == 34);
  CHECK(vram::gguf::find_type("IQ2_XXS")->type_size == 66);
  CHECK(vram::gguf::find_type("IQ1_M")->type_size == 56);
  CHECK(vram::gguf::find_type("TQ1_0")->type_size == 54);
  CHECK(vram::gguf::find_type("MXFP4")->type_size == 17);
  CHECK(vram::gguf::find_type("MXFP4")->block_size == 32);
  CHECK(vram::gguf::find_type(static_cast<std::uint32_t>(4)) == nullptr);  // Q4_2, removed
}

TEST_CASE("a GGUF header reads back exactly") {
  for (std::uint32_t version : {2u, 3u}) {
    CAPTURE(version);
    const std::string file = testing::llama_fixture(version).build();
    const vram::gguf::Header h = vram::gguf::read_header(file, file.size());
    CHECK(h.version == version);
    CHECK(h.tensors.size() == 21);
    CHECK(h.find("general.name")->value == "tiny llama");
    CHECK(h.find("llama.rope.freq_base")->value.get<double>() == 500000.0);
    const vram::gguf::TensorInfo& down = h.tensors[9];
    CHECK(down.name == "blk.0.ffn_down.weight");
    CHECK(down.shape == std::vector<std::uint64_t>{512, 256});
    CHECK(down.bytes == 2 * 210 * 256);
    CHECK(h.data_offset % 32 == 0);
    CHECK(h.data_offset + h.data_bytes == file.size());
  }
}

TEST_CASE("inspect gives the type mix, the components and the config") {
  const json out = inspect_json("gguf", testing::llama_fixture(3, true).build());
  REQUIRE_FALSE(out.contains("error"));
  const json& file = out["file"];
  // Q4_K 144 B / 256, Q6_K 210 B / 256, F32 4 B (worked by hand).
  CHECK(file["by_type"]["Q4_K"]["bytes"] == 1199232.0);
  CHECK(file["by_type"]["Q6_K"]["bytes"] == 1318800.0);
  CHECK(file["by_type"]["F32"]["bytes"] == 5120.0);
  CHECK(file["bytes"] == 2523152.0);
  CHECK(file["by_component"]["embeddings"]["bytes"] == 720000.0);
  CHECK(file["by_component"]["lm_head"]["bytes"] == 1050000.0);
  CHECK(file["by_component"]["norms"]["bytes"] == 5120.0);
  // The 5,000-token vocabulary keeps its length, not its items.
  CHECK(out["metadata"]["tokenizer.ggml.tokens"]["length"] == 5000);
  const json& cfg = out["config"];
  CHECK(cfg["model_type"] == "llama");
  CHECK(cfg["vocab_size"] == 5000);
  CHECK(cfg["num_key_value_heads"] == 2);
  CHECK(cfg["tie_word_embeddings"] == false);

  // The estimate takes the checkpoint: weights are the file's bytes.
  const json answer = testing::estimate(
      {{"checkpoint", {{"config", cfg}, {"files", json::array({file})}}}, {"context", 4096}});
  CHECK(answer["weights_gb"].get<double>() == doctest::Approx(2523152.0 / 1e9).epsilon(1e-12));
  CHECK(answer["checkpoint"]["by_type"][0]["type"] == "Q6_K");
  CHECK(answer["weights_storage"].size() == 3);
  // The KV cache follows from the header's shape: 2 layers x 2 x 2 heads x 64 x 2 bytes.
  CHECK(answer["kv_bytes_per_token"] == 2 * 2 * 2 * 64 * 2);
}

TEST_CASE("llama.cpp keeps the checkpoint's token_embd bytes in host memory") {
  const json out = inspect_json("gguf", testing::llama_fixture().build());
  const json answer =
      testing::estimate({{"checkpoint", {{"config", out["config"]}, {"files", {out["file"]}}}},
                         {"engine", "llamacpp"}});
  CHECK(answer["host_gb"].get<double>() == doctest::Approx(720000.0 / 1e9).epsilon(1e-12));
}

TEST_CASE("llama.cpp leaves a GGUF's MTP blocks out of its model buffer; the others keep them") {
  // GLM-4.5 as llama.cpp's converter writes it: the NextN layer is the last of block_count.
  GgufWriter w;
  w.str("general.architecture", "glm4moe")
      .u32("glm4moe.block_count", 3)
      .u32("glm4moe.nextn_predict_layers", 1)
      .u32("glm4moe.embedding_length", 256)
      .u32("glm4moe.feed_forward_length", 512)
      .u32("glm4moe.expert_feed_forward_length", 128)
      .u32("glm4moe.expert_count", 8)
      .u32("glm4moe.expert_used_count", 2)
      .u32("glm4moe.expert_shared_count", 1)
      .u32("glm4moe.leading_dense_block_count", 1)
      .u32("glm4moe.attention.head_count", 4)
      .u32("glm4moe.attention.head_count_kv", 2)
      .u32("glm4moe.attention.key_length", 64)
      .u32("glm4moe.vocab_size", 1000)
      .tensor("token_embd.weight", {256, 1000}, "Q8_0");
  for (int i = 0; i < 3; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    w.tensor(b + "attn_norm.weight", {256}, "F32").tensor(b + "attn_q.weight", {256, 256}, "Q4_K");
    if (i > 0) w.tensor(b + "ffn_up_exps.weight", {256, 128, 8}, "Q4_K");
  }
  w.tensor("blk.2.nextn.eh_proj.weight", {512, 256}, "Q8_0")
      .tensor("blk.2.nextn.enorm.weight", {256}, "F32")
      .tensor("blk.2.nextn.shared_head_norm.weight", {256}, "F32")
      .tensor("output_norm.weight", {256}, "F32")
      .tensor("output.weight", {256, 1000}, "Q6_K");
  const json out = inspect_json("gguf", w.build());
  REQUIRE_FALSE(out.contains("config_error"));
  // blk.2, by hand: attn_norm 256 x 4, attn_q 256 x 144, ffn_up_exps 1,024 blocks x 144,
  // eh_proj 4,096 blocks x 34, two norms 256 x 4.
  const double mtp = 1024 + 36864 + 147456 + 139264 + 1024 + 1024;
  CHECK(out["file"]["by_component"]["mtp"]["bytes"] == mtp);
  // The model's own experts are blk.1's alone.
  CHECK(out["file"]["by_component"]["experts"]["bytes"] == 147456);
  const double file = out["file"]["bytes"].get<double>();
  const json checkpoint = {{"config", out["config"]}, {"files", {out["file"]}}};

  const json llama = testing::estimate({{"checkpoint", checkpoint}, {"engine", "llamacpp"}});
  const json& buffer = testing::term(llama, "weights");
  const double host = 256 * 1000 / 32 * 34;  // token_embd, Q8_0
  CHECK(buffer["gb"].get<double>() == doctest::Approx((file - host - mtp) / 1e9).epsilon(1e-12));
  CHECK(buffer["formula"]["id"] == "formula.model_buffer_mtp");
  const json& params = buffer["formula"]["params"];
  CHECK(params["mtp"] == mtp);
  // The formula's own numbers give its bytes: the parts, less token_embd, less the MTP blocks.
  double parts = 0;
  for (const json& part : params["parts"]) {
    parts += part["params"]["params"].get<double>() * part["params"]["bits"].get<double>() / 8;
  }
  CHECK(parts - params["host"].get<double>() - params["mtp"].get<double>() ==
        doctest::Approx(params["bytes"].get<double>()).epsilon(1e-12));
  CHECK(params["bytes"] == file - host - mtp);
  CHECK(testing::assumes(llama, "assumption.llamacpp_mtp_skipped"));

  // Partial offload splits what llama.cpp loads: token_embd, the layers and the output layer.
  {
    const vram::Catalog& catalog = testing::calculator().catalog();
    const vram::ImportedModel imported = vram::import_hf_config(out["config"]);
    const vram::CheckpointWeights weights = vram::checkpoint_from_json(checkpoint);
    const vram::EngineProfile& engine = vram::find_engine(catalog.engines, "llamacpp", "engine");
    vram::InferenceSetup setup;
    setup.model = &imported.model;
    setup.checkpoint = &weights;
    setup.kv = &catalog.formats.kv("fp16", "kv");
    setup.context = 4096;
    const json options = vram::engine_options(engine, json::object());
    const vram::InferencePlan plan =
        vram::plan_inference(setup, engine, options, nullptr, catalog.gpus, catalog.formats);
    CHECK(plan.mtp_bytes == mtp);
    const vram::OffloadParts split = vram::offload_parts(setup, plan, options);
    double layers = 0;
    for (const double b : split.layer_bytes) layers += b;
    CHECK(split.embedding_bytes + layers + split.head_bytes ==
          doctest::Approx(file - mtp).epsilon(1e-12));
  }

  // vLLM and the conventions keep the file whole (none of them loads a GGUF's MTP blocks
  // apart: they warn that they do not load GGUF at all, warning.gguf_format).
  for (const char* engine : {"vllm", "guide"}) {
    CAPTURE(engine);
    const json other = testing::estimate({{"checkpoint", checkpoint}, {"engine", engine}});
    CHECK(other["weights_gb"].get<double>() == doctest::Approx(file / 1e9).epsilon(1e-12));
    CHECK_FALSE(testing::assumes(other, "assumption.llamacpp_mtp_skipped"));
  }

  // A split part after the first has no metadata: its blocks with nextn.* tensors are the MTP
  // blocks, every tensor of them.
  GgufWriter tail;
  tail.u32("split.no", 1)
      .u32("split.count", 2)
      .u32("split.tensors.count", 5)
      .tensor("blk.1.attn_q.weight", {256, 256}, "Q4_K")
      .tensor("blk.2.attn_q.weight", {256, 256}, "Q4_K")
      .tensor("blk.2.ffn_up_exps.weight", {256, 128, 8}, "Q4_K")
      .tensor("blk.2.nextn.eh_proj.weight", {512, 256}, "Q8_0")
      .tensor("output.weight", {256, 1000}, "Q6_K");
  const json part = inspect_json("gguf", tail.build());
  CHECK(part["file"]["by_component"]["mtp"]["bytes"] == 36864 + 147456 + 139264);
  CHECK(part["file"]["by_component"]["attention"]["bytes"] == 36864);

  // A file without nextn_predict_layers has no MTP component: the same blocks are the model's.
  GgufWriter plain;
  plain.str("general.architecture", "glm4moe")
      .u32("glm4moe.block_count", 3)
      .tensor("blk.2.attn_q.weight", {256, 256}, "Q4_K");
  CHECK_FALSE(inspect_json("gguf", plain.build())["file"]["by_component"].contains("mtp"));
}

TEST_CASE("GGUF architectures map to configs the importer reads") {
  SUBCASE("qwen3moe") {
    GgufWriter w;
    w.str("general.architecture", "qwen3moe")
        .u32("qwen3moe.block_count", 2)
        .u32("qwen3moe.embedding_length", 256)
        .u32("qwen3moe.feed_forward_length", 768)
        .u32("qwen3moe.expert_feed_forward_length", 128)
        .u32("qwen3moe.expert_count", 8)
        .u32("qwen3moe.expert_used_count", 2)
        .u32("qwen3moe.attention.head_count", 4)
        .u32("qwen3moe.attention.head_count_kv", 2)
        .u32("qwen3moe.attention.key_length", 128)
        .u32("qwen3moe.vocab_size", 1000)
        .tensor("blk.0.ffn_up_exps.weight", {256, 128, 8}, "Q4_K");
    const json out = inspect_json("gguf", w.build());
    CHECK(out["config"]["model_type"] == "qwen3_moe");
    CHECK(out["config"]["moe_intermediate_size"] == 128);
    CHECK(out["config"]["head_dim"] == 128);
    CHECK(out["file"]["by_component"]["experts"]["bytes"] == 128 * 8 * 144);
    const json answer =
        testing::estimate({{"checkpoint", {{"config", out["config"]}, {"files", {out["file"]}}}}});
    CHECK(answer["model"]["moe"].is_object());
  }
  SUBCASE("gemma2: sliding window on every other layer") {
    GgufWriter w;
    w.str("general.architecture", "gemma2")
        .u32("gemma2.block_count", 4)
        .u32("gemma2.embedding_length", 256)
        .u32("gemma2.feed_forward_length", 512)
        .u32("gemma2.attention.head_count", 4)
        .u32("gemma2.attention.head_count_kv", 2)
        .u32("gemma2.attention.key_length", 64)
        .u32("gemma2.attention.sliding_window", 128)
        .u32("gemma2.vocab_size", 1000)
        .tensor("token_embd.weight", {256, 1000}, "Q8_0");
    const json out = inspect_json("gguf", w.build());
    CHECK(out["config"]["tie_word_embeddings"] == true);
    const json answer = testing::estimate(
        {{"checkpoint", {{"config", out["config"]}, {"files", {out["file"]}}}}, {"context", 1024}});
    CHECK(answer["kv_groups"].size() == 2);
  }
  SUBCASE("deepseek2 with MLA, absorbed key lengths") {
    GgufWriter w;
    w.str("general.architecture", "deepseek2")
        .u32("deepseek2.block_count", 3)
        .u32("deepseek2.embedding_length", 512)
        .u32("deepseek2.feed_forward_length", 1024)
        .u32("deepseek2.attention.head_count", 8)
        .u32("deepseek2.attention.head_count_kv", 1)
        .u32("deepseek2.attention.key_length", 576)
        .u32("deepseek2.attention.value_length", 512)
        .u32("deepseek2.attention.key_length_mla", 192)
        .u32("deepseek2.attention.value_length_mla", 128)
        .u32("deepseek2.attention.kv_lora_rank", 512)
        .u32("deepseek2.attention.q_lora_rank", 256)
        .u32("deepseek2.rope.dimension_count", 64)
        .u32("deepseek2.expert_count", 16)
        .u32("deepseek2.expert_used_count", 4)
        .u32("deepseek2.expert_shared_count", 1)
        .u32("deepseek2.expert_feed_forward_length", 256)
        .u32("deepseek2.leading_dense_block_count", 1)
        .u32("deepseek2.expert_gating_func", 2)
        .u32("deepseek2.vocab_size", 1000)
        .tensor("token_embd.weight", {512, 1000}, "Q4_K");
    const json cfg = inspect_json("gguf", w.build())["config"];
    CHECK(cfg["model_type"] == "deepseek_v3");
    CHECK(cfg["qk_nope_head_dim"] == 128);
    CHECK(cfg["v_head_dim"] == 128);
    CHECK(cfg["first_k_dense_replace"] == 1);
    const vram::ImportedModel m = vram::import_hf_config(cfg);
    CHECK(m.model.mla.kv_lora_rank == 512);
  }
  SUBCASE("gpt-oss: MXFP4 experts") {
    GgufWriter w;
    w.str("general.architecture", "gpt-oss")
        .u32("gpt-oss.block_count", 2)
        .u32("gpt-oss.embedding_length", 256)
        .u32("gpt-oss.expert_feed_forward_length", 256)
        .u32("gpt-oss.expert_count", 4)
        .u32("gpt-oss.expert_used_count", 2)
        .u32("gpt-oss.attention.head_count", 8)
        .u32("gpt-oss.attention.head_count_kv", 2)
        .u32("gpt-oss.attention.key_length", 64)
        .u32("gpt-oss.attention.sliding_window", 128)
        .u32("gpt-oss.vocab_size", 1000)
        .tensor("blk.0.ffn_up_exps.weight", {256, 256, 4}, "MXFP4");
    const json out = inspect_json("gguf", w.build());
    CHECK(out["config"]["model_type"] == "gpt_oss");
    CHECK(out["file"]["by_type"]["MXFP4"]["bytes"] == 256 / 32 * 17 * 256 * 4);
    CHECK_NOTHROW(vram::import_hf_config(out["config"]));
  }
  SUBCASE("qwen3next: Gated DeltaNet layers from llama.cpp's ssm keys") {
    // conversion/qwen.py, Qwen3NextModel.set_gguf_parameters: ssm.group_count the key heads,
    // ssm.state_size a key head's width, ssm.time_step_rank the value heads, ssm.inner_size
    // their width in all.
    GgufWriter w;
    w.str("general.architecture", "qwen3next")
        .u32("qwen3next.block_count", 4)
        .u32("qwen3next.embedding_length", 256)
        .u32("qwen3next.expert_feed_forward_length", 64)
        .u32("qwen3next.expert_shared_feed_forward_length", 64)
        .u32("qwen3next.expert_count", 8)
        .u32("qwen3next.expert_used_count", 2)
        .u32("qwen3next.attention.head_count", 4)
        .u32("qwen3next.attention.head_count_kv", 2)
        .u32("qwen3next.attention.key_length", 64)
        .u32("qwen3next.ssm.conv_kernel", 4)
        .u32("qwen3next.ssm.state_size", 32)
        .u32("qwen3next.ssm.group_count", 2)
        .u32("qwen3next.ssm.time_step_rank", 4)
        .u32("qwen3next.ssm.inner_size", 192)
        .u32("qwen3next.full_attention_interval", 2)
        .u32("qwen3next.vocab_size", 1000);
    const json cfg = inspect_json("gguf", w.build())["config"];
    CHECK(cfg["model_type"] == "qwen3_next");
    CHECK(cfg["linear_num_value_heads"] == 4);
    CHECK(cfg["linear_value_head_dim"] == 48);
    CHECK(cfg["linear_num_key_heads"] == 2);
    CHECK(cfg["linear_key_head_dim"] == 32);
    CHECK(cfg["linear_conv_kernel_dim"] == 4);
    CHECK_FALSE(cfg.contains("mamba_expand"));
    const vram::ImportedModel m = vram::import_hf_config(cfg);
    CHECK(m.model.layers[0].attention == vram::LayerAttention::kState);
    CHECK(m.model.layers[1].attention == vram::LayerAttention::kGlobal);
    CHECK(m.model.layers[3].attention == vram::LayerAttention::kGlobal);
    CHECK(m.model.ssm.gated_delta);
    CHECK(m.model.ssm.d_inner == 192);
    CHECK(m.model.ssm.n_heads == 4);
    CHECK(m.model.ssm.n_groups == 2);
    CHECK(m.model.ssm.d_state == 32);
    CHECK(m.model.moe.num_experts == 8);

    // A value width that no whole number of heads makes is named by its key.
    GgufWriter bad;
    bad.str("general.architecture", "qwen3next")
        .u32("qwen3next.block_count", 4)
        .u32("qwen3next.embedding_length", 256)
        .u32("qwen3next.attention.head_count", 4)
        .u32("qwen3next.ssm.conv_kernel", 4)
        .u32("qwen3next.ssm.state_size", 32)
        .u32("qwen3next.ssm.group_count", 2)
        .u32("qwen3next.ssm.time_step_rank", 4)
        .u32("qwen3next.ssm.inner_size", 190)
        .u32("qwen3next.vocab_size", 1000);
    const json error = inspect_json("gguf", bad.build());
    CHECK(error["config_error"]["field"] == "gguf.metadata.qwen3next.ssm.inner_size");
    CHECK(error["config_error"]["message_id"] == "error.gguf_meta_divides");
  }
  SUBCASE("qwen35: the MTP layer after the model's own in block_count") {
    // _Qwen35MtpMixin adds mtp_num_hidden_layers to block_count and writes
    // nextn_predict_layers; llama.cpp caches KV for the layers before it.
    GgufWriter w;
    w.str("general.architecture", "qwen35")
        .u32("qwen35.block_count", 5)
        .u32("qwen35.nextn_predict_layers", 1)
        .u32("qwen35.embedding_length", 256)
        .u32("qwen35.feed_forward_length", 512)
        .u32("qwen35.attention.head_count", 4)
        .u32("qwen35.attention.head_count_kv", 2)
        .u32("qwen35.attention.key_length", 64)
        .u32("qwen35.ssm.conv_kernel", 4)
        .u32("qwen35.ssm.state_size", 32)
        .u32("qwen35.ssm.group_count", 2)
        .u32("qwen35.ssm.time_step_rank", 4)
        .u32("qwen35.ssm.inner_size", 128)
        .u32("qwen35.full_attention_interval", 4)
        .u32("qwen35.vocab_size", 1000);
    const json cfg = inspect_json("gguf", w.build())["config"];
    CHECK(cfg["model_type"] == "qwen3_5_text");
    CHECK(cfg["num_hidden_layers"] == 4);
    CHECK(cfg["mtp_num_hidden_layers"] == 1);
    const vram::ImportedModel m = vram::import_hf_config(cfg);
    CHECK(m.model.num_layers() == 4);
    CHECK(m.model.layers[3].attention == vram::LayerAttention::kGlobal);
    CHECK(m.model.moe.num_experts == 0);
  }
  SUBCASE("glm4moe: block_count holds the NextN layer; so many of them are refused") {
    auto glm = [](std::uint32_t nextn) {
      GgufWriter w;
      w.str("general.architecture", "glm4moe")
          .u32("glm4moe.block_count", 3)
          .u32("glm4moe.nextn_predict_layers", nextn)
          .u32("glm4moe.embedding_length", 256)
          .u32("glm4moe.feed_forward_length", 512)
          .u32("glm4moe.expert_feed_forward_length", 64)
          .u32("glm4moe.expert_count", 8)
          .u32("glm4moe.expert_used_count", 2)
          .u32("glm4moe.expert_shared_count", 1)
          .u32("glm4moe.leading_dense_block_count", 1)
          .u32("glm4moe.attention.head_count", 4)
          .u32("glm4moe.attention.head_count_kv", 2)
          .u32("glm4moe.attention.key_length", 64)
          .u32("glm4moe.vocab_size", 1000);
      return inspect_json("gguf", w.build());
    };
    const json cfg = glm(1)["config"];
    CHECK(cfg["model_type"] == "glm4_moe");
    CHECK(cfg["num_hidden_layers"] == 2);
    CHECK(cfg["num_nextn_predict_layers"] == 1);
    CHECK(vram::import_hf_config(cfg).model.num_layers() == 2);
    const json error = glm(3);
    CHECK(error["config_error"]["field"] == "gguf.metadata.glm4moe.nextn_predict_layers");
    CHECK(error["config_error"]["message_id"] == "error.gguf_meta_nextn");
  }
  SUBCASE("falcon, command-r, phi3, qwen2, gemma3") {
    for (const char* arch : {"falcon", "command-r", "phi3", "qwen2", "qwen3", "gemma3"}) {
      CAPTURE(arch);
      const std::string a(arch);
      GgufWriter w;
      w.str("general.architecture", a)
          .u32(a + ".block_count", 2)
          .u32(a + ".embedding_length", 256)
          .u32(a + ".feed_forward_length", 1024)
          .u32(a + ".attention.head_count", 4)
          .u32(a + ".attention.head_count_kv", a == "falcon" ? 1 : 2)
          .u32(a + ".attention.sliding_window", 512)
          .u32(a + ".context_length", 2048)
          .u32(a + ".vocab_size", 1000);
      const json out = inspect_json("gguf", w.build());
      REQUIRE(out.contains("config"));
      CHECK_NOTHROW(vram::import_hf_config(out["config"]));
    }
  }
}

TEST_CASE("GGUF metadata of every value type, nested arrays included") {
  GgufWriter w(2);
  w.str("general.architecture", "llama")
      .i32("a.i32", -7)
      .u64("a.u64", 1ull << 40)
      .boolean("a.bool", true)
      .u32s("a.u32s", {1, 2, 3})
      .bools("a.bools", {true, false})
      .nested("a.nested", {{1, -2}, {}, {3}});
  const vram::gguf::Header h = vram::gguf::read_header(w.build());
  CHECK(h.find("a.i32")->value == -7);
  CHECK(h.find("a.u64")->value == (1ull << 40));
  CHECK(h.find("a.bool")->value == true);
  CHECK(h.find("a.u32s")->value == json({1, 2, 3}));
  CHECK(h.find("a.nested")->value == json::parse("[[1,-2],[],[3]]"));
}

TEST_CASE("malformed GGUF headers get named errors") {
  const std::string good = testing::llama_fixture().build();
  auto error_of = [](const std::string& bytes, double size = 0) {
    const json out = inspect_json("gguf", bytes, size);
    REQUIRE(out.contains("error"));
    return out["error"];
  };
  SUBCASE("magic") { CHECK(error_of("GGML" + good.substr(4))["field"] == "gguf.magic"); }
  SUBCASE("version") {
    std::string bad = good;
    bad[4] = 9;
    CHECK(error_of(bad)["field"] == "gguf.version");
  }
  SUBCASE("truncated: says how many bytes it needs") {
    const json e = error_of(good.substr(0, 100));
    CHECK(e["code"] == "truncated");
    CHECK(e["needed_bytes"].get<std::uint64_t>() > 100);
    // Read what it asks for, again and again: it converges.
    std::size_t size = 100;
    for (int i = 0; i < 200; ++i) {
      const json out = inspect_json("gguf", good.substr(0, size));
      if (!out.contains("error")) break;
      REQUIRE(out["error"]["code"] == "truncated");
      size = out["error"]["needed_bytes"].get<std::size_t>();
    }
    CHECK_FALSE(inspect_json("gguf", good.substr(0, size)).contains("error"));
  }
  SUBCASE("a truncated whole file is invalid, not truncated") {
    const std::string cut = good.substr(0, 100);
    CHECK(error_of(cut, static_cast<double>(cut.size()))["code"] == "invalid_gguf");
    // Tensor data past the end of the file.
    const std::string header_only = testing::llama_fixture().build(false);
    CHECK(error_of(header_only, static_cast<double>(header_only.size()))["field"] ==
          "gguf.tensor_infos");
  }
  SUBCASE("a float that is NaN or infinite is refused, never written as null") {
    for (const float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      testing::GgufWriter w = testing::llama_fixture();
      w.f32("deepseek2.rope.freq_base", bad);
      const json e = error_of(w.build());
      CHECK(e["code"] == "invalid_gguf");
      CHECK(e["field"] == "gguf.metadata.deepseek2.rope.freq_base");
    }
  }
  SUBCASE("a huge count is refused before any allocation") {
    std::string bad = good;
    for (int k = 0; k < 8; ++k) bad[8 + k] = static_cast<char>(0xFF);
    CHECK(error_of(bad)["field"] == "gguf.tensor_count");
  }
  SUBCASE("unknown tensor type") {
    GgufWriter w;
    w.str("general.architecture", "llama").tensor("t", {32}, "F32");
    std::string bad = w.build();
    // Name length 1, "t", n_dims 1, one dim (8 bytes), then the type.
    std::size_t type_at = 0;
    for (std::size_t i = 0; i + 4 < bad.size(); ++i) {
      if (bad.compare(i, 1, "t") == 0 && bad[i + 1] == 1) type_at = i + 1 + 4 + 8;
    }
    REQUIRE(type_at > 0);
    bad[type_at] = 99;
    CHECK(error_of(bad)["field"] == "gguf.tensor_infos[0].type");
  }
  SUBCASE("missing shape keys name the key") {
    GgufWriter w;
    w.str("general.architecture", "llama").u32("llama.block_count", 2);
    const json out = inspect_json("gguf", w.build());
    CHECK(out["config_error"]["field"] == "gguf.metadata.llama.embedding_length");
    CHECK(out["file"]["tensor_count"] == 0);
  }
}

TEST_CASE("split GGUF parts sum, and must be complete") {
  auto part = [](std::uint32_t no) {
    GgufWriter w;
    if (no == 0) w.str("general.architecture", "llama");
    w.u32("split.no", no).u32("split.count", 2).u32("split.tensors.count", 2);
    w.tensor(no == 0 ? "token_embd.weight" : "output.weight", {256, 1000}, "Q8_0");
    return json::parse(vram::inspect("gguf", w.build()))["file"];
  };
  const vram::CheckpointWeights both = vram::checkpoint_from_json({{"files", {part(0), part(1)}}});
  CHECK(both.bytes == 2 * 1000 * 8 * 34);
  CHECK(both.files == 2);
  CHECK_THROWS_WITH_AS(vram::checkpoint_from_json({{"files", {part(0)}}}),
                       "the model is split in 2 parts; 1 given", vram::Error);
  CHECK_THROWS_AS(vram::checkpoint_from_json({{"files", {part(0), part(0)}}}), vram::Error);
}

TEST_CASE("the checkpoint object is checked like any input") {
  const json file = inspect_json("gguf", testing::llama_fixture().build())["file"];
  auto field_of = [](const json& checkpoint) {
    try {
      vram::checkpoint_from_json(checkpoint);
    } catch (const vram::Error& e) {
      return e.field();
    }
    return std::string("no error");
  };
  json f = file;
  f["bytes"] = -1;
  CHECK(field_of({{"files", {f}}}) == "checkpoint.files[0].bytes");
  f = file;
  f["by_type"]["Q4_K"]["bytes"] = 1;
  CHECK(field_of({{"files", {f}}}) == "checkpoint.files[0].by_type");
  f = file;
  f["by_type"]["Q9_Z"] = {{"bytes", 0}, {"elements", 0}};
  CHECK(field_of({{"files", {f}}}) == "checkpoint.files[0].by_type.Q9_Z");
  f = file;
  f["by_component"]["wings"] = {{"bytes", 0}, {"elements", 0}};
  CHECK(field_of({{"files", {f}}}) == "checkpoint.files[0].by_component.wings");
  f = file;
  f["extra"] = 1;
  CHECK(field_of({{"files", {f}}}) == "checkpoint.files[0].extra");
  CHECK(field_of({{"files", json::array()}}) == "checkpoint.files");
  CHECK(field_of({{"config", {}}}) == "checkpoint.files");
}

TEST_CASE("safetensors headers: dtypes, offsets, metadata, components") {
  const json header = {
      {"__metadata__", {{"format", "pt"}}},
      {"model.embed_tokens.weight",
       {{"dtype", "BF16"}, {"shape", {1000, 64}}, {"data_offsets", {0, 128000}}}},
      {"model.layers.0.self_attn.q_proj.qweight",
       {{"dtype", "I32"}, {"shape", {8, 64}}, {"data_offsets", {128000, 130048}}}},
      {"model.layers.0.self_attn.q_proj.scales",
       {{"dtype", "F16"}, {"shape", {1, 64}}, {"data_offsets", {130048, 130176}}}},
      {"model.layers.0.input_layernorm.weight",
       {{"dtype", "F8_E4M3"}, {"shape", {64}}, {"data_offsets", {130176, 130240}}}},
      {"lm_head.weight",
       {{"dtype", "F4"}, {"shape", {1000, 64}}, {"data_offsets", {130240, 162240}}}},
  };
  const std::string file = safetensors_file(header, 162240);
  const json out = inspect_json("safetensors", file, static_cast<double>(file.size()));
  REQUIRE_FALSE(out.contains("error"));
  CHECK(out["metadata"]["format"] == "pt");
  CHECK(out["file"]["bytes"] == 162240.0);
  CHECK(out["file"]["by_type"]["I32"]["bytes"] == 2048.0);
  CHECK(out["file"]["by_component"]["attention"]["bytes"] == 2048.0 + 128.0);
  CHECK(out["file"]["by_component"]["norms"]["bytes"] == 64.0);
  CHECK(out["file"]["by_component"]["lm_head"]["bytes"] == 32000.0);

  auto error_of = [](const json& h, std::size_t data) {
    const json o = inspect_json("safetensors", safetensors_file(h, data));
    REQUIRE(o.contains("error"));
    return o["error"];
  };
  json bad = header;
  bad["lm_head.weight"]["data_offsets"] = {130240, 162241};
  CHECK(error_of(bad, 162241)["field"] == "safetensors.tensors.lm_head.weight.data_offsets");
  bad = header;
  bad["lm_head.weight"]["dtype"] = "F128";
  CHECK(error_of(bad, 162240)["field"] == "safetensors.tensors.lm_head.weight.dtype");
  bad = header;
  bad["model.embed_tokens.weight"]["data_offsets"] = {64, 128064};
  CHECK(error_of(bad, 162240)["code"] == "invalid_safetensors");
  // Deep nesting is refused by the scan, before the parser sees it.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string deep_file;
  for (int k = 0; k < 8; ++k)
    deep_file.push_back(static_cast<char>(((deep.size() + 2) >> (8 * k)) & 0xFF));
  deep_file += "{" + deep + "}";
  CHECK(inspect_json("safetensors", deep_file)["error"]["field"] == "safetensors.header");
  // Truncated: the length says how much to read.
  const json t = inspect_json("safetensors", file.substr(0, 20));
  CHECK(t["error"]["code"] == "truncated");
  CHECK(t["error"]["needed_bytes"] == 8 + header.dump().size());
}

TEST_CASE("model.safetensors.index.json") {
  const vram::safetensors::Index index = vram::safetensors::read_index(json{
      {"metadata", {{"total_size", 300}}},
      {"weight_map",
       {{"a", "model-00001-of-00002.safetensors"},
        {"b", "model-00002-of-00002.safetensors"},
        {"c", "model-00001-of-00002.safetensors"}}}}.dump());
  CHECK(index.total_size == 300);
  CHECK(index.tensors == 3);
  CHECK(index.files == std::vector<std::string>{"model-00001-of-00002.safetensors",
                                                "model-00002-of-00002.safetensors"});
  CHECK_THROWS_AS(vram::safetensors::read_index(R"({"weight_map": {"a": 1}})"), vram::Error);
  auto error_of = [](const std::string& text) -> vram::Error {
    try {
      vram::safetensors::read_index(text);
    } catch (const vram::Error& e) {
      return e;
    }
    FAIL("no error");
    throw;
  };
  // A number past a double is the field's error, not an exception of the JSON library.
  const vram::Error big =
      error_of(R"({"metadata": {"total_size": 1e400}, "weight_map": {"a": "x"}})");
  CHECK(big.code() == "invalid_index");
  CHECK(big.field() == "index.metadata.total_size");
  const vram::Error syntax = error_of(R"({"weight_map": {"a": "x"},})");
  CHECK(syntax.message().id == "error.index_json");
  CHECK(syntax.message().params.at("byte") == 27);  // the stray "}"
  CHECK(error_of("[]").field() == "index");
  CHECK(error_of(R"({"metadata": {}})").field() == "index.weight_map");
}

TEST_CASE("fuzz: 100,000 mutated GGUF headers each end in a result or a named error") {
  GgufWriter w;
  w.str("general.architecture", "qwen2")
      .u32("qwen2.block_count", 1)
      .u32("qwen2.embedding_length", 64)
      .u32("qwen2.attention.head_count", 2)
      .u32s("qwen2.attention.head_count_kv", {1})
      .bools("a.bools", {true, false, true})
      .nested("a.nested", {{1, 2}, {3}})
      .strs("a.strs", {"x", "yz"})
      .u32("qwen2.vocab_size", 100)
      .tensor("token_embd.weight", {64, 100}, "Q8_0")
      .tensor("blk.0.attn_q.weight", {64, 64}, "Q4_0")
      .tensor("output_norm.weight", {64}, "F32");
  const std::string base = w.build(false);
  std::mt19937_64 rng(20261130);
  int results = 0;
  int named = 0;
  double slowest_ms = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100000; ++i) {
    std::string bytes = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:  // one random byte
          bytes[at] = static_cast<char>(rng() & 0xFF);
          break;
        case 1:  // an extreme 64-bit value where a count or length may be
          for (std::size_t k = 0; k < 8 && at + k < bytes.size(); ++k)
            bytes[at + k] = static_cast<char>((rng() % 2 ? 0xFF : 0x7F) >> (k == 7 ? 1 : 0));
          break;
        case 2:  // cut short
          bytes.resize(at);
          break;
        default:  // a bit flip
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
      }
      if (bytes.empty()) break;
    }
    const std::clock_t t0 = std::clock();
    try {
      const vram::gguf::Header h = vram::gguf::read_header(bytes);
      if (h.find("general.architecture") != nullptr) (void)vram::gguf_config(h);
      ++results;
    } catch (const vram::Error& e) {
      REQUIRE_FALSE(e.code().empty());
      REQUIRE_FALSE(e.field().empty());
      ++named;
    }
    // CPU time, not wall time: the machine is shared.
    const double ms = 1000.0 * static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
    slowest_ms = std::max(slowest_ms, ms);
  }
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(results + named == 100000);
  CHECK(results > 0);
  CHECK(named > 0);
  CHECK(slowest_ms < 100);  // no mutation makes it loop or allocate without bound
  CHECK(total_s < 120);
}
