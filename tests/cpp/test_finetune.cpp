// Fine-tuning memory: SPEC section 2 reproduced, each optimizer and ZeRO
// stage on a hand-computed case, properties, and named errors.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

using nlohmann::json;

namespace {

json ft(json request) { return testing::estimate(std::move(request)); }

using testing::assumes;
using testing::find_term;
using testing::required_gb;
using testing::term_gb;

// A small dense model described by hand: 1,000,000,000 parameters stated,
// architecture for activations only.
const json kTiny = {{"model_type", "llama"},    {"hidden_size", 2048},
                    {"num_hidden_layers", 16},  {"num_attention_heads", 16},
                    {"num_key_value_heads", 4}, {"intermediate_size", 8192},
                    {"vocab_size", 32000}};

}  // namespace

TEST_CASE("SPEC 2: the full fine-tune columns, exactly, under the guide's convention") {
  struct Row {
    const char* model;
    double adam;
    double with_activations;
  };
  for (const Row& row :
       {Row{"guide-7b", 112, 129}, Row{"guide-13b", 208, 239}, Row{"guide-34b", 544, 626},
        Row{"guide-70b", 1120, 1288}, Row{"guide-405b", 6480, 7452}}) {
    INFO(row.model);
    const json r = ft({{"model", row.model}, {"mode", "full"}, {"finetune_profile", "guide"}});
    const double states = r.at("weights_gb").get<double>() + r.at("gradients_gb").get<double>() +
                          r.at("optimizer_gb").get<double>();
    CHECK(vram::round_display(states, 0) == row.adam);
    CHECK(vram::round_display(r.at("total_gb").get<double>(), 0) == row.with_activations);
  }
}

TEST_CASE("SPEC 2: LoRA and QLoRA within 10% of the guide from the stated model") {
  struct Row {
    const char* model;
    double lora;
    double qlora;
  };
  for (const Row& row :
       {Row{"guide-7b", 21, 10}, Row{"guide-13b", 33, 14}, Row{"guide-34b", 79, 28},
        Row{"guide-70b", 156, 51}, Row{"guide-405b", 856, 249}}) {
    // The schema's defaults (flash attention on among them) with the guide's
    // profile: every cell of the table, as the page asks for it.
    auto total = [&](const char* mode) {
      return ft({{"model", row.model}, {"mode", mode}, {"finetune_profile", "guide"}})
          .at("total_gb")
          .get<double>();
    };
    const double lora = total("lora");
    const double qlora = total("qlora");
    MESSAGE(std::string(row.model)
            << ": LoRA " << lora << " GB vs " << row.lora << " (" << (lora / row.lora - 1) * 100
            << "%), QLoRA " << qlora << " GB vs " << row.qlora << " ("
            << (qlora / row.qlora - 1) * 100 << "%)");
    CHECK(std::fabs(lora / row.lora - 1) < 0.10);
    CHECK(std::fabs(qlora / row.qlora - 1) < 0.10);
  }
}

TEST_CASE("the guide's profile counts attention scores whatever the kernel, and says so") {
  for (const char* mode : {"lora", "qlora"}) {
    INFO(mode);
    auto answer = [&](const char* profile, bool flash) {
      return ft({{"model", "guide-7b"},
                 {"mode", mode},
                 {"finetune_profile", profile},
                 {"flash_attention", flash}});
    };
    const json on = answer("guide", true);
    CHECK(on.at("total_gb").get<double>() == answer("guide", false).at("total_gb").get<double>());
    CHECK(on.at("assumptions").dump().find("assumption.finetune_guide_attention") !=
          std::string::npos);
    // The physical profile follows the kernel: eager attention keeps the scores.
    CHECK(answer("physical", false).at("total_gb").get<double>() >
          answer("physical", true).at("total_gb").get<double>());
  }
}

