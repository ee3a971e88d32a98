// llama.cpp's partial offload (offload.hpp): when the model does not fit
// its cards, the most that fits stays on the GPU and the rest in host RAM.
// Properties over the presets: a plan fits its budget, more VRAM never puts
// fewer layers on the GPU, host + GPU weights are the model's weights, and
// a model that fits gets no offload; then the answer, its command and its speed.

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"
#include "vram/offload.hpp"

using nlohmann::json;

namespace {

struct Sized {
  vram::ModelSpec model;
  vram::InferencePlan plan;
  vram::OffloadParts parts;
};

Sized sized(const std::string& id, const std::string& weights, std::int64_t context) {
  const auto& catalog = testing::calculator().catalog();
  Sized s;
  s.model = vram::resolve_preset(catalog.model(id, "model")).model;
  const vram::EngineProfile& engine = vram::find_engine(catalog.engines, "llamacpp", "engine");
  vram::InferenceSetup setup;
  setup.model = &s.model;
  setup.weights = &catalog.formats.weight(weights, "weights");
  setup.kv = &catalog.formats.kv("fp16", "kv");
  setup.context = context;
  const json options = vram::engine_options(engine, json::object());
  s.plan = vram::plan_inference(setup, engine, options, nullptr, catalog.gpus, catalog.formats);
  s.parts = vram::offload_parts(setup, s.plan, options);
  return s;
}

int layers_of(const vram::ModelSpec& model) { return static_cast<int>(model.layers.size()); }

double sum(const std::vector<double>& v) {
  double total = 0;
  for (double x : v) total += x;
  return total;
}

bool has_arg(const json& launch, const std::string& flag, const json& value) {
  for (const json& a : launch.at("args")) {
    if (a.at("flag") == flag) return a.at("value") == value;
  }
  return false;
}

// Dense, grouped-query; sliding-window; tied; MoE with dense first layers; MXFP4-native MoE.
const char* const kModels[] = {"llama-3.1-70b", "gemma-3-27b",      "llama-3.2-1b",
                               "qwen3-30b-a3b", "deepseek-v2-lite", "gpt-oss-120b"};

}  // namespace

TEST_CASE("offload parts add up to the full plan") {
  for (const std::string id : kModels) {
    CAPTURE(id);
    const Sized s = sized(id, "q4_k_m", 8192);
    const vram::OffloadParts& p = s.parts;
    REQUIRE(p.layer_bytes.size() == s.model.layers.size());
    // Every layer on the one card: the plan's own total.
    CHECK(vram::offload_card_bytes(p, layers_of(s.model), 0, 1) ==
          doctest::Approx(s.plan.total_bytes).epsilon(1e-9));
    double kv_term = 0;  // llama.cpp's cache: sliding windows plus one ubatch
    for (const vram::Term& t : s.plan.terms) kv_term += t.id == "kv_cache" ? t.bytes : 0.0;
    CHECK(sum(p.kv_bytes) == doctest::Approx(kv_term).epsilon(1e-9));
    for (std::size_t i = 0; i < p.layer_bytes.size(); ++i) {
      CHECK(p.layer_bytes[i] > 0);
      CHECK(p.experts_bytes[i] >= 0);
      CHECK(p.experts_bytes[i] <= p.layer_bytes[i]);
    }
    CHECK((sum(p.experts_bytes) > 0) == (s.model.moe.num_experts > 0));
  }
}