TEST_CASE("each optimizer on a hand-computed full fine-tune") {
  const double P = 1e9;
  json base = {{"config", kTiny}, {"params_total", P}, {"mode", "full"}};
  auto states = [&](const char* optimizer) {
    json r = base;
    r["optimizer"] = optimizer;
    const json out = ft(r);
    return std::make_tuple(out.at("weights_gb").get<double>(), out.at("gradients_gb").get<double>(),
                           out.at("optimizer_gb").get<double>());
  };
  auto [w, g, o] = states("adamw");  // 2 + 2 + (4 master + 8 moments)
  CHECK(w == doctest::Approx(2.0 * P / 1e9));
  CHECK(g == doctest::Approx(2.0 * P / 1e9));
  CHECK(o == doctest::Approx(12.0 * P / 1e9));
  // 4 master + two uint8 states, each with an fp32 absmax per block of 256 (bitsandbytes).
  CHECK(std::get<2>(states("adamw-8bit")) == doctest::Approx((4.0 + 2.0 + 8.0 / 256) * P / 1e9));
  // torch.optim.SGD: no state at its default momentum 0; one fp32 buffer above it.
  CHECK(std::get<2>(states("sgd")) == doctest::Approx(4.0 * P / 1e9));
  json sgd = base;
  sgd["optimizer"] = "sgd";
  sgd["momentum"] = 0.9;
  CHECK(ft(sgd).at("optimizer_gb").get<double>() == doctest::Approx(8.0 * P / 1e9));
  // Adafactor: master + one fp32 row and column vector per matrix, far under a byte per parameter.
  const double adafactor = std::get<2>(states("adafactor"));
  CHECK(adafactor > 4.0 * P / 1e9);
  CHECK(adafactor < 4.1 * P / 1e9);
}

TEST_CASE("Adafactor on LoRA factors each adapter matrix: about 4/r bytes per adapter parameter") {
  // Llama 3.1 8B, rank 16 on q, k, v, o: 32 x 16 x (8192 + 5120 + 5120 + 8192) parameters.
  const double adapter = 32.0 * 16 * (8192 + 5120 + 5120 + 8192);
  const json r = ft({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"optimizer", "adafactor"}});
  CHECK(r.at("optimizer_gb").get<double>() == doctest::Approx(adapter * 4.0 / 16 / 1e9));
  json bad = {{"model", "llama-3.1-8b"}, {"mode", "full"}, {"optimizer", "sgd"}, {"momentum", 1}};
  CHECK_THROWS_AS(testing::estimate(bad), vram::Error);
}

namespace {

// Two Llama layers small enough to count by hand: hidden 64, 4 heads of 16
// (q and o 64 x 64), 2 KV heads (k and v 64 x 32), MLP 256 (gate, up and
// down 64 x 256), vocabulary 1,000, embedding and lm_head untied.
// Parameters: 2 x 64,000 + 2 x (4,096 + 2 x 2,048 + 4,096 + 3 x 16,384 + 2 x 64) + 64 = 251,200.
const json kHand = {{"model_type", "llama"},    {"hidden_size", 64},
                    {"num_hidden_layers", 2},   {"num_attention_heads", 4},
                    {"num_key_value_heads", 2}, {"intermediate_size", 256},
                    {"vocab_size", 1000},       {"tie_word_embeddings", false}};
constexpr double kHandParams = 251200;

json by_hand(const char* optimizer, const char* precision, double momentum = -1) {
  json r = {{"config", kHand},
            {"mode", "full"},
            {"optimizer", optimizer},
            {"precision", precision},
            {"seq", 16}};
  if (momentum >= 0) r["momentum"] = momentum;
  return ft(r);
}

double step_gb(const json& result) {
  for (const json& term : result.at("terms")) {
    if (term.at("id") == "backward") return term.at("inputs").at("step_gb").get<double>();
  }
  return -1;
}

std::string optimizer_word(const json& result) {
  return result.at("assumptions").at(0).at("params").at("optimizer").at("id").get<std::string>();
}

}  // namespace

TEST_CASE("SGD as the Trainer builds it: no momentum, no state; with momentum, one buffer") {
  // transformers' optim="sgd" is torch.optim.SGD(params, lr): momentum 0, and
  // torch keeps a momentum_buffer only when momentum != 0 (torch/optim/sgd.py).
  const json plain = by_hand("sgd", "mixed");
  CHECK(plain.at("trainable_params").get<double>() == kHandParams);
  CHECK(plain.at("optimizer_gb").get<double>() == doctest::Approx(4.0 * kHandParams / 1e9));
  CHECK(optimizer_word(plain) == "optimizer.sgd_no_state");
  CHECK(by_hand("sgd", "bf16").at("optimizer_gb").get<double>() == 0.0);
  // The buffer is a clone of the gradient: FP32 under mixed precision, BF16 under pure BF16.
  const json momentum = by_hand("sgd", "mixed", 0.9);
  CHECK(momentum.at("optimizer_gb").get<double>() == doctest::Approx(8.0 * kHandParams / 1e9));
  CHECK(optimizer_word(momentum) == "optimizer.sgd_momentum");
  CHECK(by_hand("sgd", "bf16", 0.9).at("optimizer_gb").get<double>() ==
        doctest::Approx(2.0 * kHandParams / 1e9));
  CHECK(step_gb(plain) == 0.0);
}

TEST_CASE("Adafactor as transformers allocates it: factored FP32 moments, FP32 step buffers") {
  // Second moments (beta1=None: no first moment), FP32 whatever the parameter:
  // a row and a column vector per matrix, every element of a 1-D parameter.
  // Embedding and lm_head 2 x (1,000 + 64); per layer q 64 + 64, k 64 + 32,
  // v 64 + 32, o 64 + 64, gate, up and down 3 x (64 + 256), two norms 2 x 64;
  // the final norm 64: 2,128 + 2 x (1,408 + 128) + 64 = 5,264 elements.
  constexpr double kStateBytes = 4.0 * 5264;
  const json mixed = by_hand("adafactor", "mixed");
  CHECK(mixed.at("optimizer_gb").get<double>() ==
        doctest::Approx((4.0 * kHandParams + kStateBytes) / 1e9));
  const json bf16 = by_hand("adafactor", "bf16");
  CHECK(bf16.at("optimizer_gb").get<double>() == doctest::Approx(kStateBytes / 1e9));
  CHECK(optimizer_word(bf16) == "optimizer.adafactor_factored");
  // The step, one parameter at a time: the largest is the embedding (and the
  // lm_head), 64,000 elements. Two update-sized FP32 tensors at once, and
  // under pure BF16 also grad.float() and p.float(): 2 or 4 x 4 x 64,000 bytes.
  CHECK(step_gb(mixed) == doctest::Approx(2.0 * 4.0 * 64000 / 1e9));
  CHECK(step_gb(bf16) == doctest::Approx(4.0 * 4.0 * 64000 / 1e9));
  // The step runs once backward is done: gradients and step buffers together,
  // beyond the loss's buffers, are what the backward term adds here.
  CHECK(term_gb(bf16, "backward") > 4.0 * 4.0 * 64000 / 1e9);
  // Offloaded, the step runs on the host.
  json offloaded = {{"config", kHand},
                    {"mode", "full"},
                    {"optimizer", "adafactor"},
                    {"precision", "bf16"},
                    {"offload_optimizer", true}};
  CHECK(step_gb(ft(offloaded)) == 0.0);
}

TEST_CASE("each ZeRO stage on a hand-computed case, and optimizer offload") {
  const double P = 1e9;
  const double N = 4;
  json base = {{"config", kTiny}, {"params_total", P}, {"mode", "full"}, {"gpu_count", 4}};
  auto stage = [&](int zero, bool offload = false) {
    json r = base;
    r["zero"] = zero;
    r["offload_optimizer"] = offload;
    return ft(r);
  };
  auto states = [](const json& r) {
    return r.at("weights_gb").get<double>() + r.at("gradients_gb").get<double>() +
           r.at("optimizer_gb").get<double>();
  };
  // Rajbhandari et al. 2020, figure 1: (2 + 2 + K)P, (2 + 2 + K/N)P, (2 + (2 + K)/N)P, (2 + 2 +
  // K)P/N.
  CHECK(states(stage(0)) == doctest::Approx(16 * P / 1e9));
  CHECK(states(stage(1)) == doctest::Approx((4 + 12 / N) * P / 1e9));
  CHECK(states(stage(2)) == doctest::Approx((2 + 14 / N) * P / 1e9));
  CHECK(states(stage(3)) == doctest::Approx(16 / N * P / 1e9));
  const json offload = stage(3, true);
  CHECK(offload.at("optimizer_gb").get<double>() == 0);
  CHECK(offload.at("host_ram_gb").get<double>() == doctest::Approx(12 * P / 1e9));
  // Activations are per GPU, never sharded.
  CHECK(stage(3).at("activations_gb").get<double>() == stage(0).at("activations_gb").get<double>());
}