TEST_CASE("property: a plan fits its budget, and host + GPU weights are the model's weights") {
  for (const std::string id : kModels) {
    const Sized s = sized(id, "q4_k_m", 16384);
    const double full = vram::offload_card_bytes(s.parts, layers_of(s.model), 0, 1);
    const double tied = s.model.tied_embeddings ? s.parts.embedding_bytes : 0.0;
    for (int cards : {1, 2, 3}) {
      for (double share = 0.02; share < 1.0; share += 0.02) {
        CAPTURE(id);
        CAPTURE(cards);
        CAPTURE(share);
        const double capacity = full * share;
        const vram::OffloadPlan o = vram::plan_offload(s.parts, capacity, cards);
        if (o.kind == vram::OffloadPlan::Kind::kNone) continue;
        CHECK(o.per_gpu_bytes <= capacity);
        CHECK(o.per_gpu_bytes ==
              doctest::Approx(vram::offload_card_bytes(s.parts, o.gpu_layers, o.n_cpu_moe, cards)));
        // A tied model's output layer is a second copy of token_embd, on the GPU; a vision
        // tower is not in the model's GGUF (the mmproj file's).
        CHECK(o.host_weights_bytes + o.gpu_weights_bytes ==
              doctest::Approx(s.plan.weights.bytes - s.plan.vision_bytes + tied).epsilon(1e-9));
        CHECK(o.host_bytes ==
              doctest::Approx(o.host_weights_bytes + o.host_kv_bytes + o.host_compute_bytes));
        // Partial: something is always left on the host, and -ngl counts the output layer.
        CHECK(o.host_weights_bytes > s.parts.embedding_bytes);
        CHECK(o.ngl == o.gpu_layers + 1);
        CHECK(o.host_read_bytes > 0);
        CHECK(o.host_read_bytes <= o.host_weights_bytes + o.host_kv_bytes);
        if (o.kind == vram::OffloadPlan::Kind::kExperts) {
          CHECK(o.gpu_layers == o.layers);
          CHECK(o.n_cpu_moe >= 1);
          CHECK(o.host_kv_bytes == 0);
        } else {
          CHECK(o.n_cpu_moe == 0);
          CHECK(o.gpu_layers < o.layers);
        }
      }
    }
  }
}

TEST_CASE("property: more VRAM never puts fewer layers or more experts on the host") {
  for (const std::string id : kModels) {
    const Sized s = sized(id, "q4_k_m", 8192);
    const double full = vram::offload_card_bytes(s.parts, layers_of(s.model), 0, 1);
    int layers = -1;
    int experts = layers_of(s.model) + 1;
    bool found = false;
    for (double share = 0.01; share < 1.0; share += 0.01) {
      CAPTURE(id);
      CAPTURE(share);
      const vram::OffloadPlan o = vram::plan_offload(s.parts, full * share, 1);
      if (o.kind == vram::OffloadPlan::Kind::kNone) {
        CHECK_FALSE(found);  // once something fits, more memory keeps it fitting
        continue;
      }
      found = true;
      CHECK(o.gpu_layers >= layers);
      if (o.kind == vram::OffloadPlan::Kind::kExperts) {
        CHECK(o.n_cpu_moe <= experts);
        experts = o.n_cpu_moe;
      }
      layers = o.gpu_layers;
    }
    CHECK(found);
  }
}