TEST_CASE("LoRA adapters are counted for the actual architecture") {
  // Llama 3.1 8B, rank 16 on q, k, v, o: per layer 16 x ((4096 + 4096) + (4096 + 1024) x 2 + (4096
  // + 4096)).
  const json r = ft({{"model", "llama-3.1-8b"}, {"mode", "lora"}});
  CHECK(r.at("adapter_params").get<double>() == 32 * 16.0 * (8192 + 5120 + 5120 + 8192));
  // All linear layers add gate, up (4096 + 14336) and down (14336 + 4096).
  const json all =
      ft({{"model", "llama-3.1-8b"},
          {"mode", "lora"},
          {"lora_targets",
           {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}}});
  CHECK(all.at("adapter_params").get<double>() ==
        32 * 16.0 * (8192 + 5120 + 5120 + 8192 + 3 * 18432));
  // MoE experts when targeted: every routed expert's gate, up and down.
  const json experts =
      ft({{"model", "mixtral-8x7b"}, {"mode", "lora"}, {"lora_targets", {"experts"}}});
  CHECK(experts.at("adapter_params").get<double>() == 32 * 8 * 3 * 16.0 * (4096 + 14336));
  // 16 bytes per adapter parameter with AdamW: weights, gradients (fp32) and two moments.
  CHECK(term_gb(r, "adapter") + r.at("gradients_gb").get<double>() +
            r.at("optimizer_gb").get<double>() ==
        doctest::Approx(16 * r.at("adapter_params").get<double>() / 1e9));
}

TEST_CASE("QLoRA: NF4 base with its constants; embeddings and norms 16-bit or upcast") {
  const json plain =
      ft({{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"upcast_unquantized", false}});
  const json upcast = ft({{"model", "llama-3.1-8b"}, {"mode", "qlora"}});
  const double embeddings = 2 * 128256.0 * 4096;  // input embedding and untied lm_head
  const double norms = 4096.0 * (2 * 32 + 1);
  const double linear = 8030261248.0 - embeddings - norms;
  CHECK(term_gb(plain, "weights") ==
        doctest::Approx((linear * 4.127 / 8 + (embeddings + norms) * 2) / 1e9));
  // PEFT's prepare_model_for_kbit_training: what bitsandbytes leaves alone goes to FP32.
  CHECK(term_gb(upcast, "weights") ==
        doctest::Approx((linear * 4.127 / 8 + (embeddings + norms) * 4) / 1e9));
}

TEST_CASE("the loss: full fp32 logits, chunked, or fused") {
  auto logits = [](const char* loss) {
    return term_gb(ft({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"loss", loss}}), "logits");
  };
  const double tokens_vocab = 2048.0 * 128256;
  CHECK(logits("standard") == doctest::Approx(tokens_vocab * 12 / 1e9));
  CHECK(logits("chunked") == doctest::Approx(tokens_vocab * 3.5 / 1e9));
  CHECK(logits("fused") == 0);
}

TEST_CASE("pure BF16 training keeps no master copy and 16-bit moments") {
  const json r =
      ft({{"config", kTiny}, {"params_total", 1e9}, {"mode", "full"}, {"precision", "bf16"}});
  CHECK(r.at("optimizer_gb").get<double>() == doctest::Approx(4.0));  // 2 + 2 bytes of moments
  CHECK(r.at("weights_gb").get<double>() + r.at("gradients_gb").get<double>() ==
        doctest::Approx(4.0));
}

TEST_CASE("properties: more sequence or batch never lowers memory; QLoRA < LoRA < full") {
  std::mt19937_64 rng(7);
  const std::vector<std::string> models = {"guide-7b",   "llama-3.1-8b",     "qwen3-30b-a3b",
                                           "gemma-2-9b", "deepseek-v2-lite", "jamba-v0.1",
                                           "gpt-oss-20b"};
  const std::vector<std::string> modes = {"full", "lora", "qlora"};
  for (int i = 0; i < 120; ++i) {
    const std::string model = models[rng() % models.size()];
    const std::string mode = modes[rng() % modes.size()];
    const std::int64_t seq = 1 + static_cast<std::int64_t>(rng() % 16384);
    const std::int64_t micro = 1 + static_cast<std::int64_t>(rng() % 8);
    json r = {{"model", model},
              {"mode", mode},
              {"seq", seq},
              {"micro_batch", micro},
              {"checkpointing", rng() % 2 == 0},
              {"flash_attention", rng() % 2 == 0}};
    INFO(r.dump());
    const double base = ft(r).at("total_gb").get<double>();
    json longer = r;
    longer["seq"] = seq + 1 + static_cast<std::int64_t>(rng() % 8192);
    CHECK(ft(longer).at("total_gb").get<double>() >= base);
    json bigger = r;
    bigger["micro_batch"] = micro + 1;
    CHECK(ft(bigger).at("total_gb").get<double>() >= base);
    json q = r, l = r, f = r;
    q["mode"] = "qlora";
    l["mode"] = "lora";
    f["mode"] = "full";
    // Like for like: PEFT's fp32 upcast makes QLoRA's residual stream fp32,
    // so at long sequences its checkpoints outgrow the 4-bit saving.
    q["upcast_unquantized"] = false;
    const double qlora = ft(q).at("total_gb").get<double>();
    const double lora = ft(l).at("total_gb").get<double>();
    CHECK(qlora < lora);
    CHECK(lora < ft(f).at("total_gb").get<double>());
  }
}

TEST_CASE("ZeRO-3 over N GPUs divides the sharded terms by N") {
  for (int n : {2, 4, 8, 64}) {
    const json one = ft({{"model", "guide-70b"}, {"mode", "full"}, {"zero", 3}, {"gpu_count", 1}});
    const json many = ft({{"model", "guide-70b"}, {"mode", "full"}, {"zero", 3}, {"gpu_count", n}});
    for (const char* key : {"weights_gb", "gradients_gb", "optimizer_gb"}) {
      CHECK(many.at(key).get<double>() == doctest::Approx(one.at(key).get<double>() / n));
    }
  }
}

TEST_CASE("inverse answers: the largest micro-batch and the longest sequence that fit") {
  const json r = ft({{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"gpu", "rtx-4090"}});
  const std::int64_t seq = r.at("inverse").at("max_seq").get<std::int64_t>();
  const std::int64_t micro = r.at("inverse").at("max_micro_batch").get<std::int64_t>();
  CHECK(seq > 2048);
  CHECK(micro >= 1);
  auto total = [](std::int64_t s, std::int64_t b) {
    return ft({{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"seq", s}, {"micro_batch", b}})
        .at("total_gb")
        .get<double>();
  };
  CHECK(total(seq, 1) <= 24.0);
  CHECK(total(seq + 1, 1) > 24.0);
  CHECK(total(2048, micro) <= 24.0);
  CHECK(total(2048, micro + 1) > 24.0);
}

TEST_CASE("fine-tuning errors name the field") {
  auto field_of = [](const json& request) {
    try {
      ft(request);
    } catch (const vram::Error& e) {
      return e.field() + " " + e.code();
    }
    return std::string("no error");
  };
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "lora"}, {"lora_rank", 0}}) ==
        "lora_rank invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"seq", 0}}) == "seq invalid_value");
  CHECK(field_of(
            {{"model", "guide-7b"}, {"mode", "lora"}, {"lora_targets", {"q_proj", "attn_out"}}}) ==
        "lora_targets invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "lora"}, {"lora_targets", json::array()}}) ==
        "lora_targets invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "dpo"}}) == "mode invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"optimizer", "lion"}}) ==
        "optimizer invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"zero", 4}}) == "zero invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"context", 4096}}) ==
        "context not_applicable");
  CHECK(field_of({{"model", "guide-7b"}, {"seq", 4096}}) == "seq not_applicable");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"micro_batch", -2}}) ==
        "micro_batch invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"loss", "magic"}}) ==
        "loss invalid_value");
  CHECK(field_of({{"model", "guide-7b"}, {"mode", "full"}, {"precision", "fp4"}}) ==
        "precision invalid_value");
}