TEST_CASE("70B Q4_K_M on one RTX 4090: partial offload, its command, its host RAM and speed") {
  const json r = testing::estimate({{"model", "llama-3.1-70b"},
                                    {"weights", "q4_k_m"},
                                    {"context", 8192},
                                    {"engine", "llamacpp"},
                                    {"gpu", "rtx-4090"}});
  const json& s = r.at("serving");
  CHECK(s.at("fits") == false);
  REQUIRE(s.contains("offload"));
  const json& o = s.at("offload");
  CHECK(o.at("kind") == "layers");
  CHECK(o.at("layers") == 80);
  const int gpu_layers = o.at("gpu_layers").get<int>();
  CHECK(gpu_layers > 20);
  CHECK(gpu_layers < 80);
  CHECK(o.at("ngl") == gpu_layers + 1);
  CHECK(o.at("n_cpu_moe") == 0);
  CHECK(o.at("per_gpu_gb").get<double>() <= o.at("capacity_per_gpu_gb").get<double>());
  CHECK(o.at("capacity_per_gpu_gb").get<double>() ==
        doctest::Approx(s.at("capacity_per_gpu_gb").get<double>()));
  CHECK(o.at("host_gb").get<double>() ==
        doctest::Approx(o.at("host_weights_gb").get<double>() + o.at("host_kv_gb").get<double>() +
                        o.at("host_compute_gb").get<double>()));
  CHECK(o.at("host_weights_gb").get<double>() + o.at("gpu_weights_gb").get<double>() ==
        doctest::Approx(r.at("weights_gb").get<double>()));
  CHECK(o.at("host_bandwidth_gbps") == 89.6);
  // The speed: the host's share dominates, far below the card's own.
  const json& d = o.at("decode");
  const double tps = d.at("expected_tokens_per_s").get<double>();
  CHECK(tps > 0.5);
  CHECK(tps < 10);
  CHECK(d.at("ceiling_tokens_per_s").get<double>() > tps);
  CHECK(d.at("step_ms").at("host").get<double>() > d.at("step_ms").at("gpu").get<double>());
  CHECK(d.at("step_ms").at("total").get<double>() == doctest::Approx(1e3 / tps));
  CHECK(d.at("meets_floor") == false);
  // The headline says it in numbers the plan holds.
  const json& h = o.at("headline");
  CHECK(h.at("id") == "offload.layers");
  CHECK(h.at("params").at("gpu_layers") == gpu_layers);
  CHECK(h.at("params").at("tokens").get<double>() == doctest::Approx(tps));
  CHECK(h.at("params").at("host").get<double>() ==
        doctest::Approx(o.at("host_gb").get<double>() * 1e9));
  // The command: -ngl as the plan has it, no --n-cpu-moe; Ollama says how.
  const json& launch = r.at("launch");
  CHECK(has_arg(launch, "-ngl", gpu_layers + 1));
  CHECK(launch.at("command").get<std::string>().find("--n-cpu-moe") == std::string::npos);
  const json& ollama = launch.at("also").at(0);
  REQUIRE(ollama.contains("notes"));
  CHECK(ollama.at("notes").at(0).at("id") == "launch.note_offload_layers");
  CHECK(ollama.at("notes").at(0).at("params").at("layers") == gpu_layers + 1);
  CHECK_FALSE(r.contains("decode"));  // the full-GPU figures are for setups that hold it
  bool assumed = false;
  for (const json& a : r.at("assumptions")) assumed = assumed || a.at("id") == "assumption.offload";
  CHECK(assumed);
}

TEST_CASE("more VRAM, more layers: RTX 4090, RTX 5090, two RTX 4090") {
  auto layers = [](const char* gpu, int count) {
    const json r = testing::estimate({{"model", "llama-3.1-70b"},
                                      {"weights", "q8_0"},
                                      {"context", 8192},
                                      {"engine", "llamacpp"},
                                      {"gpu", gpu},
                                      {"gpu_count", count}});
    return r.at("serving").at("offload").at("gpu_layers").get<int>();
  };
  const int one = layers("rtx-4090", 1);
  CHECK(layers("rtx-5090", 1) > one);
  CHECK(layers("rtx-4090", 2) > one);
}

TEST_CASE("an MoE model keeps experts, not layers, on the host: --n-cpu-moe") {
  const json r = testing::estimate(
      {{"model", "gpt-oss-120b"}, {"context", 16384}, {"engine", "llamacpp"}, {"gpu", "rtx-4090"}});
  const json& o = r.at("serving").at("offload");
  CHECK(o.at("kind") == "experts");
  const int n = o.at("n_cpu_moe").get<int>();
  CHECK(n >= 1);
  CHECK(n < o.at("layers").get<int>());
  CHECK(o.at("gpu_layers") == o.at("layers"));
  CHECK(o.at("host_kv_gb").get<double>() == 0);
  CHECK(o.at("headline").at("id") == "offload.experts");
  const json& launch = r.at("launch");
  CHECK(has_arg(launch, "--n-cpu-moe", n));
  CHECK(has_arg(launch, "-ngl", o.at("layers").get<int>() + 1));
  CHECK(launch.at("also").at(0).at("notes").at(0).at("id") == "launch.note_offload_experts");
  // Only the chosen experts are read: far faster than the same bytes read whole.
  CHECK(o.at("host_read_gb").get<double>() < o.at("host_weights_gb").get<double>() / 4);
}

TEST_CASE("a model that fits gets no offload, and the command keeps every layer") {
  for (const std::string engine : {"llamacpp", "vllm", "guide"}) {
    CAPTURE(engine);
    const json r = testing::estimate({{"model", "llama-3.1-8b"},
                                      {"weights", "q4_k_m"},
                                      {"context", 8192},
                                      {"engine", engine},
                                      {"gpu", "rtx-4090"}});
    if (r.contains("serving")) CHECK_FALSE(r.at("serving").contains("offload"));
    if (engine == "llamacpp") {
      CHECK(has_arg(r.at("launch"), "-ngl", 33));
      CHECK_FALSE(r.at("launch").at("also").at(0).contains("notes"));
    }
  }
  // Without a card there is nothing to offload to.
  const json none = testing::estimate({{"model", "llama-3.1-70b"}, {"engine", "llamacpp"}});
  CHECK_FALSE(none.contains("serving"));
}

TEST_CASE("host_bandwidth_gbps is a knob with a range, and moves only the offloaded speed") {
  json q = {{"model", "llama-3.1-70b"},
            {"weights", "q4_k_m"},
            {"context", 8192},
            {"engine", "llamacpp"},
            {"gpu", "rtx-4090"}};
  auto tps = [](const json& r) {
    return r.at("serving").at("offload").at("decode").at("expected_tokens_per_s").get<double>();
  };
  const double slow = tps(testing::estimate(q));
  q["engine_options"] = {{"host_bandwidth_gbps", 460.8}};
  const json fast = testing::estimate(q);
  CHECK(tps(fast) > 2 * slow);
  CHECK(fast.at("serving").at("offload").at("host_bandwidth_gbps") == 460.8);
  for (const json& bad : {json(0), json(-5), json(1e9), json("fast"), json(nullptr)}) {
    CAPTURE(bad.dump());
    q["engine_options"] = {{"host_bandwidth_gbps", bad}};
    try {
      testing::estimate(q);
      FAIL("accepted");
    } catch (const vram::Error& e) {
      CHECK(e.field() == "engine_options.host_bandwidth_gbps");
    }
  }
}

// The user's placement (engine knobs gpu_layers, n_cpu_moe): -ngl and
// --n-cpu-moe as typed, the command carrying the same numbers.

TEST_CASE("property: more GPU layers never lower VRAM nor raise host RAM; host + GPU = weights") {
  for (const std::string id : kModels) {
    const Sized s = sized(id, "q4_k_m", 8192);
    const int n = layers_of(s.model);
    const double tied = s.model.tied_embeddings ? s.parts.embedding_bytes : 0.0;
    for (int moe : {0, 1, n / 2, n}) {
      double vram_before = -1;
      double host_before = 1e300;
      for (int ngl = 0; ngl <= n + 3; ++ngl) {
        CAPTURE(id);
        CAPTURE(moe);
        CAPTURE(ngl);
        const vram::OffloadPlan o = vram::place_offload(s.parts, ngl, moe, 1e300, 1);
        CHECK(o.user);
        CHECK(o.fits);
        CHECK(o.ngl == ngl);  // the number typed is the number carried
        CHECK(o.n_cpu_moe == moe);
        CHECK(o.gpu_layers == std::min(n, std::max(0, ngl - 1)));
        CHECK(o.per_gpu_bytes >= vram_before);
        CHECK(o.host_bytes <= host_before);
        vram_before = o.per_gpu_bytes;
        host_before = o.host_bytes;
        // -ngl 0 keeps the output layer on the host too: no second copy of a tied one.
        CHECK(o.host_weights_bytes + o.gpu_weights_bytes ==
              doctest::Approx(s.plan.weights.bytes - s.plan.vision_bytes + (ngl > 0 ? tied : 0.0))
                  .epsilon(1e-9));
        CHECK(o.host_bytes ==
              doctest::Approx(o.host_weights_bytes + o.host_kv_bytes + o.host_compute_bytes));
        CHECK(o.per_gpu_bytes == doctest::Approx(vram::placement_card_bytes(s.parts, ngl, moe, 1)));
      }
      // Above n_layer + 1 means all: the same as n_layer + 1.
      CHECK(vram::place_offload(s.parts, 999, moe, 1e300, 1).per_gpu_bytes ==
            doctest::Approx(vram::place_offload(s.parts, n + 1, moe, 1e300, 1).per_gpu_bytes));
    }
    // More layers' experts on the host never raise VRAM.
    double before = 1e300;
    for (int moe = 0; moe <= n + 2; ++moe) {
      const double need = vram::placement_card_bytes(s.parts, n + 1, moe, 1);
      CHECK(need <= before);
      before = need;
    }
  }
}