TEST_CASE("the allocator's peak: stored activations, then the largest of loss, layer, gradients") {
  // Llama 3.1 8B, full, pure BF16, no checkpointing, fused AdamW: the
  // gradients (2P) appear as backward frees the saved activations, so the
  // peak holds weights + states + max(stored + loss, gradients + layer, ...).
  const json base = {{"model", "llama-3.1-8b"},   {"mode", "full"},
                     {"precision", "bf16"},       {"seq", 512},
                     {"checkpointing", false},    {"flash_attention", true},
                     {"optimizer", "adamw-fused"}};
  const json r = ft(base);
  const double P = r.at("params_total").get<double>();
  const double stored = term_gb(r, "activations"), loss = term_gb(r, "logits");
  const double layer = r.at("terms")[4].at("inputs").at("layer_gb").get<double>();
  CHECK(r.at("terms")[4].at("id") == "backward");
  const double grads = 2.0 * P / 1e9;
  const double peak =
      2.0 * P / 1e9 + 4.0 * P / 1e9 + std::max({stored + loss, stored + layer, grads + layer});
  CHECK(r.at("allocator_peak_gb").get<double>() == doctest::Approx(peak));
  // The device total: the peak, the CUDA context with cuBLAS (the
  // transformers profile's 0.67 GiB) and the allocator's reserve.
  CHECK(r.at("total_basis") == "device");
  CHECK(r.at("total_gb").get<double>() ==
        doctest::Approx(peak + 0.67 * vram::kBytesPerGiB / 1e9 +
                        r.at("allocator_reserve_gb").get<double>()));
  CHECK(r.at("allocator_reserved_gb").get<double>() ==
        doctest::Approx(peak + r.at("allocator_reserve_gb").get<double>()));
  // At 512 tokens the gradients (16 GB) outweigh the activations and the
  // loss: the step's end is the peak.
  CHECK(grads + layer > stored + loss);
  CHECK(r.at("allocator_peak_gb").get<double>() == doctest::Approx(6.0 * P / 1e9 + grads + layer));
}

TEST_CASE("torch's default AdamW (foreach) holds one moment more at its step than the fused one") {
  json fused = {{"model", "llama-3.2-1b"}, {"mode", "full"},
                {"precision", "bf16"},     {"seq", 256},
                {"checkpointing", true},   {"optimizer", "adamw-fused"}};
  json foreach = fused;
  foreach
    ["optimizer"] = "adamw";
  const json a = ft(fused), b = ft(foreach);
  const double P = a.at("params_total").get<double>();
  // Short sequence: the gradients end the fused run's peak (with the last
  // recomputed layer), the foreach step's sqrt(exp_avg_sq) the other's
  // (_multi_tensor_adam: one bf16 moment, 2 bytes per parameter).
  double layer = 0;
  for (const json& t : a.at("terms")) {
    if (t.at("id") == "backward") layer = t.at("inputs").at("layer_gb").get<double>();
  }
  CHECK(b.at("allocator_peak_gb").get<double>() - a.at("allocator_peak_gb").get<double>() ==
        doctest::Approx(2.0 * P / 1e9 - layer));
  CHECK(a.at("optimizer_gb") == b.at("optimizer_gb"));
}

TEST_CASE("QLoRA with PEFT's upcast keeps fp32 checkpoints: the residual stream is fp32") {
  json upcast = {{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"seq", 8192}};
  json plain = upcast;
  plain["upcast_unquantized"] = false;
  // 32 layer inputs of 4,096 x 8,192 tokens: 4 bytes against 2.
  CHECK(term_gb(ft(upcast), "activations") - term_gb(ft(plain), "activations") ==
        doctest::Approx(32.0 * 8192 * 4096 * 2 / 1e9));
}

TEST_CASE(
    "LoRA without checkpointing: PEFT's fp32 adapters keep an fp32 input per adapted module") {
  // Llama 3.1 8B, r16 on q/k/v/o, 4,096 tokens, no checkpointing. FP32
  // adapters (precision mixed, PEFT's default): q, k and v each keep 4h
  // bytes per token and o its 4 x 4,096; BF16 adapters share the 2h input
  // and o's 2 x 4,096.
  json bf16 = {{"model", "llama-3.1-8b"}, {"mode", "lora"},          {"seq", 4096},
               {"checkpointing", false},  {"flash_attention", true}, {"precision", "bf16"}};
  json fp32 = bf16;
  fp32["precision"] = "mixed";
  const double h = 4096, tokens = 4096, layers = 32;
  const double more = layers * tokens * ((3 * 4 * h + 4 * h) - (2 * h + 2 * h));
  CHECK(term_gb(ft(fp32), "activations") - term_gb(ft(bf16), "activations") ==
        doctest::Approx(more / 1e9));
  // Every layer's saved tensors at BF16 adapters, per token: the norms' fp32
  // copies (2 x 4h), the q/k/v input (2h), Q, K, V (2 x 6,144), SDPA's
  // output and o's input (2 x 2 x 4,096), gate, SiLU and up (3 x 2 x 14,336).
  const double per_token = 8 * h + 2 * h + 2 * 6144 + 4 * 4096 + 6 * 14336;
  CHECK(term_gb(ft(bf16), "activations") == doctest::Approx(layers * tokens * per_token / 1e9));
}