TEST_CASE(
    "a placement left to the plan is the plan's pick; one that does not fit says what would") {
  for (const std::string id : kModels) {
    const Sized s = sized(id, "q4_k_m", 8192);
    const int n = layers_of(s.model);
    const double full = vram::offload_card_bytes(s.parts, n, 0, 1);
    for (double share : {0.3, 0.6, 0.9}) {
      CAPTURE(id);
      CAPTURE(share);
      const double capacity = full * share;
      const vram::OffloadPlan pick = vram::plan_offload(s.parts, capacity, 1);
      if (pick.kind == vram::OffloadPlan::Kind::kNone) continue;
      // The user types the plan's own numbers: the same placement.
      const vram::OffloadPlan same =
          vram::place_offload(s.parts, pick.ngl, pick.n_cpu_moe, capacity, 1);
      CHECK(same.fits);
      CHECK(same.per_gpu_bytes == doctest::Approx(pick.per_gpu_bytes));
      CHECK(same.host_bytes == doctest::Approx(pick.host_bytes));
      // -ngl given, --n-cpu-moe left to the plan (and the reverse): the rest is picked to fit.
      if (pick.kind == vram::OffloadPlan::Kind::kExperts) {
        const vram::OffloadPlan k = vram::place_offload(s.parts, n + 1, std::nullopt, capacity, 1);
        CHECK(k.n_cpu_moe == pick.n_cpu_moe);
        CHECK(k.fits);
      } else {
        const vram::OffloadPlan l = vram::place_offload(s.parts, std::nullopt, 0, capacity, 1);
        CHECK(l.ngl == pick.ngl);
        CHECK(l.fits);
      }
      // Everything on the GPU does not fit: the answer says so and names the plan's pick.
      const vram::OffloadPlan all = vram::place_offload(s.parts, 999, 0, capacity, 1);
      CHECK_FALSE(all.fits);
      REQUIRE(all.suggested != nullptr);
      CHECK(all.suggested->ngl == pick.ngl);
      CHECK(all.suggested->n_cpu_moe == pick.n_cpu_moe);
      CHECK(all.suggested->per_gpu_bytes <= capacity);
    }
  }
}

TEST_CASE("gpu_layers and n_cpu_moe: auto is today's answer; a number is used as typed") {
  const json base = {{"model", "llama-3.1-70b"},
                     {"weights", "q4_k_m"},
                     {"context", 8192},
                     {"engine", "llamacpp"},
                     {"gpu", "rtx-4090"}};
  const json plain = testing::estimate(base);
  json q = base;
  q["engine_options"] = {{"gpu_layers", "auto"}, {"n_cpu_moe", "auto"}};
  const json autos = testing::estimate(q);
  CHECK(autos.at("serving") == plain.at("serving"));
  CHECK(autos.at("launch") == plain.at("launch"));
  CHECK(autos.at("serving").at("offload").at("placement") == "auto");

  // A placement that fits: the plan's numbers for it, and the command carries them.
  q["engine_options"] = {{"gpu_layers", 30}};
  const json thirty = testing::estimate(q);
  const json& o = thirty.at("serving").at("offload");
  CHECK(o.at("placement") == "user");
  CHECK(o.at("fits") == true);
  CHECK(o.at("ngl") == 30);
  CHECK(o.at("gpu_layers") == 29);  // the output layer is one of the 30
  CHECK(o.at("suggested").is_null());
  CHECK(o.at("decode").at("expected_tokens_per_s").get<double>() > 0);
  CHECK(has_arg(thirty.at("launch"), "-ngl", 30));
  const json& auto_o = plain.at("serving").at("offload");
  CHECK(o.at("per_gpu_gb").get<double>() < auto_o.at("per_gpu_gb").get<double>());
  CHECK(o.at("host_gb").get<double>() > auto_o.at("host_gb").get<double>());
  CHECK(o.at("decode").at("expected_tokens_per_s").get<double>() <
        auto_o.at("decode").at("expected_tokens_per_s").get<double>());

  // One that does not fit: no speed, the headline names the plan's pick.
  q["engine_options"] = {{"gpu_layers", 60}};
  const json sixty = testing::estimate(q);
  const json& short_o = sixty.at("serving").at("offload");
  CHECK(short_o.at("fits") == false);
  CHECK(short_o.at("decode").is_null());
  CHECK(short_o.at("suggested").at("ngl") == auto_o.at("ngl"));
  CHECK(short_o.at("headline").at("id") == "offload.short");
  CHECK(has_arg(sixty.at("launch"), "-ngl", 60));

  // 999 means all: the command says 999, the plan every layer (and here: does not fit).
  q["engine_options"] = {{"gpu_layers", 999}};
  const json all = testing::estimate(q);
  CHECK(all.at("serving").at("offload").at("gpu_layers") == 80);
  CHECK(has_arg(all.at("launch"), "-ngl", 999));

  // Everything on a card that holds it: the plan itself, the typed number in the command.
  json small = {{"model", "llama-3.1-8b"},
                {"weights", "q4_k_m"},
                {"engine", "llamacpp"},
                {"gpu", "h100-sxm"},
                {"engine_options", {{"gpu_layers", 999}}}};
  const json held = testing::estimate(small);
  CHECK_FALSE(held.at("serving").contains("offload"));
  CHECK(has_arg(held.at("launch"), "-ngl", 999));

  // Without a card: a warning, never a silent default.
  small.erase("gpu");
  const json nocard = testing::estimate(small);
  bool warned = false;
  for (const json& w : nocard.at("warnings")) warned |= w.at("id") == "warning.placement_no_gpu";
  CHECK(warned);
}

TEST_CASE("--n-cpu-moe set by the user on an MoE model: the experts it names stay on the host") {
  json q = {{"model", "mixtral-8x7b"},
            {"weights", "q4_k_m"},
            {"engine", "llamacpp"},
            {"gpu", "rtx-4090"},
            {"engine_options", {{"n_cpu_moe", 20}}}};
  const json r = testing::estimate(q);
  const json& o = r.at("serving").at("offload");
  CHECK(o.at("kind") == "experts");
  CHECK(o.at("n_cpu_moe") == 20);
  CHECK(o.at("gpu_layers") == o.at("layers"));
  CHECK(has_arg(r.at("launch"), "--n-cpu-moe", 20));
  q["engine_options"] = {{"n_cpu_moe", 24}};
  const json more = testing::estimate(q);
  CHECK(more.at("serving").at("offload").at("per_gpu_gb").get<double>() <
        o.at("per_gpu_gb").get<double>());
  CHECK(more.at("serving").at("offload").at("host_gb").get<double>() >
        o.at("host_gb").get<double>());
}