TEST_CASE(
    "QLoRA with PEFT's upcast under the Trainer's autocast: a BF16 copy per adapter, FP32 MLP") {
  // Llama 3.1 8B, r16 on every linear module, 1,024 tokens, no
  // checkpointing, flash attention. Under autocast PEFT's 4-bit layers do
  // not cast (bnb.py: requires_conversion = not torch.is_autocast_enabled());
  // over the upcast's fp32 stream autocast casts each adapter's input to
  // bf16, one copy per module, and bitsandbytes returns fp32 (the input's
  // dtype), so gate, SiLU and up are fp32. Per layer and token:
  //   norms' fp32 inputs        2 x 4 x 4,096  =  32,768
  //   q/k/v's bf16 copies       3 x 2 x 4,096  =  24,576
  //   Q, K, V (GQA: 8 x 128)    2 x 6,144      =  12,288
  //   SDPA's output, o's input  2 x 2 x 4,096  =  16,384
  //   gate/up's bf16 copies     2 x 2 x 4,096  =  16,384
  //   gate, SiLU, up in fp32    3 x 4 x 14,336 = 172,032
  //   down's bf16 copy          2 x 14,336     =  28,672
  //                                              303,104 bytes
  // x 32 layers x 1,024 tokens = 9,932,111,872 bytes. Counted as LoRA's
  // fp32 copies (4 bytes a module) with bf16 intermediates it was
  // 294,912 a layer and token: 9.66 GB.
  const json all = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  const json r = ft({{"model", "llama-3.1-8b"},
                     {"mode", "qlora"},
                     {"lora_rank", 16},
                     {"lora_targets", all},
                     {"seq", 1024},
                     {"checkpointing", false},
                     {"flash_attention", true}});
  CHECK(required_gb(r, "activations") == doctest::Approx(9'932'111'872.0 / 1e9));
  CHECK(assumes(r, "assumption.qlora_autocast"));
  // Without the upcast the stream is bf16 and the count is LoRA's (per-module
  // fp32 copies, bf16 intermediates): no such assumption.
  json plain = {{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"upcast_unquantized", false}};
  CHECK_FALSE(assumes(ft(plain), "assumption.qlora_autocast"));
}

TEST_CASE("QLoRA's upcast LM head: its BF16 autocast copy sits beside the loss, whatever the seq") {
  // prepare_model_for_kbit_training makes the head fp32; autocast casts a
  // frozen weight at every call (cached_cast caches only weights that
  // require grad) and the matmul keeps the copy for its input's gradient:
  // Llama 3.1 8B, 128,256 x 4,096 x 2 bytes = 1,050,673,152 bytes.
  json upcast = {{"model", "llama-3.1-8b"}, {"mode", "qlora"}, {"seq", 2048}};
  const json a = ft(upcast);
  CHECK(required_gb(a, "lm_head_copy") == doctest::Approx(1'050'673'152.0 / 1e9));
  CHECK(assumes(a, "assumption.qlora_head_copy"));
  upcast["seq"] = 8192;
  CHECK(required_gb(ft(upcast), "lm_head_copy") == doctest::Approx(1'050'673'152.0 / 1e9));
  // The allocator's peak holds it with the loss's buffers: the peak is the
  // sum of every term but the runtime and the reserve.
  double summed = 0;
  for (const json& t : a.at("terms")) {
    if (t.at("id") != "overhead" && t.at("id") != "reserve") summed += t.at("gb").get<double>();
  }
  CHECK(a.at("allocator_peak_gb").get<double>() == doctest::Approx(summed));
  // No upcast: a bf16 head, no copy; the guide's convention counts none.
  json plain = upcast;
  plain["upcast_unquantized"] = false;
  CHECK(find_term(ft(plain), "lm_head_copy") == nullptr);
  json guide = upcast;
  guide["finetune_profile"] = "guide";
  CHECK(find_term(ft(guide), "lm_head_copy") == nullptr);
  CHECK_FALSE(assumes(ft(guide), "assumption.qlora_head_copy"));
}