TEST_CASE("gpu_layers and n_cpu_moe are checked: a named error for each bad value") {
  for (const char* key : {"gpu_layers", "n_cpu_moe"}) {
    for (const json& bad :
         {json(-1), json(100001), json(2.5), json("all"), json(true), json(nullptr)}) {
      CAPTURE(key);
      CAPTURE(bad.dump());
      const json q = {{"model", "llama-3.1-8b"},
                      {"engine", "llamacpp"},
                      {"gpu", "rtx-4090"},
                      {"engine_options", {{key, bad}}}};
      try {
        testing::estimate(q);
        FAIL("accepted");
      } catch (const vram::Error& e) {
        CHECK(e.field() == std::string("engine_options.") + key);
      }
    }
  }
}

TEST_CASE(
    "ngl_counts_output off: -ngl N is N repeating layers, the output layer on the GPU only above "
    "n_layer") {
  for (const std::string id : kModels) {
    CAPTURE(id);
    Sized s = sized(id, "q4_k_m", 8192);
    const int n = layers_of(s.model);
    const double tied = s.model.tied_embeddings ? s.parts.embedding_bytes : 0.0;
    vram::OffloadParts old = s.parts;
    old.ngl_counts_output = false;
    double before = -1;
    for (int ngl = 0; ngl <= n + 2; ++ngl) {
      CAPTURE(ngl);
      const vram::OffloadPlan o = vram::place_offload(old, ngl, 0, 1e300, 1);
      CHECK(o.ngl == ngl);
      CHECK(o.gpu_layers == std::min(ngl, n));
      const bool head = ngl > n;
      CHECK(o.host_weights_bytes + o.gpu_weights_bytes ==
            doctest::Approx(s.plan.weights.bytes - s.plan.vision_bytes + (head ? tied : 0.0))
                .epsilon(1e-9));
      CHECK(o.per_gpu_bytes >= before);
      before = o.per_gpu_bytes;
      // The same tensors as today's count one slot further, less the output layer below n_layer
      // + 1.
      const vram::OffloadPlan today =
          vram::place_offload(s.parts, std::min(ngl, n) + 1, 0, 1e300, 1);
      CHECK(o.gpu_weights_bytes ==
            doctest::Approx(today.gpu_weights_bytes - (head ? 0.0 : s.parts.head_bytes)));
      CHECK(o.host_kv_bytes == doctest::Approx(today.host_kv_bytes));
    }
    // The plan's own pick under the old count never exceeds the card either.
    const double full = vram::offload_card_bytes(s.parts, n, 0, 1);
    const vram::OffloadPlan pick = vram::plan_offload(old, full * 0.6, 1);
    if (pick.kind != vram::OffloadPlan::Kind::kNone) CHECK(pick.per_gpu_bytes <= full * 0.6);
  }
}

TEST_CASE("the cheapest cards offer a partial offload that meets the floor, as that card's plan") {
  // gpt-oss-120b (MXFP4 experts) under llama.cpp: one 24 GB card cannot hold
  // it, but with experts in host RAM its few active parameters decode fast
  // enough, so that card is offered, priced below every card that holds it.
  const json req = {{"model", "gpt-oss-120b"},
                    {"engine", "llamacpp"},
                    {"context", 8192},
                    {"batch", 1},
                    {"min_tokens_per_s", 10}};
  const json r = testing::estimate(req);
  const json* offered = nullptr;
  double cheapest_whole = 1e300;
  for (const json& row : r.at("fits")) {
    if (row.contains("offload")) {
      if (offered == nullptr) offered = &row;
      CHECK(row.at("host_gb").get<double>() > 0);
      CHECK(row.at("decode_expected_tokens_per_s").get<double>() >= 10);
      CHECK(row.at("ttft_s").is_null());
      CHECK(row.at("offload").at("label").at("id") == "fits.offload");
      CHECK(row.at("offload").at("flags").at("id") == "offload.flags_experts");
    } else {
      cheapest_whole = std::min(cheapest_whole, row.at("monthly_usd").get<double>());
    }
  }
  REQUIRE(offered != nullptr);
  CHECK(offered->at("monthly_usd").get<double>() < cheapest_whole);
  // The row is the plan that card gives at that count: same placement, host RAM and speed.
  json one = req;
  one["gpu"] = offered->at("gpu");
  one["gpu_count"] = offered->at("count");
  const json plan = testing::estimate(one);
  const json& o = plan.at("serving").at("offload");
  CHECK(o.at("kind") == "experts");
  CHECK(o.at("n_cpu_moe") == offered->at("offload").at("n_cpu_moe"));
  CHECK(o.at("ngl") == offered->at("offload").at("ngl"));
  CHECK(o.at("host_gb").get<double>() == doctest::Approx(offered->at("host_gb").get<double>()));
  CHECK(o.at("decode").at("expected_tokens_per_s").get<double>() ==
        doctest::Approx(offered->at("decode_expected_tokens_per_s").get<double>()));
  // Above its speed that offload is not offered (a count of the card that holds it whole may
  // be), and every offload still offered meets the higher floor.
  json high = req;
  const double floor = offered->at("decode_expected_tokens_per_s").get<double>() + 0.5;
  high["min_tokens_per_s"] = floor;
  const json rh = testing::estimate(high);
  for (const json& row : rh.at("fits")) {
    if (!row.contains("offload")) continue;
    CHECK(row.at("gpu") != offered->at("gpu"));
    CHECK(row.at("decode_expected_tokens_per_s").get<double>() >= floor);
  }
}

TEST_CASE(
    "each layer whose experts the host computes is a hand-off a step pays; dense layers are not") {
  const json moe = testing::estimate({{"model", "qwen3-30b-a3b"},
                                      {"weights", "q4_k_m"},
                                      {"engine", "llamacpp"},
                                      {"gpu", "rtx-4090"},
                                      {"engine_options", {{"gpu_layers", 99}, {"n_cpu_moe", 30}}}});
  const json& o = moe.at("serving").at("offload");
  REQUIRE(o.at("kind") == "experts");
  CHECK(o.at("host_handoffs") == 30);
  const double each = o.at("decode").at("step_ms").at("handoffs").get<double>() / 30;
  CHECK(each == doctest::Approx(0.2));  // data/speed.json host_handoff_us
  CHECK(moe.at("assumptions").dump().find("assumption.offload_handoff") != std::string::npos);
  // More experts on the host: more hand-offs, a slower step.
  const json more =
      testing::estimate({{"model", "qwen3-30b-a3b"},
                         {"weights", "q4_k_m"},
                         {"engine", "llamacpp"},
                         {"gpu", "rtx-4090"},
                         {"engine_options", {{"gpu_layers", 99}, {"n_cpu_moe", 40}}}});
  CHECK(more.at("serving").at("offload").at("host_handoffs") == 40);
  CHECK(more.at("serving").at("offload").at("decode").at("expected_tokens_per_s").get<double>() <
        o.at("decode").at("expected_tokens_per_s").get<double>());
  // Whole layers in host RAM, the output layer on the GPU: the step crosses once, as a full-GPU
  // run does (token_embd is in host memory there too).
  const json dense = testing::estimate({{"model", "llama-3.1-70b"},
                                        {"weights", "q4_k_m"},
                                        {"engine", "llamacpp"},
                                        {"gpu", "rtx-4090"}});
  const json& d = dense.at("serving").at("offload");
  REQUIRE(d.at("kind") == "layers");
  CHECK(d.at("host_handoffs") == 0);
  CHECK(d.at("decode").at("step_ms").at("handoffs").get<double>() == 0);
  CHECK(dense.at("assumptions").dump().find("assumption.offload_handoff") == std::string::npos);
}
